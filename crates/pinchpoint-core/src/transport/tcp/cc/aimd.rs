//! AIMD(a, b): Reno's window with a general increase and decrease (Floyd, Handley & Padhye,
//! "A Comparison of Equation-Based and AIMD Congestion Control", 2000; the slowly-responsive
//! "TCP(b)" of Bansal, Balakrishnan, Floyd & Shenker, SIGCOMM 2001). In congestion avoidance
//! the window grows by `a` segments per round trip (byte counted, as `reno.rs`); a loss or an
//! ECN echo sets it to (1 - b) cwnd. TCP-compatibility needs a = 4(2b - b^2)/3 (FHP 2000 s4),
//! which is the default: TCP(1/2) is Reno's (1, 1/2), TCP(1/8) is (0.3125, 1/8), TCP(1/256)
//! is (0.0104, 1/256). In ns-2 these are `increase_num_ = a` and `decrease_num_ = 1 - b`.
//! Differences from ns-2 are in `docs/algorithms/aimd.md`.

use super::{AckSample, CcInit, CcNew, CcProblem, CcSettings, CongestionControl, TcpFacts};
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};

/// AIMD parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AimdConfig {
    /// Additive increase, segments per RTT in congestion avoidance. Default (absent):
    /// 4(2b - b^2)/3, the TCP-compatible value for `b` (FHP 2000).
    pub a: Option<f64>,
    /// Multiplicative decrease: after a loss the window is (1 - b) times what it was; 0 < b < 1.
    /// Default 1/2 (TCP).
    pub b: f64,
}

impl Default for AimdConfig {
    fn default() -> Self {
        AimdConfig { a: None, b: 0.5 }
    }
}

/// The increase per RTT that makes AIMD(a, b) TCP-compatible (FHP 2000 s4): 4(2b - b^2)/3.
pub fn tcp_compatible_a(b: f64) -> f64 {
    4.0 * (2.0 * b - b * b) / 3.0
}

impl AimdConfig {
    /// The increase in use, segments per RTT.
    pub fn increase_pkts(&self) -> f64 {
        self.a.unwrap_or_else(|| tcp_compatible_a(self.b))
    }
}

impl CcSettings for AimdConfig {
    fn validate(&self, _tcp: &TcpFacts) -> Result<(), CcProblem> {
        super::check_range("b", self.b, 0.0, false, 1.0, false)?;
        if let Some(a) = self.a {
            // Above 1000 segments per RTT the controller is no longer a congestion controller.
            super::check_range("a", a, 0.0, false, 1000.0, true)?;
        }
        Ok(())
    }
}

/// Slow start of RFC 5681 s3.1, byte counted with L = 2 segments per acknowledgement
/// (RFC 3465 s2.2) and capped at ssthresh, exactly as `reno.rs`. Returns the acknowledged
/// bytes left over for congestion avoidance (as Linux's `tcp_slow_start`).
pub fn slow_start(cwnd: &mut f64, ssthresh: f64, bytes_acked: u64, mss: u32) -> u64 {
    if *cwnd >= ssthresh {
        return bytes_acked;
    }
    let room = ssthresh - *cwnd;
    let inc = (bytes_acked as f64).min(room).min(2.0 * mss as f64);
    *cwnd += inc;
    if *cwnd < ssthresh {
        return 0;
    }
    bytes_acked.saturating_sub(inc.ceil() as u64)
}

/// ns-2's exceptions to a non-standard decrease (`tcp/tcp.cc`, `TcpAgent::slowdown`): the first
/// decrease of a connection and every decrease in slow start (cwnd < ssthresh) halve the window
/// whatever `decrease_num_` is, and the ssthresh set right after a timeout is half the window
/// too. So TCP(1/256) leaves its first slow start as TCP does, at half the window that
/// overshot, instead of keeping 255/256 of it. Kept apart from the controllers so that AIMD and
/// binomial apply the same rule.
#[derive(Clone, Copy, Debug)]
pub struct Ns2DecreaseRule {
    /// No decrease yet (ns-2 `first_decrease_`, 1 at the start).
    first_decrease: bool,
    /// The last window action was a timeout (ns-2 `last_cwnd_action_ == CWND_ACTION_TIMEOUT`).
    after_timeout: bool,
}

