//! Flow arrival processes: transfers that arrive while the simulation runs, each carried by a
//! flow of its own that is created at its arrival and freed once it has finished (see
//! `docs/traffic/arrivals.md`). A process yields transfers in time order (time, size, and which
//! of the configured sources and destinations); the engine side (`engine.rs`) creates the flows.
//!
//! One process per file; the registry is the `algorithm_registry!` block below (one line per
//! process).

use super::sizes::SizeDistribution;
use crate::registry::FieldError;
use crate::scenario::schema::FlowSettings;
use crate::scenario::units::Duration;
use crate::sim::{rng, SimRng, SimTime};
use serde::{Deserialize, Serialize};

pub mod engine;
pub mod flash_crowd;
pub mod poisson;
pub mod webtraf;

/// One transfer a process yields: when it arrives, its size, and indices into the arrival's
/// `src` and `dst` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Arrival time.
    pub at: SimTime,
    /// Bytes the application offers at the arrival (a file).
    pub size_bytes: u64,
    /// Index into the arrival's `src` list.
    pub src: u32,
    /// Index into the arrival's `dst` list.
    pub dst: u32,
}

/// An arrival process: the transfers in time order. Randomness is the process's own stream.
pub trait ArrivalProcess {
    /// The next transfer (arrival times never decrease), or `None` when the process is over.
    fn next_transfer(&mut self, rng: &mut SimRng) -> Option<Transfer>;
}

/// What a process is built with besides its config.
#[derive(Clone, Copy, Debug)]
pub struct ProcessInit {
    /// Hosts in the arrival's `src` list.
    pub n_src: u32,
    /// Hosts in the arrival's `dst` list.
    pub n_dst: u32,
    /// Payload bytes of one packet (the template's `tcp.mss`): the unit of sizes in packets.
    pub packet_bytes: u64,
}

/// A uniformly chosen index below `n` (n >= 1), from `r`.
pub(crate) fn pick(r: &mut SimRng, n: u32) -> u32 {
    if n <= 1 {
        return 0;
    }
    ((rng::uniform(r) * n as f64) as u32).min(n - 1)
}

/// A transfer size distribution in bytes or in packets of the template's `tcp.mss` bytes of
/// payload. Exactly one of the byte and packet forms of each parameter is given.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TransferSizeConfig {
    /// Every transfer has the same size.
    Fixed {
        /// Size, bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bytes: Option<u64>,
        /// Size, packets of `tcp.mss` payload bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pkts: Option<u64>,
    },
    /// Exponential with the given mean (rounded up to whole units, at least one).
    Exponential {
        /// Mean, bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mean_bytes: Option<f64>,
        /// Mean, packets.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mean_pkts: Option<f64>,
    },
    /// Pareto type I with the given mean and tail index (`traffic::sizes`).
    Pareto {
        /// Mean, bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mean_bytes: Option<f64>,
        /// Mean, packets.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mean_pkts: Option<f64>,
        /// Tail index, above 1.
        shape: f64,
    },
    /// Pareto type II (Lomax, ns-2's `ParetoII`) with the given mean and tail index.
    ParetoIi {
        /// Mean, bytes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mean_bytes: Option<f64>,
        /// Mean, packets.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mean_pkts: Option<f64>,
        /// Tail index, above 1.
        shape: f64,
    },
}

/// A built size distribution: draws in `unit_bytes` units (rounded up, at least one unit).
#[derive(Clone, Copy, Debug)]
pub struct TransferSize {
    /// The distribution in units.
    pub dist: SizeDistribution,
    /// Bytes per unit (1, or the packet payload size).
    pub unit_bytes: u64,
}

impl TransferSize {
    /// Draws one size, bytes.
    pub fn sample(&self, r: &mut SimRng) -> u64 {
        self.dist.sample(r).saturating_mul(self.unit_bytes)
    }
    /// Mean size, bytes, before rounding up.
    pub fn mean_bytes(&self) -> f64 {
        self.dist.mean_bytes() * self.unit_bytes as f64
    }
}

