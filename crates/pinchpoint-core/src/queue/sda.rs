//! SDA, selective drop (seed 001, s3.5 first paragraph): under congestion, drop packets only of
//! the flows measured as high-bandwidth.
//!
//! "An algorithm arises to assign the packet drop priority for each service connection and then
//! to throw away only the high bandwidth UDP traffics" (s3.5). The seed describes SDA only in
//! that sentence and by contrast with ISDA, whose point is that SDA's plain measurement is
//! fooled by bursts. Our reading, recorded in `docs/algorithms/sda.md`:
//!
//! * each flow's rate is measured as the bytes this port accepted from it in a window of
//!   `window` (no smoothing);
//! * a flow is high-bandwidth for the next window when its last measured rate exceeds the fair
//!   share, the port rate divided by the number of flows that sent anything in the window;
//! * congestion is QueAvg (RED average, as in RDA/FP) above MinQue; while congested every
//!   arrival of a high-bandwidth flow is dropped (reason `Policy`), the RDA rule of s3.1 applied to
//!   those flows only. Other flows meet only the buffer limit.
//!
//! Measuring *accepted* bytes (not offered) lets a cut flow's measured rate fall, so it is
//! released again: its throughput then hovers near the fair share, which is what s4.2 reports.
//! Windows are closed lazily by the first arrival after their end; per-flow state is a few
//! vectors indexed by the dense flow index.

use super::aqm::{delegate_to_core, exceeds, AqmConfig, AqmCore};
use super::{DropReason, PortInfo, QueueDiscipline, QueueNew, Verdict};
use crate::net::packet::Packet;
use crate::registry::{FieldError, Validate};
use crate::sim::units::Duration;
use crate::sim::{SimRng, SimTime, PS_PER_S};
use serde::{Deserialize, Serialize};

pub(crate) fn default_window() -> Duration {
    Duration(PS_PER_S)
}

/// Per-flow byte counts over fixed windows, closed lazily on arrivals. Indexed by the dense
/// flow index (`Packet::flow`); grows on demand, never hashes.
#[derive(Debug, Default)]
pub struct FlowWindows {
    /// Window length, ps.
    pub window_ps: SimTime,
    /// End of the current window, ps.
    pub window_end: SimTime,
    /// Bytes counted for each flow in the current window (accepted or arriving, as the policy
    /// chooses).
    pub counted_bytes: Vec<u64>,
    /// Whether each flow offered at least one packet in the current window.
    pub seen: Vec<bool>,
}

impl FlowWindows {
    /// Windows of `window_ps` starting at time 0.
    pub fn new(window_ps: SimTime) -> Self {
        let window_ps = window_ps.max(1);
        FlowWindows { window_ps, window_end: window_ps, counted_bytes: Vec::new(), seen: Vec::new() }
    }
    /// Makes room for flow `f` (and all below it); returns its index.
    #[inline]
    pub fn slot(&mut self, f: u32) -> usize {
        let f = f as usize;
        if f >= self.seen.len() {
            self.seen.resize(f + 1, false);
            self.counted_bytes.resize(f + 1, 0);
        }
        f
    }
    /// Number of windows that ended at or before `now` and are not yet closed (0 if none).
    #[inline]
    pub fn due(&self, now: SimTime) -> u64 {
        if now < self.window_end {
            0
        } else {
            (now - self.window_end) / self.window_ps + 1
        }
    }
    /// Starts a fresh window after `elapsed` windows have been closed by the caller.
    pub fn reset(&mut self, elapsed: u64) {
        self.window_end += elapsed * self.window_ps;
        self.counted_bytes.iter_mut().for_each(|b| *b = 0);
        self.seen.iter_mut().for_each(|s| *s = false);
    }
    /// Number of flows that offered a packet in the current window.
    pub fn active(&self) -> usize {
        self.seen.iter().filter(|s| **s).count()
    }
    /// A flow's rate in the current window, bit/s.
    #[inline]
    pub fn rate_bps(&self, f: usize) -> f64 {
        self.counted_bytes[f] as f64 * 8.0 * PS_PER_S as f64 / self.window_ps as f64
    }
}

