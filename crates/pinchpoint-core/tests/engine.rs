//! Engine accounting: what a link is credited with at the end of a run, and resource bounds.

use pinchpoint_core::load_toml;

/// One UDP source on a 1 Mbit/s link, sending faster than the link.
fn saturated_link(duration: &str, extra_sim: &str) -> String {
    format!(
        "[simulation]\nduration = \"{duration}\"\n{extra_sim}\n\
         [[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
         [[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = {{ kind = \"droptail\", limit_pkts = 10 }}\n\
         [[flows]]\nname = \"u\"\nsrc = \"a\"\ndst = \"b\"\ntransport = \"udp\"\n\
         workload = {{ kind = \"cbr\", rate = \"2Mbps\", packet_size = \"1500B\" }}\n"
    )
}

#[test]
fn a_link_is_never_credited_with_more_than_it_serialised() {
    // 1500 B at 1 Mbit/s take 12 ms. Ending 1 ms into a transmission used to credit the whole
    // packet: 10.001 s of run, 834 packets started, 833 finished.
    let mut sim = load_toml(&saturated_link("10.001s", ""), "t.toml", None).unwrap();
    sim.run();
    let r = sim.results();
    let links = &r.links;
    let i = links.strs("link").iter().position(|l| l == "a->b").unwrap();
    let tx_bytes = links.u64s("tx_bytes")[i];
    let busy = links.f64s("utilisation")[i];
    let thr = links.f64s("throughput_bps")[i];
    // Exactly the whole packets finished by 10.001 s: floor(10.001 / 0.012) = 833.
    assert_eq!(tx_bytes, 833 * 1500);
    assert!(thr <= 1e6, "throughput {thr} above the 1 Mbit/s rate");
    // Busy from t = 0 without a gap: utilisation is exactly 1, not above.
    assert!((busy - 1.0).abs() < 1e-12 && busy <= 1.0, "utilisation {busy}");
    // The port still counts the started packet (per-port conservation counts it as sent).
    let p = r.ports.strs("port").iter().position(|l| l == "a->b").unwrap();
    assert_eq!(r.ports.u64s("tx_pkts")[p], 834);
}

#[test]
fn a_run_past_the_live_packet_bound_stops_with_an_error_naming_it() {
    let text = saturated_link("10s", "max_live_packets = 5").replace("limit_pkts = 10", "limit_pkts = 100");
    let mut sim = load_toml(&text, "t.toml", None).unwrap();
    sim.run();
    let e = sim.error().expect("bound reached");
    assert!(e.contains("simulation.max_live_packets"), "{e}");
    assert!(sim.finished());
    assert!(sim.now() < 1_000_000_000_000, "stopped early");
}

#[test]
fn a_shaper_slower_than_its_source_stops_the_run_at_its_bound() {
    let text = saturated_link("30s", "max_shaper_pkts = 50")
        .replace("rate = \"1Mbps\"", "rate = \"100Mbps\"")
        .replace("packet_size = \"1500B\" }", "packet_size = \"1500B\" }\nshaper = { rate = \"100kbps\", bucket = \"3000B\" }");
    let mut sim = load_toml(&text, "t.toml", None).unwrap();
    sim.run();
    let e = sim.error().expect("shaper bound reached");
    assert!(e.contains("simulation.max_shaper_pkts") && e.contains("'u'"), "{e}");
}

#[test]
fn packets_held_by_a_shaper_are_counted_so_a_shaped_flow_conserves_packets() {
    // 2 Mbit/s of datagrams into a 1 Mbit/s shaper: the shaper holds a growing backlog.
    let text = saturated_link("3.0005s", "")
        .replace("rate = \"1Mbps\"", "rate = \"100Mbps\"")
        .replace("packet_size = \"1500B\" }", "packet_size = \"1500B\" }\nshaper = { rate = \"1Mbps\", bucket = \"1500B\" }");
    let mut sim = load_toml(&text, "t.toml", None).unwrap();
    sim.run();
    let r = sim.results();
    let f = &r.flows;
    let held = f.u64s("shaper_held_pkts")[0];
    assert!(held > 200, "held {held}");
    let sent = f.u64s("sent_pkts")[0];
    let accounted = f.u64s("delivered_pkts")[0] + f.u64s("lost_pkts")[0] + f.u64s("in_network_pkts")[0] + held;
    assert_eq!(sent, accounted);
}

#[test]
fn a_window_unlimited_burst_stopped_at_the_shaper_bound_still_conserves_packets() {
    // cc = "none" emits its whole window at once (thousands of segments) into a slow shaper
    // holding at most 50: the run stops at the bound, and every packet counted as sent is held,
    // in the network, delivered or lost (the fuzz campaign found 1.7 M sent against 100 k
    // accounted before the burst was cut at the bound).
    let text = "[simulation]\nduration = \"5s\"\nmax_shaper_pkts = 50\n\
         [[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
         [[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
         [[flows]]\nname = \"w\"\nsrc = \"a\"\ndst = \"b\"\ncc = \"none\"\n\
         workload = { kind = \"bulk\" }\nshaper = { rate = \"100kbps\", bucket = \"3000B\" }\n";
    let mut sim = load_toml(text, "t.toml", None).unwrap();
    sim.run();
    let e = sim.error().expect("shaper bound reached");
    assert!(e.contains("simulation.max_shaper_pkts"), "{e}");
    let r = sim.results();
    let f = &r.flows;
    let held = f.u64s("shaper_held_pkts")[0];
    assert_eq!(held, 51, "the bound plus the packet that reached it");
    let sent = f.u64s("sent_pkts")[0];
    let accounted = f.u64s("delivered_pkts")[0] + f.u64s("lost_pkts")[0] + f.u64s("in_network_pkts")[0] + held;
    assert_eq!(sent, accounted);
}
