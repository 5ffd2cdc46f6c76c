//! DCTCP (RFC 8257): an ECN-based controller that reduces the window in proportion to the
//! extent of congestion. The sender keeps alpha, an estimate of the fraction of bytes that met
//! congestion, updated once per window of data (s3.3): alpha = (1 - g) alpha + g F, F the
//! fraction of bytes acknowledged in the last window whose acknowledgements carried ECE. When an
//! ECE arrives (at most once per window: the sender filters, RFC 3168 s6.1.2) the window becomes
//! cwnd (1 - alpha / 2). Growth, loss and timeouts are Reno's (RFC 8257 s3.3, s3.4).
//!
//! The receiver side (s3.2: ECE mirrors the CE state of the data, with an immediate ACK when it
//! changes) is `TcpReceiver` with `dctcp_echo` set, which the scenario builder does for flows
//! with `cc = "dctcp"`. DCTCP needs ECN: the settings check refuses `tcp.ecn = false`.

use super::reno::RenoWindow;
use super::{check_range, AckSample, CcInit, CcNew, CcProblem, CcSettings, CongestionControl, TcpFacts};
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};

/// DCTCP parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// EWMA gain g of alpha (RFC 8257 s3.3 and Linux: 1/16), in (0, 1].
    pub g: f64,
    /// alpha before the first window is measured (RFC 8257 s3.3 and Linux: 1), in [0, 1].
    pub initial_alpha: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig { g: 1.0 / 16.0, initial_alpha: 1.0 }
    }
}

impl CcSettings for DctcpConfig {
    fn validate(&self, tcp: &TcpFacts) -> Result<(), CcProblem> {
        if !tcp.ecn {
            return Err(CcProblem::tcp("ecn", "cc = \"dctcp\" needs ECN: set tcp.ecn = true"));
        }
        check_range("g", self.g, 0.0, false, 1.0, true)?;
        check_range("initial_alpha", self.initial_alpha, 0.0, true, 1.0, true)
    }
}

/// DCTCP.
#[derive(Clone, Debug)]
pub struct Dctcp {
    w: RenoWindow,
    g: f64,
    /// Estimated fraction of marked bytes.
    alpha: f64,
    /// The observation window ends when the cumulative ACK reaches this byte.
    window_end: u64,
    /// Bytes acknowledged in this observation window.
    acked_bytes: u64,
    /// Of those, bytes acknowledged with ECE.
    marked_bytes: u64,
}

impl CcNew for Dctcp {
    type Config = DctcpConfig;
    /// Builds DCTCP (settings validated).
    fn new(cfg: &DctcpConfig, init: CcInit) -> Self {
        Dctcp { w: RenoWindow::new(init), g: cfg.g, alpha: cfg.initial_alpha, window_end: 0, acked_bytes: 0, marked_bytes: 0 }
    }
}

impl Dctcp {
    /// The current alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    /// RFC 8257 s3.3: counts acknowledged and ECE-acknowledged bytes, and updates alpha at the
    /// end of each observation window.
    fn observe(&mut self, ack: &AckSample) {
        self.acked_bytes += ack.bytes_acked;
        if ack.ece {
            self.marked_bytes += ack.bytes_acked;
        }
        if ack.snd_una >= self.window_end {
            // End of the observation window (about one RTT of data): update alpha.
            if self.acked_bytes > 0 && self.window_end > 0 {
                let f = self.marked_bytes as f64 / self.acked_bytes as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            }
            self.window_end = ack.snd_max;
            self.acked_bytes = 0;
            self.marked_bytes = 0;
        }
    }
}

