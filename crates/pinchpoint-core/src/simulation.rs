//! The run loop: the world (arenas of nodes, ports, flows and packets) and the event dispatch.
//! Ports do their own work (`net::port`), flows theirs (`flows`), result tables are built in
//! `metrics::results`; the engine moves packets between them and routes what they emit.

use crate::flows::{Admit, Flow, TimerAction};
use crate::metrics::{PacketTrace, QueueTrace, Series};
use crate::net::port::{Admission, PortEnv};
use crate::net::routing::{RouteArena, RouteRule};
use crate::net::{Node, Packet, PacketKind, PacketSlab, Port};
use crate::port_hooks::HookEmit;
use crate::sim::prefetch::{prefetch_bytes, prefetch_read};
use crate::sim::{ps_to_secs, Event, EventQueue, SimTime};
use crate::transport::{AnyTransport, Direction, Transport, TransportCtx};

pub use crate::flows::{FlowShaper, FlowTimers};
pub use crate::metrics::results::Results;

/// Flows from which the timer path prefetches (see `Simulation::prefetch_next_timer_flow`;
/// decided once at build, [`Simulation::prefetch_timers`]). A
/// dumbbell flow holds about 1.5 KB (flow, boxed TCP state, its share of four ports and routes:
/// bench/README, "Memory per idle flow"), so from about 1,400 flows its state outgrows a 2 MiB
/// per-core L2 (this machine's); below 2,048 flows the state stays in cache and a prefetch would
/// only add instructions.
pub const PREFETCH_MIN_FLOWS: usize = 2048;

/// How many keys of the timer wheel's current slot the timer path looks ahead
/// ([`Simulation::prefetch_timers_ahead`]). At 100,000 flows a slot (1.07 ms) holds about 100
/// retransmission timers and a timer fires every two hops, so the head alone (the look-ahead
/// of round 7) leaves one event for a cold flow's lines to arrive. Looking 16 ahead for the
/// flow and 8 ahead for its connection and first port took the bench dumbbell's loop at
/// N = 100,000 from 0.466 to 0.443 s (medians of 7 alternating runs; 8 places gave 0.448 s in
/// the same set); N = 10,000 did not move beyond the noise (issue 13, session 21).
const TIMER_AHEAD: usize = 16;

/// A timed route change: at `at`, recompute every flow's routes.
#[derive(Clone, Copy, Debug)]
pub struct RouteChange {
    /// When.
    pub at: SimTime,
}

/// Counters of the run itself.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunCounters {
    /// Events popped from the heap.
    pub events: u64,
    /// Packets carried over one link (one packet over one simplex channel).
    pub packet_hops: u64,
    /// Most packets alive at once.
    pub packets_high_water: u64,
    /// Work the router did while building (`Router::route_steps`): linear in flows.
    pub build_route_steps: u64,
}

/// Resource bounds of a run (`[simulation]` in a scenario). A run that would exceed one stops
/// with an error naming it instead of exhausting memory.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most packets alive at once (queued, in service, on a wire).
    pub max_live_packets: usize,
}

/// A built simulation, ready to run.
pub struct Simulation {
    pub(crate) now: SimTime,
    pub(crate) end: SimTime,
    pub(crate) stop_when_done: bool,
    pub(crate) queue: EventQueue,
    pub(crate) packets: PacketSlab,
    pub(crate) nodes: Vec<Node>,
    /// Fixed in length at build: every port id in the route arena is below it (`RouteArena::new`),
    /// so the run loop indexes it unchecked ([`Self::port_unchecked`]).
    pub(crate) ports: Box<[Port]>,
    pub(crate) routes: RouteArena,
    pub(crate) rules: Vec<RouteRule>,
    pub(crate) route_by_delay: bool,
    pub(crate) flows: Vec<Flow>,
    pub(crate) out: Vec<(Packet, Direction)>,
    pub(crate) hook_out: Vec<HookEmit>,
    pub(crate) finite_pending: usize,
    pub(crate) series_interval: Option<SimTime>,
    pub(crate) series: Series,
    /// Per-flow delivery in fixed intervals (`metrics.rate_interval`).
    pub(crate) rates: Option<crate::metrics::rates::IntervalRates>,
    pub(crate) packet_trace: Option<PacketTrace>,
    pub(crate) queue_trace: QueueTrace,
    /// Packets the captured ports started to transmit: (time, port, copy of the packet).
    pub(crate) capture: Vec<(SimTime, u32, Packet)>,
    /// Slots a port's discipline removed from its queue during the last port call, to free.
    pub(crate) dropped: Vec<u32>,
    pub(crate) counters: RunCounters,
    pub(crate) limits: Limits,
    pub(crate) stopped: bool,
    pub(crate) error: Option<String>,
    pub(crate) scenario_name: String,
    pub(crate) seed: u64,
    /// Arrival processes and the transfers' flow slots (`traffic::arrivals::engine`).
    pub(crate) arrivals: crate::traffic::arrivals::engine::ArrivalsState,
    /// The timer path prefetches what the next timer touches: the build made
    /// [`PREFETCH_MIN_FLOWS`] flows or more (decided once; transfers of arrival processes
    /// added later do not change it).
    pub(crate) prefetch_timers: bool,
    /// The first port of each flow's forward route, by flow (`NO_PORT` if the route is empty),
    /// kept by [`Self::note_first_port`] wherever a flow's forward route is set. The timer
    /// look-ahead reads it where it read the route itself: 4 bytes a flow side by side instead
    /// of the flow's own route line, one more cold step at large N (issue 13, round 10).
    pub(crate) flow_first_port: Vec<u32>,
}

