//! The standard active queue managers (RED, CoDel, FQ-CoDel, PIE) in a dumbbell with TCP flows:
//! each holds the queue where its design says, FQ-CoDel isolates flows, and with ECN-capable TCP
//! every one of them marks instead of dropping.

mod common;

use common::{dumbbell_pair, dumbbell_routers, run_sim, udp_pair};
use pinchpoint_core::{load_toml, Results, Simulation};

const BOTTLENECK: &str = "r1->r2";
const RATE_BPS: f64 = 10e6;

/// `n` TCP bulk flows (RTT 44 ms) over a 10 Mbit/s bottleneck with queue `queue`; `tcp` is the
/// flows' TCP table; `extra` adds nodes, links and flows.
fn dumbbell(n: usize, queue: &str, tcp: &str, duration: &str, extra: &str) -> String {
    let mut s = format!("[simulation]\nduration = \"{duration}\"\n");
    s += &dumbbell_routers("10Mbps", "20ms", queue);
    for i in 0..n {
        s += &dumbbell_pair(i, "1Gbps", &format!("tcp = {tcp}"));
    }
    s + extra
}

/// A 15 Mbit/s UDP constant-bit-rate flood, more than the bottleneck carries.
fn cbr_flood() -> String {
    udp_pair("flood", "1Gbps", "{ kind = \"cbr\", rate = \"15Mbps\", packet_size = \"1500B\" }")
}

/// A 3 Mbit/s UDP Poisson flow (the seed changes its arrivals).
fn poisson() -> String {
    udp_pair("udp", "1Gbps", "{ kind = \"poisson\", rate = \"3Mbps\", packet_size = \"800B\" }")
}

/// One column of the bottleneck port's row.
fn port_f64(r: &Results, col: &str) -> f64 {
    let row = r.ports.strs("port").iter().position(|p| p == BOTTLENECK).unwrap();
    r.ports.f64s(col)[row]
}
fn port_u64(r: &Results, col: &str) -> u64 {
    let row = r.ports.strs("port").iter().position(|p| p == BOTTLENECK).unwrap();
    r.ports.u64s(col)[row]
}
fn utilisation(r: &Results) -> f64 {
    port_u64(r, "tx_bytes") as f64 * 8.0 / RATE_BPS / r.end_time_s
}
/// Time-averaged queueing delay at the bottleneck: mean bytes waiting over the rate, seconds.
fn mean_queue_delay_s(r: &Results) -> f64 {
    port_f64(r, "queue_bytes_mean") * 8.0 / RATE_BPS
}

#[test]
fn every_new_discipline_conserves_packets_and_agrees_with_the_port_count() {
    for q in [
        "{ kind = \"red\", limit_pkts = 30 }",
        "{ kind = \"red\", min_th_bytes = \"5KB\", max_th_bytes = \"20KB\", byte_mode = true, limit_bytes = \"40KB\" }",
        "{ kind = \"codel\", limit_pkts = 30 }",
        "{ kind = \"fq_codel\", limit_pkts = 30 }",
        "{ kind = \"pie\", limit_pkts = 30 }",
    ] {
        let (sim, r) = run_sim(&dumbbell(4, q, "{ }", "8s", &poisson()));
        assert!(port_u64(&r, "drops") > 0, "{q}: the bottleneck should drop");
        for (i, p) in sim.ports().iter().enumerate() {
            let name = sim.port_name(i as u32);
            assert_eq!(p.waiting_pkts, p.queue_len_pkts(), "{q} at {name}");
            let s = &p.stats;
            assert_eq!(s.arrivals_pkts, s.tx_pkts + s.total_drops() + p.waiting_pkts as u64, "{q} at {name}");
        }
        let lost: u64 = r.flows.u64s("lost_pkts").iter().sum::<u64>() + r.flows.u64s("ack_lost_pkts").iter().sum::<u64>();
        let port_drops: u64 = sim.ports().iter().map(|p| p.stats.total_drops()).sum();
        assert_eq!(lost, port_drops, "{q}: every drop is charged to a flow");
        assert!(r.flows.f64s("goodput_bps").iter().all(|&g| g > 0.0), "{q}: every flow gets through");
    }
}

