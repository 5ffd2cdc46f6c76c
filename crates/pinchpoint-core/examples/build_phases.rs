//! Times each phase around the event loop for the benchmark dumbbell at N flows: generating
//! the scenario, writing it as TOML, parsing and validating that TOML, building, running one
//! simulated second, and collecting results. Used to check that everything outside the loop
//! grows linearly in flows (bench/README.md, "Build and serialisation").
//! `cargo run --release --example build_phases -- N [SECONDS]`
use pinchpoint_core::scenario::{self, presets::dumbbell};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let mut t = Instant::now();
    let mut lap = |what: &str| {
        let s = t.elapsed().as_secs_f64();
        print!("{what}={s:.3} ");
        t = Instant::now();
    };
    let mut sc = dumbbell(n, secs);
    for (i, f) in sc.flows.iter_mut().enumerate() {
        f.start_jitter = Some(scenario::units::Duration(100 * pinchpoint_core::sim::PS_PER_MS));
        let _ = i;
    }
    lap("generate_s");
    let text = scenario::to_toml_string(&sc);
    lap("to_toml_s");
    let sc = scenario::from_toml_str(&text, "dumbbell").expect("preset validates");
    lap("parse_validate_s");
    let mut sim = pinchpoint_core::build(&sc, None, "dumbbell").expect("preset builds");
    lap("build_s");
    sim.run();
    lap("run_s");
    let r = sim.results();
    lap("results_s");
    println!("n={n} flows={} toml_bytes={}", r.flows.f64s("goodput_bps").len(), text.len());
}
