//! A binary min-heap of 128-bit keys with one empty slot after the last key: the link-event store
//! of the event queue (`sim::event`; one `Arrive` or `TxDone` per busy port).
//!
//! Why not std's `BinaryHeap`: the run loop replaces the head on most packet-hops (the next
//! packet on a wire, `replace_top`) and std's sift, reached through `PeekMut`, spent about 23
//! instructions a level, a sift about 80 (callgrind, issue 13, round 13). Here the slot after
//! the last key always holds `u128::MAX` (never a key: see `EMPTY`), so a node whose first child
//! exists can compare both children without testing whether the second does, and the root can
//! be read without testing whether the heap is empty (an empty heap reads `u128::MAX`, later than
//! every event, which is what the event queue's head test wants).
//!
//! Keys are unique (the event queue's (time, kind, port) words), so the order in which keys
//! leave the heap is fixed by the set of keys alone: it pops exactly what std's `BinaryHeap`
//! popped (the property test below checks it).

/// The slot after the last key. No event-queue key reaches it: its kind bits would be 7, which
/// no event kind uses.
const EMPTY: u128 = u128::MAX;

/// The heap, smallest key first. `slots` holds the keys in heap order, then one `EMPTY`: its
/// length is always the number of keys plus one.
pub struct LinkHeap {
    slots: Vec<u128>,
}

impl Default for LinkHeap {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl LinkHeap {
    /// An empty heap with room for `cap` keys before it grows.
    pub fn with_capacity(cap: usize) -> Self {
        let mut slots = Vec::with_capacity(cap + 1);
        slots.push(EMPTY);
        LinkHeap { slots }
    }

    /// Number of keys.
    #[inline]
    pub fn len(&self) -> usize {
        self.slots.len() - 1
    }

    /// True when the heap holds no key.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.slots.len() == 1
    }

    /// The keys, in heap order (the first is the smallest).
    #[inline]
    pub fn as_slice(&self) -> &[u128] {
        &self.slots[..self.slots.len() - 1]
    }

    /// The keys at positions 1 and 2 of the array (the head's children, one of which is the
    /// likeliest next head), `u128::MAX` where the heap has none: a read-only look for the run
    /// loop's prefetches.
    #[inline(always)]
    pub fn head_children(&self) -> [u128; 2] {
        [self.slots.get(1).copied().unwrap_or(EMPTY), self.slots.get(2).copied().unwrap_or(EMPTY)]
    }

    /// The smallest key, or `u128::MAX` when the heap is empty: one load, no branch.
    #[inline(always)]
    pub fn head(&self) -> u128 {
        // SAFETY: `slots` always holds at least the trailing `EMPTY`.
        unsafe { *self.slots.get_unchecked(0) }
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&self) -> Option<u128> {
        let k = self.head();
        (k != EMPTY).then_some(k)
    }

    /// Adds `key` (which must differ from every key in the heap and from `u128::MAX`).
    #[inline]
    pub fn push(&mut self, key: u128) {
        debug_assert!(key != EMPTY);
        let hole = self.slots.len() - 1;
        self.slots.push(EMPTY);
        // SAFETY: `hole` is the last key's slot now (`slots` grew by one behind it).
        unsafe { self.sift_up(hole, key) }
    }

    /// Replaces the smallest key by `key` (the heap is not empty; `key` differs from every
    /// other key and from `u128::MAX`): one sift down from the root, which stops where `key`
    /// is smaller than both children. The run loop's key is the next packet on the same wire,
    /// usually close to the front (at N = 1,000 about 9 keys of 60 come before it), so the
    /// sift stops early.
    #[inline(always)]
    pub fn replace_top(&mut self, key: u128) {
        debug_assert!(!self.is_empty() && key != EMPTY);
        let len = self.len();
        let s = self.slots.as_mut_ptr();
        // SAFETY: `hole < len` throughout, and a child `c` is read only when `c < len`, with
        // its sibling at `c + 1 <= len`: the trailing `EMPTY`'s slot at most, which exists.
        unsafe {
            let mut hole = 0;
            while let Some(c) = smaller_child(s, hole, len) {
                let m = *s.add(c);
                if key < m {
                    break;
                }
                *s.add(hole) = m;
                hole = c;
            }
            *s.add(hole) = key;
        }
    }

