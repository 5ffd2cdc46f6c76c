//! Arrival processes in a network: each transfer is a flow created at its arrival and freed
//! once finished; memory follows the transfers alive at once, every byte arrives once, and a
//! seed fixes everything.

use pinchpoint_core::load_toml;

/// A dumbbell: hosts s1, s2 -> r1 -> r2 -> d1, d2; 10 Mbit/s, 10 ms bottleneck.
fn dumbbell(duration: &str, extra: &str) -> String {
    let mut t = format!("[simulation]\nduration = \"{duration}\"\n");
    for n in ["s1", "s2", "d1", "d2"] {
        t += &format!("[[nodes]]\nname = \"{n}\"\n");
    }
    t += "[[nodes]]\nname = \"r1\"\nkind = \"router\"\n[[nodes]]\nname = \"r2\"\nkind = \"router\"\n";
    for (a, b) in [("s1", "r1"), ("s2", "r1"), ("r2", "d1"), ("r2", "d2")] {
        t += &format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n");
    }
    t += "[[links]]\na = \"r1\"\nb = \"r2\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\nqueue = { kind = \"droptail\", limit_pkts = 50 }\n";
    t + extra
}

/// `count` Poisson transfers of 10 packets at `rate_per_s` from s1/s2 to d1/d2.
fn poisson(count: u64, rate_per_s: f64) -> String {
    format!(
        "[[arrivals]]\nname = \"short\"\nsrc = [\"s1\", \"s2\"]\ndst = [\"d1\", \"d2\"]\n\
         process = {{ kind = \"poisson\", rate_per_s = {rate_per_s}, count = {count}, size = {{ kind = \"fixed\", pkts = 10 }} }}\n"
    )
}

#[test]
fn every_poisson_transfer_delivers_its_bytes_exactly_once_and_the_slots_are_all_freed() {
    // 2000 transfers of 10 x 1448 B at 50/s: 5.8 Mbit/s offered on 10 Mbit/s.
    let mut sim = load_toml(&dumbbell("200s", &poisson(2000, 50.0)), "t.toml", Some(3)).unwrap();
    sim.run();
    let r = sim.results();
    let t = &r.transfers;
    assert_eq!(t.u64s("size_bytes").len(), 2000);
    assert!(t.u64s("size_bytes").iter().all(|&b| b == 14_480));
    // Conservation: the receiver got every byte of every transfer, exactly once in order.
    assert_eq!(t.u64s("delivered_bytes"), t.u64s("size_bytes"));
    let resp = t.f64s("response_time_s");
    let (start, first, last, done) = (t.f64s("start_s"), t.f64s("first_byte_s"), t.f64s("last_byte_s"), t.f64s("completed_s"));
    for k in 0..2000 {
        // Not faster than the propagation: 10 packets need at least one RTT of 24 ms.
        assert!(resp[k] >= 0.024 && start[k] < first[k] && first[k] <= last[k] && last[k] < done[k], "transfer {k}");
        assert!((done[k] - start[k] - resp[k]).abs() < 1e-9);
    }
    let c = sim.transfer_counters();
    assert_eq!((c.arrived, c.freed, c.live), (2000, 2000, 0), "every transfer's flow was freed");
    // Memory is set by the transfers alive at once (a few at 50/s with ~50 ms each), not by 2000.
    assert!(c.slots < 60 && c.live_high_water <= c.slots, "{c:?}");
    // Bytes on the bottleneck: every transfer's packets, retransmissions included, went through it.
    let p = r.ports.strs("port").iter().position(|n| n == "r1->r2").unwrap();
    let retx: u64 = t.u64s("retx_pkts").iter().sum();
    // Every data packet of every transfer crossed or was dropped at the bottleneck, once.
    assert_eq!(r.ports.u64s("tx_pkts")[p] + r.ports.u64s("drops")[p], 2000 * 10 + retx);
    // The groups table has the arrival's label with all of them completed.
    assert_eq!(r.groups.strs("group"), ["short"]);
    assert_eq!(r.groups.u64s("transfers_completed"), [2000]);
}

#[test]
fn the_slab_does_not_grow_with_the_number_of_transfers() {
    let slots = |count: u64| {
        let mut sim = load_toml(&dumbbell("1000s", &poisson(count, 50.0)), "t.toml", Some(4)).unwrap();
        sim.run();
        let c = sim.transfer_counters();
        assert_eq!((c.arrived, c.live), (count, 0));
        c.slots
    };
    let (small, large) = (slots(500), slots(5000));
    // Ten times the transfers: the high-water mark of slots grows only as the maximum of a
    // longer run of the same load does (a few slots), not tenfold.
    assert!(large <= small + 15, "500 transfers: {small} slots, 5000: {large}");
}

