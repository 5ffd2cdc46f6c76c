//! The timer store of the event queue (`sim::event`): a hashed timing wheel whose current slot
//! is sorted, so that keys leave in exactly increasing order, as from a heap.
//!
//! Why: at large N the timer store holds about one key per flow (a retransmission timer each:
//! about 101,000 keys at N = 100,000 with start jitter), and a heap's pop walks every level of
//! it: `DaryHeap::pop` took 7.9 % of the loop's instructions there (callgrind, about 460 a pop)
//! and 9.5 % of its samples (perf). Timers are mostly set far ahead of the time they fire (a
//! retransmission timeout at least 200 ms, a start spread over 100 ms), so they can wait,
//! unsorted, in the bucket of their slot of time, and be sorted only when their slot comes: a
//! push appends to a bucket, a pop takes the last key of a sorted vector (Varghese and Lauck,
//! "Hashed and hierarchical timing wheels", SOSP 1987, with the current bucket sorted as a
//! calendar queue's would be). Issue 13, round 11: 2,144 M instructions in the N = 100,000
//! loop against 2,286 M with the heap; the N = 10 to 1,000 runs, where timers are rare, within
//! 2 instructions per hop.
//!
//! Layout. Time is cut into slots of `2^SLOT_SHIFT` ps (about 1.07 ms). `cur` is the slot being
//! served: every key of slot `cur` or earlier is in `run` (the keys of slot `cur` sorted when
//! the slot was entered, the next key last) or in `late` (pushed for slot `cur` or earlier
//! after that, a heap: small, unless `cur` ran ahead of the clock to a lone timer far away, in
//! which case the wheel works as the heap it replaced until the clock catches up).
//! Keys of the next `SLOTS - 1` slots wait in their buckets (`buckets[slot % SLOTS]`, unsorted,
//! a bitmap of the buckets in use), later ones in `far` (a heap: a timer beyond about 4.4 s,
//! such as a retransmission timer deep in backoff). When `run` and `late` are both empty the
//! wheel moves `cur` to the next slot that holds a key, swaps that bucket's vector with `run`
//! (no copy), sorts it, and brings the `far` keys now within reach into buckets (or into the
//! run, those of slot `cur` itself). The emptied run's vector is left in the bucket just
//! entered only while it is small (`PARK_MAX_KEYS`): otherwise every bucket would in time keep
//! the room of the largest slot the wheel ever served, which for timers that fire and are
//! re-armed together (flows with equal round-trip times and no start jitter) grew past 1 GiB
//! for 100,000 timers in a model of the review of round 11.
//!
//! Order. Every key of `run` and `late` is earlier than every key in a bucket (an earlier
//! slot), and every bucket key earlier than every `far` key, so the smallest key is always the
//! smaller of `run`'s last and `late`'s head. Keys are unique (the event queue's (time,
//! sequence number) words), so the order in which they leave is fixed by the set of keys
//! alone: the wheel pops exactly what a heap pops (the property test below checks it against
//! std's `BinaryHeap`), and results do not move.

use super::dary_heap::DaryHeap;

/// Log2 of a slot's width in picoseconds: 2^30 ps, about 1.07 ms. Retransmission timers (200 ms
/// and more) and start times spread over tens of milliseconds fall many slots ahead; a slot
/// holds about 50 keys at N = 100,000 with 100 ms of start jitter, whose sort is the wheel's
/// main cost (slots four times wider: 2,189 M instructions in that loop against 2,171 M, both
/// with an unstable sort).
const SLOT_SHIFT: u32 = 30;
/// Buckets in the wheel (a power of two): with `SLOT_SHIFT` a span of about 4.4 s.
const SLOTS: usize = 4096;
/// Words of the bitmap of buckets in use.
const WORDS: usize = SLOTS / 64;
/// The most keys of room an emptied run's vector may keep when it is parked in a bucket (1 KiB):
/// the wheel holds at most `SLOTS` such vectors besides its keys (4 MiB at worst). A larger one
/// is freed; a slot with more keys grows its bucket again by doubling, a few reallocations
/// against the sort of more than 64 keys.
const PARK_MAX_KEYS: usize = 64;

