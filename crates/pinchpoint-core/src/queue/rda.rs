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

use super::aqm::{default_mean_pkt, default_min_que, default_weight, delegate_to_core, exceeds, AqmCore, QueueAverage};
use super::{BufferLimit, DropReason, Fifo, PortInfo, QueueDiscipline, QueueNew, Verdict};
use crate::net::packet::Packet;
use crate::registry::{check_f64, check_f64_above, check_int, FieldError, Validate};
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

impl Validate for RdaConfig {
    /// The checks of [`super::aqm::AqmConfig::validate`], with the one threshold in place of
    /// MinQue and MaxQue.
    fn validate(&self) -> Result<(), FieldError> {
        check_f64("threshold_pkts", self.threshold_pkts, 0.0, 1e9)?;
        check_f64_above("weight", self.weight, 0.0, 1.0)?;
        check_int("mean_pkt_bytes", self.mean_pkt_bytes, 1, 1_000_000)?;
        // The averaging settings are read only by the average (a resolved scenario writes
        // their defaults, which stay accepted).
        if self.measure == QueueMeasure::Instantaneous {
            if self.weight != default_weight() {
                return Err(FieldError::new("weight", "has no effect with measure = \"instantaneous\" (no average is kept): expected measure = \"average\", or no weight"));
            }
            if self.mean_pkt_bytes != default_mean_pkt() {
                return Err(FieldError::new("mean_pkt_bytes", "has no effect with measure = \"instantaneous\" (no average decays while idle): expected measure = \"average\", or no mean_pkt_bytes"));
            }
        }
        self.limit.validate()
    }
}

/// An RDA queue: a FIFO that refuses arrivals while its queue exceeds the threshold.
#[derive(Debug)]
pub struct Rda {
    /// The FIFO, buffer and QueAvg every seed-001 policy shares; its MinQue is RDA's threshold.
    core: AqmCore,
    measure: QueueMeasure,
}

impl QueueNew for Rda {
    type Config = RdaConfig;
    /// Builds an RDA queue from its configuration.
    fn new(cfg: &RdaConfig, port: PortInfo) -> Self {
        let core = AqmCore {
            fifo: Fifo::default(),
            limit: cfg.limit.or_default(),
            avg: QueueAverage::new(cfg.weight, port.rate_bps, cfg.mean_pkt_bytes),
            min_que: cfg.threshold_pkts,
            // RDA has no probabilistic band (no MaxQue) and never marks.
            max_que: f64::INFINITY,
            ecn: false,
        };
        Rda { core, measure: cfg.measure }
    }
}

impl Rda {
    /// Current QueAvg, packets.
    pub fn avg(&self) -> f64 {
        self.core.avg.avg
    }
}

impl QueueDiscipline for Rda {
    #[inline]
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, _rng: &mut SimRng) -> Verdict {
        let avg = self.core.average(now);
        let q = match self.measure {
            QueueMeasure::Average => avg,
            QueueMeasure::Instantaneous => self.core.len_pkts() as f64,
        };
        // s3.1: "if the queue exceeds a threshold ... starts dropping incoming traffics".
        if exceeds(q, self.core.min_que) {
            return Verdict::Dropped(DropReason::Early);
        }
        self.core.admit(id, pkt, None)
    }
    delegate_to_core!();
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
