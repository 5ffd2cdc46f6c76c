//! Wall time of the event loop alone on scenario files: `loop_time FILE...` builds each file and
//! prints the loop's wall time, its events and packet-hops (bench/README.md: the check that a
//! change to the engine does not slow the seed scenarios, whose timers and packets differ from
//! the bench dumbbell's). Run old and new binaries alternately, as with `bench/ab_loop.sh`.
//! `cargo build --release -p pinchpoint-core --example loop_time`
use pinchpoint_core::scenario;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: loop_time FILE...");
        std::process::exit(2);
    }
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let sc = scenario::from_toml_str(&text, &path).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = pinchpoint_core::build(&sc, None, &path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let t = std::time::Instant::now();
        sim.run();
        let wall_s = t.elapsed().as_secs_f64();
        println!("{path} wall_s={wall_s:.4} events={} packet_hops={}", sim.counters().events, sim.counters().packet_hops);
    }
}
