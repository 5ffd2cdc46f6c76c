//! Network-level invariants and behaviour: conservation, rate and buffer limits, TCP
//! utilisation and fairness, determinism.

mod common;

use common::{dumbbell_pair, dumbbell_routers, run_sim_seeded, udp_pair};
use pinchpoint_core::metrics::stats::jain_index;
use pinchpoint_core::metrics::table::ColumnData;
use pinchpoint_core::Results;

/// A dumbbell of `n` TCP flows (plus optional UDP) with the given bottleneck.
fn dumbbell(n: usize, rate: &str, delay: &str, buffer_pkts: u32, duration: &str, extra: &str) -> String {
    let mut s = format!("[simulation]\nduration = \"{duration}\"\n[metrics]\nseries_interval = \"500ms\"\n");
    s += &dumbbell_routers(rate, delay, &format!("{{ kind = \"droptail\", limit_pkts = {buffer_pkts} }}"));
    for i in 0..n {
        s += &dumbbell_pair(i, "1Gbps", "");
    }
    s + extra
}

/// A 3 Mbit/s UDP Poisson flow (the seed changes its arrivals).
fn udp_extra() -> String {
    udp_pair("udp", "1Gbps", "{ kind = \"poisson\", rate = \"3Mbps\", packet_size = \"800B\" }")
}

fn u(r: &Results, table: &str, col: &str) -> Vec<u64> {
    let t = match table {
        "flows" => &r.flows,
        _ => &r.ports,
    };
    t.u64s(col).to_vec()
}

#[test]
fn packets_are_conserved_per_flow_and_per_port() {
    for (text, stop_at) in [
        (dumbbell(4, "10Mbps", "10ms", 20, "20s", &udp_extra()), 20.0),
        (dumbbell(3, "5Mbps", "30ms", 8, "7.3s", ""), 7.3),
    ] {
        let (sim, r) = run_sim_seeded(&text, None);
        assert!((r.end_time_s - stop_at).abs() < 1e-9);
        let sent = u(&r, "flows", "sent_pkts");
        let acks = u(&r, "flows", "ack_pkts");
        let delivered = u(&r, "flows", "delivered_pkts");
        let lost = u(&r, "flows", "lost_pkts");
        let ack_lost = u(&r, "flows", "ack_lost_pkts");
        let in_net = u(&r, "flows", "in_network_pkts");
        for f in 0..sent.len() {
            let rev_delivered = sim.flows()[f].stats.rev_delivered_pkts;
            assert_eq!(sent[f] + acks[f], delivered[f] + rev_delivered + lost[f] + ack_lost[f] + in_net[f], "flow {f}");
        }
        assert!(lost.iter().sum::<u64>() > 0, "the scenario should drop packets");
        for (i, p) in sim.ports().iter().enumerate() {
            let name = sim.port_name(i as u32);
            let queued = p.queue_len_pkts() as u64;
            let s = &p.stats;
            assert_eq!(s.arrivals_pkts, s.tx_pkts + s.total_drops() + queued, "port {name}");
        }
    }
}

#[test]
fn links_never_exceed_rate_and_queues_never_exceed_limit() {
    let (sim, r) = run_sim_seeded(&dumbbell(6, "10Mbps", "10ms", 25, "15s", &udp_extra()), None);
    let dur = r.end_time_s;
    for (i, p) in sim.ports().iter().enumerate() {
        let name = sim.port_name(i as u32);
        let bits = p.stats.tx_bytes as f64 * 8.0;
        // One packet may still be on its way out at the end; nothing more.
        assert!(bits <= p.rate_bps as f64 * dur + 1500.0 * 8.0, "{name} carried {bits} bits");
        assert!(p.stats.busy_ps <= sim.now() + 1_500 * 8 * 1_000_000_000_000 / p.rate_bps);
        if name == "r1->r2" {
            assert!(p.stats.max_queue_pkts() <= 25);
            assert_eq!(p.stats.max_queue_pkts(), 25, "the bottleneck should fill");
        } else {
            assert!(p.stats.max_queue_pkts() <= 100);
        }
    }
    let util: Vec<f64> = r.links.f64s("utilisation").to_vec();
    assert!(util.iter().all(|&x| (0.0..=1.0).contains(&x)));
}

