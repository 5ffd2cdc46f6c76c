//! Explicit Congestion Avoidance router load estimator (Barham, MSR-TR-2001-100): a port keeps a
//! long-term load estimate `L` and writes it into the LOAD field of every data packet it forwards,
//! combined with the value the packet already carries (the path so far).
//!
//! - s4.A.2 (the estimator of the paper's experiments): measure the arrival rate into the port in
//!   100 ms intervals; if it exceeds the target utilisation (90% of the line rate) multiply `L` by
//!   1.05, otherwise by 0.99.
//! - s3.A.2 (the alternative it mentions): a virtual queue served at the target rate; `L` goes up
//!   when the virtual queue overflowed during the interval and down otherwise.
//! - s3.A.2: combining with the incoming LOAD by maximum shares a common bottleneck in proportion
//!   to the weights (the paper's experiments); by sum it charges every loaded hop.
//!
//! Units: `L` is in weight per Mbit/s, so a host's WTP shaper sets its rate to `w / L` Mbit/s
//! (`shaper::wtp`). The paper does not give `L`'s starting value; we start (and floor) it at
//! `1 / C` with `C` the line rate in Mbit/s, the load at which a weight-1 flow alone may send at
//! the full line rate. Below that floor `L` would only let flows ask for more than the link.
//!
//! Intervals are closed lazily when a packet arrives: an interval with no arrivals is below any
//! positive target, so the idle intervals in between each multiply `L` by the decrease factor.

use super::{PortHook, PortView};
use crate::net::packet::{Packet, PacketKind};
use crate::scenario::units::Duration;
use crate::sim::{SimTime, PS_PER_MS, PS_PER_S};
use serde::{Deserialize, Serialize};

/// How a router's estimate is combined with the LOAD a packet already carries (s3.A.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Combine {
    /// `LOAD = max(LOAD, L)`: proportional sharing of the common bottleneck (the paper's runs).
    #[default]
    Max,
    /// `LOAD = LOAD + L`: flows are charged for every loaded hop.
    Sum,
}

/// How the load is measured (s4.A.2 / s3.A.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    /// Arrival rate per interval against the target rate (s4.A.2).
    #[default]
    ArrivalRate,
    /// A virtual queue served at the target rate; up if it overflowed in the interval (s3.A.2).
    VirtualQueue,
}

fn default_target() -> f64 {
    // s4.A.2 says 90%; s4.B.1 mentions an 80% target. 90% is the stated design value.
    0.9
}
fn default_interval() -> Duration {
    Duration(100 * PS_PER_MS) // s4.A.2
}
fn default_increase() -> f64 {
    1.05 // s4.A.2
}
fn default_decrease() -> f64 {
    0.99 // s4.A.2
}

/// Scenario configuration (`{ kind = "eca_load", ... }`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EcaLoadConfig {
    /// Target utilisation of the line rate, in (0, 1] (default 0.9, s4.A.2).
    #[serde(default = "default_target")]
    pub target_utilisation: f64,
    /// Measurement interval (default 100 ms, s4.A.2).
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// Factor applied to `L` after an interval above the target, > 1 (default 1.05).
    #[serde(default = "default_increase")]
    pub increase: f64,
    /// Factor applied to `L` after an interval at or below the target, in (0, 1) (default 0.99).
    #[serde(default = "default_decrease")]
    pub decrease: f64,
    /// `max` (default) or `sum`.
    #[serde(default)]
    pub combine: Combine,
    /// `arrival_rate` (default) or `virtual_queue`.
    #[serde(default)]
    pub estimator: Estimator,
    /// Capacity of the virtual queue (only with `estimator = "virtual_queue"`; default 30000 B,
    /// twenty 1500-byte packets, the parking lot's buffer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vq_limit: Option<crate::scenario::units::Bytes>,
}

impl Default for EcaLoadConfig {
    fn default() -> Self {
        EcaLoadConfig {
            target_utilisation: default_target(),
            interval: default_interval(),
            increase: default_increase(),
            decrease: default_decrease(),
            combine: Combine::Max,
            estimator: Estimator::ArrivalRate,
            vq_limit: None,
        }
    }
}

