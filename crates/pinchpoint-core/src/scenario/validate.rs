//! Checks types cannot express: names exist and are unique, quantities are in range, the
//! topology is connected, workloads fit their transport. Each problem comes with its field path.

//!
//! Ranges (documented in `docs/scenario.md` under "Ranges"): rates 1 bit/s to 10^15 bit/s,
//! durations up to 10^6 s, packet and segment sizes 1 to 10^6 bytes, and the per-algorithm
//! ranges in each config's `Validate` impl. Together they keep every serialisation time, timer
//! and event time inside the 64-bit picosecond clock, so no arithmetic on user quantities can
//! wrap or saturate.

use super::schema::*;
use crate::queue::QueueConfig;
use crate::registry::FieldError;
use crate::sim::units::Rate;
use crate::sim::PS_PER_S;
// Fx rather than SipHash: keys are the scenario's own names (see `build`).
use rustc_hash::FxHashMap as HashMap;
use std::fmt;

type Problem = (String, String);

/// Largest packet, segment or datagram, bytes.
pub const MAX_PACKET_BYTES: u64 = 1_000_000;
/// Largest initial window, segments.
pub const MAX_INIT_CWND_PKTS: u32 = 1_000_000;

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T, Problem> {
    Err((path.into(), msg.into()))
}

/// Prefixes a config's field error with where the config sits.
fn at(path: &str) -> impl Fn(FieldError) -> Problem + '_ {
    move |e| (format!("{path}.{}", e.field), e.message)
}

fn check_queue(q: &QueueConfig, path: &str) -> Result<(), Problem> {
    q.validate().map_err(at(path))
}

/// A rate of at least 1 bit/s (the upper bound is the unit's).
// The field paths below are `format_args!`, made into text only for an error: formatting one
// for every link and flow cost about 0.1 CPU s per 100,000 flows (issue 13).
fn check_rate(path: fmt::Arguments, r: Rate) -> Result<(), Problem> {
    if r.0.is_nan() || r.0 < 1.0 {
        return err(path.to_string(), format!("expected a positive rate of at least 1 bit/s, got {} bit/s", r.0));
    }
    Ok(())
}

fn check_count(path: fmt::Arguments, v: u64, lo: u64, hi: u64) -> Result<(), Problem> {
    if v < lo || v > hi {
        return err(path.to_string(), format!("expected {lo} to {hi}, got {v}"));
    }
    Ok(())
}

/// A name must have something to show: not empty, and no space at either end (" a" and "a"
/// would print alike in every table).
fn check_name(path: fmt::Arguments, name: &str) -> Result<(), Problem> {
    if name.trim().is_empty() {
        return err(path.to_string(), format!("expected a non-empty name, got '{name}'"));
    }
    if name.trim() != name {
        return err(path.to_string(), format!("expected a name without spaces at either end, got '{name}'"));
    }
    Ok(())
}

