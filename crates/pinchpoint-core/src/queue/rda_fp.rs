//! RDA/FP, random drop with a fixed probability (seed 001, s3.2 and Figure 1).
//!
//! For every arrival the port updates an exponentially weighted average of the queue length
//! (QueAvg). Between the two thresholds MinQue and MaxQue the arrival is dropped (or, with `ecn`,
//! marked if its transport is ECN-capable) with the fixed probability Pa; above MaxQue it is
//! always dropped. Figure 1:
//!
//! ```text
//! for each packet arrival
//!   calculate average queue as QueAvg
//!   if (MinQue < QueAvg < MaxQue)  mark the arriving packet with probability Pa
//!   else if (MaxQue < QueAvg)      mark the arriving packet
//!   if (congestion)                drop the marked packet
//! ```
//!
//! The seed says only "calculate average queue". We use the averaging of RED (Floyd and
//! Jacobson 1993, the seed's reference [8], s4 and s11): `avg <- (1 - w) avg + w q` on each
//! arrival, and after an idle period `avg <- (1 - w)^m avg`, where m is the number of packets of
//! `mean_pkt_bytes` the port could have sent while idle. The same machinery ([`AqmCore`]) serves
//! RDA/VP and ISDA.

use super::aqm::{delegate_to_core, AqmConfig, AqmCore};
use super::{PortInfo, QueueDiscipline, QueueNew, Verdict};
use crate::net::packet::Packet;
use crate::registry::{check_f64, FieldError, Validate};
use crate::sim::{SimRng, SimTime};
use serde::{Deserialize, Serialize};

fn default_pa() -> f64 {
    0.1
}

/// Scenario configuration of an RDA/FP queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RdaFpConfig {
    /// Pa, the fixed drop (mark) probability between the thresholds. Default 0.1 (the ns-2 RED
    /// default max_p = 1/linterm_; the seed gives no value).
    #[serde(default = "default_pa")]
    pub pa: f64,
    /// The fields every seed-001 policy shares (thresholds, average, ECN, buffer; see
    /// [`AqmConfig`]).
    #[serde(flatten)]
    pub aqm: AqmConfig,
}

impl Default for RdaFpConfig {
    fn default() -> Self {
        RdaFpConfig { pa: default_pa(), aqm: AqmConfig::default() }
    }
}

/// An RDA/FP queue.
#[derive(Debug)]
pub struct RdaFp {
    core: AqmCore,
    pa: f64,
}

impl QueueNew for RdaFp {
    type Config = RdaFpConfig;
    /// Builds an RDA/FP queue from its configuration.
    fn new(cfg: &RdaFpConfig, port: PortInfo) -> Self {
        RdaFp {
            core: AqmCore::new(&cfg.aqm, port),
            pa: cfg.pa,
        }
    }
}

impl RdaFp {
    /// Current QueAvg, packets.
    pub fn avg(&self) -> f64 {
        self.core.avg.avg
    }
}

impl QueueDiscipline for RdaFp {
    #[inline]
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        // Figure 1: average, then the fixed probability Pa in the band, certain drop above it.
        let avg = self.core.average(now);
        let early = self.core.band_decision(avg, self.pa, rng);
        self.core.admit(id, pkt, early)
    }
    delegate_to_core!();
}

