//! The engine side of arrival processes: a transfer's flow is created at its arrival (sender,
//! receiver, routes from the per-(src, dst) route table of its process) in a slot of the flow
//! slab, and its slot is freed once the transfer is complete (all data acknowledged) and no
//! packet of it is left in the network (`Flow::live_pkts`), so a packet never meets a flow other
//! than its own, without a generation counter in every packet. Timer events still in the heap
//! need no wait: a freed slot keeps the times of its pending timer events and disarms every
//! deadline, and the next transfer in the slot inherits those pending times, so a stale event
//! resolves exactly like one of the new flow's own lazily cancelled timers (`flows::FlowTimers`).
//! A freed slot keeps only the `Flow` struct (its transport's heap state is dropped) and is
//! reused by the next arrival, so memory follows the number of transfers alive at once, not the
//! total. Each finished transfer leaves one compact row for the `transfers` table.

use super::{AnyProcess, ArrivalProcess, ProcessInit, Transfer};
use crate::flows::{Flow, FlowTimers};
use crate::metrics::table::{ColumnData, Table};
use crate::metrics::FlowStats;
use crate::net::routing::{RouteArena, RouteRule, Router};
use crate::net::PacketKind;
use crate::scenario::schema::{FlowConfig, Scenario};
use crate::sim::{ps_to_secs, rng, Event, SimRng, SimTime};
use crate::simulation::Simulation;
use crate::transport::{AnyTransport, Transport, NEVER, TIMER_APP};

/// One arrival process at run time.
pub struct ProcessState {
    /// `arrivals[].name`.
    pub name: String,
    /// Index into [`ArrivalsState::groups`].
    pub group: u32,
    process: AnyProcess,
    rng: SimRng,
    /// The transfer whose arrival event is in the heap.
    pending: Option<Transfer>,
    src: Vec<u32>,
    dst: Vec<u32>,
    /// (forward, reverse) route per (src index, dst index), row-major.
    routes: Vec<(u32, u32)>,
    /// The `[[flows]]` entry of a transfer; its file size is set at each arrival.
    template: FlowConfig,
    /// Transfers that arrived so far.
    arrived: u64,
}

/// A transfer alive in the flow slab.
#[derive(Clone, Copy, Debug)]
struct Active {
    process: u32,
    seq: u64,
    size_bytes: u64,
    first_byte_at: SimTime,
    last_byte_at: SimTime,
}

/// One finished transfer (a row of the `transfers` table).
#[derive(Clone, Copy, Debug)]
struct Row {
    process: u32,
    src: u32,
    dst: u32,
    seq: u64,
    size_bytes: u64,
    arrived_at: SimTime,
    first_byte_at: SimTime,
    last_byte_at: SimTime,
    completed_at: SimTime,
    delivered_bytes: u64,
    retx_pkts: u32,
    timeouts: u32,
}

/// Memory bookkeeping of the transfers, for the report of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransferCounters {
    /// Transfers that arrived.
    pub arrived: u64,
    /// Transfers whose flow was freed.
    pub freed: u64,
    /// Transfers alive now (arrived, not yet freed).
    pub live: u64,
    /// Most transfers alive at once.
    pub live_high_water: u64,
    /// Slots of the flow slab used by transfers (its high-water mark: slots are reused).
    pub slots: u64,
    /// Bytes of per-transfer state at the live high-water mark: slab slots plus the transport
    /// state of the live transfers (struct sizes; the heap parts of a transport, such as a
    /// SACK scoreboard, are not counted).
    pub state_bytes_high_water: u64,
}

