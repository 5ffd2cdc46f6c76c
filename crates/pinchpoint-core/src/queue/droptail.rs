//! Drop-tail: first in, first out; an arrival that does not fit the buffer is dropped.

use super::{BufferLimit, Fifo, PackedLimit, PortInfo, QueueDiscipline, Verdict, DropReason};
use crate::net::packet::Packet;
use crate::sim::{SimRng, SimTime};
use serde::{Deserialize, Serialize};

/// Scenario configuration of a drop-tail queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropTailConfig {
    /// Buffer limit (packets and/or bytes). With neither given the buffer holds 100 packets.
    #[serde(flatten)]
    pub limit: BufferLimit,
}

impl Default for DropTailConfig {
    fn default() -> Self {
        DropTailConfig { limit: BufferLimit { limit_pkts: Some(super::DEFAULT_LIMIT_PKTS), limit_bytes: None } }
    }
}

/// A drop-tail FIFO.
#[derive(Debug)]
pub struct DropTail {
    fifo: Fifo,
    limit: PackedLimit,
}

impl DropTail {
    /// Builds a drop-tail queue from its configuration.
    pub fn new(cfg: &DropTailConfig, _port: PortInfo) -> Self {
        DropTail { fifo: Fifo::default(), limit: PackedLimit::new(cfg.limit.or_default()) }
    }
}

impl DropTail {
    /// True if a packet of `size_bytes` fits the empty buffer (the port's idle fast path).
    #[inline]
    pub fn admits_into_empty(&self, size_bytes: u32) -> bool {
        self.fifo.is_empty() && self.limit.fits(0, 0, size_bytes)
    }

    /// True if a packet of `size_bytes` fits behind `pkts` waiting packets of `bytes` bytes (a
    /// lazy port keeps its waiting packets on the wire, not in this queue: `net::port`).
    #[inline]
    pub fn fits(&self, pkts: u32, bytes: u64, size_bytes: u32) -> bool {
        self.limit.fits(pkts, bytes, size_bytes)
    }

    /// Packets smaller than this many bytes fit the empty buffer (0: none does): the same test
    /// as [`Self::admits_into_empty`] on an empty queue, as one number the port keeps.
    pub fn empty_admits_below_bytes(&self) -> u64 {
        self.limit.empty_admits_below_bytes()
    }
}

impl QueueDiscipline for DropTail {
    #[inline]
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, _now: SimTime, _rng: &mut SimRng) -> Verdict {
        if self.limit.fits(self.fifo.len_pkts(), self.fifo.len_bytes(), pkt.size_bytes) {
            self.fifo.push(id, pkt.size_bytes);
            Verdict::Queued
        } else {
            Verdict::Dropped(DropReason::Overflow)
        }
    }
    #[inline]
    fn dequeue(&mut self, _now: SimTime) -> Option<u32> {
        self.fifo.pop()
    }
    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
    fn draws_random(&self) -> bool {
        false
    }
}

impl crate::registry::Validate for DropTailConfig {
    fn validate(&self) -> Result<(), crate::registry::FieldError> {
        self.limit.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::units::Bytes;
    use crate::sim::rng::stream;

    fn info() -> PortInfo {
        PortInfo { rate_bps: 1_000_000, delay_ps: 0 }
    }

    #[test]
    fn drops_the_arrival_that_overflows_the_packet_limit() {
        let cfg = DropTailConfig { limit: BufferLimit { limit_pkts: Some(2), limit_bytes: None } };
        let mut q = DropTail::new(&cfg, info());
        let mut rng = stream(0, "t");
        let mut p = Packet { size_bytes: 100, ..Default::default() };
        assert_eq!(q.enqueue(0, &mut p, 0, &mut rng), Verdict::Queued);
        assert_eq!(q.enqueue(1, &mut p, 0, &mut rng), Verdict::Queued);
        assert_eq!(q.enqueue(2, &mut p, 0, &mut rng), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(q.dequeue(0), Some(0));
        assert_eq!(q.enqueue(3, &mut p, 0, &mut rng), Verdict::Queued);
        assert_eq!((q.dequeue(0), q.dequeue(0), q.dequeue(0)), (Some(1), Some(3), None));
    }

    /// The packed limit the queue keeps must admit exactly what the scenario's limit admits,
    /// at and around every bound, with and without packets waiting.
    #[test]
    fn the_packed_limit_admits_exactly_what_the_configured_limit_admits() {
        let limits = [(None, None), (Some(1), None), (Some(100), Some(1500)), (None, Some(1)), (Some(7), Some(9000)), (None, Some(u32::MAX as u64 + 7))];
        for (limit_pkts, limit_bytes) in limits {
            let l = BufferLimit { limit_pkts, limit_bytes: limit_bytes.map(Bytes) };
            let packed = PackedLimit::new(l);
            for pkts in [0u32, 1, 6, 7, 99, 100, 101, 1 << 20] {
                for bytes in [0u64, 1, 1499, 1500, 8999, 9000, u32::MAX as u64, 1 << 40] {
                    for size in [0u32, 1, 2, 1499, 1500, 1501, 9000, u32::MAX] {
                        assert_eq!(packed.fits(pkts, bytes, size), l.fits(pkts, bytes, size), "{l:?}: {pkts} pkts, {bytes} B, +{size} B");
                    }
                }
            }
        }
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let cfg = DropTailConfig { limit: BufferLimit { limit_pkts: None, limit_bytes: Some(Bytes(250)) } };
        let mut q = DropTail::new(&cfg, info());
        let mut rng = stream(0, "t");
        let mut big = Packet { size_bytes: 200, ..Default::default() };
        let mut small = Packet { size_bytes: 50, ..Default::default() };
        assert_eq!(q.enqueue(0, &mut big, 0, &mut rng), Verdict::Queued);
        assert_eq!(q.enqueue(1, &mut big, 0, &mut rng), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(q.enqueue(2, &mut small, 0, &mut rng), Verdict::Queued);
        assert_eq!(q.len_bytes(), 250);
        assert_eq!(q.len_pkts(), 2);
    }
}
