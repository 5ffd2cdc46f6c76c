//! `newreno`: the name ns-3 (`TcpNewReno`) and ns-2 give the RFC 5681 window rules; here it is
//! the same window as `reno` (Linux has only `reno`). NewReno *loss recovery* (RFC 6582) is not a
//! property of the controller: it is `tcp.recovery = "newreno"`, the default when SACK is off.

use super::reno::RenoWindow;
use super::{AckSample, CcInit, CongestionControl};
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};

/// NewReno has no parameters beyond the TCP settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRenoConfig {}

impl super::CcSettings for NewRenoConfig {}

/// TCP NewReno.
#[derive(Clone, Debug)]
pub struct NewReno {
    w: RenoWindow,
}

impl NewReno {
    /// Builds NewReno.
    pub fn new(_cfg: &NewRenoConfig, init: CcInit) -> Self {
        NewReno { w: RenoWindow::new(init) }
    }
}

impl CongestionControl for NewReno {
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
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_the_reno_window() {
        let mut c = NewReno::new(&NewRenoConfig {}, CcInit { mss: 1448, init_cwnd_pkts: 10 });
        assert_eq!(c.cwnd_bytes(), 14_480);
        c.on_loss(14_480, 1448, 0);
        assert_eq!(c.cwnd_bytes(), 7240);
    }
}
