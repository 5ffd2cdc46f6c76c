//! Checks types cannot express: names exist and are unique, quantities are in range, the
//! topology is connected, workloads fit their transport. Each problem comes with its field path.

use super::schema::*;
use crate::queue::QueueConfig;
use std::collections::HashMap;

type Problem = (String, String);

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T, Problem> {
    Err((path.into(), msg.into()))
}

fn check_queue(q: &QueueConfig, path: &str) -> Result<(), Problem> {
    if let QueueConfig::DropTail(d) = q {
        if d.limit.limit_pkts == Some(0) {
            return err(format!("{path}.limit_pkts"), "expected at least 1 packet");
        }
    }
    let own = match q {
        QueueConfig::Red(c) => c.validate(),
        QueueConfig::Codel(c) => c.validate(),
        QueueConfig::FqCodel(c) => c.validate(),
        QueueConfig::Pie(c) => c.validate(),
        _ => Ok(()),
    };
    own.or_else(|(field, msg)| err(format!("{path}.{field}"), msg))?;
    crate::queue::rda_fp::check_drop_policy(q).or_else(|(field, msg)| err(format!("{path}.{field}"), msg))
}

/// Validates a parsed scenario.
pub fn validate(sc: &Scenario) -> Result<(), Problem> {
    if sc.simulation.duration.0 == 0 {
        return err("simulation.duration", "expected a positive duration");
    }
    if let Some(iv) = sc.metrics.series_interval {
        if iv.0 == 0 {
            return err("metrics.series_interval", "expected a positive interval");
        }
    }
    if sc.nodes.is_empty() {
        return err("nodes", "expected at least one node");
    }
    let mut names: HashMap<&str, usize> = HashMap::new();
    for (i, n) in sc.nodes.iter().enumerate() {
        if n.name.is_empty() {
            return err(format!("nodes[{i}].name"), "expected a non-empty name");
        }
        if names.insert(&n.name, i).is_some() {
            return err(format!("nodes[{i}].name"), format!("duplicate node name '{}'", n.name));
        }
    }
    let node = |path: String, name: &str| -> Result<usize, Problem> {
        names.get(name).copied().ok_or((path, format!("unknown node '{name}' (declare it under [[nodes]])")))
    };
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); sc.nodes.len()];
    for (i, l) in sc.links.iter().enumerate() {
        let a = node(format!("links[{i}].a"), &l.a)?;
        let b = node(format!("links[{i}].b"), &l.b)?;
        if a == b {
            return err(format!("links[{i}].b"), format!("a link must join two different nodes, got '{}' twice", l.a));
        }
        if l.rate.0.is_nan() || l.rate.0 <= 0.0 {
            return err(format!("links[{i}].rate"), format!("expected a positive rate, got {} bit/s", l.rate.0));
        }
        if let Some(r) = l.rate_ba {
            if r.0.is_nan() || r.0 <= 0.0 {
                return err(format!("links[{i}].rate_ba"), format!("expected a positive rate, got {} bit/s", r.0));
            }
        }
        for (q, name) in [(&l.queue, "queue"), (&l.queue_ab, "queue_ab"), (&l.queue_ba, "queue_ba")] {
            if let Some(q) = q {
                check_queue(q, &format!("links[{i}].{name}"))?;
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
    for (i, r) in sc.routes.iter().enumerate() {
        let n = node(format!("routes[{i}].node"), &r.node)?;
        node(format!("routes[{i}].dst"), &r.dst)?;
        let h = node(format!("routes[{i}].next_hop"), &r.next_hop)?;
        if !adj[n].contains(&h) {
            return err(format!("routes[{i}].next_hop"), format!("'{}' is not a neighbour of '{}'", r.next_hop, r.node));
        }
    }
    let mut flow_names: HashMap<&str, usize> = HashMap::new();
    for (i, f) in sc.flows.iter().enumerate() {
        if flow_names.insert(&f.name, i).is_some() {
            return err(format!("flows[{i}].name"), format!("duplicate flow name '{}'", f.name));
        }
        let s = node(format!("flows[{i}].src"), &f.src)?;
        let d = node(format!("flows[{i}].dst"), &f.dst)?;
        if s == d {
            return err(format!("flows[{i}].dst"), "expected a destination different from the source");
        }
        for (idx, which) in [(s, "src"), (d, "dst")] {
            if sc.nodes[idx].kind != NodeKind::Host {
                return err(format!("flows[{i}].{which}"), format!("'{}' is a router; flows run between hosts", sc.nodes[idx].name));
            }
        }
        match (&f.workload, f.transport) {
            (WorkloadConfig::Bulk | WorkloadConfig::File { .. }, TransportKind::Tcp) => {}
            (WorkloadConfig::Bulk, TransportKind::Tfrc) => {}
            (WorkloadConfig::Cbr { rate, packet_size, .. } | WorkloadConfig::Poisson { rate, packet_size, .. }, TransportKind::Udp) => {
                if rate.0.is_nan() || rate.0 <= 0.0 {
                    return err(format!("flows[{i}].workload.rate"), "expected a positive rate");
                }
                if packet_size.0 == 0 {
                    return err(format!("flows[{i}].workload.packet_size"), "expected a positive size");
                }
            }
            (w, t) => {
                let wk = match w {
                    WorkloadConfig::Bulk => "bulk",
                    WorkloadConfig::File { .. } => "file",
                    WorkloadConfig::Cbr { .. } => "cbr",
                    WorkloadConfig::Poisson { .. } => "poisson",
                };
                let ok = match t {
                    TransportKind::Tcp => "bulk or file",
                    TransportKind::Udp => "cbr or poisson",
                    TransportKind::Tfrc => "bulk",
                };
                return err(format!("flows[{i}].workload.kind"), format!("expected {ok} for transport '{t:?}', got '{wk}'").to_lowercase());
            }
        }
        if f.transport == TransportKind::Tcp {
            if f.tcp.mss == 0 {
                return err(format!("flows[{i}].tcp.mss"), "expected a positive segment size");
            }
            if f.tcp.init_cwnd_pkts == 0 {
                return err(format!("flows[{i}].tcp.init_cwnd_pkts"), "expected at least 1 segment");
            }
            if f.tcp.dupack_threshold == 0 {
                return err(format!("flows[{i}].tcp.dupack_threshold"), "expected at least 1");
            }
            if f.tcp.packets_per_segment == 0 || f.tcp.packets_per_segment > f.tcp.mss {
                return err(format!("flows[{i}].tcp.packets_per_segment"), "expected 1 to mss");
            }
        }
        match (&f.tfrc, f.transport) {
            (Some(c), TransportKind::Tfrc) => {
                if let Err((field, what)) = c.validate() {
                    return err(format!("flows[{i}].tfrc.{field}"), what);
                }
            }
            (Some(_), _) => return err(format!("flows[{i}].tfrc"), "TFRC settings need transport = \"tfrc\""),
            _ => {}
        }
        if f.transport == TransportKind::Tfrc && f.cc.is_some() {
            return err(format!("flows[{i}].cc"), "a TFRC flow has no window controller (cc applies to transport = \"tcp\")");
        }
        if let Some(w) = &f.wtp {
            if f.shaper.is_some() {
                return err(format!("flows[{i}].wtp"), "a flow has either a fixed `shaper` or a `wtp` shaper, not both");
            }
            if let Err((field, what)) = w.validate() {
                return err(format!("flows[{i}].wtp.{field}"), what);
            }
        }
        if let Some(sh) = &f.shaper {
            if sh.rate.0 <= 0.0 {
                return err(format!("flows[{i}].shaper.rate"), "expected a positive rate");
            }
            if sh.bucket.0 == 0 {
                return err(format!("flows[{i}].shaper.bucket"), "expected a positive bucket size");
            }
        }
    }
    for (i, l) in sc.links.iter().enumerate() {
        for (list, hooks) in [("hooks", &l.hooks), ("hooks_ab", &l.hooks_ab), ("hooks_ba", &l.hooks_ba)] {
            for (j, h) in hooks.iter().enumerate() {
                if let crate::port_hooks::HookConfig::EcaLoad(c) = h {
                    if let Err((field, what)) = c.validate() {
                        return err(format!("links[{i}].{list}[{j}].{field}"), what);
                    }
                }
            }
        }
    }
    let port_names: Vec<String> = sc.links.iter().flat_map(|l| [format!("{}->{}", l.a, l.b), format!("{}->{}", l.b, l.a)]).collect();
    for (i, q) in sc.metrics.queue_trace.iter().enumerate() {
        if !port_names.contains(q) {
            return err(format!("metrics.queue_trace[{i}]"), format!("unknown port '{q}' (ports are named 'from->to')"));
        }
    }
    for (i, q) in sc.metrics.capture.iter().enumerate() {
        if !port_names.contains(q) {
            return err(format!("metrics.capture[{i}]"), format!("unknown port '{q}' (ports are named 'from->to')"));
        }
    }
    Ok(())
}
