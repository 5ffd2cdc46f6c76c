//! Metrics: per-flow and per-port accumulators, time series and the result tables.

pub mod loss_events;
pub mod port_stats;
pub mod rates;
pub mod results;
pub mod stats;
pub mod table;

pub use port_stats::{Occupancy, PortStats};
use crate::sim::SimTime;
use crate::transport::NEVER;
use stats::{LogHistogram, Moments};

/// What the network saw of one flow (the transport reports the rest).
///
/// `repr(C)` keeps the declared order, which `Flow`'s layout relies on: the first 24 bytes (sent
/// and dropped counters) are what a flow's send and drop touch (`Flow::admit`,
/// `Flow::record_drop`) and share the flow's first cache line with its transport, shaper and
/// route; the loss events a drop updates start the next line, with the delivery counters; the
/// start and completion times come last. Rust's default layout may reorder the fields and
/// split those groups (issue 13, large N: each extra line of a cold flow is an L3 access).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct FlowStats {
    /// Data packets handed to the network (first transmissions and retransmissions).
    pub data_sent_pkts: u64,
    /// Bytes of those packets on the wire.
    pub data_sent_bytes: u64,
    /// Data packets dropped in the network.
    pub data_dropped_pkts: u64,
    /// Acknowledgement / reverse packets handed to the network.
    pub rev_sent_pkts: u64,
    /// Loss events of the data packets lost (RFC 5348 s5.2; `loss_events.rs`).
    pub loss_events: loss_events::LossEvents,
    /// Data packets that reached the destination.
    pub data_delivered_pkts: u64,
    /// Reverse packets that reached the source.
    pub rev_delivered_pkts: u64,
    /// Reverse packets dropped in the network.
    pub rev_dropped_pkts: u64,
    /// Data packets that arrived with CE set.
    pub data_ce_pkts: u64,
    /// End-to-end delay of delivered data packets; allocated at the first delivery, so a flow
    /// that delivered nothing holds one pointer instead of 72 bytes.
    pub delay: Option<Box<DelayStats>>,
    /// When the workload started (`NEVER`: not yet; a plain time is 8 bytes smaller than an
    /// `Option`, issue 13). Read through [`FlowStats::started_at`].
    started_at_ps: SimTime,
    /// When a finite workload was fully acknowledged (`NEVER`: not yet).
    completed_at_ps: SimTime,
}

impl Default for FlowStats {
    fn default() -> Self {
        FlowStats {
            data_sent_pkts: 0,
            data_sent_bytes: 0,
            rev_sent_pkts: 0,
            data_delivered_pkts: 0,
            rev_delivered_pkts: 0,
            data_dropped_pkts: 0,
            rev_dropped_pkts: 0,
            data_ce_pkts: 0,
            delay: None,
            started_at_ps: NEVER,
            completed_at_ps: NEVER,
            loss_events: Default::default(),
        }
    }
}

/// End-to-end delay of a flow's delivered data packets.
#[derive(Clone, Debug, Default)]
pub struct DelayStats {
    /// Delays in seconds.
    pub secs: Moments,
    /// The same delays in nanoseconds, for percentiles.
    pub hist_ns: LogHistogram,
}

impl DelayStats {
    /// Empty statistics on the heap (called once per flow, out of the per-packet path).
    #[cold]
    #[inline(never)]
    pub fn new_boxed() -> Box<DelayStats> {
        Box::default()
    }
}

impl FlowStats {
    /// When the workload started, if it has.
    #[inline]
    pub fn started_at(&self) -> Option<SimTime> {
        (self.started_at_ps != NEVER).then_some(self.started_at_ps)
    }

    /// When a finite workload was fully acknowledged, if it was.
    #[inline]
    pub fn completed_at(&self) -> Option<SimTime> {
        (self.completed_at_ps != NEVER).then_some(self.completed_at_ps)
    }

    /// The workload starts at `now` (before the end of time).
    #[inline]
    pub fn set_started_at(&mut self, now: SimTime) {
        debug_assert!(now != NEVER);
        self.started_at_ps = now;
    }

    /// The finite workload is fully acknowledged at `now` (before the end of time).
    #[inline]
    pub fn set_completed_at(&mut self, now: SimTime) {
        debug_assert!(now != NEVER);
        self.completed_at_ps = now;
    }

    /// A statistic of the delays, or NaN when no data packet was delivered (what the empty
    /// accumulators give).
    pub fn delay_or_nan(&self, stat: impl Fn(&DelayStats) -> f64) -> f64 {
        self.delay.as_deref().map_or(f64::NAN, stat)
    }
}

/// Periodic samples of flows and ports, column-wise.
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Flow samples: time, s.
    pub flow_t: Vec<f64>,
    /// Flow index.
    pub flow_id: Vec<u32>,
    /// Bytes delivered in order so far.
    pub flow_delivered_bytes: Vec<u64>,
    /// Bytes acknowledged so far.
    pub flow_acked_bytes: Vec<u64>,
    /// Congestion window, bytes.
    pub flow_cwnd_bytes: Vec<u64>,
    /// Advertised receiver window, bytes.
    pub flow_rwnd_bytes: Vec<u64>,
    /// Smoothed RTT, s.
    pub flow_srtt_s: Vec<f64>,
    /// Sending rate of rate-based transports, bit/s.
    pub flow_rate_bps: Vec<f64>,
    /// Port samples: time, s.
    pub port_t: Vec<f64>,
    /// Port index.
    pub port_id: Vec<u32>,
    /// Waiting packets.
    pub port_queue_pkts: Vec<u32>,
    /// Waiting bytes.
    pub port_queue_bytes: Vec<u64>,
    /// Bytes transmitted so far.
    pub port_tx_bytes: Vec<u64>,
    /// Drops so far.
    pub port_drops: Vec<u64>,
    /// Loss events per flow and interval.
    pub loss_events: loss_events::LossEventSeries,
}

/// One record per delivered data packet (when `metrics.packet_trace` is on).
#[derive(Clone, Debug, Default)]
pub struct PacketTrace {
    /// Delivery time, s.
    pub t: Vec<f64>,
    /// Flow index.
    pub flow: Vec<u32>,
    /// End-to-end delay, s.
    pub delay_s: Vec<f64>,
    /// Size on the wire, bytes.
    pub size_bytes: Vec<u32>,
    /// Sequence number of the first payload byte.
    pub seq: Vec<u64>,
    /// CE bit on arrival.
    pub ce: Vec<bool>,
    /// Retransmission.
    pub retx: Vec<bool>,
}

/// Every queue-length change of the traced ports.
#[derive(Clone, Debug, Default)]
pub struct QueueTrace {
    /// Time of the change, s.
    pub t: Vec<f64>,
    /// Port index.
    pub port: Vec<u32>,
    /// Waiting packets after the change.
    pub queue_pkts: Vec<u32>,
    /// Waiting bytes after the change.
    pub queue_bytes: Vec<u64>,
}