/// Largest transfer, bytes (10^12: far above any run, and keeps byte counts exact in f64).
pub const MAX_TRANSFER_BYTES: f64 = 1e12;

fn one_of<T: Copy>(bytes: Option<T>, pkts: Option<T>, bname: &str, pname: &str) -> Result<(T, bool), FieldError> {
    match (bytes, pkts) {
        (Some(b), None) => Ok((b, false)),
        (None, Some(p)) => Ok((p, true)),
        (Some(_), Some(_)) => Err(FieldError::new(pname, format!("give either {bname} or {pname}, not both"))),
        (None, None) => Err(FieldError::new(bname, format!("expected {bname} or {pname}"))),
    }
}

impl TransferSizeConfig {
    /// Checks the parameters; fields are relative to the size table.
    pub fn validate(&self) -> Result<(), FieldError> {
        self.build(1).map(|_| ())
    }
    /// Whether sizes are drawn (every distribution but `fixed`).
    pub fn draws_random(&self) -> bool {
        !matches!(self, TransferSizeConfig::Fixed { .. })
    }

    /// The distribution, with sizes in packets converted at `packet_bytes` each.
    pub fn build(&self, packet_bytes: u64) -> Result<TransferSize, FieldError> {
        let unit = |pk: bool| if pk { packet_bytes } else { 1 };
        let mean = |b, p| -> Result<(f64, bool, &'static str), FieldError> {
            let (m, pk) = one_of(b, p, "mean_bytes", "mean_pkts")?;
            Ok((m, pk, if pk { "mean_pkts" } else { "mean_bytes" }))
        };
        let check_mean = |m: f64, pk: bool, field: &str| -> Result<(), FieldError> {
            if !(m.is_finite() && m >= 1.0 && m * unit(pk) as f64 <= MAX_TRANSFER_BYTES) {
                return Err(FieldError::new(field, format!("expected a mean of at least 1 and at most {MAX_TRANSFER_BYTES} bytes, got {m}")));
            }
            Ok(())
        };
        let check_shape = |s: f64| crate::registry::check_f64_above("shape", s, 1.0, 100.0);
        let (dist, pk) = match *self {
            TransferSizeConfig::Fixed { bytes, pkts } => {
                let (n, pk) = one_of(bytes, pkts, "bytes", "pkts")?;
                let field = if pk { "pkts" } else { "bytes" };
                if n == 0 || n as f64 * unit(pk) as f64 > MAX_TRANSFER_BYTES {
                    return Err(FieldError::new(field, format!("expected a positive size of at most {MAX_TRANSFER_BYTES} bytes, got {n}")));
                }
                (SizeDistribution::Fixed { bytes: n }, pk)
            }
            TransferSizeConfig::Exponential { mean_bytes, mean_pkts } => {
                let (m, pk, f) = mean(mean_bytes, mean_pkts)?;
                check_mean(m, pk, f)?;
                (SizeDistribution::Exponential { mean_bytes: m }, pk)
            }
            TransferSizeConfig::Pareto { mean_bytes, mean_pkts, shape } => {
                let (m, pk, f) = mean(mean_bytes, mean_pkts)?;
                check_mean(m, pk, f)?;
                check_shape(shape)?;
                (SizeDistribution::Pareto { mean_bytes: m, shape }, pk)
            }
            TransferSizeConfig::ParetoIi { mean_bytes, mean_pkts, shape } => {
                let (m, pk, f) = mean(mean_bytes, mean_pkts)?;
                check_mean(m, pk, f)?;
                check_shape(shape)?;
                (SizeDistribution::ParetoIi { mean_bytes: m, shape }, pk)
            }
        };
        Ok(TransferSize { dist, unit_bytes: unit(pk) })
    }
}

/// A positive rate of transfers (or sessions) per second, at most 10^9.
pub(crate) fn check_rate_per_s(field: &str, v: f64) -> Result<(), FieldError> {
    crate::registry::check_f64_above(field, v, 0.0, 1e9)
}

