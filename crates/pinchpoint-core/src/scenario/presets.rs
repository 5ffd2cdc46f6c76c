//! Built-in scenario generators shared by the benchmark, the Rust micro-benchmark and tests.

use super::schema::*;
use super::units::{Duration, Rate};
use crate::queue::{droptail::DropTailConfig, BufferLimit, QueueConfig};
use crate::sim::{secs_to_ps, PS_PER_MS};

/// Buffer of [`dumbbell_scaled`]'s bottleneck per flow, packets: the bench dumbbell's 100 packets
/// over its 10 flows at N = 10.
pub const SCALED_BUFFER_PKTS_PER_FLOW: u32 = 10;

/// The benchmark dumbbell with a bottleneck that grows with the flows: `n` x `per_flow_bps` and
/// [`SCALED_BUFFER_PKTS_PER_FLOW`] packets of drop-tail buffer per flow, everything else as in
/// [`dumbbell`]. Each flow then has the same share of rate and buffer at every `n`, so the
/// number of packets alive grows with `n` (in the bench dumbbell 100,000 flows share 100 Mbit/s
/// and most sit in retransmission backoff). `dumbbell_scaled(10, s, 10e6)` is `dumbbell(10, s)`
/// but for its name. `pinchpoint bench --per-flow-mbps`, issue 13 (bench/README.md).
pub fn dumbbell_scaled(n: usize, sim_s: f64, per_flow_bps: f64) -> Scenario {
    let mut sc = dumbbell(n, sim_s);
    let bottleneck = &mut sc.links[0];
    debug_assert_eq!((bottleneck.a.as_str(), bottleneck.b.as_str()), ("A", "B"));
    bottleneck.rate = Rate(per_flow_bps * n as f64);
    let limit_pkts = u32::try_from(n).unwrap_or(u32::MAX).saturating_mul(SCALED_BUFFER_PKTS_PER_FLOW);
    bottleneck.queue = Some(QueueConfig::DropTail(DropTailConfig { limit: BufferLimit { limit_pkts: Some(limit_pkts), limit_bytes: None } }));
    sc.name = format!("dumbbell-scaled-{n}");
    sc.description = format!("Benchmark dumbbell, bottleneck {} Mbit/s and {} packets of buffer per flow.", per_flow_bps / 1e6, SCALED_BUFFER_PKTS_PER_FLOW);
    sc
}

/// The benchmark dumbbell: `n` senders on 1 Gbit/s 1 ms links to router A, A-B 100 Mbit/s 10 ms
/// with a 100-packet drop-tail buffer, B to `n` receivers on 1 Gbit/s 1 ms links; one NewReno
/// bulk flow per sender, all starting at 0; MSS 1448. Every other buffer holds 100 packets too.
/// TCP settings mirror the ns-3 side of `pinchpoint bench --against ns3` (see bench/README.md).
pub fn dumbbell(n: usize, sim_s: f64) -> Scenario {
    let q = || Some(QueueConfig::DropTail(DropTailConfig { limit: BufferLimit { limit_pkts: Some(100), limit_bytes: None } }));
    let mut nodes = vec![
        NodeConfig { name: "A".into(), kind: NodeKind::Router },
        NodeConfig { name: "B".into(), kind: NodeKind::Router },
    ];
    let mut links = vec![LinkConfig {
        a: "A".into(),
        b: "B".into(),
        rate: Rate(100e6),
        delay: Duration(10 * PS_PER_MS),
        rate_ba: None,
        queue: q(),
        queue_ab: None,
        queue_ba: None,
        hooks: vec![],
        hooks_ab: vec![],
        hooks_ba: vec![],
        loss: None,
    }];
    let mut flows = Vec::with_capacity(n);
    let tcp = TcpConfig {
        mss: 1448,
        // ns-3 on the wire: 20 IP + 20 TCP + 12 timestamp option + 2 PPP = 54 bytes.
        header_bytes: 54,
        ack_bytes: 54,
        init_cwnd_pkts: 10,
        min_rto: Duration(200 * PS_PER_MS),
        delayed_ack: false,
        sack: Some(true),
        // The ns-3 side of the benchmark runs TcpClassicRecovery (bench/README.md): SACK
        // recovery with cwnd = ssthresh, no PRR.
        prr: Some(false),
        ..TcpConfig::default()
    };
    for i in 0..n {
        let s = format!("s{i}");
        let d = format!("d{i}");
        nodes.push(NodeConfig { name: s.clone(), kind: NodeKind::Host });
        nodes.push(NodeConfig { name: d.clone(), kind: NodeKind::Host });
        for (a, b) in [(s.clone(), "A".to_string()), ("B".to_string(), d.clone())] {
            links.push(LinkConfig {
                a,
                b,
                rate: Rate(1e9),
                delay: Duration(PS_PER_MS),
                rate_ba: None,
                queue: q(),
                queue_ab: None,
                queue_ba: None,
                hooks: vec![],
                hooks_ab: vec![],
                hooks_ba: vec![],
                loss: None,
            });
        }
        flows.push(FlowConfig {
            name: format!("f{i}"),
            src: s,
            dst: d,
            start: Duration(0),
            start_jitter: None,
            workload: WorkloadConfig::Bulk,
            trump: None,
            tfrc: None,
            shaper: None,
            settings: FlowSettings { transport: TransportKind::Tcp, tcp: tcp.clone(), ..Default::default() },
        });
    }
    Scenario {
        name: format!("dumbbell-{n}"),
        description: "Benchmark dumbbell (pinchpoint bench).".into(),
        simulation: SimulationConfig { duration: Duration(secs_to_ps(sim_s)), seed: 1, stop_when_done: true, max_live_packets: DEFAULT_MAX_LIVE_PACKETS, max_shaper_pkts: DEFAULT_MAX_SHAPER_PKTS, routing: RoutingMetric::Hops },
        metrics: MetricsConfig::default(),
        nodes,
        links,
        routes: vec![],
        flows,
        arrivals: vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scaled_dumbbell_at_ten_flows_and_ten_mbits_each_is_the_bench_dumbbell() {
        let mut scaled = dumbbell_scaled(10, 2.0, 10e6);
        let plain = dumbbell(10, 2.0);
        assert_ne!(scaled.name, plain.name);
        scaled.name = plain.name.clone();
        scaled.description = plain.description.clone();
        assert_eq!(serde_json::to_string(&scaled).unwrap(), serde_json::to_string(&plain).unwrap());
    }

    #[test]
    fn the_scaled_bottleneck_carries_what_its_flows_share() {
        // 40 flows at 2 Mbit/s each: an 80 Mbit/s bottleneck with 400 packets of buffer. Bulk
        // TCP fills it, so the flows' goodput adds up to nearly 80 Mbit/s of payload (1448 of
        // every 1502 bytes), not to the bench dumbbell's 100.
        let n = 40;
        let mut sim = crate::build(&dumbbell_scaled(n, 4.0, 2e6), None, "scaled").unwrap();
        sim.run();
        let r = sim.results();
        let goodput: f64 = r.flows.f64s("goodput_bps").iter().sum();
        let payload_share = 1448.0 / 1502.0;
        assert!(goodput > 0.85 * 80e6 * payload_share && goodput <= 80e6 * payload_share, "goodput {goodput}");
    }
}
