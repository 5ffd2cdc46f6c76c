//! Selective acknowledgements: the blocks a receiver reports (RFC 2018) and the sender's
//! scoreboard with RFC 6675's loss rule, pipe estimate and choice of the next segment.
//!
//! The scoreboard keeps SACKed ranges above `snd_una` as sorted, disjoint [start, end) byte
//! ranges, so every query costs O(number of holes), not O(window).

/// At most this many SACK blocks fit in an acknowledgement next to the timestamp option
/// (RFC 2018 s3: 3 with timestamps, 4 without).
pub const MAX_SACK_BLOCKS: usize = 3;

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
    /// the other out-of-order ranges from the highest down (RFC 2018 s4).
    pub fn from_ooo(ack: u64, ooo: &[(u64, u64)], latest: Option<u64>) -> SackBlocks {
        let mut b = SackBlocks::default();
        let push = |r: (u64, u64), b: &mut SackBlocks| {
            if (b.len as usize) < MAX_SACK_BLOCKS && r.0 >= ack {
                let off = |x: u64| (x - ack).min(u32::MAX as u64) as u32;
                b.blocks[b.len as usize] = (off(r.0), off(r.1));
                b.len += 1;
            }
        };
        let first = latest.and_then(|s| ooo.iter().position(|r| r.0 <= s && s < r.1));
        if let Some(i) = first {
            push(ooo[i], &mut b);
        }
        for (i, r) in ooo.iter().enumerate().rev() {
            if Some(i) != first {
                push(*r, &mut b);
            }
        }
        b
    }
}

/// The sender's record of what the receiver holds above `snd_una`.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed ranges, sorted and disjoint.
    sacked: Vec<(u64, u64)>,
    /// Sum of the lengths of `sacked`.
    total: u64,
}

impl Scoreboard {
    /// Forgets everything (a new connection).
    pub fn clear(&mut self) {
        self.sacked.clear();
        self.total = 0;
    }

    /// Bytes SACKed above `snd_una` in all.
    pub fn sacked_bytes(&self) -> u64 {
        self.total
    }

    /// True if nothing is SACKed.
    pub fn is_empty(&self) -> bool {
        self.sacked.is_empty()
    }

    /// Records a SACKed range.
    pub fn add(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let i = self.sacked.partition_point(|r| r.1 < start);
        let (mut s, mut e) = (start, end);
        let mut j = i;
        while j < self.sacked.len() && self.sacked[j].0 <= e {
            s = s.min(self.sacked[j].0);
            e = e.max(self.sacked[j].1);
            self.total -= self.sacked[j].1 - self.sacked[j].0;
            j += 1;
        }
        self.total += e - s;
        self.sacked.splice(i..j, std::iter::once((s, e)));
    }

    /// Drops everything below the cumulative ack.
    pub fn advance(&mut self, snd_una: u64) {
        let n = self.sacked.partition_point(|r| r.1 <= snd_una);
        for r in self.sacked.drain(..n) {
            self.total -= r.1 - r.0;
        }
        if let Some(first) = self.sacked.first_mut() {
            let cut = snd_una.saturating_sub(first.0);
            first.0 += cut;
            self.total -= cut;
        }
    }

    /// Bytes SACKed in [from, to).
    pub fn sacked_in(&self, from: u64, to: u64) -> u64 {
        self.sacked.iter().map(|&(s, e)| e.min(to).saturating_sub(s.max(from))).sum()
    }

    /// Highest SACKed byte plus one (0 if none).
    pub fn highest_sacked(&self) -> u64 {
        self.sacked.last().map_or(0, |r| r.1)
    }

    /// RFC 6675 IsLost, as a boundary: every un-SACKed byte below the returned sequence number
    /// has more than (dupthresh - 1) * mss SACKed bytes above it and counts as lost.
    pub fn loss_boundary(&self, dupthresh: u32, mss: u32) -> u64 {
        let need = (dupthresh.saturating_sub(1) as u64) * mss as u64;
        let mut above = 0u64;
        for &(s, e) in self.sacked.iter().rev() {
            above += e - s;
            if above > need {
                return s;
            }
        }
        0
    }

    /// If `seq` lies in a SACKed range, the end of that range; else `seq`.
    pub fn skip_sacked(&self, seq: u64) -> u64 {
        match self.sacked.iter().find(|r| r.0 <= seq && seq < r.1) {
            Some(r) => r.1,
            None => seq,
        }
    }

    /// Start of the first SACKed range above `seq`, if any (limits a segment to the hole).
    pub fn next_sacked_above(&self, seq: u64) -> Option<u64> {
        self.sacked.iter().find(|r| r.0 > seq).map(|r| r.0)
    }

    /// RFC 6675 s4 SetPipe: un-SACKed bytes in [snd_una, snd_max) that are not lost, plus
    /// retransmitted bytes (below `high_rxt`) that are not SACKed.
    pub fn pipe(&self, snd_una: u64, snd_max: u64, lost_below: u64, high_rxt: u64) -> u64 {
        let unsacked = |a: u64, b: u64| if b > a { (b - a) - self.sacked_in(a, b) } else { 0 };
        let lost_end = lost_below.clamp(snd_una, snd_max);
        let not_lost = unsacked(lost_end, snd_max);
        let rxt_end = high_rxt.clamp(snd_una, snd_max);
        not_lost + unsacked(snd_una, rxt_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receiver_reports_the_latest_block_first_then_the_highest() {
        let ooo = [(2000, 3000), (4000, 5000), (6000, 7000), (8000, 9000)];
        let b = SackBlocks::from_ooo(1000, &ooo, Some(4000));
        let r: Vec<_> = b.ranges(1000).collect();
        assert_eq!(r, vec![(4000, 5000), (8000, 9000), (6000, 7000)]);
    }

    #[test]
    fn scoreboard_merges_and_advances() {
        let mut s = Scoreboard::default();
        s.add(3000, 4000);
        s.add(5000, 6000);
        s.add(4000, 5000);
        assert_eq!(s.sacked, vec![(3000, 6000)]);
        s.advance(3500);
        assert_eq!(s.sacked, vec![(3500, 6000)]);
        assert_eq!(s.sacked_in(0, 10_000), 2500);
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
        let lost = s.loss_boundary(3, 1000);
        assert_eq!(lost, 2000);
        // Not lost and not SACKed: [4000,5000) + [6000,10000) = 5000.
        assert_eq!(s.pipe(1000, 10_000, lost, 1000), 5000);
        // After retransmitting [1000,2000): +1000.
        assert_eq!(s.pipe(1000, 10_000, lost, 2000), 6000);
    }
}
