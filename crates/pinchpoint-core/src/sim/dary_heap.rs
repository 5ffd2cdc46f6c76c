//! A 4-ary min-heap of 128-bit keys laid out so that the four children of a node share one
//! 64-byte cache line: the near and far parts of the event queue's timer store
//! (`sim::timer_wheel`), and the whole store before it (`sim::event`).
//!
//! Why: at large N the timer heap held about one entry per flow (101,000 at N = 100,000, 1.6
//! MB) and a binary heap's pop walks ~17 levels, the lower ones cold in cache: every level is
//! another line. Four 16-byte keys fill a line exactly, so a 4-ary heap whose sibling groups
//! start on a line boundary touches one line per level and has half the levels (~9). LaMarca
//! and Ladner, "The influence of caches on the performance of heaps" (JEA 1996), measured the
//! same layout ("aligned d-heap").
//!
//! Layout: slots are numbered from the start of a 64-byte-aligned array; the root sits in slot
//! 3, so the children of the node in slot `p` are slots `4p - 8 .. 4p - 5`, which is exactly
//! line `p - 2`, and the parent of slot `c` is slot `c / 4 + 2`. Every slot that holds no key
//! holds `u128::MAX` (never a real key, see `EMPTY`), so a node's four children are always
//! compared together without testing how many there are.
//!
//! Keys are unique (the event queue's (time, sequence number) words), so the order in which
//! keys leave the heap is fixed by the set of keys alone: any correct heap, whatever its arity,
//! pops exactly what std's `BinaryHeap` would (the property test below checks it).

/// One cache line: four slots.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u128; 4]);

/// The value of every slot without a key. No event-queue key reaches it: its top kind bits
/// would be 7, which no event kind uses.
const EMPTY: u128 = u128::MAX;

/// Heaps of at least this many keys (64 KiB and more) prefetch a level ahead on a pop.
const PREFETCH_MIN_KEYS: usize = 4096;

/// Slot of the root.
const ROOT: usize = 3;

/// The heap (smallest key first). It always holds at least one line, so the root slot can be
/// read without a test: `EMPTY` there means the heap is empty.
pub struct DaryHeap {
    lines: Vec<Line>,
    len: usize,
}

impl Default for DaryHeap {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl DaryHeap {
    /// An empty heap with room for `cap` keys before it grows.
    pub fn with_capacity(cap: usize) -> Self {
        let mut lines = Vec::with_capacity((cap + ROOT).div_ceil(4).max(1));
        lines.push(Line([EMPTY; 4]));
        DaryHeap { lines, len: 0 }
    }

    /// Number of keys.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the heap holds no key.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slots as one flat array.
    #[inline]
    fn slots(&self) -> &[u128] {
        // SAFETY: `Line` is `repr(C)` holding `[u128; 4]` in 64 bytes without padding, so
        // `lines.len()` lines are `4 * lines.len()` consecutive, initialised, aligned `u128`s.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<u128>(), self.lines.len() * 4) }
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&self) -> Option<u128> {
        let k = self.head();
        (k != EMPTY).then_some(k)
    }

    /// The smallest key, or `u128::MAX` when the heap is empty: one load, no branch (the
    /// event queue reads it on every event).
    #[inline(always)]
    pub fn head(&self) -> u128 {
        // SAFETY: there is always at least one line (see `with_capacity`), which holds the root.
        unsafe { self.lines.get_unchecked(0).0[ROOT] }
    }

    /// Adds `key` (which must differ from every key in the heap and from `u128::MAX`).
    /// Not inlined: at small N timers are rare, and the event queue's `push` stays small
    /// enough to be inlined for link events.
    #[inline(never)]
    pub fn push(&mut self, key: u128) {
        debug_assert!(key != EMPTY);
        let hole = ROOT + self.len;
        if hole >= self.lines.len() * 4 {
            self.lines.push(Line([EMPTY; 4]));
        }
        self.len += 1;
        let s = self.lines.as_mut_ptr().cast::<u128>();
        // SAFETY: `hole` starts below `4 * lines.len()` (grown above) and only moves to
        // parents, which are smaller slot numbers no lower than ROOT.
        unsafe { sift_up(s, hole, key) }
    }

