//! The core that seed 001's drop policies share (RDA, RDA/FP, RDA/VP, SDA, ISDA; Song, Joo and
//! Chung s3): one flattened configuration ([`AqmConfig`], plus [`P0Config`] for eq. 2), the RED
//! queue average ([`QueueAverage`]), the congestion test of s3.1 ([`exceeds`]) and the
//! FIFO-with-verdicts ([`AqmCore`]).
//!
//! Every policy's config embeds `AqmConfig` with `#[serde(flatten)]`, so a scenario writes the same
//! keys (`min_que_pkts`, `max_que_pkts`, `weight`, `ecn`, `mean_pkt_bytes`, `limit_pkts`,
//! `limit_bytes`) for each of them, with the same defaults, documented once here. The structs are
//! flattened one level only, with plain fields: serde cannot refuse unknown keys through nested
//! flattening.
//!
//! What each policy's queue does besides deciding about an arrival (dequeue, the backlog) is
//! [`AqmCore`]'s, and [`delegate_to_core!`] writes those `QueueDiscipline` methods for it; each
//! policy's file keeps its own `enqueue` and its own checks on top of [`AqmConfig::validate`].

use super::{BufferLimit, DropReason, Fifo, PortInfo, Verdict};
use crate::net::packet::{Ecn, Packet};
use crate::registry::{check_f64, FieldError};
use crate::scenario::units::Duration;
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
fn default_target_rtt() -> Duration {
    Duration(100 * crate::sim::PS_PER_MS)
}

/// Fields every seed-001 drop policy shares; flattened into each policy's config.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
pub struct AqmConfig {
    /// MinQue, packets: congestion starts when QueAvg exceeds it (s3.1) and the probabilistic
    /// band begins there (Figure 1, eq. 1). Default 10 (s4.1).
    #[serde(default = "default_min_que")]
    pub min_que_pkts: f64,
    /// MaxQue, packets: every arrival is dropped once QueAvg reaches it (Figure 1). Default 25 (s4.1).
    #[serde(default = "default_max_que")]
    pub max_que_pkts: f64,
    /// Averaging weight w of QueAvg. Default 0.002 (ns-2 RED q_weight_).
    #[serde(default = "default_weight")]
    pub weight: f64,
    /// Mark ECN-capable (ECT) packets with CE instead of dropping them in the probabilistic band.
    #[serde(default)]
    pub ecn: bool,
    /// Mean packet size, bytes: ages the average over idle periods (and sets eq. 2's default BW).
    /// Default 1000.
    #[serde(default = "default_mean_pkt")]
    pub mean_pkt_bytes: u32,
    /// Largest number of waiting packets. With neither limit given the buffer holds
    /// [`super::DEFAULT_LIMIT_PKTS`] (100) packets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_pkts: Option<u32>,
    /// Largest number of waiting bytes; none means no byte limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_bytes: Option<crate::scenario::units::Bytes>,
}

impl Default for AqmConfig {
    fn default() -> Self {
        AqmConfig {
            min_que_pkts: default_min_que(),
            max_que_pkts: default_max_que(),
            weight: default_weight(),
            ecn: false,
            mean_pkt_bytes: default_mean_pkt(),
            limit_pkts: None,
            limit_bytes: None,
        }
    }
}

impl AqmConfig {
    /// The buffer limit as configured (no default filled in).
    pub fn limit(&self) -> BufferLimit {
        BufferLimit { limit_pkts: self.limit_pkts, limit_bytes: self.limit_bytes }
    }

    /// The checks every policy shares: the thresholds, the average's weight and packet size
    /// ([`super::check_average`]) and the buffer limit ([`BufferLimit::validate`]); the first bad
    /// field.
    pub fn validate(&self) -> Result<(), FieldError> {
        super::check_average(self.min_que_pkts, self.max_que_pkts, self.weight, self.mean_pkt_bytes)?;
        self.limit().validate()
    }
}

