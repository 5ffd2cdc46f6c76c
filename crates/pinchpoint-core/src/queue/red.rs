//! RED, Random Early Detection (S. Floyd and V. Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), 1993), with the refinements and defaults of ns-2's
//! `Queue/RED` as of 2001 (`queue/red.cc`, `tcl/lib/ns-default.tcl`). See `docs/algorithms/red.md`.
//!
//! On every arrival:
//!
//! ```text
//! avg <- (1 - w_q)^m avg                         idle correction (1993 s4), m = floor(idle / s)
//! avg <- (1 - w_q) avg + w_q q                   EWMA of the queue the arrival finds (1993 s4)
//! count <- count + 1
//! if avg >= min_th and q > 1:
//!     if avg >= max_th (2 max_th when gentle):  drop (forced)
//!     elif avg just crossed min_th:             count <- 1           (ns-2 `old_`)
//!     else with probability p_a:                drop, or mark if ECT and `ecn`; count <- 0
//! p_b = max_p (avg - min_th) / (max_th - min_th)                 (1993 s4)
//! p_b = max_p + (1 - max_p) (avg - max_th) / max_th  for max_th <= avg < 2 max_th (gentle)
//! p_a = p_b / (1 - count p_b)                                     (1993 s4, `wait = false`)
//! p_a = 0 if count p_b < 1, p_b / (2 - count p_b) if < 2, else 1  (ns-2 `wait_`, the default)
//! byte mode: p_a <- p_a size / mean_pkt_bytes                     (1993 s4, ns-2 `bytes_`)
//! ```

use super::{BufferLimit, DropReason, PortInfo, QueueDiscipline, QueueNew, Verdict};
use crate::net::packet::{Ecn, Packet};
use crate::registry::{FieldError, Validate};
use crate::scenario::units::Bytes;
use crate::sim::{rng, SimRng, SimTime, PS_PER_S};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

fn default_w_q() -> f64 {
    0.002
}
fn default_max_p() -> f64 {
    0.1
}
fn default_true() -> bool {
    true
}
fn default_mean_pkt() -> u32 {
    500
}

/// ns-2 `thresh_` before 12/29/01, packets.
const DEFAULT_MIN_TH_PKTS: f64 = 5.0;
/// ns-2 `maxthresh_` before 12/29/01, packets.
const DEFAULT_MAX_TH_PKTS: f64 = 15.0;

/// Scenario configuration of a RED queue. Give the thresholds one way: in packets
/// (`min_th_pkts`/`max_th_pkts`, the default 5/15), in bytes (`min_th_bytes`/`max_th_bytes`: the
/// average then counts bytes, ns-2's `queue_in_bytes_`), or as fractions of the buffer limit
/// (`min_th_fraction`/`max_th_fraction`: of `limit_pkts` if given, else of `limit_bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Minimum threshold of the average queue, packets. Default 5 (ns-2 2001 `thresh_`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th_pkts: Option<f64>,
    /// Maximum threshold of the average queue, packets. Default 15 (ns-2 2001 `maxthresh_`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th_pkts: Option<f64>,
    /// Minimum threshold in bytes; the average then measures bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th_bytes: Option<Bytes>,
    /// Maximum threshold in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th_bytes: Option<Bytes>,
    /// Minimum threshold as a fraction of the buffer limit, in [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th_fraction: Option<f64>,
    /// Maximum threshold as a fraction of the buffer limit, in (0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th_fraction: Option<f64>,
    /// Weight w_q of the newest sample in the average. Default 0.002 (ns-2 `q_weight_`).
    #[serde(default = "default_w_q")]
    pub w_q: f64,
    /// Drop probability reached at max_th. Default 0.1 (ns-2 `linterm_ 10`).
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    /// Gentle RED: between max_th and 2 max_th the probability rises from max_p to 1 instead of
    /// jumping to 1. Default true (ns-2 `gentle_`, default since April 2001).
    #[serde(default = "default_true")]
    pub gentle: bool,
    /// Spread early drops evenly between 1/p_b and 2/p_b arrivals instead of 1 and 1/p_b.
    /// Default true (ns-2 `wait_`).
    #[serde(default = "default_true")]
    pub wait: bool,
    /// Byte mode: scale the probability by size / `mean_pkt_bytes` so large packets are more
    /// likely dropped (1993 s4; ns-2 `bytes_`). Default false (ns-2 in 2001).
    #[serde(default)]
    pub byte_mode: bool,
    /// Mark ECN-capable packets with CE instead of dropping them early (RFC 3168 s7; ns-2
    /// `setbit_`). Default false.
    #[serde(default)]
    pub ecn: bool,
    /// Typical packet size, bytes: sets the idle-time correction (m packets of this size could
    /// have been sent) and byte mode's scale. Default 500 (ns-2 `mean_pktsize_`).
    #[serde(default = "default_mean_pkt")]
    pub mean_pkt_bytes: u32,
    /// Buffer limit (packets and/or bytes). With neither given the buffer holds 100 packets.
    #[serde(flatten)]
    pub limit: BufferLimit,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            min_th_pkts: None,
            max_th_pkts: None,
            min_th_bytes: None,
            max_th_bytes: None,
            min_th_fraction: None,
            max_th_fraction: None,
            w_q: default_w_q(),
            max_p: default_max_p(),
            gentle: true,
            wait: true,
            byte_mode: false,
            ecn: false,
            mean_pkt_bytes: default_mean_pkt(),
            limit: BufferLimit::default(),
        }
    }
}

