//! Selective acknowledgements: the blocks a receiver reports (RFC 2018) and the sender's
//! scoreboard with RFC 6675's loss rule, pipe estimate and choice of the next segment.
//!
//! Both ends keep byte ranges in a [`RangeSet`] (an ordered map of disjoint [start, end)
//! ranges with their total length), so the work per acknowledgement is O(log n) in the number
//! of ranges n, plus the ranges an acknowledgement merges or retires (each range is retired
//! once, so that part is O(1) amortised). With a million-packet window and every other packet
//! lost, walking the ranges on every acknowledgement made a run thousands of times slower.

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Unbounded};

/// At most this many SACK blocks fit in an acknowledgement next to the timestamp option
/// (RFC 2018 s3: 3 with timestamps, 4 without).
pub const MAX_SACK_BLOCKS: usize = 3;

/// Disjoint, non-adjacent [start, end) ranges of sequence space, ordered, with their total.
#[derive(Clone, Debug, Default)]
pub struct RangeSet {
    /// start -> end.
    map: BTreeMap<u64, u64>,
    total: u64,
}

#[cfg(test)]
thread_local! {
    /// Ranges visited by merges and walks on this thread (each costs one O(log n) map step);
    /// for the tests that check the cost per acknowledgement does not grow with the window.
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` range steps (tests only).
#[inline]
fn step(n: u64) {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + n));
    let _ = n;
}

/// Range steps counted on this thread so far.
#[cfg(test)]
pub(crate) fn steps() -> u64 {
    STEPS.with(|s| s.get())
}

impl RangeSet {
    /// Number of ranges.
    pub fn len(&self) -> usize {
        self.map.len()
    }
    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
    /// Sum of the range lengths.
    pub fn total(&self) -> u64 {
        self.total
    }
    /// Forgets everything.
    pub fn clear(&mut self) {
        self.map.clear();
        self.total = 0;
    }
    /// Lowest range.
    pub fn first(&self) -> Option<(u64, u64)> {
        self.map.first_key_value().map(|(&s, &e)| (s, e))
    }
    /// Highest range.
    pub fn last(&self) -> Option<(u64, u64)> {
        self.map.last_key_value().map(|(&s, &e)| (s, e))
    }
    /// The range holding `seq`, if any.
    pub fn containing(&self, seq: u64) -> Option<(u64, u64)> {
        self.map.range(..=seq).next_back().filter(|(_, &e)| seq < e).map(|(&s, &e)| (s, e))
    }
    /// The lowest range starting above `seq`.
    pub fn next_above(&self, seq: u64) -> Option<(u64, u64)> {
        self.map.range((Excluded(seq), Unbounded)).next().map(|(&s, &e)| (s, e))
    }
    /// Ranges from the highest down.
    pub fn iter_rev(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.map.iter().rev().map(|(&s, &e)| (s, e))
    }
    /// Ranges from the lowest up.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.map.iter().map(|(&s, &e)| (s, e))
    }

    /// Adds [start, end), merging with ranges it overlaps or touches; returns the merged range.
    pub fn insert(&mut self, start: u64, end: u64) -> (u64, u64) {
        self.insert_with(start, end, |_, _| {})
    }

    /// As [`RangeSet::insert`], calling `gap(a, b)` for each part [a, b) of [start, end) that
    /// was not in the set before (lowest first).
    pub fn insert_with(&mut self, start: u64, end: u64, mut gap: impl FnMut(u64, u64)) -> (u64, u64) {
        if start >= end {
            return (start, start);
        }
        let (mut s, mut e) = (start, end);
        // Everything below `cursor` in [start, end) is known to be covered or reported.
        let mut cursor = start;
        step(1);
        // A range starting at or below `start` that reaches it.
        if let Some((&ps, &pe)) = self.map.range(..=start).next_back() {
            if pe >= start {
                s = ps;
                e = e.max(pe);
                cursor = cursor.max(pe);
                self.map.remove(&ps);
                self.total -= pe - ps;
            }
        }
        // Ranges starting in (start, e]: each is merged and removed, so this loop is paid for
        // by the inserts that created them.
        while let Some((&ns, &ne)) = self.map.range((Excluded(start), Unbounded)).next() {
            if ns > e {
                break;
            }
            step(1);
            if ns.min(end) > cursor {
                gap(cursor, ns.min(end));
            }
            cursor = cursor.max(ne);
            e = e.max(ne);
            self.map.remove(&ns);
            self.total -= ne - ns;
        }
        if cursor < end {
            gap(cursor, end);
        }
        self.map.insert(s, e);
        self.total += e - s;
        (s, e)
    }

    /// Removes everything below `seq`; returns the bytes removed.
    pub fn remove_below(&mut self, seq: u64) -> u64 {
        let mut removed = 0;
        while let Some((&s, &e)) = self.map.first_key_value() {
            if s >= seq {
                break;
            }
            step(1);
            self.map.remove(&s);
            if e > seq {
                self.map.insert(seq, e);
                removed += seq - s;
                break;
            }
            removed += e - s;
        }
        self.total -= removed;
        removed
    }

    /// Bytes of the set in [from, to): O(log n + ranges inside).
    pub fn bytes_in(&mut self, from: u64, to: u64) -> u64 {
        if from >= to {
            return 0;
        }
        let mut n = 0;
        let mut steps = 1;
        if let Some((&s, &e)) = self.map.range(..=from).next_back() {
            n += e.min(to).saturating_sub(from.max(s));
        }
        for (&s, &e) in self.map.range((Excluded(from), Excluded(to))) {
            steps += 1;
            n += e.min(to) - s;
        }
        step(steps);
        n
    }
}

/// SACK blocks carried by a packet, as byte offsets relative to its cumulative ack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    /// (start, end) offsets above the ack, most recent first (RFC 2018 s4).
    pub blocks: [(u32, u32); MAX_SACK_BLOCKS],
    /// How many entries of `blocks` are used.
    pub len: u8,
}

impl SackBlocks {
    /// The blocks as absolute [start, end) sequence ranges given the packet's ack.
    pub fn ranges(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks[..self.len as usize].iter().map(move |&(s, e)| (ack + s as u64, ack + e as u64))
    }

    /// Builds the blocks a receiver reports: the range holding the latest arrival first, then
    /// the other out-of-order ranges from the highest down (RFC 2018 s4). O(log n): one lookup
    /// and at most `MAX_SACK_BLOCKS` steps from the top.
    pub fn from_ooo(ack: u64, ooo: &RangeSet, latest: Option<u64>) -> SackBlocks {
        let mut b = SackBlocks::default();
        let push = |r: (u64, u64), b: &mut SackBlocks| {
            if (b.len as usize) < MAX_SACK_BLOCKS && r.0 >= ack {
                let off = |x: u64| (x - ack).min(u32::MAX as u64) as u32;
                b.blocks[b.len as usize] = (off(r.0), off(r.1));
                b.len += 1;
            }
        };
        let first = latest.and_then(|s| ooo.containing(s));
        if let Some(r) = first {
            push(r, &mut b);
        }
        for r in ooo.iter_rev().filter(|&r| Some(r) != first).take(MAX_SACK_BLOCKS) {
            push(r, &mut b);
        }
        b
    }
}

/// The sender's record of what the receiver holds above `snd_una`, and RFC 6675's HighRxt.
///
/// RFC 6675's pipe needs the SACKed bytes below HighRxt; the board keeps that sum up to date
/// as ranges arrive, the cumulative ack advances and HighRxt moves (up within a recovery, so
/// each range is crossed once; down only to `snd_una` after a timeout).
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    sacked: RangeSet,
    /// RFC 6675 HighRxt: highest byte retransmitted in this recovery plus one.
    high_rxt: u64,
    /// SACKed bytes below `high_rxt`.
    sacked_below_rxt: u64,
}

impl Scoreboard {
    /// Forgets everything (a new connection).
    pub fn clear(&mut self) {
        self.sacked.clear();
        self.high_rxt = 0;
        self.sacked_below_rxt = 0;
    }

    /// True if nothing is SACKed.
    pub fn is_empty(&self) -> bool {
        self.sacked.is_empty()
    }

    /// Bytes SACKed above `snd_una` in all.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked.total()
    }


    /// Records a SACKed range.
    pub fn add(&mut self, start: u64, end: u64) {
        self.add_with(start, end, |_, _| {});
    }

    /// Records a SACKed range, calling `newly(a, b)` for each part not SACKed before.
    pub fn add_with(&mut self, start: u64, end: u64, mut newly: impl FnMut(u64, u64)) {
        if start >= end {
            return;
        }
        let mark = self.high_rxt;
        let mut below = 0;
        self.sacked.insert_with(start, end, |a, b| {
            // The part below HighRxt that was not SACKed before now is.
            below += b.min(mark).saturating_sub(a);
            newly(a, b);
        });
        self.sacked_below_rxt += below;
    }

    /// Drops everything below the cumulative ack.
    pub fn advance(&mut self, snd_una: u64) {
        let removed = self.sacked.remove_below(snd_una);
        if snd_una >= self.high_rxt {
            // Everything below HighRxt is gone.
            self.sacked_below_rxt = 0;
        } else {
            // All removed bytes lay below snd_una < HighRxt.
            self.sacked_below_rxt -= removed;
        }
    }

    /// RFC 6675 HighRxt.
    pub fn high_rxt(&self) -> u64 {
        self.high_rxt
    }

    /// Sets HighRxt (the sender retransmitted up to it, or restarts from `snd_una`).
    pub fn set_high_rxt(&mut self, high_rxt: u64) {
        if high_rxt >= self.high_rxt {
            self.sacked_below_rxt += self.sacked.bytes_in(self.high_rxt, high_rxt);
        } else {
            self.sacked_below_rxt = self.sacked.bytes_in(0, high_rxt);
        }
        self.high_rxt = high_rxt;
    }

    /// Highest SACKed byte plus one (0 if none).
    pub fn highest_sacked(&self) -> u64 {
        self.sacked.last().map_or(0, |r| r.1)
    }

    /// RFC 6675 IsLost, as a boundary: every un-SACKed byte below the returned sequence number
    /// has more than (dupthresh - 1) * mss SACKed bytes above it and counts as lost (0: none).
    /// Also returns the SACKed bytes at or above the boundary. Walks down from the highest
    /// range only until enough bytes are found: O(dupthresh) steps, whatever the window.
    pub fn loss_boundary_and_above(&mut self, dupthresh: u32, mss: u32) -> (u64, u64) {
        let need = (dupthresh.saturating_sub(1) as u64) * mss as u64;
        let mut above = 0u64;
        let mut steps = 0;
        let mut found = (0, 0);
        for (s, e) in self.sacked.iter_rev() {
            steps += 1;
            above += e - s;
            if above > need {
                found = (s, above);
                break;
            }
        }
        step(steps);
        found
    }

    /// RFC 6675 IsLost boundary (see [`Scoreboard::loss_boundary_and_above`]).
    pub fn loss_boundary(&mut self, dupthresh: u32, mss: u32) -> u64 {
        self.loss_boundary_and_above(dupthresh, mss).0
    }

    /// If `seq` lies in a SACKed range, the end of that range; else `seq`.
    pub fn skip_sacked(&self, seq: u64) -> u64 {
        match self.sacked.containing(seq) {
            Some(r) => r.1,
            None => seq,
        }
    }

    /// Start of the first SACKed range above `seq`, if any (limits a segment to the hole).
    pub fn next_sacked_above(&self, seq: u64) -> Option<u64> {
        self.sacked.next_above(seq).map(|r| r.0)
    }

    /// RFC 6675 s4 SetPipe: un-SACKed bytes in [snd_una, snd_max) that are not lost, plus
    /// retransmitted bytes (below HighRxt) that are not SACKed. O(dupthresh) steps.
    pub fn pipe(&mut self, snd_una: u64, snd_max: u64, dupthresh: u32, mss: u32) -> u64 {
        let (boundary, sacked_above) = self.loss_boundary_and_above(dupthresh, mss);
        let (lost_end, sacked_not_lost) =
            if boundary <= snd_una { (snd_una, self.sacked.total()) } else { (boundary.min(snd_max), sacked_above) };
        let not_lost = (snd_max.max(lost_end) - lost_end).saturating_sub(sacked_not_lost);
        let rxt_end = self.high_rxt.clamp(snd_una, snd_max);
        let rxt = (rxt_end - snd_una).saturating_sub(self.sacked_below_rxt);
        not_lost + rxt
    }

    /// The SACKed ranges, lowest first (for inspection).
    pub fn ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sacked.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(r: &[(u64, u64)]) -> RangeSet {
        let mut s = RangeSet::default();
        for &(a, b) in r {
            s.insert(a, b);
        }
        s
    }

    #[test]
    fn receiver_reports_the_latest_block_first_then_the_highest() {
        let ooo = set(&[(2000, 3000), (4000, 5000), (6000, 7000), (8000, 9000)]);
        let b = SackBlocks::from_ooo(1000, &ooo, Some(4000));
        let r: Vec<_> = b.ranges(1000).collect();
        assert_eq!(r, vec![(4000, 5000), (8000, 9000), (6000, 7000)]);
    }

    #[test]
    fn range_set_merges_overlapping_and_touching_ranges_and_keeps_the_total() {
        let mut s = set(&[(3000, 4000), (5000, 6000), (8000, 9000)]);
        s.insert(4000, 5000);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(3000, 6000), (8000, 9000)]);
        s.insert(2500, 8500);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(2500, 9000)]);
        assert_eq!(s.total(), 6500);
        s.insert(100, 200);
        assert_eq!(s.remove_below(2600), 200);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(2600, 9000)]);
        assert_eq!(s.total(), 6400);
        assert_eq!(s.bytes_in(0, 3000), 400);
    }

    #[test]
    fn insert_reports_exactly_the_parts_that_were_new() {
        let mut s = set(&[(3000, 4000), (5000, 6000)]);
        let mut gaps = Vec::new();
        s.insert_with(2000, 7000, |a, b| gaps.push((a, b)));
        assert_eq!(gaps, vec![(2000, 3000), (4000, 5000), (6000, 7000)]);
        gaps.clear();
        s.insert_with(2500, 6500, |a, b| gaps.push((a, b)));
        assert!(gaps.is_empty());
        s.insert_with(6500, 8000, |a, b| gaps.push((a, b)));
        assert_eq!(gaps, vec![(7000, 8000)]);
    }

    #[test]
    fn scoreboard_merges_and_advances() {
        let mut s = Scoreboard::default();
        s.add(3000, 4000);
        s.add(5000, 6000);
        s.add(4000, 5000);
        assert_eq!(s.ranges().collect::<Vec<_>>(), vec![(3000, 6000)]);
        s.advance(3500);
        assert_eq!(s.ranges().collect::<Vec<_>>(), vec![(3500, 6000)]);
        assert_eq!(s.sacked_bytes(), 2500);
    }

    #[test]
    fn loss_boundary_needs_more_than_two_segments_sacked_above() {
        // mss 1000, dupthresh 3: a hole is lost once > 2000 bytes are SACKed above it.
        let mut s = Scoreboard::default();
        s.add(2000, 4000); // 2000 bytes above the hole [1000, 2000)
        assert_eq!(s.loss_boundary(3, 1000), 0);
        s.add(5000, 6000); // now 3000 bytes
        assert_eq!(s.loss_boundary(3, 1000), 2000);
    }

    #[test]
    fn pipe_counts_unsacked_not_lost_and_retransmissions() {
        // snd_una 1000, snd_max 10000; SACKed [2000,4000) and [5000,6000); lost below 2000.
        let mut s = Scoreboard::default();
        s.add(2000, 4000);
        s.add(5000, 6000);
        assert_eq!(s.loss_boundary(3, 1000), 2000);
        s.set_high_rxt(1000);
        // Not lost and not SACKed: [4000,5000) + [6000,10000) = 5000.
        assert_eq!(s.pipe(1000, 10_000, 3, 1000), 5000);
        // After retransmitting [1000,2000): +1000.
        s.set_high_rxt(2000);
        assert_eq!(s.pipe(1000, 10_000, 3, 1000), 6000);
        // A hole retransmitted past a SACKed range counts only its unSACKed part, whatever
        // order the SACKs and HighRxt arrive in.
        s.set_high_rxt(4500);
        assert_eq!(s.pipe(1000, 10_000, 3, 1000), 5000 + 1000 + 500);
        s.add(4000, 4500);
        s.advance(1500);
        // SACKed now [2000,4500), [5000,6000); lost below 2000; rxt [1500,4500) unSACKed: 500.
        assert_eq!(s.pipe(1500, 10_000, 3, 1000), 500 + 4000 + 500);
        let brute = |s: &mut Scoreboard, una: u64, max: u64| {
            let lost = s.loss_boundary(3, 1000).clamp(una, max);
            let hr = s.high_rxt().clamp(una, max);
            let mut r = s.sacked.clone();
            ((max - lost) - r.bytes_in(lost, max)) + ((hr - una) - r.bytes_in(una, hr))
        };
        assert_eq!(s.pipe(1500, 10_000, 3, 1000), brute(&mut s, 1500, 10_000));
    }

    #[test]
    fn pipe_matches_a_full_walk_under_random_sacks_acks_and_retransmissions() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        for _ in 0..50 {
            let mut s = Scoreboard::default();
            let (mut una, max) = (0u64, 200_000u64);
            for _ in 0..200 {
                match rng.random_range(0..4) {
                    0 | 1 => {
                        let a = rng.random_range(una..max);
                        let b = (a + rng.random_range(1..5000)).min(max);
                        s.add(a, b);
                    }
                    2 => {
                        let h = rng.random_range(una..max);
                        if h >= s.high_rxt() || rng.random_range(0..4) == 0 {
                            s.set_high_rxt(h);
                        }
                    }
                    _ => {
                        una = (una + rng.random_range(0..3000)).min(max);
                        s.advance(una);
                    }
                }
                let lost = s.loss_boundary(3, 1000).clamp(una, max);
                let hr = s.high_rxt().clamp(una, max);
                let mut r = s.sacked.clone();
                let want = ((max - lost) - r.bytes_in(lost, max)) + ((hr - una) - r.bytes_in(una, hr));
                assert_eq!(s.pipe(una, max, 3, 1000), want);
            }
        }
    }

    /// A window with `holes` holes (every other segment of 1000 bytes lost), half of them
    /// retransmitted: the sender's scoreboard and the receiver's out-of-order set.
    fn window(holes: u64) -> (Scoreboard, RangeSet) {
        let mut s = Scoreboard::default();
        let mut ooo = RangeSet::default();
        for i in 0..holes {
            s.add((2 * i + 1) * 1000, (2 * i + 2) * 1000);
            ooo.insert((2 * i + 1) * 1000, (2 * i + 2) * 1000);
        }
        s.set_high_rxt(holes * 1000);
        (s, ooo)
    }

    /// `acks` more duplicate acknowledgements, each for a new segment above a new hole: the
    /// receiver records it and builds its blocks; the sender adds them, computes pipe and finds
    /// the next hole.
    fn dupacks(s: &mut Scoreboard, ooo: &mut RangeSet, acks: u64) {
        let top = ooo.last().map_or(0, |r| r.1);
        for k in 0..acks {
            let (a, b) = (top + (2 * k + 1) * 1000, top + (2 * k + 2) * 1000);
            ooo.insert(a, b);
            let blocks = SackBlocks::from_ooo(0, ooo, Some(a));
            for (x, y) in blocks.ranges(0) {
                s.add(x, y);
            }
            std::hint::black_box(s.pipe(0, b + 1000, 3, 1000));
            let h = s.skip_sacked(s.high_rxt());
            std::hint::black_box(s.next_sacked_above(h));
        }
    }

    fn steps_per_ack(holes: u64) -> u64 {
        let (mut s, mut ooo) = window(holes);
        let s0 = steps();
        dupacks(&mut s, &mut ooo, 100);
        (steps() - s0) / 100
    }

    #[test]
    fn sack_work_per_ack_does_not_grow_with_the_out_of_order_window() {
        let small = steps_per_ack(10);
        let large = steps_per_ack(10_000);
        assert!(large <= 3 * small, "10-hole window {small} steps/ack, 10,000-hole window {large}");
    }

    #[test]
    #[ignore = "timing; run with --release --ignored"]
    fn sack_time_per_ack_with_10000_holes_is_within_3x_of_10_holes() {
        let time = |holes: u64| {
            let (s, ooo) = window(holes);
            let mut best = f64::MAX;
            for _ in 0..5 {
                let (mut s, mut ooo) = (s.clone(), ooo.clone());
                let t = std::time::Instant::now();
                dupacks(&mut s, &mut ooo, 2000);
                best = best.min(t.elapsed().as_secs_f64());
            }
            best / 2000.0
        };
        let (small, large) = (time(10), time(10_000));
        eprintln!("per ack: 10 holes {:.0} ns, 10,000 holes {:.0} ns", small * 1e9, large * 1e9);
        assert!(large <= 3.0 * small, "10 holes {small} s, 10,000 holes {large} s");
    }
}
