//! Selective acknowledgements: the blocks a receiver reports (RFC 2018) and the sender's
//! scoreboard with RFC 6675's loss rule, pipe estimate and choice of the next segment.
//!
//! Both ends keep byte ranges in a [`RangeSet`] (disjoint [start, end) ranges in order, with
//! their total length). The usual set holds a few ranges (the holes of one window): it is a
//! sorted vector, searched by bisection and edited in place, a few dozen instructions per
//! acknowledgement. Past [`SMALL_RANGES`] ranges it becomes an ordered map, so the work per
//! acknowledgement stays O(log n) in the number of ranges n, plus the ranges an
//! acknowledgement merges or retires (each range is retired once, so that part is O(1)
//! amortised). With a million-packet window and every other packet lost, walking the ranges
//! on every acknowledgement made a run thousands of times slower.

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Unbounded};

/// At most this many SACK blocks fit in an acknowledgement next to the timestamp option
/// (RFC 2018 s3: 3 with timestamps, 4 without).
pub const MAX_SACK_BLOCKS: usize = 3;

/// Most ranges a [`RangeSet`] keeps in its sorted vector; one more and it moves them to an
/// ordered map (a vector edit moves up to this many entries, 16 bytes each). It moves back when
/// retiring ranges leaves at most a quarter of this, so a set near the bound does not switch on
/// every acknowledgement.
pub const SMALL_RANGES: usize = 32;

/// The two representations of a [`RangeSet`].
#[derive(Clone, Debug)]
enum Ranges {
    /// Sorted by start, disjoint and non-adjacent.
    Small(Vec<(u64, u64)>),
    /// start -> end, for sets larger than [`SMALL_RANGES`].
    Large(Box<BTreeMap<u64, u64>>),
}

/// Disjoint, non-adjacent [start, end) ranges of sequence space, ordered, with their total.
#[derive(Clone, Debug)]
pub struct RangeSet {
    ranges: Ranges,
    total: u64,
}

