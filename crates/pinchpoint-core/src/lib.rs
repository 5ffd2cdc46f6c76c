//! pinchpoint-core: a packet-level discrete-event network simulator for congestion-control
//! research. See `DESIGN.md` at the repository root for the architecture.
#![warn(missing_docs)]

pub mod flows;
pub mod metrics;
pub mod net;
pub mod port_hooks;
pub mod queue;
mod registry;
pub mod scenario;
pub mod shaper;
pub mod sim;
pub mod simulation;
pub mod traffic;
pub mod transport;

pub use scenario::{build::build, Scenario, ScenarioError};
pub use simulation::{Results, Simulation};

/// Parses, validates and builds a TOML scenario in one step.
pub fn load_toml(text: &str, origin: &str, seed: Option<u64>) -> Result<Simulation, ScenarioError> {
    let sc = scenario::from_toml_str(text, origin)?;
    build(&sc, seed, origin)
}
