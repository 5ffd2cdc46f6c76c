//! Workloads: what the application offers a transport, and when.
//!
//! A workload answers two questions, and a transport pulls from it through
//! [`crate::transport::TransportCtx`]: how many bytes the application has offered by now
//! ([`Workload::offered_bytes`], cumulative), and when it next offers more
//! ([`Workload::next_offer_at`]). A reliable transport sends up to the offered byte count; a
//! datagram transport sends one datagram of [`Workload::message_bytes`] per message offered. The
//! transport arms its application timer (`TIMER_APP`) at the next offer time to pull again.
//! Randomness is the flow's own stream, passed in; time is passed in.
//!
//! One workload per file; the registry is [`WorkloadConfig`] (one line per workload).

use crate::scenario::units::Bytes;
use crate::sim::{SimRng, SimTime};
use serde::{Deserialize, Serialize};

pub mod arrivals;
pub mod bulk;
pub mod cbr;
pub mod file;
pub mod on_off;
pub mod poisson;
pub mod sizes;
pub mod square_wave;

/// Time that never comes: the workload offers nothing more.
pub const NEVER: SimTime = SimTime::MAX;

/// What the application at a flow's source offers.
pub trait Workload {
    /// The application starts at `now` (the flow's start time).
    fn start(&mut self, now: SimTime);
    /// Bytes offered from the start up to and including `now` (cumulative; `u64::MAX`:
    /// unbounded). Advances the workload to `now`, drawing from `rng` as it goes.
    fn offered_bytes(&mut self, now: SimTime, rng: &mut SimRng) -> u64;
    /// When it next offers more bytes ([`NEVER`]: it never will).
    fn next_offer_at(&self) -> SimTime;
    /// The total it will ever offer, if finite and known (a file); `None` for open-ended
    /// workloads, which never complete.
    fn total_bytes(&self) -> Option<u64>;
    /// Size of one application message (a datagram) on the wire; `None` for a byte stream.
    fn message_bytes(&self) -> Option<u32>;
}

/// A built workload (closed set).
#[derive(Debug, Clone)]
pub enum AnyWorkload {
    /// Unbounded.
    Bulk(bulk::Bulk),
    /// One file at the start.
    File(file::File),
    /// Messages at equal gaps. Message sources are boxed so that the common byte-stream flows
    /// (bulk, file) carry 16 bytes of workload, not the largest source's state.
    Cbr(Box<cbr::Cbr>),
    /// Messages at exponential gaps.
    Poisson(Box<poisson::Poisson>),
    /// Messages at equal gaps during on periods.
    OnOff(Box<on_off::OnOff>),
}

macro_rules! each_workload {
    ($self:ident, $w:ident => $e:expr) => {
        match $self {
            AnyWorkload::Bulk($w) => $e,
            AnyWorkload::File($w) => $e,
            AnyWorkload::Cbr($w) => $e,
            AnyWorkload::Poisson($w) => $e,
            AnyWorkload::OnOff($w) => $e,
        }
    };
}

impl Workload for AnyWorkload {
    fn start(&mut self, now: SimTime) {
        each_workload!(self, w => w.start(now))
    }
    #[inline]
    fn offered_bytes(&mut self, now: SimTime, rng: &mut SimRng) -> u64 {
        each_workload!(self, w => w.offered_bytes(now, rng))
    }
    #[inline]
    fn next_offer_at(&self) -> SimTime {
        each_workload!(self, w => w.next_offer_at())
    }
    fn total_bytes(&self) -> Option<u64> {
        each_workload!(self, w => w.total_bytes())
    }
    fn message_bytes(&self) -> Option<u32> {
        each_workload!(self, w => w.message_bytes())
    }
}

/// What a flow carries: the registry of workloads, keyed by the name used in scenario files.
// Read by hand (below) rather than by serde's internally tagged derive, which buffers the table
// and so loses the field path of an error inside it (`flows[0].workload.duration` was reported
// as `flows[0].workload`) and lets a unit variant (`bulk`) ignore any other key. (A comment, not
// documentation: the doc text goes into the JSON Schema.)
#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadConfig {
    /// As much as the transport will send, for the whole run.
    Bulk,
    /// One file of `size` bytes offered at the flow's start time.
    File(file::FileConfig),
    /// Constant bit rate messages.
    Cbr(cbr::CbrConfig),
    /// Messages with exponential gaps.
    Poisson(poisson::PoissonConfig),
    /// CBR during on periods, silent during off periods (fixed or exponential lengths).
    OnOff(on_off::OnOffConfig),
    /// CBR switched on and off with a fixed period and duty cycle.
    SquareWave(square_wave::SquareWaveConfig),
}