impl EcaLoadConfig {
    /// Checks the settings; on error returns (field, what was expected).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.target_utilisation > 0.0 && self.target_utilisation <= 1.0) {
            return Err(("target_utilisation", format!("expected a fraction in (0, 1], got {}", self.target_utilisation)));
        }
        if self.interval.0 == 0 {
            return Err(("interval", "expected a positive duration".into()));
        }
        if !(self.increase > 1.0 && self.increase.is_finite()) {
            return Err(("increase", format!("expected a factor above 1, got {}", self.increase)));
        }
        if !(self.decrease > 0.0 && self.decrease < 1.0) {
            return Err(("decrease", format!("expected a factor in (0, 1), got {}", self.decrease)));
        }
        match (self.estimator, self.vq_limit) {
            (Estimator::ArrivalRate, Some(_)) => return Err(("vq_limit", "only applies with estimator = \"virtual_queue\"".into())),
            (Estimator::VirtualQueue, Some(b)) if b.0 == 0 => return Err(("vq_limit", "expected a positive size".into())),
            _ => {}
        }
        Ok(())
    }
}

/// Default virtual-queue capacity, bytes.
pub const DEFAULT_VQ_LIMIT_BYTES: u64 = 30_000;

/// The hook.
#[derive(Debug)]
pub struct EcaLoad {
    cfg: EcaLoadConfig,
    /// Current load estimate, weight per Mbit/s.
    load: f64,
    /// Floor (and starting value) of `load`: 1 / line rate in Mbit/s.
    min_load: f64,
    /// Target arrivals per interval, bytes.
    target_bytes_per_interval: f64,
    /// End of the current interval.
    interval_end: SimTime,
    /// Bytes that arrived in the current interval.
    arrived_bytes: u64,
    /// Virtual queue backlog in bit-picoseconds-per-second (bits x PS_PER_S), drained at the target rate.
    vq_backlog: u128,
    vq_limit: u128,
    vq_rate_bps: u128,
    vq_last: SimTime,
    vq_overflowed: bool,
    /// Intervals closed above the target so far.
    pub increases: u64,
    /// Intervals closed at or below the target so far.
    pub decreases: u64,
}

impl EcaLoad {
    /// Builds the hook for a port of `rate_bps` (the configuration is validated beforehand).
    pub fn new(cfg: &EcaLoadConfig, rate_bps: u64) -> Self {
        let rate_mbps = (rate_bps.max(1) as f64) / 1e6;
        let interval_s = cfg.interval.0 as f64 / PS_PER_S as f64;
        let vq_rate_bps = (rate_bps as f64 * cfg.target_utilisation).max(1.0) as u128;
        let vq_limit_bytes = cfg.vq_limit.map_or(DEFAULT_VQ_LIMIT_BYTES, |b| b.0);
        EcaLoad {
            cfg: *cfg,
            load: 1.0 / rate_mbps,
            min_load: 1.0 / rate_mbps,
            target_bytes_per_interval: rate_bps as f64 * cfg.target_utilisation * interval_s / 8.0,
            interval_end: cfg.interval.0.max(1),
            arrived_bytes: 0,
            vq_backlog: 0,
            vq_limit: vq_limit_bytes as u128 * 8 * PS_PER_S as u128,
            vq_rate_bps,
            vq_last: 0,
            vq_overflowed: false,
            increases: 0,
            decreases: 0,
        }
    }

    /// Current load estimate, weight per Mbit/s.
    pub fn load(&self) -> f64 {
        self.load
    }

    /// Was the interval just ended above the target?
    fn interval_was_loaded(&self) -> bool {
        match self.cfg.estimator {
            Estimator::ArrivalRate => self.arrived_bytes as f64 > self.target_bytes_per_interval,
            Estimator::VirtualQueue => self.vq_overflowed,
        }
    }

