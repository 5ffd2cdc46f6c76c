//! The timer store of the event queue (`sim::event`): a timing wheel in front of two small
//! heaps, popping 128-bit keys (time in the high 64 bits) in exactly ascending order.
//!
//! Why: at large N the timer store holds about one key per flow (its retransmission timer) and
//! pops one every few hops (flows in backoff). As one 4-ary heap (`sim::dary_heap`) each pop
//! walked the whole depth: about 390 instructions at 10,000 flows and 7 % of the run loop's
//! instructions, 10 % at 100,000 (callgrind, bench dumbbell with 100 ms start jitter; issue
//! 13). Timers are mostly set far ahead (a retransmission timeout is at least 200 ms) and fire
//! in time order, which is what a timing wheel (Varghese and Lauck, "Hashed and hierarchical
//! timing wheels", SOSP 1987) does in constant time per key.
//!
//! Layout, by the slot of a key's time `t` (`t >> 30`: slots of 2^30 ps, about 1.07 ms):
//! - keys of slots before `cur` (the one after the slot taken off the wheel last) are in `run`, the
//!   sorted keys of that slot, read from `run_at` on, or in `near`, a heap for keys pushed into
//!   that range after it was sorted (short timers: pacing, delayed acknowledgements);
//! - keys of the next `SLOTS` slots are in `slots`, unsorted, one vector per slot;
//! - later keys (beyond about 17.6 s) wait in `far`, a heap, until the wheel reaches them.
//!
//! Every key in `run` or `near` is earlier than every key on the wheel, and every key on the
//! wheel earlier than every key in `far`. The smallest key is kept in `head`, one load for the
//! run loop, which reads it on every event: the smaller of `run`'s next key and `near`'s head,
//! or when both are used up the smallest key of the wheel's first slot with keys (or of `far`).
//! A slot is sorted into `run` when its first key is popped. Keys are unique (the event queue's (time, sequence number) words), so the order keys
//! leave in is fixed by the set of keys alone: the same as the heap's it replaces, and runs do
//! not move (the property test below checks it against std's `BinaryHeap`).

use super::dary_heap::DaryHeap;

/// Picoseconds per slot as a power of two: 2^30 ps, about 1.07 ms.
const SLOT_SHIFT: u32 = 64 + 30;
/// Slots on the wheel (a power of two): 16,384 of 1.07 ms, about 17.6 s ahead.
const SLOTS: usize = 1 << 14;
/// Words of the occupancy bitmap.
const WORDS: usize = SLOTS / 64;
/// The most keys an emptied vector may have room for and still be kept for reuse: a slot that
/// once held many keys (timers re-armed together) would otherwise lend its room to slots that
/// hold a few, and every such block would stay allocated.
const SPARE_MAX_KEYS: usize = 256;
/// No key: the value `head` holds when the store is empty (never a key: its kind bits are 7).
const EMPTY: u128 = u128::MAX;

/// The slot of `key` (its time's slot, counted from time 0).
#[inline(always)]
fn slot_of(key: u128) -> u64 {
    (key >> SLOT_SHIFT) as u64
}

/// Timer keys, smallest first (see the module documentation).
pub struct TimerWheel {
    /// The smallest key, or `EMPTY`.
    head: u128,
    /// The sorted keys of the slot taken off the wheel last; those before `run_at` are gone.
    run: Vec<u128>,
    run_at: usize,
    /// Keys of slots before `cur` pushed after `run` was sorted.
    near: DaryHeap,
    /// The first slot on the wheel: keys of earlier slots are in `run` or `near`.
    cur: u64,
    /// The wheel: slot `s` (from `cur` to `cur + SLOTS - 1`) in vector `s % SLOTS`. Empty (no
    /// vectors) until a key first goes on the wheel.
    slots: Vec<Vec<u128>>,
    /// One bit per vector of `slots`: set when it holds keys.
    occupied: [u64; WORDS],
    /// Keys on the wheel.
    on_wheel: usize,
    /// Keys of slots at or beyond `cur + SLOTS`.
    far: DaryHeap,
    /// Emptied vectors with their blocks, for the next slots to get keys: a slot is reused
    /// only a turn of the wheel (17.6 s) later, and a vector per slot grown from nothing cost
    /// about 100 instructions per key in allocations at 10,000 flows (callgrind).
    spare: Vec<Vec<u128>>,
}

impl Default for TimerWheel {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl TimerWheel {
    /// An empty store; `cap` keys fit in its near heap before it grows.
    pub fn with_capacity(cap: usize) -> Self {
        TimerWheel {
            head: EMPTY,
            run: Vec::new(),
            run_at: 0,
            near: DaryHeap::with_capacity(cap.min(1024)),
            cur: 0,
            slots: Vec::new(),
            occupied: [0; WORDS],
            on_wheel: 0,
            far: DaryHeap::default(),
            spare: Vec::new(),
        }
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        (self.run.len() - self.run_at) + self.near.len() + self.on_wheel + self.far.len()
    }

    /// True when the store holds no key.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == EMPTY
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&self) -> Option<u128> {
        (self.head != EMPTY).then_some(self.head)
    }

