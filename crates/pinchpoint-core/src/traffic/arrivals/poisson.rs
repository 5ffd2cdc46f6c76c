//! Poisson arrivals: transfers arrive with exponential gaps of mean `1 / rate_per_s` from
//! `start` until `stop` or until `count` have arrived, each with a size drawn from `size` and a
//! source and destination picked uniformly from the arrival's lists. The classic model of
//! short-flow arrivals on a link (Paxson and Floyd 1995: session arrivals are Poisson). See
//! `docs/traffic/arrivals.md`.

use super::{check_rate_per_s, gap, mean_gap_ps, pick, size_at, ArrivalProcess, ProcessInit, Transfer, TransferSize, TransferSizeConfig};
use crate::registry::{FieldError, Validate};
use crate::scenario::units::Duration;
use crate::sim::{rng, SimRng, SimTime};
use serde::{Deserialize, Serialize};

/// Parameters of `kind = "poisson"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoissonArrivalsConfig {
    /// Mean arrival rate, transfers per second.
    pub rate_per_s: f64,
    /// When the process starts (the first arrival is one exponential gap later).
    #[serde(default)]
    pub start: Duration,
    /// No arrival at or after this time (default: none, until the run ends or `count`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// At most this many transfers (default: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Size of each transfer.
    pub size: TransferSizeConfig,
}

impl Validate for PoissonArrivalsConfig {
    fn validate(&self) -> Result<(), FieldError> {
        check_rate_per_s("rate_per_s", self.rate_per_s)?;
        if let Some(stop) = self.stop {
            if stop <= self.start {
                return Err(FieldError::new("stop", format!("expected a time after start ({} s), got {} s", self.start.secs(), stop.secs())));
            }
        }
        if self.count == Some(0) {
            return Err(FieldError::new("count", "expected at least 1 transfer"));
        }
        size_at("size", &self.size)
    }
    /// Exponential gaps between arrivals.
    fn draws_random(&self) -> bool {
        true
    }
}

/// The running process.
#[derive(Clone, Debug)]
pub struct PoissonArrivals {
    mean_gap_ps: f64,
    next_at: SimTime,
    stop_at: SimTime,
    remaining: u64,
    size: TransferSize,
    init: ProcessInit,
}

impl PoissonArrivals {
    /// Builds the process (validated config).
    pub fn new(c: &PoissonArrivalsConfig, init: ProcessInit) -> Self {
        PoissonArrivals {
            mean_gap_ps: mean_gap_ps(c.rate_per_s),
            next_at: c.start.0,
            stop_at: c.stop.map_or(SimTime::MAX, |d| d.0),
            remaining: c.count.unwrap_or(u64::MAX),
            size: c.size.build(init.packet_bytes).expect("validated size"),
            init,
        }
    }
}

impl ArrivalProcess for PoissonArrivals {
    fn next_transfer(&mut self, r: &mut SimRng) -> Option<Transfer> {
        if self.remaining == 0 {
            return None;
        }
        let at = self.next_at.saturating_add(gap(rng::exponential(r, self.mean_gap_ps)));
        if at >= self.stop_at {
            self.remaining = 0;
            return None;
        }
        self.next_at = at;
        self.remaining -= 1;
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

    fn config(rate_per_s: f64, count: Option<u64>, stop_s: Option<u64>, size: TransferSizeConfig) -> PoissonArrivalsConfig {
        PoissonArrivalsConfig { rate_per_s, start: Duration(PS_PER_S), stop: stop_s.map(|s| Duration(s * PS_PER_S)), count, size }
    }

    #[test]
    fn poisson_gaps_are_exponential_with_the_configured_rate() {
        let c = config(250.0, Some(40_000), None, TransferSizeConfig::Fixed { bytes: Some(1000), pkts: None });
        let ts = drain(ProcessConfig::Poisson(c), 2, 2, 7);
        assert_eq!(ts.len(), 40_000);
        let gaps = gaps_s(PS_PER_S, &ts);
        assert_mean_within_ci(&gaps, 1.0 / 250.0, 1.0 / 250.0, "gap");
        // Kolmogorov-Smirnov against Exp(250/s): D * sqrt(n) < 1.63 is the 1% critical value.
        let d = ks_statistic(&gaps, |x| 1.0 - (-250.0 * x).exp());
        assert!(d * (gaps.len() as f64).sqrt() < 1.63, "KS D = {d}");
    }

    #[test]
    fn poisson_sizes_in_packets_have_the_exponential_mean_and_pairs_are_uniform() {
        let c = config(100.0, Some(40_000), None, TransferSizeConfig::Exponential { mean_bytes: None, mean_pkts: Some(10.0) });
        let ts = drain(ProcessConfig::Poisson(c), 2, 4, 8);
        let pkts: Vec<f64> = ts.iter().map(|t| (t.size_bytes / 1000) as f64).collect();
        assert!(ts.iter().all(|t| t.size_bytes % 1000 == 0), "whole packets of mss bytes");
        // Rounding up to whole packets: E[ceil(X)] = 1 / (1 - e^(-1/10)) for X ~ Exp(mean 10).
        let want = 1.0 / (1.0 - (-0.1f64).exp());
        assert_mean_within_ci(&pkts, want, 10.0, "size");
        assert_uniform_counts(ts.iter().map(|t| t.dst as usize), 4);
        assert_uniform_counts(ts.iter().map(|t| t.src as usize), 2);
    }

    #[test]
    fn poisson_arrivals_stop_before_the_stop_time_and_after_the_count() {
        let c = config(1000.0, None, Some(3), TransferSizeConfig::Fixed { bytes: Some(1), pkts: None });
        let ts = drain(ProcessConfig::Poisson(c), 1, 1, 9);
        assert!(ts.iter().all(|t| t.at >= PS_PER_S && t.at < 3 * PS_PER_S));
        // 2 s at 1000/s: 2000 +- 3 sqrt(2000).
        assert!((ts.len() as f64 - 2000.0).abs() < 3.0 * 2000f64.sqrt(), "{}", ts.len());
        let c = config(1000.0, Some(17), Some(3), TransferSizeConfig::Fixed { bytes: Some(1), pkts: None });
        assert_eq!(drain(ProcessConfig::Poisson(c), 1, 1, 9).len(), 17);
    }

    #[test]
    fn out_of_range_poisson_settings_name_their_field() {
        let mut c = config(0.0, None, None, TransferSizeConfig::Fixed { bytes: Some(1), pkts: None });
        assert_eq!(c.validate().unwrap_err().field, "rate_per_s");
        c.rate_per_s = 1.0;
        c.stop = Some(Duration(PS_PER_S / 2));
        assert_eq!(c.validate().unwrap_err().field, "stop");
        c.stop = None;
        c.size = TransferSizeConfig::Pareto { mean_bytes: Some(100.0), mean_pkts: Some(1.0), shape: 1.5 };
        assert_eq!(c.validate().unwrap_err().field, "size.mean_pkts");
        c.size = TransferSizeConfig::Pareto { mean_bytes: Some(100.0), mean_pkts: None, shape: 1.0 };
        assert_eq!(c.validate().unwrap_err().field, "size.shape");
    }
}
