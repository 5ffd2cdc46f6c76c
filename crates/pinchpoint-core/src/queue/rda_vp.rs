//! RDA/VP, random drop with a variable probability (seed 001, s3.3, eq. 1 and 2): RED as the
//! ISDA paper describes it.
//!
//! QueAvg is averaged as in RDA/FP (see [`super::rda_fp::QueueAverage`]). Between MinQue and
//! MaxQue an arrival is dropped (or ECN-marked) with probability
//!
//! ```text
//! Pa = P0 (QueAvg - MinQue) / (MaxQue - MinQue)                       (eq. 1)
//! P0 = 1.225 / (R * BW^0.5)                                           (eq. 2)
//! ```
//!
//! and above MaxQue always. Eq. 2 is quoted from the TCP model of Floyd and Fall (the seed's
//! reference [10]). Units (the seed gives none): R is the target round-trip time in **seconds**
//! (`target_rtt`) and BW the node's transmission rate in **packets per second** (`bw_pps`; by
//! default the port rate divided by `8 * mean_pkt_bytes`). P0 is clamped to [0, 1]. Eq. 2 is not
//! dimensionally what the model gives (the model says p = (1.22 / (R * T))^2 for a flow sending
//! T packets/s); we implement the seed's formula as printed and say so in
//! `docs/algorithms/rda_vp.md`. A plain `max_p` replaces eq. 2 when given (RED as usually
//! configured).

use super::aqm::{delegate_to_core, AqmConfig, AqmCore, P0Config};
use super::{PortInfo, QueueDiscipline, QueueNew, Verdict};
use crate::net::packet::Packet;
use crate::registry::{FieldError, Validate};
use crate::sim::{SimRng, SimTime};
use serde::{Deserialize, Serialize};

/// Scenario configuration of an RDA/VP queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RdaVpConfig {
    /// The fields every seed-001 policy shares (thresholds, average, ECN, buffer; see
    /// [`AqmConfig`]).
    #[serde(flatten)]
    pub aqm: AqmConfig,
    /// P0: `max_p`, or eq. 2 from `target_rtt` and `bw_pps` (see [`P0Config`]).
    #[serde(flatten)]
    pub p0: P0Config,
}

impl RdaVpConfig {
    /// P0: `max_p` if given, else eq. 2 with R in seconds and BW in packets/s, clamped to [0, 1].
    pub fn p0(&self, port: PortInfo) -> f64 {
        self.p0.p0(port, self.aqm.mean_pkt_bytes)
    }
}

/// Eq. 1: the drop probability for QueAvg between the thresholds.
#[inline]
pub fn variable_probability(p0: f64, avg: f64, min_que: f64, max_que: f64) -> f64 {
    if max_que <= min_que {
        return p0;
    }
    (p0 * (avg - min_que) / (max_que - min_que)).clamp(0.0, 1.0)
}

/// An RDA/VP queue.
#[derive(Debug)]
pub struct RdaVp {
    core: AqmCore,
    p0: f64,
}

impl QueueNew for RdaVp {
    type Config = RdaVpConfig;
    /// Builds an RDA/VP queue from its configuration.
    fn new(cfg: &RdaVpConfig, port: PortInfo) -> Self {
        RdaVp {
            core: AqmCore::new(&cfg.aqm, port),
            p0: cfg.p0(port),
        }
    }
}

impl RdaVp {
    /// The P0 in use.
    pub fn p0(&self) -> f64 {
        self.p0
    }
    /// Current QueAvg, packets.
    pub fn avg(&self) -> f64 {
        self.core.avg.avg
    }
}

impl QueueDiscipline for RdaVp {
    #[inline]
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        let avg = self.core.average(now);
        let pa = variable_probability(self.p0, avg, self.core.min_que, self.core.max_que);
        let early = self.core.band_decision(avg, pa, rng);
        self.core.admit(id, pkt, early)
    }
    delegate_to_core!();
}

