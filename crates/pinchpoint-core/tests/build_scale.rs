//! Building and serialising scenarios costs time linear in flows (issue 13, "linear build").

mod common;
use pinchpoint_core::scenario::{self, presets::dumbbell};

fn route_steps(n: usize) -> u64 {
    let sim = pinchpoint_core::build(&dumbbell(n, 1.0), None, "dumbbell").expect("preset builds");
    sim.counters().build_route_steps
}

/// The router's work (tree nodes settled, hops walked, index entries looked at) per flow is the
/// same at 1,000 and 10,000 flows. Before the gateway's ports were indexed by peer, finding the
/// port back to each receiver scanned all N ports of router B, 75% of build instructions at N =
/// 10,000.
#[test]
fn building_a_dumbbell_takes_route_steps_linear_in_flows() {
    let small = route_steps(1_000);
    let large = route_steps(10_000);
    let ratio = large as f64 / small as f64;
    assert!((9.5..=10.5).contains(&ratio), "route steps {small} at 1,000 flows, {large} at 10,000 (ratio {ratio:.2})");
    // Per flow: two 3-hop paths, so a handful of steps, not a scan.
    assert!(large / 10_000 < 20, "{} route steps per flow", large / 10_000);
}

/// The resolved scenario is written element by element (linear time), and the text is exactly
/// what the toml crate writes for the whole document (quadratic in flows), for every bundled
/// scenario, the benchmark dumbbell and a scenario without flows.
#[test]
fn the_resolved_toml_is_the_whole_document_text_written_in_pieces() {
    let mut checked = 0;
    for p in common::bundled_scenario_files() {
        let text = std::fs::read_to_string(&p).unwrap();
        let Ok(sc) = scenario::from_toml_str(&text, &p.display().to_string()) else { continue };
        assert_eq!(scenario::to_toml_string(&sc), toml::to_string(&sc).unwrap(), "{}", p.display());
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} bundled scenarios parsed");
    let mut sc = dumbbell(3, 1.0);
    assert_eq!(scenario::to_toml_string(&sc), toml::to_string(&sc).unwrap());
    sc.flows.clear();
    assert_eq!(scenario::to_toml_string(&sc), toml::to_string(&sc).unwrap());
    let again = scenario::from_toml_str(&scenario::to_toml_string(&sc), "resolved").unwrap();
    assert_eq!(again, sc);
}