/// Names accepted in a workload's `kind`.
pub const WORKLOAD_KINDS: &[&str] = &["bulk", "file", "cbr", "poisson", "on_off", "square_wave"];

impl<'de> Deserialize<'de> for WorkloadConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::registry::{de_with_path, split_kind};
        use serde::de::Error;
        let (kind, rest) = split_kind(d, WORKLOAD_KINDS)?;
        Ok(match kind.as_str() {
            "bulk" => {
                // A bulk workload has no parameters: any other key is a mistake (a `rate` meant
                // for cbr, say), refused as the other workloads refuse theirs.
                if let Some(key) = rest.as_object().and_then(|m| m.keys().next()) {
                    return Err(D::Error::custom(format!("unknown field `{key}`: a bulk workload takes no parameters (only `kind`)")));
                }
                WorkloadConfig::Bulk
            }
            "file" => WorkloadConfig::File(de_with_path(rest)?),
            "cbr" => WorkloadConfig::Cbr(de_with_path(rest)?),
            "poisson" => WorkloadConfig::Poisson(de_with_path(rest)?),
            "on_off" => WorkloadConfig::OnOff(de_with_path(rest)?),
            "square_wave" => WorkloadConfig::SquareWave(de_with_path(rest)?),
            _ => unreachable!("split_kind checked the name"),
        })
    }
}

/// A workload setting that is out of range: the field (relative to the workload) and what was
/// expected.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadError {
    /// Field name inside the workload table (`rate`, `duty`).
    pub field: &'static str,
    /// What was expected.
    pub expected: String,
}

pub(crate) fn positive(field: &'static str, v: f64, what: &str) -> Result<(), WorkloadError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(WorkloadError { field, expected: format!("expected a positive {what}") })
    }
}

pub(crate) fn packet_size_ok(size: Bytes) -> Result<(), WorkloadError> {
    let max = crate::scenario::validate::MAX_PACKET_BYTES;
    if size.0 == 0 || size.0 > max {
        return Err(WorkloadError { field: "packet_size", expected: format!("expected 1 to {max}, got {}", size.0) });
    }
    Ok(())
}

impl WorkloadConfig {
    /// The name used in scenario files.
    pub fn kind(&self) -> &'static str {
        match self {
            WorkloadConfig::Bulk => "bulk",
            WorkloadConfig::File(_) => "file",
            WorkloadConfig::Cbr(_) => "cbr",
            WorkloadConfig::Poisson(_) => "poisson",
            WorkloadConfig::OnOff(_) => "on_off",
            WorkloadConfig::SquareWave(_) => "square_wave",
        }
    }

    /// Checks the parameters (what types alone cannot).
    pub fn validate(&self) -> Result<(), WorkloadError> {
        match self {
            WorkloadConfig::Bulk => Ok(()),
            // docs/scenario.md: a file of at least 1 byte (an empty file would complete before
            // it started, and a transfer of nothing measures nothing).
            WorkloadConfig::File(c) if c.size.0 == 0 => Err(WorkloadError { field: "size", expected: "expected a size of at least 1 byte, got 0".into() }),
            WorkloadConfig::File(_) => Ok(()),
            WorkloadConfig::Cbr(c) => c.validate(),
            WorkloadConfig::Poisson(c) => c.validate(),
            WorkloadConfig::OnOff(c) => c.validate(),
            WorkloadConfig::SquareWave(c) => c.validate(),
        }
    }

    /// Whether the workload, as configured, draws random numbers (the seed changes what it
    /// offers). Every kind is listed, so a new one must answer.
    pub fn draws_random(&self) -> bool {
        match self {
            WorkloadConfig::Bulk | WorkloadConfig::File(_) | WorkloadConfig::Cbr(_) | WorkloadConfig::SquareWave(_) => false,
            WorkloadConfig::Poisson(c) => c.draws_random(),
            WorkloadConfig::OnOff(c) => c.draws_random(),
        }
    }

    /// True if the application writes messages (datagrams), which a datagram transport needs.
    pub fn has_messages(&self) -> bool {
        !matches!(self, WorkloadConfig::Bulk | WorkloadConfig::File(_))
    }

    /// Builds the workload (validated first).
    pub fn build(&self) -> AnyWorkload {
        match self {
            WorkloadConfig::Bulk => AnyWorkload::Bulk(bulk::Bulk),
            WorkloadConfig::File(c) => AnyWorkload::File(file::File::new(c.size.0)),
            WorkloadConfig::Cbr(c) => AnyWorkload::Cbr(Box::new(cbr::Cbr::new(c))),
            WorkloadConfig::Poisson(c) => AnyWorkload::Poisson(Box::new(poisson::Poisson::new(c))),
            WorkloadConfig::OnOff(c) => AnyWorkload::OnOff(Box::new(on_off::OnOff::new(c))),
            WorkloadConfig::SquareWave(c) => AnyWorkload::OnOff(Box::new(c.build())),
        }
    }
}