/// Scenario configuration of an SDA queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SdaConfig {
    /// Measurement window. Default 1 s (no value in the seed).
    #[serde(default = "default_window")]
    pub window: Duration,
    /// Fair share a flow may use before it counts as high-bandwidth, bit/s. Default: port rate /
    /// flows active in the last window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_share_bps: Option<f64>,
    /// The fields every seed-001 policy shares (see [`AqmConfig`]). SDA uses MinQue (congestion:
    /// QueAvg exceeds it), the average and the buffer; it has no probabilistic band, so MaxQue
    /// plays no part and `ecn = true` is refused.
    #[serde(flatten)]
    pub aqm: AqmConfig,
}

impl Default for SdaConfig {
    fn default() -> Self {
        SdaConfig { window: default_window(), fair_share_bps: None, aqm: AqmConfig::default() }
    }
}

impl Validate for SdaConfig {
    fn validate(&self) -> Result<(), FieldError> {
        // SDA's rule reads MinQue alone (QueAvg above it): MaxQue, which the other policies
        // of the seed use for their probabilistic band, has no effect here, so it is neither
        // read nor checked against min_que_pkts (a resolved scenario writes its default).
        if self.aqm.max_que_pkts != super::aqm::default_max_que() {
            return Err(FieldError::new("max_que_pkts", "has no effect with SDA (its rule uses min_que_pkts alone): expected no max_que_pkts"));
        }
        crate::registry::check_f64("min_que_pkts", self.aqm.min_que_pkts, 0.0, 1e9)?;
        crate::registry::check_f64_above("weight", self.aqm.weight, 0.0, 1.0)?;
        crate::registry::check_int("mean_pkt_bytes", self.aqm.mean_pkt_bytes, 1, 1_000_000)?;
        self.aqm.limit().validate()?;
        check_window(self.window)?;
        check_fair_share(self.fair_share_bps)?;
        if self.aqm.ecn {
            return Err(FieldError::new("ecn", "expected false: SDA only drops by flow and never marks"));
        }
        Ok(())
    }
}

/// The measurement window of SDA and ISDA must be positive.
pub(crate) fn check_window(window: Duration) -> Result<(), FieldError> {
    if window.0 == 0 {
        return Err(FieldError::new("window", "expected a positive duration, got 0s"));
    }
    Ok(())
}

/// A configured fair share (SDA, ISDA) must be a positive, finite rate.
pub(crate) fn check_fair_share(fair_share_bps: Option<f64>) -> Result<(), FieldError> {
    match fair_share_bps {
        Some(b) if !(b > 0.0 && b.is_finite()) => {
            Err(FieldError::new("fair_share_bps", format!("expected a positive rate in bit/s, got {b}")))
        }
        _ => Ok(()),
    }
}

/// An SDA queue.
#[derive(Debug)]
pub struct Sda {
    core: AqmCore,
    win: FlowWindows,
    high: Vec<bool>,
    fair_share_bps: Option<f64>,
    rate_bps: f64,
}

impl QueueNew for Sda {
    type Config = SdaConfig;
    /// Builds an SDA queue from its configuration.
    fn new(cfg: &SdaConfig, port: PortInfo) -> Self {
        Sda {
            core: AqmCore::new(&cfg.aqm, port),
            win: FlowWindows::new(cfg.window.0),
            high: Vec::new(),
            fair_share_bps: cfg.fair_share_bps,
            rate_bps: port.rate_bps as f64,
        }
    }
}

impl Sda {
    /// True if flow `f` is currently classed high-bandwidth.
    pub fn is_high(&self, f: u32) -> bool {
        self.high.get(f as usize).copied().unwrap_or(false)
    }

    fn close_windows(&mut self, elapsed: u64) {
        self.high.resize(self.win.seen.len(), false);
        let active = self.win.active();
        // Only the first closed window had traffic; a later empty one would clear every flag.
        if elapsed > 1 || active == 0 {
            self.high.iter_mut().for_each(|h| *h = false);
        } else {
            let fair = self.fair_share_bps.unwrap_or(self.rate_bps / active as f64);
            for f in 0..self.high.len() {
                self.high[f] = self.win.rate_bps(f) > fair;
            }
        }
        self.win.reset(elapsed);
    }
}