impl Default for Ns2DecreaseRule {
    fn default() -> Self {
        Ns2DecreaseRule { first_decrease: true, after_timeout: false }
    }
}

impl Ns2DecreaseRule {
    /// A loss or ECN echo (ns-2 `CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF`): the new (cwnd,
    /// ssthresh), from the current ones, half the window and the controller's own decrease.
    pub fn on_loss(&mut self, cwnd: f64, ssthresh: f64, half: f64, decreased: f64) -> (f64, f64) {
        let slow_start = cwnd < ssthresh;
        let new_cwnd = if self.first_decrease || slow_start { half } else { decreased };
        let new_ssthresh = if self.first_decrease || slow_start || self.after_timeout { half } else { decreased };
        self.first_decrease = false;
        self.after_timeout = false;
        (new_cwnd, new_ssthresh)
    }

    /// A retransmission timeout (ns-2 `CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART`): the new
    /// ssthresh; the window restarts from one segment.
    pub fn on_timeout(&mut self, cwnd: f64, ssthresh: f64, half: f64, decreased: f64) -> f64 {
        let slow_start = cwnd < ssthresh;
        let new_ssthresh = if self.first_decrease || slow_start || self.after_timeout { half } else { decreased };
        self.first_decrease = false;
        self.after_timeout = true;
        new_ssthresh
    }
}

/// Half the window, at least two segments (ns-2 `halfwin`, with the floor of RFC 5681 eq. 4).
pub fn half_window(cwnd: f64, mss: u32) -> f64 {
    (cwnd / 2.0).max(2.0 * mss as f64)
}

/// The window core AIMD and binomial share (as Reno and NewReno share `RenoWindow`): a
/// fractional window in bytes (TCP(1/256) adds about 1% of a segment per RTT), slow start as
/// [`slow_start`], a caller-given increase per window of acknowledged bytes in congestion
/// avoidance, and a caller-given decrease on a loss or a timeout ([`FractionalControl`]).
#[derive(Clone, Debug)]
pub struct FractionalWindow {
    /// Congestion window, bytes.
    pub cwnd: f64,
    /// Slow-start threshold, bytes.
    pub ssthresh: f64,
    /// Where ns-2 halves instead of taking the controller's decrease.
    pub rule: Ns2DecreaseRule,
}

impl FractionalWindow {
    /// A window of `init.init_cwnd_pkts` segments and an unbounded ssthresh (RFC 5681 s3.1).
    pub fn new(init: CcInit) -> Self {
        FractionalWindow {
            cwnd: init.init_cwnd_pkts as f64 * init.mss as f64,
            ssthresh: (u64::MAX / 4) as f64,
            rule: Ns2DecreaseRule::default(),
        }
    }

    /// A loss or an ECN echo: ssthresh and cwnd to `decreased` bytes (ns-2 `decrease_num_`
    /// applies to cwnd, not the flight size; so does Linux's Reno), or to half the window where
    /// ns-2 halves ([`Ns2DecreaseRule`]).
    pub fn decrease_to(&mut self, decreased: f64, mss: u32) {
        (self.cwnd, self.ssthresh) = self.rule.on_loss(self.cwnd, self.ssthresh, half_window(self.cwnd, mss), decreased);
    }

    /// A timeout: as Reno, one segment and slow start up to `decreased` bytes (ns-2 `slowdown`
    /// applies `decrease_num_` to ssthresh on a timeout as well), or half the window where ns-2
    /// halves.
    pub fn restart(&mut self, decreased: f64, mss: u32) {
        self.ssthresh = self.rule.on_timeout(self.cwnd, self.ssthresh, half_window(self.cwnd, mss), decreased);
        self.cwnd = mss as f64;
    }
}