impl Default for RangeSet {
    fn default() -> Self {
        RangeSet { ranges: Ranges::Small(Vec::new()), total: 0 }
    }
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

/// Iterator over the ranges of a [`RangeSet`], in either direction.
pub enum Iter<'a> {
    /// Over the vector.
    Small(std::slice::Iter<'a, (u64, u64)>),
    /// Over the map.
    Large(std::collections::btree_map::Iter<'a, u64, u64>),
}

impl Iterator for Iter<'_> {
    type Item = (u64, u64);
    #[inline]
    fn next(&mut self) -> Option<(u64, u64)> {
        match self {
            Iter::Small(i) => i.next().copied(),
            Iter::Large(i) => i.next().map(|(&s, &e)| (s, e)),
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<(u64, u64)> {
        match self {
            Iter::Small(i) => i.next_back().copied(),
            Iter::Large(i) => i.next_back().map(|(&s, &e)| (s, e)),
        }
    }
}

impl RangeSet {
    /// Number of ranges.
    pub fn len(&self) -> usize {
        match &self.ranges {
            Ranges::Small(v) => v.len(),
            Ranges::Large(m) => m.len(),
        }
    }
    /// True if empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        match &self.ranges {
            Ranges::Small(v) => v.is_empty(),
            Ranges::Large(m) => m.is_empty(),
        }
    }
    /// Sum of the range lengths.
    #[inline]
    pub fn total(&self) -> u64 {
        self.total
    }
    /// Forgets everything.
    pub fn clear(&mut self) {
        match &mut self.ranges {
            Ranges::Small(v) => v.clear(),
            Ranges::Large(_) => self.ranges = Ranges::Small(Vec::new()),
        }
        self.total = 0;
    }
    /// Lowest range.
    #[inline]
    pub fn first(&self) -> Option<(u64, u64)> {
        match &self.ranges {
            Ranges::Small(v) => v.first().copied(),
            Ranges::Large(m) => m.first_key_value().map(|(&s, &e)| (s, e)),
        }
    }
    /// Highest range.
    #[inline]
    pub fn last(&self) -> Option<(u64, u64)> {
        match &self.ranges {
            Ranges::Small(v) => v.last().copied(),
            Ranges::Large(m) => m.last_key_value().map(|(&s, &e)| (s, e)),
        }
    }
    /// The range holding `seq`, if any.
    #[inline]
    pub fn containing(&self, seq: u64) -> Option<(u64, u64)> {
        match &self.ranges {
            Ranges::Small(v) => {
                let i = v.partition_point(|r| r.0 <= seq);
                if i > 0 && seq < v[i - 1].1 {
                    Some(v[i - 1])
                } else {
                    None
                }
            }
            Ranges::Large(m) => m.range(..=seq).next_back().filter(|(_, &e)| seq < e).map(|(&s, &e)| (s, e)),
        }
    }
    /// The lowest range starting above `seq`.
    #[inline]
    pub fn next_above(&self, seq: u64) -> Option<(u64, u64)> {
        match &self.ranges {
            Ranges::Small(v) => v.get(v.partition_point(|r| r.0 <= seq)).copied(),
            Ranges::Large(m) => m.range((Excluded(seq), Unbounded)).next().map(|(&s, &e)| (s, e)),
        }
    }
    /// Ranges from the highest down.
    #[inline]
    pub fn iter_rev(&self) -> std::iter::Rev<Iter<'_>> {
        self.iter().rev()
    }
    /// Ranges from the lowest up.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        match &self.ranges {
            Ranges::Small(v) => Iter::Small(v.iter()),
            Ranges::Large(m) => Iter::Large(m.iter()),
        }
    }

    /// Adds [start, end), merging with ranges it overlaps or touches; returns the merged range.
    #[inline(always)]
    pub fn insert(&mut self, start: u64, end: u64) -> (u64, u64) {
        self.insert_with(start, end, |_, _| {})
    }

    /// As [`RangeSet::insert`], calling `gap(a, b)` for each part [a, b) of [start, end) that
    /// was not in the set before (lowest first).
    #[inline]
    pub fn insert_with(&mut self, start: u64, end: u64, gap: impl FnMut(u64, u64)) -> (u64, u64) {
        if start >= end {
            return (start, start);
        }
        match &mut self.ranges {
            Ranges::Small(v) => {
                let r = Self::small_insert(v, &mut self.total, start, end, gap);
                if v.len() > SMALL_RANGES {
                    self.grow();
                }
                r
            }
            Ranges::Large(m) => Self::large_insert(m, &mut self.total, start, end, gap),
        }
    }

    /// Moves the ranges from the vector to the map (the set outgrew [`SMALL_RANGES`]).
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        if let Ranges::Small(v) = &self.ranges {
            self.ranges = Ranges::Large(Box::new(v.iter().copied().collect()));
        }
    }

    /// Moves the ranges back from the map to a vector (few are left).
    #[cold]
    #[inline(never)]
    fn shrink(&mut self) {
        if let Ranges::Large(m) = &self.ranges {
            let mut v = Vec::with_capacity(SMALL_RANGES + 1);
            v.extend(m.iter().map(|(&s, &e)| (s, e)));
            self.ranges = Ranges::Small(v);
        }
    }

    /// [`RangeSet::insert_with`] on the vector: the same merges, found by bisection.
    #[inline]
    fn small_insert(v: &mut Vec<(u64, u64)>, total: &mut u64, start: u64, end: u64, mut gap: impl FnMut(u64, u64)) -> (u64, u64) {
        let (mut s, mut e) = (start, end);
        // Everything below `cursor` in [start, end) is known to be covered or reported.
        let mut cursor = start;
        step(1);
        // Ranges [lo, hi) are merged into the new one.
        let i = v.partition_point(|r| r.0 <= start);
        let mut lo = i;
        // A range starting at or below `start` that reaches it.
        if i > 0 {
            let (ps, pe) = v[i - 1];
            if pe >= start {
                lo = i - 1;
                s = ps;
                e = e.max(pe);
                cursor = cursor.max(pe);
                *total -= pe - ps;
            }
        }
        // Ranges starting in (start, e].
        let mut hi = i;
        while let Some(&(ns, ne)) = v.get(hi) {
            if ns > e {
                break;
            }
            step(1);
            if ns.min(end) > cursor {
                gap(cursor, ns.min(end));
            }
            cursor = cursor.max(ne);
            e = e.max(ne);
            *total -= ne - ns;
            hi += 1;
        }
        if cursor < end {
            gap(cursor, end);
        }
        if lo < hi {
            v[lo] = (s, e);
            if hi > lo + 1 {
                v.drain(lo + 1..hi);
            }
        } else {
            v.insert(lo, (s, e));
        }
        *total += e - s;
        (s, e)
    }

    /// [`RangeSet::insert_with`] on the map.
    fn large_insert(map: &mut BTreeMap<u64, u64>, total: &mut u64, start: u64, end: u64, mut gap: impl FnMut(u64, u64)) -> (u64, u64) {
        let (mut s, mut e) = (start, end);
        // Everything below `cursor` in [start, end) is known to be covered or reported.
        let mut cursor = start;
        step(1);
        // A range starting at or below `start` that reaches it.
        if let Some((&ps, &pe)) = map.range(..=start).next_back() {
            if pe >= start {
                s = ps;
                e = e.max(pe);
                cursor = cursor.max(pe);
                map.remove(&ps);
                *total -= pe - ps;
            }
        }
        // Ranges starting in (start, e]: each is merged and removed, so this loop is paid for
        // by the inserts that created them.
        while let Some((&ns, &ne)) = map.range((Excluded(start), Unbounded)).next() {
            if ns > e {
                break;
            }
            step(1);
            if ns.min(end) > cursor {
                gap(cursor, ns.min(end));
            }
            cursor = cursor.max(ne);
            e = e.max(ne);
            map.remove(&ns);
            *total -= ne - ns;
        }
        if cursor < end {
            gap(cursor, end);
        }
        map.insert(s, e);
        *total += e - s;
        (s, e)
    }

    /// Removes everything below `seq`; returns the bytes removed.
    #[inline(always)]
    pub fn remove_below(&mut self, seq: u64) -> u64 {
        let mut removed = 0;
        match &mut self.ranges {
            Ranges::Small(v) => {
                // Ranges [0, k) lie wholly below `seq`.
                let mut k = 0;
                while let Some(r) = v.get_mut(k) {
                    if r.0 >= seq {
                        break;
                    }
                    step(1);
                    if r.1 > seq {
                        removed += seq - r.0;
                        r.0 = seq;
                        break;
                    }
                    removed += r.1 - r.0;
                    k += 1;
                }
                if k > 0 {
                    v.drain(..k);
                }
            }
            Ranges::Large(map) => {
                while let Some((&s, &e)) = map.first_key_value() {
                    if s >= seq {
                        break;
                    }
                    step(1);
                    map.remove(&s);
                    if e > seq {
                        map.insert(seq, e);
                        removed += seq - s;
                        break;
                    }
                    removed += e - s;
                }
                if map.len() <= SMALL_RANGES / 4 {
                    self.shrink();
                }
            }
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
        match &self.ranges {
            Ranges::Small(v) => {
                let i = v.partition_point(|r| r.0 <= from);
                if i > 0 {
                    let (s, e) = v[i - 1];
                    n += e.min(to).saturating_sub(from.max(s));
                }
                for &(s, e) in &v[i..] {
                    if s >= to {
                        break;
                    }
                    steps += 1;
                    n += e.min(to) - s;
                }
            }
            Ranges::Large(map) => {
                if let Some((&s, &e)) = map.range(..=from).next_back() {
                    n += e.min(to).saturating_sub(from.max(s));
                }
                for (&s, &e) in map.range((Excluded(from), Excluded(to))) {
                    steps += 1;
                    n += e.min(to) - s;
                }
            }
        }
        step(steps);
        n
    }
}