impl Validate for RdaFpConfig {
    fn validate(&self) -> Result<(), FieldError> {
        self.aqm.validate()?;
        check_f64("pa", self.pa, 0.0, 1.0)
    }
    /// Between the thresholds a packet is dropped with probability Pa: a draw, unless Pa is 0
    /// (never) or 1 (always).
    fn draws_random(&self) -> bool {
        self.pa > 0.0 && self.pa < 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;
    use crate::queue::DropReason;
    use crate::sim::rng::stream;

    fn info() -> PortInfo {
        PortInfo { rate_bps: 10_000_000, delay_ps: 0 }
    }

    fn cfg(weight: f64, ecn: bool) -> RdaFpConfig {
        RdaFpConfig {
            pa: 0.1,
            aqm: AqmConfig { weight, ecn, limit_pkts: Some(1000), ..Default::default() },
        }
    }

    #[test]
    fn no_early_drops_below_min_que() {
        let mut q = RdaFp::new(&cfg(1.0, false), info());
        let mut rng = stream(1, "t");
        let mut p = Packet { size_bytes: 1000, ..Default::default() };
        for i in 0..11 {
            assert_eq!(q.enqueue(i, &mut p, 0, &mut rng), Verdict::Queued, "arrival {i}");
        }
    }

    #[test]
    fn drops_with_probability_pa_between_the_thresholds() {
        // weight 1 makes QueAvg the instantaneous length; hold the queue at 15 packets.
        let mut q = RdaFp::new(&cfg(1.0, false), info());
        let mut rng = stream(7, "t");
        let mut p = Packet { size_bytes: 1000, ..Default::default() };
        for i in 0..15 {
            q.enqueue(i, &mut p, 0, &mut rng);
        }
        assert_eq!(q.len_pkts(), 15);
        let n = 20_000;
        let mut drops = 0;
        for i in 0..n {
            match q.enqueue(100 + i, &mut p, 0, &mut rng) {
                Verdict::Dropped(DropReason::Early) => drops += 1,
                Verdict::Queued => {
                    q.dequeue(0);
                }
                v => panic!("unexpected {v:?}"),
            }
        }
        let frac = drops as f64 / n as f64;
        // Binomial(20000, 0.1): sd = 0.0021; allow 4 sd.
        assert!((frac - 0.1).abs() < 0.0085, "drop fraction {frac}");
    }

    #[test]
    fn always_drops_at_or_above_max_que_even_ect_packets() {
        let mut q = RdaFp::new(&cfg(1.0, true), info());
        let mut rng = stream(3, "t");
        let mut p = Packet { size_bytes: 1000, ecn: Ecn::Ect, ..Default::default() };
        let mut i = 0;
        while q.len_pkts() < 25 {
            q.enqueue(i, &mut p, 0, &mut rng);
            i += 1;
        }
        for j in 0..100 {
            assert_eq!(q.enqueue(1000 + j, &mut p, 0, &mut rng), Verdict::Dropped(DropReason::Early));
        }
    }

    #[test]
    fn marks_ect_packets_and_drops_others_in_the_band_when_ecn_is_on() {
        let mut q = RdaFp::new(&cfg(1.0, true), info());
        let mut rng = stream(5, "t");
        let mut plain = Packet { size_bytes: 1000, ..Default::default() };
        for i in 0..15 {
            q.enqueue(i, &mut plain, 0, &mut rng);
        }
        let (mut marks, mut drops) = (0, 0);
        for i in 0..4000 {
            let mut ect = Packet { size_bytes: 1000, ecn: Ecn::Ect, ..Default::default() };
            match q.enqueue(100 + i, &mut ect, 0, &mut rng) {
                Verdict::Marked => {
                    assert_eq!(ect.ecn, Ecn::Ce);
                    marks += 1;
                }
                Verdict::Queued => assert_eq!(ect.ecn, Ecn::Ect),
                v => panic!("ECT packet got {v:?}"),
            }
            q.dequeue(0);
            let mut p = plain;
            match q.enqueue(10_000 + i, &mut p, 0, &mut rng) {
                Verdict::Dropped(DropReason::Early) => drops += 1,
                Verdict::Queued => {
                    q.dequeue(0);
                }
                v => panic!("plain packet got {v:?}"),
            }
        }
        assert!(marks > 300 && marks < 500, "marks {marks}");
        assert!(drops > 300 && drops < 500, "drops {drops}");
    }

    #[test]
    fn config_defaults_match_the_paper_and_ns2() {
        let c: RdaFpConfig = toml::from_str("limit_pkts = 50").unwrap();
        assert_eq!((c.aqm.min_que_pkts, c.aqm.max_que_pkts, c.pa, c.aqm.weight, c.aqm.ecn), (10.0, 25.0, 0.1, 0.002, false));
        assert_eq!(c.aqm.limit_pkts, Some(50));
        assert!(toml::from_str::<RdaFpConfig>("p_a = 0.2").is_err());
    }
}
