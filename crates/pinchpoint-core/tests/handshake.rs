//! TCP connection set-up in a network (seed 003 s4.B.4): behind an ECN RED queue kept busy by
//! long ECN flows, Not-ECT SYNs are dropped where ECT packets are marked, so short transfers
//! that do not set ECT on their SYN wait out SYN timeouts; with ECT on SYN they are marked and
//! go on.

mod common;

use common::run;
use pinchpoint_core::load_toml;

/// A 10 Mbit/s dumbbell with an ECN RED bottleneck, `long` bulk ECN flows from t = 0 and
/// `short` 10-segment ECN transfers with a handshake, one every 250 ms from t = 2 s.
fn scenario(long: usize, short: usize, ect_on_syn: bool) -> String {
    let mut s = String::from(
        "[simulation]\nduration = \"30s\"\n\
         [[nodes]]\nname = \"r1\"\nkind = \"router\"\n[[nodes]]\nname = \"r2\"\nkind = \"router\"\n\
         [[links]]\na = \"r1\"\nb = \"r2\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
         queue = { kind = \"red\", ecn = true, min_th_pkts = 5, max_th_pkts = 30, max_p = 0.2, limit_pkts = 200 }\n\
         [[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
         [[links]]\na = \"a\"\nb = \"r1\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n\
         [[links]]\na = \"r2\"\nb = \"b\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n",
    );
    for i in 0..long {
        s += &format!("[[flows]]\nname = \"long{i}\"\nsrc = \"a\"\ndst = \"b\"\nstart = \"{}ms\"\nworkload = {{ kind = \"bulk\" }}\ntcp = {{ ecn = true }}\n", i * 3);
    }
    for i in 0..short {
        s += &format!(
            "[[flows]]\nname = \"short{i}\"\nsrc = \"a\"\ndst = \"b\"\nstart = \"{}ms\"\nworkload = {{ kind = \"file\", size = \"14480B\" }}\n\
             tcp = {{ ecn = true, handshake = true, ect_on_syn = {ect_on_syn} }}\n",
            2000 + i * 250
        );
    }
    s
}

#[test]
fn with_ect_on_syn_short_transfers_behind_an_ecn_red_queue_lose_no_syn_and_finish_sooner() {
    let (long, short) = (8, 80);
    let mut fct_mean = [0.0; 2];
    let mut retx = [0u64; 2];
    for (k, ect) in [false, true].into_iter().enumerate() {
        let r = run(&scenario(long, short, ect));
        let names = r.flows.strs("flow");
        let fct = r.flows.f64s("fct_s");
        let syn_retx = r.flows.u64s("syn_retransmits");
        let hs = r.flows.f64s("handshake_s");
        let mut sum = 0.0;
        for i in 0..names.len() {
            if !names[i].starts_with("short") {
                assert!(hs[i].is_nan(), "long flows run no handshake");
                continue;
            }
            assert!(fct[i].is_finite(), "{} did not complete", names[i]);
            assert!(hs[i] >= 0.022 && hs[i] < fct[i], "{}: handshake {} s, fct {} s", names[i], hs[i], fct[i]);
            sum += fct[i];
            retx[k] += syn_retx[i];
        }
        fct_mean[k] = sum / short as f64;
        let marks = r.ports.u64s("marks")[r.ports.strs("port").iter().position(|p| p == "r1->r2").unwrap()];
        eprintln!("ect_on_syn = {ect}: SYN retransmits {}, mean fct {:.3} s, marks {marks}", retx[k], fct_mean[k]);
        assert!(marks > 0, "the RED queue marks");
    }
    assert!(retx[0] >= 2, "Not-ECT SYNs are dropped where the queue marks: {} retransmits", retx[0]);
    assert_eq!(retx[1], 0, "ECT SYNs are marked, never dropped, below max_th");
    assert!(fct_mean[1] < fct_mean[0], "short transfers finish sooner with ECT on SYN: {fct_mean:?}");
    // Each lost SYN costs at least the 1 s initial RTO.
    assert!(fct_mean[0] - fct_mean[1] > 0.5 * retx[0] as f64 / short as f64, "{fct_mean:?}");
}

#[test]
fn without_a_handshake_the_flows_table_has_no_handshake_columns() {
    let text = scenario(1, 0, false);
    let r = run(&text);
    assert!(r.flows.get("handshake_s").is_none() && r.flows.get("syn_retransmits").is_none());
}

#[test]
fn connection_set_up_settings_are_refused_where_they_would_have_no_effect() {
    let base = scenario(0, 1, false);
    for (from, to, path) in [
        ("ect_on_syn = false", "ect_on_syn = true", None),
        ("ecn = true, handshake = true, ect_on_syn = false", "ecn = false, handshake = true, ect_on_syn = true", Some("flows[0].tcp.ect_on_syn")),
        ("handshake = true, ect_on_syn = false", "handshake = false, syn_retries = 3", Some("flows[0].tcp.syn_retries")),
        ("handshake = true, ect_on_syn = false", "handshake = true, syn_retries = 200", Some("flows[0].tcp.syn_retries")),
        ("workload = { kind = \"file\", size = \"14480B\" }\n", "transport = \"udp\"\nworkload = { kind = \"cbr\", rate = \"1Mbps\", packet_size = \"1000B\" }\n", Some("flows[0].tcp.handshake")),
    ] {
        assert_eq!(base.matches(from).count(), 1, "{from}");
        let text = base.replacen(from, to, 1);
        match (load_toml(&text, "t.toml", None), path) {
            (Ok(_), None) => {}
            (Ok(_), Some(p)) => panic!("accepted, expected an error at {p}"),
            (Err(e), None) => panic!("refused: {e}"),
            (Err(e), Some(p)) => assert!(e.to_string().contains(&format!("{p}:")), "{e}"),
        }
    }
}