#[test]
fn red_keeps_the_average_queue_between_its_thresholds() {
    let (sim, r) = run_sim(&dumbbell(4, "{ kind = \"red\", limit_pkts = 100 }", "{ }", "30s", ""));
    let q = sim.port_named(BOTTLENECK).unwrap();
    let mean = port_f64(&r, "queue_pkts_mean");
    eprintln!("red: mean queue {mean:.2} pkts, drops {:?}, util {:.3}", q.stats.drops(), utilisation(&r));
    // Defaults min_th 5, max_th 15: the time-averaged queue stays between them, no overflow.
    assert!((5.0..=15.0).contains(&mean), "mean queue {mean}");
    // Early drops dominate; the few overflows come from the first slow start, which outruns the
    // slowly moving average (w_q = 0.002).
    assert!(q.stats.drops()[1] > 10 * q.stats.drops()[0], "{:?}", q.stats.drops());
    assert!(utilisation(&r) > 0.9);
}

#[test]
fn codel_holds_the_standing_queue_delay_near_its_target_where_droptail_fills_the_buffer() {
    let (_, codel) = run_sim(&dumbbell(4, "{ kind = \"codel\", limit_pkts = 1000 }", "{ }", "30s", ""));
    let (_, tail) = run_sim(&dumbbell(4, "{ kind = \"droptail\", limit_pkts = 1000 }", "{ }", "30s", ""));
    let (d_codel, d_tail) = (mean_queue_delay_s(&codel), mean_queue_delay_s(&tail));
    eprintln!("codel: mean queue delay {:.2} ms (droptail {:.1} ms), util {:.3}", d_codel * 1e3, d_tail * 1e3, utilisation(&codel));
    // Target 5 ms: the standing queue stays within a few ms of it.
    assert!((0.002..=0.012).contains(&d_codel), "codel mean delay {d_codel}");
    assert!(d_tail > 10.0 * d_codel);
    assert!(utilisation(&codel) > 0.85);
}

#[test]
fn pie_holds_the_queue_delay_near_its_target() {
    let (_, r) = run_sim(&dumbbell(4, "{ kind = \"pie\", limit_pkts = 1000 }", "{ }", "30s", ""));
    let d = mean_queue_delay_s(&r);
    eprintln!("pie: mean queue delay {:.2} ms, util {:.3}, drops {}", d * 1e3, utilisation(&r), port_u64(&r, "drops"));
    // Target 15 ms.
    assert!((0.007..=0.025).contains(&d), "pie mean delay {d}");
    assert!(utilisation(&r) > 0.9);
}

#[test]
fn fq_codel_isolates_a_tcp_flow_from_a_cbr_flood() {
    let goodput = |queue: &str| {
        let (_, r) = run_sim(&dumbbell(1, queue, "{ }", "20s", &cbr_flood()));
        let row = r.flows.strs("flow").iter().position(|f| f == "f0").unwrap();
        r.flows.f64s("goodput_bps")[row]
    };
    let fq = goodput("{ kind = \"fq_codel\" }");
    let tail = goodput("{ kind = \"droptail\", limit_pkts = 100 }");
    eprintln!("tcp goodput beside a 15 Mbit/s flood: fq_codel {:.2} Mbit/s, droptail {:.2} Mbit/s", fq / 1e6, tail / 1e6);
    // Fair share is 5 Mbit/s.
    assert!(fq > 4.0e6, "fq_codel gives tcp {fq}");
    assert!(tail < 1.0e6, "droptail gives tcp {tail}");
}

