//! Workloads and link loss in a network: any transport pulls from any workload, and a lossy
//! link loses its fraction of what crosses it.

use pinchpoint_core::load_toml;

fn two_hosts(link_extra: &str, flow: &str, duration: &str) -> String {
    format!(
        "[simulation]\nduration = \"{duration}\"\n\
         [[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
         [[links]]\na = \"a\"\nb = \"b\"\nrate = \"100Mbps\"\ndelay = \"5ms\"\n{link_extra}\n\
         [[flows]]\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\n{flow}\n"
    )
}

#[test]
fn a_bernoulli_link_loses_its_fraction_of_the_packets_and_counts_them_apart_from_queue_drops() {
    // 8 Mbit/s of 1000-byte datagrams for 100 s: 100,000 packets, p = 0.01: 1000 expected lost,
    // standard error sqrt(100000 * 0.01 * 0.99) = 31.5.
    let text = two_hosts(
        "loss = { kind = \"bernoulli\", p = 0.01 }",
        "transport = \"udp\"\nworkload = { kind = \"cbr\", rate = \"8Mbps\", packet_size = 1000 }",
        "100.001s",
    );
    let mut sim = load_toml(&text, "t.toml", Some(9)).unwrap();
    sim.run();
    let r = sim.results();
    let p = r.ports.strs("port").iter().position(|l| l == "a->b").unwrap();
    let lost = r.ports.u64s("link_losses_pkts")[p];
    let sent = r.flows.u64s("sent_pkts")[0];
    assert_eq!(sent, 100_002); // one per ms from 0 to 100.001 s inclusive
    assert!((lost as f64 - 1000.0).abs() < 3.0 * 31.5, "lost {lost}");
    assert_eq!(r.ports.u64s("drops")[p], 0, "link losses are not queue drops");
    assert_eq!(r.flows.u64s("lost_pkts")[0], lost, "the flow sees them as lost");
    assert_eq!(r.flows.u64s("delivered_pkts")[0] + lost + r.flows.u64s("in_network_pkts")[0], sent);
}

#[test]
fn tcp_carries_a_square_wave_workload_at_the_offered_rate() {
    // 2 Mbit/s while on, half of each 1 s period, for 20 s: 2.5 MB offered in all; TCP on an idle
    // 100 Mbit/s path delivers what is offered, not more.
    let text = two_hosts("", "workload = { kind = \"square_wave\", rate = \"2Mbps\", packet_size = 1000, period = \"1s\", duty = 0.5, duration = \"20s\" }", "21s");
    let mut sim = load_toml(&text, "t.toml", None).unwrap();
    sim.run();
    let r = sim.results();
    let delivered = r.flows.u64s("delivered_bytes")[0];
    // One 1000-byte message per 4 ms for 500 ms: 125 per period, 20 periods.
    assert_eq!(delivered, 20 * 125 * 1000);
}

#[test]
fn udp_refuses_a_workload_without_messages_naming_the_field() {
    let text = two_hosts("", "transport = \"udp\"\nworkload = { kind = \"bulk\" }", "1s");
    let e = load_toml(&text, "t.toml", None).err().expect("refused").to_string();
    assert!(e.contains("flows[0].workload.kind") && e.contains("bulk"), "{e}");
    let text = two_hosts("loss = { kind = \"bernoulli\", p = 1.5 }", "workload = { kind = \"bulk\" }", "1s");
    let e = load_toml(&text, "t.toml", None).err().expect("refused").to_string();
    assert!(e.contains("links[0].loss.p"), "{e}");
    let text = two_hosts("", "transport = \"udp\"\nworkload = { kind = \"square_wave\", rate = \"1Mbps\", packet_size = 100, period = \"1s\", duty = 0 }", "1s");
    let e = load_toml(&text, "t.toml", None).err().expect("refused").to_string();
    assert!(e.contains("flows[0].workload.duty"), "{e}");
}
