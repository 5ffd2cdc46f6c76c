//! `tcp.recovery = "rack_tlp"` (RFC 8985 RACK-TLP) in whole scenarios: reordering from route
//! changes that RFC 6675's duplicate threshold takes for loss and RACK does not, a tail loss in
//! a short transfer, and packet conservation and repeatability on a lossy dumbbell.

mod common;

use common::{dumbbell_pair, dumbbell_routers, run_sim_seeded};
use pinchpoint_core::Results;

/// A 10 Mbit/s access link a -> s, then three 1 Gbit/s paths s -> r{1,2,3} -> b whose one-way
/// delays are 20, 18.5 and 14.5 ms (minimum RTT about 45 ms, so min_RTT / 4 about 11 ms). Routes
/// move the flow from r1 to r2 at 1 s (one segment overtaken: 1.5 ms against 1.25 ms per
/// segment) and to r3 at 2 s (4 ms: three segments overtaken, RFC 6675's duplicate threshold).
/// The paths behind the access link are fast, so nothing queues where the route changes and
/// the reordering is the delay difference only. The receiver window (48 KB, below the path's
/// 56 KB) keeps the access queue from overflowing: there is no loss at all.
fn reordering_scenario(recovery: &str) -> String {
    let mut s = String::from("[simulation]\nduration = \"3s\"\nrouting = \"delay\"\n");
    for n in ["a", "b"] {
        s += &format!("[[nodes]]\nname = \"{n}\"\n");
    }
    for n in ["s", "r1", "r2", "r3"] {
        s += &format!("[[nodes]]\nname = \"{n}\"\nkind = \"router\"\n");
    }
    let link = |a: &str, b: &str, rate: &str, delay: &str| format!("[[links]]\na = \"{a}\"\nb = \"{b}\"\nrate = \"{rate}\"\ndelay = \"{delay}\"\n");
    s += &link("a", "s", "10Mbps", "1ms");
    for (r, d) in [("r1", "19ms"), ("r2", "17500us"), ("r3", "13500us")] {
        // The delay sits before each router, so that every router's own way to b is its
        // direct link (routing by delay would otherwise send r1's traffic back through s).
        s += &link("s", r, "1Gbps", d);
        s += &link(r, "b", "1Gbps", "500us");
    }
    for (at, hop) in [("0s", "r1"), ("1s", "r2"), ("2s", "r3")] {
        s += &format!("[[routes]]\nnode = \"s\"\ndst = \"b\"\nnext_hop = \"{hop}\"\nat = \"{at}\"\n");
    }
    s + &format!(
        "[[flows]]\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\nworkload = {{ kind = \"bulk\" }}\n\
         tcp = {{ recovery = \"{recovery}\", max_window = \"48KB\" }}\n"
    )
}

fn flow_u64(r: &Results, col: &str) -> u64 {
    r.flows.u64s(col)[0]
}

#[test]
fn route_changes_that_reorder_within_min_rtt_over_4_cost_rack_no_retransmission() {
    let (_, sack) = run_sim_seeded(&reordering_scenario("sack"), None);
    let (_, rack) = run_sim_seeded(&reordering_scenario("rack_tlp"), None);
    for r in [&sack, &rack] {
        assert_eq!(flow_u64(r, "lost_pkts"), 0, "the scenario must not drop");
    }
    assert!(flow_u64(&sack, "retx_pkts") >= 1, "RFC 6675 retransmits a reordered segment: {}", flow_u64(&sack, "retx_pkts"));
    assert!(flow_u64(&sack, "fast_retx") >= 1);
    assert_eq!(flow_u64(&rack, "retx_pkts"), 0, "RACK waits out the reordering");
    assert_eq!(flow_u64(&rack, "fast_retx"), 0);
    assert_eq!(flow_u64(&rack, "timeouts"), 0);
}

/// `n` files of `size` over a 10 Mbit/s dumbbell with 10 ms of delay and a `buffer`-packet
/// bottleneck, with `tcp`.
fn files(n: usize, size: &str, buffer: u32, tcp: &str, extra: &str) -> String {
    let mut s = String::from("[simulation]\nduration = \"30s\"\n");
    s += &dumbbell_routers("10Mbps", "10ms", &format!("{{ kind = \"droptail\", limit_pkts = {buffer} }}"));
    s += extra;
    for i in 0..n {
        s += &dumbbell_pair(i, "1Gbps", &format!("tcp = {tcp}"));
    }
    s.replace("workload = { kind = \"bulk\" }", &format!("workload = {{ kind = \"file\", size = \"{size}\" }}"))
}

