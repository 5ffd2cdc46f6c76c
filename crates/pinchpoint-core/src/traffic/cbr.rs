//! CBR: messages of `packet_size` at equal gaps `packet_size * 8 / rate` from the flow's start,
//! for `duration` (ns-2's Application/Traffic/CBR). See `docs/traffic/cbr.md`.

use super::{gap_to_ps, mean_gap_ps, packet_size_ok, positive, MessageClock, MessageSchedule, WorkloadError};
use crate::scenario::units::{Bytes, Duration, Rate};
use crate::sim::{SimRng, SimTime};
use serde::{Deserialize, Serialize};

/// Parameters of `kind = "cbr"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbrConfig {
    /// Sending rate (bits on the wire per second).
    pub rate: Rate,
    /// Size of each message on the wire.
    pub packet_size: Bytes,
    /// Stop offering after this long (default: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
}

impl CbrConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        positive("rate", self.rate.0, "rate")?;
        packet_size_ok(self.packet_size)
    }
}

/// Equal gaps between messages.
#[derive(Clone, Copy, Debug)]
pub struct EqualGaps {
    gap_ps: f64,
}

impl MessageSchedule for EqualGaps {
    #[inline]
    fn next_after(&mut self, t: SimTime, _rng: &mut SimRng) -> SimTime {
        t + gap_to_ps(self.gap_ps)
    }
}

/// A constant-bit-rate message source.
pub type Cbr = MessageClock<EqualGaps>;

impl Cbr {
    /// From validated parameters.
    pub fn new(c: &CbrConfig) -> Self {
        let gaps = EqualGaps { gap_ps: mean_gap_ps(c.packet_size.0, c.rate.0) };
        MessageClock::with_schedule(c.packet_size.0 as u32, c.duration.map(|d| d.0), gaps)
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::{rng, PS_PER_S};
    use crate::traffic::{testing, WorkloadConfig};

    #[test]
    fn cbr_offers_its_rate_at_equal_gaps_and_stops_after_its_duration() {
        let c: WorkloadConfig = serde_json::from_str(r#"{"kind":"cbr","rate":"1Mbps","packet_size":1000,"duration":"1s"}"#).unwrap();
        let mut w = c.build();
        let mut r = rng::stream(1, "t");
        let (times, bytes) = testing::run(&mut w, 5 * PS_PER_S, 100 * PS_PER_S, &mut r);
        // 1 Mb/s of 8000-bit messages: one every 8 ms, 125 in the second [5 s, 6 s).
        assert_eq!(times.len(), 125);
        assert_eq!(bytes, 125_000);
        assert_eq!(times[1] - times[0], 8 * PS_PER_S / 1000);
        assert!(*times.last().unwrap() < 6 * PS_PER_S);
    }
}