/// Validates a parsed scenario.
pub fn validate(sc: &Scenario) -> Result<(), Problem> {
    if sc.simulation.duration.0 == 0 {
        return err("simulation.duration", "expected a positive duration");
    }
    check_count(format_args!("simulation.max_live_packets"), sc.simulation.max_live_packets, 1, 1_000_000_000)?;
    check_count(format_args!("simulation.max_shaper_pkts"), sc.simulation.max_shaper_pkts, 1, 1_000_000_000)?;
    if let Some(iv) = sc.metrics.series_interval {
        // Longer than the run, the series would hold only its sample at t = 0.
        if iv.0 == 0 || iv.0 > sc.simulation.duration.0 {
            return err("metrics.series_interval", format!("expected a positive interval of at most simulation.duration ({} s)", sc.simulation.duration.secs()));
        }
        // Every sample writes one row per flow and per port.
        let samples = sc.simulation.duration.0 / iv.0 + 1;
        let per_sample = (sc.flows.len() + 2 * sc.links.len()) as u64;
        let rows = samples.saturating_mul(per_sample);
        if rows > MAX_SERIES_ROWS {
            return err(
                "metrics.series_interval",
                format!(
                    "{samples} samples of {per_sample} flows and ports would write {rows} series rows, more than {MAX_SERIES_ROWS}; use an interval of at least {} s",
                    (sc.simulation.duration.0 as f64 * per_sample as f64 / MAX_SERIES_ROWS as f64 / PS_PER_S as f64)
                ),
            );
        }
    }
    if let Some(iv) = sc.metrics.rate_interval {
        if iv.0 == 0 || iv.0 > sc.simulation.duration.0 {
            return err("metrics.rate_interval", format!("expected a positive interval of at most simulation.duration ({} s)", sc.simulation.duration.secs()));
        }
        // Each interval writes one row per active flow.
        let rows = (sc.simulation.duration.0 / iv.0).saturating_mul(sc.flows.len() as u64);
        if rows > MAX_SERIES_ROWS {
            return err("metrics.rate_interval", format!("{rows} interval rows would exceed {MAX_SERIES_ROWS}; use a longer interval"));
        }
    }
    if sc.nodes.is_empty() {
        return err("nodes", "expected at least one node");
    }
    let mut names: HashMap<&str, usize> = HashMap::default();
    for (i, n) in sc.nodes.iter().enumerate() {
        check_name(format_args!("nodes[{i}].name"), &n.name)?;
        // Ports are named 'from->to' (results, queue_trace, capture, sweep paths): a node
        // named 'a->b' would give two ports one name.
        if n.name.contains("->") {
            return err(format!("nodes[{i}].name"), format!("expected a name without '->' (ports are named 'from->to'), got '{}'", n.name));
        }
        if names.insert(&n.name, i).is_some() {
            return err(format!("nodes[{i}].name"), format!("duplicate node name '{}'", n.name));
        }
    }
    let node = |path: fmt::Arguments, name: &str| node_index(&names, path, name);
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); sc.nodes.len()];
    // The link joining each pair of nodes, either orientation.
    let mut pairs: HashMap<(usize, usize), usize> = HashMap::with_capacity_and_hasher(sc.links.len(), Default::default());
    let any_wtp = sc.flows.iter().any(|f| f.settings.wtp.is_some()) || sc.arrivals.iter().any(|a| a.settings.wtp.is_some());
    let any_trump = sc.flows.iter().any(|f| f.settings.transport == TransportKind::Trump);
    for (i, l) in sc.links.iter().enumerate() {
        let a = node(format_args!("links[{i}].a"), &l.a)?;
        let b = node(format_args!("links[{i}].b"), &l.b)?;
        if let Some(Err((field, expected))) = l.loss.as_ref().map(|c| c.validate()) {
            return err(format!("links[{i}].loss.{field}"), expected);
        }
        if a == b {
            return err(format!("links[{i}].b"), format!("a link must join two different nodes, got '{}' twice", l.a));
        }
        // Ports are named by their ends ('r->b'), routes pick the first port towards a
        // neighbour and the results are keyed by port name: a second link between the same
        // two nodes would give duplicate names and carry no traffic.
        if let Some(j) = pairs.insert((a.min(b), a.max(b)), i) {
            return err(format!("links[{i}]"), format!("duplicate link: links[{j}] already joins '{}' and '{}' (one link per pair of nodes)", l.a, l.b));
        }
        check_rate(format_args!("links[{i}].rate"), l.rate)?;
        if let Some(r) = l.rate_ba {
            check_rate(format_args!("links[{i}].rate_ba"), r)?;
        }
        if l.queue.is_some() && l.queue_ab.is_some() && l.queue_ba.is_some() {
            return err(format!("links[{i}].queue"), "has no effect: queue_ab and queue_ba set the queues of both ports (remove queue, or one of the two)");
        }
        for (q, name) in [(&l.queue, "queue"), (&l.queue_ab, "queue_ab"), (&l.queue_ba, "queue_ba")] {
            if let Some(q) = q {
                check_queue(q, &format!("links[{i}].{name}"))?;
            }
        }
        for (hooks, name) in [(&l.hooks, "hooks"), (&l.hooks_ab, "hooks_ab"), (&l.hooks_ba, "hooks_ba")] {
            for (j, h) in hooks.iter().enumerate() {
                h.validate().map_err(at(&format!("links[{i}].{name}[{j}]")))?;
                // Two hooks only compute a value for senders to read: without such a sender
                // they change nothing (as flows[].wtp without an eca_load hook is refused).
                if h.kind() == "eca_load" && !any_wtp {
                    return err(format!("links[{i}].{name}[{j}]"), "has no effect: no flow has a WTP shaper (flows[].wtp) to follow the load it reports; expected a flow with wtp, or no eca_load hook");
                }
                if h.kind() == "rbcc" && !any_trump {
                    return err(format!("links[{i}].{name}[{j}]"), "has no effect: no flow runs transport = \"trump\" to read the rates it computes; expected a TRUMP flow, or no rbcc hook");
                }
            }
        }
        adj[a].push(b);
        adj[b].push(a);
    }
    // Connectivity: every node reachable from the first.
    let mut seen = vec![false; sc.nodes.len()];
    let mut stack = vec![0usize];
    seen[0] = true;
    while let Some(u) = stack.pop() {
        for &v in &adj[u] {
            if !seen[v] {
                seen[v] = true;
                stack.push(v);
            }
        }
    }
    if let Some(k) = seen.iter().position(|s| !s) {
        return err(
            format!("nodes[{k}]"),
            format!("the topology is disconnected: node '{}' cannot be reached from '{}'", sc.nodes[k].name, sc.nodes[0].name),
        );
    }
    let duration = sc.simulation.duration;
    for (i, r) in sc.routes.iter().enumerate() {
        before_end(format_args!("routes[{i}].at"), r.at, duration, "the route change would never happen")?;
        let n = node(format_args!("routes[{i}].node"), &r.node)?;
        node(format_args!("routes[{i}].dst"), &r.dst)?;
        let h = node(format_args!("routes[{i}].next_hop"), &r.next_hop)?;
        if !adj[n].contains(&h) {
            return err(format!("routes[{i}].next_hop"), format!("'{}' is not a neighbour of '{}'", r.next_hop, r.node));
        }
    }
    let ctx = FlowCheck {
        names: &names,
        priority_queue: sc.links.iter().any(|l| link_queues(l).any(|q| matches!(q, QueueConfig::Priority(_)))),
        eca_load: sc.links.iter().any(|l| l.hooks.iter().chain(&l.hooks_ab).chain(&l.hooks_ba).any(|h| h.kind() == "eca_load")),
    };
    let mut flow_names: HashMap<&str, usize> = HashMap::default();
    for (i, f) in sc.flows.iter().enumerate() {
        check_name(format_args!("flows[{i}].name"), &f.name)?;
        if flow_names.insert(&f.name, i).is_some() {
            return err(format!("flows[{i}].name"), format!("duplicate flow name '{}'", f.name));
        }
        check_flow(sc, &ctx, f, &format!("flows[{i}]"))?;
        before_end(format_args!("flows[{i}].start"), f.start, duration, "the flow would never start")?;
        // The start is drawn from [start, start + start_jitter): past the end of the run, a
        // draw there would leave the flow silent.
        if let Some(j) = f.start_jitter {
            if f.start.0.saturating_add(j.0) > duration.0 {
                return err(
                    format!("flows[{i}].start_jitter"),
                    format!(
                        "expected start + start_jitter at most the end of the run (simulation.duration = {} s), got {} s + {} s: the flow could start after the run has ended",
                        duration.secs(),
                        f.start.secs(),
                        j.secs()
                    ),
                );
            }
        }
    }
    crate::traffic::arrivals::engine::validate(sc, &|f, p| check_flow(sc, &ctx, f, p))?;
    // The shaper bound applies to flows with a shaper (`shaper` or `wtp`); the default passes.
    if sc.simulation.max_shaper_pkts != DEFAULT_MAX_SHAPER_PKTS
        && !sc.flows.iter().any(|f| f.shaper.is_some() || f.settings.wtp.is_some())
        && !sc.arrivals.iter().any(|a| a.settings.wtp.is_some())
    {
        return err("simulation.max_shaper_pkts", "has no effect: no flow has a shaper (shaper or wtp); expected no max_shaper_pkts");
    }
    // Port names only when something names a port (400,000 strings at 100,000 flows).
    let port_names: Vec<String> = if sc.metrics.queue_trace.is_empty() && sc.metrics.capture.is_empty() {
        Vec::new()
    } else {
        sc.links.iter().flat_map(|l| [format!("{}->{}", l.a, l.b), format!("{}->{}", l.b, l.a)]).collect()
    };
    for (list, name) in [(&sc.metrics.queue_trace, "queue_trace"), (&sc.metrics.capture, "capture")] {
        for (i, q) in list.iter().enumerate() {
            if !port_names.contains(q) {
                return err(format!("metrics.{name}[{i}]"), format!("unknown port '{q}' (ports are named 'from->to')"));
            }
            if let Some(j) = list[..i].iter().position(|other| other == q) {
                return err(format!("metrics.{name}[{i}]"), format!("port '{q}' is listed twice (also at [{j}]); expected each port once"));
            }
        }
    }
    Ok(())
}

