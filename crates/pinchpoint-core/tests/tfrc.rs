//! TFRC (RFC 5348) on a simulated bottleneck: it follows its own equation, it shares with TCP,
//! and its rate is smoother than TCP's.

mod common;

use common::{bulk_flow, dumbbell_routers, host_pair};
use pinchpoint_core::sim::PS_PER_MS;
use pinchpoint_core::transport::tfrc::throughput_equation_bytes_per_s;
use pinchpoint_core::transport::AnyTransport;
use pinchpoint_core::{load_toml, Simulation};

/// A dumbbell: each flow has its own sender and receiver host, 100 Mbit/s 5 ms access links and
/// a shared `rate` bottleneck r1 -> r2 with 20 ms delay (base RTT 60 ms) and `queue`.
fn dumbbell(rate: &str, queue: &str, flows: &[(&str, &str)], duration_s: u32) -> String {
    let mut s = format!("[simulation]\nduration = \"{duration_s}s\"\nseed = 3\n");
    s += &dumbbell_routers(rate, "20ms", queue);
    for (i, (kind, extra)) in flows.iter().enumerate() {
        let (src, dst) = (format!("s{i}"), format!("d{i}"));
        s += &host_pair(&src, &dst, "100Mbps", "5ms", "5ms");
        s += &bulk_flow(&format!("{kind}{i}"), &src, &dst, i * 37, &format!("transport = \"{kind}\"\n{extra}"));
    }
    s
}

/// RED as ns-2 had it in 2001 (GAPS.md seed 004 s3: thresholds 5 / 15 packets, w_q 0.002,
/// max_p 0.1) through the RED-like `rda_vp` discipline (a plain `max_p` replaces its eq. 2).
const RED_2001: &str = "{ kind = \"rda_vp\", min_que_pkts = 5, max_que_pkts = 15, max_p = 0.1, weight = 0.002, mean_pkt_bytes = 1040, limit_pkts = 60 }";
const TCP_1000: &str = "tcp = { mss = 1000, header_bytes = 40, ack_bytes = 40 }";

fn load(text: &str) -> Simulation {
    load_toml(text, "tfrc-test.toml", None).unwrap_or_else(|e| panic!("{e}"))
}

/// Delivered bytes of every flow sampled every `step_ms` from `from_s` to the end.
fn delivered_series(sim: &mut Simulation, from_s: u64, step_ms: u64) -> Vec<Vec<u64>> {
    let end = sim.end();
    let mut t = from_s * 1000 * PS_PER_MS;
    sim.run_until(t);
    let mut rows = Vec::new();
    while t <= end {
        sim.run_until(t);
        rows.push(sim.flows().iter().map(|f| {
            use pinchpoint_core::transport::Transport;
            f.transport.report().delivered_bytes
        }).collect());
        t += step_ms * PS_PER_MS;
    }
    rows
}

/// Coefficient of variation of flow `j`'s rate over the intervals of `rows`.
fn cov(rows: &[Vec<u64>], j: usize) -> f64 {
    let rates: Vec<f64> = rows.windows(2).map(|w| (w[1][j] - w[0][j]) as f64).collect();
    let n = rates.len() as f64;
    let mean = rates.iter().sum::<f64>() / n;
    let var = rates.iter().map(|r| (r - mean) * (r - mean)).sum::<f64>() / n;
    var.sqrt() / mean
}

#[test]
fn one_tfrc_flow_gets_what_the_equation_gives_for_its_loss_event_rate() {
    let mut sim = load(&dumbbell("4Mbps", RED_2001, &[("tfrc", "")], 60));
    let rows = delivered_series(&mut sim, 10, 1000);
    let f = &sim.flows()[0];
    let AnyTransport::Tfrc(t) = &f.transport else { panic!("not tfrc") };
    let events = t.receiver.history().events() as f64;
    let pkts = t.receiver.received_pkts() as f64;
    assert!(events > 20.0, "only {events} loss events");
    // Measured loss-event rate: loss events per packet over the run; R: mean of the RTT samples.
    let p = events / pkts;
    let r = {
        use pinchpoint_core::transport::Transport;
        let rep = f.transport.report();
        rep.rtt_sum_ps / rep.rtt_samples as f64 * 1e-12
    };
    let predicted = throughput_equation_bytes_per_s(1000.0, r, p, 1.0);
    let measured = (rows.last().unwrap()[0] - rows[0][0]) as f64 / (rows.len() - 1) as f64;
    let ratio = measured / predicted;
    eprintln!("p = {p:.5}, R = {r:.4} s, measured {measured:.0} B/s, equation {predicted:.0} B/s, ratio {ratio:.3}");
    assert!((0.75..=1.25).contains(&ratio), "ratio {ratio}");
}

