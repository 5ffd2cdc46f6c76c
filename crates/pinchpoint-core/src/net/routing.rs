//! Routes: every flow's forward and reverse paths are computed at build time (and again at each
//! timed route change) as lists of output ports. A packet carries the index of its route and of
//! its next hop, so forwarding is one array read (the route's id is where its ports start in the
//! arena, see `RouteArena`): no per-node table lookup and no hashing.
//!
//! Paths follow shortest-path trees (by hops or by delay, ties broken by link declaration
//! order), with explicit per-destination rules overriding the tree at the nodes they name.
//! A single-homed destination host is reached through its gateway's tree, so a dumbbell with
//! 10,000 receivers needs two shortest-path computations, not 10,000.
//!
//! Building is linear in flows: the port from a gateway back to a host and the explicit rules of
//! a (node, destination) pair are looked up in indexes made once per router, never by scanning a
//! gateway's port list (which grows with the hosts behind it) per flow. `Router::route_steps`
//! counts the work done so a test can check that.

use super::Node;
use crate::sim::SimTime;
// Fx rather than SipHash: keys are node and port ids, which nothing adversarial chooses
// (`path`, mostly its map lookups, was 7 % of the CPU time of loading a 30,000-flow dumbbell:
// `perf record`, issue 13).
use rustc_hash::FxHashMap as HashMap;
use std::collections::BinaryHeap;
use std::cmp::Reverse;

/// All routes of a run in one flat vector of port ids, each route's ports followed by an end
/// marker. A route's id is the index of its first port there, so the port at hop `h` is entry
/// `route + h`: one read per hop, without a table of (start, length) spans in between (issue 13:
/// that table was a second dependent load per hop and a share of the D1 misses at large N).
///
/// Every port id it holds is below the port count it was made with ([`Self::new`]; `add`
/// refuses any other), so the run loop indexes its ports with them unchecked.
#[derive(Debug)]
pub struct RouteArena {
    hops: Vec<u32>,
    /// The number of ports of the run: every port id in `hops` is below it.
    port_count: u32,
}

/// The entry after a route's last port.
const ROUTE_END: u32 = u32::MAX;

impl RouteArena {
    /// An empty arena for the routes of a run with `port_count` ports.
    pub fn new(port_count: u32) -> Self {
        RouteArena { hops: Vec::new(), port_count }
    }
    /// Stores a path (a list of port ids, each below the arena's port count) and returns its
    /// route id.
    pub fn add(&mut self, ports: &[u32]) -> u32 {
        // Not only a debug check: `port_unchecked`'s callers index the ports with these ids
        // (build time and route changes only, never per packet).
        assert!(ports.iter().all(|&p| p < self.port_count), "a route names a port beyond the {} ports", self.port_count);
        let start = self.hops.len() as u32;
        self.hops.extend_from_slice(ports);
        self.hops.push(ROUTE_END);
        start
    }
    /// Port at hop `hop` of route `route`, or None past the end. `hop` is at most the route's
    /// length (a packet's next hop: it stops at the end marker).
    #[inline]
    pub fn port(&self, route: u32, hop: u16) -> Option<u32> {
        let p = self.hops[route as usize + hop as usize];
        (p != ROUTE_END).then_some(p)
    }
    /// [`Self::port`] without the bounds check (the run loop's per-hop read). A port it returns
    /// is below the arena's port count ([`Self::new`]).
    ///
    /// # Safety
    ///
    /// `route` is a route id [`Self::add`] returned, and `hop` is at most that route's length
    /// (a packet's hop: it is advanced only past a port of its route, so it stops at the end
    /// marker).
    #[inline(always)]
    pub unsafe fn port_unchecked(&self, route: u32, hop: u16) -> Option<u32> {
        let i = route as usize + hop as usize;
        debug_assert!(i < self.hops.len(), "route {route} hop {hop} beyond the arena");
        // SAFETY: a route's entries, its end marker included, are `hops[route..=route + len]`
        // (`add` pushed them together), and the caller guarantees `hop <= len`.
        let p = unsafe { *self.hops.get_unchecked(i) };
        debug_assert!(p == ROUTE_END || p < self.port_count);
        (p != ROUTE_END).then_some(p)
    }
    /// Where hop `hop` of route `route` is stored, for a prefetch (`sim::prefetch`): nothing
    /// is read.
    #[inline]
    pub fn hop_addr(&self, route: u32, hop: u16) -> *const u32 {
        self.hops.as_ptr().wrapping_add(route as usize + hop as usize)
    }
    /// The ports of route `route`.
    pub fn ports(&self, route: u32) -> &[u32] {
        let rest = &self.hops[route as usize..];
        let len = rest.iter().position(|&p| p == ROUTE_END).expect("every route ends with the marker");
        &rest[..len]
    }
}