/// A time at which something starts must come before the end of the run (`simulation.duration`;
/// `stop_when_done` only ends a run earlier): at or after it, the thing never happens.
pub(crate) fn before_end(path: fmt::Arguments, t: crate::sim::units::Duration, duration: crate::sim::units::Duration, what: &str) -> Result<(), Problem> {
    if t >= duration {
        return err(path.to_string(), format!("expected a time before the end of the run (simulation.duration = {} s), got {} s: {what}", duration.secs(), t.secs()));
    }
    Ok(())
}

/// The queue configs in force on a link's two ports (a port with no queue given has the default
/// drop-tail queue, not listed).
pub(crate) fn link_queues(l: &LinkConfig) -> impl Iterator<Item = &QueueConfig> {
    [l.queue_ab.as_ref().or(l.queue.as_ref()), l.queue_ba.as_ref().or(l.queue.as_ref())].into_iter().flatten()
}

/// The index of node `name`, or an error at `path`.
fn node_index(names: &HashMap<&str, usize>, path: fmt::Arguments, name: &str) -> Result<usize, Problem> {
    names.get(name).copied().ok_or_else(|| (path.to_string(), format!("unknown node '{name}' (declare it under [[nodes]])")))
}

/// What every flow's check reads of the whole scenario, found once: scanning the links for each
/// flow would make validation quadratic in flows.
struct FlowCheck<'a> {
    names: &'a HashMap<&'a str, usize>,
    /// Some port has a priority queue (a flow's `priority` is read only there).
    priority_queue: bool,
    /// Some port has an `eca_load` hook (the load a `wtp` shaper follows).
    eca_load: bool,
}

