//! Transfer size distributions for arrival processes of finite transfers: fixed, exponential, and
//! Pareto given by its mean and shape (the parameterisation of ns-2's WebTraf object sizes, seed
//! 003 s4.B.3: mean 10 packets, shape 1.2). See `docs/traffic/sizes.md`.

use crate::sim::{rng, SimRng};
use serde::{Deserialize, Serialize};

/// How the size of each transfer is drawn, in bytes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDistribution {
    /// Every transfer has `bytes`.
    Fixed {
        /// Transfer size, bytes.
        bytes: u64,
    },
    /// Exponential with mean `mean_bytes` (rounded up to whole bytes, at least 1).
    Exponential {
        /// Mean size, bytes.
        mean_bytes: f64,
    },
    /// Pareto (type I) with mean `mean_bytes` and tail index `shape` > 1: scale
    /// `x_m = mean * (shape - 1) / shape`, P(X > x) = (x_m / x)^shape for x >= x_m.
    Pareto {
        /// Mean size, bytes.
        mean_bytes: f64,
        /// Tail index (must exceed 1 for the mean to exist).
        shape: f64,
    },
    /// Pareto type II (Lomax; ns-2's `ParetoII`, the WebTraf object size of seed 003 s4.B.3)
    /// with mean `mean_bytes` and tail index `shape` > 1: scale `s = mean * (shape - 1)`,
    /// P(X > x) = (1 + x / s)^-shape for x >= 0.
    ParetoIi {
        /// Mean size, bytes.
        mean_bytes: f64,
        /// Tail index (must exceed 1 for the mean to exist).
        shape: f64,
    },
}

