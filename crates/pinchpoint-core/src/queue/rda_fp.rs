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

use super::rda::limit_or_default;
use super::{BufferLimit, DropReason, Fifo, PortInfo, QueueDiscipline, Verdict};
use crate::net::packet::{Ecn, Packet};
use crate::sim::{rng, SimRng, SimTime};
use serde::{Deserialize, Serialize};

pub(crate) fn default_min_que() -> f64 {
    10.0
}
pub(crate) fn default_max_que() -> f64 {
    25.0
}
pub(crate) fn default_weight() -> f64 {
    0.002
}
pub(crate) fn default_mean_pkt() -> u32 {
    1000
}
fn default_pa() -> f64 {
    0.1
}

/// Exponentially weighted queue average with RED's idle-time correction (Floyd and Jacobson
/// 1993, s4 and s11), in packets.
#[derive(Debug, Clone)]
pub struct QueueAverage {
    /// The average, packets.
    pub avg: f64,
    /// Weight of the newest sample, w in (0, 1].
    pub weight: f64,
    /// Time to send one packet of the mean size at the port rate, ps.
    pkt_time_ps: f64,
    /// When the queue last became empty, if it is empty now.
    idle_since: Option<SimTime>,
}

impl QueueAverage {
    /// A zero average for a port of `rate_bps` whose packets are about `mean_pkt_bytes` long.
    pub fn new(weight: f64, rate_bps: u64, mean_pkt_bytes: u32) -> Self {
        let pkt_time_ps = mean_pkt_bytes.max(1) as f64 * 8.0 * crate::sim::PS_PER_S as f64 / rate_bps.max(1) as f64;
        QueueAverage { avg: 0.0, weight, pkt_time_ps, idle_since: Some(0) }
    }
    /// Folds in the queue length `q_pkts` an arrival finds at `now`; returns the new average.
    #[inline]
    pub fn on_arrival(&mut self, q_pkts: u32, now: SimTime) -> f64 {
        match self.idle_since.take() {
            // Floyd and Jacobson 1993 s11: after an idle period, decay as if m small packets had
            // left an empty queue.
            Some(t0) if q_pkts == 0 => {
                let m = now.saturating_sub(t0) as f64 / self.pkt_time_ps;
                self.avg *= (1.0 - self.weight).powf(m);
            }
            _ => self.avg = (1.0 - self.weight) * self.avg + self.weight * q_pkts as f64,
        }
        self.avg
    }
    /// Notes that the queue went empty at `now`.
    #[inline]
    pub fn on_empty(&mut self, now: SimTime) {
        self.idle_since = Some(now);
    }
}

/// The part RDA/FP, RDA/VP and ISDA share: a FIFO, its buffer limit, the queue average, the two
/// thresholds and the drop-or-mark choice.
#[derive(Debug)]
pub struct AqmCore {
    /// Waiting packets.
    pub fifo: Fifo,
    /// Buffer limit.
    pub limit: BufferLimit,
    /// Average queue length (QueAvg), packets.
    pub avg: QueueAverage,
    /// MinQue, packets.
    pub min_que: f64,
    /// MaxQue, packets.
    pub max_que: f64,
    /// Mark ECN-capable packets instead of dropping them in the probabilistic band.
    pub ecn: bool,
}

impl AqmCore {
    /// Builds the shared part.
    pub fn new(limit: BufferLimit, min_que: f64, max_que: f64, weight: f64, mean_pkt_bytes: u32, ecn: bool, port: PortInfo) -> Self {
        AqmCore {
            fifo: Fifo::default(),
            limit: limit_or_default(limit),
            avg: QueueAverage::new(weight, port.rate_bps, mean_pkt_bytes),
            min_que,
            max_que,
            ecn,
        }
    }

    /// Updates and returns QueAvg for an arrival at `now`.
    #[inline]
    pub fn average(&mut self, now: SimTime) -> f64 {
        self.avg.on_arrival(self.fifo.len_pkts(), now)
    }

    /// Queues `pkt` unless the buffer is full. `early` is the algorithm's congestion decision:
    /// `Some(true)` for the probabilistic band (mark ECT packets when `ecn` is on, else drop),
    /// `Some(false)` for a forced drop (above MaxQue: RFC 3168 s7 drops there even ECT packets),
    /// `None` for no early action.
    #[inline]
    pub fn admit(&mut self, id: u32, pkt: &mut Packet, early: Option<bool>) -> Verdict {
        let mut verdict = Verdict::Queued;
        match early {
            None => {}
            Some(true) if self.ecn && pkt.ecn != Ecn::NotEct => verdict = Verdict::Marked,
            Some(_) => return Verdict::Dropped(DropReason::Early),
        }
        if !self.limit.fits(self.fifo.len_pkts(), self.fifo.len_bytes(), pkt.size_bytes) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        if verdict == Verdict::Marked {
            if pkt.ecn == Ecn::Ce {
                verdict = Verdict::Queued; // already marked upstream; count it once
            }
            pkt.ecn = Ecn::Ce;
        }
        self.fifo.push(id, pkt.size_bytes);
        verdict
    }

