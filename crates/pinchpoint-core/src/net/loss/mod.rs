//! Random loss on a link: a packet that finishes crossing the wire is lost with a probability
//! the loss model decides (bit errors, a lossy radio hop), independently of any queue. Each
//! direction of a link draws from its own stream (`loss:<from>-><to>`), so adding loss to one
//! link leaves every other random choice of the run unchanged.
//!
//! The port counts these losses apart from its queue drops (`link_losses_pkts`): a lost packet
//! was transmitted, so the port's own conservation (arrivals = transmitted + dropped + waiting)
//! still holds. See `docs/algorithms/link_loss.md`.

use crate::sim::SimRng;
use serde::{Deserialize, Serialize};

pub mod bernoulli;
pub mod gilbert_elliott;

/// A link loss model: decides for each packet reaching the far end whether it is lost.
pub trait LossModel {
    /// True if the packet now reaching the far end is lost.
    fn lose(&mut self, rng: &mut SimRng) -> bool;
}

/// The registry of loss models, keyed by the name used in scenario files.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LossConfig {
    /// Each packet lost independently with probability `p`.
    Bernoulli(bernoulli::BernoulliConfig),
    /// Two-state Markov chain (good/bad) with a loss probability per state.
    GilbertElliott(gilbert_elliott::GilbertElliottConfig),
}

/// A built loss model (closed set).
#[derive(Clone, Copy, Debug)]
pub enum AnyLoss {
    /// Independent losses.
    Bernoulli(bernoulli::Bernoulli),
    /// Bursty losses.
    GilbertElliott(gilbert_elliott::GilbertElliott),
}

impl LossModel for AnyLoss {
    #[inline]
    fn lose(&mut self, rng: &mut SimRng) -> bool {
        match self {
            AnyLoss::Bernoulli(m) => m.lose(rng),
            AnyLoss::GilbertElliott(m) => m.lose(rng),
        }
    }
}

/// A probability setting out of range: the field and what was expected.
pub(crate) fn probability(field: &'static str, p: f64) -> Result<(), (&'static str, String)> {
    if (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err((field, format!("expected a probability in [0, 1], got {p}")))
    }
}

impl LossConfig {
    /// Checks the parameters; on error, the field inside the loss table and what was expected.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        match self {
            LossConfig::Bernoulli(c) => c.validate(),
            LossConfig::GilbertElliott(c) => c.validate(),
        }
    }
    /// The name used in scenario files.
    pub fn kind(&self) -> &'static str {
        match self {
            LossConfig::Bernoulli(_) => "bernoulli",
            LossConfig::GilbertElliott(_) => "gilbert_elliott",
        }
    }
    /// Whether the model, as configured, draws random numbers (the seed changes which packets
    /// are lost).
    pub fn draws_random(&self) -> bool {
        match self {
            LossConfig::Bernoulli(c) => c.draws_random(),
            LossConfig::GilbertElliott(c) => c.draws_random(),
        }
    }
    /// Builds the model (validated first).
    pub fn build(&self) -> AnyLoss {
        match self {
            LossConfig::Bernoulli(c) => AnyLoss::Bernoulli(bernoulli::Bernoulli { p: c.p }),
            LossConfig::GilbertElliott(c) => AnyLoss::GilbertElliott(gilbert_elliott::GilbertElliott::new(c)),
        }
    }
}