/// Where the thresholds sit, in the unit the average measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// min_th.
    pub min: f64,
    /// max_th.
    pub max: f64,
    /// The queue is measured in bytes (else packets).
    pub in_bytes: bool,
}

impl Validate for RedConfig {
    /// Checks ranges and that the thresholds are given one way; errors name the field.
    fn validate(&self) -> Result<(), FieldError> {
        let e = |f: &str, m: &str| Err(FieldError::new(f, m));
        let pk = (self.min_th_pkts, self.max_th_pkts);
        let by = (self.min_th_bytes, self.max_th_bytes);
        let fr = (self.min_th_fraction, self.max_th_fraction);
        let given = [pk.0.is_some() || pk.1.is_some(), by.0.is_some() || by.1.is_some(), fr.0.is_some() || fr.1.is_some()];
        if given.iter().filter(|g| **g).count() > 1 {
            return e("min_th_pkts", "give the thresholds one way: *_pkts, *_bytes or *_fraction, not several");
        }
        if given[1] {
            let (Some(lo), Some(hi)) = by else {
                return e(if by.0.is_none() { "min_th_bytes" } else { "max_th_bytes" }, "expected both min_th_bytes and max_th_bytes");
            };
            if hi.0 <= lo.0 {
                return e("max_th_bytes", "expected more than min_th_bytes");
            }
        }
        if given[2] {
            let (Some(lo), Some(hi)) = fr else {
                return e(if fr.0.is_none() { "min_th_fraction" } else { "max_th_fraction" }, "expected both min_th_fraction and max_th_fraction");
            };
            if !(0.0..1.0).contains(&lo) {
                return e("min_th_fraction", "expected a fraction of the buffer in [0, 1)");
            }
            if !(hi > lo && hi <= 1.0) {
                return e("max_th_fraction", "expected a fraction of the buffer above min_th_fraction and at most 1");
            }
        }
        let lo = pk.0.unwrap_or(DEFAULT_MIN_TH_PKTS);
        let hi = pk.1.unwrap_or(DEFAULT_MAX_TH_PKTS);
        if !(lo >= 0.0 && lo.is_finite()) {
            return e("min_th_pkts", "expected a non-negative number of packets");
        }
        if !(hi > lo && hi.is_finite()) {
            return e("max_th_pkts", "expected more than min_th_pkts");
        }
        let w = self.w_q;
        if !(w > 0.0 && w <= 1.0) {
            return e("w_q", "expected a weight in (0, 1]");
        }
        let p = self.max_p;
        if !(p > 0.0 && p <= 1.0) {
            return e("max_p", "expected a probability in (0, 1]");
        }
        if self.mean_pkt_bytes == 0 {
            return e("mean_pkt_bytes", "expected a positive size");
        }
        self.limit.validate()?;
        // The queue never holds more than its packet limit, so an average at or above that
        // limit cannot exceed min_th: at min_th itself p_b is 0, so RED would never drop or mark.
        // Only a min_th_pkts given is refused: with the default thresholds (5 and 15 packets) a
        // small buffer is the setting chosen, and RED then behaves as drop-tail.
        if let (Some(min), Some(n)) = (self.min_th_pkts, self.limit.or_default().limit_pkts) {
            if min >= n as f64 {
                return Err(FieldError::new("min_th_pkts", format!("{min} packets is at or above the packet limit ({n}): the average queue can never pass it, so RED would never act; expected min_th_pkts below limit_pkts")));
            }
        }
        // The same in bytes: an average in bytes cannot pass a byte limit either.
        if let (Some(min), Some(n)) = (self.min_th_bytes, self.limit.or_default().limit_bytes) {
            if min.0 >= n.0 {
                return Err(FieldError::new("min_th_bytes", format!("{} bytes is at or above the byte limit ({} bytes): the average queue can never pass it, so RED would never act; expected min_th_bytes below limit_bytes", min.0, n.0)));
            }
        }
        Ok(())
    }
    /// Floyd and Jacobson 1993 s4: an arriving packet is dropped (marked) with probability p_a.
    fn draws_random(&self) -> bool {
        true
    }
}

