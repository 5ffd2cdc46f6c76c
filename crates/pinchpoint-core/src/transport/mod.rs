//! Transports: what runs at the two ends of a flow. A flow's transport gets time, randomness and
//! an output buffer passed in through [`TransportCtx`]; it never touches the network directly.

use crate::net::packet::Packet;
use crate::sim::{SimRng, SimTime};
use crate::traffic::{AnyWorkload, Workload};

#[cfg(test)]
pub(crate) mod testing;
pub mod credit;
pub mod tcp;
pub mod trump;
pub mod tfrc;
pub mod udp;

/// Number of timer slots a flow has.
pub const TIMER_SLOTS: usize = 5;
/// Retransmission timer.
pub const TIMER_RTO: u8 = 0;
/// Delayed-acknowledgement timer.
pub const TIMER_DELACK: u8 = 1;
/// Application timer (workload start, next datagram).
pub const TIMER_APP: u8 = 2;
/// Shaper release timer (owned by the engine, not the transport).
pub const TIMER_SHAPER: u8 = 3;
/// Sender pacing timer (TCP internal pacing: the next paced segment is due).
pub const TIMER_PACING: u8 = 4;
/// A deadline that never comes (timer not armed).
pub const NEVER: SimTime = SimTime::MAX;

/// Direction of a packet a transport emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the flow's source to its destination (data).
    Forward,
    /// From the destination back to the source (acknowledgements).
    Reverse,
}

/// What a transport may do when called: send packets, arm timers, draw random numbers.
pub struct TransportCtx<'a> {
    /// Current time.
    pub now: SimTime,
    /// Packets to send; the engine routes and counts them after the call.
    pub out: &'a mut Vec<(Packet, Direction)>,
    /// Timer deadlines by slot (`timers[k]`); set an entry to arm, to [`NEVER`] to cancel. The
    /// flow's own slots, whose pending heap events belong to the engine (`flows::FlowTimers`).
    pub timers: &'a mut crate::flows::FlowTimers,
    /// Slots armed through [`TransportCtx::set_timer`] during this call, one bit per slot: the
    /// engine looks only at these for a deadline earlier than the event it holds (a cancelled
    /// slot never needs an earlier event, so writing [`NEVER`] directly needs no bit).
    pub armed_slots: u8,
    /// The flow's own random stream.
    pub rng: &'a mut SimRng,
    /// What the application offers; pull with [`TransportCtx::offered_bytes`].
    pub workload: &'a mut AnyWorkload,
}

impl TransportCtx<'_> {
    /// Sends `pkt` in direction `dir`.
    #[inline]
    pub fn send(&mut self, pkt: Packet, dir: Direction) {
        self.out.push((pkt, dir));
    }
    /// Arms timer `slot` to fire at `at` (replacing any earlier setting).
    #[inline]
    pub fn set_timer(&mut self, slot: u8, at: SimTime) {
        self.timers[slot as usize] = at;
        self.armed_slots |= 1 << slot;
    }
    /// Bytes the application has offered by now (cumulative; `u64::MAX`: unbounded).
    #[inline]
    pub fn offered_bytes(&mut self) -> u64 {
        self.workload.offered_bytes(self.now, self.rng)
    }
    /// When the application next offers more ([`NEVER`]: it never will).
    #[inline]
    pub fn next_offer_at(&self) -> SimTime {
        self.workload.next_offer_at()
    }
    /// Size of one application message, if the workload writes messages.
    #[inline]
    pub fn workload_message_bytes(&self) -> Option<u32> {
        self.workload.message_bytes()
    }
    /// Cancels timer `slot`.
    #[inline]
    pub fn cancel_timer(&mut self, slot: u8) {
        self.timers[slot as usize] = NEVER;
    }
}