#[test]
fn tfrc_shares_a_red_bottleneck_with_tcp_within_25_percent_and_is_smoother() {
    let flows = [("tfrc", ""), ("tcp", TCP_1000), ("tfrc", ""), ("tcp", TCP_1000)];
    let mut sim = load(&dumbbell("8Mbps", RED_2001, &flows, 60));
    let rows = delivered_series(&mut sim, 10, 100);
    let total = |j: usize| (rows.last().unwrap()[j] - rows[0][j]) as f64;
    let tfrc = total(0) + total(2);
    let tcp = total(1) + total(3);
    let ratio = tfrc / tcp;
    let cov_tfrc = (cov(&rows, 0) + cov(&rows, 2)) / 2.0;
    let cov_tcp = (cov(&rows, 1) + cov(&rows, 3)) / 2.0;
    eprintln!("TFRC/TCP throughput {ratio:.3}; 100 ms CoV TFRC {cov_tfrc:.3}, TCP {cov_tcp:.3}");
    assert!((0.75..=1.25).contains(&ratio), "TFRC/TCP = {ratio}");
    assert!(cov_tfrc < cov_tcp, "CoV TFRC {cov_tfrc} vs TCP {cov_tcp}");
}

#[test]
fn with_self_clocking_the_rate_stays_within_one_and_a_half_times_the_bottleneck() {
    // X is capped at 1.5 X_recv (1 X_recv after a loss) and X_recv cannot exceed what the
    // bottleneck carries: 4 Mbit/s = 480 769 payload B/s with 1040 B packets. Checked every 10 ms
    // once the flow has seen its first loss (slow start is capped at 2 X_recv).
    let mut sim = load(&dumbbell("4Mbps", RED_2001, &[("tfrc", "tfrc = { self_clocking = true }")], 30));
    let cap = 4e6 / 8.0 * 1000.0 / 1040.0;
    let mut checked = 0;
    for k in 1..=3000u64 {
        sim.run_until(k * 10 * PS_PER_MS);
        let AnyTransport::Tfrc(t) = &sim.flows()[0].transport else { panic!("not tfrc") };
        if t.sender.loss_event_rate() > 0.0 {
            assert!(t.sender.rate_bytes_per_s() <= 1.5 * cap + 1.0, "X = {} at {k}0 ms", t.sender.rate_bytes_per_s());
            checked += 1;
        }
    }
    assert!(checked > 2000, "{checked}");
}

#[test]
fn tfrc_settings_on_a_tcp_flow_are_refused() {
    let text = dumbbell("4Mbps", RED_2001, &[("tcp", "tfrc = { self_clocking = true }")], 1);
    let e = load_toml(&text, "x.toml", None).err().expect("must be refused");
    assert!(e.to_string().contains("flows[0].tfrc"), "{e}");
    let text = dumbbell("4Mbps", RED_2001, &[("tfrc", "tfrc = { loss_intervals = 0 }")], 1);
    let e = load_toml(&text, "x.toml", None).err().expect("must be refused");
    assert!(e.to_string().contains("flows[0].tfrc.loss_intervals"), "{e}");
}

#[test]
fn tfrc_runs_are_deterministic() {
    let text = dumbbell("4Mbps", RED_2001, &[("tfrc", ""), ("tcp", TCP_1000)], 10);
    let run = || {
        let mut sim = load(&text);
        sim.run();
        use pinchpoint_core::transport::Transport;
        sim.flows().iter().map(|f| f.transport.report().delivered_bytes).collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}