/// P0 of eq. 2 (s3.3), shared by RDA/VP and ISDA; flattened into their configs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(remote = "Self")]
pub struct P0Config {
    /// P0 given directly (RED's max_p). When absent, P0 comes from eq. 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_p: Option<f64>,
    /// R of eq. 2: the target round-trip time of the TCP connections. Default 100 ms.
    #[serde(default = "default_target_rtt")]
    pub target_rtt: Duration,
    /// BW of eq. 2, packets per second. Default: port rate / (8 * mean_pkt_bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bw_pps: Option<f64>,
}

impl Default for P0Config {
    fn default() -> Self {
        P0Config { max_p: None, target_rtt: default_target_rtt(), bw_pps: None }
    }
}

impl P0Config {
    /// P0: `max_p` if given, else eq. 2 with R in seconds and BW in packets/s (BW defaults to the
    /// port rate in packets of `mean_pkt_bytes`), clamped to [0, 1].
    pub fn p0(&self, port: PortInfo, mean_pkt_bytes: u32) -> f64 {
        if let Some(p) = self.max_p {
            return p.clamp(0.0, 1.0);
        }
        let bw = self.bw_pps.unwrap_or(port.rate_bps as f64 / (8.0 * mean_pkt_bytes.max(1) as f64));
        let r = self.target_rtt.secs();
        if r <= 0.0 || bw <= 0.0 {
            return 1.0;
        }
        // s3.3 eq. 2: P0 = 1.225 / (R * BW^0.5).
        (1.225 / (r * bw.sqrt())).clamp(0.0, 1.0)
    }

    /// Range checks; the first bad field.
    pub fn validate(&self) -> Result<(), FieldError> {
        if let Some(p) = self.max_p {
            check_f64("max_p", p, 0.0, 1.0)?;
            // Eq. 2's inputs are not read when P0 is given (a resolved scenario writes the
            // default target_rtt, which stays accepted).
            if self.bw_pps.is_some() {
                return Err(FieldError::new("bw_pps", "has no effect with max_p (P0 given directly; eq. 2 is not used): expected max_p or bw_pps, not both"));
            }
            if self.target_rtt != default_target_rtt() {
                return Err(FieldError::new("target_rtt", "has no effect with max_p (P0 given directly; eq. 2 is not used): expected max_p or target_rtt, not both"));
            }
        }
        if self.target_rtt.0 == 0 {
            return Err(FieldError::new("target_rtt", "expected a positive duration, got 0s"));
        }
        if let Some(b) = self.bw_pps.filter(|b| !(*b > 0.0 && b.is_finite())) {
            return Err(FieldError::new("bw_pps", format!("expected a positive number of packets per second, got {b}")));
        }
        Ok(())
    }
}

/// The congestion test of s3.1 ("if the queue exceeds a threshold, the node identifies itself
/// under congestion"), the one rule RDA, SDA and ISDA's RDA stage all apply: the RED average
/// QueAvg strictly above the threshold (MinQue unless RDA is given another).
#[inline]
pub fn exceeds(queue_avg_pkts: f64, threshold_pkts: f64) -> bool {
    queue_avg_pkts > threshold_pkts
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
                self.avg *= crate::sim::math::pow(1.0 - self.weight, m);
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

/// The runtime part every policy shares: a FIFO, its buffer limit, the queue average, the two
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
    /// Builds the shared part from the shared config.
    pub fn new(cfg: &AqmConfig, port: PortInfo) -> Self {
        AqmCore {
            fifo: Fifo::default(),
            limit: cfg.limit().or_default(),
            avg: QueueAverage::new(cfg.weight, port.rate_bps, cfg.mean_pkt_bytes),
            min_que: cfg.min_que_pkts,
            max_que: cfg.max_que_pkts,
            ecn: cfg.ecn,
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

    /// Packets waiting.
    #[inline]
    pub fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }

    /// Bytes waiting.
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
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
        } else if exceeds(avg, self.min_que) && rng::uniform(rng) < pa {
            Some(true)
        } else {
            None
        }
    }
}

