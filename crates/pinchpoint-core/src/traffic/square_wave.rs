//! Square wave: CBR switched on for `duty * period` and off for the rest of each `period`,
//! starting on (seed 004's flash on/off cross traffic, swept over periods of 0.2-16 s). It is an
//! on/off source with fixed periods. See `docs/traffic/square_wave.md`.

use super::on_off::{OnOff, OnOffConfig, PeriodDistribution};
use super::{packet_size_ok, positive, WorkloadError};
use crate::scenario::units::{Bytes, Duration, Rate};
use serde::{Deserialize, Serialize};

/// Parameters of `kind = "square_wave"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SquareWaveConfig {
    /// Sending rate while on (bits on the wire per second).
    pub rate: Rate,
    /// Size of each message on the wire.
    pub packet_size: Bytes,
    /// Length of one on + off cycle.
    pub period: Duration,
    /// Fraction of the period that is on, in (0, 1] (default 0.5).
    #[serde(default = "half")]
    pub duty: f64,
    /// Stop offering after this long (default: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
}

fn half() -> f64 {
    0.5
}

impl SquareWaveConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        positive("rate", self.rate.0, "rate")?;
        packet_size_ok(self.packet_size)?;
        if self.period.0 == 0 {
            return Err(WorkloadError { field: "period", expected: "expected a positive duration".into() });
        }
        if !(self.duty > 0.0 && self.duty <= 1.0) {
            return Err(WorkloadError { field: "duty", expected: format!("expected a fraction in (0, 1], got {}", self.duty) });
        }
        if (self.duty * self.period.0 as f64).round() < 1.0 {
            return Err(WorkloadError { field: "duty", expected: "expected an on time of at least 1 ps".into() });
        }
        Ok(())
    }

    /// The equivalent on/off source.
    pub fn build(&self) -> OnOff {
        let on_ps = (self.duty * self.period.0 as f64).round() as u64;
        OnOff::new(&OnOffConfig {
            rate: self.rate,
            packet_size: self.packet_size,
            on: Duration(on_ps),
            off: Duration(self.period.0 - on_ps.min(self.period.0)),
            distribution: PeriodDistribution::Fixed,
            duration: self.duration,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::{rng, PS_PER_S};
    use crate::traffic::{testing, WorkloadConfig};

    #[test]
    fn a_square_wave_is_on_for_its_duty_and_repeats_with_its_period() {
        let c: WorkloadConfig = serde_json::from_str(r#"{"kind":"square_wave","rate":"8Mbps","packet_size":1000,"period":"2s","duty":0.25}"#).unwrap();
        let mut w = c.build();
        let mut r = rng::stream(5, "sq");
        let (times, bytes) = testing::run(&mut w, PS_PER_S, 21 * PS_PER_S - 1, &mut r);
        // Ten periods of 2 s from t = 1 s, each on for 500 ms at one 1000-byte message per ms.
        assert_eq!(bytes, 10 * 500 * 1000);
        let ms = PS_PER_S / 1000;
        assert_eq!(times[499], PS_PER_S + 499 * ms);
        assert_eq!(times[500], 3 * PS_PER_S);
    }
}