    /// Removes and returns the smallest key. Not inlined, for the reason `push` is not.
    #[inline(never)]
    pub fn pop(&mut self) -> Option<u128> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        let end = ROOT + self.len;
        let s = self.lines.as_mut_ptr().cast::<u128>();
        // SAFETY: every slot read or written is either below `end` (which is below
        // `4 * lines.len()`: it held the last key) or in the line of children of a node whose
        // first child is below `end`; lines are whole, so all four of them exist.
        unsafe {
            let top = *s.add(ROOT);
            let last = *s.add(end);
            *s.add(end) = EMPTY;
            if end == ROOT {
                return Some(top);
            }
            // Move the hole from the root down to a leaf along the smallest children, then
            // let the last key rise from there (it came from the bottom, so it seldom rises
            // far): three compares per level instead of four. The node in slot `p` has its
            // children in slots `4p - 8 ..= 4p - 5`; it has any when the first is below `end`,
            // and the empty slots of that line hold `EMPTY`.
            let mut hole = ROOT;
            let mut first = 4;
            // A heap this small stays in the core's caches: no prefetch (and no instruction
            // for it in the loop below, which the compiler unswitches on this flag).
            let deep = end >= PREFETCH_MIN_KEYS;
            while first < end {
                let g = s.add(first);
                // The next level's candidates are the four children lines of this line's four
                // keys, which lie side by side (slots `4 * first - 8 ..`, 256 bytes): asked for
                // before this level's compares pick one, so a large heap's cold lower levels
                // arrive in parallel instead of one after the other (issue 13). A hint only.
                let next = 4 * first - 8;
                if deep && next < end {
                    let n = s.add(next).cast::<u8>();
                    for line in 0..4 {
                        crate::sim::prefetch::prefetch_read(n.wrapping_add(line * crate::sim::prefetch::LINE_BYTES));
                    }
                }
                let (k0, k1, k2, k3) = (*g, *g.add(1), *g.add(2), *g.add(3));
                let (i01, k01) = if k1 < k0 { (1, k1) } else { (0, k0) };
                let (i23, k23) = if k3 < k2 { (3, k3) } else { (2, k2) };
                let (i, k) = if k23 < k01 { (i23, k23) } else { (i01, k01) };
                *s.add(hole) = k;
                hole = first + i;
                first = 4 * hole - 8;
            }
            sift_up(s, hole, last);
            Some(top)
        }
    }

    /// The keys, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = u128> + '_ {
        self.slots().get(ROOT..ROOT + self.len).unwrap_or(&[]).iter().copied()
    }
}

/// Moves the hole at slot `hole` up past every parent greater than `key`, then writes `key`
/// there (the end of both a push and a pop).
///
/// # Safety
/// `s` points to the heap's slots and `hole` is a slot of it at or above `ROOT`.
#[inline(always)]
unsafe fn sift_up(s: *mut u128, mut hole: usize, key: u128) {
    // SAFETY: parents of a slot at or above ROOT are smaller slot numbers, no lower than ROOT.
    unsafe {
        while hole > ROOT {
            let parent = hole / 4 + 2;
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn the_children_of_a_node_fill_one_aligned_cache_line() {
        let mut h = DaryHeap::with_capacity(100);
        for k in 0..100u128 {
            h.push(k);
        }
        let base = h.lines.as_ptr() as usize;
        assert_eq!(base % 64, 0);
        // Root in slot 3; its children in slots 4..8 (line 1), theirs from slot 8 on.
        let s = h.slots();
        assert_eq!(s[ROOT], 0);
        for p in ROOT..ROOT + 24 {
            let first = 4 * p - 8;
            assert_eq!(first % 4, 0, "slot {p}'s children start a line");
            for c in first..first + 4 {
                assert_eq!(c / 4 + 2, p, "slot {c}'s parent");
                if c < ROOT + h.len() {
                    assert!(s[p] < s[c], "heap order at {p} -> {c}");
                }
            }
        }
    }

    #[test]
    fn an_emptied_heap_pops_nothing_and_refills() {
        let mut h = DaryHeap::default();
        assert_eq!(h.pop(), None);
        assert_eq!(h.peek(), None);
        h.push(5);
        h.push(2);
        assert_eq!((h.pop(), h.pop(), h.pop()), (Some(2), Some(5), None));
        assert!(h.is_empty());
        h.push(9);
        assert_eq!(h.peek(), Some(9));
        assert_eq!(h.iter().collect::<Vec<_>>(), vec![9]);
    }

    proptest! {
        /// Any interleaving of pushes (unique keys), pops and peeks gives what std's BinaryHeap
        /// gives, and the slots beyond the last key stay empty.
        #[test]
        fn pushes_pops_and_peeks_match_std_binary_heap(
            ops in proptest::collection::vec((0u8..5, 0u64..2_000), 1..1_500),
        ) {
            let mut h = DaryHeap::default();
            let mut std_heap = BinaryHeap::new();
            let mut seq = 0u64;
            for (op, t) in ops {
                match op {
                    // Pushes outnumber pops so the heap grows several levels deep.
                    0..=2 => {
                        seq += 1;
                        // (time, sequence) as the event queue packs them: unique keys.
                        let key = ((t as u128) << 64) | seq as u128;
                        h.push(key);
                        std_heap.push(Reverse(key));
                    }
                    3 => prop_assert_eq!(h.pop(), std_heap.pop().map(|Reverse(k)| k)),
                    _ => prop_assert_eq!(h.peek(), std_heap.peek().map(|&Reverse(k)| k)),
                }
                prop_assert_eq!(h.len(), std_heap.len());
                prop_assert!(h.slots().iter().skip(ROOT + h.len()).all(|&k| k == EMPTY));
            }
            let mut keys: Vec<u128> = h.iter().collect();
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