#[test]
fn rack_tlp_conserves_packets_and_repeats_on_a_lossy_dumbbell() {
    let text = files(4, "2MB", 12, "{ recovery = \"rack_tlp\" }", "loss = { kind = \"bernoulli\", p = 0.01 }\n");
    let (sim, a) = run_sim_seeded(&text, Some(5));
    let (_, b) = run_sim_seeded(&text, Some(5));
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows), "same seed, same results");
    assert_eq!(format!("{:?}", a.ports), format!("{:?}", b.ports));
    let f = |c: &str| a.flows.u64s(c).to_vec();
    let (sent, acks, delivered, lost, ack_lost, in_net) = (f("sent_pkts"), f("ack_pkts"), f("delivered_pkts"), f("lost_pkts"), f("ack_lost_pkts"), f("in_network_pkts"));
    assert!(lost.iter().sum::<u64>() > 0, "the scenario should drop packets");
    for i in 0..sent.len() {
        let rev = sim.flows()[i].stats.rev_delivered_pkts;
        assert_eq!(sent[i] + acks[i], delivered[i] + rev + lost[i] + ack_lost[i] + in_net[i], "flow {i}");
    }
    for (i, p) in sim.ports().iter().enumerate() {
        let s = &p.stats;
        assert_eq!(s.arrivals_pkts, s.tx_pkts + s.total_drops() + p.queue_len_pkts() as u64, "port {}", sim.port_name(i as u32));
    }
    // Every file arrives whole.
    assert!(a.flows.u64s("delivered_bytes").iter().all(|&d| d == 2_000_000), "{:?}", a.flows.u64s("delivered_bytes"));
    assert!(a.flows.f64s("fct_s").iter().all(|t| t.is_finite()));
}

#[test]
fn short_transfers_through_a_small_buffer_time_out_less_with_rack_tlp() {
    // Twenty 30 KB files at once into an 8-packet bottleneck buffer: losses at the ends of
    // transfers (tails) are common. The tail loss probe repairs many without the timer.
    let timeouts = |recovery: &str| {
        let (_, r) = run_sim_seeded(&files(20, "30KB", 8, &format!("{{ recovery = \"{recovery}\" }}"), ""), Some(3));
        assert!(r.flows.u64s("delivered_bytes").iter().all(|&d| d == 30_000));
        (r.flows.u64s("timeouts").iter().sum::<u64>(), r.flows.u64s("lost_pkts").iter().sum::<u64>())
    };
    let (sack, sack_lost) = timeouts("sack");
    let (rack, rack_lost) = timeouts("rack_tlp");
    assert!(sack_lost > 0 && rack_lost > 0);
    assert!(rack < sack, "timeouts: rack_tlp {rack}, sack {sack}");
}

#[test]
fn the_flows_table_counts_rack_s_probes_and_marks_and_they_account_for_its_retransmissions() {
    // The short transfers above: RACK's columns appear only in a run with a RACK-TLP flow.
    let (_, sack) = run_sim_seeded(&files(20, "30KB", 8, "{ recovery = \"sack\" }", ""), Some(3));
    for col in ["tlp_probes", "tlp_recoveries", "rack_marked_lost_segs"] {
        assert!(sack.flows.get(col).is_none(), "{col} without a RACK-TLP flow");
    }
    let (_, r) = run_sim_seeded(&files(20, "30KB", 8, "{ recovery = \"rack_tlp\" }", ""), Some(3));
    let f = |c: &str| r.flows.u64s(c).to_vec();
    let (probes, repaired, marked, retx, timeouts) = (f("tlp_probes"), f("tlp_recoveries"), f("rack_marked_lost_segs"), f("retx_pkts"), f("timeouts"));
    // A probe that resends a file's last segment is acknowledged up to TLP.end_seq, not beyond:
    // Linux counts no TCPLossProbeRecovery for it either (`tcp_process_tlp_ack`), so only the
    // probes are required here.
    assert!(probes.iter().sum::<u64>() > 0, "tail losses are probed: {probes:?}");
    assert!(marked.iter().sum::<u64>() > 0);
    let mut checked = 0;
    for i in 0..probes.len() {
        assert!(repaired[i] <= probes[i], "flow {i}");
        // Without a timeout (whose go-back-N resends are counted nowhere else), a RACK sender
        // retransmits only segments RACK marked lost and retransmitted probes.
        if timeouts[i] == 0 {
            assert!(retx[i] <= marked[i] + probes[i], "flow {i}: {} retransmissions, {} marked, {} probes", retx[i], marked[i], probes[i]);
            checked += 1;
        }
    }
    assert!(checked > 0, "some flow never timed out");
}
