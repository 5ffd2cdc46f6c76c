//! Runs the benchmark dumbbell and prints packet-hops per second.
//! `cargo run --release --example dumbbell -- N SECONDS [JITTER_MS] [eager] [per_flow_mbps=X]`
//! (also the callgrind and cachegrind target); `JITTER_MS` gives every flow that start jitter
//! (default none); `eager` puts every port on the eager path (`Simulation::force_eager_ports`);
//! `per_flow_mbps=X` runs `presets::dumbbell_scaled` instead: a bottleneck of N x X Mbit/s with
//! 10 packets of buffer per flow.
use pinchpoint_core::scenario::presets::{dumbbell, dumbbell_scaled};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(30.0);
    let jitter_ms: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.0);
    let mut eager = false;
    let mut per_flow_mbps: Option<f64> = None;
    for a in args.iter().skip(4) {
        match a.split_once('=') {
            None if a == "eager" => eager = true,
            Some(("per_flow_mbps", x)) => per_flow_mbps = Some(x.parse().expect("per_flow_mbps=X: X in Mbit/s")),
            _ => panic!("unknown argument {a:?}: expected eager or per_flow_mbps=X"),
        }
    }
    let mut sc = match per_flow_mbps {
        Some(x) => dumbbell_scaled(n, secs, x * 1e6),
        None => dumbbell(n, secs),
    };
    if jitter_ms > 0.0 {
        for f in &mut sc.flows {
            f.start_jitter = Some(pinchpoint_core::scenario::units::Duration(pinchpoint_core::sim::secs_to_ps(jitter_ms / 1e3)));
        }
    }
    let mut sim = pinchpoint_core::build(&sc, None, "dumbbell").expect("preset builds");
    if eager {
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
