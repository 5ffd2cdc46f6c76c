//! Runs the benchmark dumbbell and prints packet-hops per second.
//! `cargo run --release --example dumbbell -- N SECONDS [JITTER_MS]` (also the callgrind and
//! cachegrind target); `JITTER_MS` gives every flow that start jitter (default none); a fourth
//! argument `eager` puts every port on the eager path (`Simulation::force_eager_ports`).
use pinchpoint_core::scenario::presets::dumbbell;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(30.0);
    let jitter_ms: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.0);
    let mut sc = dumbbell(n, secs);
    if jitter_ms > 0.0 {
        for f in &mut sc.flows {
            f.start_jitter = Some(pinchpoint_core::scenario::units::Duration(pinchpoint_core::sim::secs_to_ps(jitter_ms / 1e3)));
        }
    }
    let mut sim = pinchpoint_core::build(&sc, None, "dumbbell").expect("preset builds");
    if args.get(4).is_some_and(|a| a == "eager") {
        sim.force_eager_ports();
    }
    let t0 = Instant::now();
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let c = sim.counters();
    let r = sim.results();
    let g: f64 = r.flows.f64s("goodput_bps").iter().sum();
    let j = pinchpoint_core::metrics::stats::jain_index(r.flows.f64s("goodput_bps"));
    let drops: u64 = r.ports.u64s("drops").iter().sum();
    println!(
        "n={n} sim_s={secs} wall_s={wall:.3} events={} packet_hops={} hops_per_s={:.0} goodput_bps={g:.0} jain={j:.4} drops={drops} packets_high_water={}",
        c.events, c.packet_hops, c.packet_hops as f64 / wall, c.packets_high_water
    );
}