    /// Closes every interval that ended at or before `now`.
    fn roll(&mut self, now: SimTime) {
        if now < self.interval_end {
            return;
        }
        let iv = self.cfg.interval.0.max(1);
        // The interval that held the arrivals so far.
        if self.interval_was_loaded() {
            self.load *= self.cfg.increase;
            self.increases += 1;
        } else {
            self.load = (self.load * self.cfg.decrease).max(self.min_load);
            self.decreases += 1;
        }
        self.arrived_bytes = 0;
        self.vq_overflowed = false;
        // Intervals that passed with no arrival at all: each is below the target.
        let idle = (now - self.interval_end) / iv;
        if idle > 0 {
            self.load = (self.load * crate::sim::math::powi(self.cfg.decrease, idle.min(i32::MAX as u64) as u32)).max(self.min_load);
            self.decreases += idle;
        }
        self.interval_end += (idle + 1) * iv;
    }

    /// Writes this hop's load into the packet's LOAD field (s3.A.2).
    fn stamp(&self, pkt: &mut Packet) {
        let l = self.load as f32;
        pkt.load = match self.cfg.combine {
            Combine::Max => pkt.load.max(l),
            Combine::Sum => pkt.load + l,
        };
    }
}

impl PortHook for EcaLoad {
    fn on_arrival(&mut self, pkt: &mut Packet, _port: &PortView, now: SimTime) {
        self.roll(now);
        self.arrived_bytes += pkt.size_bytes as u64;
        if self.cfg.estimator == Estimator::VirtualQueue {
            let drained = (now - self.vq_last) as u128 * self.vq_rate_bps;
            self.vq_backlog = self.vq_backlog.saturating_sub(drained);
            self.vq_last = now;
            let add = pkt.size_bytes as u128 * 8 * PS_PER_S as u128;
            if self.vq_backlog + add > self.vq_limit {
                self.vq_overflowed = true; // the virtual packet is dropped
            } else {
                self.vq_backlog += add;
            }
        }
        if pkt.kind == PacketKind::Data {
            self.stamp(pkt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = PS_PER_MS;
    fn view() -> PortView {
        PortView { queue_pkts: 0, queue_bytes: 0, busy: false, rate_bps: 8_000_000 }
    }
    fn data(size: u32) -> Packet {
        Packet { size_bytes: size, kind: PacketKind::Data, ..Default::default() }
    }

    #[test]
    fn load_starts_at_one_over_the_line_rate_in_mbps() {
        let h = EcaLoad::new(&EcaLoadConfig::default(), 8_000_000);
        assert_eq!(h.load(), 0.125);
    }

    #[test]
    fn an_interval_above_target_multiplies_load_by_1_05_and_below_by_0_99() {
        // 8 Mbit/s, target 0.9: 90,000 bytes per 100 ms interval.
        let mut h = EcaLoad::new(&EcaLoadConfig::default(), 8_000_000);
        let mut p = data(1000);
        for i in 0..91 {
            h.on_arrival(&mut p, &view(), i * MS);
        }
        // 91,000 bytes in [0, 100 ms): the arrival at 100 ms closes it as loaded.
        h.on_arrival(&mut p, &view(), 100 * MS);
        assert_eq!(h.load(), 0.125 * 1.05);
        // Only one packet in [100, 200 ms): below target.
        h.on_arrival(&mut p, &view(), 200 * MS);
        assert_eq!(h.load(), 0.125 * 1.05 * 0.99);
        assert_eq!((h.increases, h.decreases), (1, 1));
    }

    #[test]
    fn exactly_the_target_counts_as_below() {
        let mut h = EcaLoad::new(&EcaLoadConfig::default(), 8_000_000);
        let mut p = data(1000);
        for i in 0..90 {
            h.on_arrival(&mut p, &view(), i * MS);
        }
        h.on_arrival(&mut p, &view(), 100 * MS);
        assert_eq!(h.load(), 0.125); // 0.99 x start, floored at the start value
        assert_eq!(h.decreases, 1);
    }

    #[test]
    fn idle_intervals_each_decrease_the_load_down_to_the_floor() {
        let mut h = EcaLoad::new(&EcaLoadConfig::default(), 8_000_000);
        let mut p = data(1500);
        // Drive L up for 20 intervals.
        for k in 0..20u64 {
            for i in 0..70 {
                h.on_arrival(&mut p, &view(), k * 100 * MS + i * MS);
            }
        }
        h.on_arrival(&mut p, &view(), 2000 * MS);
        let up = 0.125 * 1.05f64.powi(20);
        assert!((h.load() - up).abs() < 1e-12, "{}", h.load());
        // Then 3 silent intervals: [2000,2100) holds one packet, [2100,2400) nothing.
        h.on_arrival(&mut p, &view(), 2400 * MS);
        let down = up * 0.99f64.powi(4);
        assert!((h.load() - down).abs() < 1e-12, "{} vs {down}", h.load());
        // A very long silence ends at the floor.
        h.on_arrival(&mut p, &view(), 1000 * PS_PER_S);
        assert_eq!(h.load(), 0.125);
    }

    #[test]
    fn max_combining_keeps_the_larger_load_and_sum_adds() {
        let mut h = EcaLoad::new(&EcaLoadConfig::default(), 8_000_000); // L = 0.125
        let mut p = Packet { load: 0.5, ..data(100) };
        h.on_arrival(&mut p, &view(), 0);
        assert_eq!(p.load, 0.5);
        let mut q = Packet { load: 0.1, ..data(100) };
        h.on_arrival(&mut q, &view(), 0);
        assert_eq!(q.load, 0.125);
        let mut s = EcaLoad::new(&EcaLoadConfig { combine: Combine::Sum, ..Default::default() }, 8_000_000);
        let mut r = Packet { load: 0.5, ..data(100) };
        s.on_arrival(&mut r, &view(), 0);
        assert_eq!(r.load, 0.625);
    }

    #[test]
    fn acknowledgements_are_counted_but_not_stamped() {
        let mut h = EcaLoad::new(&EcaLoadConfig::default(), 8_000_000);
        let mut a = Packet { kind: PacketKind::Ack, size_bytes: 52, ..Default::default() };
        h.on_arrival(&mut a, &view(), 0);
        assert_eq!(a.load, 0.0);
        assert_eq!(h.arrived_bytes, 52);
    }

    #[test]
    fn virtual_queue_raises_load_only_after_an_overflow() {
        // Target rate 7.2 Mbit/s = 900 bytes/ms; limit 3000 bytes.
        let cfg = EcaLoadConfig { estimator: Estimator::VirtualQueue, vq_limit: Some(crate::scenario::units::Bytes(3000)), ..Default::default() };
        let mut h = EcaLoad::new(&cfg, 8_000_000);
        let mut p = data(1000);
        // 1000 bytes per ms drains 900: the backlog grows by 100 a ms and never overflows in 10 ms.
        for i in 0..10 {
            h.on_arrival(&mut p, &view(), i * MS);
        }
        assert!(!h.vq_overflowed);
        h.on_arrival(&mut p, &view(), 100 * MS);
        assert_eq!(h.load(), 0.125);
        // Four packets at one instant into a drained virtual queue: the fourth exceeds 3000 bytes.
        for _ in 0..4 {
            h.on_arrival(&mut p, &view(), 150 * MS);
        }
        assert!(h.vq_overflowed);
        h.on_arrival(&mut p, &view(), 200 * MS);
        assert_eq!(h.load(), 0.125 * 1.05);
    }

    #[test]
    fn bad_settings_name_their_field() {
        let bad = EcaLoadConfig { target_utilisation: 1.5, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().0, "target_utilisation");
        let bad = EcaLoadConfig { decrease: 1.0, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().0, "decrease");
        let bad = EcaLoadConfig { vq_limit: Some(crate::scenario::units::Bytes(10)), ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().0, "vq_limit");
    }
}

impl crate::registry::Validate for EcaLoadConfig {
    fn validate(&self) -> Result<(), crate::registry::FieldError> {
        EcaLoadConfig::validate(self).map_err(|(f, m)| crate::registry::FieldError::new(f, m))
    }
}