/// Counters and state a transport reports for summaries and time series.
#[derive(Clone, Copy, Debug, Default)]
pub struct TransportReport {
    /// Application bytes delivered in order to the receiver.
    pub delivered_bytes: u64,
    /// Application bytes acknowledged to the sender.
    pub acked_bytes: u64,
    /// Data packets retransmitted.
    pub retx_pkts: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits (loss recoveries entered).
    pub fast_retx: u64,
    /// Congestion window (or rate-equivalent window), bytes.
    pub cwnd_bytes: u64,
    /// Window the receiver advertises, bytes.
    pub rwnd_bytes: u64,
    /// Smoothed RTT, ps (0 before the first sample).
    pub srtt_ps: SimTime,
    /// Number of RTT samples taken.
    pub rtt_samples: u64,
    /// Sum of RTT samples, ps.
    pub rtt_sum_ps: f64,
    /// Smallest RTT sample, ps.
    pub rtt_min_ps: SimTime,
    /// Largest RTT sample, ps.
    pub rtt_max_ps: SimTime,
    /// Population standard deviation of the RTT samples, ps (Welford's update in the transport).
    pub rtt_std_ps: f64,
    /// Sending rate of a rate-based transport (TRUMP's Return_Rate), bit/s; 0 for others.
    pub rate_bps: f64,
    /// TCP connection set-up, for flows that run one (`tcp.handshake`).
    pub handshake: Option<tcp::handshake::HandshakeReport>,
    /// RACK-TLP's counters, for TCP flows with `recovery = "rack_tlp"`.
    pub rack: Option<tcp::rack::RackReport>,
}

/// The two ends of a flow.
pub trait Transport {
    /// The workload starts (the flow's start time).
    fn on_start(&mut self, ctx: &mut TransportCtx);
    /// A packet of this flow reached one of its ends: forward packets at the destination,
    /// reverse packets at the source.
    fn on_packet(&mut self, pkt: &Packet, ctx: &mut TransportCtx);
    /// Timer `slot` fired.
    fn on_timer(&mut self, slot: u8, ctx: &mut TransportCtx);
    /// True once a finite workload has been fully delivered and acknowledged.
    fn is_complete(&self) -> bool;
    /// True if the workload is finite (a file), so the run can stop when it completes.
    fn is_finite(&self) -> bool;
    /// Current counters and state.
    fn report(&self) -> TransportReport;
    /// The smoothed RTT as `report()` gives it, ps. A flow reads it on every dropped data
    /// packet (loss intervals), so transports whose report is costly to build override it.
    fn srtt_ps(&self) -> SimTime {
        self.report().srtt_ps
    }
}

/// A built transport (closed set; one variant per transport family).
pub enum AnyTransport {
    /// Reliable windowed byte stream.
    Tcp(Box<tcp::TcpConnection>),
    /// A TCP flow that has not started: its connection is built from the shared recipe at the
    /// start ([`AnyTransport::open`]), so an idle flow holds a pointer instead of a connection.
    TcpPending(tcp::recipe::PendingTcp),
    /// Unresponsive datagrams.
    Udp(udp::UdpFlow),
    /// Rate-based reliable transport over RBCC (Toomey).
    Trump(Box<trump::TrumpFlow>),
    /// Equation-based rate control (RFC 5348).
    Tfrc(Box<tfrc::TfrcFlow>),
}

impl AnyTransport {
    /// Builds a pending TCP connection for flow `flow_name` (whose workload offers
    /// `total_bytes`, `u64::MAX`: unbounded); any other transport is already built. Called when
    /// the flow starts, before `on_start`.
    #[cold]
    pub fn open(&mut self, flow_name: &(impl AsRef<str> + ?Sized), total_bytes: u64) {
        if let AnyTransport::TcpPending(p) = self {
            *self = AnyTransport::Tcp(Box::new(p.recipe.build(flow_name, total_bytes)));
        }
    }
}

impl AnyTransport {
    /// True once a finite workload is complete (`is_finite() && is_complete()`), asked after
    /// every call: an open TCP connection answers from its sender's flag without the dispatch
    /// over all transports (about 16 instructions per call, callgrind).
    #[inline]
    pub fn is_finished(&self) -> bool {
        match self {
            AnyTransport::Tcp(t) => t.sender.is_complete() && t.sender.is_finite(),
            other => other.is_finished_other(),
        }
    }

