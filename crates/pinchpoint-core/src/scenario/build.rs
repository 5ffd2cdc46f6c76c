//! Builds a [`Simulation`] from a validated scenario.

use super::schema::*;
use super::ScenarioError;
use crate::flows::{Flow, FlowShaper, FlowTimers};
use crate::metrics::{FlowStats, PacketTrace};
use crate::net::routing::{RouteArena, RouteRule, Router};
use crate::net::{Node, PacketSlab, Port};
use crate::port_hooks::AnyHook;
use crate::queue::{AnyQueue, PortInfo, QueueConfig};
use crate::simulation::{Limits, RunCounters, Simulation};
use crate::shaper::TokenBucket;
use crate::sim::{rng, Event, EventQueue, SimTime};
use crate::transport::credit::{AnyReceiverPolicy, ReceiverConfig, ReceiverInit, ReceiverPolicy};
use crate::transport::tcp::cc::{AnyCc, CcConfig, CcInit};
use crate::transport::tcp::receiver::{ReceiverSettings, TcpReceiver};
use crate::transport::tcp::sender::{EcnMode, SenderSettings, TcpSender};
use crate::transport::tcp::handshake::{Handshake, HandshakeSettings, DEFAULT_SYN_RETRIES};
use crate::transport::tcp::recipe::{PendingTcp, TcpRecipe};
use crate::transport::tcp::TcpConnection;
use crate::traffic::Workload;
use crate::transport::udp::UdpFlow;
use crate::transport::{AnyTransport, TIMER_APP};
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::sync::Arc;

/// Route ids by their port lists: flows with the same path share one route in the arena.
pub(crate) type RouteCache = FxHashMap<Vec<u32>, u32>;

/// The id of route `path`, added to `routes` the first time it is seen. Looked up before
/// inserting so that a path already known is not copied (`entry` needs an owned key).
pub(crate) fn intern_route(cache: &mut RouteCache, routes: &mut RouteArena, path: Vec<u32>) -> u32 {
    if let Some(&id) = cache.get(&path) {
        return id;
    }
    let id = routes.add(&path);
    cache.insert(path, id);
    id
}