/// A controller on a [`FractionalWindow`]: it gives only its increase and its decrease, and the
/// window core answers every [`CongestionControl`] event with them (AIMD and binomial differ in
/// nothing else).
pub trait FractionalControl {
    /// The window.
    fn window(&self) -> &FractionalWindow;
    /// The window, to change.
    fn window_mut(&mut self) -> &mut FractionalWindow;
    /// Segments added per window of acknowledged bytes in congestion avoidance, at a window of
    /// `w_pkts` segments.
    fn increase_per_rtt_pkts(&self, w_pkts: f64) -> f64;
    /// The window after a loss, bytes, from the current window (at least two segments).
    fn decreased(&self, mss: u32) -> f64;
}

impl<T: FractionalControl> CongestionControl for T {
    fn cwnd_bytes(&self) -> u64 {
        self.window().cwnd as u64
    }
    fn ssthresh_bytes(&self) -> u64 {
        self.window().ssthresh as u64
    }
    /// Slow start, then `increase_per_rtt_pkts(w)` segments per window of acknowledged bytes,
    /// w the window in segments: each acknowledged byte adds increase_per_rtt_pkts(w) * mss / cwnd.
    fn on_ack(&mut self, ack: &AckSample) {
        let w = self.window_mut();
        let left = slow_start(&mut w.cwnd, w.ssthresh, ack.bytes_acked, ack.mss);
        if left == 0 {
            return;
        }
        let mss = ack.mss as f64;
        let inc = self.increase_per_rtt_pkts(self.window().cwnd / mss);
        let w = self.window_mut();
        w.cwnd += inc * mss * left as f64 / w.cwnd;
    }
    fn on_loss(&mut self, _in_flight: u64, mss: u32, _now: SimTime) {
        let d = self.decreased(mss);
        self.window_mut().decrease_to(d, mss);
    }
    fn on_timeout(&mut self, _in_flight: u64, mss: u32, _now: SimTime) {
        let d = self.decreased(mss);
        self.window_mut().restart(d, mss);
    }
    /// ns-2's `TcpAgent::timeout` calls `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART)` on
    /// a repeated timeout as on the first, so ssthresh comes from the window it then has (one
    /// segment: ssthresh 2 segments). These controllers reproduce ns-2 (GAPS.md), so they
    /// keep that rather than RFC 5681's held ssthresh.
    fn on_repeated_timeout(&mut self, mss: u32, now: SimTime) {
        self.on_timeout(0, mss, now);
    }
    /// The window takes the restart's values (neither controller is in Linux; nothing else
    /// depends on the old window). A value the restart left as it was keeps its fraction.
    fn on_idle_restart(&mut self, r: &super::IdleRestart) {
        let w = self.window_mut();
        if r.cwnd_bytes != w.cwnd as u64 {
            w.cwnd = r.cwnd_bytes as f64;
        }
        if r.ssthresh_bytes != w.ssthresh as u64 {
            w.ssthresh = r.ssthresh_bytes as f64;
        }
    }
    /// ns-2 has no undo; a RACK-TLP sender's undo restores these windows as Linux's
    /// `tcp_reno_undo_cwnd` does: max(cwnd, prior cwnd), ssthresh raised to its prior value.
    fn on_undo(&mut self, u: &super::super::undo::UndoWindow) {
        let w = self.window_mut();
        w.cwnd = w.cwnd.max(u.prior_cwnd_bytes as f64);
        w.ssthresh = w.ssthresh.max(u.prior_ssthresh_bytes as f64);
    }
}

/// AIMD(a, b).
#[derive(Clone, Debug)]
pub struct Aimd {
    pub(crate) w: FractionalWindow,
    /// Increase, segments per RTT.
    a: f64,
    /// Decrease fraction.
    b: f64,
}