/// Writes the `QueueDiscipline` methods a policy leaves to the [`AqmCore`] in its field `core`:
/// `dequeue` (which also starts the average's idle period) and the backlog. Used inside the
/// policy's `impl QueueDiscipline` block, after its own `enqueue`.
macro_rules! delegate_to_core {
    () => {
        #[inline]
        fn dequeue(&mut self, now: $crate::sim::SimTime) -> Option<u32> {
            self.core.dequeue(now)
        }
        fn len_pkts(&self) -> u32 {
            self.core.len_pkts()
        }
        fn len_bytes(&self) -> u64 {
            self.core.len_bytes()
        }
    };
}
pub(crate) use delegate_to_core;

// Flattened into the policies' tables: read through `flat_with_path` to keep an error's field.
impl<'de> Deserialize<'de> for AqmConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::registry::flat_with_path(d, |d| AqmConfig::deserialize(d))
    }
}

impl Serialize for AqmConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        AqmConfig::serialize(self, s)
    }
}

// Flattened into the policies' tables: read through `flat_with_path` to keep an error's field.
impl<'de> Deserialize<'de> for P0Config {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::registry::flat_with_path(d, |d| P0Config::deserialize(d))
    }
}

impl Serialize for P0Config {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        P0Config::serialize(self, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_congestion_test_is_strictly_above_the_threshold() {
        assert!(!exceeds(10.0, 10.0));
        assert!(exceeds(10.000_001, 10.0));
        assert!(!exceeds(9.0, 10.0));
    }

    #[test]
    fn shared_fields_have_one_set_of_defaults_and_checks() {
        let c: AqmConfig = toml::from_str("").unwrap();
        assert_eq!(c, AqmConfig::default());
        assert_eq!((c.min_que_pkts, c.max_que_pkts, c.weight, c.ecn, c.mean_pkt_bytes), (10.0, 25.0, 0.002, false, 1000));
        assert_eq!(c.limit().or_default().limit_pkts, Some(super::super::DEFAULT_LIMIT_PKTS));
        assert_eq!(AqmConfig { min_que_pkts: 30.0, ..c }.validate().unwrap_err().field, "max_que_pkts");
        assert_eq!(AqmConfig { weight: 0.0, ..c }.validate().unwrap_err().field, "weight");
        assert_eq!(P0Config { max_p: Some(1.5), ..Default::default() }.validate().unwrap_err().field, "max_p");
    }

    #[test]
    fn every_policy_names_its_bad_field_and_refuses_unknown_keys() {
        use crate::queue::QueueConfig;
        let bad = |t: &str| toml::from_str::<QueueConfig>(t).unwrap().validate().unwrap_err().field;
        assert_eq!(bad("kind = \"rda_fp\"\npa = 1.5"), "pa");
        assert_eq!(bad("kind = \"rda_vp\"\nmin_que_pkts = 30"), "max_que_pkts");
        assert_eq!(bad("kind = \"isda\"\nalpha_lta = 0"), "alpha_lta");
        assert_eq!(bad("kind = \"sda\"\nwindow = \"0s\""), "window");
        assert_eq!(bad("kind = \"rda\"\nthreshold_pkts = -1"), "threshold_pkts");
        assert_eq!(bad("kind = \"sda\"\necn = true"), "ecn");
        assert_eq!(bad("kind = \"isda\"\nmax_p = 2.0"), "max_p");
        assert_eq!(bad("kind = \"rda_vp\"\nbw_pps = -1"), "bw_pps");
        for kind in ["rda", "rda_fp", "rda_vp", "sda", "isda"] {
            toml::from_str::<QueueConfig>(&format!("kind = \"{kind}\"")).unwrap().validate().unwrap();
            assert_eq!(bad(&format!("kind = \"{kind}\"\nlimit_pkts = 0")), "limit_pkts");
        }
        // Shared keys are one flattened level: unknown keys are still refused, by name.
        assert!(toml::from_str::<QueueConfig>("kind = \"isda\"\nprefiltre = \"red_pd\"").is_err());
        assert!(toml::from_str::<QueueConfig>("kind = \"isda\"\nprefilter = \"drop_all\"\nlimit_pkts = 50").is_ok());
    }
}