impl QueueDiscipline for Sda {
    #[inline]
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, _rng: &mut SimRng) -> Verdict {
        let elapsed = self.win.due(now);
        if elapsed > 0 {
            self.close_windows(elapsed);
        }
        let f = self.win.slot(pkt.flow);
        self.win.seen[f] = true;
        let avg = self.core.average(now);
        // s3.5: under congestion, throw away only the high-bandwidth flows' packets (RDA on them).
        if exceeds(avg, self.core.min_que) && self.high.get(f).copied().unwrap_or(false) {
            return Verdict::Dropped(DropReason::Policy);
        }
        let v = self.core.admit(id, pkt, None);
        if v != Verdict::Dropped(DropReason::Overflow) {
            self.win.counted_bytes[f] += pkt.size_bytes as u64;
        }
        v
    }
    delegate_to_core!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;
    use crate::sim::PS_PER_MS;

    fn info() -> PortInfo {
        PortInfo { rate_bps: 10_000_000, delay_ps: 0 }
    }

    #[test]
    fn windows_close_lazily_and_count_skipped_ones() {
        let mut w = FlowWindows::new(100 * PS_PER_MS);
        assert_eq!(w.due(99 * PS_PER_MS), 0);
        assert_eq!(w.due(100 * PS_PER_MS), 1);
        assert_eq!(w.due(350 * PS_PER_MS), 3);
        let f = w.slot(7);
        assert_eq!((f, w.seen.len()), (7, 8));
        w.counted_bytes[7] = 1250;
        assert_eq!(w.rate_bps(7), 100_000.0);
        w.reset(3);
        assert_eq!(w.window_end, 400 * PS_PER_MS);
        assert_eq!(w.counted_bytes[7], 0);
    }

    /// Feeds `pkts_per_window` packets of 1000 B per window for flows 0 (heavy) and 1 (light),
    /// with the queue kept congested (weight 1, 20 packets waiting).
    #[test]
    fn drops_only_the_flow_above_the_fair_share_under_congestion() {
        let cfg = SdaConfig {
            window: Duration(100 * PS_PER_MS),
            aqm: AqmConfig { weight: 1.0, limit_pkts: Some(1000), ..Default::default() },
            ..Default::default()
        };
        let mut q = Sda::new(&cfg, info());
        let mut rng = stream(0, "t");
        let mut id = 0;
        let mut filler = Packet { size_bytes: 1000, flow: 2, ..Default::default() };
        for _ in 0..20 {
            q.enqueue(id, &mut filler, 0, &mut rng);
            id += 1;
        }
        // Window 1 (0-100 ms): flow 0 sends 100 packets (8 Mbit/s), flow 1 sends 5 (0.4 Mbit/s).
        // Fair share = 10 Mbit/s / 3 active flows.
        let mut t = PS_PER_MS;
        for k in 0..100 {
            let mut p = Packet { size_bytes: 1000, flow: 0, ..Default::default() };
            assert_eq!(q.enqueue(id, &mut p, t, &mut rng), Verdict::Queued);
            q.dequeue(t);
            id += 1;
            if k % 20 == 0 {
                let mut p = Packet { size_bytes: 1000, flow: 1, ..Default::default() };
                assert_eq!(q.enqueue(id, &mut p, t, &mut rng), Verdict::Queued);
                q.dequeue(t);
                id += 1;
            }
            t += PS_PER_MS / 2;
        }
        // Window 2: flow 0 is high-bandwidth, flow 1 is not.
        t = 101 * PS_PER_MS;
        let mut heavy = Packet { size_bytes: 1000, flow: 0, ..Default::default() };
        assert_eq!(q.enqueue(id, &mut heavy, t, &mut rng), Verdict::Dropped(DropReason::Policy));
        let mut light = Packet { size_bytes: 1000, flow: 1, ..Default::default() };
        assert_eq!(q.enqueue(id + 1, &mut light, t, &mut rng), Verdict::Queued);
        assert!(q.is_high(0) && !q.is_high(1));
        // Not congested: even the heavy flow passes.
        while q.len_pkts() > 0 {
            q.dequeue(t);
        }
        assert_eq!(q.enqueue(id + 2, &mut heavy, t + PS_PER_MS, &mut rng), Verdict::Queued);
    }
}