impl CcNew for Aimd {
    type Config = AimdConfig;
    /// Builds AIMD (settings validated).
    fn new(cfg: &AimdConfig, init: CcInit) -> Self {
        Aimd { w: FractionalWindow::new(init), a: cfg.increase_pkts(), b: cfg.b }
    }
}

impl FractionalControl for Aimd {
    fn window(&self) -> &FractionalWindow {
        &self.w
    }
    fn window_mut(&mut self) -> &mut FractionalWindow {
        &mut self.w
    }
    /// FHP 2000: a segments per window of acknowledged bytes, i.e. a * mss * acked / cwnd.
    fn increase_per_rtt_pkts(&self, _w_pkts: f64) -> f64 {
        self.a
    }
    /// (1 - b) cwnd, at least two segments (the floor of RFC 5681 eq. 4).
    fn decreased(&self, mss: u32) -> f64 {
        ((1.0 - self.b) * self.w.cwnd).max(2.0 * mss as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::ack;
    use super::*;

    fn aimd(a: Option<f64>, b: f64, cwnd_pkts: u32) -> Aimd {
        let mut c = Aimd::new(&AimdConfig { a, b }, CcInit { mss: 1000, init_cwnd_pkts: cwnd_pkts });
        c.w.ssthresh = c.w.cwnd;
        c.w.rule.first_decrease = false;
        c
    }

    #[test]
    fn default_increase_is_the_tcp_compatible_value_for_b() {
        assert_eq!(AimdConfig { a: None, b: 0.5 }.increase_pkts(), 1.0);
        assert_eq!(AimdConfig { a: None, b: 0.125 }.increase_pkts(), 0.3125);
        let a256 = AimdConfig { a: None, b: 1.0 / 256.0 }.increase_pkts();
        assert!((a256 - 0.010_396_321_614_583_334).abs() < 1e-15, "{a256}");
        assert_eq!(AimdConfig { a: Some(2.0), b: 0.125 }.increase_pkts(), 2.0);
    }

    #[test]
    fn one_acknowledgement_in_avoidance_adds_a_mss_acked_over_cwnd() {
        // TCP(1/8): a = 0.3125; cwnd 10000 B, 1000 B acked: + 0.3125 * 1000 * 1000 / 10000 = 31.25 B.
        let mut c = aimd(None, 0.125, 10);
        c.on_ack(&ack(1000));
        assert_eq!(c.w.cwnd, 10_031.25);
    }

    #[test]
    fn a_window_of_acknowledgements_adds_about_a_segments() {
        // 20 acks of 1000 B on a 20000 B window with a = 0.3125: between 0.3125 * (1 - 1/64) and 0.3125 segments.
        let mut c = aimd(None, 0.125, 20);
        for _ in 0..20 {
            c.on_ack(&ack(1000));
        }
        let grown = (c.w.cwnd - 20_000.0) / 1000.0;
        assert!(grown > 0.3125 * 0.99 && grown <= 0.3125, "{grown}");
    }

    #[test]
    fn loss_and_ecn_take_the_window_to_one_minus_b_of_itself() {
        let mut c = aimd(None, 0.125, 16);
        c.on_loss(3000, 1000, 0); // the flight size does not matter, the window does
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (14_000, 14_000));
        c.on_ecn(0, 1000, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (12_250, 12_250));
        let mut t = aimd(None, 1.0 / 256.0, 256);
        t.on_loss(0, 1000, 0);
        assert_eq!(t.cwnd_bytes(), 255_000);
    }

    #[test]
    fn timeout_restarts_from_one_segment_with_ssthresh_decreased_by_b() {
        let mut c = aimd(None, 0.125, 16);
        c.on_timeout(16_000, 1000, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (1000, 14_000));
        c.on_ack(&ack(1000)); // slow start again
        assert_eq!(c.cwnd_bytes(), 2000);
    }

    #[test]
    fn tcp_half_matches_reno_step_for_step() {
        use super::super::reno::{Reno, RenoConfig};
        let init = CcInit { mss: 1000, init_cwnd_pkts: 2 };
        let mut r = Reno::new(&RenoConfig {}, init);
        let mut a = Aimd::new(&AimdConfig::default(), init);
        for i in 0..200u64 {
            if i == 30 || i == 120 {
                let w = r.cwnd_bytes();
                r.on_loss(w, 1000, 0);
                a.on_loss(w, 1000, 0);
            } else {
                r.on_ack(&ack(1000));
                a.on_ack(&ack(1000));
            }
            // Reno adds a whole segment after each full window, AIMD spreads it over the window:
            // they differ by up to one segment, plus half of that carried through a loss.
            let (rw, aw) = (r.cwnd_bytes() as f64, a.w.cwnd);
            assert!((rw - aw).abs() <= 1500.0, "step {i}: reno {rw} aimd {aw}");
        }
    }

    #[test]
    fn b_outside_zero_one_and_nonpositive_a_are_refused() {
        let tcp = TcpFacts { ecn: false, mss: 1000, slow_start_after_idle: false, init_cwnd_pkts: 10, pacing: false, prr: None };
        assert_eq!(AimdConfig { a: None, b: 1.0 }.validate(&tcp).unwrap_err().field, "cc.b");
        assert_eq!(AimdConfig { a: None, b: 0.0 }.validate(&tcp).unwrap_err().field, "cc.b");
        assert_eq!(AimdConfig { a: Some(0.0), b: 0.5 }.validate(&tcp).unwrap_err().field, "cc.a");
        assert!(AimdConfig { a: Some(f64::NAN), b: 0.5 }.validate(&tcp).is_err());
        assert!(AimdConfig { a: None, b: 1.0 / 256.0 }.validate(&tcp).is_ok());
    }

    #[test]
    fn the_first_decrease_and_decreases_in_slow_start_halve_as_in_ns2() {
        // ns-2 tcp.cc slowdown(): first_decrease_ or cwnd < ssthresh -> halfwin, else decreasewin.
        let mut c = Aimd::new(&AimdConfig { a: None, b: 1.0 / 256.0 }, CcInit { mss: 1000, init_cwnd_pkts: 64 });
        c.on_loss(0, 1000, 0); // first decrease, in slow start
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (32_000, 32_000));
        c.on_loss(0, 1000, 0); // congestion avoidance: 255/256
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (31_875, 31_875));
        // A timeout: ssthresh by b (not in slow start, no earlier timeout), cwnd one segment.
        c.on_timeout(0, 1000, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (1000, 31_750));
        // A second timeout right after: ssthresh half the (one-segment) window, floored at two.
        c.on_timeout(0, 1000, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (1000, 2000));
        // A loss in a slow start halves.
        c.w.ssthresh = 10_000.0;
        for _ in 0..5 {
            c.on_ack(&ack(1000));
        }
        assert_eq!(c.cwnd_bytes(), 6000);
        c.on_loss(0, 1000, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (3000, 3000));
    }

    #[test]
    fn after_a_timeout_the_next_loss_out_of_slow_start_sets_ssthresh_to_half() {
        // ns-2: last_cwnd_action_ == CWND_ACTION_TIMEOUT -> ssthresh_ = halfwin; cwnd_ is not
        // covered by that exception and takes decreasewin.
        let mut c = aimd(None, 0.125, 16);
        c.on_timeout(0, 1000, 0);
        c.w.cwnd = 16_000.0;
        c.w.ssthresh = 16_000.0;
        c.on_loss(0, 1000, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (14_000, 8000));
        c.on_loss(0, 1000, 0);
        assert_eq!(c.ssthresh_bytes(), 12_250);
    }
}
