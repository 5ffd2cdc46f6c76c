//! The scenario file format (TOML, or the same structure as JSON from the Python builder).
//!
//! Every struct rejects unknown fields, every quantity takes a human unit (see [`super::units`]),
//! and [`super::validate`] checks what types alone cannot (names exist, the topology is
//! connected, rates are positive) and reports the field path of each problem.

use super::units::{Bytes, Duration, Rate};
use crate::port_hooks::HookConfig;
use crate::queue::QueueConfig;
use crate::transport::tcp::cc::CcConfig;
use crate::transport::credit::ReceiverConfig;
use serde::{Deserialize, Serialize};

/// A whole scenario.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name of the scenario.
    #[serde(default)]
    pub name: String,
    /// What the scenario is for, and where its numbers come from.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Run control.
    pub simulation: SimulationConfig,
    /// What to record beyond the summaries.
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// Hosts and routers.
    pub nodes: Vec<NodeConfig>,
    /// Full-duplex links between nodes.
    pub links: Vec<LinkConfig>,
    /// Explicit per-destination routes and timed route changes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<RouteConfig>,
    /// Transport flows and their workloads.
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// Arrival processes of transfers, each carried by a flow created at its arrival
    /// (`docs/traffic/arrivals.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arrivals: Vec<crate::traffic::arrivals::ArrivalConfig>,
}

/// Run control.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimulationConfig {
    /// Simulated time to run for.
    pub duration: Duration,
    /// Master random seed; every component's stream is derived from it.
    #[serde(default = "default_seed", deserialize_with = "seed_value")]
    pub seed: u64,
    /// Stop early once every finite workload has completed (bulk and CBR flows never complete).
    #[serde(default = "yes")]
    pub stop_when_done: bool,
    /// Path metric for the shortest-path routes: `hops` or `delay`.
    #[serde(default)]
    pub routing: RoutingMetric,
    /// Most packets alive at once (queued, in service or on a wire), 1 to 10^9. A run that
    /// would exceed it stops with an error naming this field. The default (4,000,000, about
    /// 450 MB of packet slots) is far above any finite-buffer scenario at the supported scales.
    #[serde(default = "default_max_live_packets")]
    pub max_live_packets: u64,
    /// Most packets one flow's shaper may hold back, 1 to 10^9 (default 100,000). A source
    /// faster than its shaper otherwise queues without bound.
    #[serde(default = "default_max_shaper_pkts")]
    pub max_shaper_pkts: u64,
}

/// Default of `simulation.max_live_packets`.
pub const DEFAULT_MAX_LIVE_PACKETS: u64 = 4_000_000;
/// Default of `simulation.max_shaper_pkts`.
pub const DEFAULT_MAX_SHAPER_PKTS: u64 = 100_000;
/// Most rows the time series may hold (flows and ports per sample times samples): a bound on
/// `metrics.series_interval` given the duration (50 million rows is about 2 GB of columns).
pub const MAX_SERIES_ROWS: u64 = 50_000_000;

fn default_max_live_packets() -> u64 {
    DEFAULT_MAX_LIVE_PACKETS
}
fn default_max_shaper_pkts() -> u64 {
    DEFAULT_MAX_SHAPER_PKTS
}

fn default_seed() -> u64 {
    1
}

/// A seed: a whole number from 0 to 2^63 - 1, the range of a TOML integer (the resolved
/// scenario writes it back as one) and of the results' int64 `seed` column. Read by hand so
/// that a number out of range says so (JSON writes 2**70 as a float, which serde reported as
/// `invalid type: floating point '1.18e21', expected u64`).
fn seed_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct V;
    const WANT: &str = "expected an integer from 0 to 2^63 - 1";
    impl serde::de::Visitor<'_> for V {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an integer from 0 to 2^63 - 1")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
            if v > i64::MAX as u64 {
                return Err(E::custom(format!("{WANT}, got {v}")));
            }
            Ok(v)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("{WANT}, got {v}")))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<u64, E> {
            Err(E::custom(format!("{WANT}, got {}", crate::sim::units::float_text(v))))
        }
    }
    d.deserialize_any(V)
}
fn yes() -> bool {
    true
}