/// SACK blocks carried by a packet, as byte offsets relative to its cumulative ack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    /// (start, end) offsets above the ack, most recent first (RFC 2018 s4); with `dsack`, the
    /// D-SACK block follows the `len` SACK blocks, its offsets two's-complement (wrapping: it
    /// may lie below the ack).
    pub blocks: [(u32, u32); MAX_SACK_BLOCKS],
    /// How many SACK blocks `blocks` holds (the D-SACK block not counted).
    pub len: u8,
    /// A D-SACK block (RFC 2883 s4: duplicate data received) is carried at `blocks[len]`; on
    /// the wire it comes first. A sender tells it there by its place (below the ack, or inside
    /// the next block); the receiver here says so, which is the same rule. Keeping it after the
    /// SACK blocks leaves a sender's walk over them as it was (issue 13: the acknowledgement
    /// path).
    pub dsack: bool,
}

impl SackBlocks {
    /// The SACK blocks (not the D-SACK block) as absolute [start, end) sequence ranges given
    /// the packet's ack.
    pub fn ranges(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks[..self.len as usize].iter().map(move |&(s, e)| (ack + s as u64, ack + e as u64))
    }

    /// Blocks on the wire: the SACK blocks and the D-SACK block if any.
    pub fn wire_len(&self) -> usize {
        self.len as usize + self.dsack as usize
    }