/// Builds the simulation `sc` describes, with `seed` overriding the scenario's seed if given.
/// `origin` names the scenario in errors.
pub fn build(sc: &Scenario, seed: Option<u64>, origin: &str) -> Result<Simulation, ScenarioError> {
    let seed = seed.unwrap_or(sc.simulation.seed);
    let fail = |path: String, message: String| ScenarioError { origin: origin.to_string(), path, message };
    let mut nodes: Vec<Node> =
        sc.nodes.iter().map(|n| Node { name: n.name.as_str().into(), is_router: n.kind == NodeKind::Router, ports: Box::default() }).collect();
    // Each node's output ports, collected link by link, then boxed into the node.
    let mut node_ports: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
    // Fx, not SipHash: these maps are keyed by the scenario's own names and paths (nothing an
    // adversary chooses to collide). With the router's maps and the route cache's look-up
    // before copying, the build's instructions at 30,000 flows fell from 636 M to 507 M
    // (callgrind, issue 13).
    let index: FxHashMap<&str, u32> = sc.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i as u32)).collect();

    let mut ports: Vec<Port> = Vec::with_capacity(sc.links.len() * 2);
    crate::sim::huge_pages::advise_huge_pages(&ports);
    let default_queue = QueueConfig::default();
    let trace: Vec<&str> = sc.metrics.queue_trace.iter().map(|s| s.as_str()).collect();
    // The random streams' labels (`port:A->B`, `flow:NAME`) are written into this one buffer:
    // a `format!` for each port and flow (and one more for the port's name) runs the formatting
    // machinery and allocates, and 100,000 flows make 400,000 ports.
    let mut label = String::new();
    for l in &sc.links {
        let a = index[l.a.as_str()];
        let b = index[l.b.as_str()];
        for (from, to, rate, q, extra_hooks) in [
            (a, b, l.rate, l.queue_ab.as_ref().or(l.queue.as_ref()).unwrap_or(&default_queue), &l.hooks_ab),
            (b, a, l.rate_ba.unwrap_or(l.rate), l.queue_ba.as_ref().or(l.queue.as_ref()).unwrap_or(&default_queue), &l.hooks_ba),
        ] {
            let rate_bps = rate.bps().max(1);
            label.clear();
            label.push_str("port:");
            label.push_str(&nodes[from as usize].name);
            label.push_str("->");
            label.push_str(&nodes[to as usize].name);
            let name = &label["port:".len()..];
            let info = PortInfo { rate_bps, delay_ps: l.delay.0 };
            let id = ports.len() as u32;
            let hooks = l.hooks.iter().chain(extra_hooks.iter()).map(|h| {
                let mut hook = AnyHook::build(h, rate_bps);
                hook.attach_to_port(id);
                hook
            }).collect();
            node_ports[from as usize].push(id);
            let rng = rng::stream(seed, &label);
            let loss = l.loss.as_ref().map(|loss| (loss.build(), rng::stream(seed, &format!("loss:{name}"))));
            let mut port = Port::new(from, to, rate_bps, l.delay.0, AnyQueue::build(q, info), hooks, rng, loss);
            port.traced = trace.contains(&name);
            port.captured = sc.metrics.capture.iter().any(|c| *c == name);
            port.choose_path();
            ports.push(port);
        }
    }

    // Each node's port list is complete: boxed without the spare capacity of its growth.
    for (n, p) in nodes.iter_mut().zip(node_ports) {
        n.ports = p.into_boxed_slice();
    }

    // Explicit route rules, by port.
    let mut rules = Vec::new();
    for r in &sc.routes {
        let n = index[r.node.as_str()];
        let h = index[r.next_hop.as_str()];
        let port = nodes[n as usize].ports.iter().copied().find(|&p| ports[p as usize].to_node == h).expect("validated neighbour");
        rules.push(RouteRule { node: n, dst: index[r.dst.as_str()], port, at: r.at.0 });
    }
    let ends: Vec<(u32, u32, SimTime)> = ports.iter().map(|p| (p.from_node, p.to_node, p.delay_ps)).collect();
    let by_delay = sc.simulation.routing == RoutingMetric::Delay;
    let mut router = Router::new(&nodes, ends, by_delay);
    let mut routes = RouteArena::new(ports.len() as u32);
    let mut change_times: Vec<SimTime> = rules.iter().map(|r| r.at).filter(|&t| t > 0).collect();
    change_times.sort_unstable();
    change_times.dedup();
    let mut route_cache = RouteCache::default();

    let mut flows = Vec::with_capacity(sc.flows.len());
    crate::sim::huge_pages::advise_huge_pages(&flows);
    let mut finite = 0usize;
    let mut recipes = Recipes::default();
    for (i, f) in sc.flows.iter().enumerate() {
        let s = index[f.src.as_str()];
        let d = index[f.dst.as_str()];
        // A failure is reported at the explicit route that made it when there is one
        // (`routes[k]`: a loop, or a rule that leads into a host), else at the flow.
        let at = |e: crate::net::routing::RouteError, when: String| {
            let flow = &sc.flows[i].name;
            match e.rule {
                Some(k) if e.message.contains("loop") || e.message.contains("passes through") => fail(format!("routes[{k}]"), format!("{}{when} (flow '{flow}')", e.message)),
                _ => fail(format!("flows[{i}]"), format!("{}{when}", e.message)),
            }
        };
        let fwd = router.path(s, d, &rules, 0).map_err(|e| at(e, String::new()))?;
        let rev = router.path(d, s, &rules, 0).map_err(|e| at(e, String::new()))?;
        for &t in &change_times {
            let when = format!(" after the route change at {} s", crate::sim::ps_to_secs(t));
            router.path(s, d, &rules, t).map_err(|e| at(e, when.clone()))?;
            router.path(d, s, &rules, t).map_err(|e| at(e, when.clone()))?;
        }
        let fwd_route = intern_route(&mut route_cache, &mut routes, fwd);
        let rev_route = intern_route(&mut route_cache, &mut routes, rev);
        label.clear();
        label.push_str("flow:");
        label.push_str(&f.name);
        let mut flow_rng = rng::stream(seed, &label);
        let start = match f.start_jitter {
            Some(j) if j.0 > 0 => f.start.0 + (rng::uniform(&mut flow_rng) * j.0 as f64) as SimTime,
            _ => f.start.0,
        };
        let workload = f.workload.build();
        let transport = match f.settings.transport {
            // Built when the flow starts, from a recipe shared by flows with equal settings.
            TransportKind::Tcp => AnyTransport::TcpPending(PendingTcp { recipe: recipes.get(&f.settings, seed), finite: workload.total_bytes().is_some() }),
            _ => build_transport(f, seed),
        };
        if transport_is_finite(&transport) {
            finite += 1;
        }
        let shaper = build_shaper(f, sc.simulation.max_shaper_pkts as usize);
        flows.push(Flow {
            name: f.name.clone(),
            src: s,
            dst: d,
            fwd_route,
            rev_route,
            start,
            transport,
            workload,
            timers: FlowTimers::default(),
            rng: flow_rng,
            stats: FlowStats::default(),
            eca: f.settings.wtp.map(|_| Box::default()),
            shaper,
            priority: f.settings.priority,
            started: false,
            done: false,
            live_pkts: 0,
        });
    }

    let (arrivals, first_arrivals) = crate::traffic::arrivals::engine::build_state(sc, seed, &index, &mut router, &rules, &change_times, &mut routes, &mut route_cache)
        .map_err(|(path, message)| fail(path, message))?;
    // An arrival process keeps the run going (stop_when_done) until its last arrival.
    finite += first_arrivals.len();
    check_ecn_pairs(sc, &index, &mut router, &rules, &change_times).map_err(|(path, message)| fail(path, message))?;
    let build_route_steps = router.route_steps();
    drop(router);
    // Room for the events pushed here (a start per flow, route changes, first arrivals); the
    // heaps grow by doubling as the run needs more, so an idle flow's share stays one entry.
    let mut queue = EventQueue::with_capacity(flows.len() + change_times.len() + first_arrivals.len() + 16);
    for (i, f) in flows.iter_mut().enumerate() {
        f.timers.slots[TIMER_APP as usize] = crate::flows::TimerSlot { deadline: f.start, pending: f.start };
        queue.push(f.start, Event::FlowTimer { flow: i as u32, timer: TIMER_APP });
    }
    let series_interval = sc.metrics.series_interval.map(|d| d.0);
    let rates = sc.metrics.rate_interval.map(|d| crate::metrics::rates::IntervalRates::new(d.0, flows.len()));
    if series_interval.is_some() || rates.is_some() {
        queue.push(0, Event::Sample);
    }
    for (k, &t) in change_times.iter().enumerate() {
        queue.push(t, Event::RouteChange { idx: k as u32 });
    }
    for &(t, p) in &first_arrivals {
        queue.push(t, Event::Arrival { process: p });
    }

    let prefetch_timers = flows.len() >= crate::simulation::PREFETCH_MIN_FLOWS;
    let flow_first_port = flows.iter().map(|f| crate::simulation::first_port(&routes, f.fwd_route)).collect();
    Ok(Simulation {
        prefetch_timers,
        flow_first_port,
        now: 0,
        end: sc.simulation.duration.0,
        stop_when_done: sc.simulation.stop_when_done && finite > 0,
        queue,
        packets: PacketSlab::default(),
        nodes,
        // Boxed: the run's port count is fixed from here on (`RouteArena::new` was given it).
        ports: ports.into_boxed_slice(),
        routes,
        rules,
        route_by_delay: by_delay,
        flows,
        out: Vec::with_capacity(64),
        hook_out: Vec::new(),
        finite_pending: finite,
        series_interval,
        series: Default::default(),
        rates,
        packet_trace: if sc.metrics.packet_trace { Some(PacketTrace::default()) } else { None },
        queue_trace: Default::default(),
        capture: Vec::new(),
        dropped: Vec::new(),
        counters: RunCounters { build_route_steps, ..RunCounters::default() },
        limits: Limits { max_live_packets: sc.simulation.max_live_packets as usize },
        stopped: false,
        error: None,
        scenario_name: sc.name.clone(),
        seed,
        arrivals,
    })
}

