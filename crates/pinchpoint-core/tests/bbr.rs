//! Network behaviour of BBR (`transport/tcp/cc/bbr.rs`): what BBR v1 is known for, measured on
//! a simulated dumbbell. Each scenario runs a few simulated seconds.

mod common;

use common::{dumbbell_pair, dumbbell_routers, run};
use pinchpoint_core::metrics::stats::jain_index;
use pinchpoint_core::{load_toml, Results};

/// One bottleneck r1 -> r2 (`rate`, one-way `delay`, `queue`), every flow with its own hosts
/// (1 ms access links); `flows` are the extra TOML lines of each flow (`cc = ...`).
fn dumbbell(rate: &str, delay: &str, queue: &str, duration: &str, flows: &[&str]) -> String {
    let mut s = format!("[simulation]\nduration = \"{duration}\"\n[metrics]\nseries_interval = \"100ms\"\n");
    s += &dumbbell_routers(rate, delay, queue);
    for (i, extra) in flows.iter().enumerate() {
        s += &dumbbell_pair(i, "10Gbps", extra);
    }
    s
}

/// Mean of column `col` of the port series of `port` from `from_s` on.
fn port_mean(r: &Results, port: &str, col: &str, from_s: f64) -> f64 {
    let ps = &r.port_series;
    let (t, p, v) = (ps.f64s("t_s"), ps.strs("port"), ps.u64s(col));
    let xs: Vec<f64> = (0..t.len()).filter(|&i| p[i] == port && t[i] >= from_s).map(|i| v[i] as f64).collect();
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn goodputs(r: &Results) -> Vec<f64> {
    r.flows.f64s("goodput_bps").to_vec()
}

const BDP_PKTS: f64 = 20e6 * 0.044 / 8.0 / 1500.0;

#[test]
fn one_bbr_flow_fills_the_link_with_almost_no_queue() {
    // 20 Mbit/s, RTT 44 ms (BDP 110 kB = 73 packets of 1500 B), a 4-BDP buffer that never
    // overflows. Alone, BBR paces at its bandwidth estimate (x 1.25 one phase in 8): the queue
    // stays well under a BDP, and the cwnd cap (2 BDP + quanta) is not what limits it.
    let text = dumbbell("20Mbps", "20ms", "{ kind = \"droptail\", limit_pkts = 300 }", "12s", &["cc = \"bbr\""]);
    let r = run(&text);
    let goodput = goodputs(&r)[0];
    let queue_pkts = port_mean(&r, "r1->r2", "queue_pkts", 4.0);
    eprintln!("goodput {:.2} Mbit/s, mean queue after 4 s {queue_pkts:.1} packets (BDP {BDP_PKTS:.1})", goodput / 1e6);
    // Payload share of the wire: 1448 / 1500; over 12 s including startup.
    assert!(goodput > 0.95 * 20e6 * 1448.0 / 1500.0, "utilisation: {goodput}");
    assert!(queue_pkts < 0.25 * BDP_PKTS, "queue {queue_pkts} vs BDP {BDP_PKTS}");
    assert_eq!(r.flows.u64s("retx_pkts")[0], 0, "no loss with a 4-BDP buffer");
}

#[test]
fn bbr_takes_most_of_a_shallow_buffer_from_cubic_and_newreno() {
    // 20 Mbit/s, RTT 44 ms, a buffer of a fifth of the BDP: the loss-based flow backs off on
    // every loss; BBR's rate model ignores loss (Hock et al. 2017; Cardwell 2016).
    for other in ["cubic", "newreno"] {
        let text = dumbbell("20Mbps", "20ms", "{ kind = \"droptail\", limit_pkts = 15 }", "20s", &["cc = \"bbr\"", &format!("cc = \"{other}\"")]);
        let r = run(&text);
        let g = goodputs(&r);
        let share = g[0] / (g[0] + g[1]);
        eprintln!("bbr vs {other}: {:.2} / {:.2} Mbit/s, BBR share {share:.2}", g[0] / 1e6, g[1] / 1e6);
        assert!(share > 0.7, "{other}: BBR share {share}");
    }
}

#[test]
fn two_bbr_flows_converge_to_fair_shares() {
    let text = dumbbell("20Mbps", "20ms", "{ kind = \"droptail\", limit_pkts = 150 }", "30s", &["cc = \"bbr\"", "cc = \"bbr\""]);
    let r = run(&text);
    let g = goodputs(&r);
    let j = jain_index(&g);
    // Together they overestimate the bandwidth (each probe adds to the other's samples) and run
    // at the cwnd cap, 2 BDP in flight: about one BDP queued (Hock, Bless, Zitterbart, "Experimental
    // evaluation of BBR congestion control", ICNP 2017, s4).
    let queue_pkts = port_mean(&r, "r1->r2", "queue_pkts", 10.0);
    eprintln!("two BBR flows: {:.2} / {:.2} Mbit/s, Jain {j:.3}, mean queue after 10 s {queue_pkts:.1} packets", g[0] / 1e6, g[1] / 1e6);
    assert!(queue_pkts > 0.5 * BDP_PKTS && queue_pkts < 1.5 * BDP_PKTS, "queue {queue_pkts} vs BDP {BDP_PKTS}");
    assert!(j > 0.95, "Jain {j}");
    assert!(g[0] + g[1] > 0.9 * 20e6 * 1448.0 / 1500.0);
}

#[test]
fn bbr_runs_are_bit_identical_for_a_seed_and_the_start_phase_follows_the_seed() {
    let text = dumbbell("20Mbps", "20ms", "{ kind = \"droptail\", limit_pkts = 100 }", "4s", &["cc = \"bbr\"", "cc = \"bbr\""]);
    let a = goodputs(&run(&text));
    let b = goodputs(&run(&text));
    assert_eq!(a, b);
    let mut differs = false;
    for seed in 1..6 {
        let mut sim = load_toml(&text, "test.toml", Some(seed)).unwrap();
        sim.run();
        differs |= goodputs(&sim.results()) != a;
    }
    assert!(differs, "the random PROBE_BW start phase depends on the seed");
}