/// The arrival processes of a simulation and the transfers' slots.
#[derive(Default)]
pub struct ArrivalsState {
    /// Flows at or after this index are transfers; before it, the scenario's `[[flows]]`.
    pub first_flow: u32,
    /// The processes.
    pub processes: Vec<ProcessState>,
    /// Group labels (static flows' and arrivals').
    pub groups: Vec<String>,
    /// Group of each static flow (index into `groups`; `u32::MAX`: none).
    pub static_groups: Vec<u32>,
    /// Free transfer slots (flow indices).
    free: Vec<u32>,
    /// Per transfer slot (index `flow - first_flow`).
    active: Vec<Active>,
    /// Finished transfers.
    rows: Vec<Row>,
    /// Memory counters.
    pub counters: TransferCounters,
    seed: u64,
    /// `simulation.max_shaper_pkts`, for the shapers of WTP-shaped transfers.
    max_shaper_pkts: usize,
}

fn intern(groups: &mut Vec<String>, g: &str) -> u32 {
    match groups.iter().position(|x| x == g) {
        Some(i) => i as u32,
        None => {
            groups.push(g.to_string());
            (groups.len() - 1) as u32
        }
    }
}

/// Builds the arrival processes of `sc` (validated) and their first arrival events; routes of
/// every (src, dst) pair are computed here, once, and checked at every route change time.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_state(
    sc: &Scenario,
    seed: u64,
    index: &rustc_hash::FxHashMap<&str, u32>,
    router: &mut Router,
    rules: &[RouteRule],
    change_times: &[SimTime],
    routes: &mut RouteArena,
    route_cache: &mut crate::scenario::build::RouteCache,
) -> Result<(ArrivalsState, Vec<(SimTime, u32)>), (String, String)> {
    let mut st = ArrivalsState {
        first_flow: sc.flows.len() as u32,
        seed,
        max_shaper_pkts: sc.simulation.max_shaper_pkts as usize,
        ..Default::default()
    };
    for f in &sc.flows {
        let g = f.settings.group.as_deref().map_or(u32::MAX, |g| intern(&mut st.groups, g));
        st.static_groups.push(g);
    }
    let mut first = Vec::new();
    for (i, a) in sc.arrivals.iter().enumerate() {
        let src: Vec<u32> = a.src.names().iter().map(|n| index[n]).collect();
        let dst: Vec<u32> = a.dst.names().iter().map(|n| index[n]).collect();
        let mut pair_routes = Vec::with_capacity(src.len() * dst.len());
        for &s in &src {
            for &d in &dst {
                let path = |router: &mut Router, from, to, t| {
                    router.path(from, to, rules, t).map_err(|e| (format!("arrivals[{i}]"), format!("{} (from '{}' to '{}')", e.message, sc.nodes[from as usize].name, sc.nodes[to as usize].name)))
                };
                let fwd = path(router, s, d, 0)?;
                let rev = path(router, d, s, 0)?;
                for &t in change_times {
                    path(router, s, d, t)?;
                    path(router, d, s, t)?;
                }
                let fwd = crate::scenario::build::intern_route(route_cache, routes, fwd);
                let rev = crate::scenario::build::intern_route(route_cache, routes, rev);
                pair_routes.push((fwd, rev));
            }
        }
        let init = ProcessInit { n_src: src.len() as u32, n_dst: dst.len() as u32, packet_bytes: a.settings.tcp.mss as u64 };
        let mut p = ProcessState {
            name: a.name.clone(),
            group: intern(&mut st.groups, a.group_label()),
            process: AnyProcess::build(&a.process, init),
            rng: rng::stream(seed, &format!("arrivals:{}", a.name)),
            pending: None,
            src,
            dst,
            routes: pair_routes,
            template: a.flow_config(String::new(), "", "", 0),
            arrived: 0,
        };
        p.pending = p.process.next_transfer(&mut p.rng);
        if let Some(t) = p.pending {
            if t.at <= sc.simulation.duration.0 {
                first.push((t.at, i as u32));
            } else {
                p.pending = None;
            }
        }
        st.processes.push(p);
    }
    Ok((st, first))
}