/// The TCP recipes of a build, one per distinct set of flow settings.
#[derive(Default)]
struct Recipes {
    /// The recipe used last: consecutive flows mostly share their settings.
    last: Option<Arc<TcpRecipe>>,
    /// Every recipe, by its settings written out in full (`Debug` writes every field, floats
    /// exactly; `FlowSettings` holds floats, so it has no `Hash`).
    by_settings: HashMap<String, Arc<TcpRecipe>>,
}

impl Recipes {
    /// The recipe for flows with `settings`, made on first use.
    fn get(&mut self, settings: &FlowSettings, seed: u64) -> Arc<TcpRecipe> {
        if let Some(r) = self.last.as_ref().filter(|r| r.settings() == settings) {
            return r.clone();
        }
        let r = self.by_settings.entry(format!("{settings:?}")).or_insert_with(|| Arc::new(TcpRecipe::new(settings.clone(), seed))).clone();
        self.last = Some(r.clone());
        r
    }
}

fn transport_is_finite(t: &AnyTransport) -> bool {
    use crate::transport::Transport;
    t.is_finite()
}

/// The flow's shaper: a fixed token bucket (`shaper`), a WTP bucket (`wtp`) or none.
pub(crate) fn build_shaper(f: &FlowConfig, max_held_pkts: usize) -> Option<Box<FlowShaper>> {
    if let Some(w) = f.settings.wtp {
        return Some(Box::new(FlowShaper { bucket: TokenBucket::new(crate::shaper::wtp::UNLIMITED_BPS, w.bucket.0), held: Default::default(), max_held_pkts, wtp_weight: Some(w.weight) }));
    }
    f.shaper.map(|c| Box::new(FlowShaper { bucket: TokenBucket::new(c.rate.bps(), c.bucket.0), held: Default::default(), max_held_pkts, wtp_weight: None }))
}

