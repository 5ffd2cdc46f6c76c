//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
//! Internet", IEEE JSAC 13(8), 1995), the congestion-avoidance and modified slow-start
//! mechanisms of s3.2 and s3.3, on Reno's loss handling.
//!
//! Once per round trip Vegas compares the rate it expects, Expected = cwnd / BaseRTT (BaseRTT the
//! smallest RTT seen), with the rate it gets, Actual = cwnd / RTT, and turns the difference into
//! segments queued in the network: Diff = (Expected - Actual) BaseRTT. In congestion avoidance
//! it adds one segment per RTT when Diff < alpha, removes one when Diff > beta, and otherwise
//! holds. In slow start it doubles the window only every other RTT and leaves slow start when
//! Diff exceeds gamma. The deliberate differences from the paper, Linux and ns-2 are in
//! `docs/algorithms/vegas.md`.

use super::reno::RenoWindow;
use super::{AckSample, CcInit, CcNew, CcProblem, CcSettings, CongestionControl, TcpFacts};
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};

/// Vegas thresholds, in segments queued in the network.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {
    /// Below this many segments queued, add one segment per RTT (paper: 1; Linux: 2).
    pub alpha: u32,
    /// Above this many, remove one segment per RTT (paper: 3; Linux: 4). At least `alpha`.
    pub beta: u32,
    /// Leave slow start when more than this many are queued (paper: 1).
    pub gamma: u32,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig { alpha: 1, beta: 3, gamma: 1 }
    }
}

impl CcSettings for VegasConfig {
    fn validate(&self, _tcp: &TcpFacts) -> Result<(), CcProblem> {
        if self.beta < self.alpha {
            return Err(CcProblem::param("beta", format!("expected at least alpha ({}), got {}", self.alpha, self.beta)));
        }
        if self.beta > 10_000 {
            return Err(CcProblem::param("beta", format!("expected at most 10000 segments, got {}", self.beta)));
        }
        Ok(())
    }
}

/// TCP Vegas.
#[derive(Clone, Debug)]
pub struct Vegas {
    w: RenoWindow,
    alpha: u32,
    beta: u32,
    gamma: u32,
    /// Smallest RTT seen, ps (BaseRTT).
    base_rtt_ps: SimTime,
    /// Sum and number of the RTT samples of the current round (ns-2 averages them).
    round_rtt_sum_ps: u64,
    round_rtt_count: u32,
    /// The round ends when the cumulative ACK reaches this byte.
    window_end: u64,
    /// Slow start grows in this round (it grows in every other round).
    grow_this_round: bool,
}

impl CcNew for Vegas {
    type Config = VegasConfig;
    /// Builds Vegas (settings validated).
    fn new(cfg: &VegasConfig, init: CcInit) -> Self {
        Vegas {
            w: RenoWindow::new(init),
            alpha: cfg.alpha,
            beta: cfg.beta,
            gamma: cfg.gamma,
            base_rtt_ps: SimTime::MAX,
            round_rtt_sum_ps: 0,
            round_rtt_count: 0,
            window_end: 0,
            grow_this_round: true,
        }
    }
}

impl Vegas {
    fn in_slow_start(&self) -> bool {
        self.w.cwnd < self.w.ssthresh
    }

    /// Once per round: Diff = (Expected - Actual) BaseRTT = cwnd (RTT - BaseRTT) / RTT, segments.
    fn end_of_round(&mut self, mss: u32) {
        if self.round_rtt_count == 0 {
            return;
        }
        let rtt = self.round_rtt_sum_ps as f64 / self.round_rtt_count as f64;
        let cwnd_seg = self.w.cwnd as f64 / mss as f64;
        let diff = cwnd_seg * (rtt - self.base_rtt_ps as f64) / rtt;
        if self.in_slow_start() {
            if diff > self.gamma as f64 {
                // s3.3: the queue built beyond gamma; switch to linear increase/decrease.
                self.w.ssthresh = self.w.cwnd;
            } else {
                self.grow_this_round = !self.grow_this_round;
            }
        } else if diff < self.alpha as f64 {
            // s3.2: too little queued, add one segment this RTT.
            self.w.cwnd += mss as u64;
        } else if diff > self.beta as f64 {
            // s3.2: too much queued, remove one segment (not below two).
            // ssthresh follows, so that the smaller window does not count as slow start (Linux).
            self.w.cwnd = self.w.cwnd.saturating_sub(mss as u64).max(2 * mss as u64);
            self.w.ssthresh = self.w.ssthresh.min(self.w.cwnd);
        }
    }
}

