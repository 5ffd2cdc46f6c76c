//! Flash crowd: `count` transfers arriving at `rate_per_s` from time `at` (seed 004: 1000 TCP
//! transfers of 10 packets at 100 per second from t = 20 s). The seed does not say how the
//! arrivals are spaced; `spacing = "poisson"` (default: exponential gaps of mean
//! `1 / rate_per_s`, the first one gap after `at`, as ns-2 scripts usually draw them) or `"even"`
//! (exactly `1 / rate_per_s` apart, the first at `at`). See `docs/traffic/arrivals.md`.

use super::{check_rate_per_s, gap, mean_gap_ps, pick, size_at, ArrivalProcess, ProcessInit, Transfer, TransferSize, TransferSizeConfig};
use crate::registry::{FieldError, Validate};
use crate::scenario::units::Duration;
use crate::sim::{rng, SimRng, SimTime};
use serde::{Deserialize, Serialize};

/// How the arrivals of a flash crowd are spaced.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Spacing {
    /// Exponential gaps (a Poisson process of the given rate).
    #[default]
    Poisson,
    /// Equal gaps of `1 / rate_per_s`.
    Even,
}

/// Parameters of `kind = "flash_crowd"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlashCrowdConfig {
    /// Number of transfers.
    pub count: u64,
    /// Arrival rate, transfers per second.
    pub rate_per_s: f64,
    /// When the crowd starts.
    pub at: Duration,
    /// `poisson` (default) or `even`.
    #[serde(default)]
    pub spacing: Spacing,
    /// Size of each transfer.
    pub size: TransferSizeConfig,
}

impl Validate for FlashCrowdConfig {
    fn validate(&self) -> Result<(), FieldError> {
        crate::registry::check_int("count", self.count, 1, 100_000_000)?;
        check_rate_per_s("rate_per_s", self.rate_per_s)?;
        size_at("size", &self.size)
    }
    /// Poisson spacing draws the gaps, a size distribution other than `fixed` the sizes; an
    /// evenly spaced crowd of fixed-size transfers draws nothing (the choice among several
    /// hosts is the arrival entry's, see [`crate::scenario::random_parts`]).
    fn draws_random(&self) -> bool {
        self.spacing == Spacing::Poisson || self.size.draws_random()
    }
}

/// The running process.
#[derive(Clone, Debug)]
pub struct FlashCrowd {
    start: SimTime,
    mean_gap_ps: f64,
    spacing: Spacing,
    next_at: SimTime,
    issued: u64,
    count: u64,
    size: TransferSize,
    init: ProcessInit,
}

impl FlashCrowd {
    /// Builds the process (validated config).
    pub fn new(c: &FlashCrowdConfig, init: ProcessInit) -> Self {
        FlashCrowd {
            start: c.at.0,
            mean_gap_ps: mean_gap_ps(c.rate_per_s),
            spacing: c.spacing,
            next_at: c.at.0,
            issued: 0,
            count: c.count,
            size: c.size.build(init.packet_bytes).expect("validated size"),
            init,
        }
    }
}

impl ArrivalProcess for FlashCrowd {
    fn next_transfer(&mut self, r: &mut SimRng) -> Option<Transfer> {
        if self.issued == self.count {
            return None;
        }
        let at = match self.spacing {
            Spacing::Poisson => self.next_at.saturating_add(gap(rng::exponential(r, self.mean_gap_ps))),
            // Computed from the start, not summed, so rounding does not accumulate.
            Spacing::Even => self.start.saturating_add((self.issued as f64 * self.mean_gap_ps).round() as SimTime),
        };
        self.next_at = at;
        self.issued += 1;
        let size_bytes = self.size.sample(r);
        Some(Transfer { at, size_bytes, src: pick(r, self.init.n_src), dst: pick(r, self.init.n_dst) })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::ProcessConfig;
    use super::*;
    use crate::sim::PS_PER_S;

    fn seed_004(spacing: Spacing) -> ProcessConfig {
        ProcessConfig::FlashCrowd(FlashCrowdConfig {
            count: 1000,
            rate_per_s: 100.0,
            at: Duration(20 * PS_PER_S),
            spacing,
            size: TransferSizeConfig::Fixed { bytes: None, pkts: Some(10) },
        })
    }

    #[test]
    fn seed_004s_flash_crowd_brings_1000_ten_packet_transfers_at_100_per_second_from_20_s() {
        let ts = drain(seed_004(Spacing::Poisson), 1, 1, 3);
        assert_eq!(ts.len(), 1000);
        assert!(ts.iter().all(|t| t.size_bytes == 10_000 && t.at > 20 * PS_PER_S));
        let gaps = gaps_s(20 * PS_PER_S, &ts);
        assert_mean_within_ci(&gaps, 0.01, 0.01, "gap");
        let d = ks_statistic(&gaps, |x| 1.0 - (-100.0 * x).exp());
        assert!(d * (gaps.len() as f64).sqrt() < 1.63, "KS D = {d}");
        // The crowd lasts about 10 s (1000 / 100 per s): the last arrival within 3 sd.
        let span_s = (ts[999].at - 20 * PS_PER_S) as f64 / PS_PER_S as f64;
        assert!((span_s - 10.0).abs() < 3.0 * 10.0 / 1000f64.sqrt(), "{span_s}");
    }

    #[test]
    fn an_evenly_spaced_crowd_arrives_exactly_every_one_over_rate() {
        let ts = drain(seed_004(Spacing::Even), 1, 1, 3);
        assert_eq!(ts.len(), 1000);
        for (k, t) in ts.iter().enumerate() {
            assert_eq!(t.at, 20 * PS_PER_S + k as u64 * PS_PER_S / 100);
        }
    }
}