/// `tcp.slow_start_after_idle` restarts the window when the sender sends again after more than
/// an RTO with nothing in flight. It is refused where that can never happen or never acts:
/// - a bulk workload always has data waiting, so something is always in flight until the end;
/// - a file workload offers everything at the start: once all is acknowledged the flow is
///   complete and never sends again (each transfer of `[[arrivals]]` is such a flow, on its own
///   connection);
///
/// A controller that cannot restart its window ("bbr", "none") refuses it in its own
/// `CcSettings::validate`.
///
/// The message workloads (cbr, poisson, on_off, square_wave) are accepted: whether their gaps
/// ever exceed the RTO with everything acknowledged depends on the run.
fn check_slow_start_after_idle(f: &FlowConfig, p: &str) -> Result<(), Problem> {
    let field = format!("{p}.tcp.slow_start_after_idle");
    let pausing = "expected a workload that pauses (cbr, poisson, on_off, square_wave), or no slow_start_after_idle";
    match &f.workload {
        WorkloadConfig::Bulk => err(field, format!("has no effect with a bulk workload: the sender always has data in flight and never sends after an idle period; {pausing}")),
        WorkloadConfig::File(_) => err(field, format!("has no effect with a file workload: all of it is offered at the start and the flow completes when it is acknowledged, so it never sends after an idle period; {pausing}")),
        _ => Ok(()),
    }
}