pub(crate) fn build_transport(f: &FlowConfig, seed: u64) -> AnyTransport {
    match f.settings.transport {
        TransportKind::Tcp => {
            let total = f.workload.build().total_bytes().unwrap_or(u64::MAX);
            AnyTransport::Tcp(Box::new(build_tcp(&f.settings, &f.name, total, seed)))
        }
        TransportKind::Tfrc => {
            AnyTransport::Tfrc(Box::new(crate::transport::tfrc::TfrcFlow::new(&f.tfrc.unwrap_or_default(), f.settings.priority)))
        }
        TransportKind::Udp => {
AnyTransport::Udp(UdpFlow::new(f.settings.priority))
        }
        TransportKind::Trump => {
            let WorkloadConfig::File(file) = &f.workload else { unreachable!("validated: trump carries a file") };
            AnyTransport::Trump(Box::new(crate::transport::trump::TrumpFlow::new(&f.trump.clone().unwrap_or_default(), file.size.0, f.settings.priority)))
        }
    }
}

/// The TCP connection of flow `name` with `settings` (validated) whose workload offers
/// `total_bytes` in all (`u64::MAX`: unbounded); its controller draws from the stream
/// `cc:<name>` of `seed`.
pub(crate) fn build_tcp(settings: &FlowSettings, name: &(impl AsRef<str> + ?Sized), total_bytes: u64, seed: u64) -> TcpConnection {
    let t = &settings.tcp;
    let default_cc = CcConfig::default();
    let cc_config = settings.cc.as_ref().unwrap_or(&default_cc);
    let mut cc = AnyCc::build(cc_config, CcInit { mss: t.mss, init_cwnd_pkts: t.init_cwnd_pkts });
    // Only a controller that draws gets its stream: the stream's name is formatted per flow when
    // the flow starts, in the run loop (issue 13: 4 % of the loop at 100,000 flows), and the
    // others ignore `set_rng` (`CcSettings::draws_random`, checked by tests/test_random_kinds.py).
    // The name is taken unread (`AsRef`): reading a flow's `String` header was a cold line of
    // the flow at every start.
    if cc_config.draws_random() {
        crate::transport::tcp::cc::CongestionControl::set_rng(&mut cc, rng::stream(seed, &format!("cc:{}", name.as_ref())));
    }
    let mut sender = TcpSender::new(
        SenderSettings {
            mss: t.mss,
            header_bytes: t.header_bytes,
            dupack_threshold: t.dupack_threshold,
            packets_per_segment: t.packets_per_segment,
            min_rto_ps: t.min_rto.0,
            initial_rto_ps: t.initial_rto.0,
            max_rto_ps: t.max_rto.0,
            ecn: match (t.ecn, &settings.cc) {
                (false, _) => EcnMode::Off,
                (true, Some(CcConfig::Dctcp(_))) => EcnMode::EctAlways,
                (true, _) => EcnMode::Rfc3168,
            },
            limited_transmit: true,
            priority: settings.priority,
            sack: t.sack_enabled(),
            recovery: t.recovery_in_use(),
            prr: t.prr_enabled(),
            pacing: t.pacing,
            slow_start_after_idle: t.slow_start_after_idle,
        },
        cc,
        total_bytes,
    );
    let rinit = ReceiverInit { mss: t.mss, max_window_bytes: t.max_window.map(|b| b.0) };
    let policy = AnyReceiverPolicy::build(t.receiver.as_ref().unwrap_or(&ReceiverConfig::Fixed(Default::default())), rinit);
    // The receiver's first window reaches the sender in the handshake, before any data.
    sender.set_initial_rwnd(policy.window_bytes());
    sender.set_undo(t.undo_enabled());
    sender.set_frto(t.frto_enabled());
    let receiver = TcpReceiver::new(
        ReceiverSettings {
            ack_bytes: t.ack_bytes,
            delayed_ack: t.delayed_ack,
            delack_timeout_ps: t.delayed_ack_timeout.0,
            ecn: t.ecn,
            mss: t.mss,
            sack: t.sack_enabled(),
            dctcp_echo: matches!(settings.cc, Some(CcConfig::Dctcp(_))),
            dsack: t.dsack_enabled(),
        },
        policy,
    );
    let handshake = t.handshake.then(|| {
        Box::new(Handshake::new(HandshakeSettings {
            syn_bytes: t.ack_bytes,
            ect_on_syn: t.ect_on_syn,
            initial_rto_ps: t.initial_rto.0,
            max_rto_ps: t.max_rto.0,
            syn_retries: t.syn_retries.unwrap_or(DEFAULT_SYN_RETRIES),
            priority: settings.priority,
        }))
    });
    TcpConnection { sender, receiver, handshake }
}