    #[inline(never)]
    fn is_finished_other(&self) -> bool {
        self.is_finite() && self.is_complete()
    }

    /// [`Transport::on_packet`] for every transport but an open TCP connection.
    #[inline(never)]
    fn on_packet_other(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        match self {
            AnyTransport::Tcp(t) => t.on_packet(pkt, ctx),
            AnyTransport::Udp(u) => u.on_packet(pkt, ctx),
            AnyTransport::Trump(t) => t.on_packet(pkt, ctx),
            AnyTransport::Tfrc(t) => t.on_packet(pkt, ctx),
            AnyTransport::TcpPending(_) => unreachable!("{NOT_OPENED}"),
        }
    }
}

/// A pending connection is opened before its flow's first call; a call before that is a bug in
/// the engine, not a user error.
const NOT_OPENED: &str = "a TCP connection is opened (AnyTransport::open) when its flow starts, before any call";

impl Transport for AnyTransport {
    #[inline]
    fn on_start(&mut self, ctx: &mut TransportCtx) {
        match self {
            AnyTransport::Tcp(t) => t.on_start(ctx),
            AnyTransport::Udp(u) => u.on_start(ctx),
            AnyTransport::Trump(t) => t.on_start(ctx),
            AnyTransport::Tfrc(t) => t.on_start(ctx),
            AnyTransport::TcpPending(_) => unreachable!("{NOT_OPENED}"),
        }
    }
    #[inline]
    fn on_packet(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        match self {
            // TCP's arm only jumps on to the receiver or the sender; the other transports are
            // called out of line, so this dispatch saves no registers for them (about 14
            // instructions per packet delivered, callgrind).
            AnyTransport::Tcp(t) => t.on_packet(pkt, ctx),
            other => other.on_packet_other(pkt, ctx),
        }
    }
    #[inline]
    fn on_timer(&mut self, slot: u8, ctx: &mut TransportCtx) {
        match self {
            AnyTransport::Tcp(t) => t.on_timer(slot, ctx),
            AnyTransport::Udp(u) => u.on_timer(slot, ctx),
            AnyTransport::Trump(t) => t.on_timer(slot, ctx),
            AnyTransport::Tfrc(t) => t.on_timer(slot, ctx),
            AnyTransport::TcpPending(_) => unreachable!("{NOT_OPENED}"),
        }
    }
    fn is_complete(&self) -> bool {
        match self {
            AnyTransport::Tcp(t) => t.is_complete(),
            AnyTransport::Udp(u) => u.is_complete(),
            AnyTransport::Trump(t) => t.is_complete(),
            AnyTransport::Tfrc(t) => t.is_complete(),
            AnyTransport::TcpPending(_) => false,
        }
    }
    fn is_finite(&self) -> bool {
        match self {
            AnyTransport::Tcp(t) => t.is_finite(),
            AnyTransport::Udp(u) => u.is_finite(),
            AnyTransport::Trump(t) => t.is_finite(),
            AnyTransport::Tfrc(t) => t.is_finite(),
            AnyTransport::TcpPending(p) => p.finite,
        }
    }
    fn report(&self) -> TransportReport {
        match self {
            AnyTransport::Tcp(t) => t.report(),
            AnyTransport::Udp(u) => u.report(),
            AnyTransport::Trump(t) => t.report(),
            AnyTransport::Tfrc(t) => t.report(),
            AnyTransport::TcpPending(p) => p.report(),
        }
    }
    #[inline]
    fn srtt_ps(&self) -> SimTime {
        match self {
            // Read directly: building the whole report touches the sender's cold counters.
            AnyTransport::Tcp(t) => t.sender.srtt_ps(),
            other => other.report().srtt_ps,
        }
    }
}
