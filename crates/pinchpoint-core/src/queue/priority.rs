//! Strict priority: several FIFOs, always serving the highest non-empty class first.
//!
//! With `acks_first` every acknowledgement goes to class 0 ahead of all data: the port the
//! ATN paper asks about (WP/267 s4.5 and s6: would sending AK TPDUs ahead of DT TPDUs remove the
//! unfairness between transfers that share the pinch point in opposite directions?).

use super::{BufferLimit, DropReason, Fifo, PortInfo, QueueDiscipline, Verdict};
use crate::net::packet::{Packet, PacketKind};
use crate::sim::{SimRng, SimTime};
use serde::{Deserialize, Serialize};

fn default_classes() -> u8 {
    2
}

/// Scenario configuration of a strict-priority queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StrictPriorityConfig {
    /// Number of classes; a packet's `priority` field picks its class (clamped to the last).
    #[serde(default = "default_classes")]
    pub classes: u8,
    /// Put acknowledgements in class 0 whatever their `priority` field says.
    #[serde(default)]
    pub acks_first: bool,
    /// Buffer limit shared by all classes. With neither given: 100 packets.
    #[serde(flatten)]
    pub limit: BufferLimit,
}

/// A strict-priority queue with a shared buffer.
#[derive(Debug)]
pub struct StrictPriority {
    classes: Vec<Fifo>,
    acks_first: bool,
    limit: super::PackedLimit,
    pkts: u32,
    bytes: u64,
}

impl StrictPriority {
    /// Builds the queue from its configuration.
    pub fn new(cfg: &StrictPriorityConfig, _port: PortInfo) -> Self {
        let limit = super::PackedLimit::new(cfg.limit.or_default());
        let n = cfg.classes.max(1) as usize;
        StrictPriority {
            classes: (0..n).map(|_| Fifo::default()).collect(),
            acks_first: cfg.acks_first,
            limit,
            pkts: 0,
            bytes: 0,
        }
    }

    fn class_of(&self, pkt: &Packet) -> usize {
        if self.acks_first && pkt.kind == PacketKind::Ack {
            0
        } else {
            (pkt.priority as usize).min(self.classes.len() - 1)
        }
    }
}

impl QueueDiscipline for StrictPriority {
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, _now: SimTime, _rng: &mut SimRng) -> Verdict {
        if !self.limit.fits(self.pkts, self.bytes, pkt.size_bytes) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        let c = self.class_of(pkt);
        self.classes[c].push(id, pkt.size_bytes);
        self.pkts += 1;
        self.bytes += pkt.size_bytes as u64;
        Verdict::Queued
    }
    fn dequeue(&mut self, _now: SimTime) -> Option<u32> {
        for c in self.classes.iter_mut() {
            let before = c.len_bytes();
            if let Some(id) = c.pop() {
                self.pkts -= 1;
                self.bytes -= before - c.len_bytes();
                return Some(id);
            }
        }
        None
    }
    fn len_pkts(&self) -> u32 {
        self.pkts
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn draws_random(&self) -> bool {
        false
    }
}

impl crate::registry::Validate for StrictPriorityConfig {
    fn validate(&self) -> Result<(), crate::registry::FieldError> {
        crate::registry::check_int("classes", self.classes, 1, 16)?;
        self.limit.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    #[test]
    fn acks_overtake_queued_data() {
        let cfg = StrictPriorityConfig { classes: 2, acks_first: true, limit: BufferLimit::default() };
        let mut q = StrictPriority::new(&cfg, PortInfo { rate_bps: 64_000, delay_ps: 0 });
        let mut rng = stream(0, "t");
        let mut data = Packet { size_bytes: 500, priority: 1, ..Default::default() };
        let mut ack = Packet { size_bytes: 40, kind: PacketKind::Ack, priority: 1, ..Default::default() };
        q.enqueue(0, &mut data, 0, &mut rng);
        q.enqueue(1, &mut data, 0, &mut rng);
        q.enqueue(2, &mut ack, 0, &mut rng);
        assert_eq!(q.len_bytes(), 1040);
        assert_eq!(q.dequeue(0), Some(2));
        assert_eq!(q.dequeue(0), Some(0));
        assert_eq!(q.dequeue(0), Some(1));
        assert_eq!(q.len_pkts(), 0);
        assert_eq!(q.len_bytes(), 0);
    }
}
