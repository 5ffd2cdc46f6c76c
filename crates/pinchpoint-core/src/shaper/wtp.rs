//! Weighted Token-bucket Pacing (WTP), the host half of Explicit Congestion Avoidance (Barham,
//! MSR-TR-2001-100 s3.A.3, s4.A.3): a token-bucket shaper per flow between the transport and the
//! NIC whose sustained rate is `r = w / L`, with `w` the flow's weight and `L` the path load the
//! receiver reflected (RLOAD). The transport (TCP) runs unmodified inside it and sees a path of
//! rate `r`.
//!
//! Units: `L` is in weight per Mbit/s (see `port_hooks::eca_load`), so `r = w / L` Mbit/s.
//! Until the first RLOAD arrives the shaper does not limit (the paper gives no starting rate; the
//! first reflection comes one round trip after the first packet, and the 16 KB bucket bounds the
//! burst before it anyway).

use crate::scenario::units::Bytes;
use serde::{Deserialize, Serialize};

/// Rate one unit of weight gets at load 1, bit/s (L is counted per Mbit/s).
pub const LOAD_UNIT_BPS: f64 = 1e6;
/// Rate before the first load report: not limited in practice (1 Tbit/s).
pub const UNLIMITED_BPS: u64 = 1_000_000_000_000;

fn default_bucket() -> Bytes {
    // s3.A.3: "enough for 16K bytes of data"; s4.C: the knee at the 16K bucket.
    Bytes(16 * 1024)
}

/// Scenario configuration of a flow's WTP shaper (`[flows.wtp]`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WtpConfig {
    /// Flow weight `w` (> 0): the sustained rate is `w / L` Mbit/s.
    pub weight: f64,
    /// Token bucket depth (default 16 KiB, s3.A.3).
    #[serde(default = "default_bucket")]
    pub bucket: Bytes,
}

impl WtpConfig {
    /// Checks the settings; on error returns (field, what was expected).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.weight > 0.0 && self.weight.is_finite()) {
            return Err(("weight", format!("expected a positive weight, got {}", self.weight)));
        }
        if self.bucket.0 == 0 {
            return Err(("bucket", "expected a positive bucket size".into()));
        }
        Ok(())
    }
}

/// The sustained WTP rate for weight `weight` under reflected load `rload`, bit/s; `None` when
/// the packet carries no load report (RLOAD 0: no ECA router on the path yet).
#[inline]
pub fn wtp_rate_bps(weight: f64, rload: f32) -> Option<u64> {
    if !(rload > 0.0) || !rload.is_finite() {
        return None;
    }
    let r = weight * LOAD_UNIT_BPS / rload as f64;
    Some(r.clamp(1.0, UNLIMITED_BPS as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_is_weight_over_load_in_mbps() {
        assert_eq!(wtp_rate_bps(3.0, 0.5), Some(6_000_000));
        assert_eq!(wtp_rate_bps(1.0, 0.125), Some(8_000_000));
        // 15 + 15 weights at 90% of 10 Mbit/s: L = 30 / 9, weight 5 gets 1.5 Mbit/s.
        let l = (30.0f64 / 9.0) as f32;
        let r = wtp_rate_bps(5.0, l).unwrap();
        assert!((r as f64 - 1.5e6).abs() < 1.0, "{r}");
    }

    #[test]
    fn no_load_report_leaves_the_rate_alone() {
        assert_eq!(wtp_rate_bps(1.0, 0.0), None);
        assert_eq!(wtp_rate_bps(1.0, f32::NAN), None);
    }

    #[test]
    fn bad_weight_is_refused_by_name() {
        let c = WtpConfig { weight: 0.0, bucket: default_bucket() };
        assert_eq!(c.validate().unwrap_err().0, "weight");
    }
}