/// ECN on one side with nothing on the other is refused (a setting without effect): a flow that
/// negotiates ECN (`tcp.ecn`; its data is ECT) none of whose paths crosses a port that marks CE
/// (a queue with `ecn = true`, a `ce_threshold` or `decbit` hook), and a queue's `ecn = true` on
/// ports no ECN-capable flow crosses. Paths are those of every flow and every pair of an arrival
/// process, at the start and after each route change (and the reverse path too when the SYN-ACK
/// carries ECT, `ect_on_syn`): a setting is refused only when no packet could ever meet it.
/// Ports are numbered as the build makes them: link i's a->b port is 2i, its b->a port 2i + 1.
fn check_ecn_pairs(sc: &Scenario, index: &FxHashMap<&str, u32>, router: &mut Router, rules: &[RouteRule], change_times: &[SimTime]) -> Result<(), (String, String)> {
    let ect_flow = |s: &FlowSettings| s.transport == TransportKind::Tcp && s.tcp.ecn;
    let queues_mark = sc.links.iter().any(|l| [&l.queue, &l.queue_ab, &l.queue_ba].into_iter().flatten().any(|q| q.marks_ecn()));
    let any_ect = sc.flows.iter().any(|f| ect_flow(&f.settings)) || sc.arrivals.iter().any(|a| ect_flow(&a.settings));
    if sc.links.iter().any(|l| l.hooks.iter().chain(&l.hooks_ab).chain(&l.hooks_ba).any(marks_ce)) {
        check_ce_hooks_are_read(sc, index, router, rules, change_times)?;
    }
    if !queues_mark && !any_ect {
        return Ok(());
    }
    let marks: Vec<bool> = sc
        .links
        .iter()
        .flat_map(|l| {
            let hook_marks = |extra: &[crate::port_hooks::HookConfig]| l.hooks.iter().chain(extra).any(marks_ce);
            let q = |own: &Option<QueueConfig>| own.as_ref().or(l.queue.as_ref()).is_some_and(|q| q.marks_ecn());
            [q(&l.queue_ab) || hook_marks(&l.hooks_ab), q(&l.queue_ba) || hook_marks(&l.hooks_ba)]
        })
        .collect();
    let mut crossed = vec![false; marks.len()];
    // Marks every port an ECT packet of (s, d) could cross; true if one of them marks CE.
    let mut cross = |s: u32, d: u32, settings: &FlowSettings, router: &mut Router| -> bool {
        let mut met = false;
        for_each_port_on_paths(router, rules, change_times, s, d, settings.tcp.ect_on_syn, |p| {
            crossed[p as usize] = true;
            met |= marks[p as usize];
        });
        met
    };
    let no_marker = "has no effect: no port on the flow's path marks ECN-capable packets; expected a queue with ecn = true or a ce_threshold (or decbit) hook on the path, or no ecn";
    for (i, f) in sc.flows.iter().enumerate() {
        if ect_flow(&f.settings) && !cross(index[f.src.as_str()], index[f.dst.as_str()], &f.settings, router) {
            return Err((format!("flows[{i}].tcp.ecn"), no_marker.into()));
        }
    }
    for (i, a) in sc.arrivals.iter().enumerate() {
        if !ect_flow(&a.settings) {
            continue;
        }
        let mut met = false;
        for s in a.src.names() {
            for d in a.dst.names() {
                met |= cross(index[s], index[d], &a.settings, router);
            }
        }
        if !met {
            return Err((format!("arrivals[{i}].tcp.ecn"), no_marker.replace("the flow's path", "any transfer's path")));
        }
    }
    for (i, l) in sc.links.iter().enumerate() {
        let (ab, ba) = (crossed[2 * i], crossed[2 * i + 1]);
        for (q, field, applies) in [
            (&l.queue, "queue", (l.queue_ab.is_none() && ab) || (l.queue_ba.is_none() && ba)),
            (&l.queue_ab, "queue_ab", ab),
            (&l.queue_ba, "queue_ba", ba),
        ] {
            if q.as_ref().is_some_and(|q| q.marks_ecn()) && !applies {
                return Err((
                    format!("links[{i}].{field}.ecn"),
                    "has no effect: no ECN-capable flow (tcp.ecn = true) crosses this queue, so it would only ever drop; expected ecn = false, or ECN on a flow through it".into(),
                ));
            }
        }
    }
    Ok(())
}

