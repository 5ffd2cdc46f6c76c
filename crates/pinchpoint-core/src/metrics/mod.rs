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
    /// End-to-end delay of delivered data packets; allocated at the first delivery, so a flow
    /// that delivered nothing holds one pointer instead of 72 bytes.
    pub delay: Option<Box<DelayStats>>,
    /// When the workload started.
    pub started_at: Option<SimTime>,
    /// When a finite workload was fully acknowledged.
    pub completed_at: Option<SimTime>,
    /// Loss events of the data packets lost (RFC 5348 s5.2; `loss_events.rs`).
    pub loss_events: loss_events::LossEvents,
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
    /// A statistic of the delays, or NaN when no data packet was delivered (what the empty
    /// accumulators give).
    pub fn delay_or_nan(&self, stat: impl Fn(&DelayStats) -> f64) -> f64 {
        self.delay.as_deref().map_or(f64::NAN, stat)
    }
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
    /// Waiting packets and bytes over time; allocated when packets first wait, so a port
    /// whose queue never held a packet (an idle host's) holds one pointer instead of 176 bytes.
    pub occupancy: Option<Box<Occupancy>>,
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
            occupancy: None,
            max_queue_pkts: 0,
            link_losses_pkts: 0,
        }
    }
}

/// A queue's occupancy over time, in packets and in bytes, from time 0.
#[derive(Clone, Debug, Default)]
pub struct Occupancy {
    /// Waiting packets.
    pub pkts: TimeWeighted,
    /// Waiting bytes.
    pub bytes: TimeWeighted,
}

impl PortStats {
    /// All drops.
    pub fn total_drops(&self) -> u64 {
        self.drops.iter().sum()
    }

    /// The queue holds `pkts` packets of `bytes` bytes from `now` on. Trackers are created at
    /// the first non-empty queue: until then both held 0 since time 0, which an absent tracker
    /// stands for exactly (`TimeWeighted::set` ignores a value equal to the current one).
    #[inline]
    pub fn set_occupancy(&mut self, now: SimTime, pkts: u32, bytes: u64) {
        match self.occupancy.as_deref_mut() {
            Some(o) => TimeWeighted::set_pair(&mut o.pkts, &mut o.bytes, now, pkts as u64, bytes),
            None if pkts == 0 && bytes == 0 => {}
            None => self.first_occupancy(now, pkts, bytes),
        }
    }

    /// The queue holds packets for the first time: the trackers start (out of the per-packet
    /// path).
    #[cold]
    #[inline(never)]
    fn first_occupancy(&mut self, now: SimTime, pkts: u32, bytes: u64) {
        let mut o = Box::<Occupancy>::default();
        o.pkts.set(now, pkts as u64);
        o.bytes.set(now, bytes);
        self.occupancy = Some(o);
    }

    /// (packets, bytes) occupancy summaries up to `now` (see [`TimeWeighted::summary`]).
    pub fn occupancy_summaries(&self, now: SimTime) -> ((f64, f64, f64, f64, f64), (f64, f64, f64, f64, f64)) {
        match self.occupancy.as_deref() {
            Some(o) => (o.pkts.summary(now), o.bytes.summary(now)),
            None => {
                let empty = TimeWeighted::new(0);
                (empty.summary(now), empty.summary(now))
            }
        }
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