impl Validate for RdaVpConfig {
    fn validate(&self) -> Result<(), FieldError> {
        self.aqm.validate()?;
        self.p0.validate()
    }
    /// Between the thresholds a packet is dropped with a probability that follows the queue.
    fn draws_random(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;
    use crate::queue::DropReason;
    use crate::scenario::units::Duration;
    use crate::sim::rng::stream;

    fn info() -> PortInfo {
        PortInfo { rate_bps: 10_000_000, delay_ps: 0 }
    }

    #[test]
    fn p0_follows_eq2_in_seconds_and_packets_per_second() {
        let c = RdaVpConfig::default(); // R = 0.1 s, BW = 10 Mbit/s / 8000 bit = 1250 pkt/s
        let want = 1.225 / (0.1 * 1250f64.sqrt());
        assert!((c.p0(info()) - want).abs() < 1e-12);
        assert!((want - 0.34648).abs() < 1e-4);
        let p0 = P0Config { bw_pps: Some(100.0), target_rtt: Duration(crate::sim::PS_PER_S), ..Default::default() };
        let c = RdaVpConfig { p0, ..Default::default() };
        assert!((c.p0(info()) - 0.1225).abs() < 1e-12);
        let c = RdaVpConfig { p0: P0Config { max_p: Some(0.1), ..Default::default() }, ..Default::default() };
        assert_eq!(c.p0(info()), 0.1);
        let p0 = P0Config { target_rtt: Duration(crate::sim::PS_PER_MS), bw_pps: Some(1.0), ..Default::default() };
        let tiny = RdaVpConfig { p0, ..Default::default() };
        assert_eq!(tiny.p0(info()), 1.0);
    }

    #[test]
    fn eq1_rises_linearly_between_the_thresholds() {
        assert_eq!(variable_probability(0.4, 10.0, 10.0, 25.0), 0.0);
        assert!((variable_probability(0.4, 17.5, 10.0, 25.0) - 0.2).abs() < 1e-12);
        assert!((variable_probability(0.4, 25.0, 10.0, 25.0) - 0.4).abs() < 1e-12);
    }

    fn drop_fraction_at(level: u32, max_p: f64, seed: u64) -> f64 {
        let cfg = RdaVpConfig {
            p0: P0Config { max_p: Some(max_p), ..Default::default() },
            aqm: AqmConfig { weight: 1.0, limit_pkts: Some(1000), ..Default::default() },
        };
        let mut q = RdaVp::new(&cfg, info());
        let mut rng = stream(seed, "t");
        let mut p = Packet { size_bytes: 1000, ..Default::default() };
        let mut i = 0;
        while q.len_pkts() < level {
            q.enqueue(i, &mut p, 0, &mut rng);
            i += 1;
        }
        let n = 20_000;
        let mut drops = 0;
        for i in 0..n {
            match q.enqueue(1000 + i, &mut p, 0, &mut rng) {
                Verdict::Dropped(DropReason::Early) => drops += 1,
                Verdict::Queued => {
                    q.dequeue(0);
                }
                v => panic!("{v:?}"),
            }
        }
        drops as f64 / n as f64
    }

    #[test]
    fn drop_probability_matches_eq1_statistically() {
        // QueAvg held at 16 and 22 packets (weight 1): Pa = 0.5 * 6/15 = 0.2 and 0.5 * 12/15 = 0.4.
        let f = drop_fraction_at(16, 0.5, 11);
        assert!((f - 0.2).abs() < 0.012, "{f}");
        let f = drop_fraction_at(22, 0.5, 12);
        assert!((f - 0.4).abs() < 0.014, "{f}");
        assert_eq!(drop_fraction_at(10, 0.5, 13), 0.0);
        assert_eq!(drop_fraction_at(25, 0.5, 14), 1.0);
    }

    #[test]
    fn slow_average_keeps_a_burst_from_triggering_drops() {
        // With w = 0.002 a burst of 40 back-to-back packets moves QueAvg by under 2 packets.
        let aqm = AqmConfig { limit_pkts: Some(50), ..Default::default() };
        let cfg = RdaVpConfig { aqm, ..Default::default() };
        let mut q = RdaVp::new(&cfg, info());
        let mut rng = stream(2, "t");
        let mut p = Packet { size_bytes: 1000, ..Default::default() };
        for i in 0..40 {
            assert_eq!(q.enqueue(i, &mut p, 0, &mut rng), Verdict::Queued);
        }
        assert!(q.avg() < 2.0);
    }

    #[test]
    fn ecn_marks_ect_packets_in_the_band() {
        let cfg = RdaVpConfig {
            p0: P0Config { max_p: Some(1.0), ..Default::default() },
            aqm: AqmConfig { weight: 1.0, ecn: true, ..Default::default() },
        };
        let mut q = RdaVp::new(&cfg, info());
        let mut rng = stream(2, "t");
        let mut p = Packet { size_bytes: 1000, ecn: Ecn::Ect, ..Default::default() };
        for i in 0..24 {
            q.enqueue(i, &mut p, 0, &mut rng);
        }
        // QueAvg 24: Pa = 14/15; ECT arrivals are marked or queued, never dropped.
        let mut marks = 0;
        for i in 0..200 {
            let mut e = Packet { size_bytes: 1000, ecn: Ecn::Ect, ..Default::default() };
            let v = q.enqueue(100 + i, &mut e, 0, &mut rng);
            assert!(matches!(v, Verdict::Marked | Verdict::Queued), "{v:?}");
            marks += (v == Verdict::Marked) as u32;
            q.dequeue(0);
        }
        assert!(marks > 170, "{marks}");
    }
}
