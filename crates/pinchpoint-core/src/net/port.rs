//! An output port: a queue discipline, a transmitter, hooks, and the wire behind it.
//!
//! The port owns the bookkeeping (ns-3's QueueDisc split): it counts arrivals, drops and marks by
//! reason, tracks occupancy over time, and keeps the packets on the wire in a ring. A link has one
//! rate and one delay, so packets leave the wire in the order they entered it: only the head of
//! the ring needs an event in the heap.

use crate::metrics::PortStats;
use crate::port_hooks::AnyHook;
use crate::queue::AnyQueue;
use crate::sim::{SimRng, SimTime};
use std::collections::VecDeque;

/// One simplex channel's sending end.
pub struct Port {
    /// `from->to` by node names.
    pub name: String,
    /// Node the port belongs to.
    pub from_node: u32,
    /// Node at the far end of the wire.
    pub to_node: u32,
    /// Transmission rate, bit/s.
    pub rate_bps: u64,
    /// Serialisation time per byte if exact, else 0 (see `sim::time::exact_ps_per_byte`).
    pub ps_per_byte: u64,
    /// Propagation delay, ps.
    pub delay_ps: SimTime,
    /// The queue discipline.
    pub queue: AnyQueue,
    /// Hooks, in scenario order.
    pub hooks: Vec<AnyHook>,
    /// When the transmitter finishes the packet it is sending (in the past when idle).
    pub busy_until: SimTime,
    /// A `TxDone` event is in the heap. The port schedules one only when packets wait behind
    /// the one being sent; a packet that finds the port idle is sent at once, so lightly loaded
    /// ports (access links, the ack path) cost one event per packet instead of two.
    pub txdone_pending: bool,
    /// Packets on the wire: (arrival time at the far end, packet slot), in order.
    pub wire: VecDeque<(SimTime, u32)>,
    /// The port's random stream (probabilistic disciplines).
    pub rng: SimRng,
    /// Packets waiting, as the port counts them (the discipline's own count must agree; the
    /// port keeps its own so the per-packet path reads a field instead of dispatching).
    pub waiting_pkts: u32,
    /// Bytes waiting, as the port counts them.
    pub waiting_bytes: u64,
    /// Counters.
    pub stats: PortStats,
    /// Record every queue change (metrics.queue_trace).
    pub traced: bool,
    /// Record every packet transmitted (metrics.capture).
    pub captured: bool,
}

impl Port {
    /// True while a packet is being serialised at `now`.
    #[inline]
    pub fn busy(&self, now: SimTime) -> bool {
        now < self.busy_until
    }

    /// Packets waiting in the queue.
    pub fn queue_len_pkts(&self) -> u32 {
        use crate::queue::QueueDiscipline;
        self.queue.len_pkts()
    }
}