/// The slot of a key (its time, the high 64 bits, cut into slots).
#[inline(always)]
fn slot_of(key: u128) -> u64 {
    ((key >> 64) as u64) >> SLOT_SHIFT
}

/// Timers, smallest key first (see the module's text).
pub struct TimerWheel {
    /// Keys of slot `cur` sorted in decreasing order: the next one is last.
    run: Vec<u128>,
    /// Keys pushed for slot `cur` or earlier after `run` was sorted (a `DaryHeap`).
    late: DaryHeap,
    /// The smallest key held, or `u128::MAX` when empty: one load for the event queue, which
    /// compares it with the link heap's head at every event.
    head: u128,
    /// The slot being served.
    cur: u64,
    /// `buckets[s % SLOTS]`: the keys of slot `s`, for `cur < s < cur + SLOTS`, unsorted.
    buckets: Vec<Vec<u128>>,
    /// Bit `s % SLOTS` is set when that bucket holds keys.
    in_use: [u64; WORDS],
    /// Keys in buckets.
    bucketed: usize,
    /// Keys of slot `cur + SLOTS` and later.
    far: DaryHeap,
    /// Keys held.
    len: usize,
}

impl Default for TimerWheel {
    fn default() -> Self {
        Self::new()
    }
}

impl TimerWheel {
    /// An empty wheel. Nothing is reserved for keys: the build's pushes (every flow's start)
    /// land in whichever store their times fall in (`late` before 1.07 ms, buckets up to 4.4 s,
    /// `far` beyond), each grown as needed.
    pub fn new() -> Self {
        TimerWheel {
            run: Vec::new(),
            late: DaryHeap::default(),
            head: u128::MAX,
            cur: 0,
            buckets: (0..SLOTS).map(|_| Vec::new()).collect(),
            in_use: [0; WORDS],
            bucketed: 0,
            far: DaryHeap::default(),
            len: 0,
        }
    }

    /// Number of keys.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the wheel holds no key.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The smallest key, or `u128::MAX` when the wheel is empty: one load, no branch.
    #[inline(always)]
    pub fn head(&self) -> u128 {
        self.head
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&self) -> Option<u128> {
        (self.head != u128::MAX).then_some(self.head)
    }

    /// Adds `key` (which must differ from every key held and from `u128::MAX`). Not inlined:
    /// at small N timers are rare, and the event queue's `push` stays small enough to be inlined
    /// for link events.
    #[inline(never)]
    pub fn push(&mut self, key: u128) {
        debug_assert!(key != u128::MAX);
        self.len += 1;
        if key < self.head {
            self.head = key;
        }
        let s = slot_of(key);
        if s <= self.cur {
            self.late.push(key);
        } else if s - self.cur < SLOTS as u64 {
            self.bucket_push(s, key);
        } else {
            self.far.push(key);
        }
    }

    /// Removes and returns the smallest key. Not inlined, for the reason `push` is not.
    #[inline(never)]
    pub fn pop(&mut self) -> Option<u128> {
        if self.len == 0 {
            return None;
        }
        if self.run.is_empty() && self.late.is_empty() {
            // Only keys pushed into buckets or `far` while the wheel was empty: enter a slot.
            self.advance();
        }
        let top = self.head;
        if self.run.last() == Some(&top) {
            self.run.pop();
        } else {
            self.late.pop();
        }
        self.len -= 1;
        if self.run.is_empty() && self.late.is_empty() && self.len > 0 {
            self.advance();
        }
        self.head = match (self.run.last(), self.late.head()) {
            (Some(&r), l) => r.min(l),
            (None, l) => l,
        };
        Some(top)
    }

    /// Frees the room no key uses in each store.
    pub fn shrink_to_fit(&mut self) {
        self.run.shrink_to_fit();
        self.late.shrink_to_fit();
        self.far.shrink_to_fit();
        for b in &mut self.buckets {
            b.shrink_to_fit();
        }
    }

    /// Keys of room held by the run and the buckets (the two heaps aside): what the memory
    /// test bounds.
    #[cfg(test)]
    fn room_keys(&self) -> usize {
        self.run.capacity() + self.buckets.iter().map(Vec::capacity).sum::<usize>()
    }