#[test]
fn ecn_capable_tcp_is_marked_not_dropped_by_every_marking_discipline() {
    for q in [
        "{ kind = \"red\", ecn = true, limit_pkts = 100 }",
        "{ kind = \"codel\", ecn = true }",
        "{ kind = \"fq_codel\", ecn = true }",
        "{ kind = \"pie\", ecn = true }",
    ] {
        let mut sim = load_toml(&dumbbell(4, q, "{ ecn = true }", "20s", ""), "aqm.toml", None).unwrap();
        // The first slow start overshoots before any AQM can react (RED's average lags it by
        // design); judge the steady state after 5 s.
        sim.run_until(5 * pinchpoint_core::sim::PS_PER_S);
        let at = |sim: &Simulation| {
            let p = sim.port_named(BOTTLENECK).unwrap();
            (p.stats.marks(), p.stats.drops(), p.stats.tx_bytes)
        };
        let (marks0, drops0, tx0) = at(&sim);
        sim.run();
        let (marks1, drops1, tx1) = at(&sim);
        let util = (tx1 - tx0) as f64 * 8.0 / RATE_BPS / 15.0;
        eprintln!("{q}: drops by reason {drops0:?} in the first 5 s; then marks {}, drops {:?}, util {util:.3}", marks1 - marks0, [0, 1, 2].map(|k| drops1[k] - drops0[k]));
        assert!(marks1 - marks0 > 50, "{q}: marks {}", marks1 - marks0);
        assert_eq!(drops1, drops0, "{q}: the AQM marks instead of dropping");
        // FQ-CoDel gives up some throughput here: as in Linux, each flow queue's CoDel tests the
        // whole qdisc's backlog for "too little queued", so with 4 flows of about 10 packets of
        // window on a 1.2 ms-per-packet link the other queues' packets keep a flow's sojourn
        // above the 5 ms target and its short queue is still marked (0.82 measured; 0.98 when
        // each queue tested only its own backlog, as ns-3 does).
        let min_util = if q.contains("fq_codel") { 0.75 } else { 0.85 };
        assert!(util > min_util, "{q}: utilisation {util}");
        // The flows' `ce_pkts` count the data packets delivered with the ECN codepoint CE:
        // every mark of the only bottleneck but the few still on their way at the end (1 or 2
        // of 109 to 229 marks here).
        let ce: u64 = sim.results().flows.u64s("ce_pkts").iter().sum();
        assert!(ce <= marks1 && ce + 10 >= marks1, "{q}: {ce} CE deliveries for {marks1} marks");
    }
}

#[test]
fn bad_aqm_settings_are_refused_with_the_field_path() {
    for (q, path) in [
        ("{ kind = \"red\", max_p = 2.0 }", "links[0].queue.max_p"),
        ("{ kind = \"red\", min_th_pkts = 20, max_th_pkts = 10 }", "links[0].queue.max_th_pkts"),
        ("{ kind = \"codel\", interval = \"1ms\" }", "links[0].queue.interval"),
        ("{ kind = \"fq_codel\", flows = 0 }", "links[0].queue.flows"),
        ("{ kind = \"pie\", mark_threshold = 0.3 }", "links[0].queue.mark_threshold"),
    ] {
        let err = load_toml(&dumbbell(1, q, "{ }", "1s", ""), "aqm.toml", None).err().unwrap_or_else(|| panic!("{q} accepted")).to_string();
        assert!(err.contains(path), "{q}: {err}");
    }
}

#[test]
fn bundled_red_ecn_example_marks_and_does_not_drop_after_slow_start() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/examples/red_ecn.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let mut sim = load_toml(&text, path, None).unwrap();
    sim.run_until(2 * pinchpoint_core::sim::PS_PER_S);
    let bottleneck = |sim: &Simulation| sim.port_named(BOTTLENECK).map(|p| (p.stats.marks(), p.stats.total_drops())).unwrap();
    let (marks0, drops0) = bottleneck(&sim);
    sim.run();
    let (marks1, drops1) = bottleneck(&sim);
    eprintln!("red_ecn: {drops0} drops in the first 2 s, then {} marks and {} drops", marks1 - marks0, drops1 - drops0);
    assert!(marks1 > marks0);
    assert_eq!(drops1, drops0);
}

#[test]
fn randomised_disciplines_repeat_exactly_with_the_same_seed() {
    for q in ["{ kind = \"red\" }", "{ kind = \"pie\" }"] {
        let text = dumbbell(4, q, "{ }", "8s", &poisson());
        let a = run_sim(&text).1;
        let b = run_sim(&text).1;
        assert_eq!(a.ports.u64s("drops"), b.ports.u64s("drops"), "{q}");
        assert_eq!(a.flows.u64s("delivered_pkts"), b.flows.u64s("delivered_pkts"), "{q}");
        let (_, c) = run_sim(&text.replace("duration = \"8s\"", "duration = \"8s\"\nseed = 7"));
        assert_ne!(a.flows.u64s("delivered_pkts"), c.flows.u64s("delivered_pkts"), "{q}: another seed changes the run");
    }
}