/// Validates `[[arrivals]]`: names, hosts, the process, and the flow settings through the
/// same checks as a `[[flows]]` entry (`check_flow`), errors at `arrivals[i]...`.
pub(crate) fn validate(sc: &Scenario, check_flow: &dyn Fn(&FlowConfig, &str) -> Result<(), (String, String)>) -> Result<(), (String, String)> {
    let mut names = std::collections::HashSet::new();
    for (i, a) in sc.arrivals.iter().enumerate() {
        let at = format!("arrivals[{i}]");
        if a.name.is_empty() {
            return Err((format!("{at}.name"), "expected a non-empty name".into()));
        }
        if !names.insert(a.name.as_str()) {
            return Err((format!("{at}.name"), format!("duplicate arrival name '{}'", a.name)));
        }
        if a.settings.transport != crate::scenario::schema::TransportKind::Tcp {
            return Err((format!("{at}.transport"), format!("expected \"tcp\": a transfer's flow is freed when all its data is acknowledged, which only tcp transfers do here (got {:?})", a.settings.transport).to_lowercase()));
        }
        a.process.validate().map_err(|e| (format!("{at}.process.{}", e.field), e.message))?;
        let (field, first) = match &a.process {
            super::ProcessConfig::Poisson(c) => ("start", c.start),
            super::ProcessConfig::FlashCrowd(c) => ("at", c.at),
            super::ProcessConfig::WebTraf(c) => ("start", c.start),
        };
        crate::scenario::validate::before_end(format_args!("{at}.process.{field}"), first, sc.simulation.duration, "no transfer would arrive")?;
        let srcs = a.src.names();
        let dsts = a.dst.names();
        for (list, which) in [(&srcs, "src"), (&dsts, "dst")] {
            if list.is_empty() {
                return Err((format!("{at}.{which}"), "expected at least one host".into()));
            }
            for (k, n) in list.iter().enumerate() {
                let path = if matches!(if which == "src" { &a.src } else { &a.dst }, super::Hosts::One(_)) { format!("{at}.{which}") } else { format!("{at}.{which}[{k}]") };
                let Some(node) = sc.nodes.iter().find(|x| x.name == *n) else {
                    return Err((path, format!("unknown node '{n}' (declare it under [[nodes]])")));
                };
                if node.kind != crate::scenario::schema::NodeKind::Host {
                    return Err((path, format!("'{n}' is a router; transfers run between hosts")));
                }
            }
        }
        if let Some(n) = srcs.iter().find(|s| dsts.contains(s)) {
            return Err((format!("{at}.dst"), format!("'{n}' is both a source and a destination: the src and dst lists must not share hosts")));
        }
        // The flow settings, checked as the flow of one transfer.
        let f = a.flow_config(a.name.clone(), srcs[0], dsts[0], 1);
        check_flow(&f, &at)?;
        // A size in packets is a number of MSS-sized packets: check its bytes at this MSS
        // (`process.validate` can only assume one byte per packet). Fuzz finding: mean_pkts =
        // 4294967295 passed validation and panicked in the builder (issue 14, class 1).
        let (field, size) = a.process.size_config();
        size.build(a.settings.tcp.mss as u64).map_err(|e| (format!("{at}.process.{field}.{}", e.field), e.message))?;
    }
    if !sc.arrivals.is_empty() {
        if sc.metrics.packet_trace {
            return Err(("metrics.packet_trace".into(), "not available with [[arrivals]]: transfers' flow slots are reused, so a trace row could not name its flow".into()));
        }
        if !sc.metrics.capture.is_empty() {
            return Err(("metrics.capture".into(), "not available with [[arrivals]]: transfers' flow slots are reused, so a captured packet could not name its flow".into()));
        }
    }
    Ok(())
}