impl RedConfig {

    /// The thresholds in the unit the average measures, after defaults and fractions.
    pub fn thresholds(&self) -> Thresholds {
        let limit = self.limit.or_default();
        if let (Some(lo), Some(hi)) = (self.min_th_bytes, self.max_th_bytes) {
            return Thresholds { min: lo.0 as f64, max: hi.0 as f64, in_bytes: true };
        }
        if let (Some(lo), Some(hi)) = (self.min_th_fraction, self.max_th_fraction) {
            return match (limit.limit_pkts, limit.limit_bytes) {
                (Some(n), _) => Thresholds { min: lo * n as f64, max: hi * n as f64, in_bytes: false },
                (None, Some(b)) => Thresholds { min: lo * b.0 as f64, max: hi * b.0 as f64, in_bytes: true },
                (None, None) => unreachable!("or_default sets a packet limit"),
            };
        }
        Thresholds {
            min: self.min_th_pkts.unwrap_or(DEFAULT_MIN_TH_PKTS),
            max: self.max_th_pkts.unwrap_or(DEFAULT_MAX_TH_PKTS),
            in_bytes: false,
        }
    }
}

/// Floyd and Jacobson's p_b with ns-2's gentle extension, capped at 1 (ns-2 `calculate_p_new`).
#[inline]
pub fn base_probability(avg: f64, th: Thresholds, max_p: f64, gentle: bool) -> f64 {
    let p = if avg >= th.max {
        if gentle {
            // Gentle: from max_p at max_th to 1 at 2 max_th.
            max_p + (1.0 - max_p) * (avg - th.max) / th.max
        } else {
            1.0
        }
    } else {
        max_p * (avg - th.min) / (th.max - th.min)
    };
    p.min(1.0)
}