    /// Next packet to send; records the start of an idle period.
    #[inline]
    pub fn dequeue(&mut self, now: SimTime) -> Option<u32> {
        let id = self.fifo.pop();
        if self.fifo.is_empty() {
            self.avg.on_empty(now);
        }
        id
    }

    /// Decides the early action for an arrival given QueAvg and the band probability `pa`
    /// (Figure 1; eq. 1 supplies `pa` for RDA/VP).
    #[inline]
    pub fn band_decision(&self, avg: f64, pa: f64, rng: &mut SimRng) -> Option<bool> {
        if avg >= self.max_que {
            Some(false)
        } else if avg > self.min_que && rng::uniform(rng) < pa {
            Some(true)
        } else {
            None
        }
    }
}

/// Scenario configuration of an RDA/FP queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RdaFpConfig {
    /// MinQue: no early drops while QueAvg is at or below it, packets. Default 10 (s4.1).
    #[serde(default = "default_min_que")]
    pub min_que_pkts: f64,
    /// MaxQue: every arrival is dropped once QueAvg reaches it, packets. Default 25 (s4.1).
    #[serde(default = "default_max_que")]
    pub max_que_pkts: f64,
    /// Pa, the fixed drop (mark) probability between the thresholds. Default 0.1 (the ns-2 RED
    /// default max_p = 1/linterm_; the seed gives no value).
    #[serde(default = "default_pa")]
    pub pa: f64,
    /// Averaging weight w of QueAvg. Default 0.002 (ns-2 RED q_weight_).
    #[serde(default = "default_weight")]
    pub weight: f64,
    /// Mark ECN-capable (ECT) packets with CE instead of dropping them between the thresholds.
    #[serde(default)]
    pub ecn: bool,
    /// Packet size used to age the average over idle periods, bytes. Default 1000.
    #[serde(default = "default_mean_pkt")]
    pub mean_pkt_bytes: u32,
    /// Buffer limit (packets and/or bytes). With neither given the buffer holds 100 packets.
    #[serde(flatten)]
    pub limit: BufferLimit,
}

impl Default for RdaFpConfig {
    fn default() -> Self {
        RdaFpConfig {
            min_que_pkts: default_min_que(),
            max_que_pkts: default_max_que(),
            pa: default_pa(),
            weight: default_weight(),
            ecn: false,
            mean_pkt_bytes: default_mean_pkt(),
            limit: BufferLimit::default(),
        }
    }
}

/// An RDA/FP queue.
#[derive(Debug)]
pub struct RdaFp {
    core: AqmCore,
    pa: f64,
}

impl RdaFp {
    /// Builds an RDA/FP queue from its configuration.
    pub fn new(cfg: &RdaFpConfig, port: PortInfo) -> Self {
        RdaFp {
            core: AqmCore::new(cfg.limit, cfg.min_que_pkts, cfg.max_que_pkts, cfg.weight, cfg.mean_pkt_bytes, cfg.ecn, port),
            pa: cfg.pa,
        }
    }
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
    #[inline]
    fn dequeue(&mut self, now: SimTime) -> Option<u32> {
        self.core.dequeue(now)
    }
    fn len_pkts(&self) -> u32 {
        self.core.fifo.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.core.fifo.len_bytes()
    }
}

