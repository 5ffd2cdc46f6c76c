//! On/off: CBR messages during on periods, nothing during off periods; period lengths fixed or
//! drawn from exponentials (ns-2's Application/Traffic/Exponential with `burst_time`,
//! `idle_time` and `rate`). The source starts at the beginning of an on period; each on period
//! offers its first message at its start, then one per `packet_size * 8 / rate`, as long as the
//! message starts before the period ends. See `docs/traffic/on_off.md`.

use super::{gap_to_ps, mean_gap_ps, packet_size_ok, positive, MessageClock, MessageSchedule, WorkloadError};
use crate::scenario::units::{Bytes, Duration, Rate};
use crate::sim::{rng, SimRng, SimTime};
use serde::{Deserialize, Serialize};

/// How on and off period lengths are drawn.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PeriodDistribution {
    /// Every period has exactly its given length.
    #[default]
    Fixed,
    /// Exponential lengths with the given mean.
    Exponential,
}

/// Parameters of `kind = "on_off"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffConfig {
    /// Sending rate during on periods (bits on the wire per second).
    pub rate: Rate,
    /// Size of each message on the wire.
    pub packet_size: Bytes,
    /// Length (or mean length) of an on period.
    pub on: Duration,
    /// Length (or mean length) of an off period.
    pub off: Duration,
    /// `fixed` (default) or `exponential` period lengths.
    #[serde(default)]
    pub distribution: PeriodDistribution,
    /// Stop offering after this long (default: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
}

impl OnOffConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        positive("rate", self.rate.0, "rate")?;
        packet_size_ok(self.packet_size)?;
        if self.on.0 == 0 {
            return Err(WorkloadError { field: "on", expected: "expected a positive duration".into() });
        }
        Ok(())
    }
    /// Exponential period lengths are drawn; fixed ones are not.
    pub fn draws_random(&self) -> bool {
        self.distribution == PeriodDistribution::Exponential
    }
}

/// Equal gaps during on periods, none during off periods.
#[derive(Clone, Copy, Debug)]
pub struct OnOffPeriods {
    gap_ps: SimTime,
    on_ps: f64,
    off_ps: f64,
    distribution: PeriodDistribution,
    /// End of the current on period (0: the first is not drawn yet).
    on_end: SimTime,
}

impl OnOffPeriods {
    fn draw(&self, mean_ps: f64, r: &mut SimRng) -> SimTime {
        match self.distribution {
            PeriodDistribution::Fixed => mean_ps.round() as SimTime,
            PeriodDistribution::Exponential => rng::exponential(r, mean_ps).round() as SimTime,
        }
    }
}

impl MessageSchedule for OnOffPeriods {
    fn restart(&mut self) {
        self.on_end = 0;
    }
    fn next_after(&mut self, t: SimTime, r: &mut SimRng) -> SimTime {
        if self.on_end == 0 {
            // The first on period starts with the first message (at the start); its length is
            // drawn here, where randomness is passed in.
            self.on_end = t + self.draw(self.on_ps, r).max(1);
        }
        let n = t + self.gap_ps;
        if n < self.on_end {
            return n;
        }
        // The on period is over: an off period, then the next on period starts with a message.
        let on_start = self.on_end + self.draw(self.off_ps, r);
        self.on_end = on_start + self.draw(self.on_ps, r).max(1);
        on_start
    }
}

/// An on/off message source.
pub type OnOff = MessageClock<OnOffPeriods>;

impl OnOff {
    /// From validated parameters.
    pub fn new(c: &OnOffConfig) -> Self {
        let periods = OnOffPeriods {
            gap_ps: gap_to_ps(mean_gap_ps(c.packet_size.0, c.rate.0)),
            on_ps: c.on.0 as f64,
            off_ps: c.off.0 as f64,
            distribution: c.distribution,
            on_end: 0,
        };
        MessageClock::with_schedule(c.packet_size.0 as u32, c.duration.map(|d| d.0), periods)
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::{rng, PS_PER_S};
    use crate::traffic::{testing, WorkloadConfig};

    /// Fraction of `n` 1-ms bins from the start holding at least one offer.
    fn busy_fraction(times: &[u64], n: u64) -> f64 {
        let ms = PS_PER_S / 1000;
        let mut busy = vec![false; n as usize];
        for &t in times {
            if t / ms < n {
                busy[(t / ms) as usize] = true;
            }
        }
        busy.iter().filter(|&&b| b).count() as f64 / n as f64
    }

    #[test]
    fn fixed_on_off_periods_give_the_duty_cycle_and_the_on_rate() {
        // 8 Mb/s of 1000-byte messages (one per ms) on for 300 ms, off for 700 ms, over 100 s.
        let c: WorkloadConfig = serde_json::from_str(r#"{"kind":"on_off","rate":"8Mbps","packet_size":1000,"on":"300ms","off":"700ms"}"#).unwrap();
        let mut w = c.build();
        let mut r = rng::stream(3, "onoff");
        let (times, bytes) = testing::run(&mut w, 0, 100 * PS_PER_S - 1, &mut r);
        assert_eq!(bytes, 100 * 300 * 1000);
        assert!((busy_fraction(&times, 100_000) - 0.3).abs() < 1e-9);
    }

    #[test]
    fn exponential_on_off_periods_give_the_mean_duty_cycle() {
        // Mean on 100 ms, mean off 300 ms: duty 0.25 in the long run. Over 4000 s (about
        // 10,000 cycles) the busy fraction's standard error is below 0.005.
        let c: WorkloadConfig = serde_json::from_str(r#"{"kind":"on_off","rate":"8Mbps","packet_size":1000,"on":"100ms","off":"300ms","distribution":"exponential"}"#).unwrap();
        let mut w = c.build();
        let mut r = rng::stream(4, "onoff");
        let (times, _) = testing::run(&mut w, 0, 4000 * PS_PER_S, &mut r);
        let f = busy_fraction(&times, 4_000_000);
        assert!((f - 0.25).abs() < 0.015, "busy fraction {f}");
    }
}