/// p_a from p_b: uniform instead of geometric gaps between early drops (1993 s4; ns-2
/// `modify_p`). `count` is the arrivals since the last early drop (in byte mode, bytes /
/// `mean_pkt_bytes`, rounded down).
#[inline]
pub fn uniformised_probability(p_b: f64, count: f64, wait: bool) -> f64 {
    let cp = count * p_b;
    let p = if wait {
        if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            p_b / (2.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        p_b / (1.0 - cp)
    } else {
        1.0
    };
    p.min(1.0)
}

/// A RED queue.
#[derive(Debug)]
pub struct Red {
    items: VecDeque<(u32, u32)>,
    bytes: u64,
    limit: BufferLimit,
    th: Thresholds,
    w_q: f64,
    max_p: f64,
    gentle: bool,
    wait: bool,
    byte_mode: bool,
    ecn: bool,
    mean_pkt_bytes: f64,
    rate_bps: f64,
    /// Average queue, packets or bytes (ns-2 `ave_`).
    avg: f64,
    /// Arrivals since the last early drop or mark (ns-2 `count`).
    count: u64,
    /// Bytes since the last early drop or mark (ns-2 `count_bytes`).
    count_bytes: u64,
    /// The average was already above min_th at the previous arrival (ns-2 `old_`).
    above_min: bool,
    /// The link has nothing to send since `idle_since` (ns-2 `idle_`, `idletime_`).
    idle: bool,
    idle_since: SimTime,
    /// p_b and p_a of the last decision (for inspection and tests).
    last_p_b: f64,
    last_p_a: f64,
}

impl QueueNew for Red {
    type Config = RedConfig;
    /// Builds a RED queue (the configuration must have passed [`RedConfig::validate`]).
    fn new(cfg: &RedConfig, port: PortInfo) -> Self {
        Red {
            items: VecDeque::new(),
            bytes: 0,
            limit: cfg.limit.or_default(),
            th: cfg.thresholds(),
            w_q: cfg.w_q,
            max_p: cfg.max_p,
            gentle: cfg.gentle,
            wait: cfg.wait,
            byte_mode: cfg.byte_mode,
            ecn: cfg.ecn,
            mean_pkt_bytes: cfg.mean_pkt_bytes.max(1) as f64,
            rate_bps: port.rate_bps.max(1) as f64,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            above_min: false,
            // ns-2 `reset`: the queue starts idle at time 0.
            idle: true,
            idle_since: 0,
            last_p_b: 0.0,
            last_p_a: 0.0,
        }
    }
}

impl Red {
    /// The average queue (packets, or bytes when the thresholds are in bytes).
    pub fn avg(&self) -> f64 {
        self.avg
    }
    /// The thresholds in use.
    pub fn thresholds(&self) -> Thresholds {
        self.th
    }
    /// p_b and p_a computed for the last arrival that reached the probabilistic test.
    pub fn last_probabilities(&self) -> (f64, f64) {
        (self.last_p_b, self.last_p_a)
    }
    /// Arrivals counted since the last early drop or mark.
    pub fn count(&self) -> u64 {
        self.count
    }

    fn measured_len(&self) -> f64 {
        if self.th.in_bytes { self.bytes as f64 } else { self.items.len() as f64 }
    }

    /// Folds the arrival at `now` into the average (1993 s4; ns-2 `enque`/`estimator`).
    fn update_average(&mut self, now: SimTime) {
        let mut m = 0.0;
        if self.idle {
            self.idle = false;
            // m packets of the typical size could have been sent while the link was idle.
            let idle_s = now.saturating_sub(self.idle_since) as f64 / PS_PER_S as f64;
            m = (idle_s * self.rate_bps / (8.0 * self.mean_pkt_bytes)).floor();
        }
        let q = self.measured_len();
        self.avg *= crate::sim::math::pow(1.0 - self.w_q, m);
        self.avg = (1.0 - self.w_q) * self.avg + self.w_q * q;
    }

    /// The probabilistic test (1993 s4; ns-2 `drop_early`): true to drop or mark.
    fn early_test(&mut self, size_bytes: u32, rng: &mut SimRng) -> bool {
        let p_b = base_probability(self.avg, self.th, self.max_p, self.gentle);
        let count = if self.byte_mode { (self.count_bytes as f64 / self.mean_pkt_bytes).floor() } else { self.count as f64 };
        let mut p_a = uniformised_probability(p_b, count, self.wait);
        if self.byte_mode && p_a < 1.0 {
            // ns-2 scales after uniformising; the 1993 paper scales p_b before (see the doc page).
            p_a = (p_a * size_bytes as f64 / self.mean_pkt_bytes).min(1.0);
        }
        self.last_p_b = p_b;
        self.last_p_a = p_a;
        if rng::uniform(rng) < p_a {
            self.count = 0;
            self.count_bytes = 0;
            true
        } else {
            false
        }
    }
}

impl QueueDiscipline for Red {
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        self.update_average(now);
        self.count += 1;
        self.count_bytes += pkt.size_bytes as u64;
        let q = self.measured_len();
        // None: no early action; Some(true): probabilistic (may mark); Some(false): forced drop.
        let mut early = None;
        // ns-2 acts only when the instantaneous queue holds more than one packet (byte).
        if self.avg >= self.th.min && q > 1.0 {
            let forced_at = if self.gentle { 2.0 * self.th.max } else { self.th.max };
            if self.avg >= forced_at {
                early = Some(false);
            } else if !self.above_min {
                // The average just crossed min_th: start counting afresh (ns-2 `old_`).
                self.count = 1;
                self.count_bytes = pkt.size_bytes as u64;
                self.above_min = true;
            } else if self.early_test(pkt.size_bytes, rng) {
                early = Some(true);
            }
        } else {
            self.above_min = false;
        }
        if !self.limit.fits(self.items.len() as u32, self.bytes, pkt.size_bytes) {
            self.count = 0;
            self.count_bytes = 0;
            return Verdict::Dropped(DropReason::Overflow);
        }
        let verdict = match early {
            None => Verdict::Queued,
            // RFC 3168 s7: mark ECT packets in the probabilistic region (ns-2 marks there,
            // gentle region included); forced drops stay drops.
            Some(true) if self.ecn && pkt.ecn != Ecn::NotEct => {
                let fresh = pkt.ecn != Ecn::Ce;
                pkt.ecn = Ecn::Ce;
                if fresh { Verdict::Marked } else { Verdict::Queued }
            }
            Some(_) => {
                // ns-2 (not ns1_compat_): any forced drop restarts the count too.
                self.count = 0;
                self.count_bytes = 0;
                return Verdict::Dropped(DropReason::Early);
            }
        };
        self.items.push_back((id, pkt.size_bytes));
        self.bytes += pkt.size_bytes as u64;
        verdict
    }

    fn dequeue(&mut self, now: SimTime) -> Option<u32> {
        let (id, size) = self.items.pop_front()?;
        self.bytes -= size as u64;
        if self.items.is_empty() {
            // ns-2 turns idle when the link asks for a packet and finds none: when this last
            // one has been transmitted.
            self.idle = true;
            self.idle_since = now + (size as f64 * 8.0 * PS_PER_S as f64 / self.rate_bps).round() as SimTime;
        }
        Some(id)
    }
    fn len_pkts(&self) -> u32 {
        self.items.len() as u32
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;
    use crate::sim::PS_PER_MS;

    fn port() -> PortInfo {
        // 8 Mbit/s: a 500-byte packet takes 0.5 ms.
        PortInfo { rate_bps: 8_000_000, delay_ps: 0 }
    }

    fn pkt(size: u32) -> Packet {
        Packet { size_bytes: size, ..Default::default() }
    }

    #[test]
    fn defaults_are_ns2_2001() {
        let c: RedConfig = toml::from_str("").unwrap();
        c.validate().unwrap();
        let q = Red::new(&c, port());
        assert_eq!(q.thresholds(), Thresholds { min: 5.0, max: 15.0, in_bytes: false });
        assert_eq!((q.w_q, q.max_p, q.gentle, q.wait, q.byte_mode, q.ecn), (0.002, 0.1, true, true, false, false));
        assert_eq!(q.mean_pkt_bytes, 500.0);
    }

    #[test]
    fn base_probability_is_linear_then_gentle() {
        let th = Thresholds { min: 5.0, max: 15.0, in_bytes: false };
        assert_eq!(base_probability(10.0, th, 0.1, true), 0.05);
        assert!((base_probability(22.5, th, 0.1, true) - 0.55).abs() < 1e-12);
        assert_eq!(base_probability(30.0, th, 0.1, true), 1.0);
        assert_eq!(base_probability(16.0, th, 0.1, false), 1.0);
    }

    #[test]
    fn uniformisation_follows_count() {
        // 1993 s4: p_a = p_b / (1 - count p_b).
        assert!((uniformised_probability(0.05, 10.0, false) - 0.1).abs() < 1e-12);
        assert_eq!(uniformised_probability(0.05, 20.0, false), 1.0);
        // ns-2 wait_: nothing before 1/p_b arrivals, then p_b / (2 - count p_b).
        assert_eq!(uniformised_probability(0.05, 19.0, true), 0.0);
        assert!((uniformised_probability(0.05, 30.0, true) - 0.1).abs() < 1e-12);
        assert_eq!(uniformised_probability(0.05, 40.0, true), 1.0);
    }

    #[test]
    fn average_follows_the_ewma_of_the_queue_each_arrival_finds() {
        let c = RedConfig { min_th_pkts: Some(50.0), max_th_pkts: Some(90.0), ..Default::default() };
        let mut q = Red::new(&c, port());
        let mut rng = stream(0, "t");
        // Port busy (no dequeue): arrivals at t = 0 find 0, 1, 2 packets.
        for i in 0..3 {
            assert_eq!(q.enqueue(i, &mut pkt(500), 0, &mut rng), Verdict::Queued);
        }
        let w: f64 = 0.002;
        let expect = ((1.0 - w) * (w * 0.0) + w * 1.0) * (1.0 - w) + w * 2.0;
        assert!((q.avg() - expect).abs() < 1e-15, "{} vs {expect}", q.avg());
    }

    #[test]
    fn idle_time_decays_the_average_as_if_m_small_packets_had_left() {
        let c = RedConfig { w_q: 0.1, ..Default::default() };
        let mut q = Red::new(&c, port());
        q.avg = 10.0;
        q.idle = false;
        let mut rng = stream(0, "t");
        q.enqueue(0, &mut pkt(500), 0, &mut rng);
        let after_one = 0.9 * 10.0; // found 0 packets
        assert!((q.avg() - after_one).abs() < 1e-12);
        // The only packet leaves at t = 0 and takes 0.5 ms: idle from 0.5 ms.
        assert_eq!(q.dequeue(0), Some(0));
        // Arrive 10.25 ms later: m = floor(9.75 ms / 0.5 ms) = 19, then one regular step.
        q.enqueue(1, &mut pkt(500), 10 * PS_PER_MS + PS_PER_MS / 4, &mut rng);
        let expect = after_one * 0.9f64.powi(19) * 0.9;
        assert!((q.avg() - expect).abs() < 1e-12, "{} vs {expect}", q.avg());
    }

    #[test]
    fn forced_drop_above_twice_max_th_when_gentle_and_above_max_th_otherwise() {
        for (gentle, avg, forced) in [(true, 29.0, false), (true, 30.0, true), (false, 15.0, true), (false, 14.9, false)] {
            let c = RedConfig { gentle, ..Default::default() };
            let mut q = Red::new(&c, port());
            let mut rng = stream(1, "t");
            for i in 0..3 {
                q.items.push_back((i, 500));
            }
            q.idle = false;
            q.above_min = true;
            q.count = 0;
            // w_q = 0.002 and q = 3: set avg so that the update lands exactly on `avg`.
            q.avg = (avg - 0.002 * 3.0) / 0.998;
            let v = q.enqueue(9, &mut pkt(500), 0, &mut rng);
            // count = 1 after the increment: with wait_, p_a = 0 below the forced region.
            let expect = if forced { Verdict::Dropped(DropReason::Early) } else { Verdict::Queued };
            assert_eq!(v, expect, "gentle {gentle} avg {avg}");
        }
    }

    #[test]
    fn probabilistic_test_uses_count_and_resets_it() {
        let c = RedConfig { wait: false, ecn: true, ..Default::default() };
        let mut q = Red::new(&c, port());
        for i in 0..3 {
            q.items.push_back((i, 500));
        }
        q.idle = false;
        q.above_min = true;
        q.avg = (10.0 - 0.002 * 3.0) / 0.998; // lands on 10: p_b = 0.05
        q.count = 9; // becomes 10: p_a = 0.05 / (1 - 0.5) = 0.1
        let mut rng = stream(0, "red");
        let mut probe = rng.clone();
        let u = rng::uniform(&mut probe);
        let mut p = Packet { size_bytes: 500, ecn: Ecn::Ect, ..Default::default() };
        let v = q.enqueue(9, &mut p, 0, &mut rng);
        let (p_b, p_a) = q.last_probabilities();
        assert!((p_b - 0.05).abs() < 1e-9 && (p_a - 0.1).abs() < 1e-9, "{p_b} {p_a}");
        if u < p_a {
            assert_eq!((v, p.ecn, q.count()), (Verdict::Marked, Ecn::Ce, 0));
        } else {
            assert_eq!((v, p.ecn, q.count()), (Verdict::Queued, Ecn::Ect, 10));
        }
    }

    #[test]
    fn ecn_marks_ect_packets_but_drops_others_and_forced_drops_stay_drops() {
        let c = RedConfig { max_p: 1.0, wait: false, ecn: true, ..Default::default() };
        let mut q = Red::new(&c, port());
        let mut rng = stream(0, "t");
        for i in 0..3 {
            q.items.push_back((i, 500));
        }
        q.idle = false;
        q.above_min = true;
        q.count = 10; // count * p_b >= 1: p_a = 1
        q.avg = 14.0;
        let mut ect = Packet { size_bytes: 500, ecn: Ecn::Ect, ..Default::default() };
        assert_eq!(q.enqueue(10, &mut ect, 0, &mut rng), Verdict::Marked);
        assert_eq!(ect.ecn, Ecn::Ce);
        q.count = 10;
        let mut plain = pkt(500);
        assert_eq!(q.enqueue(11, &mut plain, 0, &mut rng), Verdict::Dropped(DropReason::Early));
        q.avg = 31.0;
        let mut ect = Packet { size_bytes: 500, ecn: Ecn::Ect, ..Default::default() };
        assert_eq!(q.enqueue(12, &mut ect, 0, &mut rng), Verdict::Dropped(DropReason::Early));
    }

    #[test]
    fn byte_mode_scales_by_size_over_mean() {
        let c = RedConfig { byte_mode: true, wait: false, ..Default::default() };
        let mut q = Red::new(&c, port());
        let mut rng = stream(0, "t");
        q.avg = 10.0; // p_b = 0.05
        q.count_bytes = 5000; // 10 mean packets: p_a = 0.1 before scaling
        q.early_test(1000, &mut rng);
        assert!((q.last_probabilities().1 - 0.2).abs() < 1e-12);
    }

    #[test]
    fn fractions_of_the_buffer_set_thresholds_in_its_unit() {
        let c: RedConfig = toml::from_str("min_th_fraction = 0.25\nmax_th_fraction = 0.75\nlimit_pkts = 20").unwrap();
        c.validate().unwrap();
        assert_eq!(c.thresholds(), Thresholds { min: 5.0, max: 15.0, in_bytes: false });
        let c: RedConfig = toml::from_str("min_th_fraction = 0.1\nmax_th_fraction = 0.3\nlimit_bytes = \"100KB\"").unwrap();
        assert_eq!(c.thresholds(), Thresholds { min: 10_000.0, max: 30_000.0, in_bytes: true });
    }

    #[test]
    fn validation_names_the_offending_field() {
        let bad = |s: &str| toml::from_str::<RedConfig>(s).unwrap().validate().unwrap_err().field;
        assert_eq!(bad("min_th_pkts = 10\nmax_th_pkts = 5"), "max_th_pkts");
        assert_eq!(bad("min_th_pkts = 3\nmin_th_fraction = 0.1\nmax_th_fraction = 0.2"), "min_th_pkts");
        assert_eq!(bad("min_th_bytes = 100"), "max_th_bytes");
        assert_eq!(bad("w_q = 0"), "w_q");
        assert_eq!(bad("max_p = 1.5"), "max_p");
        assert_eq!(bad("min_th_fraction = 0.5\nmax_th_fraction = 1.5"), "max_th_fraction");
        assert_eq!(bad("mean_pkt_bytes = 0"), "mean_pkt_bytes");
    }
}
