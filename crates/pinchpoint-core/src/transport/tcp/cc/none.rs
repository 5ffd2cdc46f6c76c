//! No congestion control: the congestion window is unlimited, so only the receiver's credit
//! (advertised window) limits what the sender has outstanding.
//!
//! This is the sender of the ATN transport (TP4 with receiver-based congestion avoidance, ATN
//! WP/267 s3.4): the sender obeys the credit window W it is given and nothing else; congestion
//! avoidance lives entirely in the receiver (`receiver = { kind = "atn" }`). With a fixed
//! receiver window (`receiver = { kind = "fixed", window_pkts = 17 }`) it is the "window of
//! 17 packets, no congestion avoidance" baseline of WP/267 s3.4.
//!
//! On loss the window is left alone: the sender keeps its retransmission machinery (timeouts with
//! back-off, and fast retransmit if `tcp.dupack_threshold` allows it) but loss never shrinks what
//! it may send. A TP4 sender retransmits on its timer only; set a large `tcp.dupack_threshold` to
//! get that behaviour (the ATN scenarios do).

use super::{AckSample, CcInit, CongestionControl};
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};

/// No parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoneConfig {}

impl super::CcSettings for NoneConfig {
    fn validate(&self, tcp: &super::TcpFacts) -> Result<(), super::CcProblem> {
        if tcp.slow_start_after_idle {
            return Err(super::CcProblem::tcp("slow_start_after_idle", "has no effect with cc = \"none\": there is no congestion window to restart"));
        }
        // The default passes: the resolved form writes it out for every TCP flow.
        let default_init_cwnd_pkts = crate::scenario::schema::TcpConfig::default().init_cwnd_pkts;
        if tcp.init_cwnd_pkts != default_init_cwnd_pkts {
            return Err(super::CcProblem::tcp(
                "init_cwnd_pkts",
                format!("has no effect with cc = \"none\": the window is unlimited from the first segment (only the receiver's window limits it); expected no init_cwnd_pkts (default {default_init_cwnd_pkts})"),
            ));
        }
        Ok(())
    }
}

/// A congestion window that never limits: a quarter of the u64 range, so that the sender's
/// window arithmetic (recovery inflation) cannot overflow.
pub const UNLIMITED_BYTES: u64 = u64::MAX / 4;

/// The controller that does nothing.
#[derive(Clone, Debug, Default)]
pub struct NoCc;

impl NoCc {
    /// Builds it.
    pub fn new(_cfg: &NoneConfig, _init: CcInit) -> Self {
        NoCc
    }
}

impl CongestionControl for NoCc {
    /// Rate samples change nothing here; without them the sender keeps no per-segment
    /// delivery record, which for a window-unlimited sender was a 10^7-entry list searched on
    /// every retransmission (a third of the wall time of a go-back-N burst, fuzz campaign).
    fn wants_rate_samples(&self) -> bool {
        false
    }
    fn cwnd_bytes(&self) -> u64 {
        UNLIMITED_BYTES
    }
    fn ssthresh_bytes(&self) -> u64 {
        UNLIMITED_BYTES
    }
    fn on_ack(&mut self, _ack: &AckSample) {}
    fn on_loss(&mut self, _in_flight: u64, _mss: u32, _now: SimTime) {}
    fn on_timeout(&mut self, _in_flight: u64, _mss: u32, _now: SimTime) {}
    fn on_repeated_timeout(&mut self, _mss: u32, _now: SimTime) {}
    fn on_ecn(&mut self, _in_flight: u64, _mss: u32, _now: SimTime) {}
    /// No window to reduce: an ECN echo changes nothing (the ATN receiver's credit answers
    /// congestion instead).
    fn answers_ecn(&self) -> bool {
        false
    }
    /// Never called: there is no congestion window to restart, and validation refuses
    /// `tcp.slow_start_after_idle` with cc = "none".
    fn on_idle_restart(&mut self, _r: &super::IdleRestart) {}
    /// No window was reduced: nothing to restore.
    fn on_undo(&mut self, _u: &super::super::undo::UndoWindow) {}
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_stays_unlimited_through_loss_timeout_and_ecn() {
        let mut c = NoCc::new(&NoneConfig {}, CcInit { mss: 500, init_cwnd_pkts: 1 });
        c.on_ack(&AckSample { now: 0, bytes_acked: 500, rtt_ps: None, in_flight_bytes: 500, mss: 500, ..Default::default() });
        c.on_loss(5000, 500, 1);
        c.on_timeout(5000, 500, 2);
        c.on_ecn(5000, 500, 3);
        assert_eq!(c.cwnd_bytes(), UNLIMITED_BYTES);
        assert_eq!(c.ssthresh_bytes(), UNLIMITED_BYTES);
    }
}