impl Simulation {
    /// Arrival event of process `p`: the pending transfer gets a flow, and the next one is
    /// scheduled.
    #[cold]
    pub(crate) fn on_arrival(&mut self, p: u32) {
        let now = self.now;
        let ps = &mut self.arrivals.processes[p as usize];
        let Some(t) = ps.pending.take() else { return };
        let seq = ps.arrived;
        ps.arrived += 1;
        let (src, dst) = (ps.src[t.src as usize], ps.dst[t.dst as usize]);
        let (fwd_route, rev_route) = ps.routes[(t.src as usize) * ps.dst.len() + t.dst as usize];
        if let crate::traffic::WorkloadConfig::File(file) = &mut ps.template.workload {
            file.size.0 = t.size_bytes;
        }
        // Each transfer's own streams: the scenario seed mixed with its sequence number.
        let transfer_seed = self.arrivals.seed ^ seq.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let transport = crate::scenario::build::build_transport(&ps.template, transfer_seed);
        let workload = ps.template.workload.build();
        let flow_rng = rng::stream(transfer_seed, &ps.name);
        let mut flow = Flow {
            name: String::new(),
            src,
            dst,
            fwd_route,
            rev_route,
            start: now,
            transport,
            workload,
            timers: FlowTimers::default(),
            rng: flow_rng,
            stats: FlowStats::default(),
            shaper: crate::scenario::build::build_shaper(&ps.template, self.arrivals.max_shaper_pkts),
            priority: ps.template.settings.priority,
            eca: ps.template.settings.wtp.map(|_| Box::default()),
            started: false,
            done: false,
            live_pkts: 0,
        };
        let active = Active { process: p, seq, size_bytes: t.size_bytes, first_byte_at: NEVER, last_byte_at: NEVER };
        // Schedule the next arrival before the flow takes a slot (the process state is borrowed).
        ps.pending = ps.process.next_transfer(&mut ps.rng).filter(|n| n.at <= self.end);
        match ps.pending {
            Some(n) => self.queue.push(n.at, Event::Arrival { process: p }),
            None => self.finite_pending -= 1, // the process is over: it no longer keeps the run going
        }
        let first = self.arrivals.first_flow as usize;
        let f = match self.arrivals.free.pop() {
            Some(f) => {
                // Stale timer events of the slot's last transfer may still be in the heap.
                flow.timers.inherit_pending(&self.flows[f as usize].timers);
                self.flows[f as usize] = flow;
                self.arrivals.active[f as usize - first] = active;
                f
            }
            None => {
                if self.flows.len() >= crate::sim::event::MAX_FLOWS {
                    self.fail(format!("more than {} transfers alive at once", crate::sim::event::MAX_FLOWS - first));
                    return;
                }
                self.flows.push(flow);
                self.arrivals.active.push(active);
                (self.flows.len() - 1) as u32
            }
        };
        Self::note_first_port(&mut self.flow_first_port, &self.routes, f as usize, self.flows[f as usize].fwd_route);
        self.finite_pending += 1;
        // The workload starts now (a pending event at or before now serves).
        self.flows[f as usize].timers.arm(f, TIMER_APP, now, &mut self.queue);
        let c = &mut self.arrivals.counters;
        c.arrived += 1;
        c.live += 1;
        c.slots = (self.flows.len() - first) as u64;
        if c.live > c.live_high_water {
            c.live_high_water = c.live;
            c.state_bytes_high_water = c.slots * (std::mem::size_of::<Flow>() + std::mem::size_of::<Active>()) as u64
                + c.live * std::mem::size_of::<crate::transport::tcp::TcpConnection>() as u64;
        }
    }

    /// A packet of flow `f` left the network (delivered or dropped).
    #[inline]
    pub(crate) fn packet_gone(&mut self, f: usize) {
        if f < self.arrivals.first_flow as usize {
            return; // a static flow is never freed, so its packets are not counted
        }
        let flow = &mut self.flows[f];
        flow.live_pkts -= 1;
        if flow.live_pkts == 0 && flow.done {
            self.maybe_free(f);
        }
    }

    /// A packet of transfer flow `f` was delivered: notes its first and last byte, then
    /// [`Self::packet_gone`].
    #[inline]
    pub(crate) fn delivered(&mut self, f: usize, kind: PacketKind) {
        if f >= self.arrivals.first_flow as usize && kind == PacketKind::Data {
            self.note_bytes(f);
        }
        self.packet_gone(f);
    }

