//! What a port saw. The counters every transmitted packet moves stay in the port; what only
//! drops, marks, wire losses and a non-empty queue move lives on the heap from the first such
//! event (issue 13: most ports of a large scenario, the hosts' access ports, never drop, mark or
//! queue a packet, and each such port held 48 bytes of zeros for it).

use crate::queue::{DropReason, DROP_REASONS};
use crate::sim::SimTime;
use super::stats::TimeWeighted;

/// What a port saw. In declaration order (`repr(C)`): the five counters every transmitted packet
/// moves first, then the two pointers, 56 bytes that share one cache line of the port with the
/// port's waiting bytes (`net::port`, "Layout"). The counters one event moves together are not
/// side by side (arrivals and transmissions alternate): adjacent, LLVM's SLP vectoriser packed
/// each pair's two additions into one SSE addition, and building the vector of (1, size) took
/// more instructions than the two scalar additions (issue 13, round 13: about 4 instructions
/// per packet-hop under callgrind).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct PortStats {
    /// Packets transmitted.
    pub tx_pkts: u64,
    /// Packets that arrived at the port.
    pub arrivals_pkts: u64,
    /// Bytes transmitted.
    pub tx_bytes: u64,
    /// Bytes that arrived.
    pub arrivals_bytes: u64,
    /// Time spent transmitting, ps.
    pub busy_ps: SimTime,
    /// Waiting packets and bytes over time; allocated when packets first wait, so a port
    /// whose queue never held a packet (an idle host's) holds one pointer instead of 192 bytes
    /// (three cache lines, written whole at the first queue; a test below pins the size).
    pub occupancy: Option<Box<Occupancy>>,
    /// Drops, marks and wire losses; allocated at the first of them (absent: all zero).
    rare: Option<Box<RareCounts>>,
}

/// The port counters that move only when a packet is dropped, marked or lost on the wire.
#[derive(Clone, Debug, Default)]
struct RareCounts {
    /// Drops by reason.
    drops: [u64; DROP_REASONS],
    /// Packets marked (by the discipline or a hook).
    marks: u64,
    /// Packets transmitted and then lost on the wire (link loss model; not in `drops`).
    link_losses_pkts: u64,
}

/// A queue's occupancy over time, in packets and in bytes, from time 0.
#[derive(Clone, Debug, Default)]
pub struct Occupancy {
    /// Waiting packets.
    pub pkts: TimeWeighted,
    /// Waiting bytes.
    pub bytes: TimeWeighted,
}

impl PortStats {
    /// Drops by reason (index: `DropReason as usize`).
    pub fn drops(&self) -> [u64; DROP_REASONS] {
        self.rare.as_deref().map_or([0; DROP_REASONS], |r| r.drops)
    }

    /// All drops.
    pub fn total_drops(&self) -> u64 {
        self.drops().iter().sum()
    }

    /// Packets marked by the discipline or a hook.
    pub fn marks(&self) -> u64 {
        self.rare.as_deref().map_or(0, |r| r.marks)
    }

    /// Packets transmitted and then lost on the wire (link loss model; not in [`Self::drops`]).
    pub fn link_losses_pkts(&self) -> u64 {
        self.rare.as_deref().map_or(0, |r| r.link_losses_pkts)
    }

    /// Most packets ever waiting: the packet tracker's maximum (it sees every change of the
    /// queue; a queue that never held a packet has no tracker).
    pub fn max_queue_pkts(&self) -> u32 {
        self.occupancy.as_deref().map_or(0, |o| o.pkts.max as u32)
    }

    /// Counts a drop for `reason`.
    #[inline]
    pub fn count_drop(&mut self, reason: DropReason) {
        self.rare_mut().drops[reason as usize] += 1;
    }

    /// Counts a marked packet.
    #[inline]
    pub fn count_mark(&mut self) {
        self.rare_mut().marks += 1;
    }