/// An explicit rule: at `node`, traffic for `dst` leaves by `port`, from `at` on.
#[derive(Clone, Copy, Debug)]
pub struct RouteRule {
    /// Node where the rule applies.
    pub node: u32,
    /// Destination it is for.
    pub dst: u32,
    /// Output port to use.
    pub port: u32,
    /// When it takes effect.
    pub at: SimTime,
}

/// Computes paths over a fixed topology.
pub struct Router<'a> {
    nodes: &'a [Node],
    /// Per port: (from, to, delay_ps).
    port_ends: Vec<(u32, u32, SimTime)>,
    by_delay: bool,
    trees: HashMap<u32, Vec<u32>>,
    /// Incoming ports of each node (ports whose far end is that node), in port order.
    incoming: Vec<Vec<u32>>,
    /// (from, to) -> the first port of `from` (in its port list order) that leads to `to`.
    first_port_to: HashMap<(u32, u32), u32>,
    /// Indexes into the rules last given to `path`, by (node, destination), in rule order;
    /// rebuilt when a different rule list is passed (keyed by its length and address).
    rule_index: HashMap<(u32, u32), Vec<usize>>,
    rule_index_of: Option<(usize, usize)>,
    /// Work counter: tree nodes settled, hops walked and index entries examined, for tests that
    /// check the cost of building grows linearly in flows.
    steps: u64,
}

const NO_PORT: u32 = u32::MAX;

impl<'a> Router<'a> {
    /// A router over `nodes` whose ports have the given (from, to, delay) ends.
    pub fn new(nodes: &'a [Node], port_ends: Vec<(u32, u32, SimTime)>, by_delay: bool) -> Self {
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
        for (p, &(_, to, _)) in port_ends.iter().enumerate() {
            incoming[to as usize].push(p as u32);
        }
        let mut first_port_to = HashMap::with_capacity_and_hasher(port_ends.len(), Default::default());
        for n in nodes {
            for &p in &n.ports {
                let (from, to, _) = port_ends[p as usize];
                first_port_to.entry((from, to)).or_insert(p);
            }
        }
        Router {
            nodes,
            port_ends,
            by_delay,
            trees: HashMap::default(),
            incoming,
            first_port_to,
            rule_index: HashMap::default(),
            rule_index_of: None,
            steps: 0,
        }
    }

    /// Work done so far (see the field): grows linearly in the number of paths asked for on a
    /// fixed topology shape.
    pub fn route_steps(&self) -> u64 {
        self.steps
    }

    fn index_rules(&mut self, rules: &[RouteRule]) {
        let key = (rules.as_ptr() as usize, rules.len());
        if self.rule_index_of == Some(key) {
            return;
        }
        self.rule_index.clear();
        for (k, r) in rules.iter().enumerate() {
            self.rule_index.entry((r.node, r.dst)).or_default().push(k);
        }
        self.rule_index_of = Some(key);
    }

    /// For every node, the port that leads one step closer to `root` (NO_PORT if none).
    fn tree(&mut self, root: u32) -> &Vec<u32> {
        if !self.trees.contains_key(&root) {
            let t = self.build_tree(root);
            self.trees.insert(root, t);
        }
        &self.trees[&root]
    }

    fn build_tree(&mut self, root: u32) -> Vec<u32> {
        // Dijkstra from the root over reversed ports (unit weights for hop routing). Nodes are
        // settled in (distance, discovery order) order, so ties go to the earlier-declared link.
        let n = self.nodes.len();
        let mut dist = vec![u64::MAX; n];
        let mut toward = vec![NO_PORT; n];
        let mut heap = BinaryHeap::new();
        let mut order = 0u64;
        dist[root as usize] = 0;
        heap.push(Reverse((0u64, order, root)));
        while let Some(Reverse((d, _, u))) = heap.pop() {
            if d > dist[u as usize] {
                continue;
            }
            // Do not route through hosts: a host forwards nothing (it may be a source only).
            if u != root && !self.nodes[u as usize].is_router {
                continue;
            }
            self.steps += 1 + self.incoming[u as usize].len() as u64;
            for &p in &self.incoming[u as usize] {
                let (from, _, delay) = self.port_ends[p as usize];
                let w = if self.by_delay { delay.max(1) } else { 1 };
                let nd = d + w;
                if nd < dist[from as usize] {
                    dist[from as usize] = nd;
                    toward[from as usize] = p;
                    order += 1;
                    heap.push(Reverse((nd, order, from)));
                }
            }
        }
        toward
    }

