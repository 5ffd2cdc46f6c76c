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

/// Revision of the simulation model: what a run of a given scenario and seed produces. Bumped
/// whenever a change moves results where the scenario did not change; it is part of every
/// run key (`pinchpoint.store`), so a sweep never reuses a run stored by an older model.
/// - 1: every run before revisions were recorded (stored runs without one are revision 1).
/// - 2: the same-picosecond rule (DESIGN.md, "Event order"): at one picosecond a port's
///   transmit completions come before any arrival to it (all `TxDone` events first, by port),
///   then packets reaching the end of a wire by port index, then every other event in
///   scheduling order. Revision 1 ordered every event at a picosecond by when it was pushed.
pub const MODEL_REVISION: u32 = 2;
pub use simulation::{Results, Simulation};

/// Parses, validates and builds a TOML scenario in one step.
pub fn load_toml(text: &str, origin: &str, seed: Option<u64>) -> Result<Simulation, ScenarioError> {
    let sc = scenario::from_toml_str(text, origin)?;
    build(&sc, seed, origin)
}
