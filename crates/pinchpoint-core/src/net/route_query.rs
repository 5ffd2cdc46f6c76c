//! Read-only questions about a built simulation's routes, for tools outside the run loop (the
//! max-min optimum calculator asks which ports each flow crosses at a given instant).

use crate::sim::SimTime;
use crate::simulation::Simulation;

/// One flow's paths at an instant, as port indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowPaths {
    /// Flow name.
    pub flow: String,
    /// Ports from the source to the destination.
    pub forward: Vec<u32>,
    /// Ports from the destination back to the source.
    pub reverse: Vec<u32>,
}

impl Simulation {
    /// Every flow's forward and reverse port lists at time `t`, exactly as the engine would use
    /// them: the build-time routes before the first timed route change, and after a change the
    /// paths [`Simulation`]'s route recomputation produces (same router, same rules).
    pub fn paths_at(&self, t: SimTime) -> Vec<FlowPaths> {
        let changed = self.rules.iter().any(|r| r.at > 0 && r.at <= t);
        if !changed {
            return self
                .flows
                .iter()
                .map(|f| FlowPaths {
                    flow: f.name.clone(),
                    forward: self.routes.ports(f.fwd_route).to_vec(),
                    reverse: self.routes.ports(f.rev_route).to_vec(),
                })
                .collect();
        }
        // Mirror the engine's route recomputation (simulation.rs, recompute_routes) so the
        // calculator sees what packets will follow.
        let ends: Vec<(u32, u32, SimTime)> = self.ports.iter().map(|p| (p.from_node, p.to_node, p.delay_ps)).collect();
        let mut router = crate::net::routing::Router::new(&self.nodes, ends, self.route_by_delay);
        self.flows
            .iter()
            .map(|f| FlowPaths {
                flow: f.name.clone(),
                forward: router.path(f.src, f.dst, &self.rules, t).expect("route validated at build"),
                reverse: router.path(f.dst, f.src, &self.rules, t).expect("route validated at build"),
            })
            .collect()
    }
}