/// How shortest paths are measured.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RoutingMetric {
    /// Fewest hops (ties broken by declaration order of links).
    #[default]
    Hops,
    /// Least total propagation delay.
    Delay,
}

/// What to record beyond the summary tables.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Sample every time series at this interval (flows: bytes, window, RTT; ports: queue).
    /// Absent: no time series.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_interval: Option<Duration>,
    /// Record every delivered data packet (time, flow, end-to-end delay, size, CE bit).
    #[serde(default)]
    pub packet_trace: bool,
    /// Record every queue-length change on these ports (names like `r1->r2`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queue_trace: Vec<String>,
    /// Record every packet these ports start to transmit, with its header fields (for pcap
    /// export: `pinchpoint run --pcap PORT`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capture: Vec<String>,
    /// Record each flow's delivered bytes in fixed intervals of this length (the `flow_rates`
    /// table) and the coefficient of variation of those rates (`rate_cov` in the flows table).
    /// Absent: neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_interval: Option<Duration>,
}

/// A node.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    /// Unique name.
    pub name: String,
    /// `host` (runs transports) or `router` (forwards only).
    #[serde(default)]
    pub kind: NodeKind,
}

/// Host or router.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// Runs transports; its link ports are its NIC queues.
    #[default]
    Host,
    /// Forwards packets.
    Router,
}

/// A full-duplex link: two simplex channels, each with an output port at its sending end.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// One end.
    pub a: String,
    /// The other end.
    pub b: String,
    /// Transmission rate of each direction.
    pub rate: Rate,
    /// Propagation delay of each direction.
    pub delay: Delay,
    /// Rate of the b->a direction if it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_ba: Option<Rate>,
    /// Queue discipline of both output ports (default: drop-tail, 100 packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueConfig>,
    /// Queue discipline of the a->b port, overriding `queue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_ab: Option<QueueConfig>,
    /// Queue discipline of the b->a port, overriding `queue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_ba: Option<QueueConfig>,
    /// Port hooks on both output ports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<HookConfig>,
    /// Port hooks on the a->b port only (in addition to `hooks`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks_ab: Vec<HookConfig>,
    /// Port hooks on the b->a port only (in addition to `hooks`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks_ba: Vec<HookConfig>,
    /// Random loss on the wire in both directions, each direction with its own random stream
    /// (`{ kind = "bernoulli", p = 0.01 }` or `gilbert_elliott`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<crate::net::loss::LossConfig>,
}

/// Alias kept for readability of the schema: a propagation delay.
pub type Delay = Duration;

/// An explicit route: at `node`, packets for `dst` leave towards `next_hop`, from time `at` on.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteConfig {
    /// Node where the rule applies.
    pub node: String,
    /// Destination node the rule is for.
    pub dst: String,
    /// Neighbour of `node` to forward to.
    pub next_hop: String,
    /// When the rule takes effect (default: from the start). Packets already in flight keep
    /// the route they were sent on.
    #[serde(default)]
    pub at: Duration,
}

/// A transport flow from `src` to `dst` and what it carries.
#[derive(Clone, Debug, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct FlowConfig {
    /// Unique name.
    pub name: String,
    /// Sending host.
    pub src: String,
    /// Receiving host.
    pub dst: String,
    /// When the workload starts.
    #[serde(default)]
    pub start: Duration,
    /// Add a uniform random delay in [0, start_jitter) to `start`, drawn from the flow's own
    /// stream (so it is reproducible under a seed): breaks the lock-step of many flows that
    /// would otherwise start, lose and time out at exactly the same instants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_jitter: Option<Duration>,
    /// What the flow carries.
    pub workload: WorkloadConfig,
    /// TRUMP settings (only with `transport = "trump"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trump: Option<crate::transport::trump::TrumpConfig>,
    /// TFRC settings (only with `transport = "tfrc"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tfrc: Option<crate::transport::tfrc::TfrcConfig>,
    /// Per-flow token-bucket shaper between the transport and the NIC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shaper: Option<ShaperConfig>,
    /// Transport, controller, TCP settings, WTP shaping, priority and group (written inline,
    /// as in an `[[arrivals]]` entry; see [`FlowSettings`]).
    #[serde(flatten)]
    pub settings: FlowSettings,
}