impl CongestionControl for Vegas {
    fn cwnd_bytes(&self) -> u64 {
        self.w.cwnd
    }
    fn ssthresh_bytes(&self) -> u64 {
        self.w.ssthresh
    }
    fn on_ack(&mut self, ack: &AckSample) {
        if let Some(rtt) = ack.rtt_ps {
            self.base_rtt_ps = self.base_rtt_ps.min(rtt);
            self.round_rtt_sum_ps += rtt;
            self.round_rtt_count += 1;
        }
        if ack.snd_una >= self.window_end {
            self.end_of_round(ack.mss);
            self.window_end = ack.snd_max;
            self.round_rtt_sum_ps = 0;
            self.round_rtt_count = 0;
        }
        if self.in_slow_start() && self.grow_this_round {
            // s3.3: exponential growth, but only every other RTT (byte-counted as Reno).
            self.w.grow(ack.bytes_acked, ack.mss);
        }
    }
    /// Linux's `tcp_vegas_cwnd_event` answers CA_EVENT_CWND_RESTART (and TX_START) with
    /// `tcp_vegas_init`: BaseRTT is forgotten (the path may have changed while idle) and a new
    /// round starts at snd_nxt with no RTT samples (`vegas_enable`).
    /// Linux's Vegas undoes as Reno (`tcp_reno_undo_cwnd`); its round state is kept.
    fn on_undo(&mut self, u: &super::super::undo::UndoWindow) {
        self.w.undo(u);
    }
    fn on_idle_restart(&mut self, r: &super::IdleRestart) {
        self.w.restart_after_idle(r);
        self.base_rtt_ps = SimTime::MAX;
        self.round_rtt_sum_ps = 0;
        self.round_rtt_count = 0;
        self.window_end = r.snd_nxt;
        self.grow_this_round = true;
    }
    fn on_loss(&mut self, in_flight: u64, mss: u32, _now: SimTime) {
        self.w.halve(in_flight, mss);
    }
    fn on_timeout(&mut self, in_flight: u64, mss: u32, _now: SimTime) {
        self.w.collapse(in_flight, mss);
        self.grow_this_round = true;
    }
    fn on_repeated_timeout(&mut self, mss: u32, _now: SimTime) {
        self.w.collapse_again(mss);
        self.grow_this_round = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: SimTime = crate::sim::PS_PER_S / 1000;

    /// A Vegas in congestion avoidance at 10 segments with BaseRTT 100 ms.
    fn in_avoidance() -> Vegas {
        let mut v = Vegas::new(&VegasConfig::default(), CcInit { mss: 1000, init_cwnd_pkts: 10 });
        v.w.ssthresh = 10_000;
        v.base_rtt_ps = 100 * MS;
        v
    }

    /// One acknowledgement that ends a round with RTT `rtt_ms`.
    fn end_round(v: &mut Vegas, rtt_ms: u64) {
        v.round_rtt_sum_ps = 0;
        v.round_rtt_count = 0;
        let end = v.window_end;
        v.on_ack(&AckSample { bytes_acked: 1000, rtt_ps: Some(rtt_ms * MS), snd_una: end, snd_max: end + 10_000, mss: 1000, ..Default::default() });
    }

    #[test]
    fn an_idle_restart_forgets_base_rtt_and_starts_a_round_at_snd_nxt() {
        // Linux tcp_vegas_cwnd_event(CA_EVENT_CWND_RESTART) -> tcp_vegas_init.
        let mut v = in_avoidance();
        end_round(&mut v, 120);
        v.on_idle_restart(&super::super::IdleRestart { now: 0, idle_ps: 0, cwnd_bytes: 5000, ssthresh_bytes: 10_000, snd_nxt: 77_000 });
        assert_eq!((v.w.cwnd, v.w.ssthresh, v.base_rtt_ps, v.window_end, v.round_rtt_count), (5000, 10_000, SimTime::MAX, 77_000, 0));
    }

    #[test]
    fn avoidance_adds_holds_or_removes_one_segment_per_rtt_by_the_queued_estimate() {
        let mut v = in_avoidance();
        // RTT 110 ms: Diff = 10 * 10 / 110 = 0.91 < alpha = 1: +1 segment.
        end_round(&mut v, 110);
        assert_eq!(v.cwnd_bytes(), 11_000);
        // RTT 125 ms: Diff = 11 * 25 / 125 = 2.2, between alpha and beta: hold.
        end_round(&mut v, 125);
        assert_eq!(v.cwnd_bytes(), 11_000);
        // RTT 150 ms: Diff = 11 * 50 / 150 = 3.67 > beta = 3: -1 segment.
        end_round(&mut v, 150);
        assert_eq!(v.cwnd_bytes(), 10_000);
        // Acknowledgements inside a round change nothing in avoidance.
        v.on_ack(&AckSample { bytes_acked: 1000, rtt_ps: Some(150 * MS), snd_una: 1, snd_max: 2, mss: 1000, ..Default::default() });
        assert_eq!(v.cwnd_bytes(), 10_000);
    }

    #[test]
    fn slow_start_doubles_every_other_rtt_and_ends_when_diff_exceeds_gamma() {
        let mut v = Vegas::new(&VegasConfig::default(), CcInit { mss: 1000, init_cwnd_pkts: 2 });
        v.base_rtt_ps = 100 * MS;
        // Round 1 (growing): two acks in the round double 2 -> 4 segments.
        end_round(&mut v, 100); // ends round 0 (RTT 100: Diff 0), toggles to a flat round
        assert!(!v.grow_this_round);
        let ack_in_round = |v: &mut Vegas| v.on_ack(&AckSample { bytes_acked: 1000, rtt_ps: Some(100 * MS), snd_una: 0, snd_max: 1, mss: 1000, ..Default::default() });
        ack_in_round(&mut v);
        assert_eq!(v.cwnd_bytes(), 2000, "flat round");
        end_round(&mut v, 100);
        assert!(v.grow_this_round);
        ack_in_round(&mut v);
        assert_eq!(v.cwnd_bytes(), 4000, "growing round");
        // RTT 150 ms at 4 segments: Diff = 4 * 50 / 150 = 1.33 > gamma = 1: leave slow start.
        end_round(&mut v, 150);
        assert_eq!(v.ssthresh_bytes(), v.cwnd_bytes());
        assert!(!v.in_slow_start());
    }

    #[test]
    fn beta_below_alpha_is_refused() {
        let e = VegasConfig { alpha: 4, beta: 2, gamma: 1 }.validate(&TcpFacts { ecn: false, mss: 1448, slow_start_after_idle: false, init_cwnd_pkts: 10, pacing: false, prr: None }).unwrap_err();
        assert_eq!(e.field, "cc.beta");
    }
}

