//! Built-in scenario generators shared by the benchmark, the Rust micro-benchmark and tests.

use super::schema::*;
use super::units::{Duration, Rate};
use crate::queue::{droptail::DropTailConfig, BufferLimit, QueueConfig};
use crate::sim::{secs_to_ps, PS_PER_MS};

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