/// A size table's error, moved under the field the table sits in.
pub(crate) fn size_at(field: &str, s: &TransferSizeConfig) -> Result<(), FieldError> {
    s.validate().map_err(|e| FieldError::new(format!("{field}.{}", e.field), e.message))
}

/// Mean gap of a Poisson process of `rate_per_s`, ps.
pub(crate) fn mean_gap_ps(rate_per_s: f64) -> f64 {
    crate::sim::PS_PER_S as f64 / rate_per_s
}

macro_rules! process_dispatch {
    ($Any:ident, $($variant:ident),*) => {
        impl ArrivalProcess for $Any {
            fn next_transfer(&mut self, rng: &mut SimRng) -> Option<Transfer> {
                match self { $( $Any::$variant(p) => p.next_transfer(rng), )* }
            }
        }
    };
}

crate::algorithm_registry! {
    /// How transfers arrive: a name-tagged table (`kind = "poisson"`, ...).
    config ProcessConfig;
    /// A built arrival process.
    runtime AnyProcess;
    /// Names of the arrival processes.
    kinds PROCESS_KINDS;
    init ProcessInit;
    dispatch process_dispatch;
    "poisson" => Poisson(poisson::PoissonArrivals, poisson::PoissonArrivalsConfig),
    "flash_crowd" => FlashCrowd(flash_crowd::FlashCrowd, flash_crowd::FlashCrowdConfig),
    "webtraf" => WebTraf(webtraf::WebTraf, webtraf::WebTrafConfig),
}

impl ProcessConfig {
    /// The process's transfer-size table and its field name.
    pub fn size_config(&self) -> (&'static str, &TransferSizeConfig) {
        match self {
            ProcessConfig::Poisson(c) => ("size", &c.size),
            ProcessConfig::FlashCrowd(c) => ("size", &c.size),
            ProcessConfig::WebTraf(c) => ("object_size", &c.object_size),
        }
    }
}

/// Hosts given as one name or a list of names.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Hosts {
    /// One host.
    One(String),
    /// Several hosts; each transfer (WebTraf: each session) picks one uniformly.
    Many(Vec<String>),
}

impl Hosts {
    /// The names.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Hosts::One(s) => vec![s.as_str()],
            Hosts::Many(v) => v.iter().map(|s| s.as_str()).collect(),
        }
    }
}

/// An arrival process of transfers (`[[arrivals]]`): where they go, what carries them and when
/// they come. The flow settings (`transport`, `cc`, `tcp`, `wtp`, `priority`, `group`) are a
/// `[[flows]]` entry's, written inline the same way and validated by the same code.
#[derive(Clone, Debug, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct ArrivalConfig {
    /// Unique name (among arrivals); names the transfers in the `transfers` table.
    pub name: String,
    /// Sending host(s): the server of each transfer.
    pub src: Hosts,
    /// Receiving host(s): the client of each transfer.
    pub dst: Hosts,
    /// How transfers arrive and how large they are.
    pub process: ProcessConfig,
    /// The settings of each transfer's flow (transport only `tcp`: a transfer must complete to
    /// free its flow); the group label defaults to the arrival's name.
    #[serde(flatten)]
    pub settings: FlowSettings,
}

/// Every key of an `[[arrivals]]` entry, in the order an unknown key's error lists them.
const ARRIVAL_KEYS: &[&str] = &["name", "group", "src", "dst", "process", "transport", "cc", "tcp", "priority", "wtp"];

impl<'de> Deserialize<'de> for ArrivalConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::scenario::flat::deserialize(d, ARRIVAL_KEYS, |split| ArrivalConfig::deserialize(split), |a, s| a.settings = s)
    }
}

impl Serialize for ArrivalConfig {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use crate::scenario::schema::some_field;
        use serde::ser::SerializeStruct;
        let s = &self.settings;
        let mut t = ser.serialize_struct("ArrivalConfig", ARRIVAL_KEYS.len())?;
        t.serialize_field("name", &self.name)?;
        some_field(&mut t, "group", &s.group)?;
        t.serialize_field("src", &self.src)?;
        t.serialize_field("dst", &self.dst)?;
        t.serialize_field("process", &self.process)?;
        t.serialize_field("transport", &s.transport)?;
        some_field(&mut t, "cc", &s.cc)?;
        t.serialize_field("tcp", &s.tcp)?;
        t.serialize_field("priority", &s.priority)?;
        some_field(&mut t, "wtp", &s.wtp)?;
        t.end()
    }
}

