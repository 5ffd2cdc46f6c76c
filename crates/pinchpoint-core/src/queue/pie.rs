//! PIE, Proportional Integral controller Enhanced (RFC 8033). See `docs/algorithms/pie.md`.
//!
//! Every `t_update` the drop probability moves by
//!
//! ```text
//! p += scale(p) * (alpha (qdelay - target) + beta (qdelay - qdelay_old))     (RFC 8033 s4.2)
//! ```
//!
//! with `scale` the auto-tuning factor (1/2048 below p = 1e-6 ... 1/2 below 0.1, 1 above), the
//! step capped at 0.02 once p >= 0.1 (optional in s5.5; Linux applies it), and p decayed by 0.98 when both delay samples are zero.
//! Arrivals are dropped (or ECN-marked while p <= 10 %) with probability p once the burst
//! allowance is spent, unless the queue is short (RFC 8033 s4.1, s4.4, s5.1).
//!
//! Queue delay is measured with timestamps (RFC 8033 s4.3 allows this instead of the dequeue-rate
//! estimate; Linux's default, `dq_rate_estimator` off): `qdelay` is the sojourn time of the last packet dequeued,
//! and 0 once the queue has drained. The periodic update runs lazily: before every enqueue and
//! dequeue, all updates due since the last one are run in order. Between two events the queue
//! does not change, so this gives exactly what a timer would.

use super::codel::TimedFifo;
use crate::registry::{FieldError, Validate};
use super::{BufferLimit, DropReason, PortInfo, QueueDiscipline, QueueNew, Verdict};
use crate::net::packet::{Ecn, Packet};
use crate::scenario::units::Duration;
use crate::sim::{rng, SimRng, SimTime, PS_PER_MS, PS_PER_S};
use serde::{Deserialize, Serialize};

fn default_target() -> Duration {
    Duration(15 * PS_PER_MS)
}
fn default_t_update() -> Duration {
    Duration(15 * PS_PER_MS)
}
fn default_max_burst() -> Duration {
    Duration(150 * PS_PER_MS)
}
fn default_alpha() -> f64 {
    0.125
}
fn default_beta() -> f64 {
    1.25
}
fn default_mark_threshold() -> f64 {
    0.1
}
fn default_mean_pkt() -> u32 {
    1500
}

/// Linux `sch_pie`'s default limit, packets (RFC 8033 gives none).
const DEFAULT_LIMIT_PKTS: u32 = 1000;

/// Scenario configuration of a PIE queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieConfig {
    /// QDELAY_REF, the target queue delay. Default 15 ms (RFC 8033 s4).
    #[serde(default = "default_target")]
    pub target: Duration,
    /// T_UPDATE, the period of the probability update. Default 15 ms (RFC 8033 s4).
    #[serde(default = "default_t_update")]
    pub t_update: Duration,
    /// MAX_BURST, the burst allowance. Default 150 ms (RFC 8033 s4.4).
    #[serde(default = "default_max_burst")]
    pub max_burst: Duration,
    /// alpha, weight of the delay error, per second. Default 0.125 (RFC 8033 s4.2).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// beta, weight of the delay trend, per second. Default 1.25 (RFC 8033 s4.2).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Mark ECN-capable packets instead of dropping them while p <= `mark_threshold`
    /// (RFC 8033 s5.1).
    #[serde(default)]
    pub ecn: bool,
    /// mark_ecnth of RFC 8033 s5.1: above this probability ECT packets are dropped too.
    /// Default 0.1.
    #[serde(default = "default_mark_threshold")]
    pub mark_threshold: f64,
    /// De-randomisation (RFC 8033 s5.4): accumulate p and drop only once the sum passes 0.85,
    /// always at 8.5. Default false (Linux has none).
    #[serde(default)]
    pub derandomize: bool,
    /// MEAN_PKTSIZE of RFC 8033 s4.1: no early drops while at most 2 of these wait, bytes.
    /// Default 1500.
    #[serde(default = "default_mean_pkt")]
    pub mean_pkt_bytes: u32,
    /// Buffer limit (packets and/or bytes). With neither given the buffer holds 1000 packets
    /// (Linux `sch_pie`).
    #[serde(flatten)]
    pub limit: BufferLimit,
}