#[test]
fn one_newreno_flow_fills_a_bdp_buffered_bottleneck() {
    // 10 Mbit/s, RTT = 2 * (1 + 20 + 1) ms = 44 ms: BDP = 55 kB, about 37 packets of 1500 B.
    let text = dumbbell(1, "10Mbps", "20ms", 37, "40s", "");
    let (_sim, r) = run_sim_seeded(&text, None);
    // Utilisation after slow start: bytes the bottleneck sent between 5 s and the end.
    let ps = &r.port_series;
    let t = ps.f64s("t_s");
    let names = ps.strs("port");
    let tx = ps.u64s("tx_bytes");
    let at = |time: f64| -> u64 {
        (0..t.len()).find(|&i| names[i] == "r1->r2" && (t[i] - time).abs() < 1e-9).map(|i| tx[i]).expect("sample")
    };
    let util = (at(40.0) - at(5.0)) as f64 * 8.0 / (10e6 * 35.0);
    assert!(util >= 0.95, "utilisation after slow start {util:.4}");
}

#[test]
fn two_equal_rtt_flows_share_fairly() {
    let text = dumbbell(2, "10Mbps", "20ms", 40, "60s", "");
    let (_sim, r) = run_sim_seeded(&text, None);
    let g = r.flows.f64s("goodput_bps");
    let j = jain_index(g);
    assert!(j >= 0.95, "Jain {j:.4} for goodputs {g:?}");
    let total: f64 = g.iter().sum();
    assert!(total > 0.9 * 10e6 * 1448.0 / 1500.0, "aggregate goodput {total}");
}

fn tables_equal(a: &Results, b: &Results) -> bool {
    let eq = |x: &pinchpoint_core::metrics::table::Table, y: &pinchpoint_core::metrics::table::Table| {
        x.columns.len() == y.columns.len()
            && x.columns.iter().zip(&y.columns).all(|((n1, c1), (n2, c2))| {
                n1 == n2
                    && match (c1, c2) {
                        (ColumnData::F64(p), ColumnData::F64(q)) => p.len() == q.len() && p.iter().zip(q).all(|(a, b)| a.to_bits() == b.to_bits()),
                        (ColumnData::U64(p), ColumnData::U64(q)) => p == q,
                        (ColumnData::Str(p), ColumnData::Str(q)) => p == q,
                        (ColumnData::Bool(p), ColumnData::Bool(q)) => p == q,
                        (ColumnData::I64(p), ColumnData::I64(q)) => p == q,
                        _ => false,
                    }
            })
    };
    eq(&a.flows, &b.flows) && eq(&a.ports, &b.ports) && eq(&a.links, &b.links) && eq(&a.flow_series, &b.flow_series) && eq(&a.port_series, &b.port_series)
}

#[test]
fn same_seed_gives_identical_results_and_another_seed_changes_poisson_arrivals() {
    let text = dumbbell(3, "10Mbps", "10ms", 20, "10s", &udp_extra());
    let (_, a) = run_sim_seeded(&text, Some(11));
    let (_, b) = run_sim_seeded(&text, Some(11));
    assert!(tables_equal(&a, &b));
    let (_, c) = run_sim_seeded(&text, Some(12));
    let udp = |r: &Results| {
        let i = r.flows.strs("flow").iter().position(|n| n == "udp").unwrap();
        r.flows.u64s("sent_pkts")[i]
    };
    assert_ne!(udp(&a), udp(&c), "a different seed should draw different Poisson gaps");
    // ~3 Mbit/s of 800-byte datagrams for 10 s: about 4690 packets either way.
    for r in [&a, &c] {
        let n = udp(r) as f64;
        assert!((n - 4687.5).abs() < 4.0 * 4687.5f64.sqrt(), "{n}");
    }
}

