//! A TCP connection not opened yet (issue 13, memory per idle flow). Until its start a TCP flow
//! holds a pointer to the recipe its connection will be built from, shared by every flow with
//! the same settings, instead of the connection itself (about 420 bytes); the connection is
//! built when the flow starts. Building draws from no shared random stream (the controller's
//! stream is derived from the seed and the flow's name), so building at the start instead of at
//! set-up changes no result.

use super::TcpConnection;
use crate::scenario::schema::FlowSettings;
use crate::transport::TransportReport;
use std::sync::Arc;

/// What the TCP connections of flows with equal settings are built from.
pub struct TcpRecipe {
    settings: FlowSettings,
    seed: u64,
    /// What a connection reports before its start: the same for every flow of the recipe
    /// (the report reads no random stream and no workload size).
    idle_report: TransportReport,
}

impl TcpRecipe {
    /// The recipe for flows with `settings` (validated) in a run with `seed`.
    pub fn new(settings: FlowSettings, seed: u64) -> Self {
        use crate::transport::Transport;
        let idle_report = crate::scenario::build::build_tcp(&settings, "", u64::MAX, seed).report();
        TcpRecipe { settings, seed, idle_report }
    }

    /// The settings the connections are built with.
    pub fn settings(&self) -> &FlowSettings {
        &self.settings
    }

    /// The connection of flow `flow_name` whose workload offers `total_bytes` in all
    /// (`u64::MAX`: unbounded).
    pub fn build(&self, flow_name: &(impl AsRef<str> + ?Sized), total_bytes: u64) -> TcpConnection {
        crate::scenario::build::build_tcp(&self.settings, flow_name, total_bytes, self.seed)
    }
}

/// A TCP flow before its start: the shared recipe, and whether its workload is finite (all a
/// flow is asked before it starts, with its report).
#[derive(Clone)]
pub struct PendingTcp {
    /// What the connection will be built from.
    pub recipe: Arc<TcpRecipe>,
    /// The workload is finite (a file).
    pub finite: bool,
}

impl PendingTcp {
    /// The counters of a connection that has not started.
    pub fn report(&self) -> TransportReport {
        self.recipe.idle_report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::cc::{CcConfig, CC_KINDS};
    use crate::transport::Transport;

    #[test]
    fn a_flow_that_has_not_started_reports_what_its_built_connection_reports() {
        // Results of a flow that never starts come from the recipe's report; they must be the
        // report of the connection the flow would have had (every controller: the initial
        // window, rate and counters do not depend on the flow's name or stream).
        for kind in CC_KINDS {
            let cc: CcConfig = serde_json::from_value(serde_json::json!(kind)).expect("a bare name is a config");
            let settings = FlowSettings { cc: Some(cc), ..Default::default() };
            let recipe = TcpRecipe::new(settings, 7);
            let pending = PendingTcp { recipe: Arc::new(recipe), finite: false };
            let built = pending.recipe.build("some flow", u64::MAX).report();
            assert_eq!(format!("{:?}", pending.report()), format!("{built:?}"), "{kind}");
        }
    }

    #[test]
    fn opening_a_pending_connection_builds_it_with_the_flows_total() {
        let recipe = Arc::new(TcpRecipe::new(FlowSettings::default(), 1));
        let mut t = crate::transport::AnyTransport::TcpPending(PendingTcp { recipe, finite: true });
        assert!(t.is_finite() && !t.is_complete());
        t.open("f", 10_000);
        let crate::transport::AnyTransport::Tcp(c) = &t else { panic!("still pending") };
        assert!(c.is_finite());
    }
}