/// Every key of a `[[flows]]` entry, in the order an unknown key's error lists them.
const FLOW_KEYS: &[&str] = &["name", "src", "dst", "start", "start_jitter", "workload", "transport", "cc", "tcp", "trump", "tfrc", "shaper", "wtp", "priority", "group"];

impl<'de> Deserialize<'de> for FlowConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        super::flat::deserialize(d, FLOW_KEYS, |split| FlowConfig::deserialize(split), |f, s| f.settings = s)
    }
}

impl Serialize for FlowConfig {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let s = &self.settings;
        let mut t = ser.serialize_struct("FlowConfig", FLOW_KEYS.len())?;
        t.serialize_field("name", &self.name)?;
        t.serialize_field("src", &self.src)?;
        t.serialize_field("dst", &self.dst)?;
        t.serialize_field("start", &self.start)?;
        some_field(&mut t, "start_jitter", &self.start_jitter)?;
        t.serialize_field("workload", &self.workload)?;
        t.serialize_field("transport", &s.transport)?;
        some_field(&mut t, "cc", &s.cc)?;
        t.serialize_field("tcp", &s.tcp)?;
        some_field(&mut t, "trump", &self.trump)?;
        some_field(&mut t, "tfrc", &self.tfrc)?;
        some_field(&mut t, "shaper", &self.shaper)?;
        some_field(&mut t, "wtp", &s.wtp)?;
        t.serialize_field("priority", &s.priority)?;
        some_field(&mut t, "group", &s.group)?;
        t.end()
    }
}

/// Writes an optional field, or skips it when absent (serde's `skip_serializing_if = "Option::is_none"`).
pub(crate) fn some_field<S: serde::ser::SerializeStruct, T: Serialize>(t: &mut S, key: &'static str, v: &Option<T>) -> Result<(), S::Error> {
    match v {
        Some(_) => t.serialize_field(key, v),
        None => t.skip_field(key),
    }
}

/// The settings a `[[flows]]` entry and an `[[arrivals]]` entry share, written inline in
/// either (`scenario::flat`), validated by one function (`validate::check_flow`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(default)]
pub struct FlowSettings {
    /// `tcp` (reliable, windowed), `udp` (unresponsive), `tfrc` (equation-based rate control)
    /// or `trump`; an arrival process's transfers are `tcp` only.
    pub transport: TransportKind,
    /// Congestion controller of a TCP flow (default `newreno`).
    pub cc: Option<CcConfig>,
    /// TCP settings.
    pub tcp: TcpConfig,
    /// ECA Weighted Token-bucket Pacing (`docs/algorithms/wtp.md`): a shaper whose rate follows
    /// the reflected path load (`shaper::wtp`); the receiver reflects LOAD. Excludes `shaper`.
    /// Seed 003 s4.B.4 shapes its HTTP transfers like every other flow.
    pub wtp: Option<crate::shaper::wtp::WtpConfig>,
    /// Scheduling priority of the flow's data packets (0 = highest) at priority ports.
    pub priority: u8,
    /// Group label for aggregates (the `groups` table); an arrival process's default is its name.
    pub group: Option<String>,
}

impl super::flat::SharedFields for FlowSettings {
    const KEYS: &'static [&'static str] = &["transport", "cc", "tcp", "wtp", "priority", "group"];
    fn read_value<'de, M: serde::de::MapAccess<'de>>(&mut self, key: &str, map: &mut M) -> Result<(), M::Error> {
        match key {
            "transport" => self.transport = map.next_value()?,
            "cc" => self.cc = map.next_value()?,
            "tcp" => self.tcp = map.next_value()?,
            "wtp" => self.wtp = map.next_value()?,
            "priority" => self.priority = map.next_value()?,
            "group" => self.group = map.next_value()?,
            _ => return Err(serde::de::Error::unknown_field(key, Self::KEYS)),
        }
        Ok(())
    }
}

