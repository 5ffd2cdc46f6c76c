//! The run loop: the world (arenas of nodes, ports, flows and packets), the event dispatch, and
//! the results.

use crate::metrics::table::{ColumnData, Table};
use crate::metrics::{FlowStats, PacketTrace, QueueTrace, Series};
use crate::net::routing::{RouteArena, RouteRule};
use crate::net::{Node, Packet, PacketKind, PacketSlab, Port};
use crate::port_hooks::{PortHook, PortView};
use crate::queue::{QueueDiscipline, Verdict, DROP_REASON_NAMES};
use crate::shaper::TokenBucket;
use crate::sim::{ps_to_secs, tx_time_fast, Event, EventQueue, SimRng, SimTime};
use crate::transport::{AnyTransport, Direction, Transport, TransportCtx, NEVER, TIMER_SHAPER, TIMER_SLOTS};
use std::collections::VecDeque;

/// Lazily cancelled timers of one flow: the deadline the transport wants, and the time of the
/// event already in the heap. A re-armed deadline later than the pending event costs no heap
/// operation: when the pending event fires it is pushed on to the new deadline.
#[derive(Clone, Copy, Debug)]
pub struct FlowTimers {
    /// Wanted deadline per slot (NEVER: disarmed).
    pub deadline: [SimTime; TIMER_SLOTS],
    /// Time of the heap event per slot (NEVER: none).
    pub pending: [SimTime; TIMER_SLOTS],
}

impl Default for FlowTimers {
    fn default() -> Self {
        FlowTimers { deadline: [NEVER; TIMER_SLOTS], pending: [NEVER; TIMER_SLOTS] }
    }
}

/// A per-flow shaper and the packets it holds back.
pub struct FlowShaper {
    /// The bucket.
    pub bucket: TokenBucket,
    /// Packets waiting for tokens.
    pub held: VecDeque<Packet>,
}

/// One flow: its two ends, its routes and its counters.
pub struct Flow {
    /// Name from the scenario.
    pub name: String,
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Current forward route.
    pub fwd_route: u32,
    /// Current reverse route.
    pub rev_route: u32,
    /// Start time of the workload.
    pub start: SimTime,
    /// The transport.
    pub transport: AnyTransport,
    /// Timers.
    pub timers: FlowTimers,
    /// Random stream.
    pub rng: SimRng,
    /// Network-side counters.
    pub stats: FlowStats,
    /// Optional shaper on the forward path.
    pub shaper: Option<Box<FlowShaper>>,
    /// Priority written on every packet of the flow.
    pub priority: u8,
    /// The workload has been started.
    pub started: bool,
    /// Completion has been recorded.
    pub done: bool,
}

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
}