    #[cold]
    fn note_bytes(&mut self, f: usize) {
        let now = self.now;
        let a = &mut self.arrivals.active[f - self.arrivals.first_flow as usize];
        if a.first_byte_at == NEVER {
            a.first_byte_at = now;
        }
        if a.last_byte_at == NEVER && self.flows[f].transport.report().delivered_bytes >= a.size_bytes {
            a.last_byte_at = now;
        }
    }

    /// Frees transfer flow `f` if nothing can reference it any more.
    #[cold]
    pub(crate) fn maybe_free(&mut self, f: usize) {
        let first = self.arrivals.first_flow as usize;
        let flow = &self.flows[f];
        if f < first || !flow.done || flow.live_pkts > 0 {
            return;
        }
        // A control packet a port hook emitted about this flow, not yet routed.
        if self.hook_out.iter().any(|e| e.pkt.flow as usize == f) {
            return;
        }
        let row = self.transfer_row(f);
        self.arrivals.rows.push(row);
        // Drop the transport's heap state; the slot keeps only the Flow struct, with every timer
        // disarmed (its pending events then resolve to nothing).
        let flow = &mut self.flows[f];
        flow.transport = AnyTransport::Udp(crate::transport::udp::UdpFlow::new(0));
        flow.timers.disarm_all();
        flow.done = false;
        self.arrivals.free.push(f as u32);
        self.arrivals.counters.freed += 1;
        self.arrivals.counters.live -= 1;
    }

    fn transfer_row(&self, f: usize) -> Row {
        let flow = &self.flows[f];
        let a = &self.arrivals.active[f - self.arrivals.first_flow as usize];
        let r = flow.transport.report();
        Row {
            process: a.process,
            src: flow.src,
            dst: flow.dst,
            seq: a.seq,
            size_bytes: a.size_bytes,
            arrived_at: flow.start,
            first_byte_at: a.first_byte_at,
            last_byte_at: a.last_byte_at,
            completed_at: flow.stats.completed_at().unwrap_or(NEVER),
            delivered_bytes: r.delivered_bytes,
            retx_pkts: r.retx_pkts.min(u32::MAX as u64) as u32,
            timeouts: r.timeouts.min(u32::MAX as u64) as u32,
        }
    }

    /// After a route change: the route table of every arrival process follows.
    pub(crate) fn refresh_arrival_routes(arrivals: &mut ArrivalsState, router: &mut Router, rules: &[RouteRule], routes: &mut RouteArena, now: SimTime) {
        for p in &mut arrivals.processes {
            let n_dst = p.dst.len();
            for (k, pair) in p.routes.iter_mut().enumerate() {
                let (s, d) = (p.src[k / n_dst], p.dst[k % n_dst]);
                let fwd = router.path(s, d, rules, now).expect("route validated at build");
                let rev = router.path(d, s, rules, now).expect("route validated at build");
                if fwd != routes.ports(pair.0) {
                    pair.0 = routes.add(&fwd);
                }
                if rev != routes.ports(pair.1) {
                    pair.1 = routes.add(&rev);
                }
            }
        }
    }

    /// Counters of the transfers (arrivals, frees, slots, live-state bytes).
    pub fn transfer_counters(&self) -> TransferCounters {
        self.arrivals.counters
    }