#[test]
fn finite_transfers_stop_the_run_and_report_completion_time() {
    let mut text = dumbbell(2, "10Mbps", "10ms", 30, "100s", "");
    text = text.replace("workload = { kind = \"bulk\" }", "workload = { kind = \"file\", size = \"500KB\" }");
    let (_, r) = run_sim_seeded(&text, None);
    assert!(r.end_time_s < 100.0, "stops when both files are done ({})", r.end_time_s);
    let fct = r.flows.f64s("fct_s");
    let delivered = r.flows.u64s("delivered_bytes");
    for i in 0..2 {
        assert_eq!(delivered[i], 500_000);
        // 1 MB over a shared 10 Mbit/s link takes at least 0.8 s in total.
        assert!(fct[i] > 0.4 && fct[i] < 5.0, "fct {}", fct[i]);
    }
}

#[test]
fn sack_recovers_a_slow_start_overshoot_without_the_timeouts_newreno_needs() {
    // One flow, 100 Mbit/s bottleneck, buffer half the BDP: slow start overshoots and loses a
    // burst of segments in one window.
    let base = dumbbell(1, "100Mbps", "10ms", 100, "10s", "");
    let with = |sack: bool| base.replace("workload = { kind = \"bulk\" }", &format!("workload = {{ kind = \"bulk\" }}\ntcp = {{ sack = {sack} }}"));
    let (_, on) = run_sim_seeded(&with(true), None);
    let (_, off) = run_sim_seeded(&with(false), None);
    let timeouts = |r: &Results| r.flows.u64s("timeouts")[0];
    let goodput = |r: &Results| r.flows.f64s("goodput_bps")[0];
    assert!(timeouts(&on) <= 1, "SACK timeouts {}", timeouts(&on));
    assert!(timeouts(&off) > timeouts(&on), "NewReno {} vs SACK {}", timeouts(&off), timeouts(&on));
    assert!(goodput(&on) > 0.85 * 100e6 * 1448.0 / 1500.0, "SACK goodput {}", goodput(&on));
    // Every retransmission of the SACK sender repairs a real loss.
    let retx = on.flows.u64s("retx_pkts")[0];
    let lost = on.flows.u64s("lost_pkts")[0];
    let off_retx = off.flows.u64s("retx_pkts")[0];
    eprintln!("SACK: timeouts {} retx {retx} lost {lost}; NewReno: timeouts {} retx {off_retx} lost {}", timeouts(&on), timeouts(&off), off.flows.u64s("lost_pkts")[0]);
    assert!(retx <= lost + 2, "retx {retx} lost {lost}");
}

#[test]
fn every_queue_discipline_conserves_packets_and_agrees_with_the_port_count() {
    for q in [
        "{ kind = \"droptail\", limit_pkts = 20 }",
        "{ kind = \"priority\", classes = 2, acks_first = true, limit_pkts = 20 }",
        "{ kind = \"rda\", limit_pkts = 30 }",
        "{ kind = \"rda_fp\", limit_pkts = 30 }",
        "{ kind = \"rda_vp\", limit_pkts = 30 }",
        "{ kind = \"sda\", limit_pkts = 30 }",
        "{ kind = \"isda\", limit_pkts = 30 }",
    ] {
        let text = dumbbell(4, "10Mbps", "10ms", 20, "8s", &udp_extra())
            .replacen("queue = { kind = \"droptail\", limit_pkts = 20 }", &format!("queue = {q}"), 1);
        let (sim, r) = run_sim_seeded(&text, None);
        let bottleneck = sim.port_named("r1->r2").unwrap();
        assert!(bottleneck.stats.total_drops() > 0, "{q}: the bottleneck should drop");
        for (i, p) in sim.ports().iter().enumerate() {
            let name = sim.port_name(i as u32);
            assert_eq!(p.waiting_pkts, p.queue_len_pkts(), "{q} at {name}");
            let s = &p.stats;
            assert_eq!(s.arrivals_pkts, s.tx_pkts + s.total_drops() + p.waiting_pkts as u64, "{q} at {name}");
        }
        assert!(r.flows.f64s("goodput_bps").iter().all(|&g| g > 0.0), "{q}: every flow gets through");
    }
}
