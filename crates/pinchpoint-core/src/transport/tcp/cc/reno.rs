//! TCP Reno window rules (RFC 5681): slow start below ssthresh, one segment per window of
//! acknowledged bytes above it (congestion avoidance), halve on loss, one segment after a
//! timeout. This is Linux's `reno` (`tcp_reno_cong_avoid`, `tcp_reno_ssthresh`): the window only;
//! loss recovery is chosen apart (`tcp.recovery`).
//!
//! Growth counts acknowledged bytes (RFC 3465): in slow start the window grows by the bytes an
//! acknowledgement covers, at most L = 2 segments per acknowledgement (RFC 3465 s2.2), up to
//! ssthresh; what is left over counts toward congestion avoidance, as Linux's `tcp_slow_start`
//! hands the remainder to `tcp_cong_avoid_ai`. The L limit matters after a retransmission fills
//! a hole and one acknowledgement covers many segments: without it the window would jump by all
//! of them and the sender would burst. (Linux has no L limit but has SACK and pacing; ns-3's
//! NewReno grows one segment per acknowledgement, i.e. L = 1.)

use super::{AckSample, CcInit, CongestionControl};
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};

/// Reno has no parameters beyond the TCP settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenoConfig {}

impl super::CcSettings for RenoConfig {}

/// The additive-increase / multiplicative-decrease window of RFC 5681.
#[derive(Clone, Debug)]
pub struct RenoWindow {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Bytes acknowledged since the last congestion-avoidance increase.
    acked_in_ca: u64,
}

impl RenoWindow {
    /// A window of `init.init_cwnd_pkts` segments and an unbounded ssthresh (RFC 5681 s3.1).
    pub fn new(init: CcInit) -> Self {
        RenoWindow { cwnd: init.init_cwnd_pkts as u64 * init.mss as u64, ssthresh: u64::MAX / 4, acked_in_ca: 0 }
    }

    /// Grows the window for `bytes_acked` newly acknowledged bytes.
    #[inline]
    pub fn grow(&mut self, bytes_acked: u64, mss: u32) {
        let left = self.slow_start(bytes_acked, mss);
        self.avoid(left, mss, u64::MAX);
    }

    /// RFC 5681 s3.1 slow start, byte-counted (RFC 3465) with L = 2 segments per
    /// acknowledgement and capped at ssthresh, as in Linux. Returns the acknowledged bytes left
    /// for congestion avoidance (all of them above ssthresh, as Linux's `tcp_slow_start`).
    pub fn slow_start(&mut self, bytes_acked: u64, mss: u32) -> u64 {
        if self.cwnd >= self.ssthresh {
            return bytes_acked;
        }
        let room = self.ssthresh - self.cwnd;
        let inc = bytes_acked.min(room).min(2 * mss as u64);
        self.cwnd += inc;
        if self.cwnd < self.ssthresh {
            return 0;
        }
        bytes_acked - inc.min(bytes_acked)
    }

    /// Congestion avoidance: one MSS per `min(cwnd, cap_bytes)` acknowledged bytes (Linux's
    /// `tcp_cong_avoid_ai`, byte counted). RFC 5681 s3.1 (Reno) is `cap_bytes = u64::MAX`:
    /// one MSS per window; a cap makes growth proportional to the window above it (Scalable TCP).
    pub fn avoid(&mut self, bytes_acked: u64, mss: u32, cap_bytes: u64) {
        self.acked_in_ca += bytes_acked;
        while self.acked_in_ca >= self.cwnd.min(cap_bytes) {
            self.acked_in_ca -= self.cwnd.min(cap_bytes);
            self.cwnd += mss as u64;
        }
    }

    /// Sets ssthresh and cwnd after a congestion signal; growth in avoidance starts afresh.
    pub fn reduce(&mut self, ssthresh: u64, cwnd: u64) {
        self.ssthresh = ssthresh;
        self.cwnd = cwnd;
        self.acked_in_ca = 0;
    }

    /// Takes the window of an idle restart. The count towards the next congestion-avoidance
    /// increase is kept, as Linux's `tcp_cwnd_restart` keeps `snd_cwnd_cnt`.
    pub fn restart_after_idle(&mut self, r: &super::IdleRestart) {
        self.cwnd = r.cwnd_bytes;
        self.ssthresh = r.ssthresh_bytes;
    }