/// Checks one flow's settings; `p` is where it sits (`flows[3]`, or `arrivals[0]` for the flow
/// settings of an arrival process).
fn check_flow(sc: &Scenario, ctx: &FlowCheck, f: &FlowConfig, p: &str) -> Result<(), Problem> {
    let node = |path: fmt::Arguments, name: &str| node_index(ctx.names, path, name);
    let s = node(format_args!("{p}.src"), &f.src)?;
    let d = node(format_args!("{p}.dst"), &f.dst)?;
    if s == d {
        return err(format!("{p}.dst"), "expected a destination different from the source");
    }
    for (idx, which) in [(s, "src"), (d, "dst")] {
        if sc.nodes[idx].kind != NodeKind::Host {
            return err(format!("{p}.{which}"), format!("'{}' is a router; flows run between hosts", sc.nodes[idx].name));
        }
    }
    // Any window transport pulls from any workload; datagrams need a message size; TFRC
    // sends for the whole run and TRUMP carries one file.
    if let Err(e) = f.workload.validate() {
        return err(format!("{p}.workload.{}", e.field), e.expected);
    }
    let messages = match &f.workload {
        WorkloadConfig::Cbr(c) => Some((c.rate, c.packet_size)),
        WorkloadConfig::Poisson(c) => Some((c.rate, c.packet_size)),
        WorkloadConfig::OnOff(c) => Some((c.rate, c.packet_size)),
        WorkloadConfig::SquareWave(c) => Some((c.rate, c.packet_size)),
        _ => None,
    };
    if let Some((rate, packet_size)) = messages {
        check_count(format_args!("{p}.workload.packet_size"), packet_size.0, 1, MAX_PACKET_BYTES)?;
        check_rate(format_args!("{p}.workload.rate"), rate)?;
        // The mean gap between messages must fit the clock: at most 10^6 s.
        let min_bps = packet_size.0 as f64 * 8.0 / crate::sim::units::MAX_DURATION_S;
        if rate.0 < min_bps {
            return err(
                format!("{p}.workload.rate"),
                format!("expected at least {min_bps} bit/s for {}-byte packets (one packet per 10^6 s), got {} bit/s", packet_size.0, rate.0),
            );
        }
    }
    match f.settings.transport {
        TransportKind::Udp if !f.workload.has_messages() => {
            return err(format!("{p}.workload.kind"), format!("expected a workload with a packet_size for transport 'udp' (cbr, poisson, on_off, square_wave), got '{}'", f.workload.kind()));
        }
        TransportKind::Tfrc if !matches!(f.workload, WorkloadConfig::Bulk) => {
            return err(format!("{p}.workload.kind"), format!("expected bulk for transport 'tfrc', got '{}'", f.workload.kind()));
        }
        TransportKind::Trump if !matches!(f.workload, WorkloadConfig::File(_)) => {
            return err(format!("{p}.workload.kind"), format!("expected file for transport 'trump', got '{}'", f.workload.kind()));
        }
        _ => {}
    }
    if f.settings.transport == TransportKind::Tcp {
        f.settings.tcp.validate().map_err(|e| (format!("{p}.tcp.{}", e.field), e.message))?;
        if let Some(cc) = &f.settings.cc {
            let t = &f.settings.tcp;
            let facts = crate::transport::tcp::cc::TcpFacts { ecn: t.ecn, mss: t.mss, slow_start_after_idle: t.slow_start_after_idle, init_cwnd_pkts: t.init_cwnd_pkts, pacing: t.pacing, prr: t.prr };
            cc.validate(&facts).or_else(|e| err(format!("{p}.{}", e.field), e.message))?;
        }
        if f.settings.tcp.slow_start_after_idle {
            check_slow_start_after_idle(f, p)?;
        }
    }
    if let (TransportKind::Udp | TransportKind::Tfrc | TransportKind::Trump, Some(field)) = (f.settings.transport, f.settings.tcp.handshake_settings_written()) {
        return err(format!("{p}.tcp.{field}"), format!("the TCP connection set-up has no effect on transport '{}': expected transport = \"tcp\"", f.settings.transport.name()));
    }
    if f.settings.transport != TransportKind::Tcp {
        // Only a TCP connection reads the tcp table. A table equal to the defaults is let
        // through: the resolved scenario writes one for every flow, and it changes nothing.
        if f.settings.tcp != TcpConfig::default() {
            return err(format!("{p}.tcp"), format!("TCP settings have no effect on transport '{}': expected transport = \"tcp\" (or no tcp table)", f.settings.transport.name()));
        }
        if f.settings.transport == TransportKind::Udp && f.settings.cc.is_some() {
            return err(format!("{p}.cc"), "a congestion controller has no effect on a UDP flow (unresponsive datagrams; cc applies to transport = \"tcp\")");
        }
    }
    if f.trump.is_some() && f.settings.transport != TransportKind::Trump {
        return err(format!("{p}.trump"), "TRUMP settings have no effect unless transport = \"trump\"");
    }
    if f.settings.transport == TransportKind::Trump {
        if f.settings.cc.is_some() {
            return err(format!("{p}.cc"), "a congestion controller has no effect on a TRUMP flow (its rate comes from RBCC routers)");
        }
        let t = f.trump.clone().unwrap_or_default();
        if t.packet_size.0 == 0 || t.packet_size.0 > u32::MAX as u64 / 2 {
            return err(format!("{p}.trump.packet_size"), "expected a positive size");
        }
        if let Some(m) = t.packet_size_max {
            if m.0 < t.packet_size.0 || m.0 > u32::MAX as u64 / 2 {
                return err(format!("{p}.trump.packet_size_max"), "expected a size at least packet_size");
            }
        }
        if t.ack_size.0 == 0 {
            return err(format!("{p}.trump.ack_size"), "expected a positive size");
        }
        if t.sack_every == 0 {
            return err(format!("{p}.trump.sack_every"), "expected at least 1 packet per acknowledgement");
        }
        if let Some(r) = t.desired_rate {
            if r.0.is_nan() || r.0 <= 0.0 {
                return err(format!("{p}.trump.desired_rate"), "expected a positive rate");
            }
        }
        if t.setup_interval.0 == 0 {
            return err(format!("{p}.trump.setup_interval"), "expected a positive duration");
        }
    }
    match (&f.tfrc, f.settings.transport) {
        (Some(c), TransportKind::Tfrc) => {
            if let Err((field, what)) = c.validate() {
                return err(format!("{p}.tfrc.{field}"), what);
            }
        }
        (Some(_), _) => return err(format!("{p}.tfrc"), "TFRC settings need transport = \"tfrc\""),
        _ => {}
    }
    if f.settings.transport == TransportKind::Tfrc && f.settings.cc.is_some() {
        return err(format!("{p}.cc"), "a TFRC flow has no window controller (cc applies to transport = \"tcp\")");
    }
    // Priority is read only by priority queues; 0 (the default) passes.
    if f.settings.priority != 0 && !ctx.priority_queue {
        return err(format!("{p}.priority"), "has no effect: no port has a priority queue (queue kind = \"priority\")");
    }
    if let Some(w) = &f.settings.wtp {
        if f.shaper.is_some() {
            return err(format!("{p}.wtp"), "a flow has either a fixed `shaper` or a `wtp` shaper, not both");
        }
        if let Err((field, what)) = w.validate() {
            return err(format!("{p}.wtp.{field}"), what);
        }
        // The WTP rate follows the load an ECA router writes on the packets; with none, the
        // shaper stays at its unlimited starting rate (only load reports of 0 flow back).
        if !ctx.eca_load {
            return err(format!("{p}.wtp"), "has no effect: no port has an eca_load hook to report the load WTP follows");
        }
    }
    if let Some(sh) = &f.shaper {
        check_rate(format_args!("{p}.shaper.rate"), sh.rate)?;
        if sh.bucket.0 == 0 {
            return err(format!("{p}.shaper.bucket"), "expected a positive bucket size");
        }
    }
    Ok(())
}