impl PieConfig {
    /// The buffer limit the queue runs with: as configured, or [`DEFAULT_LIMIT_PKTS`] packets
    /// when neither bound is given. The resolved scenario leaves an absent limit out, so the
    /// ns-3 translator asks for this instead of repeating the number.
    pub fn limit_in_effect(&self) -> BufferLimit {
        self.limit.or_pkts(DEFAULT_LIMIT_PKTS)
    }
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: default_target(),
            t_update: default_t_update(),
            max_burst: default_max_burst(),
            alpha: default_alpha(),
            beta: default_beta(),
            ecn: false,
            mark_threshold: default_mark_threshold(),
            derandomize: false,
            mean_pkt_bytes: default_mean_pkt(),
            limit: BufferLimit::default(),
        }
    }
}

impl Validate for PieConfig {
    /// Checks ranges; errors name the field.
    fn validate(&self) -> Result<(), FieldError> {
        let e = |f: &str, m: &str| Err(FieldError::new(f, m));
        if self.target.0 == 0 {
            return e("target", "expected a positive duration");
        }
        if self.t_update.0 == 0 {
            return e("t_update", "expected a positive duration");
        }
        if !(self.alpha.is_finite() && self.alpha >= 0.0) {
            return e("alpha", "expected a non-negative gain (per second)");
        }
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return e("beta", "expected a non-negative gain (per second)");
        }
        if !(0.0..=1.0).contains(&self.mark_threshold) {
            return e("mark_threshold", "expected a probability in [0, 1]");
        }
        if self.mark_threshold != default_mark_threshold() && !self.ecn {
            return e("mark_threshold", "has no effect without ecn = true");
        }
        if self.mean_pkt_bytes == 0 {
            return e("mean_pkt_bytes", "expected a positive size");
        }
        self.limit.validate()
    }
    /// RFC 8033 s4.1: an arriving packet is dropped (marked) with probability drop_prob.
    fn draws_random(&self) -> bool {
        true
    }
}

/// PIE's state variables (RFC 8033 pseudo-code).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PieState {
    /// drop_prob_.
    pub drop_prob: f64,
    /// qdelay_old_, seconds.
    pub qdelay_old_s: f64,
    /// burst_allowance_, ps.
    pub burst_allowance_ps: SimTime,
    /// accu_prob_ (de-randomisation).
    pub accu_prob: f64,
}

/// A PIE queue.
#[derive(Debug)]
pub struct Pie {
    fifo: TimedFifo,
    limit: BufferLimit,
    target_s: f64,
    t_update_ps: SimTime,
    max_burst_ps: SimTime,
    alpha: f64,
    beta: f64,
    ecn: bool,
    mark_threshold: f64,
    derandomize: bool,
    mean_pkt_bytes: u64,
    state: PieState,
    /// Current queue delay: sojourn of the last dequeued packet, 0 once drained, seconds.
    qdelay_s: f64,
    /// When the next probability update is due.
    next_update: SimTime,
}

impl QueueNew for Pie {
    type Config = PieConfig;
    /// Builds a PIE queue (the configuration must have passed [`PieConfig::validate`]).
    fn new(cfg: &PieConfig, _port: PortInfo) -> Self {
        let limit = cfg.limit_in_effect();
        Pie {
            fifo: TimedFifo::default(),
            limit,
            target_s: cfg.target.secs(),
            t_update_ps: cfg.t_update.0.max(1),
            max_burst_ps: cfg.max_burst.0,
            alpha: cfg.alpha,
            beta: cfg.beta,
            ecn: cfg.ecn,
            mark_threshold: cfg.mark_threshold,
            derandomize: cfg.derandomize,
            mean_pkt_bytes: cfg.mean_pkt_bytes as u64,
            state: PieState { burst_allowance_ps: cfg.max_burst.0, ..Default::default() },
            qdelay_s: 0.0,
            next_update: cfg.t_update.0.max(1),
        }
    }
}

impl Pie {
    /// The controller state (for inspection and tests).
    pub fn state(&self) -> &PieState {
        &self.state
    }