    /// The key `k` places after the smallest among the current slot's sorted keys (`run`),
    /// if it has that many left: a look ahead for prefetching, which may miss keys of `near`
    /// that come between and never looks past the slot.
    #[inline]
    pub fn ahead_in_slot(&self, k: usize) -> Option<u128> {
        self.run.get(self.run_at + k).copied()
    }

    /// The smallest key, or `u128::MAX` when empty: one load, no branch.
    #[inline(always)]
    pub fn head(&self) -> u128 {
        self.head
    }

    /// Adds `key` (which must differ from every key held and from `u128::MAX`).
    #[inline(never)]
    pub fn push(&mut self, key: u128) {
        debug_assert!(key != EMPTY);
        let s = slot_of(key);
        if s < self.cur {
            // In a slot already taken off the wheel (the one being served).
            self.near.push(key);
        } else if s - self.cur < SLOTS as u64 {
            self.put_on_wheel(s, key);
        } else {
            self.far.push(key);
        }
        self.head = self.head.min(key);
    }

    /// Removes and returns the smallest key.
    #[inline(never)]
    pub fn pop(&mut self) -> Option<u128> {
        let top = self.head;
        if top == EMPTY {
            return None;
        }
        // The head is `run`'s next key, `near`'s head, or (when both are used up) the
        // smallest key of the wheel's first slot with keys, or of `far` (keys are unique).
        if self.run.get(self.run_at) == Some(&top) {
            self.run_at += 1;
        } else if self.near.head() == top {
            self.near.pop();
        } else {
            self.take_slot(slot_of(top));
            debug_assert_eq!(self.run[0], top);
            self.run_at = 1;
        }
        self.head = self.run.get(self.run_at).copied().unwrap_or(EMPTY).min(self.near.head());
        if self.head == EMPTY {
            self.head = self.wheel_min();
        }
        Some(top)
    }

    /// Puts `key` of slot `s` (within the wheel's range) on the wheel.
    #[inline]
    fn put_on_wheel(&mut self, s: u64, key: u128) {
        if self.slots.is_empty() {
            self.slots.resize_with(SLOTS, Vec::new);
        }
        let i = s as usize % SLOTS;
        let v = &mut self.slots[i];
        if v.capacity() == 0 {
            if let Some(block) = self.spare.pop() {
                *v = block;
            }
        }
        v.push(key);
        self.occupied[i / 64] |= 1 << (i % 64);
        self.on_wheel += 1;
    }

    /// The smallest key on the wheel or in `far` (`run` and `near` are used up), left there.
    /// Slots are taken off the wheel only when their first key is popped
    /// ([`Self::take_slot`]), so that the wheel's range starts at the slot being served: taking
    /// the next slot with keys at once would put every later push before it (a retransmission
    /// timer set while the next one is a second away) into `near`.
    #[cold]
    fn wheel_min(&self) -> u128 {
        debug_assert!(self.run_at == self.run.len() && self.near.is_empty());
        if self.on_wheel == 0 {
            return self.far.head();
        }
        let i = self.next_occupied() as usize % SLOTS;
        self.slots[i].iter().copied().min().expect("an occupied slot holds keys")
    }

    /// Takes slot `s` (the wheel's first slot with keys, or `far`'s first slot when the wheel
    /// is empty) off the wheel into `run`, sorted; the wheel's range then starts after it.
    #[cold]
    fn take_slot(&mut self, s: u64) {
        debug_assert!(self.run_at == self.run.len() && self.near.is_empty());
        if self.on_wheel == 0 {
            self.cur = s;
            self.take_from_far();
        }
        debug_assert_eq!(s, self.next_occupied());
        let i = s as usize % SLOTS;
        self.occupied[i / 64] &= !(1 << (i % 64));
        // Swap vectors so that `run`'s block is kept (in `spare`): no allocation once grown.
        self.run.clear();
        std::mem::swap(&mut self.run, &mut self.slots[i]);
        let emptied = std::mem::take(&mut self.slots[i]);
        if (1..=SPARE_MAX_KEYS).contains(&emptied.capacity()) {
            self.spare.push(emptied);
        }
        self.on_wheel -= self.run.len();
        self.run.sort_unstable();
        self.run_at = 0;
        self.cur = s + 1;
        // The wheel's range moved on: `far`'s keys in its new slots join it.
        self.take_from_far();
    }

    /// Moves `far`'s keys whose slots are now within the wheel's range onto it.
    fn take_from_far(&mut self) {
        while let Some(k) = self.far.peek() {
            let s = slot_of(k);
            if s >= self.cur + SLOTS as u64 {
                break;
            }
            self.far.pop();
            self.put_on_wheel(s, k);
        }
    }