    /// Removes and returns the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<u128> {
        if self.is_empty() {
            return None;
        }
        let top = self.head();
        // The last key leaves its slot, which becomes the trailing `EMPTY`.
        self.slots.pop();
        let len = self.len();
        let s = self.slots.as_mut_ptr();
        // SAFETY: `slots` holds `len + 1` entries: `len` keys, then the last key's old slot,
        // read and then set `EMPTY`. The hole stays below `len` and a child `c` is read only
        // when `c < len` (its sibling at most at `len`); `sift_up` moves to parents.
        unsafe {
            let last = *s.add(len);
            *s.add(len) = EMPTY;
            if len == 0 {
                return Some(top);
            }
            // Move the hole from the root down to a leaf along the smaller children, then let
            // the last key rise from there (it came from the bottom, so it seldom rises far):
            // one compare per level instead of two.
            let mut hole = 0;
            while let Some(c) = smaller_child(s, hole, len) {
                *s.add(hole) = *s.add(c);
                hole = c;
            }
            self.sift_up(hole, last);
        }
        Some(top)
    }

    /// Moves the hole at slot `hole` up past every parent greater than `key`, then writes `key`
    /// there (the end of a push and of a pop).
    ///
    /// # Safety
    /// `hole` is below `self.len()`.
    #[inline(always)]
    unsafe fn sift_up(&mut self, mut hole: usize, key: u128) {
        debug_assert!(hole < self.len());
        let s = self.slots.as_mut_ptr();
        // SAFETY: parents of a slot are smaller slot numbers, so every slot touched is below
        // `hole`'s, a key's slot.
        unsafe {
            while hole > 0 {
                let parent = (hole - 1) / 2;
                let p = *s.add(parent);
                if p < key {
                    break;
                }
                *s.add(hole) = p;
                hole = parent;
            }
            *s.add(hole) = key;
        }
    }
}

/// The slot of `hole`'s smaller child in a heap of `len` keys at `s`, none if it has no child.
/// The index first, then the key is read (as std's sift does): a select of the two keys
/// compiled to a second compare and four moves.
///
/// # Safety
///
/// `s` holds `len` keys and the trailing `EMPTY` after them, so a first child below `len` has
/// its sibling slot at most at `len`.
#[inline(always)]
unsafe fn smaller_child(s: *const u128, hole: usize, len: usize) -> Option<usize> {
    let c = 2 * hole + 1;
    // SAFETY: `c < len`, so `c` and `c + 1 <= len` are slots of `s` (the caller's guarantee).
    (c < len).then(|| c + unsafe { *s.add(c + 1) < *s.add(c) } as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn an_emptied_heap_pops_nothing_reads_empty_and_refills() {
        let mut h = LinkHeap::default();
        assert_eq!((h.pop(), h.peek(), h.head()), (None, None, EMPTY));
        h.push(5);
        h.push(2);
        assert_eq!((h.pop(), h.pop(), h.pop()), (Some(2), Some(5), None));
        assert!(h.is_empty() && h.head() == EMPTY);
        h.push(9);
        h.replace_top(4);
        assert_eq!(h.peek(), Some(4));
        assert_eq!(h.as_slice(), &[4]);
    }

    proptest! {
        /// Any interleaving of pushes (unique keys), pops, replacements of the head and peeks
        /// gives what std's BinaryHeap gives, and the slot after the last key stays empty.
        #[test]
        fn pushes_pops_and_replacements_match_std_binary_heap(
            ops in proptest::collection::vec((0u8..6, 0u64..2_000), 1..1_500),
        ) {
            let mut h = LinkHeap::default();
            let mut std_heap = BinaryHeap::new();
            let mut seq = 0u64;
            for (op, t) in ops {
                seq += 1;
                // (time, unique low word), as the event queue packs link events.
                let key = ((t as u128) << 64) | seq as u128;
                match op {
                    // Pushes outnumber pops so the heap grows several levels deep.
                    0..=2 => {
                        h.push(key);
                        std_heap.push(Reverse(key));
                    }
                    3 => prop_assert_eq!(h.pop(), std_heap.pop().map(|Reverse(k)| k)),
                    4 if !std_heap.is_empty() => {
                        h.replace_top(key);
                        std_heap.pop();
                        std_heap.push(Reverse(key));
                    }
                    _ => prop_assert_eq!(h.peek(), std_heap.peek().map(|&Reverse(k)| k)),
                }
                prop_assert_eq!(h.len(), std_heap.len());
                prop_assert_eq!(h.slots.last(), Some(&EMPTY));
                let s = h.as_slice();
                for c in 1..s.len() {
                    prop_assert!(s[(c - 1) / 2] < s[c], "heap order at {}", c);
                }
            }
            let mut keys = h.as_slice().to_vec();
            keys.sort_unstable();
            let mut want: Vec<u128> = std_heap.iter().map(|&Reverse(k)| k).collect();
            want.sort_unstable();
            prop_assert_eq!(keys, want);
            while let Some(Reverse(k)) = std_heap.pop() {
                prop_assert_eq!(h.pop(), Some(k));
            }
            prop_assert_eq!(h.pop(), None);
        }
    }
}