/// Mean gap between messages of `packet_bytes` at `rate_bps`, ps (as f64, rounded when used).
pub(crate) fn mean_gap_ps(packet_bytes: u64, rate_bps: f64) -> f64 {
    packet_bytes as f64 * 8.0 * crate::sim::PS_PER_S as f64 / rate_bps
}

/// Rounds a gap to whole picoseconds, at least one (so time always advances).
#[inline]
pub(crate) fn gap_to_ps(gap: f64) -> SimTime {
    (gap.round() as SimTime).max(1)
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    /// Pulls `w` at every offer time up to `until`; returns (offer times, final offered bytes).
    pub fn run(w: &mut AnyWorkload, start: SimTime, until: SimTime, rng: &mut SimRng) -> (Vec<SimTime>, u64) {
        w.start(start);
        let mut times = Vec::new();
        let mut last = 0;
        let mut t = start;
        loop {
            let b = w.offered_bytes(t, rng);
            if b > last {
                times.push(t);
                last = b;
            }
            t = w.next_offer_at();
            if t == NEVER || t > until {
                return (times, last);
            }
        }
    }
}

/// When the message after one offered at `t` is due: all that distinguishes the message
/// workloads (CBR, Poisson, on/off), whose clock is [`MessageClock`].
pub trait MessageSchedule {
    /// The source starts (again): forget the state of a previous start.
    fn restart(&mut self) {}
    /// Time of the message after the one offered at `t`, drawing from `rng` if it needs to.
    fn next_after(&mut self, t: SimTime, rng: &mut SimRng) -> SimTime;
}

/// The clock shared by the message workloads, and their [`Workload`]: messages of
/// `packet_bytes`, the first at the start, the next when `schedule` says, none at or after the
/// end of `duration_ps`.
#[derive(Clone, Copy, Debug)]
pub struct MessageClock<S> {
    packet_bytes: u32,
    /// How long after the start the workload stops (None: never).
    duration_ps: Option<SimTime>,
    stop_at: SimTime,
    next_at: SimTime,
    offered: u64,
    schedule: S,
}

impl<S: MessageSchedule> MessageClock<S> {
    /// Messages of `packet_bytes` for `duration_ps` (None: for ever) at the times `schedule` gives.
    pub fn with_schedule(packet_bytes: u32, duration_ps: Option<SimTime>, schedule: S) -> Self {
        MessageClock { packet_bytes, duration_ps, stop_at: NEVER, next_at: NEVER, offered: 0, schedule }
    }
}

impl<S: MessageSchedule> Workload for MessageClock<S> {
    fn start(&mut self, now: SimTime) {
        self.schedule.restart();
        self.stop_at = self.duration_ps.map_or(NEVER, |d| now.saturating_add(d));
        self.next_at = if now < self.stop_at { now } else { NEVER };
    }
    /// Offers every message due by `now`.
    #[inline]
    fn offered_bytes(&mut self, now: SimTime, rng: &mut SimRng) -> u64 {
        while self.next_at <= now {
            let t = self.next_at;
            self.offered += self.packet_bytes as u64;
            let n = self.schedule.next_after(t, rng);
            self.next_at = if n < self.stop_at { n } else { NEVER };
        }
        self.offered
    }
    fn next_offer_at(&self) -> SimTime {
        self.next_at
    }
    fn total_bytes(&self) -> Option<u64> {
        None
    }
    fn message_bytes(&self) -> Option<u32> {
        Some(self.packet_bytes)
    }
}
