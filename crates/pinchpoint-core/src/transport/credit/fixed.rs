//! A fixed receiver window: the receiver always advertises the same credit. With no size given it
//! advertises its buffer (`tcp.max_window`; if absent, the largest window TCP can advertise,
//! [`MAX_ADVERTISED_WINDOW_BYTES`]), which is ordinary TCP flow
//! control; with `window_pkts` it is the fixed-window transport without congestion avoidance that
//! ATN exercise 3 uses as its baseline (WP/267 s3, 17 packets).

use super::{ReceiverInit, ReceiverPolicy};
use serde::{Deserialize, Serialize};

/// Scenario configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixedWindowConfig {
    /// Window in full-size packets (times the MSS); absent: the receiver buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_pkts: Option<u32>,
}

/// The largest window a TCP receiver can advertise: a 16-bit window field scaled by a shift of
/// at most 14 (RFC 7323 s2.3), 2^30 bytes, so also Linux's and ns-3's ceiling. It is the window
/// of a receiver whose buffer is not given. (It used to be 64 GiB, "unlimited": a sender with
/// `cc = "none"` then emitted some 47 million segments at its start and after every timeout, a
/// multi-gigabyte burst that took about 10 s of wall time per simulated second.)
pub const MAX_ADVERTISED_WINDOW_BYTES: u64 = 1 << 30;

/// A receiver that always advertises the same window.
#[derive(Clone, Debug)]
pub struct FixedWindow {
    window_bytes: u64,
}

impl FixedWindow {
    /// Builds the policy.
    pub fn new(cfg: &FixedWindowConfig, init: ReceiverInit) -> Self {
        let w = match cfg.window_pkts {
            Some(n) => n as u64 * init.mss as u64,
            None => init.max_window_bytes.unwrap_or(MAX_ADVERTISED_WINDOW_BYTES),
        };
        let w = init.max_window_bytes.map_or(w, |m| w.min(m));
        FixedWindow { window_bytes: w }
    }
}

impl ReceiverPolicy for FixedWindow {
    fn window_bytes(&self) -> u64 {
        self.window_bytes
    }
}

/// `window_pkts`, if given, 1 to 10^9 packets.
impl crate::registry::Validate for FixedWindowConfig {
    fn validate(&self) -> Result<(), crate::registry::FieldError> {
        match self.window_pkts {
            Some(w) => crate::registry::check_int("window_pkts", w, 1, 1_000_000_000),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_in_packets_times_mss_capped_by_buffer() {
        let init = ReceiverInit { mss: 500, max_window_bytes: None };
        assert_eq!(FixedWindow::new(&FixedWindowConfig { window_pkts: Some(17) }, init).window_bytes(), 8500);
        let small = ReceiverInit { mss: 500, max_window_bytes: Some(4000) };
        assert_eq!(FixedWindow::new(&FixedWindowConfig { window_pkts: Some(17) }, small).window_bytes(), 4000);
        assert_eq!(FixedWindow::new(&FixedWindowConfig::default(), small).window_bytes(), 4000);
    }
}
