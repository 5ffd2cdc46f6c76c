//! CUBIC (RFC 9438) with HyStart++ slow start (RFC 9406), or Linux's HyStart.
//!
//! After a congestion event the window follows W_cubic(t) = C (t - K)^3 + W_max (RFC 9438
//! eq. 1): concave up to the window of the last loss W_max, flat around it, convex beyond.
//! Below the window an AIMD flow with the same average would reach (W_est, the Reno-friendly
//! region, s4.3) CUBIC grows like that flow instead. On loss the window is multiplied by
//! beta = 0.7 (s4.6), and W_max is lowered further when the flow lost below its previous
//! W_max (fast convergence, s4.7).
//!
//! Windows in the cubic arithmetic are in segments (f64), as in the RFC; the sender sees bytes.
//! Deliberate differences from Linux and ns-3 are listed in `docs/algorithms/cubic.md`.

use super::{check_range, AckSample, CcInit, CcNew, CcProblem, CcSettings, CongestionControl, TcpFacts};
use crate::sim::{SimTime, PS_PER_S};
use serde::{Deserialize, Serialize};

/// Slow-start variant of CUBIC: `"hystart++"` (RFC 9406), `"linux"` (Linux's and ns-3's HyStart:
/// ACK train and delay increase) or `false` (RFC 5681 slow start).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum HyStartSetting {
    /// `false`: standard slow start; `true` means `"hystart++"`.
    Enabled(bool),
    /// A named variant.
    Variant(HyStartVariant),
}

/// Named slow-start variants.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum HyStartVariant {
    /// RFC 9406.
    #[serde(rename = "hystart++")]
    HyStartPlusPlus,
    /// Linux's HyStart (`tcp_cubic.c`, Ha and Rhee 2008), as ns-3's `TcpCubic` implements it.
    #[serde(rename = "linux")]
    Linux,
}