/// Reliable windowed transport or unresponsive datagrams.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// TCP-like reliable byte stream.
    #[default]
    Tcp,
    /// Unresponsive datagrams (CBR, Poisson).
    Udp,
    /// TRUMP: rate-based reliable transport paced by RBCC routers' explicit rates.
    Trump,
    /// TCP-Friendly Rate Control (RFC 5348), bulk workload only.
    Tfrc,
}

impl TransportKind {
    /// The name used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Tcp => "tcp",
            TransportKind::Udp => "udp",
            TransportKind::Trump => "trump",
            TransportKind::Tfrc => "tfrc",
        }
    }
}

pub use crate::traffic::WorkloadConfig;

/// TCP settings; defaults follow Linux where RFCs leave a choice (see docs/algorithms/tcp.md).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Maximum segment size (payload bytes per segment).
    pub mss: u32,
    /// Header bytes added to each data segment on the wire (IP + TCP + options + framing).
    pub header_bytes: u32,
    /// Size of a pure acknowledgement on the wire.
    pub ack_bytes: u32,
    /// Initial congestion window in segments (RFC 6928: 10).
    pub init_cwnd_pkts: u32,
    /// Lower bound of the retransmission timeout (RFC 6298 says 1 s; Linux uses 200 ms).
    pub min_rto: Duration,
    /// Retransmission timeout before the first RTT sample (RFC 6298: 1 s).
    pub initial_rto: Duration,
    /// Upper bound of the retransmission timeout (RFC 6298: at least 60 s).
    pub max_rto: Duration,
    /// Delayed acknowledgements (RFC 1122 / 5681: every second segment or after the timeout).
    pub delayed_ack: bool,
    /// Delayed-ACK timeout.
    pub delayed_ack_timeout: Duration,
    /// Largest window the receiver advertises (its buffer); none: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_window: Option<Bytes>,
    /// Receiver window policy (default: advertise `max_window`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver: Option<ReceiverConfig>,
    /// Negotiate ECN: data is ECT, CE marks are echoed, the sender reacts once per window.
    pub ecn: bool,
    /// Duplicate acknowledgements that trigger fast retransmit (RFC 5681: 3). With recovery =
    /// "rack_tlp" it is Linux's `tp->reordering` instead: while no reordering has been seen,
    /// RACK's reordering window is 0 once this many segments are SACKed (RFC 8985 s6.2).
    pub dupack_threshold: u32,
    /// Selective acknowledgements (RFC 2018). Default: on, as in Linux, unless `recovery` is
    /// "reno" or "newreno" (which do not read them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    /// Loss recovery, chosen apart from `cc`: "sack" (RFC 6675), "rack_tlp" (RFC 8985 RACK-TLP on
    /// the SACK scoreboard, Linux's default loss detection), "newreno" (RFC 6582) or "reno"
    /// (RFC 5681 s3.2). Default: "sack" when SACK is on, else "newreno".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<crate::transport::tcp::Recovery>,
    /// Proportional rate reduction (RFC 6937) during SACK recovery. Default: on (Linux, ns-3's
    /// `TcpPrrRecovery`). Only meaningful with recovery = "sack" or "rack_tlp".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prr: Option<bool>,
    /// D-SACK (RFC 2883; Linux's sysctl `tcp_dsack`): the receiver reports a segment that
    /// arrives twice; a RACK-TLP sender widens its reordering window on it once reordering has
    /// been seen (RFC 8985 s6.2 step 4, as Linux) and undoes a recovery whose retransmissions
    /// all come back as duplicates (`undo`). Default: on with recovery = "rack_tlp" (as Linux),
    /// else off; only "rack_tlp" reads D-SACKs here, so it is refused with any other recovery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dsack: Option<bool>,
    /// Undo a window reduction that proves spurious (Linux `tcp_try_undo_*`, always on there):
    /// when D-SACKs report every retransmission of a recovery or timeout as a duplicate
    /// (RFC 3708), or an acknowledgement echoes a timestamp older than its first retransmission
    /// (the Eifel detection, RFC 3522), the window and ssthresh go back to what they were.
    /// Default: on with recovery = "rack_tlp"; only "rack_tlp" undoes here, so it is refused
    /// with any other recovery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undo: Option<bool>,
    /// F-RTO (RFC 5682, the SACK-enhanced version; Linux's sysctl `tcp_frto = 2`): after a
    /// retransmission timeout, the first acknowledgement that advances sends new data instead of
    /// resending, and an acknowledgement of data never resent shows the timeout spurious, which
    /// is then undone. Default: on with recovery = "rack_tlp" and undo (as Linux); refused with
    /// any other recovery, and on with undo = false (its verdict is an undo).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frto: Option<bool>,
    /// Pace transmissions (Linux internal pacing): at the controller's rate if it gives one,
    /// else 2x cwnd/srtt in slow start and 1.2x in congestion avoidance; the first 10 segments
    /// go back to back. Default off (Linux paces only with fq or a controller that asks).
    pub pacing: bool,
    /// Network packets each segment (TPDU) is split into, for paths whose MTU is smaller than
    /// the segment (ATN WP/267 s5.2). Each packet carries an equal share of the payload plus
    /// `header_bytes`; the receiver acknowledges once per segment. Default 1.
    pub packets_per_segment: u32,
    /// Open the connection with a SYN / SYN-ACK exchange before any data (RFC 9293 s3.5); the
    /// SYN is retransmitted after `initial_rto`, backing off (RFC 6298 s5.5). Default off: data
    /// starts at the flow's start time.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub handshake: bool,
    /// SYN and SYN-ACK carry ECT (RFC 8311 s4.3 / "ECN++"). Default off, as RFC 3168 s6.1.1
    /// requires: an ECN RED queue then drops them where it would mark. Needs `handshake` and `ecn`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ect_on_syn: bool,
    /// SYN retransmissions before the connection attempt fails (Linux `tcp_syn_retries`,
    /// default 6: the last SYN at 63 s, failure at 127 s with a 1 s initial RTO). Needs `handshake`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syn_retries: Option<u32>,
    /// Restart the window after idle (Linux's sysctl `tcp_slow_start_after_idle`; RFC 5681 s4.1,
    /// RFC 2861): when data is sent with nothing in flight more than an RTO after the last data
    /// segment, ssthresh becomes at least 3/4 cwnd and cwnd is halved once per RTO of idle time,
    /// but not below min(initial window, cwnd). Default off, as ns-3 (Linux's default is on).
    /// Refused where no sender can go idle (bulk and file workloads) and with `cc` "bbr" or "none".
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub slow_start_after_idle: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1448,
            header_bytes: 52,
            ack_bytes: 52,
            init_cwnd_pkts: 10,
            min_rto: Duration(200 * crate::sim::PS_PER_MS),
            initial_rto: Duration(crate::sim::PS_PER_S),
            max_rto: Duration(60 * crate::sim::PS_PER_S),
            delayed_ack: false,
            delayed_ack_timeout: Duration(40 * crate::sim::PS_PER_MS),
            max_window: None,
            receiver: None,
            ecn: false,
            dupack_threshold: 3,
            sack: None,
            recovery: None,
            prr: None,
            dsack: None,
            undo: None,
            frto: None,
            pacing: false,
            packets_per_segment: 1,
            handshake: false,
            ect_on_syn: false,
            syn_retries: None,
            slow_start_after_idle: false,
        }
    }
}

/// A token bucket: `rate` with bursts up to `bucket` bytes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShaperConfig {
    /// Token fill rate.
    pub rate: Rate,
    /// Bucket depth (largest burst).
    pub bucket: Bytes,
}