    /// The first slot at or after `cur` with keys (there is one: `on_wheel > 0`).
    fn next_occupied(&self) -> u64 {
        debug_assert!(self.on_wheel > 0);
        let start = self.cur as usize % SLOTS;
        let (w0, b0) = (start / 64, start % 64);
        // The bits of the first word from `start` on, then whole words around the ring, then
        // the first word's bits before `start` (slots a full turn ahead).
        let first = self.occupied[w0] >> b0 << b0;
        let found = if first != 0 {
            w0 * 64 + first.trailing_zeros() as usize
        } else {
            (1..=WORDS)
                .map(|k| (w0 + k) % WORDS)
                .find(|&w| self.occupied[w] != 0)
                .map(|w| w * 64 + self.occupied[w].trailing_zeros() as usize)
                .expect("a key is on the wheel")
        };
        self.cur + ((found + SLOTS - start) % SLOTS) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// A key at picosecond `t` with sequence number `seq`, as the event queue packs them.
    fn key(t: u64, seq: u64) -> u128 {
        ((t as u128) << 64) | seq as u128
    }

    #[test]
    fn keys_in_run_near_wheel_and_far_leave_in_order() {
        let ms = 1u64 << 30;
        let mut w = TimerWheel::default();
        w.push(key(5 * ms, 1));
        assert_eq!(w.peek(), Some(key(5 * ms, 1)));
        // Popping it takes its slot off the wheel; a key pushed to that slot then goes to
        // `near`. Later slots: the wheel. Beyond ~17.6 s: far.
        assert_eq!(w.pop(), Some(key(5 * ms, 1)));
        w.push(key(5 * ms, 1));
        w.push(key(5 * ms + 10, 2));
        w.push(key(5 * ms + 1, 3));
        w.push(key(9 * ms, 4));
        w.push(key(40_000 * ms, 5));
        w.push(key(7 * ms, 6));
        // Earlier than everything held: a slot already taken off the wheel.
        w.push(key(3 * ms, 7));
        assert_eq!(w.len(), 7);
        let order: Vec<u128> = std::iter::from_fn(|| w.pop()).collect();
        assert_eq!(
            order,
            [key(3 * ms, 7), key(5 * ms, 1), key(5 * ms + 1, 3), key(5 * ms + 10, 2), key(7 * ms, 6), key(9 * ms, 4), key(40_000 * ms, 5)]
        );
        assert!(w.is_empty());
        assert_eq!(w.len(), 0);
        // Emptied, it takes keys again, earlier and later than where it stopped.
        w.push(key(10 * ms, 8));
        w.push(key(100_000 * ms, 9));
        assert_eq!((w.pop(), w.pop(), w.pop()), (Some(key(10 * ms, 8)), Some(key(100_000 * ms, 9)), None));
    }

    #[test]
    fn a_slot_that_held_many_keys_does_not_lend_its_room_to_later_slots() {
        let ms = 1u64 << 30;
        let mut w = TimerWheel::default();
        // 20,000 timers re-armed together into one slot, then one key in each of 100 slots.
        for seq in 0..20_000 {
            w.push(key(10 * ms, seq));
        }
        for k in 0..100 {
            w.push(key((20 + k) * ms, 20_000 + k));
        }
        while w.pop().is_some() {}
        let room: usize = w.slots.iter().chain(&w.spare).map(|v| v.capacity()).sum::<usize>() + w.run.capacity();
        // The big block is gone with the slot after it; the rest hold a few keys' room each.
        assert!(room < 20_000, "room for {room} keys kept");
        assert!(w.spare.iter().all(|v| v.capacity() <= SPARE_MAX_KEYS));
    }

    proptest! {
        /// Any interleaving of pushes (unique keys; times from "now", the last popped time, on,
        /// as a simulation pushes them, and also earlier ones), pops and peeks gives what std's
        /// BinaryHeap gives. Times spread over the near range, the wheel and far beyond it.
        #[test]
        fn pushes_pops_and_peeks_match_std_binary_heap(
            ops in proptest::collection::vec((0u8..6, 0u64..3, 0u64..(1 << 16)), 1..2_000),
        ) {
            let mut w = TimerWheel::default();
            let mut std_heap = BinaryHeap::new();
            let mut seq = 0u64;
            let mut now = 0u64;
            for (op, scale, x) in ops {
                match op {
                    0..=2 => {
                        seq += 1;
                        // Within a few slots, across the wheel, or beyond it.
                        let ahead = [x << 16, x << 24, x << 32][scale as usize];
                        let t = if op == 2 && x % 7 == 0 { now.saturating_sub(x) } else { now + ahead };
                        let k = key(t, seq);
                        w.push(k);
                        std_heap.push(Reverse(k));
                    }
                    3 | 4 => {
                        let got = w.pop();
                        prop_assert_eq!(got, std_heap.pop().map(|Reverse(k)| k));
                        if let Some(k) = got {
                            now = now.max((k >> 64) as u64);
                        }
                    }
                    _ => prop_assert_eq!(w.peek(), std_heap.peek().map(|&Reverse(k)| k)),
                }
                prop_assert_eq!(w.len(), std_heap.len());
            }
            while let Some(Reverse(k)) = std_heap.pop() {
                prop_assert_eq!(w.pop(), Some(k));
            }
            prop_assert_eq!(w.pop(), None);
        }
    }
}