// Read by hand: serde's untagged derive answers any other value with "data did not match any
// variant of untagged enum HyStartSetting", which names neither the accepted values nor the one given.
impl<'de> Deserialize<'de> for HyStartSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = HyStartSetting;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"hystart++\", \"linux\", true or false")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<HyStartSetting, E> {
                Ok(HyStartSetting::Enabled(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<HyStartSetting, E> {
                match v {
                    "hystart++" => Ok(HyStartSetting::Variant(HyStartVariant::HyStartPlusPlus)),
                    "linux" => Ok(HyStartSetting::Variant(HyStartVariant::Linux)),
                    _ => Err(E::custom(format!("expected \"hystart++\", \"linux\", true or false, got \"{v}\""))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl HyStartSetting {
    /// RFC 9406's HyStart++ (`"hystart++"`, or `true`, which has always meant it here).
    fn plus_plus(&self) -> bool {
        matches!(self, HyStartSetting::Enabled(true) | HyStartSetting::Variant(HyStartVariant::HyStartPlusPlus))
    }
    fn linux(&self) -> bool {
        matches!(self, HyStartSetting::Variant(HyStartVariant::Linux))
    }
}

/// CUBIC parameters (RFC 9438 s4.1.1 constants).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// Multiplicative decrease factor beta_cubic (RFC 9438: 0.7), in (0, 1).
    pub beta: f64,
    /// Scaling constant C of the cubic function, segments / s^3 (RFC 9438: 0.4).
    pub c: f64,
    /// Fast convergence (RFC 9438 s4.7): release bandwidth to newer flows.
    pub fast_convergence: bool,
    /// Reno-friendly region (RFC 9438 s4.3): never grow slower than AIMD with the same average.
    pub reno_friendly: bool,
    /// Slow start: `"hystart++"` (RFC 9406, default), `"linux"` (Linux's and ns-3's HyStart) or
    /// `false`. `true` means `"hystart++"`.
    pub hystart: HyStartSetting,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig { beta: 0.7, c: 0.4, fast_convergence: true, reno_friendly: true, hystart: HyStartSetting::Variant(HyStartVariant::HyStartPlusPlus) }
    }
}

impl CcSettings for CubicConfig {
    fn validate(&self, tcp: &TcpFacts) -> Result<(), CcProblem> {
        check_range("beta", self.beta, 0.0, false, 1.0, false)?;
        // Linux halves the ACK-train threshold only for an unpaced socket (SK_PACING_NONE);
        // the paced case is not modelled, so it is refused rather than run with the wrong one.
        if self.hystart.linux() && tcp.pacing {
            return Err(CcProblem::param("hystart", "\"linux\" with tcp.pacing = true is not modelled (Linux's ACK-train threshold under pacing differs): expected tcp.pacing = false, or hystart = \"hystart++\" or false"));
        }
        // Above 100 segments/s^3 the window would jump by thousands of segments within a second.
        check_range("c", self.c, 0.0, false, 100.0, true)
    }
}

// RFC 9406 s4.3 constants.
const MIN_RTT_THRESH_PS: SimTime = 4 * PS_PER_S / 1000;
const MAX_RTT_THRESH_PS: SimTime = 16 * PS_PER_S / 1000;
const MIN_RTT_DIVISOR: SimTime = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u8 = 5;
/// RFC 9406 s4.3: L, the most a single ack may grow the window in slow start, segments
/// (8 for a sender that does not pace).
const L_SEGMENTS: u64 = 8;

// Linux `tcp_cubic.c` HyStart constants (module parameters at their defaults).
/// `hystart_low_window`: HyStart runs from a window of this many segments.
const LINUX_LOW_WINDOW_SEGMENTS: u64 = 16;
/// `hystart_ack_delta_us`: ACKs at most this far apart form a train.
const LINUX_ACK_DELTA_PS: SimTime = 2 * PS_PER_S / 1000;
/// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
const LINUX_MIN_SAMPLES: u8 = 8;
/// Linux ignores delay samples for a second after a congestion-avoidance epoch starts
/// (`cubictcp_acked`: "Discard delay samples right after fast recovery").
const LINUX_EPOCH_SAMPLE_HOLDOFF_PS: SimTime = PS_PER_S;

/// Linux's HyStart (`tcp_cubic.c`: `bictcp_hystart_reset`, `hystart_update`, `cubictcp_acked`).
/// Two detectors, each setting ssthresh = cwnd, which ends slow start at once (no conservative
/// phase): the ACK train (ACKs no more than 2 ms apart spanning more than half the minimum RTT
/// since the round began: the window already fills the path) and the delay increase (the
/// round's minimum over its first 8 samples above the connection's minimum RTT by
/// clamp(minRTT / 8, 4 ms, 16 ms)).
#[derive(Clone, Debug)]
struct LinuxHyStart {
    /// A detector fired: no more HyStart until a timeout resets it.
    found: bool,
    /// Start of the current round and time of the last ACK of the current train.
    round_start: SimTime,
    last_ack: SimTime,
    /// The round ends when the cumulative ACK passes this byte (SND.NXT at its start).
    end_seq: u64,
    /// Minimum RTT of the current round's samples, and how many it has had.
    curr_rtt: SimTime,
    sample_cnt: u8,
    /// The connection's minimum RTT (`delay_min`); 0 before the first sample.
    delay_min: SimTime,
}

impl LinuxHyStart {
    fn new() -> Self {
        LinuxHyStart { found: false, round_start: 0, last_ack: 0, end_seq: 0, curr_rtt: SimTime::MAX, sample_cnt: 0, delay_min: 0 }
    }

    /// `bictcp_hystart_reset`: a new round starts now and ends at `snd_max`.
    fn reset_round(&mut self, now: SimTime, snd_max: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_max;
        self.curr_rtt = SimTime::MAX;
        self.sample_cnt = 0;
    }

    /// `cubictcp_acked` for one ACK before the window grows: the minimum RTT, then, in slow start
    /// from `hystart_low_window` segments, `hystart_update`. Returns true when a detector fires
    /// (the caller sets ssthresh = cwnd). Kept out of line: an opt-in path most flows never take.
    #[inline(never)]
    fn on_ack(&mut self, ack: &AckSample, in_slow_start: bool, cwnd_segments: u64, epoch_start: SimTime) -> bool {
        let Some(rtt) = ack.rtt_ps else { return false };
        if epoch_start != NO_EPOCH && ack.now.saturating_sub(epoch_start) < LINUX_EPOCH_SAMPLE_HOLDOFF_PS {
            return false;
        }
        let delay = rtt.max(1);
        if self.delay_min == 0 || delay < self.delay_min {
            self.delay_min = delay;
        }
        if self.found || !in_slow_start || cwnd_segments < LINUX_LOW_WINDOW_SEGMENTS {
            return false;
        }
        // hystart_update: `after(snd_una, end_seq)` starts a new round.
        if ack.snd_una > self.end_seq {
            self.reset_round(ack.now, ack.snd_max);
        }
        if ack.now - self.last_ack <= LINUX_ACK_DELTA_PS {
            self.last_ack = ack.now;
            // Unpaced: half the minimum RTT (Linux adds `hystart_ack_delay`, a GSO burst's
            // time at the pacing rate capped at 1 ms, before halving; there is no GSO here).
            if ack.now - self.round_start > self.delay_min / 2 {
                self.found = true;
            }
        }
        self.curr_rtt = self.curr_rtt.min(delay);
        if self.sample_cnt < LINUX_MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self.curr_rtt > self.delay_min + (self.delay_min / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH_PS, MAX_RTT_THRESH_PS) {
            self.found = true;
        }
        self.found
    }
}

/// Where HyStart++ is (RFC 9406 s4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlowStartPhase {
    /// Standard slow start, watching the round minimum RTT.
    SlowStart,
    /// Conservative slow start: growth / CSS_GROWTH_DIVISOR, counting rounds.
    Conservative,
    /// HyStart++ is over (after the first congestion event or exit): plain slow start.
    Off,
}

/// RFC 9406 s4.2 state: per-round minimum RTTs and the CSS baseline.
#[derive(Clone, Debug)]
struct HyStart {
    phase: SlowStartPhase,
    /// The round ends when the cumulative ack reaches this byte (SND.NXT at its start).
    window_end: u64,
    last_round_min_rtt: SimTime,
    current_round_min_rtt: SimTime,
    rtt_sample_count: u32,
    css_baseline_min_rtt: SimTime,
    css_rounds: u8,
}

impl HyStart {
    fn new(on: bool) -> Self {
        HyStart {
            phase: if on { SlowStartPhase::SlowStart } else { SlowStartPhase::Off },
            window_end: 0,
            last_round_min_rtt: SimTime::MAX,
            current_round_min_rtt: SimTime::MAX,
            rtt_sample_count: 0,
            css_baseline_min_rtt: SimTime::MAX,
            css_rounds: 0,
        }
    }

    /// Tracks rounds and RTTs for one ack; returns true when slow start should end (ssthresh =
    /// cwnd) because CSS lasted CSS_ROUNDS rounds.
    fn on_ack(&mut self, ack: &AckSample) -> bool {
        if ack.snd_una >= self.window_end {
            // RFC 9406 s4.2: a new round begins.
            self.window_end = ack.snd_max;
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = SimTime::MAX;
            self.rtt_sample_count = 0;
            if self.phase == SlowStartPhase::Conservative {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    self.phase = SlowStartPhase::Off;
                    return true;
                }
            }
        }
        let Some(rtt) = ack.rtt_ps else { return false };
        self.current_round_min_rtt = self.current_round_min_rtt.min(rtt);
        self.rtt_sample_count += 1;
        if self.rtt_sample_count < N_RTT_SAMPLE {
            return false;
        }
        match self.phase {
            SlowStartPhase::SlowStart if self.last_round_min_rtt != SimTime::MAX => {
                // RFC 9406 s4.2: RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms).
                let thresh = (self.last_round_min_rtt / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH_PS, MAX_RTT_THRESH_PS);
                if self.current_round_min_rtt >= self.last_round_min_rtt + thresh {
                    self.css_baseline_min_rtt = self.current_round_min_rtt;
                    self.phase = SlowStartPhase::Conservative;
                    self.css_rounds = 0;
                }
            }
            SlowStartPhase::Conservative if self.current_round_min_rtt < self.css_baseline_min_rtt => {
                // RFC 9406 s4.2: the delay increase was spurious; resume slow start.
                self.css_baseline_min_rtt = SimTime::MAX;
                self.phase = SlowStartPhase::SlowStart;
            }
            _ => {}
        }
        false
    }
}

/// `t_epoch` outside congestion avoidance.
const NO_EPOCH: SimTime = SimTime::MAX;

/// CUBIC.
#[derive(Clone, Debug)]
pub struct Cubic {
    beta: f64,
    /// C, segments / s^3.
    c: f64,
    fast_convergence: bool,
    reno_friendly: bool,
    /// Congestion window, bytes (fractional: the cubic increments are fractions of a segment).
    cwnd: f64,
    ssthresh: u64,
    /// Window at the last congestion event after fast convergence, segments; 0 before one.
    w_max: f64,
    /// Window just before the last reduction, segments (RFC 9438 cwnd_prior).
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance stage; NO_EPOCH until the first ack in it.
    t_epoch: SimTime,
    /// Time for W_cubic to reach W_max in this epoch, s.
    k_s: f64,
    /// Reno-friendly estimate, segments (RFC 9438 s4.3).
    w_est: f64,
    /// W_est has reached cwnd_prior in this epoch: alpha_cubic is 1 from then on (s4.3).
    alpha_is_one: bool,
    hystart: HyStart,
    /// Linux's HyStart instead of HyStart++ (`hystart = "linux"`; boxed: most flows never use it).
    linux_hystart: Option<Box<LinuxHyStart>>,
}

impl CcNew for Cubic {
    type Config = CubicConfig;
    /// Builds CUBIC (settings validated).
    fn new(cfg: &CubicConfig, init: CcInit) -> Self {
        Cubic {
            beta: cfg.beta,
            c: cfg.c,
            fast_convergence: cfg.fast_convergence,
            reno_friendly: cfg.reno_friendly,
            cwnd: init.init_cwnd_pkts as f64 * init.mss as f64,
            ssthresh: u64::MAX / 4,
            w_max: 0.0,
            cwnd_prior: 0.0,
            t_epoch: NO_EPOCH,
            k_s: 0.0,
            w_est: 0.0,
            alpha_is_one: false,
            hystart: HyStart::new(cfg.hystart.plus_plus()),
            // `cubictcp_init` resets the round; its end_seq is SND.NXT = 0 here, so the first
            // ACK that passes it starts the first measured round.
            linux_hystart: cfg.hystart.linux().then(|| Box::new(LinuxHyStart::new())),
        }
    }
}

impl Cubic {
    /// RFC 9438 s4.3: alpha_cubic = 3 (1 - beta) / (1 + beta).
    fn alpha_aimd(beta: f64) -> f64 {
        3.0 * (1.0 - beta) / (1.0 + beta)
    }

    /// Moves the epoch start `idle_ps` later, at most to `now` (Linux `cubictcp_cwnd_event`).
    fn shift_epoch(&mut self, now: SimTime, idle_ps: SimTime) {
        if self.t_epoch != NO_EPOCH && idle_ps > 0 {
            self.t_epoch = self.t_epoch.saturating_add(idle_ps).min(now);
        }
    }

    /// RFC 9438 eq. 1, segments.
    fn w_cubic(&self, t_s: f64) -> f64 {
        let d = t_s - self.k_s; // d³ as two products: `powi` leaves its rounding steps unspecified
        self.c * (d * d * d) + self.w_max
    }

    fn slow_start(&mut self, ack: &AckSample) {
        let mss = ack.mss as u64;
        let mut inc = ack.bytes_acked;
        if self.hystart.phase != SlowStartPhase::Off {
            // RFC 9406 s4.2: cwnd += min(N, L * SMSS), divided by CSS_GROWTH_DIVISOR in CSS.
            inc = inc.min(L_SEGMENTS * mss);
            if self.hystart.phase == SlowStartPhase::Conservative {
                inc /= CSS_GROWTH_DIVISOR;
            }
        } else {
            // RFC 3465 L = 2, as Reno here.
            inc = inc.min(2 * mss);
        }
        let room = (self.ssthresh as f64 - self.cwnd).max(0.0);
        self.cwnd += (inc as f64).min(room);
        if self.hystart.phase != SlowStartPhase::Off && self.hystart.on_ack(ack) {
            // RFC 9406 s4.2: CSS_ROUNDS rounds of CSS end slow start.
            self.ssthresh = self.cwnd as u64;
        }
    }

    fn congestion_avoidance(&mut self, ack: &AckSample) {
        let mss = ack.mss as f64;
        let cwnd_seg = self.cwnd / mss;
        let t_epoch = match self.t_epoch {
            NO_EPOCH => {
                // RFC 9438 s4.2: a new epoch. K from W_max and the window it starts at; with no
                // W_max yet (HyStart++ left slow start without a loss, s4.10) or a window above
                // it, K = 0 and W_max = the current window.
                self.t_epoch = ack.now;
                if self.w_max > cwnd_seg {
                    self.k_s = crate::sim::math::cbrt((self.w_max - cwnd_seg) / self.c);
                } else {
                    if self.w_max == 0.0 {
                        self.cwnd_prior = cwnd_seg;
                    }
                    self.w_max = cwnd_seg;
                    self.k_s = 0.0;
                }
                self.w_est = cwnd_seg;
                ack.now
            }
            t => t,
        };
        let segs_acked = ack.bytes_acked as f64 / mss;
        let t_s = (ack.now - t_epoch) as f64 / PS_PER_S as f64;
        let rtt_s = ack.srtt_ps as f64 / PS_PER_S as f64;
        // RFC 9438 s4.3: W_est grows by alpha_cubic per window of acknowledged segments;
        // alpha_cubic becomes 1 once W_est has reached cwnd_prior.
        let alpha = if self.alpha_is_one { 1.0 } else { Self::alpha_aimd(self.beta) };
        self.w_est += alpha * segs_acked / cwnd_seg;
        if self.w_est >= self.cwnd_prior {
            self.alpha_is_one = true;
        }
        if self.reno_friendly && self.w_cubic(t_s) < self.w_est {
            // RFC 9438 s4.3: Reno-friendly region, cwnd = W_est (never lowered by an ack).
            self.cwnd = self.cwnd.max(self.w_est * mss);
            return;
        }
        // RFC 9438 s4.4-4.5: target = W_cubic(t + RTT) clamped to [cwnd, 1.5 cwnd]; each
        // acknowledged segment adds (target - cwnd) / cwnd.
        let target = self.w_cubic(t_s + rtt_s).clamp(cwnd_seg, 1.5 * cwnd_seg);
        self.cwnd += (target - cwnd_seg) / cwnd_seg * segs_acked * mss;
    }

    /// Linux on TCP_CA_Loss (`cubictcp_state`): `bictcp_reset` clears `found` and `delay_min`,
    /// and `bictcp_hystart_reset` starts a round, so HyStart runs again in the slow start after
    /// a timeout. The round ends at SND.NXT, which a timeout's go-back-N takes back to SND.UNA:
    /// its end is left at 0 here, so the first ACK starts a fresh round.
    fn reset_linux_hystart(&mut self, now: SimTime) {
        if let Some(h) = self.linux_hystart.as_mut() {
            **h = LinuxHyStart::new();
            h.reset_round(now, 0);
        }
    }

    /// RFC 9438 s4.6-4.7: W_max (with fast convergence), cwnd_prior and ssthresh at a
    /// congestion event; the epoch ends.
    fn reduce(&mut self, in_flight: u64, mss: u32) {
        let cwnd_seg = self.cwnd / mss as f64;
        self.w_max = if self.fast_convergence && cwnd_seg < self.w_max { cwnd_seg * (1.0 + self.beta) / 2.0 } else { cwnd_seg };
        self.cwnd_prior = cwnd_seg;
        // RFC 9438 s4.6: ssthresh = flight_size * beta_cubic, at least 2 segments.
        self.ssthresh = ((in_flight as f64 * self.beta) as u64).max(2 * mss as u64);
        self.t_epoch = NO_EPOCH;
        self.alpha_is_one = false;
        // RFC 9406 s4.2: a congestion event ends HyStart++; later slow starts are standard.
        self.hystart.phase = SlowStartPhase::Off;
    }
}

impl CongestionControl for Cubic {
    fn wants_rate_samples(&self) -> bool {
        false
    }
    fn cwnd_bytes(&self) -> u64 {
        self.cwnd as u64
    }
    fn ssthresh_bytes(&self) -> u64 {
        self.ssthresh
    }
    fn on_ack(&mut self, ack: &AckSample) {
        if let Some(h) = self.linux_hystart.as_mut() {
            // Linux runs the controller's `pkts_acked` (HyStart) before `cong_avoid` grows the
            // window for the same ACK.
            let in_slow_start = (self.cwnd as u64) < self.ssthresh;
            if h.on_ack(ack, in_slow_start, self.cwnd as u64 / ack.mss as u64, self.t_epoch) && in_slow_start {
                self.ssthresh = self.cwnd as u64;
            }
        }
        if (self.cwnd as u64) < self.ssthresh {
            self.slow_start(ack);
        } else {
            self.congestion_avoidance(ack);
        }
    }
    fn on_loss(&mut self, in_flight: u64, mss: u32, _now: SimTime) {
        self.reduce(in_flight, mss);
        self.cwnd = self.ssthresh as f64;
    }
    /// Linux's CUBIC ignores CA_EVENT_CWND_RESTART and takes the restarted window as it is. The
    /// epoch shift Linux makes at the restart's first send (CA_EVENT_TX_START, below) is made
    /// here, because the restart resets the sender's idle clock.
    /// Linux's CUBIC undoes as Reno (`tcp_reno_undo_cwnd`): max(cwnd, prior cwnd), ssthresh
    /// raised to its prior value; W_max and the epoch stay as the reduction left them, so the
    /// next congestion-avoidance epoch starts from the restored window.
    fn on_undo(&mut self, u: &super::super::undo::UndoWindow) {
        self.cwnd = self.cwnd.max(u.prior_cwnd_bytes as f64);
        self.ssthresh = self.ssthresh.max(u.prior_ssthresh_bytes);
    }
    fn on_idle_restart(&mut self, r: &super::IdleRestart) {
        if r.cwnd_bytes != self.cwnd as u64 {
            self.cwnd = r.cwnd_bytes as f64;
        }
        self.ssthresh = r.ssthresh_bytes;
        self.shift_epoch(r.now, r.idle_ps);
    }
    /// RFC 9438 s5.8 and Linux (`cubictcp_cwnd_event`, CA_EVENT_TX_START): after a period with
    /// nothing in flight the epoch start moves later by the idle time, at most to now, so the
    /// cubic curve resumes where it stopped instead of having advanced through the idle period
    /// (which would let the window jump towards W_max or past it at the first ack).
    fn on_tx_start(&mut self, now: SimTime, idle_ps: SimTime) {
        self.shift_epoch(now, idle_ps);
    }
    fn wants_tx_start(&self) -> bool {
        true
    }
    fn on_timeout(&mut self, in_flight: u64, mss: u32, now: SimTime) {
        // RFC 9438 s4.8: ssthresh as on loss, cwnd as Reno after a timeout (one segment).
        self.reduce(in_flight, mss);
        self.cwnd = mss as f64;
        // RFC 9438 s4.8: the first congestion-avoidance stage after a timeout grows with
        // K = 0 and W_max = the window that stage starts at (Linux's `bictcp_reset` on
        // TCP_CA_Loss and ns-3's `CubicReset` forget W_max alike). A W_max of this one-segment
        // window gives exactly that at the next epoch, which starts at cwnd >= ssthresh >= 2
        // segments; cwnd_prior (RFC 9438 s4.3) stays the window at the timeout.
        self.w_max = 1.0;
        self.reset_linux_hystart(now);
    }
    /// A repeated timeout: Linux skips `bictcp_recalc_ssthresh` (so ssthresh is held) but still
    /// resets the state on TCP_CA_Loss (`bictcp_reset`, W_max and the epoch forgotten); so
    /// ssthresh and cwnd_prior are held, the window is one segment and the next epoch starts
    /// with K = 0 as after the first timeout. (ns-3 3.44 lowers ssthresh again, see `tcp.md`.)
    fn on_repeated_timeout(&mut self, mss: u32, now: SimTime) {
        self.cwnd = mss as f64;
        self.w_max = 1.0;
        self.t_epoch = NO_EPOCH;
        self.reset_linux_hystart(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MSS: u32 = 1000;
    const MS: SimTime = PS_PER_S / 1000;

    fn ack(now: SimTime, bytes: u64, rtt: SimTime) -> AckSample {
        AckSample { now, bytes_acked: bytes, rtt_ps: Some(rtt), srtt_ps: rtt, mss: MSS, ..Default::default() }
    }

    fn cubic(cfg: CubicConfig, init_pkts: u32) -> Cubic {
        Cubic::new(&cfg, CcInit { mss: MSS, init_cwnd_pkts: init_pkts })
    }

    fn no_hystart() -> CubicConfig {
        CubicConfig { hystart: HyStartSetting::Enabled(false), ..Default::default() }
    }

    #[test]
    fn a_loss_multiplies_by_beta_and_sets_k_from_w_max() {
        let mut c = cubic(CubicConfig { reno_friendly: false, ..no_hystart() }, 100);
        c.on_loss(100_000, MSS, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (70_000, 70_000));
        // First ack in congestion avoidance starts the epoch: K = cbrt((100 - 70) / 0.4).
        c.on_ack(&ack(10 * MS, MSS as u64, 100 * MS));
        assert!((c.k_s - 4.217_163_326_508_746).abs() < 1e-12, "K {}", c.k_s);
        // RFC 9438 s4.4: target W_cubic(0 + 0.1 s) = 0.4 (0.1 - K)^3 + 100 = 72.0839...;
        // one acknowledged segment adds (target - 70) / 70 segments.
        let target = 0.4 * (0.1f64 - 4.217_163_326_508_746).powi(3) + 100.0;
        let expect = 70_000.0 + (target - 70.0) / 70.0 * 1000.0;
        assert!((c.cwnd - expect).abs() < 1e-6, "cwnd {} expected {expect}", c.cwnd);
        assert_eq!(c.cwnd_bytes(), 70_029);
    }

    #[test]
    fn an_idle_restart_takes_the_window_and_moves_the_epoch_by_the_idle_time_up_to_now() {
        let mut c = cubic(CubicConfig { reno_friendly: false, ..no_hystart() }, 100);
        c.on_loss(100_000, MSS, 0);
        c.on_ack(&ack(10 * MS, MSS as u64, 100 * MS)); // the epoch starts at 10 ms
        let k = c.k_s;
        let r = |now, idle_ps| super::super::IdleRestart { now, idle_ps, cwnd_bytes: 35_000, ssthresh_bytes: 70_000, snd_nxt: 0 };
        // Sent last at 500 ms, idle 1 s: the epoch moves from 10 ms to 1.01 s (Linux
        // cubictcp_cwnd_event on CA_EVENT_TX_START); K and W_max stay.
        c.on_idle_restart(&r(1500 * MS, 1000 * MS));
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes(), c.t_epoch, c.k_s), (35_000, 70_000, 1010 * MS, k));
        // A shift past now stops at now.
        c.on_idle_restart(&r(2000 * MS, 5000 * MS));
        assert_eq!(c.t_epoch, 2000 * MS);
    }

    #[test]
    fn a_send_after_idle_moves_the_epoch_by_the_idle_time_and_leaves_the_window() {
        let mut c = cubic(CubicConfig { reno_friendly: false, ..no_hystart() }, 100);
        assert!(c.wants_tx_start());
        c.on_tx_start(5 * MS, 5 * MS); // no epoch yet: nothing to move
        assert_eq!(c.t_epoch, NO_EPOCH);
        c.on_loss(100_000, MSS, 0);
        c.on_ack(&ack(10 * MS, MSS as u64, 100 * MS)); // the epoch starts at 10 ms
        let (w, k) = (c.cwnd_bytes(), c.k_s);
        c.on_tx_start(1500 * MS, 1000 * MS); // last sent at 500 ms
        assert_eq!((c.t_epoch, c.cwnd_bytes(), c.k_s), (1010 * MS, w, k));
        c.on_tx_start(1600 * MS, 0); // sent back to back: nothing moves
        assert_eq!(c.t_epoch, 1010 * MS);
        c.on_tx_start(2000 * MS, 5000 * MS); // at most to now
        assert_eq!(c.t_epoch, 2000 * MS);
    }

    #[test]
    fn growth_is_concave_below_w_max_and_convex_above_it() {
        let mut c = cubic(CubicConfig { reno_friendly: false, ..no_hystart() }, 100);
        c.on_loss(100_000, MSS, 0);
        // One window of acks per 100 ms RTT for 9 s.
        let mut per_rtt = Vec::new();
        let mut now = 0;
        for _ in 0..90 {
            let before = c.cwnd;
            let segs = (c.cwnd / MSS as f64) as u64;
            for _ in 0..segs {
                c.on_ack(&ack(now, MSS as u64, 100 * MS));
            }
            per_rtt.push(c.cwnd - before);
            now += 100 * MS;
        }
        let k_rtts = (c.k_s / 0.1) as usize; // 42
        assert!(per_rtt[1] > per_rtt[20] && per_rtt[20] > per_rtt[k_rtts], "concave: {:?}", &per_rtt[..k_rtts]);
        assert!(per_rtt[k_rtts + 2] < per_rtt[k_rtts + 20] && per_rtt[k_rtts + 20] < per_rtt[88], "convex");
        // At t = K the window is W_max = 100 segments to within one RTT of growth.
        assert!((c.w_cubic(c.k_s) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn a_target_above_one_and_a_half_windows_is_clamped() {
        let mut c = cubic(CubicConfig { reno_friendly: false, ..no_hystart() }, 10);
        c.ssthresh = 10_000;
        c.w_max = 10.0;
        c.cwnd_prior = 10.0;
        c.on_ack(&ack(0, 0, 100 * MS)); // starts the epoch, K = 0
        // 20 s later W_cubic = 0.4 * 20^3 + 10 = 3210 >> 1.5 * 10: one ack adds 0.5 segment.
        c.on_ack(&ack(20 * PS_PER_S, MSS as u64, 100 * MS));
        assert!((c.cwnd - 10_500.0).abs() < 1e-9, "{}", c.cwnd);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_losing_below_it() {
        let mut c = cubic(no_hystart(), 100);
        c.on_loss(100_000, MSS, 0);
        assert_eq!(c.w_max, 100.0);
        c.cwnd = 80_000.0;
        c.on_loss(80_000, MSS, 0);
        assert!((c.w_max - 68.0).abs() < 1e-12, "80 * (1 + 0.7) / 2");
        assert_eq!(c.ssthresh_bytes(), 56_000);
        let mut slow = cubic(CubicConfig { fast_convergence: false, ..no_hystart() }, 100);
        slow.on_loss(100_000, MSS, 0);
        slow.cwnd = 80_000.0;
        slow.on_loss(80_000, MSS, 0);
        assert_eq!(slow.w_max, 80.0);
    }

    #[test]
    fn reno_friendly_region_grows_w_est_by_alpha_cubic_per_window() {
        let mut c = cubic(no_hystart(), 100);
        c.on_loss(100_000, MSS, 0);
        // Immediately after the loss W_cubic(t) ~ 70 < W_est: the window follows W_est.
        c.on_ack(&ack(0, 0, 100 * MS));
        let alpha = 3.0 * 0.3 / 1.7; // 0.529411...
        c.on_ack(&ack(0, MSS as u64, 100 * MS));
        // One acknowledged segment at W = 70: W_est = 70 + alpha / 70, and cwnd follows it.
        assert!((c.w_est - (70.0 + alpha / 70.0)).abs() < 1e-12, "{}", c.w_est);
        assert!((c.cwnd - c.w_est * 1000.0).abs() < 1e-6);
        for _ in 0..69 {
            c.on_ack(&ack(0, MSS as u64, 100 * MS));
        }
        // A window of acks adds about alpha (a little less: the window grows meanwhile).
        assert!((c.w_est - (70.0 + alpha)).abs() < 0.01, "{}", c.w_est);
        // Once W_est reaches cwnd_prior (100) alpha_cubic becomes 1.
        c.w_est = 99.999;
        c.on_ack(&ack(0, MSS as u64, 100 * MS));
        assert!(c.alpha_is_one);
    }

    #[test]
    fn a_timeout_sets_ssthresh_by_beta_and_one_segment() {
        let mut c = cubic(CubicConfig::default(), 50);
        c.on_timeout(50_000, MSS, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (1000, 35_000));
        assert_eq!(c.hystart.phase, SlowStartPhase::Off);
    }

    #[test]
    fn the_first_avoidance_after_a_timeout_starts_with_k_zero_at_its_own_window() {
        // RFC 9438 s4.8: K = 0 and W_max = the window congestion avoidance starts at, not the
        // 100-segment W_max of before the timeout (which would make K > 0 and the growth
        // concave towards 100).
        let mut c = cubic(CubicConfig { reno_friendly: false, ..no_hystart() }, 100);
        c.on_loss(100_000, MSS, 0);
        c.on_timeout(70_000, MSS, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (1000, 49_000));
        // Slow start back to ssthresh, then the first avoidance ack starts the epoch.
        while c.cwnd_bytes() < c.ssthresh_bytes() {
            c.on_ack(&ack(MS, 2 * MSS as u64, 100 * MS));
        }
        let at_start = c.cwnd / MSS as f64;
        c.on_ack(&ack(2 * MS, 0, 100 * MS));
        assert_eq!(c.k_s, 0.0);
        assert_eq!(c.w_max, at_start);
        // Convex from the start: growth per round trip rises.
        let mut now = 2 * MS;
        let mut per_rtt = Vec::new();
        for _ in 0..20 {
            let before = c.cwnd;
            for _ in 0..(c.cwnd / MSS as f64) as u64 {
                c.on_ack(&ack(now, MSS as u64, 100 * MS));
            }
            per_rtt.push(c.cwnd - before);
            now += 100 * MS;
        }
        assert!(per_rtt[2] < per_rtt[10] && per_rtt[10] < per_rtt[19], "{per_rtt:?}");
    }

    /// Feeds one round of `n` acks with RTT `rtt`, the round ending at `*sent`.
    fn round(c: &mut Cubic, sent: &mut u64, rtt: SimTime, n: u64) {
        let start = *sent;
        *sent += 100 * MSS as u64;
        for i in 1..=n {
            let a = AckSample { snd_una: start + i, snd_max: *sent, ..ack(0, MSS as u64, rtt) };
            c.on_ack(&a);
        }
    }

    #[test]
    fn hystart_plus_plus_enters_css_on_a_delay_increase_and_exits_after_five_rounds() {
        let mut c = cubic(CubicConfig::default(), 10);
        let mut sent = 0;
        // Round 1: ends immediately (window_end 0), then 10 samples of 100 ms.
        round(&mut c, &mut sent, 100 * MS, 10);
        assert_eq!(c.cwnd_bytes(), 20_000);
        // Round 2: RTT 112 ms. RttThresh = clamp(100/8 ms, 4, 16) = 12.5 ms: 112 < 112.5 stays.
        round(&mut c, &mut sent, 112 * MS, 10);
        assert_eq!(c.hystart.phase, SlowStartPhase::SlowStart);
        // Round 3: RTT 125 ms >= 112 + 14 ms? thresh = 112/8 = 14 ms: 125 < 126, still slow start.
        round(&mut c, &mut sent, 125 * MS, 10);
        assert_eq!(c.hystart.phase, SlowStartPhase::SlowStart);
        // Round 4: RTT 141 ms >= 125 + 15.625: the eighth sample enters CSS.
        let before = c.cwnd_bytes();
        round(&mut c, &mut sent, 141 * MS, 10);
        assert_eq!(c.hystart.phase, SlowStartPhase::Conservative);
        // 8 acks at full rate (the 8th entered CSS after growing), 2 at a quarter.
        assert_eq!(c.cwnd_bytes() - before, 8 * 1000 + 2 * 250);
        // CSS_ROUNDS = 5 further round starts end slow start with ssthresh = cwnd.
        for _ in 0..4 {
            round(&mut c, &mut sent, 141 * MS, 10);
        }
        assert_eq!(c.hystart.phase, SlowStartPhase::Conservative);
        round(&mut c, &mut sent, 141 * MS, 1);
        assert_eq!(c.ssthresh_bytes(), c.cwnd_bytes());
        assert_eq!(c.hystart.phase, SlowStartPhase::Off);
    }

    #[test]
    fn css_returns_to_slow_start_when_the_rtt_falls_below_the_baseline() {
        let mut c = cubic(CubicConfig::default(), 10);
        c.hystart.phase = SlowStartPhase::Conservative;
        c.hystart.css_baseline_min_rtt = 150 * MS;
        c.hystart.window_end = u64::MAX;
        for _ in 0..8 {
            c.on_ack(&ack(0, MSS as u64, 140 * MS));
        }
        assert_eq!(c.hystart.phase, SlowStartPhase::SlowStart);
    }

    #[test]
    fn settings_out_of_range_are_refused_with_their_field() {
        let facts = TcpFacts { ecn: false, mss: 1448, slow_start_after_idle: false, init_cwnd_pkts: 10, pacing: false, prr: None };
        let bad = CubicConfig { beta: 1.0, ..Default::default() };
        assert_eq!(bad.validate(&facts).unwrap_err().field, "cc.beta");
        let bad = CubicConfig { c: f64::NAN, ..Default::default() };
        assert_eq!(bad.validate(&facts).unwrap_err().field, "cc.c");
        assert!(CubicConfig::default().validate(&facts).is_ok());
    }

    fn linux() -> CubicConfig {
        CubicConfig { hystart: HyStartSetting::Variant(HyStartVariant::Linux), ..Default::default() }
    }

    /// An ACK of one segment at `now` with an RTT sample, the cumulative ACK at `una` segments
    /// and `max` segments sent.
    fn ack_at(now: SimTime, rtt: SimTime, una: u64, max: u64) -> AckSample {
        AckSample { snd_una: una * MSS as u64, snd_max: max * MSS as u64, ..ack(now, MSS as u64, rtt) }
    }

    #[test]
    fn linux_hystart_ends_slow_start_when_an_ack_train_spans_half_the_minimum_rtt() {
        // Minimum RTT 40 ms; from 16 segments, ACKs 0.5 ms apart. The round starts at the first
        // ACK at or above 16 segments (t = 0); the train spans more than 20 ms at the 42nd ACK
        // after it (t = 20.5 ms), where ssthresh becomes the window and growth stops.
        let mut c = cubic(linux(), 16);
        let half_ms = MS / 2;
        let mut exit = None;
        for k in 0..100u64 {
            let before = c.cwnd_bytes();
            c.on_ack(&ack_at(k * half_ms, 40 * MS, k + 1, 200));
            if c.ssthresh_bytes() < u64::MAX / 4 {
                exit = Some((k, before));
                break;
            }
        }
        let (k, before) = exit.expect("the ACK train ends slow start");
        assert_eq!(k, 41, "the first ACK more than 20 ms after the round's start");
        assert_eq!(c.ssthresh_bytes(), before, "ssthresh = cwnd before the ACK grew it");
        // That ACK is already congestion avoidance's (as in Linux, whose `cong_avoid` runs after
        // HyStart for the same ACK): a fraction of a segment, not slow start's whole one.
        assert!(c.cwnd_bytes() < before + MSS as u64 / 10, "{} against {before}", c.cwnd_bytes());
        // The same ACKs 3 ms apart (no train) with a steady RTT never end slow start.
        let mut slow = cubic(linux(), 16);
        for k in 0..100u64 {
            slow.on_ack(&ack_at(k * 3 * MS, 40 * MS, k + 1, 10_000));
        }
        assert_eq!(slow.ssthresh_bytes(), u64::MAX / 4);
    }

    #[test]
    fn linux_hystart_ends_slow_start_when_a_rounds_minimum_rtt_rises_by_an_eighth() {
        // ACKs 3 ms apart (never a train). Minimum RTT 40 ms: the threshold is
        // clamp(40 / 8, 4, 16) = 5 ms, so a round whose first 8 samples stay at 45 ms passes
        // and one at 46 ms ends slow start on its 9th sample.
        for (rtt_ms, ends) in [(45, false), (46, true)] {
            let mut c = cubic(linux(), 16);
            let mut t = 0;
            // Round 1 (to 32 segments): samples at 40 ms set delay_min.
            for una in 1..=16u64 {
                t += 3 * MS;
                c.on_ack(&ack_at(t, 40 * MS, una, 32));
            }
            // Round 2 starts at the first ACK past 32 segments.
            let mut exit_at = None;
            for (i, una) in (33..50u64).enumerate() {
                t += 3 * MS;
                c.on_ack(&ack_at(t, rtt_ms * MS, una, 80));
                if exit_at.is_none() && c.ssthresh_bytes() < u64::MAX / 4 {
                    exit_at = Some(i);
                }
            }
            assert_eq!(exit_at, ends.then_some(8), "RTT {rtt_ms} ms");
        }
    }

    #[test]
    fn linux_hystart_waits_for_sixteen_segments_and_runs_again_after_a_timeout() {
        // Below hystart_low_window nothing is measured: a train of five ACKs from a 10-segment
        // window leaves it below 16 segments and HyStart idle.
        let mut c = cubic(linux(), 10);
        for k in 0..5u64 {
            c.on_ack(&ack_at(k * MS / 2, 40 * MS, k + 1, 100));
        }
        assert!(c.cwnd_bytes() < 16 * MSS as u64);
        assert!(!c.linux_hystart.as_ref().unwrap().found);
        // A train from 16 segments ends slow start ...
        let mut c = cubic(linux(), 16);
        let mut t = 0;
        for k in 0..60u64 {
            t = k * MS / 2;
            c.on_ack(&ack_at(t, 40 * MS, k + 1, 200));
        }
        assert!(c.linux_hystart.as_ref().unwrap().found);
        // ... and after a timeout (found and delay_min cleared) HyStart acts again once the
        // window is back at 16 segments and below ssthresh.
        c.on_timeout(100 * MSS as u64, MSS, t);
        assert!(!c.linux_hystart.as_ref().unwrap().found);
        assert_eq!(c.linux_hystart.as_ref().unwrap().delay_min, 0);
        c.cwnd = 16.0 * MSS as f64;
        c.ssthresh = 1000 * MSS as u64;
        for k in 0..60u64 {
            c.on_ack(&ack_at(t + 100 * MS + k * MS / 2, 40 * MS, 200 + k, 400));
        }
        assert!(c.linux_hystart.as_ref().unwrap().found);
        assert!(c.ssthresh_bytes() < 1000 * MSS as u64);
    }

    #[test]
    fn hystart_linux_is_read_and_refused_with_pacing() {
        let cfg: CubicConfig = serde_json::from_str(r#"{"hystart": "linux"}"#).unwrap();
        assert_eq!(cfg.hystart, HyStartSetting::Variant(HyStartVariant::Linux));
        let e = serde_json::from_str::<CubicConfig>(r#"{"hystart": "bic"}"#).unwrap_err().to_string();
        assert!(e.contains(r#"expected "hystart++", "linux", true or false, got "bic""#), "{e}");
        let paced = TcpFacts { ecn: false, mss: 1448, slow_start_after_idle: false, init_cwnd_pkts: 10, pacing: true, prr: None };
        assert_eq!(cfg.validate(&paced).unwrap_err().field, "cc.hystart");
        assert!(CubicConfig::default().validate(&paced).is_ok());
    }
}
