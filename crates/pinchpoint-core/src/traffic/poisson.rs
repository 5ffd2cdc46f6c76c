//! Poisson: messages of `packet_size` with exponentially distributed gaps of mean
//! `packet_size * 8 / rate` (a Poisson process of messages), the first at the flow's start.
//! See `docs/traffic/poisson.md`.

use super::{gap_to_ps, mean_gap_ps, packet_size_ok, positive, MessageClock, MessageSchedule, WorkloadError};
use crate::scenario::units::{Bytes, Duration, Rate};
use crate::sim::{rng, SimRng, SimTime};
use serde::{Deserialize, Serialize};

/// Parameters of `kind = "poisson"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoissonConfig {
    /// Mean sending rate (bits on the wire per second).
    pub rate: Rate,
    /// Size of each message on the wire.
    pub packet_size: Bytes,
    /// Stop offering after this long (default: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
}

impl PoissonConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        positive("rate", self.rate.0, "rate")?;
        packet_size_ok(self.packet_size)
    }
    /// Exponential gaps between messages.
    pub fn draws_random(&self) -> bool {
        true
    }
}

/// Exponential gaps between messages.
#[derive(Clone, Copy, Debug)]
pub struct ExponentialGaps {
    mean_gap_ps: f64,
}

impl MessageSchedule for ExponentialGaps {
    #[inline]
    fn next_after(&mut self, t: SimTime, r: &mut SimRng) -> SimTime {
        t + gap_to_ps(rng::exponential(r, self.mean_gap_ps))
    }
}

/// A Poisson message source.
pub type Poisson = MessageClock<ExponentialGaps>;

impl Poisson {
    /// From validated parameters.
    pub fn new(c: &PoissonConfig) -> Self {
        let gaps = ExponentialGaps { mean_gap_ps: mean_gap_ps(c.packet_size.0, c.rate.0) };
        MessageClock::with_schedule(c.packet_size.0 as u32, c.duration.map(|d| d.0), gaps)
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::{rng, ps_to_secs, PS_PER_S};
    use crate::traffic::{testing, WorkloadConfig};

    #[test]
    fn poisson_gaps_have_the_mean_and_spread_of_an_exponential() {
        let c: WorkloadConfig = serde_json::from_str(r#"{"kind":"poisson","rate":"1Mbps","packet_size":1000}"#).unwrap();
        let mut w = c.build();
        let mut r = rng::stream(7, "poisson");
        let (times, _) = testing::run(&mut w, 0, 200 * PS_PER_S, &mut r);
        let gaps: Vec<f64> = times.windows(2).map(|p| ps_to_secs(p[1] - p[0])).collect();
        let n = gaps.len() as f64;
        let mean = gaps.iter().sum::<f64>() / n;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        // Mean gap 8 ms; within 3 standard errors. An exponential's sd equals its mean.
        assert!((mean - 0.008).abs() < 3.0 * 0.008 / n.sqrt(), "mean gap {mean} over {n} gaps");
        assert!((sd / mean - 1.0).abs() < 0.05, "cv {}", sd / mean);
    }
}