impl CongestionControl for Dctcp {
    fn cwnd_bytes(&self) -> u64 {
        self.w.cwnd
    }
    fn ssthresh_bytes(&self) -> u64 {
        self.w.ssthresh
    }
    fn on_ack(&mut self, ack: &AckSample) {
        self.observe(ack);
        self.w.grow(ack.bytes_acked, ack.mss);
    }
    /// Linux updates alpha in `in_ack_event`, on every acknowledgement whatever the state:
    /// the acknowledgements of a window being reduced (after an ECN echo or a loss) count too.
    fn on_ack_in_reduction(&mut self, ack: &AckSample) {
        self.observe(ack);
    }
    fn on_ecn(&mut self, _in_flight: u64, mss: u32, _now: SimTime) {
        // RFC 8257 s3.3: cwnd = cwnd (1 - alpha / 2), at least 2 segments (Linux).
        let cwnd = (self.w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
        self.w.ssthresh = cwnd.max(2 * mss as u64);
        self.w.cwnd = self.w.ssthresh;
    }
    fn on_loss(&mut self, in_flight: u64, mss: u32, _now: SimTime) {
        // RFC 8257 s3.4: react to loss as Reno.
        self.w.halve(in_flight, mss);
    }
    fn on_timeout(&mut self, in_flight: u64, mss: u32, _now: SimTime) {
        self.w.collapse(in_flight, mss);
    }
    /// Linux's `dctcp_ssthresh` and its CA_EVENT_LOSS both sit behind `tcp_enter_loss`'s
    /// "not yet reduced in this window" test: a repeated timeout holds ssthresh.
    fn on_repeated_timeout(&mut self, mss: u32, _now: SimTime) {
        self.w.collapse_again(mss);
    }
    /// Linux's `dctcp_cwnd_event` reacts only to CE changes and losses: alpha and the
    /// observation window carry over the idle period.
    fn on_idle_restart(&mut self, r: &super::IdleRestart) {
        self.w.restart_after_idle(r);
    }
    /// Linux `dctcp_cwnd_undo`: max(cwnd, loss_cwnd), the window at the reduction, which is
    /// the episode's prior window; alpha is kept.
    fn on_undo(&mut self, u: &super::super::undo::UndoWindow) {
        self.w.undo(u);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(bytes: u64, una: u64, max: u64, ece: bool) -> AckSample {
        AckSample { bytes_acked: bytes, snd_una: una, snd_max: max, ece, mss: 1000, ..Default::default() }
    }

    #[test]
    fn alpha_moves_by_g_toward_the_marked_fraction_once_per_window() {
        let mut d = Dctcp::new(&DctcpConfig::default(), CcInit { mss: 1000, init_cwnd_pkts: 10 });
        d.on_ack(&ack(1000, 1000, 10_000, false)); // opens the first window (ends at 10 000)
        assert_eq!(d.alpha(), 1.0);
        // The window closes on the ack that reaches 10 000: it counted 9 acks of 1000 bytes,
        // 2 of them with ECE, so F = 2/9 and alpha = (1 - 1/16) * 1 + 1/16 * 2/9.
        for i in 2..=10u64 {
            d.on_ack(&ack(1000, i * 1000, 20_000, i == 4 || i == 6));
        }
        let f = 2.0 / 9.0;
        assert!((d.alpha() - (15.0 / 16.0 + f / 16.0)).abs() < 1e-12, "{}", d.alpha());
        // No further update until the ack passes 20 000.
        d.on_ack(&ack(1000, 19_000, 30_000, true));
        assert!((d.alpha() - (15.0 / 16.0 + f / 16.0)).abs() < 1e-12);
    }

    #[test]
    fn an_ecn_echo_cuts_the_window_by_half_alpha() {
        let mut d = Dctcp::new(&DctcpConfig { initial_alpha: 0.25, ..Default::default() }, CcInit { mss: 1000, init_cwnd_pkts: 40 });
        d.on_ecn(40_000, 1000, 0);
        assert_eq!((d.cwnd_bytes(), d.ssthresh_bytes()), (35_000, 35_000), "40 000 * (1 - 0.125)");
        let mut d = Dctcp::new(&DctcpConfig { initial_alpha: 1.0, ..Default::default() }, CcInit { mss: 1000, init_cwnd_pkts: 3 });
        d.on_ecn(3000, 1000, 0);
        assert_eq!(d.cwnd_bytes(), 2000, "never below two segments");
        d.on_loss(10_000, 1000, 0);
        assert_eq!(d.cwnd_bytes(), 5000, "loss as Reno");
    }

    #[test]
    fn dctcp_without_ecn_is_refused_naming_tcp_ecn() {
        let e = DctcpConfig::default().validate(&TcpFacts { ecn: false, mss: 1448, slow_start_after_idle: false, init_cwnd_pkts: 10, pacing: false, prr: None }).unwrap_err();
        assert_eq!(e.field, "tcp.ecn");
        let e = DctcpConfig { g: 0.0, ..Default::default() }.validate(&TcpFacts { ecn: true, mss: 1448, slow_start_after_idle: false, init_cwnd_pkts: 10, pacing: false, prr: None }).unwrap_err();
        assert_eq!(e.field, "cc.g");
    }
}