    /// RFC 8033 s4.2 and s4.4: one periodic update of the drop probability and burst allowance.
    pub fn on_update(&mut self) {
        let s = &mut self.state;
        let qdelay = self.qdelay_s;
        let mut p = self.alpha * (qdelay - self.target_s) + self.beta * (qdelay - s.qdelay_old_s);
        // s4.2 auto-tuning: small probabilities move in small steps.
        p /= if s.drop_prob < 0.000001 {
            2048.0
        } else if s.drop_prob < 0.00001 {
            512.0
        } else if s.drop_prob < 0.0001 {
            128.0
        } else if s.drop_prob < 0.001 {
            32.0
        } else if s.drop_prob < 0.01 {
            8.0
        } else if s.drop_prob < 0.1 {
            2.0
        } else {
            1.0
        };
        // s5.5 (optional, Linux applies it): no step above 2 % once p is at 10 % or more.
        if s.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        s.drop_prob += p;
        // s4.2: decay exponentially when the queue stays empty.
        if qdelay == 0.0 && s.qdelay_old_s == 0.0 {
            s.drop_prob *= 0.98;
        }
        s.drop_prob = s.drop_prob.clamp(0.0, 1.0);
        // s4.4: spend the burst allowance; refill it once congestion is gone.
        s.burst_allowance_ps = s.burst_allowance_ps.saturating_sub(self.t_update_ps);
        if s.drop_prob == 0.0 && qdelay < self.target_s / 2.0 && s.qdelay_old_s < self.target_s / 2.0 {
            s.burst_allowance_ps = self.max_burst_ps;
        }
        s.qdelay_old_s = qdelay;
    }

    /// Runs every update due by `now`.
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            let s = &self.state;
            if s.drop_prob == 0.0 && self.qdelay_s == 0.0 && s.qdelay_old_s == 0.0 && s.burst_allowance_ps == self.max_burst_ps {
                // A fixed point of `on_update`: skip the remaining updates of an idle period.
                let missed = (now - self.next_update) / self.t_update_ps + 1;
                self.next_update += missed * self.t_update_ps;
                break;
            }
            self.on_update();
            self.next_update += self.t_update_ps;
        }
    }

    /// RFC 8033 s4.1 and s5.4 `drop_early`: true to drop (or mark) the arrival.
    fn drop_early(&mut self, rng: &mut SimRng) -> bool {
        let s = &mut self.state;
        // s4.1: never drop while the queue is short or latency is low and p moderate.
        if (s.qdelay_old_s < self.target_s / 2.0 && s.drop_prob < 0.2) || self.fifo.len_bytes() <= 2 * self.mean_pkt_bytes {
            return false;
        }
        if self.derandomize {
            if s.drop_prob == 0.0 {
                s.accu_prob = 0.0;
            }
            s.accu_prob += s.drop_prob;
            if s.accu_prob < 0.85 {
                return false;
            }
            if s.accu_prob >= 8.5 {
                s.accu_prob = 0.0;
                return true;
            }
        }
        if rng::uniform(rng) < s.drop_prob {
            s.accu_prob = 0.0;
            return true;
        }
        false
    }
}