    /// Counts a packet lost on the wire.
    #[inline]
    pub fn count_link_loss(&mut self) {
        self.rare_mut().link_losses_pkts += 1;
    }

    #[inline]
    fn rare_mut(&mut self) -> &mut RareCounts {
        if self.rare.is_none() {
            self.first_rare();
        }
        self.rare.as_deref_mut().expect("allocated above")
    }

    /// The first drop, mark or wire loss: the counters start (out of the per-packet path).
    #[cold]
    #[inline(never)]
    fn first_rare(&mut self) {
        self.rare = Some(Box::default());
    }

    /// The queue holds `pkts` packets of `bytes` bytes from `now` on. Trackers are created at
    /// the first non-empty queue: until then both held 0 since time 0, which an absent tracker
    /// stands for exactly (`TimeWeighted::set` ignores a value equal to the current one).
    /// Always inlined into the ports' per-packet path (see [`TimeWeighted::set_pair`]).
    #[inline(always)]
    pub fn set_occupancy(&mut self, now: SimTime, pkts: u32, bytes: u64) {
        match self.occupancy.as_deref_mut() {
            Some(o) => TimeWeighted::set_pair(&mut o.pkts, &mut o.bytes, now, pkts as u64, bytes),
            None if pkts == 0 && bytes == 0 => {}
            None => self.first_occupancy(now, pkts, bytes),
        }
    }

    /// The queue holds packets for the first time: the trackers start (out of the per-packet
    /// path).
    #[cold]
    #[inline(never)]
    fn first_occupancy(&mut self, now: SimTime, pkts: u32, bytes: u64) {
        let mut o = Box::<Occupancy>::default();
        o.pkts.set(now, pkts as u64);
        o.bytes.set(now, bytes);
        self.occupancy = Some(o);
    }

    /// (packets, bytes) occupancy summaries up to `now` (see [`TimeWeighted::summary`]).
    pub fn occupancy_summaries(&self, now: SimTime) -> ((f64, f64, f64, f64, f64), (f64, f64, f64, f64, f64)) {
        match self.occupancy.as_deref() {
            Some(o) => (o.pkts.summary(now), o.bytes.summary(now)),
            None => {
                let empty = TimeWeighted::new(0);
                (empty.summary(now), empty.summary(now))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_occupancy_box_is_three_cache_lines() {
        // Two trackers of 96 bytes (issue 13, round 8: the histograms' sparse table shares their
        // vector instead of 128 inline bytes each, 448 -> 192).
        assert_eq!(std::mem::size_of::<Occupancy>(), 192);
    }

    #[test]
    fn rare_counters_read_zero_until_their_first_event_and_count_each_kind_apart() {
        let mut s = PortStats::default();
        assert_eq!((s.drops(), s.marks(), s.link_losses_pkts(), s.total_drops()), ([0; DROP_REASONS], 0, 0, 0));
        s.count_drop(DropReason::Early);
        s.count_drop(DropReason::Early);
        s.count_drop(DropReason::Overflow);
        s.count_mark();
        s.count_link_loss();
        s.count_link_loss();
        let mut want = [0; DROP_REASONS];
        want[DropReason::Early as usize] = 2;
        want[DropReason::Overflow as usize] = 1;
        assert_eq!((s.drops(), s.marks(), s.link_losses_pkts(), s.total_drops()), (want, 1, 2, 3));
    }

    #[test]
    fn the_largest_queue_is_the_packet_trackers_maximum_and_zero_before_any_packet_waits() {
        let mut s = PortStats::default();
        s.set_occupancy(5, 0, 0);
        assert_eq!(s.max_queue_pkts(), 0);
        for (t, q) in [(10, 1), (20, 3), (30, 2), (40, 0), (50, 2)] {
            s.set_occupancy(t, q, q as u64 * 1500);
        }
        assert_eq!(s.max_queue_pkts(), 3);
    }
}
