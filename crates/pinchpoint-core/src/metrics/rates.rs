//! Per-flow delivery rates in fixed intervals (`metrics.rate_interval`): the bytes each flow
//! delivered in order to its receiver in [k T, (k+1) T), and the coefficient of variation of
//! those rates over the flow's active span (seed 003 s4.B.2, figure 6: "CoV of 100 ms rates").
//! Sampled at the interval boundaries from the transport's delivered-byte count, so nothing is
//! done per packet. See `docs/metrics.md`.

use crate::flows::Flow;
use crate::sim::SimTime;
use crate::transport::Transport;

/// The interval table of a run, column-wise.
#[derive(Clone, Debug, Default)]
pub struct IntervalRates {
    /// Interval length, ps.
    pub interval_ps: SimTime,
    /// End of the next interval to close, ps.
    pub next_at: SimTime,
    /// Delivered bytes of each flow at the last boundary.
    last_bytes: Vec<u64>,
    /// Row: flow index.
    pub flow: Vec<u32>,
    /// Row: start of the interval, ps.
    pub start_ps: Vec<SimTime>,
    /// Row: bytes delivered in the interval.
    pub bytes: Vec<u64>,
}

impl IntervalRates {
    /// Rates over intervals of `interval_ps` for `n_flows` flows, from time 0.
    pub fn new(interval_ps: SimTime, n_flows: usize) -> Self {
        IntervalRates { interval_ps, next_at: interval_ps, last_bytes: vec![0; n_flows], ..Default::default() }
    }

    /// Closes the interval ending at `now` (= `next_at`): one row per flow active in it (started
    /// before its end and not completed before its start).
    pub fn close_interval(&mut self, now: SimTime, flows: &[Flow]) {
        let start = now - self.interval_ps;
        if self.last_bytes.len() < flows.len() {
            self.last_bytes.resize(flows.len(), 0);
        }
        for (i, f) in flows.iter().enumerate() {
            let delivered = f.transport.report().delivered_bytes;
            let bytes = delivered - self.last_bytes[i].min(delivered);
            self.last_bytes[i] = delivered;
            let started = f.stats.started_at().is_some_and(|t| t < now);
            let finished_before = f.stats.completed_at().is_some_and(|t| t <= start);
            if started && !finished_before {
                self.flow.push(i as u32);
                self.start_ps.push(start);
                self.bytes.push(bytes);
            }
        }
        self.next_at = now + self.interval_ps;
    }

    /// Coefficient of variation (population standard deviation over mean) of each flow's
    /// interval rates, over the intervals wholly inside its active span: from its start to its
    /// completion, or to `end` if it did not complete. NaN with fewer than two such intervals or
    /// a zero mean.
    pub fn cov_per_flow(&self, flows: &[Flow], end: SimTime) -> Vec<f64> {
        let n = flows.len();
        let inside = |k: usize| {
            let f = &flows[self.flow[k] as usize];
            let from = f.stats.started_at().unwrap_or(SimTime::MAX);
            let to = f.stats.completed_at().unwrap_or(end);
            self.start_ps[k] >= from && self.start_ps[k] + self.interval_ps <= to
        };
        // Two passes (mean, then squared deviations), as numpy's std.
        let (mut count, mut sum) = (vec![0u64; n], vec![0f64; n]);
        for k in (0..self.flow.len()).filter(|&k| inside(k)) {
            count[self.flow[k] as usize] += 1;
            sum[self.flow[k] as usize] += self.bytes[k] as f64;
        }
        let mean: Vec<f64> = (0..n).map(|i| if count[i] > 0 { sum[i] / count[i] as f64 } else { 0.0 }).collect();
        let mut dev_sq = vec![0f64; n];
        for k in (0..self.flow.len()).filter(|&k| inside(k)) {
            let i = self.flow[k] as usize;
            let dev = self.bytes[k] as f64 - mean[i];
            dev_sq[i] += dev * dev;
        }
        (0..n)
            .map(|i| if count[i] < 2 || mean[i] <= 0.0 { f64::NAN } else { (dev_sq[i] / count[i] as f64).sqrt() / mean[i] })
            .collect()
    }
}