impl QueueDiscipline for Pie {
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        self.catch_up(now);
        if !self.limit.fits(self.fifo.len_pkts(), self.fifo.len_bytes(), pkt.size_bytes) {
            self.state.accu_prob = 0.0;
            return Verdict::Dropped(DropReason::Overflow);
        }
        let mut verdict = Verdict::Queued;
        if self.state.burst_allowance_ps == 0 && self.drop_early(rng) {
            if self.ecn && pkt.ecn != Ecn::NotEct && self.state.drop_prob <= self.mark_threshold {
                // RFC 8033 s5.1: mark instead of dropping while p is small.
                if pkt.ecn != Ecn::Ce {
                    verdict = Verdict::Marked;
                }
                pkt.ecn = Ecn::Ce;
            } else {
                return Verdict::Dropped(DropReason::Early);
            }
        }
        self.fifo.push(id, pkt, now);
        verdict
    }
    fn dequeue(&mut self, now: SimTime) -> Option<u32> {
        self.catch_up(now);
        let e = self.fifo.pop()?;
        self.qdelay_s = if self.fifo.is_empty() { 0.0 } else { now.saturating_sub(e.enqueued_at) as f64 / PS_PER_S as f64 };
        Some(e.id)
    }
    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    const MS: SimTime = PS_PER_MS;

    fn pie(cfg: PieConfig) -> Pie {
        Pie::new(&cfg, PortInfo { rate_bps: 10_000_000, delay_ps: 0 })
    }

    #[test]
    fn update_applies_the_pi_step_scaled_for_small_probabilities() {
        let mut q = pie(PieConfig::default());
        q.qdelay_s = 0.035;
        q.state.qdelay_old_s = 0.025;
        // p = 0: step = (0.125 * 0.020 + 1.25 * 0.010) / 2048.
        q.on_update();
        let step = (0.125 * 0.020 + 1.25 * 0.010) / 2048.0;
        assert!((q.state().drop_prob - step).abs() < 1e-15);
        assert_eq!(q.state().qdelay_old_s, 0.035);
        // From p = 0.05 the divisor is 2.
        q.state.drop_prob = 0.05;
        q.state.qdelay_old_s = 0.025;
        q.on_update();
        assert!((q.state().drop_prob - (0.05 + (0.0025 + 0.0125) / 2.0)).abs() < 1e-15);
    }

    #[test]
    fn step_is_capped_at_two_percent_above_ten_percent() {
        let mut q = pie(PieConfig::default());
        q.state.drop_prob = 0.3;
        q.qdelay_s = 0.200;
        q.state.qdelay_old_s = 0.100;
        q.on_update();
        assert!((q.state().drop_prob - 0.32).abs() < 1e-15);
    }

    #[test]
    fn probability_decays_by_two_percent_while_the_queue_is_empty() {
        let mut q = pie(PieConfig::default());
        q.state.drop_prob = 0.5;
        q.on_update();
        // Step: 0.125 * (0 - 0.015) = -0.001875 (scale 1), then * 0.98.
        assert!((q.state().drop_prob - (0.5 - 0.001875) * 0.98).abs() < 1e-15);
    }

    #[test]
    fn burst_allowance_runs_down_by_t_update_and_refills_when_calm() {
        let mut q = pie(PieConfig::default());
        q.qdelay_s = 0.050;
        q.state.qdelay_old_s = 0.050;
        q.on_update();
        assert_eq!(q.state().burst_allowance_ps, 135 * MS);
        q.qdelay_s = 0.0;
        q.state.qdelay_old_s = 0.0;
        q.state.drop_prob = 0.0;
        q.on_update();
        assert_eq!(q.state().burst_allowance_ps, 150 * MS);
    }

    #[test]
    fn updates_run_every_t_update_between_events() {
        let mut q = pie(PieConfig::default());
        let mut rng = stream(0, "t");
        for i in 0..5 {
            q.enqueue(i, &mut Packet { size_bytes: 1500, ..Default::default() }, 0, &mut rng);
        }
        // The first dequeue at 40 ms runs the updates due at 15 and 30 ms with qdelay 0.
        q.dequeue(40 * MS);
        assert_eq!(q.next_update, 45 * MS);
        assert_eq!(q.qdelay_s, 0.040);
        // The update at 45 ms sees qdelay 40 ms against qdelay_old 0: p = (0.125*0.025 + 1.25*0.04)/2048.
        q.dequeue(46 * MS);
        assert!((q.state().drop_prob - (0.125 * 0.025 + 1.25 * 0.040) / 2048.0).abs() < 1e-15);
        assert_eq!(q.state().burst_allowance_ps, 150 * MS - 15 * MS);
    }

    #[test]
    fn no_early_drop_during_the_burst_allowance_or_with_a_short_queue() {
        let mut q = pie(PieConfig::default());
        let mut rng = stream(0, "t");
        q.state.drop_prob = 1.0;
        q.state.qdelay_old_s = 1.0;
        q.next_update = u64::MAX;
        for i in 0..5 {
            // Burst allowance not spent: all queued.
            assert_eq!(q.enqueue(i, &mut Packet { size_bytes: 1500, ..Default::default() }, 0, &mut rng), Verdict::Queued);
        }
        q.state.burst_allowance_ps = 0;
        assert_eq!(q.enqueue(9, &mut Packet { size_bytes: 1500, ..Default::default() }, 0, &mut rng), Verdict::Dropped(DropReason::Early));
        // Two mean packets or fewer queued: no early drop.
        let mut q = pie(PieConfig::default());
        q.state = PieState { drop_prob: 1.0, qdelay_old_s: 1.0, burst_allowance_ps: 0, accu_prob: 0.0 };
        q.next_update = u64::MAX;
        for i in 0..3 {
            assert_eq!(q.enqueue(i, &mut Packet { size_bytes: 1500, ..Default::default() }, 0, &mut rng), Verdict::Queued);
        }
        assert_eq!(q.enqueue(3, &mut Packet { size_bytes: 1500, ..Default::default() }, 0, &mut rng), Verdict::Dropped(DropReason::Early));
    }

    #[test]
    fn ecn_marks_below_the_threshold_and_drops_above() {
        let mut q = pie(PieConfig { ecn: true, ..Default::default() });
        let mut rng = stream(0, "t");
        q.next_update = u64::MAX;
        for i in 0..4 {
            q.fifo.push(i, &Packet { size_bytes: 1500, ..Default::default() }, 0);
        }
        q.state = PieState { drop_prob: 0.1, qdelay_old_s: 1.0, burst_allowance_ps: 0, accu_prob: 0.0 };
        q.derandomize = true;
        q.state.accu_prob = 8.45; // the next sum passes 8.5: a certain drop, marked at p = 0.1
        let mut p = Packet { size_bytes: 1500, ecn: Ecn::Ect, ..Default::default() };
        assert_eq!(q.enqueue(10, &mut p, 0, &mut rng), Verdict::Marked);
        assert_eq!(p.ecn, Ecn::Ce);
        q.state.drop_prob = 0.11;
        q.state.accu_prob = 8.45;
        let mut p = Packet { size_bytes: 1500, ecn: Ecn::Ect, ..Default::default() };
        assert_eq!(q.enqueue(11, &mut p, 0, &mut rng), Verdict::Dropped(DropReason::Early));
    }

    #[test]
    fn derandomisation_never_drops_before_the_sum_reaches_085() {
        let mut q = pie(PieConfig { derandomize: true, ..Default::default() });
        let mut rng = stream(0, "t");
        q.next_update = u64::MAX;
        for i in 0..4 {
            q.fifo.push(i, &Packet { size_bytes: 1500, ..Default::default() }, 0);
        }
        q.state = PieState { drop_prob: 0.25, qdelay_old_s: 1.0, burst_allowance_ps: 0, accu_prob: 0.0 };
        // 0.25, 0.5, 0.75: below 0.85, never dropped.
        for i in 0..3 {
            assert_eq!(q.enqueue(10 + i, &mut Packet { size_bytes: 1500, ..Default::default() }, 0, &mut rng), Verdict::Queued);
        }
        assert!((q.state().accu_prob - 0.75).abs() < 1e-15);
    }

    #[test]
    fn delay_is_the_sojourn_of_the_last_dequeued_packet_and_zero_when_drained() {
        let mut q = pie(PieConfig::default());
        let mut rng = stream(0, "t");
        q.enqueue(0, &mut Packet { size_bytes: 1500, ..Default::default() }, 0, &mut rng);
        q.enqueue(1, &mut Packet { size_bytes: 1500, ..Default::default() }, 2 * MS, &mut rng);
        q.dequeue(7 * MS);
        assert_eq!(q.qdelay_s, 0.007);
        q.dequeue(8 * MS);
        assert_eq!(q.qdelay_s, 0.0);
    }

    #[test]
    fn validation_names_the_offending_field() {
        let bad = |s: &str| toml::from_str::<PieConfig>(s).unwrap().validate().unwrap_err().field;
        assert_eq!(bad("t_update = \"0s\""), "t_update");
        assert_eq!(bad("alpha = -1"), "alpha");
        assert_eq!(bad("mark_threshold = 0.2"), "mark_threshold");
        assert_eq!(bad("ecn = true\nmark_threshold = 2"), "mark_threshold");
        assert_eq!(bad("limit_pkts = 0"), "limit_pkts");
        toml::from_str::<PieConfig>("").unwrap().validate().unwrap();
    }
}