impl SizeDistribution {
    /// Checks the parameters; on error, the field and what was expected.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        match *self {
            SizeDistribution::Fixed { bytes } if bytes == 0 => Err(("bytes", "expected a positive size".into())),
            SizeDistribution::Exponential { mean_bytes } | SizeDistribution::Pareto { mean_bytes, .. } | SizeDistribution::ParetoIi { mean_bytes, .. } if !(mean_bytes.is_finite() && mean_bytes >= 1.0) => {
                Err(("mean_bytes", format!("expected a mean of at least 1 byte, got {mean_bytes}")))
            }
            SizeDistribution::Pareto { shape, .. } | SizeDistribution::ParetoIi { shape, .. } if !(shape.is_finite() && shape > 1.0) => {
                Err(("shape", format!("expected a shape above 1 (the mean is infinite otherwise), got {shape}")))
            }
            _ => Ok(()),
        }
    }

    /// The mean size, bytes.
    pub fn mean_bytes(&self) -> f64 {
        match *self {
            SizeDistribution::Fixed { bytes } => bytes as f64,
            SizeDistribution::Exponential { mean_bytes } | SizeDistribution::Pareto { mean_bytes, .. } | SizeDistribution::ParetoIi { mean_bytes, .. } => mean_bytes,
        }
    }

    /// Draws one size, bytes (at least 1).
    pub fn sample(&self, r: &mut SimRng) -> u64 {
        let x = match *self {
            SizeDistribution::Fixed { bytes } => return bytes,
            SizeDistribution::Exponential { mean_bytes } => rng::exponential(r, mean_bytes),
            SizeDistribution::Pareto { mean_bytes, shape } => {
                let scale = mean_bytes * (shape - 1.0) / shape;
                // Inverse transform: U uniform in (0, 1] gives scale / U^(1/shape).
                let u = 1.0 - rng::uniform(r);
                scale / crate::sim::math::pow(u, 1.0 / shape)
            }
            SizeDistribution::ParetoIi { mean_bytes, shape } => {
                let scale = mean_bytes * (shape - 1.0);
                let u = 1.0 - rng::uniform(r);
                scale * (crate::sim::math::pow(u, -1.0 / shape) - 1.0)
            }
        };
        (x.ceil() as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(d: SizeDistribution, n: usize, seed: u64) -> Vec<f64> {
        let mut r = rng::stream(seed, "sizes");
        (0..n).map(|_| d.sample(&mut r) as f64).collect()
    }

    #[test]
    fn exponential_sizes_have_their_mean_within_three_standard_errors() {
        let xs = draw(SizeDistribution::Exponential { mean_bytes: 15_000.0 }, 200_000, 1);
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        // Rounding up adds 0.5 byte on average; sd of an exponential is its mean.
        let se = 15_000.0 / (xs.len() as f64).sqrt();
        assert!((mean - 15_000.5).abs() < 3.0 * se, "mean {mean}");
    }

    #[test]
    fn pareto_sizes_have_their_mean_when_the_variance_is_finite() {
        // Shape 2.5: variance mean^2 / (a (a - 2)) = 0.8 mean^2, so sd = 0.894 mean.
        let xs = draw(SizeDistribution::Pareto { mean_bytes: 10_000.0, shape: 2.5 }, 400_000, 2);
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let se = 10_000.0 * (1.0f64 / (2.5 * 0.5)).sqrt() / (xs.len() as f64).sqrt();
        assert!((mean - 10_000.5).abs() < 3.0 * se, "mean {mean}");
    }

    #[test]
    fn pareto_with_shape_1_2_has_the_tail_and_median_of_its_parameters() {
        // Seed 003's objects: mean 10 packets of 1000 B, shape 1.2; x_m = 10000 * 0.2 / 1.2.
        // The sample mean converges too slowly at shape 1.2 to test it; the tail and the median
        // are exact: P(X > x) = (x_m / x)^1.2, median x_m * 2^(1/1.2).
        let n = 400_000;
        let xs = draw(SizeDistribution::Pareto { mean_bytes: 10_000.0, shape: 1.2 }, n, 3);
        let xm: f64 = 10_000.0 * 0.2 / 1.2;
        for x in [2.0f64 * xm, 10.0 * xm, 100.0 * xm] {
            let p = (xm / x).powf(1.2);
            let got = xs.iter().filter(|&&v| v > x).count() as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((got - p).abs() < 3.0 * se + 1e-6, "P(X > {x}) = {got}, expected {p}");
        }
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[n / 2];
        let want = xm * 2f64.powf(1.0 / 1.2);
        assert!((median / want - 1.0).abs() < 0.01, "median {median} vs {want}");
    }

    #[test]
    fn pareto_ii_sizes_have_the_lomax_tail_of_their_parameters() {
        // ns-2 WebTraf objects: ParetoII mean 10 packets, shape 1.2, so scale 10 * 0.2 = 2
        // packets and P(X > x) = (1 + x / 2)^-1.2 (sizes here in packets, before rounding up).
        let n = 400_000;
        let xs = draw(SizeDistribution::ParetoIi { mean_bytes: 10.0, shape: 1.2 }, n, 4);
        for x in [1.0f64, 5.0, 50.0] {
            let p = (1.0 + x / 2.0f64).powf(-1.2);
            // Rounding up to whole units: X_rounded > x (integer x) iff X > x.
            let got = xs.iter().filter(|&&v| v > x).count() as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((got - p).abs() < 3.0 * se + 1e-6, "P(X > {x}) = {got}, expected {p}");
        }
    }

    #[test]
    fn out_of_range_parameters_name_their_field() {
        assert_eq!(SizeDistribution::Pareto { mean_bytes: 10.0, shape: 1.0 }.validate().unwrap_err().0, "shape");
        assert_eq!(SizeDistribution::Exponential { mean_bytes: 0.0 }.validate().unwrap_err().0, "mean_bytes");
        assert_eq!(SizeDistribution::Fixed { bytes: 0 }.validate().unwrap_err().0, "bytes");
        assert!(SizeDistribution::Fixed { bytes: 14_480 }.validate().is_ok());
    }
}