    /// Block `k` in wire order (the D-SACK block first) as an absolute [start, end) range.
    pub fn wire_block(&self, k: usize, ack: u64) -> (u64, u64) {
        let i = match (self.dsack, k) {
            (true, 0) => self.len as usize,
            (true, k) => k - 1,
            (false, k) => k,
        };
        let (s, e) = self.blocks[i];
        let abs = |off: u32| ack.wrapping_add(off as i32 as i64 as u64);
        (abs(s), abs(e))
    }

    /// The D-SACK block, if the packet carries one: the duplicate range received.
    pub fn dsack_range(&self, ack: u64) -> Option<(u64, u64)> {
        self.dsack.then(|| self.wire_block(0, ack))
    }

    /// RFC 2883 s4: these SACK blocks with the D-SACK block `dup` (first on the wire), as many
    /// SACK blocks kept as fit beside it.
    pub fn with_dsack(mut self, ack: u64, dup: (u64, u64)) -> SackBlocks {
        let off = |x: u64| x.wrapping_sub(ack) as u32;
        let kept = (self.len as usize).min(MAX_SACK_BLOCKS - 1);
        self.blocks[kept] = (off(dup.0), off(dup.1));
        self.len = kept as u8;
        self.dsack = true;
        self
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
        if let Ranges::Small(v) = &ooo.ranges {
            if let [r] = v.as_slice() {
                // One range above the ack (a single hole, the usual case): it is the only
                // block, whether or not the latest arrival lies in it.
                push(*r, &mut b);
                return b;
            }
        }
        let first = latest.and_then(|s| ooo.containing(s));
        if let Some(r) = first {
            push(r, &mut b);
        }
        // The vector is walked as a slice (the usual case: a receiver rarely holds more than a
        // few ranges); the same ranges in the same order as the generic iterator below.
        if let Ranges::Small(v) = &ooo.ranges {
            for &r in v.iter().rev().filter(|&&r| Some(r) != first).take(MAX_SACK_BLOCKS) {
                push(r, &mut b);
            }
            return b;
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
    #[inline]
    pub fn advance(&mut self, snd_una: u64) {
        if self.sacked.is_empty() {
            // Nothing SACKed (most acknowledgements): nothing to remove, so nothing below
            // HighRxt either once snd_una reaches it (else the sum stays 0).
            if snd_una >= self.high_rxt {
                self.sacked_below_rxt = 0;
            }
            return;
        }
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

    /// SACKed bytes in [snd_una, HighRxt).
    pub fn sacked_below_high_rxt(&self) -> u64 {
        self.sacked_below_rxt
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

    /// SACKed bytes in [from, to).
    pub fn sacked_bytes_in(&mut self, from: u64, to: u64) -> u64 {
        self.sacked.bytes_in(from, to)
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
        self.pipe_given(snd_una, snd_max, boundary, sacked_above)
    }

    /// [`Scoreboard::pipe`] with the loss boundary and the SACKed bytes above it already known
    /// (from [`Scoreboard::loss_boundary_and_above`], since when no range was added or removed).
    #[inline]
    pub fn pipe_given(&self, snd_una: u64, snd_max: u64, boundary: u64, sacked_above: u64) -> u64 {
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

#[cfg(test)]
mod range_set_tests {
    use super::*;

    #[test]
    fn a_range_set_is_no_larger_than_an_ordered_map_and_its_total() {
        assert!(std::mem::size_of::<RangeSet>() <= 32, "{}", std::mem::size_of::<RangeSet>());
    }

    /// The set against a bitmap of sequence space, through inserts (with their reported gaps),
    /// retirements from below and range counts that cross [`SMALL_RANGES`] both ways.
    #[test]
    fn a_range_set_matches_a_bitmap_in_both_representations() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let (mut saw_small, mut saw_large) = (false, false);
        for round in 0..40 {
            let space = if round % 2 == 0 { 400u64 } else { 4000 };
            let mut set = RangeSet::default();
            let mut bits = vec![false; space as usize];
            let mut floor = 0u64;
            for _ in 0..300 {
                if rng.random_range(0..6) == 0 {
                    floor = (floor + rng.random_range(0..space / 20)).min(space - 1);
                    let want: u64 = bits[..floor as usize].iter().filter(|&&b| b).count() as u64;
                    assert_eq!(set.remove_below(floor), want);
                    bits[..floor as usize].iter_mut().for_each(|b| *b = false);
                } else {
                    let a = rng.random_range(floor..space);
                    let b = (a + rng.random_range(1..8)).min(space);
                    let mut gaps = Vec::new();
                    set.insert_with(a, b, |x, y| gaps.push((x, y)));
                    let mut want = Vec::new();
                    for x in a..b {
                        if !bits[x as usize] {
                            match want.last_mut() {
                                Some((_, e)) if *e == x => *e = x + 1,
                                _ => want.push((x, x + 1)),
                            }
                            bits[x as usize] = true;
                        }
                    }
                    assert_eq!(gaps, want);
                }
                match set.ranges {
                    Ranges::Small(_) => saw_small = true,
                    Ranges::Large(_) => saw_large = true,
                }
                // The ranges are the maximal runs of the bitmap.
                let mut runs = Vec::new();
                for x in 0..space {
                    if bits[x as usize] {
                        match runs.last_mut() {
                            Some((_, e)) if *e == x => *e = x + 1,
                            _ => runs.push((x, x + 1)),
                        }
                    }
                }
                assert_eq!(set.iter().collect::<Vec<_>>(), runs);
                assert_eq!(set.iter_rev().collect::<Vec<_>>(), runs.iter().rev().copied().collect::<Vec<_>>());
                assert_eq!(set.total(), bits.iter().filter(|&&b| b).count() as u64);
                let probe = rng.random_range(0..space);
                assert_eq!(set.containing(probe), runs.iter().copied().find(|r| r.0 <= probe && probe < r.1));
                assert_eq!(set.next_above(probe), runs.iter().copied().find(|r| r.0 > probe));
                let to = rng.random_range(probe..=space);
                let want = bits[probe as usize..to as usize].iter().filter(|&&b| b).count() as u64;
                assert_eq!(set.bytes_in(probe, to), want);
            }
        }
        assert!(saw_small && saw_large, "both representations exercised");
    }

    proptest::proptest! {
        /// A D-SACK block added to any blocks an acknowledgement can carry comes back as the
        /// same range (below or above the ack), first on the wire; the SACK blocks keep their
        /// order, the oldest dropped when all three slots were used, and the sender's walk over
        /// SACK blocks never sees the D-SACK block.
        #[test]
        fn a_dsack_block_round_trips_and_leaves_the_sack_blocks_in_order(
            ack in 0u64..1u64 << 40,
            raw in proptest::collection::vec((1u32..1_000_000, 1u32..100_000), 0..=MAX_SACK_BLOCKS),
            dup_off in -2_000_000i64..2_000_000,
            dup_len in 1u64..100_000,
        ) {
            let mut b = SackBlocks::default();
            for &(off, len) in &raw {
                b.blocks[b.len as usize] = (off, off + len);
                b.len += 1;
            }
            let before: Vec<_> = b.ranges(ack).collect();
            let start = (ack as i64 + dup_off).max(0) as u64;
            let dup = (start, start + dup_len);
            let d = b.with_dsack(ack, dup);
            proptest::prop_assert_eq!(d.dsack_range(ack), Some(dup));
            proptest::prop_assert_eq!(d.wire_block(0, ack), dup);
            let kept = before.len().min(MAX_SACK_BLOCKS - 1);
            let after: Vec<_> = d.ranges(ack).collect();
            proptest::prop_assert_eq!(&after[..], &before[..kept]);
            proptest::prop_assert_eq!(d.wire_len(), kept + 1);
            for k in 0..kept {
                proptest::prop_assert_eq!(d.wire_block(k + 1, ack), before[k]);
            }
            proptest::prop_assert_eq!(b.dsack_range(ack), None);
        }
    }
}
