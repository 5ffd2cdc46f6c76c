//! Gilbert-Elliott loss: a two-state Markov chain, Good and Bad, stepped once per packet.
//! Before each packet the chain moves Good->Bad with probability `p_gb` and Bad->Good with
//! probability `p_bg`; the packet is then lost with `loss_good` or `loss_bad` by the state it
//! finds (Gilbert 1960, Elliott 1963; the stationary Bad probability is p_gb / (p_gb + p_bg) and
//! the mean Bad run 1 / p_bg packets). The chain starts Good.

use super::{probability, LossModel};
use crate::sim::{rng, SimRng};
use serde::{Deserialize, Serialize};

/// Parameters of `kind = "gilbert_elliott"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottConfig {
    /// Probability of moving Good -> Bad before a packet.
    pub p_gb: f64,
    /// Probability of moving Bad -> Good before a packet.
    pub p_bg: f64,
    /// Loss probability in the Good state (default 0).
    #[serde(default)]
    pub loss_good: f64,
    /// Loss probability in the Bad state (default 1).
    #[serde(default = "one")]
    pub loss_bad: f64,
}

fn one() -> f64 {
    1.0
}

impl GilbertElliottConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        probability("p_gb", self.p_gb)?;
        probability("p_bg", self.p_bg)?;
        probability("loss_good", self.loss_good)?;
        probability("loss_bad", self.loss_bad)?;
        // A chain that never loses a packet changes nothing (and draws for nothing): refused.
        // The chain starts Good, so Bad's loss counts only when Bad can be reached.
        if self.loss_good == 0.0 && self.loss_bad == 0.0 {
            return Err(("loss_bad", "has no effect: loss_good and loss_bad are both 0, so no packet is ever lost; expected a loss probability above 0 in one state, or no loss on the link".into()));
        }
        if self.loss_good == 0.0 && self.p_gb == 0.0 {
            return Err(("p_gb", "has no effect: with p_gb = 0 the chain never leaves Good, where loss_good = 0 loses nothing; expected p_gb above 0, or loss_good above 0, or no loss on the link".into()));
        }
        Ok(())
    }
    /// Each packet draws its state change and its loss; a probability of 0 or 1 decides
    /// without a draw. The chain starts Good, so Bad's two probabilities count only when Bad
    /// can be reached (`p_gb` > 0).
    pub fn draws_random(&self) -> bool {
        let drawn = |p: f64| p > 0.0 && p < 1.0;
        drawn(self.p_gb) || drawn(self.loss_good) || (self.p_gb > 0.0 && (drawn(self.p_bg) || drawn(self.loss_bad)))
    }
}

/// Bursty losses.
#[derive(Clone, Copy, Debug)]
pub struct GilbertElliott {
    c: GilbertElliottConfig,
    bad: bool,
}

impl GilbertElliott {
    /// Starts in the Good state.
    pub fn new(c: &GilbertElliottConfig) -> Self {
        GilbertElliott { c: *c, bad: false }
    }
}

impl LossModel for GilbertElliott {
    #[inline]
    fn lose(&mut self, r: &mut SimRng) -> bool {
        let flip = if self.bad { self.c.p_bg } else { self.c.p_gb };
        if rng::uniform(r) < flip {
            self.bad = !self.bad;
        }
        let p = if self.bad { self.c.loss_bad } else { self.c.loss_good };
        rng::uniform(r) < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gilbert_elliott_loses_the_stationary_fraction_in_bursts_of_the_mean_length() {
        // Bad 1/(1+9) = 10% of the time, mean bad run 1/0.1 = 10 packets, all lost when bad.
        let mut m = GilbertElliott::new(&GilbertElliottConfig { p_gb: 0.0111, p_bg: 0.1, loss_good: 0.0, loss_bad: 1.0 });
        let mut r = rng::stream(12, "ge");
        let n = 2_000_000;
        let (mut lost, mut runs, mut prev) = (0u64, 0u64, false);
        for _ in 0..n {
            let l = m.lose(&mut r);
            lost += l as u64;
            if l && !prev {
                runs += 1;
            }
            prev = l;
        }
        let stationary = 0.0111 / (0.0111 + 0.1);
        let frac = lost as f64 / n as f64;
        // Runs of ~10 correlated packets: about 20,000 independent runs, so a few per cent.
        assert!((frac / stationary - 1.0).abs() < 0.05, "fraction {frac} vs {stationary}");
        let mean_run = lost as f64 / runs as f64;
        assert!((mean_run - 10.0).abs() < 0.5, "mean burst {mean_run}");
    }
}
