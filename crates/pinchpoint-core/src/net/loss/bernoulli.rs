//! Bernoulli loss: every packet is lost independently with probability `p` (ns-2's
//! ErrorModel with `unit pkt`, ns-3's RateErrorModel in packet mode).

use super::{probability, LossModel};
use crate::sim::{rng, SimRng};
use serde::{Deserialize, Serialize};

/// Parameters of `kind = "bernoulli"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BernoulliConfig {
    /// Probability that a packet is lost.
    pub p: f64,
}

impl BernoulliConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        probability("p", self.p)?;
        if self.p == 0.0 {
            // A loss model that never loses a packet changes nothing: refused, not ignored.
            return Err(("p", "has no effect: p = 0 never loses a packet; expected a probability above 0, or no loss on the link".into()));
        }
        Ok(())
    }
    /// A draw per packet, unless `p` is 0 (never lost) or 1 (always lost).
    pub fn draws_random(&self) -> bool {
        self.p > 0.0 && self.p < 1.0
    }
}

/// Independent losses.
#[derive(Clone, Copy, Debug)]
pub struct Bernoulli {
    /// Loss probability.
    pub p: f64,
}

impl LossModel for Bernoulli {
    #[inline]
    fn lose(&mut self, r: &mut SimRng) -> bool {
        rng::uniform(r) < self.p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bernoulli_loses_its_fraction_within_three_standard_errors() {
        let mut m = Bernoulli { p: 0.01 };
        let mut r = rng::stream(11, "loss");
        let n = 1_000_000;
        let lost = (0..n).filter(|_| m.lose(&mut r)).count() as f64;
        let se = (0.01f64 * 0.99 / n as f64).sqrt();
        assert!((lost / n as f64 - 0.01).abs() < 3.0 * se, "fraction {}", lost / n as f64);
    }
}