impl ArrivalConfig {
    /// The group label.
    pub fn group_label(&self) -> &str {
        self.settings.group.as_deref().unwrap_or(&self.name)
    }

    /// The `[[flows]]` entry one transfer of `size_bytes` from `src` to `dst` is: the same
    /// settings (without the group: transfers are counted under their process's), validated
    /// and built by the same code as a static flow.
    pub fn flow_config(&self, name: String, src: &str, dst: &str, size_bytes: u64) -> crate::scenario::schema::FlowConfig {
        crate::scenario::schema::FlowConfig {
            name,
            src: src.to_string(),
            dst: dst.to_string(),
            start: Duration(0),
            start_jitter: None,
            workload: crate::traffic::WorkloadConfig::File(crate::traffic::file::FileConfig { size: crate::scenario::units::Bytes(size_bytes) }),
            trump: None,
            tfrc: None,
            shaper: None,
            settings: FlowSettings { group: None, ..self.settings.clone() },
        }
    }
}

/// Rounds a gap to whole picoseconds (at least one, so time always advances).
pub(crate) use super::gap_to_ps as gap;

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// Every transfer `cfg` yields with `n_src` sources, `n_dst` destinations and 1000-byte
    /// packets, from the stream of `seed`.
    pub fn drain(cfg: ProcessConfig, n_src: u32, n_dst: u32, seed: u64) -> Vec<Transfer> {
        cfg.validate().unwrap();
        let mut p = AnyProcess::build(&cfg, ProcessInit { n_src, n_dst, packet_bytes: 1000 });
        let mut r = rng::stream(seed, "arrivals-test");
        let mut v = Vec::new();
        while let Some(t) = p.next_transfer(&mut r) {
            v.push(t);
        }
        v
    }

    /// Gaps between consecutive arrivals (the first from `start`), seconds.
    pub fn gaps_s(start: SimTime, ts: &[Transfer]) -> Vec<f64> {
        let mut prev = start;
        ts.iter()
            .map(|t| {
                let g = (t.at - prev) as f64 / crate::sim::PS_PER_S as f64;
                prev = t.at;
                g
            })
            .collect()
    }

    /// The sample mean is within 3 standard errors (`sd / sqrt(n)`) of `want`.
    pub fn assert_mean_within_ci(xs: &[f64], want: f64, sd: f64, what: &str) {
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let se = sd / (xs.len() as f64).sqrt();
        assert!((mean - want).abs() < 3.0 * se, "{what}: mean {mean}, expected {want} +- {}", 3.0 * se);
    }

    /// Kolmogorov-Smirnov distance between the sample and the distribution function `cdf`.
    pub fn ks_statistic(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
        let mut s = xs.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len() as f64;
        s.iter().enumerate().map(|(i, &x)| (cdf(x) - i as f64 / n).abs().max(((i + 1) as f64 / n - cdf(x)).abs())).fold(0.0, f64::max)
    }

    /// Pearson's chi-square test that `k` categories are equally likely, at the 0.1% level.
    pub fn assert_uniform_counts(xs: impl Iterator<Item = usize>, k: usize) {
        let mut counts = vec![0f64; k];
        for x in xs {
            counts[x] += 1.0;
        }
        let n: f64 = counts.iter().sum();
        let e = n / k as f64;
        let chi2: f64 = counts.iter().map(|c| (c - e) * (c - e) / e).sum();
        // 0.1% critical values of chi-square with k - 1 = 1..3 degrees of freedom.
        let crit = [10.83, 13.82, 16.27][k - 2];
        assert!(chi2 < crit, "chi-square {chi2} over {k} categories: {counts:?}");
    }
}