/// Calls `visit` with every port a packet from node `s` to node `d` crosses under the routes in
/// force at t = 0 and after each route change, then (with `reverse`) every port of the way back:
/// the walk both ECN checks share (`check_ecn_pairs`, `check_ce_hooks_are_read`). A port can be
/// visited more than once; a time at which the pair has no path adds nothing.
fn for_each_port_on_paths(router: &mut Router, rules: &[RouteRule], change_times: &[SimTime], s: u32, d: u32, reverse: bool, mut visit: impl FnMut(u32)) {
    for t in std::iter::once(0).chain(change_times.iter().copied()) {
        let fwd = router.path(s, d, rules, t).unwrap_or_default();
        let rev = if reverse { router.path(d, s, rules, t).unwrap_or_default() } else { Vec::new() };
        fwd.into_iter().chain(rev).for_each(&mut visit);
    }
}

/// A port hook that marks CE (the DECbit / ATN bit and the ECN codepoint of ECT packets).
fn marks_ce(h: &crate::port_hooks::HookConfig) -> bool {
    matches!(h.kind(), "ce_threshold" | "decbit")
}

/// A CE-marking hook (`ce_threshold`, `decbit`) changes only what a flow that reads the marks
/// does: TCP with ECN (the receiver echoes the CE codepoint of ECT data, RFC 3168 s6.1.3) or an
/// ATN credit receiver (it counts the CE bit of data packets, ATN WP/267 s5.4). On a port that
/// no such flow's data crosses it changes nothing but a counter, so it is refused, as the
/// `eca_load` and `rbcc` hooks are without their readers.
fn check_ce_hooks_are_read(sc: &Scenario, index: &FxHashMap<&str, u32>, router: &mut Router, rules: &[RouteRule], change_times: &[SimTime]) -> Result<(), (String, String)> {
    let reads_ce = |s: &FlowSettings| s.transport == TransportKind::Tcp && (s.tcp.ecn || s.tcp.receiver.as_ref().is_some_and(|r| r.kind() == "atn"));
    let mut read = vec![false; 2 * sc.links.len()];
    let mut cross = |s: u32, d: u32, settings: &FlowSettings, router: &mut Router| {
        // A SYN-ACK sent ECT (`tcp.ect_on_syn`) is the one reverse packet whose mark is read.
        let reverse = settings.tcp.ecn && settings.tcp.ect_on_syn;
        for_each_port_on_paths(router, rules, change_times, s, d, reverse, |p| read[p as usize] = true);
    };
    for f in sc.flows.iter().filter(|f| reads_ce(&f.settings)) {
        cross(index[f.src.as_str()], index[f.dst.as_str()], &f.settings, router);
    }
    for a in sc.arrivals.iter().filter(|a| reads_ce(&a.settings)) {
        for s in a.src.names() {
            for d in a.dst.names() {
                cross(index[s], index[d], &a.settings, router);
            }
        }
    }
    let unread = "has no effect: no flow that reads congestion marks (tcp.ecn = true, or receiver = \"atn\") sends data through this port, so the marks would only be counted; expected such a flow through it, or no marking hook";
    for (i, l) in sc.links.iter().enumerate() {
        let (ab, ba) = (read[2 * i], read[2 * i + 1]);
        for (hooks, name, applies) in [(&l.hooks, "hooks", ab || ba), (&l.hooks_ab, "hooks_ab", ab), (&l.hooks_ba, "hooks_ba", ba)] {
            if let Some(j) = hooks.iter().position(marks_ce) {
                if !applies {
                    return Err((format!("links[{i}].{name}[{j}]"), unread.into()));
                }
            }
        }
    }
    Ok(())
}

