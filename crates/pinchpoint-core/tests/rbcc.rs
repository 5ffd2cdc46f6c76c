//! RBCC (Toomey, seed 002) inside the engine: the ids its ports write into packets come from the
//! scenario's port order, so a second simulation in the same process numbers them identically.

use pinchpoint_core::port_hooks::AnyHook;
use pinchpoint_core::{load_toml, Simulation};

fn scenario2() -> Simulation {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/seeds/trump/s2_trump.toml");
    let text = std::fs::read_to_string(path).expect("scenario 2 is bundled");
    load_toml(&text, path, None).unwrap_or_else(|e| panic!("{e}"))
}

fn rbcc_ids(sim: &Simulation) -> Vec<(usize, u32)> {
    let mut ids = Vec::new();
    for (i, p) in sim.ports().iter().enumerate() {
        for h in &p.hooks {
            if let AnyHook::Rbcc(r) = h {
                ids.push((i, r.id()));
            }
        }
    }
    ids
}

#[test]
fn rbcc_port_ids_are_the_engines_port_indices_and_repeat_in_a_second_simulation() {
    let mut first = scenario2();
    let ids = rbcc_ids(&first);
    assert_eq!(ids.len(), first.ports().len(), "every port of scenario 2 carries RBCC");
    assert!(ids.iter().all(|&(i, id)| id == i as u32 + 1), "id = port index + 1 (0 means: set by the source): {ids:?}");
    first.run_until(30 * 1_000_000_000_000);
    let mut second = scenario2();
    assert_eq!(rbcc_ids(&second), ids, "a second simulation in the same process numbers its ports alike");
    second.run_until(30 * 1_000_000_000_000);
    let a = first.results().flows;
    let b = second.results().flows;
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}