/// Range checks for the seed-001 drop policies (`rda`, `rda_fp`, `rda_vp`, `sda`, `isda`), used
/// by scenario validation: `Err((field, expectation))` for the first bad field, `Ok` for any
/// other discipline.
pub fn check_drop_policy(q: &super::QueueConfig) -> Result<(), (&'static str, &'static str)> {
    use super::QueueConfig as Q;
    fn prob(x: f64, f: &'static str) -> Result<(), (&'static str, &'static str)> {
        if (0.0..=1.0).contains(&x) { Ok(()) } else { Err((f, "expected a probability in [0, 1]")) }
    }
    fn weight(x: f64, f: &'static str) -> Result<(), (&'static str, &'static str)> {
        if x > 0.0 && x <= 1.0 { Ok(()) } else { Err((f, "expected a weight in (0, 1]")) }
    }
    fn band(min: f64, max: f64) -> Result<(), (&'static str, &'static str)> {
        if min < 0.0 {
            Err(("min_que_pkts", "expected a non-negative number of packets"))
        } else if max <= min {
            Err(("max_que_pkts", "expected more than min_que_pkts"))
        } else {
            Ok(())
        }
    }
    fn limit(l: &BufferLimit) -> Result<(), (&'static str, &'static str)> {
        if l.limit_pkts == Some(0) { Err(("limit_pkts", "expected at least 1 packet")) } else { Ok(()) }
    }
    fn positive(ok: bool, f: &'static str) -> Result<(), (&'static str, &'static str)> {
        if ok { Ok(()) } else { Err((f, "expected a positive value")) }
    }
    match q {
        Q::Rda(c) => {
            positive(c.threshold_pkts > 0, "threshold_pkts")?;
            limit(&c.limit)
        }
        Q::RdaFp(c) => {
            band(c.min_que_pkts, c.max_que_pkts)?;
            prob(c.pa, "pa")?;
            weight(c.weight, "weight")?;
            positive(c.mean_pkt_bytes > 0, "mean_pkt_bytes")?;
            limit(&c.limit)
        }
        Q::RdaVp(c) => {
            band(c.min_que_pkts, c.max_que_pkts)?;
            if let Some(p) = c.max_p {
                prob(p, "max_p")?;
            }
            positive(c.target_rtt.0 > 0, "target_rtt")?;
            positive(c.bw_pps.is_none_or(|b| b > 0.0), "bw_pps")?;
            weight(c.weight, "weight")?;
            positive(c.mean_pkt_bytes > 0, "mean_pkt_bytes")?;
            limit(&c.limit)
        }
        Q::Sda(c) => {
            band(c.min_que_pkts, c.max_que_pkts)?;
            positive(c.window.0 > 0, "window")?;
            positive(c.fair_share_bps.is_none_or(|b| b > 0.0), "fair_share_bps")?;
            weight(c.weight, "weight")?;
            positive(c.mean_pkt_bytes > 0, "mean_pkt_bytes")?;
            limit(&c.limit)
        }
        Q::Isda(c) => {
            band(c.min_que_pkts, c.max_que_pkts)?;
            positive(c.window.0 > 0, "window")?;
            weight(c.alpha_sta, "alpha_sta")?;
            weight(c.alpha_lta, "alpha_lta")?;
            positive(c.burst_ratio > 0.0, "burst_ratio")?;
            positive(c.fair_share_bps.is_none_or(|b| b > 0.0), "fair_share_bps")?;
            if let Some(p) = c.max_p {
                prob(p, "max_p")?;
            }
            positive(c.target_rtt.0 > 0, "target_rtt")?;
            positive(c.bw_pps.is_none_or(|b| b > 0.0), "bw_pps")?;
            weight(c.weight, "weight")?;
            positive(c.mean_pkt_bytes > 0, "mean_pkt_bytes")?;
            limit(&c.limit)
        }
        _ => Ok(()),
    }
}

impl crate::registry::Validate for RdaFpConfig {
    fn validate(&self) -> Result<(), crate::registry::FieldError> {
        super::check_average(self.min_que_pkts, self.max_que_pkts, self.weight, self.mean_pkt_bytes)?;
        crate::registry::check_f64("pa", self.pa, 0.0, 1.0)?;
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

    fn cfg(weight: f64, ecn: bool) -> RdaFpConfig {
        RdaFpConfig {
            weight,
            ecn,
            pa: 0.1,
            limit: BufferLimit { limit_pkts: Some(1000), limit_bytes: None },
            ..Default::default()
        }
    }

    #[test]
    fn average_follows_the_ewma_and_decays_after_idle() {
        let mut a = QueueAverage::new(0.5, 8_000_000, 1000); // 1 ms per packet
        assert_eq!(a.on_arrival(0, 0), 0.0);
        assert_eq!(a.on_arrival(4, 0), 2.0);
        assert_eq!(a.on_arrival(4, 0), 3.0);
        a.on_empty(crate::sim::PS_PER_S);
        // 2 ms idle = 2 packet times: 3 * 0.5^2.
        let v = a.on_arrival(0, crate::sim::PS_PER_S + 2 * crate::sim::PS_PER_MS);
        assert!((v - 0.75).abs() < 1e-12);
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
    fn range_checks_name_the_bad_field() {
        use crate::queue::QueueConfig;
        let bad = |t: &str| check_drop_policy(&toml::from_str::<QueueConfig>(t).unwrap()).unwrap_err().0;
        assert_eq!(bad("kind = \"rda_fp\"\npa = 1.5"), "pa");
        assert_eq!(bad("kind = \"rda_vp\"\nmin_que_pkts = 30"), "max_que_pkts");
        assert_eq!(bad("kind = \"isda\"\nalpha_lta = 0"), "alpha_lta");
        assert_eq!(bad("kind = \"sda\"\nwindow = \"0s\""), "window");
        assert_eq!(bad("kind = \"rda\"\nthreshold_pkts = 0"), "threshold_pkts");
        assert!(check_drop_policy(&toml::from_str::<QueueConfig>("kind = \"isda\"").unwrap()).is_ok());
    }

    #[test]
    fn config_defaults_match_the_paper_and_ns2() {
        let c: RdaFpConfig = toml::from_str("limit_pkts = 50").unwrap();
        assert_eq!((c.min_que_pkts, c.max_que_pkts, c.pa, c.weight, c.ecn), (10.0, 25.0, 0.1, 0.002, false));
        assert!(toml::from_str::<RdaFpConfig>("p_a = 0.2").is_err());
    }
}
