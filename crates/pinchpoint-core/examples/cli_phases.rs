//! CPU seconds of each native phase of `pinchpoint run FILE --out DIR` on a scenario file
//! (bench/README.md, "(round 5, cli)"): parsing and validating the TOML, building, the resolved
//! TOML, the run key's canonical JSON and the result tables. The event loop is not run.
//! `cargo run --release --example cli_phases -- FILE`
use pinchpoint_core::scenario;

fn cpu_s() -> f64 {
    // utime + stime of this process, in clock ticks (fields 14 and 15 of /proc/self/stat).
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: cli_phases FILE");
    let mut t = cpu_s();
    let mut lap = |what: &str| {
        let now = cpu_s();
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let rss = status.lines().find(|l| l.starts_with("VmRSS")).unwrap_or("").to_string();
        println!("{what:24} {:6.2}   {rss}", now - t);
        t = now;
    };
    let text = std::fs::read_to_string(&path).expect("readable file");
    lap("read");
    if std::env::var_os("CLI_PHASES_SPLIT").is_some() {
        use serde::Deserialize;
        let de = toml::Deserializer::parse(&text).expect("TOML");
        lap("  toml document");
        let sc = scenario::Scenario::deserialize(de).expect("scenario");
        lap("  deserialize");
        scenario::validate::validate(&sc).expect("valid");
        lap("  validate");
        drop(sc);
        lap("  drop");
    }
    let sc = scenario::from_toml_str(&text, &path).expect("valid scenario");
    lap("parse + validate");
    let sim = pinchpoint_core::build(&sc, None, &path).expect("builds");
    lap("build");
    let resolved = scenario::to_toml_string(&sc);
    lap("resolved toml");
    let canonical = scenario::canonical_json(&sc).unwrap_or_default();
    lap("canonical json");
    let r = sim.results();
    lap("results");
    println!("resolved {} B, canonical {} B, {} flows", resolved.len(), canonical.len(), r.flows.f64s("goodput_bps").len());
}