    /// The `transfers` table (one row per finished or still running transfer, finished ones
    /// first in the order they were freed) and the per-group aggregates.
    pub(crate) fn transfer_tables(&self, static_delivered: &[u64]) -> (Table, Table) {
        let first = self.arrivals.first_flow as usize;
        let free: std::collections::HashSet<u32> = self.arrivals.free.iter().copied().collect();
        let mut rows = self.arrivals.rows.clone();
        for f in first..self.flows.len() {
            if !free.contains(&(f as u32)) {
                rows.push(self.transfer_row(f));
            }
        }
        let secs = |t: SimTime| if t == NEVER { f64::NAN } else { ps_to_secs(t) };
        let resp = |r: &Row| if r.completed_at == NEVER { f64::NAN } else { ps_to_secs(r.completed_at - r.arrived_at) };
        let procs = &self.arrivals.processes;
        let name = |n: u32| self.nodes[n as usize].name.to_string();
        let mut t = Table::default();
        t.col("arrival", ColumnData::Str(rows.iter().map(|r| procs[r.process as usize].name.clone()).collect()))
            .col("group", ColumnData::Str(rows.iter().map(|r| self.arrivals.groups[procs[r.process as usize].group as usize].clone()).collect()))
            .col("transfer", ColumnData::U64(rows.iter().map(|r| r.seq).collect()))
            .col("src", ColumnData::Str(rows.iter().map(|r| name(r.src)).collect()))
            .col("dst", ColumnData::Str(rows.iter().map(|r| name(r.dst)).collect()))
            .col("size_bytes", ColumnData::U64(rows.iter().map(|r| r.size_bytes).collect()))
            .col("start_s", ColumnData::F64(rows.iter().map(|r| ps_to_secs(r.arrived_at)).collect()))
            .col("first_byte_s", ColumnData::F64(rows.iter().map(|r| secs(r.first_byte_at)).collect()))
            .col("last_byte_s", ColumnData::F64(rows.iter().map(|r| secs(r.last_byte_at)).collect()))
            .col("completed_s", ColumnData::F64(rows.iter().map(|r| secs(r.completed_at)).collect()))
            .col("response_time_s", ColumnData::F64(rows.iter().map(resp).collect()))
            .col("delivered_bytes", ColumnData::U64(rows.iter().map(|r| r.delivered_bytes).collect()))
            .col("retx_pkts", ColumnData::U64(rows.iter().map(|r| r.retx_pkts as u64).collect()))
            .col("timeouts", ColumnData::U64(rows.iter().map(|r| r.timeouts as u64).collect()))
            .col("completed", ColumnData::Bool(rows.iter().map(|r| r.completed_at != NEVER).collect()));

        // Per group: static flows and transfers together.
        let groups = &self.arrivals.groups;
        let mut flows_n = vec![0u64; groups.len()];
        let mut delivered = vec![0u64; groups.len()];
        let mut transfers = vec![0u64; groups.len()];
        let mut completed = vec![0u64; groups.len()];
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); groups.len()];
        for (i, &g) in self.arrivals.static_groups.iter().enumerate() {
            if g != u32::MAX {
                flows_n[g as usize] += 1;
                delivered[g as usize] += static_delivered[i];
            }
        }
        for r in &rows {
            let g = procs[r.process as usize].group as usize;
            transfers[g] += 1;
            delivered[g] += r.delivered_bytes;
            if r.completed_at != NEVER {
                completed[g] += 1;
                times[g].push(resp(r));
            }
        }
        for v in &mut times {
            v.sort_by(f64::total_cmp);
        }
        // Quantiles by linear interpolation between the order statistics at (n - 1) p, the
        // definition of numpy, pandas and pyarrow (their default), so the groups table, the
        // sweep's response_time_p50_s and the CLI's summary agree (this once took the nearest
        // order statistic instead).
        let q = |v: &Vec<f64>, p: f64| {
            if v.is_empty() {
                return f64::NAN;
            }
            let pos = (v.len() - 1) as f64 * p;
            let (lo, t) = (pos.floor() as usize, pos - pos.floor());
            let (a, b) = (v[lo], v[(lo + 1).min(v.len() - 1)]);
            a + (b - a) * t
        };
        let mut g = Table::default();
        g.col("group", ColumnData::Str(groups.clone()))
            .col("flows", ColumnData::U64(flows_n))
            .col("transfers", ColumnData::U64(transfers))
            .col("transfers_completed", ColumnData::U64(completed))
            .col("delivered_bytes", ColumnData::U64(delivered))
            .col("response_time_mean_s", ColumnData::F64(times.iter().map(|v| if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 }).collect()))
            .col("response_time_p50_s", ColumnData::F64(times.iter().map(|v| q(v, 0.5)).collect()))
            .col("response_time_p95_s", ColumnData::F64(times.iter().map(|v| q(v, 0.95)).collect()));
        (t, g)
    }
}