/// [`Simulation::flow_first_port`] of a flow whose forward route is empty.
pub(crate) const NO_PORT: u32 = u32::MAX;

/// The first port of route `route`, or [`NO_PORT`]: what [`Simulation::flow_first_port`] holds.
pub(crate) fn first_port(routes: &RouteArena, route: u32) -> u32 {
    routes.port(route, 0).unwrap_or(NO_PORT)
}

impl Simulation {
    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// End time of the run.
    pub fn end(&self) -> SimTime {
        self.end
    }
    /// Run counters so far.
    pub fn counters(&self) -> RunCounters {
        // The slab never shrinks, so its size is the most packets ever alive at once: read
        // here instead of compared on every injected packet.
        RunCounters { packets_high_water: self.packets.high_water() as u64, ..self.counters }
    }
    /// True once the run is over (end time reached, every finite workload done, or a resource
    /// bound hit: see [`Self::error`]).
    pub fn finished(&self) -> bool {
        self.stopped || self.now >= self.end || self.queue.is_empty()
    }
    /// Why the run stopped early, if a resource bound was hit.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
    /// The flows (for inspection in tests).
    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }
    /// The ports (for inspection in tests).
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }
    /// The name of port `id`: `from->to` by its nodes' names (derived, not stored in the port).
    pub fn port_name(&self, id: u32) -> String {
        let p = &self.ports[id as usize];
        format!("{}->{}", self.nodes[p.from_node as usize].name, self.nodes[p.to_node as usize].name)
    }
    /// The first port named `name` (`from->to`), for inspection in tests.
    pub fn port_named(&self, name: &str) -> Option<&Port> {
        (0..self.ports.len() as u32).find(|&i| self.port_name(i) == name).map(|i| &self.ports[i as usize])
    }
    /// Runs the whole simulation.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// Runs until simulated time `t` (or the end, or until every finite workload is done).
    pub fn run_until(&mut self, t: SimTime) {
        let t = t.min(self.end);
        while !self.stopped {
            let Some(head) = self.queue.peek_head() else { break };
            if head.time > t {
                break;
            }
            self.now = head.time;
            self.counters.events += 1;
            // The arrival stays at the head of the heap until the port has looked at its wire:
            // the next packet there replaces it in place (one sift instead of two).
            if let Some(port) = head.arrive_port() {
                self.arrive(port);
                if self.prefetch_timers {
                    self.prefetch_next_arrivals(port);
                }
                continue;
            }
            let ev = head.event();
            match ev {
                Event::Arrive { .. } => unreachable!("arrivals are handled above"),
                Event::TxDone { port } => {
                    self.queue.pop_net_head();
                    let p = &mut self.ports[port as usize];
                    if p.tx_done_is_due(self.now) && !p.tx_done_plain(port, &self.packets, self.now, &mut self.queue) {
                        self.dispatch(ev);
                    }
                }
                _ => {
                    self.queue.pop();
                    self.dispatch(ev);
                }
            }
        }
        if !self.stopped && self.now < t {
            self.now = t;
        }
        if self.now >= self.end {
            self.stopped = true;
        }
        self.advance_ports();
    }

    /// Brings every lazy port to the current time (see `net::port`): whatever reads a port
    /// after this sees what the eager path would show. A lazy port's waiting packets are on
    /// its wire, and a wire with packets has its `Arrive` event in the link heap, so only the
    /// ports named there can have anything to advance: the cost follows the busy ports, not
    /// all of them (issue 13: a run stepped in slices, or sampled, at large N), and nothing
    /// is added to the per-packet path.
    fn advance_ports(&mut self) {
        let now = self.now;
        for p in self.queue.ports_with_packets_on_the_wire() {
            self.ports[p as usize].advance(now);
        }
    }

    /// Puts every port on the eager path (`TxDone` events, see `net::port`): the switch tests
    /// use to compare both paths. Only before the run starts.
    pub fn force_eager_ports(&mut self) {
        for p in self.ports.iter_mut() {
            p.force_eager();
        }
    }

    /// Stops the run with `message` (a resource bound was hit).
    #[cold]
    pub(crate) fn fail(&mut self, message: String) {
        if self.error.is_none() {
            self.error = Some(format!("stopped at {} s: {message}", ps_to_secs(self.now)));
        }
        self.stopped = true;
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone { port } => {
                let mut env = PortEnv { events: &mut self.queue, trace: &mut self.queue_trace, hook_out: &mut self.hook_out, capture: &mut self.capture, dropped: &mut self.dropped };
                self.ports[port as usize].tx_done(port, &mut self.packets, self.now, &mut env);
                if !self.dropped.is_empty() {
                    self.free_dropped();
                }
                if !self.hook_out.is_empty() {
                    self.route_hook_packets();
                }
            }
            Event::Arrive { .. } => unreachable!("run_until handles arrivals at the head of the queue"),
            Event::FlowTimer { flow, timer } => self.flow_timer(flow, timer),
            Event::PortTimer { .. } => {}
            Event::Sample => self.sample(),
            Event::RouteChange { .. } => self.recompute_routes(),
            Event::Arrival { process } => self.on_arrival(process),
        }
    }

    // ---- packets between ports -----------------------------------------------------------

    /// Frees the packets a discipline removed besides the arrival it decided about (CoDel's head
    /// drops, FQ-CoDel's fattest-flow drops) and charges their flows.
    #[cold]
    fn free_dropped(&mut self) {
        let mut dropped = std::mem::take(&mut self.dropped);
        for &slot in dropped.iter() {
            let pkt = self.packets.get(slot);
            let (flow, kind, sent_at) = (pkt.flow, pkt.kind, pkt.sent_at);
            self.packets.remove(slot);
            self.flows[flow as usize].record_drop(kind, sent_at);
            self.packet_gone(flow as usize);
        }
        dropped.clear();
        self.dropped = dropped;
    }

    /// Hands packet `slot` of `size_bytes` (read by the caller, which has the packet at hand)
    /// to port `p`; frees it and charges its flow if the port drops it. The idle fast path is
    /// inline here; everything else is out of line.
    ///
    /// # Safety
    ///
    /// `p` is a hop of a route of the arena (so below `self.ports.len()`, see
    /// [`Self::port_unchecked`]).
    #[inline]
    unsafe fn port_receive(&mut self, p: u32, slot: u32, size_bytes: u32) {
        // SAFETY: the caller's guarantee.
        unsafe { self.port_receive_inline(p, slot, size_bytes) };
    }

    /// [`Self::port_receive`], always inlined: the run loop's arrivals (most hops) save the
    /// call's register saves and restores (about 15 instructions per hop under callgrind).
    ///
    /// # Safety
    ///
    /// As for [`Self::port_receive`].
    #[inline(always)]
    unsafe fn port_receive_inline(&mut self, p: u32, slot: u32, size_bytes: u32) {
        debug_assert_eq!(size_bytes, self.packets.get(slot).size_bytes);
        // SAFETY: `p` is a hop of a route (the caller's guarantee), so it is below the port
        // count the arena was made with, `self.ports.len()`.
        let port = unsafe { Self::port_unchecked(&mut self.ports, p) };
        if port.is_lazy() {
            port.advance(self.now);
            if let Admission::Dropped(_) = port.receive_lazy(p, slot, size_bytes, self.now, &mut self.queue) {
                self.drop_arrival(slot);
            }
            return;
        }
        if self.ports[p as usize].try_send_at_once(p, slot, size_bytes, self.now, &mut self.queue) {
            return;
        }
        self.port_receive_queued(p, slot);
    }

    /// [`Self::port_receive`] when the port did not send the packet at once.
    #[inline(never)]
    fn port_receive_queued(&mut self, p: u32, slot: u32) {
        let mut env = PortEnv { events: &mut self.queue, trace: &mut self.queue_trace, hook_out: &mut self.hook_out, capture: &mut self.capture, dropped: &mut self.dropped };
        if let Admission::Dropped(_) = self.ports[p as usize].receive_queued(p, slot, &mut self.packets, self.now, &mut env) {
            self.drop_arrival(slot);
        }
        if !self.dropped.is_empty() {
            self.free_dropped();
        }
        if !self.hook_out.is_empty() {
            self.route_hook_packets();
        }
    }

    /// A port dropped arriving packet `slot`: frees it and charges its flow.
    #[inline(never)]
    fn drop_arrival(&mut self, slot: u32) {
        let pkt = self.packets.get(slot);
        let (flow, kind, sent_at) = (pkt.flow, pkt.kind, pkt.sent_at);
        self.packets.remove(slot);
        self.flows[flow as usize].record_drop(kind, sent_at);
        self.packet_gone(flow as usize);
    }

    /// The head packet of port `p`'s wire reaches the far end. Its `Arrive` event is still at
    /// the head of the event queue (see `run_until`); `pop_wire` removes or replaces it.
    #[inline]
    fn arrive(&mut self, p: u32) {
        // SAFETY: `p` names an `Arrive` event, which a port schedules under the id the engine
        // reached it by: a route's hop or another event's port, each below `self.ports.len()`.
        let port = unsafe { Self::port_unchecked(&mut self.ports, p) };
        // SAFETY: a port's `Arrive` event is pending exactly while its wire holds packets
        // (`Port::put_on_wire` and `enqueue_lazy` schedule it for an empty wire's first packet,
        // `pop_wire` replaces or removes it), and this is that event.
        let slot = unsafe { port.pop_wire(p, self.now, &mut self.queue) };
        if port.lost_on_wire() {
            let pkt = self.packets.get(slot);
            let (flow, kind, sent_at) = (pkt.flow, pkt.kind, pkt.sent_at);
            self.packets.remove(slot);
            self.flows[flow as usize].record_drop(kind, sent_at);
            self.packet_gone(flow as usize);
            return;
        }
        self.counters.packet_hops += 1;
        // SAFETY: a slot on a wire is a packet the slab holds (`inject` put it there).
        let pkt = unsafe { self.packets.get_unchecked_mut(slot) };
        pkt.hop += 1;
        let size_bytes = pkt.size_bytes;
        // SAFETY: `pkt.route` is a route of the arena (`Flow::admit` or `route_hook_packets` set
        // it), and the packet left the port at hop `pkt.hop - 1` of it, so the new hop is at
        // most the route's length.
        match unsafe { self.routes.port_unchecked(pkt.route, pkt.hop) } {
            // SAFETY: `next` is a hop of the packet's route, read from the arena just above.
            Some(next) => unsafe { self.port_receive_inline(next, slot, size_bytes) },
            None => self.deliver(slot),
        }
    }

    /// Port `p` without a bounds check: the run loop's per-hop indexing (issue 13, round 13).
    ///
    /// # Safety
    ///
    /// `p < ports.len()`. Every port id the engine holds is: the route arena's hops are below
    /// the port count it was made with (`RouteArena::new`, which `add` enforces), which is
    /// `ports.len()` (fixed since the build), and a port schedules its events under the id the
    /// engine reached it by.
    #[inline(always)]
    unsafe fn port_unchecked(ports: &mut [Port], p: u32) -> &mut Port {
        debug_assert!((p as usize) < ports.len(), "port {p} of {}", ports.len());
        // SAFETY: the caller guarantees `p < ports.len()`.
        unsafe { ports.get_unchecked_mut(p as usize) }
    }

    /// Puts a stamped packet into the network at the first port of its route. Not inlined (it
    /// was out of line on its own before round 8 too; LLVM started inlining it into the run
    /// loop once the timer resolution changed).
    #[inline(never)]
    fn inject(&mut self, pkt: &Packet) {
        // SAFETY: `pkt.route` is a route of the arena and `pkt.hop` a hop within it, at most
        // its length (`Flow::admit` sets hop 0, `route_hook_packets` a position in the route).
        let first = unsafe { self.routes.port_unchecked(pkt.route, pkt.hop) }.expect("empty route");
        if self.packets.live() >= self.limits.max_live_packets {
            self.fail(format!(
                "more than {} packets alive at once (simulation.max_live_packets); a queue without a limit or a source faster than its path is the usual cause",
                self.limits.max_live_packets
            ));
            return;
        }
        // Only a transfer's slot is freed and reused, so only transfers count their packets in
        // the network (`Flow::live_pkts`); a static flow skips the per-packet count.
        if pkt.flow >= self.arrivals.first_flow {
            self.flows[pkt.flow as usize].live_pkts += 1;
        }
        let slot = self.packets.insert(*pkt);
        // SAFETY: `first` is a hop of the packet's route, read from the arena above.
        unsafe { self.port_receive(first, slot, pkt.size_bytes) };
    }

    /// Routes the control packets hooks emitted: each starts at its node on the reverse route
    /// of its flow and travels to the flow's source. A node that is not on the reverse route
    /// (asymmetric routing) cannot reach the source that way; such packets are counted as
    /// dropped reverse packets of the flow.
    #[cold]
    fn route_hook_packets(&mut self) {
        let emitted = std::mem::take(&mut self.hook_out);
        for e in &emitted {
            let flow = &mut self.flows[e.pkt.flow as usize];
            flow.stats.rev_sent_pkts += 1;
            let route = flow.rev_route;
            let hop = self.routes.ports(route).iter().position(|&p| self.ports[p as usize].from_node == e.node);
            match hop {
                Some(h) => {
                    let mut pkt = e.pkt;
                    pkt.route = route;
                    pkt.hop = h as u16;
                    self.inject(&pkt);
                }
                None if self.flows[e.pkt.flow as usize].src == e.node => {
                    // Emitted at the source's own port: deliver at once.
                    let pkt = e.pkt;
                    self.flows[pkt.flow as usize].record_delivery(&pkt, self.now, None);
                    self.with_transport(pkt.flow as usize, |t, ctx, _| t.on_packet(&pkt, ctx));
                }
                None => self.flows[e.pkt.flow as usize].record_drop(PacketKind::Control, 0),
            }
        }
        let mut emitted = emitted;
        emitted.clear();
        if self.hook_out.is_empty() {
            self.hook_out = emitted;
        }
    }

    // ---- flows -----------------------------------------------------------------------------

    /// Packet `slot` reached the end of its route. The slot is freed first (the packet's life
    /// in the network ends here), but the transport reads the packet where it lies: nothing is
    /// stored in the slab until the transport's own packets are sent after the call. ECA's load
    /// report is sent before the transport is called and may take the freed slot, so with ECA
    /// the transport reads a copy.
    fn deliver(&mut self, slot: u32) {
        self.packets.remove(slot);
        // SAFETY: `slot` came off a wire: a slot the slab handed out (`inject`).
        let pkt = unsafe { self.packets.get_unchecked(slot) };
        let (f, kind) = (pkt.flow as usize, pkt.kind);
        let flow = &mut self.flows[f];
        flow.record_delivery(pkt, self.now, self.packet_trace.as_mut());
        if flow.eca.is_some() {
            let pkt = *pkt;
            self.eca_deliver(f, &pkt);
            self.with_transport(f, |t, ctx, _| t.on_packet(&pkt, ctx));
        } else {
            // SAFETY: as above (the slab passed is the same, and never shrinks).
            self.with_transport(f, |t, ctx, slab| t.on_packet(unsafe { slab.get_unchecked(slot) }, ctx));
        }
        self.delivered(f, kind);
    }

    /// ECA (MSR-TR-2001-100 s3.A): data at the destination records LOAD (and reports it if the
    /// reverse path has been silent); reverse packets at the source set the WTP rate.
    #[cold]
    fn eca_deliver(&mut self, f: usize, pkt: &Packet) {
        if pkt.kind == PacketKind::Data {
            if let Some(mut report) = self.flows[f].eca_note_load(pkt, self.now) {
                // A reverse control packet: never shaped (only the forward path has a shaper).
                if let Admit::Send = self.flows[f].admit(f as u32, &mut report, Direction::Reverse, self.now, &mut self.queue) {
                    self.inject(&report);
                }
            }
        } else if self.flows[f].eca_apply_rload(pkt, self.now) {
            self.release_shaped(f as u32);
        }
    }

    fn flow_timer(&mut self, f: u32, slot: u8) {
        let prefetching = self.prefetch_timers;
        if prefetching {
            self.prefetch_next_timer_flow();
        }
        match self.flows[f as usize].fire_timer(f, slot, self.now, &mut self.queue) {
            TimerAction::Nothing => {}
            TimerAction::Shaper => self.release_shaped(f),
            TimerAction::Start => self.with_transport(f as usize, |t, ctx, _| t.on_start(ctx)),
            TimerAction::Transport(k) => self.with_transport(f as usize, |t, ctx, _| t.on_timer(k, ctx)),
        }
        if prefetching {
            self.prefetch_next_timer_state();
            self.prefetch_timers_ahead();
        }
    }

    /// Further ahead in the current slot of the timer wheel ([`TIMER_AHEAD`]): the flow lines
    /// (transport pointer, timer slot, sent and dropped counters) and the dense first-port
    /// entry of the timer that many places on, and the connection and first port of the one
    /// half as far, whose flow lines were asked for that many timer events ago, so reading its
    /// transport pointer and first port waits for nothing. A timer that turns out stale (re-armed)
    /// only wastes its prefetches; what is read here is never written.
    #[inline(never)]
    fn prefetch_timers_ahead(&self) {
        if let Some((_, g, slot)) = self.queue.peek_flow_timer_ahead(TIMER_AHEAD) {
            let flow = self.prefetch_timer_flow_lines(g, slot);
            prefetch_read(&flow.stats);
            prefetch_read(&self.flow_first_port[g as usize]);
        }
        if let Some((_, g, _)) = self.queue.peek_flow_timer_ahead(TIMER_AHEAD / 2) {
            self.prefetch_timeout_state(g, &self.flows[g as usize]);
        }
    }

    /// Asks for flow `g`'s first line (its transport) and the line of its timer `slot`;
    /// returns the flow.
    #[inline(always)]
    fn prefetch_timer_flow_lines(&self, g: u32, slot: u8) -> &Flow {
        let flow = &self.flows[g as usize];
        prefetch_read(flow);
        prefetch_read(&flow.timers.slots[slot as usize]);
        flow
    }

    /// Asks for what a retransmission timeout of flow `g` (whose lines are in cache) reads
    /// beyond the flow: its TCP connection's first `TIMEOUT_BYTES` and its first port.
    #[inline(always)]
    fn prefetch_timeout_state(&self, g: u32, flow: &Flow) {
        if let AnyTransport::Tcp(c) = &flow.transport {
            prefetch_bytes(&**c, crate::transport::tcp::TcpConnection::TIMEOUT_BYTES);
        }
        if let Some(port) = self.ports.get(self.flow_first_port[g as usize] as usize) {
            port.prefetch_hot_lines();
        }
    }

    // ---- prefetching at large N (`sim::prefetch`) -------------------------------------------
    //
    // At N = 100,000 with start jitter about a third of the events are flow timers
    // (retransmission timeouts of flows in backoff), each on a flow no cache holds, and the
    // timer at the timer store's head fires one to two hops later. So each timer event asks for
    // what the next one will touch, in steps that each wait for the line the step before asked
    // for: the next timer's flow when this event starts; its boxed transport, its route's
    // first hop and its first port (retransmissions and first packets enter there; the port's
    // number comes from the dense `flow_first_port`, not from the route's line, which round 9
    // waited for one event later: issue 13, round 10) when this event is done (the flow's line
    // has arrived by then). Arrivals, at large N only, ask for the ports of the link heap's
    // next entries and the wire's next packet (`prefetch_next_arrivals`): the one test of the
    // flag on that path costs about 3 instructions per hop at small N (issue 13, round 9).
    // Only at `PREFETCH_MIN_FLOWS` flows or more. Nothing here changes a value.

    /// Asks for the flow of the earliest pending flow timer: the line of its timer slot (the
    /// flow's first line for the retransmission and delayed-ack timers, `flows::Flow`) and the
    /// first line, which holds the transport.
    #[inline(never)]
    fn prefetch_next_timer_flow(&self) {
        if let Some((_, g, slot)) = self.queue.peek_flow_timer() {
            self.prefetch_timer_flow_lines(g, slot);
        }
    }

    /// Asks for what the earliest pending flow timer's flow will touch if that timer fires (a
    /// re-armed, stale one reads only the slot): the lines of its boxed TCP connection a
    /// timeout reads (`TcpConnection::TIMEOUT_BYTES`), the flow's sent and dropped counters,
    /// its route's first hop and its first port (where a retransmission, or the first packet
    /// if the timer starts the flow, enters the network), whose number `flow_first_port` gives
    /// without a wait for the route's line.
    #[inline(never)]
    fn prefetch_next_timer_state(&mut self) {
        let Some((at, g, slot)) = self.queue.peek_flow_timer() else { return };
        let flow = &self.flows[g as usize];
        if flow.timers.resolve(slot as usize, at) != crate::flows::TimerState::Due {
            return;
        }
        prefetch_read(&flow.stats);
        prefetch_read(self.routes.hop_addr(flow.fwd_route, 0));
        self.prefetch_timeout_state(g, flow);
    }

    /// Keeps [`Self::flow_first_port`] for flow `f` after its forward route was set to `route`
    /// (a new flow's slot included). On the fields, not `self`, so that a caller holding other
    /// fields (the route recomputation's router borrows the nodes) can call it; the build
    /// fills the array with [`first_port`].
    pub(crate) fn note_first_port(flow_first_port: &mut Vec<u32>, routes: &RouteArena, f: usize, route: u32) {
        if f >= flow_first_port.len() {
            flow_first_port.resize(f + 1, NO_PORT);
        }
        flow_first_port[f] = first_port(routes, route);
    }

    /// After an arrival, asks for what the next events touch: the per-hop fields of the packet
    /// now at the front of the wire that just delivered one (`arrived`'s lines are in cache, so
    /// this waits for nothing), and the ports of the link heap head's two children (the head is
    /// the very next event: too late to help it). The wire's next packet matters where many packets are alive: on a
    /// dumbbell whose bottleneck grows with N (10 Mbit/s and 10 packets of buffer per flow) the
    /// read of an arriving packet's hop was half the loop's time at N = 10,000; on the bench
    /// dumbbell (12,135 packets alive at most at N = 100,000) it changes nothing measurable
    /// (bench/README.md, "(round 10)"). Reading another port's wire to ask for its packet
    /// measured no better (round 9).
    /// `#[cold]` keeps the call out of the small-N path's layout; large N takes it every time.
    #[cold]
    #[inline(never)]
    fn prefetch_next_arrivals(&mut self, arrived: u32) {
        // The packet now at the front of the wire just read (its line is in cache) arrives
        // next on that wire: on a busy link many hops later, with its packet long out of
        // cache, and the arrival reads its per-hop fields first thing.
        // SAFETY: `arrived` named the `Arrive` event just handled (see `arrive`).
        let port = unsafe { self.ports.get_unchecked(arrived as usize) };
        if let Some(next) = port.wire.front() {
            self.packets.prefetch_hop_fields(next.slot);
        }
        // The kinds are not decoded and a missing entry is skipped here by the bounds check:
        // about 14 fewer instructions per hop at N = 10,000 than a decode of each (issue 13).
        for q in self.queue.ports_after_head() {
            if let Some(p) = self.ports.get(q as usize) {
                p.prefetch_hot_lines();
            }
        }
    }

    /// Calls the flow's transport with a context, then sends what it emitted, schedules its
    /// timers and notes completion.
    #[inline]
    fn with_transport(&mut self, f: usize, call: impl FnOnce(&mut AnyTransport, &mut TransportCtx, &PacketSlab)) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let slab = &self.packets;
        let armed_slots = self.flows[f].call_transport(now, &mut out, |t, ctx| call(t, ctx, slab));
        // `f` indexed the flows just above, so the accesses below are unchecked (they were a
        // bounds check per packet sent, issue 13, round 13).
        for (pkt, dir) in out.iter_mut() {
            // SAFETY: `f < self.flows.len()` (checked above; see `flow_unchecked`).
            match unsafe { Self::flow_unchecked(&mut self.flows, f) }.admit(f as u32, pkt, *dir, now, &mut self.queue) {
                Admit::Send => self.inject(pkt),
                Admit::Held => {}
                Admit::ShaperFull(max) => {
                    self.fail(format!(
                        "the shaper of flow '{}' holds more than {max} packets (simulation.max_shaper_pkts): its source is faster than its shaper",
                        self.flows[f].name
                    ));
                    // The rest of the burst is never admitted, so never counted as sent.
                    break;
                }
            }
        }
        out.clear();
        self.out = out;
        // SAFETY: as in the loop above.
        let flow = unsafe { Self::flow_unchecked(&mut self.flows, f) };
        flow.push_timers(f as u32, armed_slots, &mut self.queue);
        if flow.note_completion(now) {
            self.finite_pending -= 1;
            if self.finite_pending == 0 && self.stop_when_done {
                self.stopped = true;
            }
            if f >= self.arrivals.first_flow as usize {
                self.maybe_free(f);
            }
        }
    }

    /// Flow `f` without a bounds check, where `f` already indexed the flows.
    ///
    /// # Safety
    ///
    /// `f` indexed `flows` before (with a check): flows are never removed (only
    /// `traffic::arrivals` adds slots, and a finished transfer keeps its slot for reuse), so
    /// an index that was valid stays valid.
    #[inline(always)]
    unsafe fn flow_unchecked(flows: &mut [Flow], f: usize) -> &mut Flow {
        debug_assert!(f < flows.len(), "flow {f} of {}", flows.len());
        // SAFETY: the caller guarantees `f < flows.len()`.
        unsafe { flows.get_unchecked_mut(f) }
    }

    fn release_shaped(&mut self, f: u32) {
        while let Some(pkt) = self.flows[f as usize].release_one(f, self.now, &mut self.queue) {
            self.inject(&pkt);
        }
    }

    // ---- routes and sampling ------------------------------------------------------------

    fn recompute_routes(&mut self) {
        let ends: Vec<(u32, u32, SimTime)> = self.ports.iter().map(|p| (p.from_node, p.to_node, p.delay_ps)).collect();
        let mut router = crate::net::routing::Router::new(&self.nodes, ends, self.route_by_delay);
        for f in 0..self.flows.len() {
            let (s, d) = (self.flows[f].src, self.flows[f].dst);
            // Validated at build time for every rule's time, so these cannot fail.
            let fwd = router.path(s, d, &self.rules, self.now).expect("route validated at build");
            let rev = router.path(d, s, &self.rules, self.now).expect("route validated at build");
            if fwd != self.routes.ports(self.flows[f].fwd_route) {
                self.flows[f].fwd_route = self.routes.add(&fwd);
                Self::note_first_port(&mut self.flow_first_port, &self.routes, f, self.flows[f].fwd_route);
            }
            if rev != self.routes.ports(self.flows[f].rev_route) {
                self.flows[f].rev_route = self.routes.add(&rev);
            }
        }
        Self::refresh_arrival_routes(&mut self.arrivals, &mut router, &self.rules, &mut self.routes, self.now);
    }

    /// One `Sample` event stream serves the series (at multiples of `series_interval` from 0)
    /// and the interval rates (at multiples of `rate_interval`): only one event is pending.
    fn sample(&mut self) {
        // Transfers of arrival processes are not sampled (their slots are reused).
        let n_static = self.arrivals.first_flow as usize;
        let now = self.now;
        let mut next = SimTime::MAX;
        if let Some(iv) = self.series_interval {
            if now % iv == 0 {
                self.advance_ports();
                self.series.sample(now, &self.flows[..n_static], &self.ports);
            }
            next = (now / iv + 1) * iv;
        }
        if let Some(r) = self.rates.as_mut() {
            if r.next_at == now {
                r.close_interval(now, &self.flows[..n_static]);
            }
            next = next.min(r.next_at);
        }
        if next <= self.end {
            self.queue.push(next, Event::Sample);
        }
    }

    // ---- results -------------------------------------------------------------------------

    /// Packets alive in the network (queued, in transmission or on a wire), per flow.
    pub fn in_network_per_flow(&self) -> Vec<u64> {
        let mut v = vec![0u64; self.flows.len()];
        let mut free = vec![false; self.packets.high_water()];
        for &id in self.packets.free_slots() {
            free[id as usize] = true;
        }
        for (id, is_free) in free.iter().enumerate() {
            if !is_free {
                v[self.packets.get(id as u32).flow as usize] += 1;
            }
        }
        v
    }

    /// Builds the result tables at the current time.
    pub fn results(&self) -> Results {
        Results::collect(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::FlowStats;

    #[test]
    fn a_flow_and_its_tcp_connection_cost_under_900_bytes() {
        let flow = std::mem::size_of::<Flow>();
        let tcp = std::mem::size_of::<crate::transport::tcp::TcpConnection>();
        eprintln!("Flow {flow} B, TcpConnection {tcp} B, FlowStats {} B", std::mem::size_of::<FlowStats>());
        // A flow holds its struct, its boxed TCP state (built when it starts) and its name; what
        // it allocates when it sends or receives (delay statistics, rate estimator) is absent.
        // The flow is cache-line aligned and the sender's counters and the loss events are
        // inline (320 + 488 B, round 7; the boxed counters were 72 B more per started flow).
        // `tests/memory.rs` measures an idle flow with an allocation counter, arenas and event
        // heap included.
        assert!(flow + tcp + 16 < 900, "{} bytes", flow + tcp + 16);
    }

    /// The timer look-ahead's dense copy of each flow's first port follows every way a forward
    /// route is set: at build, by a route change (scenarios/examples/route_change.toml, at 5 s)
    /// and for transfers taking new and reused flow slots (poisson_transfers.toml).
    #[test]
    fn every_flow_s_noted_first_port_is_its_forward_route_s_first_port() {
        let check = |sim: &Simulation, when: &str| {
            assert_eq!(sim.flow_first_port.len(), sim.flows.len(), "{when}");
            for (f, flow) in sim.flows.iter().enumerate() {
                let first = sim.routes.port(flow.fwd_route, 0).unwrap_or(NO_PORT);
                assert_eq!(sim.flow_first_port[f], first, "flow {f}, {when}");
            }
        };
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/examples");
        for name in ["route_change.toml", "poisson_transfers.toml"] {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            let mut sim = crate::load_toml(&text, name, None).unwrap();
            check(&sim, "after build");
            sim.run_until(6 * crate::sim::PS_PER_S);
            check(&sim, "at 6 s");
            sim.run();
            check(&sim, "at the end");
        }
        // A source with two links whose route rule moves the flow to the other one at 1 s:
        // the noted first port changes with it.
        let text = include_str!("../tests/common/two_homed_route_change.toml");
        let mut sim = crate::load_toml(text, "two_homed_route_change.toml", None).unwrap();
        check(&sim, "after build");
        assert_eq!(sim.port_name(sim.flow_first_port[0]), "a->r1");
        sim.run_until(crate::sim::PS_PER_S * 11 / 10);
        check(&sim, "after the route change");
        assert_eq!(sim.port_name(sim.flow_first_port[0]), "a->r2");
    }

    #[test]
    fn a_control_packet_a_hook_emits_travels_from_its_router_back_to_the_source() {
        let text = "[simulation]\nduration = \"1s\"\n\
            [[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"r\"\nkind = \"router\"\n[[nodes]]\nname = \"b\"\n\
            [[links]]\na = \"a\"\nb = \"r\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
            [[links]]\na = \"r\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"5ms\"\n\
            [[flows]]\nname = \"u\"\nsrc = \"a\"\ndst = \"b\"\ntransport = \"udp\"\n\
            workload = { kind = \"cbr\", rate = \"100kbps\", packet_size = \"100B\" }\n";
        let mut sim = crate::load_toml(text, "t.toml", None).unwrap();
        sim.run_until(crate::sim::PS_PER_S / 2);
        let r_node = sim.nodes.iter().position(|n| &*n.name == "r").unwrap() as u32;
        // What a hook's HookCtx::send_to_source leaves for the engine.
        let quench = Packet { flow: 0, kind: PacketKind::Control, size_bytes: 40, sent_at: sim.now, ..Default::default() };
        sim.hook_out.push(HookEmit { node: r_node, pkt: quench });
        sim.route_hook_packets();
        sim.run();
        let back = sim.port_named("r->a").unwrap();
        assert_eq!(back.stats.tx_pkts, 1, "the quench left r toward a");
        let fs = &sim.flows[0].stats;
        assert_eq!((fs.rev_sent_pkts, fs.rev_delivered_pkts), (1, 1), "and reached the source");
    }
}