/// A built simulation, ready to run.
pub struct Simulation {
    pub(crate) now: SimTime,
    pub(crate) end: SimTime,
    pub(crate) stop_when_done: bool,
    pub(crate) queue: EventQueue,
    pub(crate) packets: PacketSlab,
    pub(crate) nodes: Vec<Node>,
    pub(crate) ports: Vec<Port>,
    pub(crate) routes: RouteArena,
    pub(crate) rules: Vec<RouteRule>,
    pub(crate) flows: Vec<Flow>,
    pub(crate) out: Vec<(Packet, Direction)>,
    pub(crate) finite_pending: usize,
    pub(crate) series_interval: Option<SimTime>,
    pub(crate) series: Series,
    pub(crate) packet_trace: Option<PacketTrace>,
    pub(crate) queue_trace: QueueTrace,
    pub(crate) counters: RunCounters,
    pub(crate) stopped: bool,
    pub(crate) scenario_name: String,
    pub(crate) seed: u64,
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
        self.counters
    }
    /// True once the run is over (end time reached, or every finite workload done).
    pub fn finished(&self) -> bool {
        self.stopped || self.now >= self.end || self.queue.is_empty()
    }
    /// The flows (for inspection in tests).
    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }
    /// The ports (for inspection in tests).
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }
    /// Runs the whole simulation.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// Runs until simulated time `t` (or the end, or until every finite workload is done).
    pub fn run_until(&mut self, t: SimTime) {
        let t = t.min(self.end);
        while !self.stopped {
            let Some(next) = self.queue.peek_time() else { break };
            if next > t {
                break;
            }
            let (time, ev) = self.queue.pop().unwrap();
            self.now = time;
            self.counters.events += 1;
            self.dispatch(ev);
        }
        if !self.stopped && self.now < t {
            self.now = t;
        }
        if self.now >= self.end {
            self.stopped = true;
        }
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxDone { port } => self.tx_done(port),
            Event::Arrive { port } => self.arrive(port),
            Event::FlowTimer { flow, timer } => self.flow_timer(flow, timer),
            Event::PortTimer { .. } => {}
            Event::Sample => self.sample(),
            Event::RouteChange { .. } => self.recompute_routes(),
        }
    }

    // ---- ports -------------------------------------------------------------------------

    #[inline]
    fn view(port: &Port, now: SimTime) -> PortView {
        PortView { queue_pkts: port.waiting_pkts, queue_bytes: port.waiting_bytes, busy: port.busy(now), rate_bps: port.rate_bps }
    }

    /// Packet `slot` arrives at port `p`.
    #[inline]
    fn port_receive(&mut self, p: u32, slot: u32) {
        let now = self.now;
        let port = &mut self.ports[p as usize];
        let pkt = self.packets.get_mut(slot);
        let mut quench = None;
        if !port.hooks.is_empty() {
            let v = Self::view(port, now);
            let was_marked = pkt.ce();
            for h in port.hooks.iter_mut() {
                h.on_arrival(pkt, &v, now);
                if let crate::port_hooks::AnyHook::Rbcc(r) = h {
                    quench = quench.or(r.take_quench());
                }
            }
            if !was_marked && pkt.ce() {
                port.stats.marks += 1;
            }
        }
        port.stats.arrivals_pkts += 1;
        port.stats.arrivals_bytes += pkt.size_bytes as u64;
        match port.queue.enqueue(slot, pkt, now, &mut port.rng) {
            Verdict::Queued => {
                port.waiting_pkts += 1;
                port.waiting_bytes += pkt.size_bytes as u64;
            }
            Verdict::Marked => {
                port.stats.marks += 1;
                port.waiting_pkts += 1;
                port.waiting_bytes += pkt.size_bytes as u64;
            }
            Verdict::Dropped(reason) => {
                port.stats.drops[reason as usize] += 1;
                let (flow, kind) = (pkt.flow, pkt.kind);
                self.packets.remove(slot);
                let fs = &mut self.flows[flow as usize].stats;
                if kind == PacketKind::Data {
                    fs.data_dropped_pkts += 1;
                } else {
                    fs.rev_dropped_pkts += 1;
                }
                if let Some(q) = quench {
                    self.send_rate_quench(p, q);
                }
                return;
            }
        }
        if port.txdone_pending {
            Self::queue_changed(port, now, &mut self.queue_trace, p);
        } else if now >= port.busy_until {
            // Idle port: the packet goes straight to the transmitter. It spends no time in the
            // queue, so the occupancy statistics do not see it.
            self.start_tx(p);
        } else {
            Self::queue_changed(port, now, &mut self.queue_trace, p);
            port.txdone_pending = true;
            self.queue.push(port.busy_until, Event::TxDone { port: p });
        }
        if let Some(q) = quench {
            self.send_rate_quench(p, q);
        }
    }

    /// RBCC Rate Quench (thesis ch. 9 s9.12; GAPS.md s6): the RBCC hook of port `p` lowered a
    /// flow's rate below what the source uses; send a 40-byte control packet from `p`'s router
    /// straight back to the source along the flow's reverse route (RBCC assumes symmetric
    /// routes; if the router is not on the reverse route the quench is not sent).
    fn send_rate_quench(&mut self, p: u32, q: crate::port_hooks::rbcc::Quench) {
        let node = self.ports[p as usize].from_node;
        let Some(flow) = self.flows.get(q.flow as usize) else { return };
        let rev = flow.rev_route;
        let Some(hop) = self.routes.ports(rev).iter().position(|&x| self.ports[x as usize].from_node == node) else { return };
        let pkt = Packet {
            kind: PacketKind::Control,
            flags: crate::net::packet::flags::QUENCH,
            flow: q.flow,
            route: rev,
            hop: hop as u16,
            size_bytes: 40,
            return_rate_bps: q.rate_bps,
            return_rate_by: q.by,
            sent_at: self.now,
            ..Default::default()
        };
        let first = self.routes.ports(rev)[hop];
        let slot = self.packets.insert(pkt);
        self.port_receive(first, slot);
    }

    #[inline]
    fn queue_changed(port: &mut Port, now: SimTime, trace: &mut QueueTrace, p: u32) {
        let qp = port.waiting_pkts;
        let qb = port.waiting_bytes;
        debug_assert_eq!((qp, qb), (port.queue.len_pkts(), port.queue.len_bytes()), "port {}", port.name);
        port.stats.queue_pkts.set(now, qp as u64);
        port.stats.queue_bytes.set(now, qb);
        if qp > port.stats.max_queue_pkts {
            port.stats.max_queue_pkts = qp;
        }
        if !port.hooks.is_empty() {
            let v = Self::view(port, now);
            for h in port.hooks.iter_mut() {
                h.on_queue_change(&v, now);
            }
        }
        if port.traced {
            trace.t.push(ps_to_secs(now));
            trace.port.push(p);
            trace.queue_pkts.push(qp);
            trace.queue_bytes.push(qb);
        }
    }

    /// Port `p` is free: start sending its next packet, if any. Schedules `TxDone` only if more
    /// packets wait.
    #[inline]
    fn start_tx(&mut self, p: u32) {
        let now = self.now;
        let port = &mut self.ports[p as usize];
        let Some(slot) = port.queue.dequeue(now) else {
            // The port just went idle: averaging hooks (DECbit) need the end of the busy period.
            // (Ports with hooks always schedule TxDone, so this runs at the idle instant.)
            if !port.hooks.is_empty() {
                let v = Self::view(port, now);
                for h in port.hooks.iter_mut() {
                    h.on_queue_change(&v, now);
                }
            }
            return;
        };
        let pkt = self.packets.get_mut(slot);
        port.waiting_pkts -= 1;
        port.waiting_bytes -= pkt.size_bytes as u64;
        Self::queue_changed(port, now, &mut self.queue_trace, p);
        if !port.hooks.is_empty() {
            let v = Self::view(port, now);
            for h in port.hooks.iter_mut() {
                h.on_departure(pkt, &v, now);
            }
        }
        let size = pkt.size_bytes;
        let tx = tx_time_fast(size, port.rate_bps, port.ps_per_byte);
        port.stats.tx_pkts += 1;
        port.stats.tx_bytes += size as u64;
        port.stats.busy_ps += tx;
        let arrival = now + tx + port.delay_ps;
        if port.wire.is_empty() {
            self.queue.push(arrival, Event::Arrive { port: p });
        }
        port.wire.push_back((arrival, slot));
        port.busy_until = now + tx;
        if port.waiting_pkts > 0 || !port.hooks.is_empty() {
            port.txdone_pending = true;
            self.queue.push(now + tx, Event::TxDone { port: p });
        }
    }

    /// The transmitter of port `p` finished; send the next waiting packet.
    #[inline]
    fn tx_done(&mut self, p: u32) {
        self.ports[p as usize].txdone_pending = false;
        self.start_tx(p);
    }

    /// The head packet of port `p`'s wire reaches the far end.
    #[inline]
    fn arrive(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        let (_, slot) = port.wire.pop_front().expect("arrival event with an empty wire");
        if let Some(&(t, _)) = port.wire.front() {
            self.queue.push(t, Event::Arrive { port: p });
        }
        self.counters.packet_hops += 1;
        let pkt = self.packets.get_mut(slot);
        pkt.hop += 1;
        match self.routes.port(pkt.route, pkt.hop) {
            Some(next) => self.port_receive(next, slot),
            None => self.deliver(slot),
        }
    }

    // ---- flows -------------------------------------------------------------------------

    /// Packet `slot` reached the end of its route.
    fn deliver(&mut self, slot: u32) {
        let pkt = *self.packets.get(slot);
        self.packets.remove(slot);
        let f = pkt.flow as usize;
        let now = self.now;
        {
            let fs = &mut self.flows[f].stats;
            if pkt.kind == PacketKind::Data {
                fs.data_delivered_pkts += 1;
                let d = now - pkt.sent_at;
                fs.delay.add(ps_to_secs(d));
                fs.delay_hist_ns.add(d / 1000, 1);
                if pkt.ce() {
                    fs.data_ce_pkts += 1;
                }
                if let Some(tr) = self.packet_trace.as_mut() {
                    tr.t.push(ps_to_secs(now));
                    tr.flow.push(pkt.flow);
                    tr.delay_s.push(ps_to_secs(d));
                    tr.size_bytes.push(pkt.size_bytes);
                    tr.seq.push(pkt.seq);
                    tr.ce.push(pkt.ce());
                    tr.retx.push(pkt.flags & crate::net::packet::flags::RETX != 0);
                }
            } else {
                fs.rev_delivered_pkts += 1;
            }
        }
        self.with_transport(f, |t, ctx| t.on_packet(&pkt, ctx));
    }

    fn flow_timer(&mut self, f: u32, slot: u8) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let k = slot as usize;
        if flow.timers.pending[k] != now {
            return; // superseded by an earlier push
        }
        flow.timers.pending[k] = NEVER;
        let dl = flow.timers.deadline[k];
        if dl == NEVER {
            return; // cancelled
        }
        if dl > now {
            // Re-armed later: move on to the new deadline.
            flow.timers.pending[k] = dl;
            self.queue.push(dl, Event::FlowTimer { flow: f, timer: slot });
            return;
        }
        flow.timers.deadline[k] = NEVER;
        if slot == TIMER_SHAPER {
            self.release_shaped(f as usize);
            return;
        }
        if !flow.started {
            flow.started = true;
            flow.stats.started_at = Some(now);
            self.with_transport(f as usize, |t, ctx| t.on_start(ctx));
        } else {
            self.with_transport(f as usize, |t, ctx| t.on_timer(slot, ctx));
        }
    }

    /// Calls the flow's transport with a context, then sends what it emitted, schedules its
    /// timers and notes completion.
    #[inline]
    fn with_transport(&mut self, f: usize, call: impl FnOnce(&mut AnyTransport, &mut TransportCtx)) {
        let mut out = std::mem::take(&mut self.out);
        {
            let flow = &mut self.flows[f];
            let mut ctx = TransportCtx { now: self.now, out: &mut out, timers: &mut flow.timers.deadline, rng: &mut flow.rng };
            call(&mut flow.transport, &mut ctx);
        }
        for &(pkt, dir) in out.iter() {
            self.emit(f, pkt, dir);
        }
        out.clear();
        self.out = out;
        // Timers: push an event only when the deadline is earlier than what the heap holds.
        let flow = &mut self.flows[f];
        for k in 0..TIMER_SLOTS {
            let dl = flow.timers.deadline[k];
            if dl < flow.timers.pending[k] {
                flow.timers.pending[k] = dl;
                self.queue.push(dl, Event::FlowTimer { flow: f as u32, timer: k as u8 });
            }
        }
        if !flow.done && flow.transport.is_finite() && flow.transport.is_complete() {
            flow.done = true;
            flow.stats.completed_at = Some(self.now);
            self.finite_pending -= 1;
            if self.finite_pending == 0 && self.stop_when_done {
                self.stopped = true;
            }
        }
    }

    /// Hands a transport's packet to the network.
    #[inline]
    fn emit(&mut self, f: usize, mut pkt: Packet, dir: Direction) {
        let flow = &mut self.flows[f];
        pkt.flow = f as u32;
        pkt.hop = 0;
        if pkt.priority == 0 {
            pkt.priority = flow.priority;
        }
        match dir {
            Direction::Forward => {
                pkt.route = flow.fwd_route;
                if pkt.kind == PacketKind::Data {
                    flow.stats.data_sent_pkts += 1;
                    flow.stats.data_sent_bytes += pkt.size_bytes as u64;
                } else {
                    flow.stats.rev_sent_pkts += 1;
                }
                if let Some(sh) = flow.shaper.as_mut() {
                    if !sh.held.is_empty() {
                        sh.held.push_back(pkt);
                        return;
                    }
                    if let Err(ready) = sh.bucket.try_take(self.now, pkt.size_bytes) {
                        sh.held.push_back(pkt);
                        flow.timers.deadline[TIMER_SHAPER as usize] = ready;
                        if ready < flow.timers.pending[TIMER_SHAPER as usize] {
                            flow.timers.pending[TIMER_SHAPER as usize] = ready;
                            self.queue.push(ready, Event::FlowTimer { flow: f as u32, timer: TIMER_SHAPER });
                        }
                        return;
                    }
                }
            }
            Direction::Reverse => {
                pkt.route = flow.rev_route;
                flow.stats.rev_sent_pkts += 1;
            }
        }
        self.inject(pkt);
    }

    #[inline]
    fn inject(&mut self, pkt: Packet) {
        let first = self.routes.port(pkt.route, 0).expect("empty route");
        let slot = self.packets.insert(pkt);
        let hw = self.packets.high_water() as u64;
        if hw > self.counters.packets_high_water {
            self.counters.packets_high_water = hw;
        }
        self.port_receive(first, slot);
    }

    fn release_shaped(&mut self, f: usize) {
        loop {
            let now = self.now;
            let flow = &mut self.flows[f];
            let Some(sh) = flow.shaper.as_mut() else { return };
            let Some(pkt) = sh.held.front().copied() else { return };
            match sh.bucket.try_take(now, pkt.size_bytes) {
                Ok(()) => {
                    sh.held.pop_front();
                    self.inject(pkt);
                }
                Err(ready) => {
                    flow.timers.deadline[TIMER_SHAPER as usize] = ready;
                    if ready < flow.timers.pending[TIMER_SHAPER as usize] {
                        flow.timers.pending[TIMER_SHAPER as usize] = ready;
                        self.queue.push(ready, Event::FlowTimer { flow: f as u32, timer: TIMER_SHAPER });
                    }
                    return;
                }
            }
        }
    }

    // ---- routes and sampling ------------------------------------------------------------

    fn recompute_routes(&mut self) {
        let ends: Vec<(u32, u32, SimTime)> = self.ports.iter().map(|p| (p.from_node, p.to_node, p.delay_ps)).collect();
        let mut router = crate::net::routing::Router::new(&self.nodes, ends, false);
        for f in 0..self.flows.len() {
            let (s, d) = (self.flows[f].src, self.flows[f].dst);
            // Validated at build time for every rule's time, so these cannot fail.
            let fwd = router.path(s, d, &self.rules, self.now).expect("route validated at build");
            let rev = router.path(d, s, &self.rules, self.now).expect("route validated at build");
            if fwd != self.routes.ports(self.flows[f].fwd_route) {
                self.flows[f].fwd_route = self.routes.add(&fwd);
            }
            if rev != self.routes.ports(self.flows[f].rev_route) {
                self.flows[f].rev_route = self.routes.add(&rev);
            }
        }
    }

    fn sample(&mut self) {
        let t = ps_to_secs(self.now);
        let s = &mut self.series;
        for (i, f) in self.flows.iter().enumerate() {
            let r = f.transport.report();
            s.flow_t.push(t);
            s.flow_id.push(i as u32);
            s.flow_delivered_bytes.push(r.delivered_bytes);
            s.flow_acked_bytes.push(r.acked_bytes);
            s.flow_cwnd_bytes.push(r.cwnd_bytes);
            s.flow_rwnd_bytes.push(r.rwnd_bytes);
            s.flow_srtt_s.push(ps_to_secs(r.srtt_ps));
            s.flow_rate_bps.push(r.rate_bps);
        }
        for (i, p) in self.ports.iter().enumerate() {
            s.port_t.push(t);
            s.port_id.push(i as u32);
            s.port_queue_pkts.push(p.queue.len_pkts());
            s.port_queue_bytes.push(p.queue.len_bytes());
            s.port_tx_bytes.push(p.stats.tx_bytes);
            s.port_drops.push(p.stats.total_drops());
        }
        if let Some(iv) = self.series_interval {
            let next = self.now + iv;
            if next <= self.end {
                self.queue.push(next, Event::Sample);
            }
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
        let now = self.now;
        let dur_s = ps_to_secs(now).max(1e-12);
        let in_net = self.in_network_per_flow();
        let mut flows = Table::default();
        let n = self.flows.len();
        let reports: Vec<_> = self.flows.iter().map(|f| f.transport.report()).collect();
        let goodput: Vec<f64> = self
            .flows
            .iter()
            .zip(&reports)
            .map(|(f, r)| {
                let start = f.stats.started_at.unwrap_or(f.start);
                let end = f.stats.completed_at.unwrap_or(now);
                let span = ps_to_secs(end.saturating_sub(start));
                if span > 0.0 { r.delivered_bytes as f64 * 8.0 / span } else { 0.0 }
            })
            .collect();
        flows
            .col("flow", ColumnData::Str(self.flows.iter().map(|f| f.name.clone()).collect()))
            .col("src", ColumnData::Str(self.flows.iter().map(|f| self.nodes[f.src as usize].name.clone()).collect()))
            .col("dst", ColumnData::Str(self.flows.iter().map(|f| self.nodes[f.dst as usize].name.clone()).collect()))
            .col("start_s", ColumnData::F64(self.flows.iter().map(|f| ps_to_secs(f.start)).collect()))
            .col("goodput_bps", ColumnData::F64(goodput))
            .col(
                "fct_s",
                ColumnData::F64(
                    self.flows
                        .iter()
                        .map(|f| match (f.stats.started_at, f.stats.completed_at) {
                            (Some(a), Some(b)) => ps_to_secs(b - a),
                            _ => f64::NAN,
                        })
                        .collect(),
                ),
            )
            .col("delivered_bytes", ColumnData::U64(reports.iter().map(|r| r.delivered_bytes).collect()))
            .col("sent_pkts", ColumnData::U64(self.flows.iter().map(|f| f.stats.data_sent_pkts).collect()))
            .col("sent_bytes", ColumnData::U64(self.flows.iter().map(|f| f.stats.data_sent_bytes).collect()))
            .col("retx_pkts", ColumnData::U64(reports.iter().map(|r| r.retx_pkts).collect()))
            .col("lost_pkts", ColumnData::U64(self.flows.iter().map(|f| f.stats.data_dropped_pkts).collect()))
            .col("delivered_pkts", ColumnData::U64(self.flows.iter().map(|f| f.stats.data_delivered_pkts).collect()))
            .col("ce_pkts", ColumnData::U64(self.flows.iter().map(|f| f.stats.data_ce_pkts).collect()))
            .col("ack_pkts", ColumnData::U64(self.flows.iter().map(|f| f.stats.rev_sent_pkts).collect()))
            .col("ack_lost_pkts", ColumnData::U64(self.flows.iter().map(|f| f.stats.rev_dropped_pkts).collect()))
            .col("in_network_pkts", ColumnData::U64(in_net.clone()))
            .col(
                "efficiency",
                ColumnData::F64(
                    self.flows
                        .iter()
                        .zip(&reports)
                        .map(|(f, r)| {
                            let sent = f.stats.data_sent_pkts;
                            if sent == 0 { f64::NAN } else { (sent - r.retx_pkts.min(sent)) as f64 / sent as f64 }
                        })
                        .collect(),
                ),
            )
            .col("timeouts", ColumnData::U64(reports.iter().map(|r| r.timeouts).collect()))
            .col("fast_retx", ColumnData::U64(reports.iter().map(|r| r.fast_retx).collect()))
            .col("delay_mean_s", ColumnData::F64(self.flows.iter().map(|f| f.stats.delay.mean()).collect()))
            .col("delay_min_s", ColumnData::F64(self.flows.iter().map(|f| f.stats.delay.min_or_nan()).collect()))
            .col("delay_max_s", ColumnData::F64(self.flows.iter().map(|f| f.stats.delay.max_or_nan()).collect()))
            .col("delay_std_s", ColumnData::F64(self.flows.iter().map(|f| f.stats.delay.std()).collect()))
            .col("delay_p99_s", ColumnData::F64(self.flows.iter().map(|f| f.stats.delay_hist_ns.quantile(0.99) * 1e-9).collect()))
            .col(
                "rtt_mean_s",
                ColumnData::F64(reports.iter().map(|r| if r.rtt_samples > 0 { r.rtt_sum_ps / r.rtt_samples as f64 * 1e-12 } else { f64::NAN }).collect()),
            )
            .col("rtt_min_s", ColumnData::F64(reports.iter().map(|r| if r.rtt_samples > 0 { ps_to_secs(r.rtt_min_ps) } else { f64::NAN }).collect()))
            .col("rtt_max_s", ColumnData::F64(reports.iter().map(|r| if r.rtt_samples > 0 { ps_to_secs(r.rtt_max_ps) } else { f64::NAN }).collect()))
            .col("completed", ColumnData::Bool(self.flows.iter().map(|f| f.stats.completed_at.is_some()).collect()));
        debug_assert_eq!(flows.rows(), n);

        let mut ports = Table::default();
        let summaries: Vec<_> = self.ports.iter().map(|p| (p.stats.queue_pkts.summary(now), p.stats.queue_bytes.summary(now))).collect();
        ports
            .col("port", ColumnData::Str(self.ports.iter().map(|p| p.name.clone()).collect()))
            .col("node", ColumnData::Str(self.ports.iter().map(|p| self.nodes[p.from_node as usize].name.clone()).collect()))
            .col("arrivals_pkts", ColumnData::U64(self.ports.iter().map(|p| p.stats.arrivals_pkts).collect()))
            .col("tx_pkts", ColumnData::U64(self.ports.iter().map(|p| p.stats.tx_pkts).collect()))
            .col("tx_bytes", ColumnData::U64(self.ports.iter().map(|p| p.stats.tx_bytes).collect()))
            .col("drops", ColumnData::U64(self.ports.iter().map(|p| p.stats.total_drops()).collect()));
        for (k, name) in DROP_REASON_NAMES.iter().enumerate() {
            ports.col(&format!("drops_{name}"), ColumnData::U64(self.ports.iter().map(|p| p.stats.drops[k]).collect()));
        }
        ports
            .col("marks", ColumnData::U64(self.ports.iter().map(|p| p.stats.marks).collect()))
            .col("queue_pkts_mean", ColumnData::F64(summaries.iter().map(|s| s.0 .0).collect()))
            .col("queue_pkts_std", ColumnData::F64(summaries.iter().map(|s| s.0 .1).collect()))
            .col("queue_pkts_min", ColumnData::F64(summaries.iter().map(|s| s.0 .2).collect()))
            .col("queue_pkts_max", ColumnData::F64(summaries.iter().map(|s| s.0 .3).collect()))
            .col("queue_pkts_p99", ColumnData::F64(summaries.iter().map(|s| s.0 .4).collect()))
            .col("queue_bytes_mean", ColumnData::F64(summaries.iter().map(|s| s.1 .0).collect()))
            .col("queue_bytes_std", ColumnData::F64(summaries.iter().map(|s| s.1 .1).collect()))
            .col("queue_bytes_min", ColumnData::F64(summaries.iter().map(|s| s.1 .2).collect()))
            .col("queue_bytes_max", ColumnData::F64(summaries.iter().map(|s| s.1 .3).collect()))
            .col("queue_bytes_p99", ColumnData::F64(summaries.iter().map(|s| s.1 .4).collect()))
            .col("queue_pkts_now", ColumnData::U64(self.ports.iter().map(|p| p.queue.len_pkts() as u64).collect()));

        let mut links = Table::default();
        links
            .col("link", ColumnData::Str(self.ports.iter().map(|p| p.name.clone()).collect()))
            .col("rate_bps", ColumnData::F64(self.ports.iter().map(|p| p.rate_bps as f64).collect()))
            .col("delay_s", ColumnData::F64(self.ports.iter().map(|p| ps_to_secs(p.delay_ps)).collect()))
            .col("tx_bytes", ColumnData::U64(self.ports.iter().map(|p| p.stats.tx_bytes).collect()))
            .col("throughput_bps", ColumnData::F64(self.ports.iter().map(|p| p.stats.tx_bytes as f64 * 8.0 / dur_s).collect()))
            .col(
                "utilisation",
                ColumnData::F64(self.ports.iter().map(|p| (p.stats.busy_ps.min(now)) as f64 / now.max(1) as f64).collect()),
            );

        Results {
            scenario: self.scenario_name.clone(),
            seed: self.seed,
            end_time_s: ps_to_secs(now),
            counters: self.counters,
            flows,
            ports,
            links,
            flow_series: self.flow_series_table(),
            port_series: self.port_series_table(),
            packets: self.packet_trace_table(),
            queue_trace: self.queue_trace_table(),
        }
    }

    fn flow_series_table(&self) -> Table {
        let s = &self.series;
        let mut t = Table::default();
        t.col("t_s", ColumnData::F64(s.flow_t.clone()))
            .col("flow", ColumnData::Str(s.flow_id.iter().map(|&i| self.flows[i as usize].name.clone()).collect()))
            .col("delivered_bytes", ColumnData::U64(s.flow_delivered_bytes.clone()))
            .col("acked_bytes", ColumnData::U64(s.flow_acked_bytes.clone()))
            .col("cwnd_bytes", ColumnData::U64(s.flow_cwnd_bytes.clone()))
            .col("rwnd_bytes", ColumnData::U64(s.flow_rwnd_bytes.clone()))
            .col("srtt_s", ColumnData::F64(s.flow_srtt_s.clone()))
            .col("rate_bps", ColumnData::F64(s.flow_rate_bps.clone()));
        t
    }

    fn port_series_table(&self) -> Table {
        let s = &self.series;
        let mut t = Table::default();
        t.col("t_s", ColumnData::F64(s.port_t.clone()))
            .col("port", ColumnData::Str(s.port_id.iter().map(|&i| self.ports[i as usize].name.clone()).collect()))
            .col("queue_pkts", ColumnData::U64(s.port_queue_pkts.iter().map(|&x| x as u64).collect()))
            .col("queue_bytes", ColumnData::U64(s.port_queue_bytes.clone()))
            .col("tx_bytes", ColumnData::U64(s.port_tx_bytes.clone()))
            .col("drops", ColumnData::U64(s.port_drops.clone()));
        t
    }

    fn packet_trace_table(&self) -> Table {
        let mut t = Table::default();
        if let Some(p) = &self.packet_trace {
            t.col("t_s", ColumnData::F64(p.t.clone()))
                .col("flow", ColumnData::Str(p.flow.iter().map(|&i| self.flows[i as usize].name.clone()).collect()))
                .col("delay_s", ColumnData::F64(p.delay_s.clone()))
                .col("size_bytes", ColumnData::U64(p.size_bytes.iter().map(|&x| x as u64).collect()))
                .col("seq", ColumnData::U64(p.seq.clone()))
                .col("ce", ColumnData::Bool(p.ce.clone()))
                .col("retx", ColumnData::Bool(p.retx.clone()));
        }
        t
    }

    fn queue_trace_table(&self) -> Table {
        let q = &self.queue_trace;
        let mut t = Table::default();
        t.col("t_s", ColumnData::F64(q.t.clone()))
            .col("port", ColumnData::Str(q.port.iter().map(|&i| self.ports[i as usize].name.clone()).collect()))
            .col("queue_pkts", ColumnData::U64(q.queue_pkts.iter().map(|&x| x as u64).collect()))
            .col("queue_bytes", ColumnData::U64(q.queue_bytes.clone()));
        t
    }
}

/// Everything a run produced.
#[derive(Clone, Debug)]
pub struct Results {
    /// Scenario name.
    pub scenario: String,
    /// Master seed used.
    pub seed: u64,
    /// Simulated time at the end, s.
    pub end_time_s: f64,
    /// Run counters.
    pub counters: RunCounters,
    /// One row per flow.
    pub flows: Table,
    /// One row per output port.
    pub ports: Table,
    /// One row per simplex channel.
    pub links: Table,
    /// Flow time series.
    pub flow_series: Table,
    /// Port time series.
    pub port_series: Table,
    /// Per-packet trace (empty unless enabled).
    pub packets: Table,
    /// Queue-change trace of the traced ports.
    pub queue_trace: Table,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_flow_costs_under_one_kib() {
        let flow = std::mem::size_of::<Flow>();
        let tcp = std::mem::size_of::<crate::transport::tcp::TcpConnection>();
        eprintln!("Flow {flow} B, TcpConnection {tcp} B, FlowStats {} B", std::mem::size_of::<FlowStats>());
        // A flow that has not started holds its struct, its boxed TCP state and its name.
        assert!(flow + tcp + 16 < 1024, "{} bytes", flow + tcp + 16);
    }
}