    /// The path from `src` to `dst` as a list of ports, honouring `rules` in force at `t`.
    /// Errors name the node where the path breaks or loops, and for a loop the explicit rule
    /// (index into `rules`) last followed into it.
    pub fn path(&mut self, src: u32, dst: u32, rules: &[RouteRule], t: SimTime) -> Result<Vec<u32>, RouteError> {
        let mut last_rule = None;
        self.path_inner(src, dst, rules, t, &mut last_rule).map_err(|message| RouteError { rule: last_rule, message })
    }

    fn path_inner(&mut self, src: u32, dst: u32, rules: &[RouteRule], t: SimTime, last_rule: &mut Option<usize>) -> Result<Vec<u32>, String> {
        self.index_rules(rules);
        // Root the tree at the destination's gateway when the destination is a single-homed host.
        let dnode = &self.nodes[dst as usize];
        let (root, last_port) = if !dnode.is_router && dnode.ports.len() == 1 {
            let p = dnode.ports[0];
            let gw = self.port_ends[p as usize].1;
            // The port from the gateway back to the destination (the first such in the
            // gateway's port order), from the index rather than a scan of the gateway's ports.
            let back = self
                .first_port_to
                .get(&(gw, dst))
                .copied()
                .ok_or_else(|| format!("no link from '{}' back to '{}'", self.nodes[gw as usize].name, dnode.name))?;
            (gw, Some(back))
        } else {
            (dst, None)
        };
        let mut path = Vec::new();
        let mut u = src;
        let limit = self.nodes.len() + 2;
        loop {
            if u == dst {
                return Ok(path);
            }
            self.steps += 1;
            // An explicit rule for (u, dst) in force at t: the latest one wins (the last listed
            // among equal times).
            let rule = match self.rule_index.get(&(u, dst)) {
                None => None,
                Some(ks) => {
                    self.steps += ks.len() as u64;
                    ks.iter().map(|&k| (k, &rules[k])).filter(|(_, r)| r.at <= t).max_by_key(|(_, r)| r.at)
                }
            };
            let by_rule = rule.is_some();
            let p = if let Some((k, r)) = rule {
                *last_rule = Some(k);
                r.port
            } else if u == root {
                match last_port {
                    Some(p) => p,
                    None => return Err(format!("no route from '{}' to '{}'", self.nodes[src as usize].name, dnode.name)),
                }
            } else {
                let p = self.tree(root)[u as usize];
                if p == NO_PORT {
                    return Err(format!(
                        "no route from '{}' to '{}' (stuck at '{}'): a route passes only through routers, hosts forward nothing (expected kind = \"router\" for a node that forwards)",
                        self.nodes[src as usize].name, dnode.name, self.nodes[u as usize].name
                    ));
                }
                p
            };
            path.push(p);
            if path.len() > limit {
                return Err(format!(
                    "routing loop between '{}' and '{}' (through '{}')",
                    self.nodes[src as usize].name, dnode.name, self.nodes[u as usize].name
                ));
            }
            u = self.port_ends[p as usize].1;
            // A host forwards nothing: the tree never passes through one, but the destination's
            // gateway (the root) or an explicit rule could lead into a host on the way.
            if u != dst && !self.nodes[u as usize].is_router {
                if !by_rule {
                    // The tree's step, not a rule's: the caller reports it at the flow.
                    *last_rule = None;
                }
                return Err(format!(
                    "the route from '{}' to '{}' passes through '{}', a host; hosts forward nothing (expected kind = \"router\" for a node that forwards)",
                    self.nodes[src as usize].name, dnode.name, self.nodes[u as usize].name
                ));
            }
        }
    }
}

/// Why no path exists.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteError {
    /// The explicit rule (index into the rules given) last followed before the failure; for a
    /// loop, the route that closed it.
    pub rule: Option<usize>,
    /// What went wrong.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_route_gives_back_its_ports_hop_by_hop_and_none_at_its_end() {
        let mut a = RouteArena::new(10);
        let paths: [&[u32]; 4] = [&[3, 1, 4], &[], &[1], &[5, 9, 2, 6, 5]];
        let ids: Vec<u32> = paths.iter().map(|p| a.add(p)).collect();
        for (id, path) in ids.iter().zip(paths) {
            assert_eq!(a.ports(*id), path);
            for (h, &p) in path.iter().enumerate() {
                assert_eq!(a.port(*id, h as u16), Some(p));
            }
            assert_eq!(a.port(*id, path.len() as u16), None);
        }
    }
}
