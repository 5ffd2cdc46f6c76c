//! Departures computed at arrival (`net::port`, the lazy path) against the eager path
//! (`TxDone` events) under the same-picosecond rule (DESIGN.md, "Event order"): every result
//! table identical, on scenarios built to put arrivals exactly at departure instants and on the
//! bundled examples and benchmark dumbbells.

use pinchpoint_core::{load_toml, Results, Simulation};

/// Every result table as text (floats print their shortest round-trip form, so equal text is
/// equal bits), with the run counters except the number of events (the lazy path has no
/// `TxDone` events: fewer events is the point).
fn tables(r: &Results) -> Vec<(&'static str, String)> {
    let c = r.counters;
    vec![
        ("counters", format!("hops {} high water {} end {}", c.packet_hops, c.packets_high_water, r.end_time_s)),
        ("flows", format!("{:?}", r.flows)),
        ("ports", format!("{:?}", r.ports)),
        ("links", format!("{:?}", r.links)),
        ("flow_series", format!("{:?}", r.flow_series)),
        ("port_series", format!("{:?}", r.port_series)),
        ("packets", format!("{:?}", r.packets)),
        ("queue_trace", format!("{:?}", r.queue_trace)),
        ("loss_events", format!("{:?}", r.loss_events)),
        ("capture", format!("{:?}", r.capture)),
        ("transfers", format!("{:?}", r.transfers)),
        ("groups", format!("{:?}", r.groups)),
        ("flow_rates", format!("{:?}", r.flow_rates)),
    ]
}

/// Runs `build()` twice, lazy ports and all ports forced eager, and checks every table is the
/// same. Returns (lazy, eager) results and the number of lazy ports.
fn both_ways(name: &str, build: impl Fn() -> Simulation) -> (Results, Results, usize) {
    let mut lazy = build();
    let n_lazy = lazy.ports().iter().filter(|p| p.is_lazy()).count();
    lazy.run();
    let mut eager = build();
    eager.force_eager_ports();
    assert!(eager.ports().iter().all(|p| !p.is_lazy()));
    eager.run();
    let (a, b) = (lazy.results(), eager.results());
    for ((t, x), (_, y)) in tables(&a).into_iter().zip(tables(&b)) {
        assert!(x == y, "{name}: table {t} differs between the lazy and the eager path");
    }
    assert!(a.counters.events <= b.counters.events, "{name}: the lazy path has no more events");
    (a, b, n_lazy)
}

/// Three (or more) constant-rate sources of 1,000-byte packets at 4 Mbit/s into an 8 Mbit/s
/// bottleneck: one packet every 2 ms from each, 1 ms of transmission each on the bottleneck,
/// so with every source started on the same sub-grid the arrivals at the router fall exactly
/// on the instants the bottleneck starts its next packet. `offset_us` staggers the sources.
fn cbr_ties(sources: usize, offset_us: u64, queue: &str, series: bool) -> String {
    let mut s = String::from("[simulation]\nduration = \"300ms\"\nseed = 3\n");
    if series {
        s += "[metrics]\nseries_interval = \"1ms\"\n";
    }
    s += "[[nodes]]\nname = \"r\"\nkind = \"router\"\n[[nodes]]\nname = \"d\"\n";
    s += &format!("[[links]]\na = \"r\"\nb = \"d\"\nrate = \"8Mbps\"\ndelay = \"1ms\"\nqueue = {queue}\n");
    for i in 0..sources {
        s += &format!("[[nodes]]\nname = \"s{i}\"\n");
        s += &format!("[[links]]\na = \"s{i}\"\nb = \"r\"\nrate = \"80Mbps\"\ndelay = \"1ms\"\n");
        s += &format!(
            "[[flows]]\nname = \"u{i}\"\nsrc = \"s{i}\"\ndst = \"d\"\ntransport = \"udp\"\nstart = \"{}us\"\n\
             workload = {{ kind = \"cbr\", rate = \"4Mbps\", packet_size = \"1000B\" }}\n",
            i as u64 * offset_us
        );
    }
    s
}

fn load(text: &str) -> Simulation {
    load_toml(text, "ties.toml", None).expect("test scenario builds")
}

