//! RDA, the Random Drop Algorithm as the ISDA paper describes it (seed 001, s3.1).
//!
//! "RDA monitors incoming traffics at a node and checks a queue status of the node. If the queue
//! exceeds a threshold, the node identifies itself under congestion and starts dropping some
//! incoming traffics" (s3.1); s3.2 restates it as "RDA drops all incoming traffics when the
//! buffer exceeds a threshold". We implement exactly that: every arrival is dropped (reason
//! `Early`) while the queue *exceeds* `threshold_pkts`. Below it the queue is a plain FIFO with an
//! ordinary buffer limit (reason `Overflow`).
//!
//! Which queue length: by default the RED average QueAvg ([`super::aqm::QueueAverage`]), compared
//! by the one congestion test [`super::aqm::exceeds`] that SDA and ISDA's RDA stage also apply
//! ("if congestion is detected, applies RDA", s3.5), with the same threshold MinQue (10, s4.1).
//! `measure = "instantaneous"` compares the current length instead (the reading used before:
//! "checks a queue status" read as the current length, threshold MaxQue 25). See
//! `docs/algorithms/rda.md`.

use super::aqm::{default_mean_pkt, default_min_que, default_weight, exceeds, limit_or_default, QueueAverage};
use super::{BufferLimit, DropReason, Fifo, PortInfo, QueueDiscipline, QueueNew, Verdict};
use crate::net::packet::Packet;
use crate::sim::{SimRng, SimTime};
use serde::{Deserialize, Serialize};

/// Which queue length RDA compares with its threshold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueueMeasure {
    /// QueAvg, the RED average (the rule SDA and ISDA share).
    #[default]
    Average,
    /// The number of packets waiting when the packet arrives.
    Instantaneous,
}

/// Scenario configuration of an RDA queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RdaConfig {
    /// Arrivals are dropped while the queue exceeds this many packets (s3.1). Default 10 (the
    /// paper's MinQue, s4.1, the threshold of ISDA's RDA stage).
    #[serde(default = "default_min_que")]
    pub threshold_pkts: f64,
    /// Which queue length is compared: `"average"` (QueAvg; default) or `"instantaneous"`.
    #[serde(default)]
    pub measure: QueueMeasure,
    /// Averaging weight w of QueAvg (with `measure = "average"`). Default 0.002 (ns-2 RED q_weight_).
    #[serde(default = "default_weight")]
    pub weight: f64,
    /// Packet size used to age the average over idle periods, bytes. Default 1000.
    #[serde(default = "default_mean_pkt")]
    pub mean_pkt_bytes: u32,
    /// Buffer limit (packets and/or bytes). With neither given the buffer holds 100 packets.
    #[serde(flatten)]
    pub limit: BufferLimit,
}

impl Default for RdaConfig {
    fn default() -> Self {
        RdaConfig {
            threshold_pkts: default_min_que(),
            measure: QueueMeasure::Average,
            weight: default_weight(),
            mean_pkt_bytes: default_mean_pkt(),
            limit: BufferLimit::default(),
        }
    }
}

impl RdaConfig {
    /// Range checks: `Err((field, expectation))` for the first bad field.
    pub fn check(&self) -> Result<(), (&'static str, &'static str)> {
        if !(self.threshold_pkts >= 0.0) {
            return Err(("threshold_pkts", "expected a non-negative number of packets"));
        }
        if !(self.weight > 0.0 && self.weight <= 1.0) {
            return Err(("weight", "expected a weight in (0, 1]"));
        }
        if self.mean_pkt_bytes == 0 {
            return Err(("mean_pkt_bytes", "expected a positive value"));
        }
        if self.limit.limit_pkts == Some(0) {
            return Err(("limit_pkts", "expected at least 1 packet"));
        }
        Ok(())
    }
}

/// An RDA queue: a FIFO that refuses arrivals while its queue exceeds the threshold.
#[derive(Debug)]
pub struct Rda {
    fifo: Fifo,
    avg: QueueAverage,
    threshold_pkts: f64,
    measure: QueueMeasure,
    limit: BufferLimit,
}

impl QueueNew for Rda {
    type Config = RdaConfig;
    /// Builds an RDA queue from its configuration.
    fn new(cfg: &RdaConfig, port: PortInfo) -> Self {
        Rda {
            fifo: Fifo::default(),
            avg: QueueAverage::new(cfg.weight, port.rate_bps, cfg.mean_pkt_bytes),
            threshold_pkts: cfg.threshold_pkts,
            measure: cfg.measure,
            limit: limit_or_default(cfg.limit),
        }
    }
}

impl Rda {
    /// Current QueAvg, packets.
    pub fn avg(&self) -> f64 {
        self.avg.avg
    }
}