    /// Linux `tcp_undo_cwnd_reduction` with `tcp_reno_undo_cwnd`: the window back to at least
    /// what it was, ssthresh back up to its prior value. The count towards the next increase is
    /// kept (Linux leaves `snd_cwnd_cnt`).
    pub fn undo(&mut self, u: &super::super::undo::UndoWindow) {
        self.cwnd = self.cwnd.max(u.prior_cwnd_bytes);
        self.ssthresh = self.ssthresh.max(u.prior_ssthresh_bytes);
    }

    /// RFC 5681 eq. 4: ssthresh = max(FlightSize / 2, 2 * SMSS); fast recovery starts at ssthresh.
    pub fn halve(&mut self, in_flight: u64, mss: u32) {
        let s = (in_flight / 2).max(2 * mss as u64);
        self.reduce(s, s);
    }

    /// RFC 5681 s3.1: after a timeout ssthresh as on loss and cwnd = one segment (loss window).
    pub fn collapse(&mut self, in_flight: u64, mss: u32) {
        self.reduce((in_flight / 2).max(2 * mss as u64), mss as u64);
    }

    /// RFC 5681 s3.1: after a timeout of a segment the timer already resent, the loss window
    /// with ssthresh held.
    pub fn collapse_again(&mut self, mss: u32) {
        self.reduce(self.ssthresh, mss as u64);
    }
}

/// TCP Reno.
#[derive(Clone, Debug)]
pub struct Reno {
    w: RenoWindow,
}

impl Reno {
    /// Builds Reno; `reno` and `newreno` (whose configs have no parameters) both build this.
    pub fn new(_cfg: &impl super::CcSettings, init: CcInit) -> Self {
        Reno { w: RenoWindow::new(init) }
    }
}

impl CongestionControl for Reno {
    fn wants_rate_samples(&self) -> bool {
        false
    }
    fn cwnd_bytes(&self) -> u64 {
        self.w.cwnd
    }
    fn ssthresh_bytes(&self) -> u64 {
        self.w.ssthresh
    }
    #[inline]
    fn on_ack(&mut self, ack: &AckSample) {
        self.w.grow(ack.bytes_acked, ack.mss);
    }
    fn on_loss(&mut self, in_flight: u64, mss: u32, _now: SimTime) {
        self.w.halve(in_flight, mss);
    }
    fn on_timeout(&mut self, in_flight: u64, mss: u32, _now: SimTime) {
        self.w.collapse(in_flight, mss);
    }
    fn on_repeated_timeout(&mut self, mss: u32, _now: SimTime) {
        self.w.collapse_again(mss);
    }
    fn on_undo(&mut self, u: &super::super::undo::UndoWindow) {
        self.w.undo(u);
    }
    /// Linux's Reno has no `cwnd_event`: the window is all there is.
    fn on_idle_restart(&mut self, r: &super::IdleRestart) {
        self.w.restart_after_idle(r);
    }
}


#[cfg(test)]
mod tests {
    use super::super::testing::ack;
    use super::*;

    #[test]
    fn slow_start_adds_acked_bytes_until_ssthresh() {
        let mut r = Reno::new(&RenoConfig {}, CcInit { mss: 1000, init_cwnd_pkts: 2 });
        r.on_ack(&ack(1000));
        assert_eq!(r.cwnd_bytes(), 3000);
        r.on_ack(&ack(5000)); // RFC 3465 L = 2 segments per ack
        assert_eq!(r.cwnd_bytes(), 5000);
        r.w.ssthresh = 5500;
        r.on_ack(&ack(1000)); // 500 to slow start, 500 to avoidance
        assert_eq!(r.cwnd_bytes(), 5500);
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_window() {
        let mut r = Reno::new(&RenoConfig {}, CcInit { mss: 1000, init_cwnd_pkts: 4 });
        r.w.ssthresh = 4000;
        for _ in 0..3 {
            r.on_ack(&ack(1000));
        }
        assert_eq!(r.cwnd_bytes(), 4000);
        r.on_ack(&ack(1000));
        assert_eq!(r.cwnd_bytes(), 5000);
    }

    #[test]
    fn window_halves_on_loss_and_collapses_on_timeout() {
        let mut r = Reno::new(&RenoConfig {}, CcInit { mss: 1000, init_cwnd_pkts: 10 });
        r.on_loss(10_000, 1000, 0);
        assert_eq!((r.cwnd_bytes(), r.ssthresh_bytes()), (5000, 5000));
        r.on_loss(3000, 1000, 0);
        assert_eq!(r.ssthresh_bytes(), 2000, "never below two segments");
        r.on_timeout(8000, 1000, 0);
        assert_eq!((r.cwnd_bytes(), r.ssthresh_bytes()), (1000, 4000));
    }
}