    /// The keys, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = u128> + '_ {
        self.run.iter().copied().chain(self.late.iter()).chain(self.buckets.iter().flatten().copied()).chain(self.far.iter())
    }

    #[inline]
    fn bucket_push(&mut self, s: u64, key: u128) {
        let b = (s as usize) & (SLOTS - 1);
        self.buckets[b].push(key);
        self.in_use[b / 64] |= 1 << (b % 64);
        self.bucketed += 1;
    }

    /// Enters the next slot that holds a key (`run` and `late` are empty, the wheel is not):
    /// its bucket becomes the sorted run, and `far` keys now within the wheel's span move into
    /// buckets.
    #[cold]
    #[inline(never)]
    fn advance(&mut self) {
        debug_assert!(self.run.is_empty() && self.late.is_empty() && self.len > 0);
        let next = if self.bucketed > 0 { self.cur + self.next_bucket_distance() } else { slot_of(self.far.head()) };
        self.cur = next;
        let b = (next as usize) & (SLOTS - 1);
        if self.in_use[b / 64] & (1 << (b % 64)) != 0 {
            // The emptied run's vector becomes the bucket's (no allocation while slots stay
            // small), unless it grew large (see `PARK_MAX_KEYS`).
            std::mem::swap(&mut self.run, &mut self.buckets[b]);
            if self.buckets[b].capacity() > PARK_MAX_KEYS {
                self.buckets[b] = Vec::new();
            }
            self.in_use[b / 64] &= !(1 << (b % 64));
            self.bucketed -= self.run.len();
        }
        while self.far.head() != u128::MAX && slot_of(self.far.head()) - next < SLOTS as u64 {
            let key = self.far.pop().expect("the head was read above");
            let s = slot_of(key);
            if s == next {
                self.run.push(key);
            } else {
                self.bucket_push(s, key);
            }
        }
        // A stable sort (keys are unique, so any sort gives this order): a bucket fills in
        // nearly increasing order (timers armed in the order they will fire), whose runs the
        // merge sort finds; the unstable sort took 55 M of the N = 100,000 loop's instructions,
        // this one about 28 M. Above 256 keys it allocates a scratch buffer (std's sort).
        self.run.sort();
        self.run.reverse();
    }

    /// How many slots after `cur` the next bucket in use lies (1 to `SLOTS - 1`; some bucket
    /// is in use).
    fn next_bucket_distance(&self) -> u64 {
        let start = ((self.cur + 1) as usize) & (SLOTS - 1);
        // Walk the bitmap from `start`, wrapping once; the word holding `start` is visited
        // twice (its high bits first, its low bits at the end).
        let (w0, bit0) = (start / 64, start % 64);
        let first = self.in_use[w0] & (u64::MAX << bit0);
        if first != 0 {
            return (first.trailing_zeros() as usize - bit0) as u64 + 1;
        }
        for step in 1..=WORDS {
            let w = (w0 + step) % WORDS;
            let bits = if step == WORDS { self.in_use[w] & !(u64::MAX << bit0) } else { self.in_use[w] };
            if bits != 0 {
                let b = w * 64 + bits.trailing_zeros() as usize;
                return ((b + SLOTS - start) % SLOTS) as u64 + 1;
            }
        }
        unreachable!("a bucket is in use")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    fn key(time_ps: u64, seq: u64) -> u128 {
        ((time_ps as u128) << 64) | seq as u128
    }

    #[test]
    fn keys_leave_in_order_across_slots_the_far_heap_and_a_wrap_of_the_wheel() {
        let mut w = TimerWheel::default();
        let slot = 1u64 << SLOT_SHIFT;
        // The current slot, later slots, beyond the span, and one far beyond.
        let times = [5, slot + 3, 3 * slot, slot * (SLOTS as u64 + 7), slot * 5000, 7, 2 * slot];
        for (i, &t) in times.iter().enumerate() {
            w.push(key(t, i as u64 + 1));
        }
        let mut want: Vec<u128> = times.iter().enumerate().map(|(i, &t)| key(t, i as u64 + 1)).collect();
        want.sort();
        let got: Vec<u128> = std::iter::from_fn(|| w.pop()).collect();
        assert_eq!(got, want);
        assert!(w.is_empty() && w.head() == u128::MAX);
    }

    #[test]
    fn the_next_bucket_is_found_past_the_bitmap_words_end_and_in_the_current_slots_own_word() {
        let slot = 1u64 << SLOT_SHIFT;
        // cur at 60: the next keys sit 10 slots ahead (same word), then across the wrap.
        let mut w = TimerWheel::default();
        w.push(key(60 * slot, 1));
        assert_eq!(w.pop(), Some(key(60 * slot, 1)));
        assert_eq!(w.cur, 60);
        for (i, s) in [70u64, 60 + SLOTS as u64 - 2, 1000, 63].into_iter().enumerate() {
            w.push(key(s * slot, 10 + i as u64));
        }
        let got: Vec<u64> = std::iter::from_fn(|| w.pop()).map(|k| ((k >> 64) as u64) / slot).collect();
        assert_eq!(got, vec![63, 70, 1000, 60 + SLOTS as u64 - 2]);
    }

    #[test]
    fn timers_rearmed_together_do_not_leave_every_bucket_holding_their_room() {
        // 20,000 timers that fire in one slot and are re-armed together 300 ms later, for 60
        // simulated seconds: each turn the slot's run is 20,000 keys, which parked in a bucket
        // each time would leave about 4,096 x 20,000 keys of room after enough turns.
        let mut w = TimerWheel::new();
        let n = 20_000u64;
        let mut seq = 0;
        for i in 0..n {
            seq += 1;
            w.push(key(1_000_000 + i, seq));
        }
        let step = 300_000_000_000u64; // 300 ms
        let mut fired = 0;
        while let Some(k) = w.pop() {
            let t = (k >> 64) as u64;
            if t > 60_000_000_000_000 {
                break;
            }
            fired += 1;
            seq += 1;
            w.push(key(t + step, seq));
        }
        assert!(fired > 100 * n as usize);
        // The live keys' room (about 2 x n for the run and its bucket) plus small parked vectors.
        assert!(w.room_keys() < 3 * n as usize + SLOTS * PARK_MAX_KEYS, "{} keys of room", w.room_keys());
    }

    proptest! {
        /// Any interleaving of pushes (times from now on, some within the current slot, some
        /// many wheel spans ahead), pops and trims leaves keys exactly as std's heap does.
        #[test]
        fn pops_what_a_binary_heap_pops(ops in proptest::collection::vec((0u8..6, 0u64..u64::MAX), 1..600)) {
            let mut w = TimerWheel::default();
            let mut h = BinaryHeap::new();
            let mut now = 0u64;
            let mut seq = 0u64;
            for (op, r) in ops {
                if op == 4 {
                    w.shrink_to_fit();
                } else if op == 5 {
                    // Near the end of time: the last slots, the far heap's top, no overflow.
                    seq += 1;
                    let k = key(u64::MAX - r % ((2 * SLOTS as u64) << SLOT_SHIFT), seq);
                    if (k >> 64) as u64 >= now {
                        w.push(k);
                        h.push(Reverse(k));
                    }
                } else if op == 0 {
                    let got = w.pop();
                    let want = h.pop().map(|Reverse(k)| k);
                    prop_assert_eq!(got, want);
                    if let Some(k) = got {
                        now = (k >> 64) as u64;
                    }
                } else {
                    // Within a slot, within the span, or anywhere later.
                    let dt = match op {
                        1 => r % (1 << SLOT_SHIFT),
                        2 => r % ((SLOTS as u64) << SLOT_SHIFT),
                        _ => r % (1 << 50),
                    };
                    seq += 1;
                    let k = key(now.saturating_add(dt), seq);
                    w.push(k);
                    h.push(Reverse(k));
                }
                prop_assert_eq!(w.len(), h.len());
                prop_assert_eq!(w.peek(), h.peek().map(|Reverse(k)| *k));
            }
            let mut all: Vec<u128> = w.iter().collect();
            all.sort();
            let mut shadow: Vec<u128> = h.iter().map(|Reverse(k)| *k).collect();
            shadow.sort();
            prop_assert_eq!(all, shadow);
            while let Some(Reverse(k)) = h.pop() {
                prop_assert_eq!(w.pop(), Some(k));
            }
            prop_assert_eq!(w.pop(), None);
        }
    }
}
