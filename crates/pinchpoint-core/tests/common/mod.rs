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

/// The middle of a dumbbell: routers `r1` and `r2` and the bottleneck link r1 -> r2 of `rate`,
/// one-way `delay` and `queue` (an inline TOML table). Lines appended right after it (such as
/// `hooks_ab = [...]`) still belong to the bottleneck link.
pub fn dumbbell_routers(rate: &str, delay: &str, queue: &str) -> String {
    format!(
        "[[nodes]]\nname = \"r1\"\nkind = \"router\"\n[[nodes]]\nname = \"r2\"\nkind = \"router\"\n\
         [[links]]\na = \"r1\"\nb = \"r2\"\nrate = \"{rate}\"\ndelay = \"{delay}\"\nqueue = {queue}\n"
    )
}

/// Two hosts on either side of a dumbbell: `src` with its access link to r1 (one-way
/// `src_delay`) and `dst` with its access link from r2 (one-way `dst_delay`), both of
/// `access_rate`.
pub fn host_pair(src: &str, dst: &str, access_rate: &str, src_delay: &str, dst_delay: &str) -> String {
    format!(
        "[[nodes]]\nname = \"{src}\"\n[[nodes]]\nname = \"{dst}\"\n\
         [[links]]\na = \"{src}\"\nb = \"r1\"\nrate = \"{access_rate}\"\ndelay = \"{src_delay}\"\n\
         [[links]]\na = \"r2\"\nb = \"{dst}\"\nrate = \"{access_rate}\"\ndelay = \"{dst_delay}\"\n"
    )
}

/// A bulk flow `name` from `src` to `dst` starting at `start_ms`, then the TOML lines `extra`
/// (`cc = ...`, `tcp = ...`) that belong to it.
pub fn bulk_flow(name: &str, src: &str, dst: &str, start_ms: usize, extra: &str) -> String {
    format!("[[flows]]\nname = \"{name}\"\nsrc = \"{src}\"\ndst = \"{dst}\"\nstart = \"{start_ms}ms\"\nworkload = {{ kind = \"bulk\" }}\n{extra}\n")
}

/// Pair `i` of a dumbbell: hosts `s{i}` and `d{i}` with 1 ms access links of `access_rate`,
/// and the bulk flow `f{i}` between them, started at `7 i` ms (so the flows do not start in
/// lock-step), with the flow's extra TOML lines `extra`.
pub fn dumbbell_pair(i: usize, access_rate: &str, extra: &str) -> String {
    let (src, dst) = (format!("s{i}"), format!("d{i}"));
    host_pair(&src, &dst, access_rate, "1ms", "1ms") + &bulk_flow(&format!("f{i}"), &src, &dst, i * 7, extra)
}

/// A UDP flow `name` between its own hosts `u` and `ud` (1 ms access links of `access_rate`),
/// sending `workload` (an inline TOML table).
pub fn udp_pair(name: &str, access_rate: &str, workload: &str) -> String {
    host_pair("u", "ud", access_rate, "1ms", "1ms")
        + &format!("[[flows]]\nname = \"{name}\"\nsrc = \"u\"\ndst = \"ud\"\ntransport = \"udp\"\nworkload = {workload}\n")
}

/// Every `.toml` file under the repository's `scenarios/`, sorted by path.
pub fn bundled_scenario_files() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut out = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