impl QueueDiscipline for Rda {
    #[inline]
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, _rng: &mut SimRng) -> Verdict {
        let avg = self.avg.on_arrival(self.fifo.len_pkts(), now);
        let q = match self.measure {
            QueueMeasure::Average => avg,
            QueueMeasure::Instantaneous => self.fifo.len_pkts() as f64,
        };
        // s3.1: "if the queue exceeds a threshold ... starts dropping incoming traffics".
        if exceeds(q, self.threshold_pkts) {
            return Verdict::Dropped(DropReason::Early);
        }
        if !self.limit.fits(self.fifo.len_pkts(), self.fifo.len_bytes(), pkt.size_bytes) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.fifo.push(id, pkt.size_bytes);
        Verdict::Queued
    }
    #[inline]
    fn dequeue(&mut self, now: SimTime) -> Option<u32> {
        let id = self.fifo.pop();
        if self.fifo.is_empty() {
            self.avg.on_empty(now);
        }
        id
    }
    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
}

impl crate::registry::Validate for RdaConfig {
    fn validate(&self) -> Result<(), crate::registry::FieldError> {
        self.check().map_err(|(f, m)| crate::registry::FieldError::new(f, m))?;
        self.limit.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    fn info() -> PortInfo {
        PortInfo { rate_bps: 10_000_000, delay_ps: 0 }
    }

    fn cfg(threshold_pkts: f64, measure: QueueMeasure, weight: f64, limit: u32) -> RdaConfig {
        RdaConfig {
            threshold_pkts,
            measure,
            weight,
            limit: BufferLimit { limit_pkts: Some(limit), limit_bytes: None },
            ..Default::default()
        }
    }

    #[test]
    fn drops_every_arrival_while_the_instantaneous_queue_exceeds_the_threshold() {
        let mut q = Rda::new(&cfg(3.0, QueueMeasure::Instantaneous, 0.002, 50), info());
        let mut rng = stream(0, "t");
        let mut p = Packet { size_bytes: 1000, ..Default::default() };
        // 0, 1, 2, 3 waiting: not above 3, queued; from 4 waiting on, dropped.
        for i in 0..4 {
            assert_eq!(q.enqueue(i, &mut p, 0, &mut rng), Verdict::Queued);
        }
        for i in 4..10 {
            assert_eq!(q.enqueue(i, &mut p, 0, &mut rng), Verdict::Dropped(DropReason::Early));
        }
        assert_eq!(q.dequeue(0), Some(0));
        assert_eq!(q.enqueue(10, &mut p, 0, &mut rng), Verdict::Queued);
        assert_eq!(q.len_pkts(), 4);
    }

    #[test]
    fn the_average_measure_drops_only_once_queavg_exceeds_the_threshold() {
        // w = 0.5: QueAvg after arrivals finding 0, 1, 2, 3, 4 waiting = 0, 0.5, 1.25, 2.125, 3.0625.
        let mut q = Rda::new(&cfg(3.0, QueueMeasure::Average, 0.5, 50), info());
        let mut rng = stream(0, "t");
        let mut p = Packet { size_bytes: 1000, ..Default::default() };
        for i in 0..4 {
            assert_eq!(q.enqueue(i, &mut p, 0, &mut rng), Verdict::Queued);
        }
        assert_eq!(q.avg(), 2.125);
        assert_eq!(q.enqueue(4, &mut p, 0, &mut rng), Verdict::Dropped(DropReason::Early));
        assert_eq!(q.avg(), 3.0625);
    }

    #[test]
    fn buffer_limit_below_the_threshold_counts_as_overflow() {
        let mut q = Rda::new(&cfg(10.0, QueueMeasure::Instantaneous, 0.002, 2), info());
        let mut rng = stream(0, "t");
        let mut p = Packet { size_bytes: 1000, ..Default::default() };
        assert_eq!(q.enqueue(0, &mut p, 0, &mut rng), Verdict::Queued);
        assert_eq!(q.enqueue(1, &mut p, 0, &mut rng), Verdict::Queued);
        assert_eq!(q.enqueue(2, &mut p, 0, &mut rng), Verdict::Dropped(DropReason::Overflow));
    }

    #[test]
    fn config_defaults_and_unknown_fields() {
        let c: RdaConfig = toml::from_str("limit_pkts = 50").unwrap();
        assert_eq!((c.threshold_pkts, c.measure), (10.0, QueueMeasure::Average));
        assert_eq!(c.limit.limit_pkts, Some(50));
        assert!(toml::from_str::<RdaConfig>("threshhold_pkts = 5").is_err());
        let c: RdaConfig = toml::from_str("measure = \"instantaneous\"\nthreshold_pkts = 25").unwrap();
        assert_eq!((c.threshold_pkts, c.measure), (25.0, QueueMeasure::Instantaneous));
    }
}