#[test]
fn arrivals_at_exactly_a_departure_instant_give_the_same_results_on_both_paths() {
    // Two sources: the bottleneck is exactly full, every second arrival waits and starts at
    // the instant of the next pair of arrivals (tie with a pending departure, buffer not full).
    // Three and five sources overload it: the buffer is full at the tie instants, so the order
    // decides which arrival is dropped (departure first: one place frees up). Offsets of 1 ms
    // (a whole transmission) keep the ties; 250 us moves arrivals off the grid.
    for (sources, offset_us) in [(2, 0), (3, 0), (3, 1000), (5, 0), (5, 250)] {
        for queue in ["{ kind = \"droptail\", limit_pkts = 2 }", "{ kind = \"droptail\", limit_bytes = 3000 }"] {
            let text = cbr_ties(sources, offset_us, queue, true);
            let name = format!("{sources} sources, offset {offset_us} us, {queue}");
            let (r, _, n_lazy) = both_ways(&name, || load(&text));
            assert!(n_lazy > 0, "{name}: the drop-tail ports take the lazy path");
            let drops: u64 = r.ports.u64s("drops").iter().sum();
            let max_q = r.ports.f64s("queue_pkts_max").iter().copied().fold(0.0, f64::max);
            if sources == 2 {
                assert_eq!(drops, 0, "{name}");
                assert_eq!(max_q, 1.0, "{name}: one packet of each pair waits");
            } else {
                assert!(drops > 0 && max_q >= 2.0, "{name}: the buffer fills ({drops} drops, max {max_q})");
            }
        }
    }
}

/// Drops at a port of `limit` places that sends one packet per 10 time units, with `per_round`
/// arrivals every 20 units from 11 on for `rounds` rounds; `departure_first` applies the
/// same-picosecond rule, else arrivals go first (the order the rule replaced, in part).
fn drops_by_recursion(per_round: u32, rounds: u64, limit: u32, departure_first: bool) -> u64 {
    let (mut busy_until, mut waiting, mut drops) = (0u64, 0u32, 0u64);
    let advance = |t: u64, busy_until: &mut u64, waiting: &mut u32| {
        while *waiting > 0 && *busy_until <= t {
            *busy_until += 10;
            *waiting -= 1;
        }
    };
    for round in 0..rounds {
        let t = 11 + 20 * round;
        if departure_first {
            advance(t, &mut busy_until, &mut waiting);
        } else {
            // Only the departures strictly before t.
            advance(t - 1, &mut busy_until, &mut waiting);
        }
        for _ in 0..per_round {
            if waiting == 0 && busy_until <= t {
                busy_until = t + 10;
            } else if waiting < limit {
                waiting += 1;
            } else {
                drops += 1;
            }
        }
        advance(t, &mut busy_until, &mut waiting);
    }
    drops
}

#[test]
fn at_a_tie_the_departure_comes_first_so_a_full_buffer_takes_one_more_arrival() {
    // Three sources in step, two places: from the second round on, each round's three
    // arrivals meet the instant the second waiting packet of the round before starts. The
    // departure first leaves one place free for two of them; arrival first would drop two.
    // Time unit 0.1 ms: arrivals at the router at 1.1 ms + 2 ms k, 1 ms per packet.
    let text = cbr_ties(3, 0, "{ kind = \"droptail\", limit_pkts = 2 }", false);
    let (r, _, _) = both_ways("three in step, two places", || load(&text));
    let names: Vec<String> = match r.ports.get("port") {
        Some(pinchpoint_core::metrics::table::ColumnData::Str(v)) => v.clone(),
        _ => panic!("ports table has a name column"),
    };
    let i = names.iter().position(|n| n == "r->d").expect("bottleneck port");
    let bottleneck = r.ports.u64s("drops")[i];
    let first = drops_by_recursion(3, 150, 2, true);
    assert_ne!(first, drops_by_recursion(3, 150, 2, false), "the scenario is sensitive to the rule");
    assert_eq!(bottleneck, first, "drops at the bottleneck under departure-first");
}

#[test]
fn the_benchmark_dumbbells_give_the_same_results_on_both_paths() {
    for n in [10usize, 100] {
        let sc = pinchpoint_core::scenario::presets::dumbbell(n, 1.0);
        let (r, e, n_lazy) = both_ways(&format!("dumbbell N = {n}"), || pinchpoint_core::build(&sc, None, "dumbbell").unwrap());
        assert_eq!(n_lazy, 2 * (2 * n + 1), "every port of the dumbbell is drop-tail without hooks");
        assert!(r.counters.events < e.counters.events);
    }
}

#[test]
fn the_bundled_examples_give_the_same_results_on_both_paths() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/examples");
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect();
    paths.sort();
    assert!(paths.len() >= 5);
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        both_ways(&name, || load_toml(&text, &name, None).unwrap());
    }
}
