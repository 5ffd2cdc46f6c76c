//! Metrics: per-flow and per-port accumulators, time series and the result tables.

pub mod loss_events;
pub mod rates;
pub mod results;
pub mod stats;
pub mod table;

use crate::queue::DROP_REASONS;
use crate::sim::SimTime;
use stats::{LogHistogram, Moments, TimeWeighted};

/// What the network saw of one flow (the transport reports the rest).
#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    /// Data packets handed to the network (first transmissions and retransmissions).
    pub data_sent_pkts: u64,
    /// Bytes of those packets on the wire.
    pub data_sent_bytes: u64,
    /// Acknowledgement / reverse packets handed to the network.
    pub rev_sent_pkts: u64,
    /// Data packets that reached the destination.
    pub data_delivered_pkts: u64,
    /// Reverse packets that reached the source.
    pub rev_delivered_pkts: u64,
    /// Data packets dropped in the network.
    pub data_dropped_pkts: u64,
    /// Reverse packets dropped in the network.
    pub rev_dropped_pkts: u64,
    /// Data packets that arrived with CE set.
    pub data_ce_pkts: u64,
    /// End-to-end delay of delivered data packets, seconds.
    pub delay: Moments,
    /// The same delays in nanoseconds, for percentiles.
    pub delay_hist_ns: LogHistogram,
    /// When the workload started.
    pub started_at: Option<SimTime>,
    /// When a finite workload was fully acknowledged.
    pub completed_at: Option<SimTime>,
    /// Loss events of the data packets lost (RFC 5348 s5.2; `loss_events.rs`).
    pub loss_events: loss_events::LossEvents,
}

/// What a port saw.
#[derive(Clone, Debug)]
pub struct PortStats {
    /// Packets that arrived at the port.
    pub arrivals_pkts: u64,
    /// Bytes that arrived.
    pub arrivals_bytes: u64,
    /// Packets transmitted.
    pub tx_pkts: u64,
    /// Bytes transmitted.
    pub tx_bytes: u64,
    /// Time spent transmitting, ps.
    pub busy_ps: SimTime,
    /// Drops by reason.
    pub drops: [u64; DROP_REASONS],
    /// Packets marked by the discipline.
    pub marks: u64,
    /// Waiting packets over time.
    pub queue_pkts: TimeWeighted,
    /// Waiting bytes over time.
    pub queue_bytes: TimeWeighted,
    /// Most packets ever waiting.
    pub max_queue_pkts: u32,
    /// Packets transmitted and then lost on the wire (link loss model; not in `drops`).
    pub link_losses_pkts: u64,
}

impl Default for PortStats {
    fn default() -> Self {
        PortStats {
            arrivals_pkts: 0,
            arrivals_bytes: 0,
            tx_pkts: 0,
            tx_bytes: 0,
            busy_ps: 0,
            drops: [0; DROP_REASONS],
            marks: 0,
            queue_pkts: TimeWeighted::new(0),
            queue_bytes: TimeWeighted::new(0),
            max_queue_pkts: 0,
            link_losses_pkts: 0,
        }
    }
}

impl PortStats {
    /// All drops.
    pub fn total_drops(&self) -> u64 {
        self.drops.iter().sum()
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
