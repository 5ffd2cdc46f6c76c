//! `newreno`: the name ns-3 (`TcpNewReno`) and ns-2 give the RFC 5681 window rules; here it is
//! the same window as `reno` (Linux has only `reno`). NewReno *loss recovery* (RFC 6582) is not a
//! property of the controller: it is `tcp.recovery = "newreno"`, the default when SACK is off.

use serde::{Deserialize, Serialize};

/// NewReno has no parameters beyond the TCP settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRenoConfig {}

impl super::CcSettings for NewRenoConfig {}

/// TCP NewReno: Reno's controller under ns-3's and ns-2's name.
pub type NewReno = super::reno::Reno;

#[cfg(test)]
mod tests {
    use super::super::{CcInit, CongestionControl};
    use super::*;

    #[test]
    fn has_the_reno_window() {
        let mut c = NewReno::new(&NewRenoConfig {}, CcInit { mss: 1448, init_cwnd_pkts: 10 });
        assert_eq!(c.cwnd_bytes(), 14_480);
        c.on_loss(14_480, 1448, 0);
        assert_eq!(c.cwnd_bytes(), 7240);
    }
}
