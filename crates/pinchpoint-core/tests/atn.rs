//! ATN receiver-based congestion avoidance end to end (ATN WP/267): DECbit marking at the pinch
//! point, the `atn` credit policy at the receivers, senders without congestion control.

use pinchpoint_core::transport::credit::AnyReceiverPolicy;
use pinchpoint_core::transport::AnyTransport;
use pinchpoint_core::{load_toml, Simulation};

/// Senders s0..s{n-1} -> is1 -> (64 kbit/s) -> is2 -> receivers; each flow a 64 KB file.
fn pinch(n: usize, receiver: &str, extra_flow: &str) -> String {
    // DECbit marking only where a receiver counts the marks (a hook nothing reads is refused).
    let reads_marks = receiver.contains("\"atn\"") || extra_flow.contains("\"atn\"");
    let hook = if reads_marks { "hooks = [{ kind = \"decbit\" }]\n" } else { "" };
    let mut s = format!(
        "[simulation]\nduration = \"300s\"\n\
         [[nodes]]\nname = \"is1\"\nkind = \"router\"\n[[nodes]]\nname = \"is2\"\nkind = \"router\"\n\
         [[links]]\na = \"is1\"\nb = \"is2\"\nrate = \"64kbps\"\ndelay = \"10ms\"\n\
         queue = {{ kind = \"droptail\", limit_pkts = 50 }}\n{hook}",
    );
    for i in 0..n {
        s += &format!(
            "[[nodes]]\nname = \"s{i}\"\n[[nodes]]\nname = \"r{i}\"\n\
             [[links]]\na = \"s{i}\"\nb = \"is1\"\nrate = \"1Mbps\"\ndelay = \"5ms\"\n\
             [[links]]\na = \"is2\"\nb = \"r{i}\"\nrate = \"1Mbps\"\ndelay = \"5ms\"\n\
             [[flows]]\nname = \"f{i}\"\nsrc = \"s{i}\"\ndst = \"r{i}\"\nstart = \"{}ms\"\n\
             workload = {{ kind = \"file\", size = \"64KB\" }}\ncc = \"none\"\n\
             tcp = {{ mss = 500, header_bytes = 60, ack_bytes = 64, min_rto = \"1s\", dupack_threshold = 1000, receiver = {receiver} }}\n",
            i * 20
        );
    }
    s + extra_flow
}

fn load(text: &str) -> Simulation {
    load_toml(text, "atn-test.toml", None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn fixed_window_sender_never_exceeds_its_window() {
    let mut sim = load(&pinch(2, "{ kind = \"fixed\", window_pkts = 17 }", ""));
    let mut t = 0;
    let mut max_seen = 0;
    while !sim.finished() {
        t += 5 * pinchpoint_core::sim::PS_PER_MS;
        sim.run_until(t);
        for f in sim.flows() {
            if let AnyTransport::Tcp(c) = &f.transport {
                max_seen = max_seen.max(c.sender.in_flight());
                assert!(c.sender.in_flight() <= 17 * 500, "{} has {} bytes outstanding", f.name, c.sender.in_flight());
            }
        }
    }
    // The window is actually used (the limit is reached, not merely respected).
    assert_eq!(max_seen, 17 * 500);
}

#[test]
fn atn_transfers_avoid_loss_and_share_the_pinch_point() {
    let mut sim = load(&pinch(3, "{ kind = \"atn\" }", ""));
    sim.run();
    let r = sim.results();
    assert!(r.flows.u64s("lost_pkts").iter().all(|&x| x == 0), "no drops expected");
    assert!(r.flows.u64s("retx_pkts").iter().all(|&x| x == 0), "no retransmissions expected");
    let marks: u64 = r.ports.u64s("marks").iter().sum();
    assert!(marks > 0, "the pinch point should mark");
    let fct = r.flows.f64s("fct_s");
    let (lo, hi) = fct.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(hi / lo < 1.1, "transfer times {fct:?}");
    let (mut inc, mut dec) = (0, 0);
    for f in sim.flows() {
        let AnyTransport::Tcp(c) = &f.transport else { panic!() };
        let AnyReceiverPolicy::Atn(p) = c.receiver.policy() else { panic!() };
        assert!(p.stats.periods > 0 && p.srtt_ps().is_some(), "{}: {:?}", f.name, p.stats);
        // The receiver's own RTT estimate (from its credit) agrees with the sender's (from
        // timestamps) within a third.
        let (rx, tx) = (p.srtt_ps().unwrap() as f64, c.sender.report().srtt_ps as f64);
        assert!((rx / tx - 1.0).abs() < 0.34, "{}: receiver {rx} ps, sender {tx} ps", f.name);
        inc += p.stats.increases;
        dec += p.stats.decreases;
    }
    // The windows moved both ways (three flows on a path whose pipe holds about two packets
    // end at W = 1; the first one grew before the others came).
    assert!(inc > 0 && dec > 0);
}

#[test]
fn acknowledgements_never_reach_the_policy_in_two_way_traffic() {
    // A reverse ATN transfer r0 -> s0 shares the pinch point with f0 (ATN WP/267 s3.6): the
    // policy of f0 must have seen exactly f0's delivered data packets.
    let rev = "[[flows]]\nname = \"back\"\nsrc = \"r0\"\ndst = \"s0\"\nworkload = { kind = \"file\", size = \"64KB\" }\n\
               cc = \"none\"\ntcp = { mss = 500, header_bytes = 60, ack_bytes = 64, receiver = { kind = \"atn\" } }\n";
    let mut sim = load(&pinch(1, "{ kind = \"atn\" }", rev));
    sim.run();
    let r = sim.results();
    let delivered = r.flows.u64s("delivered_pkts");
    for (i, f) in sim.flows().iter().enumerate() {
        let AnyTransport::Tcp(c) = &f.transport else { panic!() };
        let AnyReceiverPolicy::Atn(p) = c.receiver.policy() else { panic!() };
        assert_eq!(p.stats.data_pkts, delivered[i], "{}", f.name);
        assert!(p.stats.counted_pkts <= p.stats.data_pkts);
    }
}

#[test]
fn split_tpdus_are_counted_per_network_packet_and_acknowledged_once() {
    // ATN WP/267 s5.2: each 500-byte TPDU crosses the network as two 250-byte packets.
    let text = pinch(1, "{ kind = \"atn\" }", "").replace("dupack_threshold = 1000,", "dupack_threshold = 1000, packets_per_segment = 2,");
    let mut sim = load(&text);
    sim.run();
    let r = sim.results();
    let tpdus = 64_000u64.div_ceil(500);
    assert_eq!(r.flows.u64s("sent_pkts")[0], 2 * tpdus);
    assert_eq!(r.flows.u64s("delivered_pkts")[0], 2 * tpdus);
    assert_eq!(r.flows.u64s("ack_pkts")[0], tpdus);
    assert_eq!(r.flows.u64s("delivered_bytes")[0], 64_000);
    let AnyTransport::Tcp(c) = &sim.flows()[0].transport else { panic!() };
    let AnyReceiverPolicy::Atn(p) = c.receiver.policy() else { panic!() };
    assert_eq!(p.stats.data_pkts, 2 * tpdus);
    assert!(p.stats.rtt_samples > 0);
}