#[test]
fn a_seed_fixes_every_transfer_and_another_seed_changes_them() {
    let run = |seed| {
        let mut sim = load_toml(&dumbbell("100s", &poisson(300, 100.0)), "t.toml", Some(seed)).unwrap();
        sim.run();
        let r = sim.results();
        (r.transfers.f64s("start_s").to_vec(), r.transfers.f64s("response_time_s").to_vec(), r.transfers.strs("dst").to_vec())
    };
    let a = run(5);
    assert_eq!(a, run(5));
    assert_ne!(a.0, run(6).0);
}

#[test]
fn a_static_flow_keeps_its_row_and_group_beside_the_transfers() {
    let extra = format!(
        "[[flows]]\nname = \"long\"\nsrc = \"s1\"\ndst = \"d1\"\ngroup = \"long-lived\"\nworkload = {{ kind = \"bulk\" }}\n{}",
        poisson(200, 20.0)
    );
    let mut sim = load_toml(&dumbbell("5s", &extra), "t.toml", Some(1)).unwrap();
    sim.run();
    let r = sim.results();
    assert_eq!(r.flows.strs("flow"), ["long"]);
    assert_eq!(r.flows.strs("group"), ["long-lived"]);
    assert_eq!(r.groups.strs("group"), ["long-lived", "short"]);
    assert_eq!(r.groups.u64s("flows"), [1, 0]);
    // The run ends at 5 s with transfers still arriving: unfinished ones have rows too.
    let n = r.transfers.u64s("size_bytes").len() as u64;
    assert_eq!(n, sim.transfer_counters().arrived);
    assert!(n > 60 && n < 140, "{n} arrivals in 5 s at 20/s");
}

#[test]
#[ignore = "slow: 100,000 transfers (about 10 s in release); run with --ignored"]
fn a_hundred_thousand_poisson_transfers_run_in_memory_set_by_the_concurrent_ones() {
    // 100,000 transfers of 10 packets at 50/s (6 Mbit/s offered on the 10 Mbit/s bottleneck).
    let mut sim = load_toml(&dumbbell("3000s", &poisson(100_000, 50.0)), "t.toml", Some(7)).unwrap();
    sim.run();
    let c = sim.transfer_counters();
    eprintln!("{c:?}; Flow {} B", std::mem::size_of::<pinchpoint_core::flows::Flow>());
    assert_eq!((c.arrived, c.freed, c.live), (100_000, 100_000, 0));
    // The slab's high-water mark is that of the transfers alive at once: tens, not 100,000.
    assert!(c.slots < 100, "{c:?}");
    assert!(c.state_bytes_high_water < 200_000, "{c:?}");
    let r = sim.results();
    assert_eq!(r.transfers.u64s("delivered_bytes"), r.transfers.u64s("size_bytes"));
}

#[test]
fn transfers_arriving_after_a_route_change_take_the_new_route() {
    // The diamond of scenarios/examples/route_change.toml: from 5 s on, a -> b goes the lower
    // path. Transfers arrive all along; those arriving after 5.5 s must cross x->down only.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/examples/route_change.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let base = &text[..text.find("[[flows]]").unwrap()];
    // ECN: the example's CE-threshold hook needs a flow that reads its marks.
    let arrivals = "[[arrivals]]\nname = \"t\"\nsrc = \"a\"\ndst = \"b\"\ntcp = { ecn = true }\n\
        process = { kind = \"flash_crowd\", count = 10, rate_per_s = 10.0, at = \"6s\", spacing = \"even\", size = { kind = \"fixed\", pkts = 5 } }\n";
    let mut sim = load_toml(&format!("{base}{arrivals}"), "t.toml", None).unwrap();
    sim.run_until(5_900_000_000_000);
    let up_before = sim.port_named("x->up").unwrap().stats.tx_pkts;
    sim.run();
    let r = sim.results();
    let up_after = sim.port_named("x->up").unwrap().stats.tx_pkts;
    assert_eq!(up_before, up_after, "nothing more on the upper path");
    let down = r.ports.strs("port").iter().position(|n| n == "x->down").unwrap();
    assert_eq!(r.ports.u64s("tx_pkts")[down] + r.ports.u64s("drops")[down], 50 + r.transfers.u64s("retx_pkts").iter().sum::<u64>());
    assert_eq!(r.transfers.u64s("delivered_bytes"), [7240; 10]);
}
