//! The set-up the network tests share: load a scenario text (panicking with the scenario
//! error, which names the field), run it to its end, read its tables.
#![allow(dead_code)] // each test file uses some of these

use pinchpoint_core::{load_toml, Results, Simulation};

/// The simulation of `text` (seed: the scenario's own unless `seed` overrides it), not yet run.
pub fn load(text: &str, seed: Option<u64>) -> Simulation {
    load_toml(text, "test.toml", seed).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `text` with the seed `seed` (None: the scenario's own); the simulation after the run
/// and its tables.
pub fn run_sim_seeded(text: &str, seed: Option<u64>) -> (Simulation, Results) {
    let mut sim = load(text, seed);
    sim.run();
    let r = sim.results();
    (sim, r)
}

/// Runs `text` with its own seed; the simulation after the run and its tables.
pub fn run_sim(text: &str) -> (Simulation, Results) {
    run_sim_seeded(text, None)
}

/// Runs `text` with its own seed; its tables.
pub fn run(text: &str) -> Results {
    run_sim(text).1
}
