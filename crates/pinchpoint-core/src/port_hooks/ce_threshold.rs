//! Instantaneous-threshold congestion marking: set the CE bit (and the ECN CE codepoint of
//! ECN-capable packets) on every packet that arrives while at least `threshold_pkts` packets wait.
//!
//! The simplest congestion-indication rule a router can run, and the step-marking rule DCTCP-era
//! switches use. The ATN/DECbit rule (marking on the *average* queue) is its own hook.

use super::{PortHook, PortView};
use crate::net::packet::{Ecn, Packet};
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};

/// Scenario configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CeThresholdConfig {
    /// Mark arrivals that find at least this many packets waiting.
    pub threshold_pkts: u32,
}

/// The hook.
#[derive(Debug)]
pub struct CeThreshold {
    threshold_pkts: u32,
}

impl CeThreshold {
    /// Builds the hook.
    pub fn new(cfg: &CeThresholdConfig, _rate_bps: u64) -> Self {
        CeThreshold { threshold_pkts: cfg.threshold_pkts }
    }
}

impl PortHook for CeThreshold {
    fn on_arrival(&mut self, pkt: &mut Packet, port: &PortView, _now: SimTime) {
        if port.queue_pkts >= self.threshold_pkts {
            pkt.set_ce();
            if pkt.ecn == Ecn::Ect {
                pkt.ecn = Ecn::Ce;
            }
        }
    }
}

/// Any threshold is meaningful (0 marks every packet).
impl crate::registry::Validate for CeThresholdConfig {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_only_at_or_above_threshold() {
        let mut h = CeThreshold::new(&CeThresholdConfig { threshold_pkts: 3 }, 1);
        let view = |q| PortView { queue_pkts: q, queue_bytes: 0, busy: true, rate_bps: 1 };
        let mut p = Packet { ecn: Ecn::Ect, ..Default::default() };
        h.on_arrival(&mut p, &view(2), 0);
        assert!(!p.ce());
        h.on_arrival(&mut p, &view(3), 0);
        assert!(p.ce());
        assert_eq!(p.ecn, Ecn::Ce);
    }
}
