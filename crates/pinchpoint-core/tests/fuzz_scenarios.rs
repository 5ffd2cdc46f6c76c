//! Fuzzing of the scenario parser, builder and engine (issue 14, "fuzzing in the tree").
//!
//! Two property targets:
//! - `mutated_bundled_scenarios_are_accepted_or_refused_never_a_panic`: random edits of the
//!   bundled scenarios (`scenarios/**/*.toml`) go through `load_toml`, which must return `Ok` or
//!   `Err`, never panic;
//! - `random_valid_scenarios_conserve_packets_respect_rates_and_limits_and_repeat`: small random
//!   valid scenarios are built and run, and their results checked against the invariants
//!   (per-flow and per-port conservation including shaper-held packets, throughput at most the
//!   rate, queue at most its limit, determinism, resolved scenario re-validates and reruns
//!   bit-identically).
//!
//! `cargo test` runs 64 + 16 cases. The long campaign (`make fuzz`) sets
//! `PINCHPOINT_FUZZ_CASES=N`: N parser cases and N / 50 random scenarios (at least 16);
//! `PINCHPOINT_FUZZ_SCENARIOS` overrides the second count.

use pinchpoint_core::queue::QUEUE_KINDS;
use pinchpoint_core::scenario::{from_toml_str, to_toml_string};
use pinchpoint_core::transport::tcp::cc::CC_KINDS;
use pinchpoint_core::{build, Results, Simulation};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::path::{Path, PathBuf};

fn env_count(name: &str) -> Option<u32> {
    std::env::var(name).ok().map(|v| v.trim().parse().unwrap_or_else(|_| panic!("{name}={v}: expected a whole number")))
}

fn parser_cases() -> u32 {
    env_count("PINCHPOINT_FUZZ_CASES").unwrap_or(64)
}

fn scenario_cases() -> u32 {
    env_count("PINCHPOINT_FUZZ_SCENARIOS").unwrap_or_else(|| env_count("PINCHPOINT_FUZZ_CASES").map_or(16, |n| (n / 50).max(16)))
}

/// With `PINCHPOINT_FUZZ_PROGRESS=N`, prints every N-th case of `what` with the wall time so
/// far, so a campaign stopped early says how far it got.
fn progress(what: &str, counter: &std::sync::atomic::AtomicU64, t0: std::time::Instant) {
    let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    let every: u64 = std::env::var("PINCHPOINT_FUZZ_PROGRESS").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    if every > 0 && n % every == 0 {
        eprintln!("{what}: {n} cases in {:.0} s", t0.elapsed().as_secs_f64());
    }
}

fn runner(cases: u32) -> TestRunner {
    // A fixed seed by default so `cargo test` is reproducible; a campaign may set
    // PROPTEST_RNG_SEED (proptest's own variable) to explore elsewhere.
    let seed: u64 = std::env::var("PROPTEST_RNG_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(14);
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config { cases, failure_persistence: None, max_shrink_iters: 64, ..Config::default() };
    TestRunner::new_with_rng(config, proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &seed_bytes))
}

// ---- (a) mutated bundled scenarios ----------------------------------------------------------

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "toml") {
            out.push(p);
        }
    }
}

fn bundled_scenarios() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = Vec::new();
    toml_files(&root, &mut files);
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/base_scenario.toml");
    files.push(base);
    files.into_iter().map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap())).collect()
}

/// Replacement numbers: huge, negative, NaN, infinite, zero, tiny, off-by-one at integer widths.
const NUMBERS: &[&str] = &[
    "0", "-0", "0.0", "-1", "-1e9", "1e400", "-1e400", "nan", "inf", "-inf", "1e-300", "1e30", "255", "256", "65535", "65536",
    "4294967295", "4294967296", "9007199254740993", "18446744073709551615", "18446744073709551616", "1.5", "0.5", "1e15", "1e16", "2",
];
/// Units of every quantity kind, plus nonsense.
const UNITS: &[&str] = &["bps", "kbps", "Mbps", "Gbps", "Tbps", "s", "ms", "us", "ns", "ps", "B", "KB", "MB", "GB", "KiB", "pkts", "", "x", " "];
/// Replacement strings for a quoted value.
const STRINGS: &[&str] = &[
    "", " ", "0", "-1s", "nanMbps", "infbps", "1e400Mbps", "-5ms", "1e-6bps", "4294967296B", "1ns", "0s", "NaNs", "10 Mbps", "10Mbps10",
    "\u{e9}\u{1f600}", "r", "a", "b", "router", "host", "droptail", "red", "tcp", "udp", "tfrc", "trump", "cubic", "delay", "hops",
];

#[derive(Clone, Debug)]
enum Mutation {
    /// Replace the k-th number of the line.
    Number(usize, usize),
    /// Replace the unit after the k-th number of the line.
    Unit(usize, usize),
    /// Replace the k-th quoted string of the line.
    Str(usize, usize),
    /// Delete the line.
    Delete,
    /// Duplicate the line.
    Duplicate,
    /// Copy the line to another place.
    Move(usize),
    /// Garble one character of the line.
    Garble(usize, char),
    /// Cut the file short here.
    Truncate,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 0..NUMBERS.len()).prop_map(|(k, i)| Mutation::Number(k, i)),
        3 => (any::<usize>(), 0..UNITS.len()).prop_map(|(k, i)| Mutation::Unit(k, i)),
        3 => (any::<usize>(), 0..STRINGS.len()).prop_map(|(k, i)| Mutation::Str(k, i)),
        2 => Just(Mutation::Delete),
        2 => Just(Mutation::Duplicate),
        1 => any::<usize>().prop_map(Mutation::Move),
        1 => (any::<usize>(), prop_oneof![Just('='), Just('"'), Just('['), Just('{'), Just(','), Just('\n'), any::<char>()]).prop_map(|(k, c)| Mutation::Garble(k, c)),
        1 => Just(Mutation::Truncate),
    ]
}

/// Byte spans of the numbers of a line (digits with sign, dot, exponent) outside comments.
fn number_spans(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'#' {
            break;
        }
        let starts = b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if starts {
            let s = if i > 0 && (b[i - 1] == b'-' || b[i - 1] == b'+') { i - 1 } else { i };
            let mut e = i;
            while e < b.len() && (b[e].is_ascii_digit() || b[e] == b'.' || ((b[e] == b'e' || b[e] == b'E') && e + 1 < b.len() && (b[e + 1].is_ascii_digit() || b[e + 1] == b'-'))) {
                e += if b[e] == b'e' || b[e] == b'E' { 2 } else { 1 };
            }
            spans.push((s, e.min(b.len())));
            i = e.max(i + 1);
        } else {
            i += 1;
        }
    }
    spans
}

/// Byte spans of the quoted strings' contents of a line.
fn string_spans(line: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut open = None;
    for (i, c) in line.char_indices() {
        match (c, open) {
            ('#', None) => break,
            ('"', None) => open = Some(i + 1),
            ('"', Some(s)) => {
                spans.push((s, i));
                open = None;
            }
            _ => {}
        }
    }
    spans
}

fn mutate(text: &str, edits: &[(usize, Mutation)]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for (at, m) in edits {
        if lines.is_empty() {
            break;
        }
        let n = at % lines.len();
        let line = lines[n].clone();
        match m {
            Mutation::Number(k, i) => {
                let spans = number_spans(&line);
                if let Some(&(s, e)) = spans.get(k % spans.len().max(1)) {
                    lines[n] = format!("{}{}{}", &line[..s], NUMBERS[*i], &line[e..]);
                }
            }
            Mutation::Unit(k, i) => {
                let spans = number_spans(&line);
                if let Some(&(_, e)) = spans.get(k % spans.len().max(1)) {
                    let rest = &line[e..];
                    let unit_len = rest.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(rest.len());
                    lines[n] = format!("{}{}{}", &line[..e], UNITS[*i], &rest[unit_len..]);
                }
            }
            Mutation::Str(k, i) => {
                let spans = string_spans(&line);
                if let Some(&(s, e)) = spans.get(k % spans.len().max(1)) {
                    lines[n] = format!("{}{}{}", &line[..s], STRINGS[*i], &line[e..]);
                }
            }
            Mutation::Delete => {
                lines.remove(n);
            }
            Mutation::Duplicate => lines.insert(n, line),
            Mutation::Move(to) => {
                let to = to % lines.len();
                lines.insert(to, line);
            }
            Mutation::Garble(k, c) => {
                let idx: Vec<usize> = line.char_indices().map(|(i, _)| i).collect();
                if !idx.is_empty() {
                    let s = idx[k % idx.len()];
                    let e = line[s..].chars().next().map_or(s, |ch| s + ch.len_utf8());
                    lines[n] = format!("{}{}{}", &line[..s], c, &line[e..]);
                }
            }
            Mutation::Truncate => lines.truncate(n),
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_bundled_scenarios_are_accepted_or_refused_never_a_panic() {
    let files = bundled_scenarios();
    assert!(files.len() > 50, "found {} bundled scenarios", files.len());
    let strategy = (0..files.len(), proptest::collection::vec((any::<usize>(), mutation()), 1..6));
    let (count, t0) = (std::sync::atomic::AtomicU64::new(0), std::time::Instant::now());
    let result = runner(parser_cases()).run(&strategy, |(file, edits)| {
        progress("parser", &count, t0);
        let (name, text) = &files[file];
        let mutated = mutate(text, &edits);
        // Ok or Err are both fine; a panic fails the case (proptest catches it and shrinks).
        let _ = pinchpoint_core::load_toml(&mutated, name, None);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// ---- (b) random valid scenarios -------------------------------------------------------------

#[derive(Clone, Debug)]
struct LinkSpec {
    rate_kbps: u32,
    delay_us: u32,
    queue: usize,
    limit_pkts: u32,
}

#[derive(Clone, Debug)]
enum FlowSpec {
    /// `sack`: 0 no SACK (NewReno), 1 SACK recovery (RFC 6675), 2 RACK-TLP (RFC 8985, with
    /// D-SACK, undo and F-RTO by default), 3 RACK-TLP without D-SACK, 4 RACK-TLP without undo
    /// (nor F-RTO), 5 RACK-TLP without F-RTO.
    Tcp { cc: usize, file_kb: Option<u32>, mss: u32, sack: u8, rcv_buf_bytes: Option<u32> },
    Udp { workload: usize, rate_kbps: u32, packet_bytes: u32 },
    Tfrc,
}

#[derive(Clone, Debug)]
struct FlowSetup {
    spec: FlowSpec,
    reverse: bool,
    start_ms: u32,
    shaper: Option<(u32, u32)>,
}

#[derive(Clone, Debug)]
struct ScenarioSpec {
    links: Vec<LinkSpec>,
    flows: Vec<FlowSetup>,
    duration_ms: u32,
    seed: u64,
    series_ms: Option<u32>,
}

/// Receiver buffers (`tcp.max_window`) drawn for `cc = "none"` flows, which only the receiver's
/// window limits: 4 KiB to 6 MiB, from a small embedded stack to Linux's default `tcp_rmem`
/// maximum (6 MiB; ns-3's default buffer, 128 KiB, lies inside). A quarter of the `none` flows
/// keep the default, the largest window TCP can advertise (2^30 bytes), with an MSS of at
/// least 1,000 bytes: that sender emits up to 2^30 / MSS segments at its start and after each
/// timeout (the first port drops all but its queue), about 1.3 s of wall time per run at 1,000
/// bytes against 17 s at 100 bytes (docs/fuzzing.md). Other controllers keep the default.
const RCV_BUF_BYTES: std::ops::Range<u32> = 4096..6_291_457;
/// Smallest MSS drawn for a `none` flow with the default (2^30-byte) receiver window.
const MIN_MSS_UNLIMITED_NONE: u32 = 1000;

fn link_spec() -> impl Strategy<Value = LinkSpec> {
    (100u32..100_000, 0u32..20_000, 0..QUEUE_KINDS.len(), 2u32..200).prop_map(|(rate_kbps, delay_us, queue, limit_pkts)| LinkSpec { rate_kbps, delay_us, queue, limit_pkts })
}

fn flow_setup() -> impl Strategy<Value = FlowSetup> {
    let spec = prop_oneof![
        3 => (0..CC_KINDS.len(), proptest::option::of(1u32..400), 100u32..1500, 0u8..6, proptest::option::weighted(0.75, RCV_BUF_BYTES))
            .prop_map(|(cc, file_kb, mss, sack, rcv_buf_bytes)| FlowSpec::Tcp { cc, file_kb, mss, sack, rcv_buf_bytes }),
        2 => (0usize..4, 10u32..20_000, 40u32..1500).prop_map(|(workload, rate_kbps, packet_bytes)| FlowSpec::Udp { workload, rate_kbps, packet_bytes }),
        1 => Just(FlowSpec::Tfrc),
    ];
    (spec, proptest::bool::weighted(0.2), 0u32..300, proptest::option::weighted(0.3, (50u32..20_000, 1500u32..20_000)))
        .prop_map(|(spec, reverse, start_ms, shaper)| FlowSetup { spec, reverse, start_ms, shaper })
}

fn scenario_spec() -> impl Strategy<Value = ScenarioSpec> {
    (1usize..=3)
        .prop_flat_map(|routers| {
            (
                proptest::collection::vec(link_spec(), routers + 1),
                proptest::collection::vec(flow_setup(), 1..=6),
                200u32..=2000,
                any::<u64>(),
                proptest::option::weighted(0.5, 10u32..200),
            )
        })
        .prop_map(|(links, flows, duration_ms, seed, series_ms)| ScenarioSpec { links, flows, duration_ms, seed, series_ms })
}

/// A chain `a - r1 - ... - rN - b`; flows go from a to b (or back).
fn scenario_text(s: &ScenarioSpec) -> String {
    let routers = s.links.len() - 1;
    let mut t = format!("name = \"fuzz\"\n[simulation]\nduration = \"{}ms\"\nseed = {}\n", s.duration_ms, s.seed >> 11);
    if let Some(ms) = s.series_ms {
        t += &format!("[metrics]\nseries_interval = \"{ms}ms\"\n");
    }
    let mut names = vec!["a".to_string()];
    names.extend((1..=routers).map(|i| format!("r{i}")));
    names.push("b".to_string());
    for n in &names {
        let kind = if n.starts_with('r') { "router" } else { "host" };
        t += &format!("[[nodes]]\nname = \"{n}\"\nkind = \"{kind}\"\n");
    }
    // Every flow crosses every link of the chain, so one DCTCP flow reads every link's hook (a
    // marking hook that no flow reads is refused).
    let reads_marks = s.flows.iter().any(|f| matches!(f.spec, FlowSpec::Tcp { cc, .. } if CC_KINDS[cc] == "dctcp"));
    for (i, l) in s.links.iter().enumerate() {
        // A CE-marking hook on every port when a DCTCP flow (ecn = true) runs: it needs one on
        // its path (ECN with nothing to pair with is refused), and it touches no other packet.
        t += &format!(
            "[[links]]\na = \"{}\"\nb = \"{}\"\nrate = \"{}kbps\"\ndelay = \"{}us\"\nqueue = {{ kind = \"{}\", limit_pkts = {} }}\n",
            names[i], names[i + 1], l.rate_kbps, l.delay_us, QUEUE_KINDS[l.queue], l.limit_pkts
        );
        if reads_marks {
            t += &format!("hooks = [{{ kind = \"ce_threshold\", threshold_pkts = {} }}]\n", (l.limit_pkts / 2).max(1));
        }
    }
    for (i, f) in s.flows.iter().enumerate() {
        let (src, dst) = if f.reverse { ("b", "a") } else { ("a", "b") };
        // A start at or after the end of the run is refused (the flow would never start), so
        // the drawn start (0 to 299 ms) is taken modulo the duration (at least 200 ms).
        t += &format!("[[flows]]\nname = \"f{i}\"\nsrc = \"{src}\"\ndst = \"{dst}\"\nstart = \"{}ms\"\n", f.start_ms % s.duration_ms);
        match &f.spec {
            FlowSpec::Tcp { cc, file_kb, mss, sack, rcv_buf_bytes } => {
                let workload = match file_kb {
                    Some(kb) => format!("{{ kind = \"file\", size = \"{kb}KB\" }}"),
                    None => "{ kind = \"bulk\" }".to_string(),
                };
                // Every controller, `none` included: a window-unlimited burst stopped at
                // `simulation.max_shaper_pkts` used to leave packets counted as sent but neither
                // held nor injected; the burst now stops at the bound (tests/engine.rs).
                let cc = CC_KINDS[*cc];
                let (mss, buf) = match (cc, rcv_buf_bytes) {
                    ("none", Some(b)) => (*mss, format!(", max_window = \"{b}B\"")),
                    ("none", None) => ((*mss).max(MIN_MSS_UNLIMITED_NONE), String::new()),
                    _ => (*mss, String::new()),
                };
                let sack = match sack {
                    0 => "sack = false",
                    1 => "sack = true",
                    2 => "sack = true, recovery = \"rack_tlp\"",
                    3 => "sack = true, recovery = \"rack_tlp\", dsack = false",
                    4 => "sack = true, recovery = \"rack_tlp\", undo = false",
                    _ => "sack = true, recovery = \"rack_tlp\", frto = false",
                };
                t += &format!("transport = \"tcp\"\ncc = \"{cc}\"\nworkload = {workload}\ntcp = {{ mss = {mss}, {sack}, ecn = {}{buf} }}\n", cc == "dctcp");
            }
            FlowSpec::Udp { workload, rate_kbps, packet_bytes } => {
                let w = match workload {
                    0 => format!("{{ kind = \"cbr\", rate = \"{rate_kbps}kbps\", packet_size = \"{packet_bytes}B\" }}"),
                    1 => format!("{{ kind = \"poisson\", rate = \"{rate_kbps}kbps\", packet_size = \"{packet_bytes}B\" }}"),
                    2 => format!("{{ kind = \"on_off\", rate = \"{rate_kbps}kbps\", packet_size = \"{packet_bytes}B\", on = \"50ms\", off = \"30ms\" }}"),
                    _ => format!("{{ kind = \"square_wave\", rate = \"{rate_kbps}kbps\", packet_size = \"{packet_bytes}B\", period = \"100ms\", duty = 0.5 }}"),
                };
                t += &format!("transport = \"udp\"\nworkload = {w}\n");
            }
            FlowSpec::Tfrc => t += "transport = \"tfrc\"\nworkload = { kind = \"bulk\" }\n",
        }
        if let Some((rate_kbps, bucket)) = f.shaper {
            t += &format!("shaper = {{ rate = \"{rate_kbps}kbps\", bucket = \"{bucket}B\" }}\n");
        }
    }
    t
}

/// Every table of a run as text (f64 `Debug` is exact: equal text means equal bits, NaN included).
fn fingerprint(r: &Results) -> String {
    format!(
        "{} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        r.seed, r.end_time_s, r.counters, r.flows, r.ports, r.links, r.flow_series, r.port_series, r.packets, r.queue_trace, r.capture, r.scenario
    )
}

/// Builds and runs a scenario; a run stopped by a resource bound is a valid outcome (a clear
/// error naming the bound), returned as its message.
fn run_text(text: &str) -> Result<(Simulation, Results, Option<String>), String> {
    let sc = from_toml_str(text, "fuzz.toml").map_err(|e| e.to_string())?;
    let mut sim = build(&sc, None, "fuzz.toml").map_err(|e| e.to_string())?;
    sim.run();
    let stopped = sim.error().map(str::to_string);
    if let Some(e) = &stopped {
        if !e.contains("simulation.max_") {
            return Err(format!("run stopped without naming its bound: {e}"));
        }
    }
    let r = sim.results();
    Ok((sim, r, stopped))
}

fn check_invariants(sim: &Simulation, r: &Results, limits: &[u32]) -> Result<(), String> {
    let f = &r.flows;
    let (sent, acks, delivered, lost, ack_lost, in_net, held) = (
        f.u64s("sent_pkts"),
        f.u64s("ack_pkts"),
        f.u64s("delivered_pkts"),
        f.u64s("lost_pkts"),
        f.u64s("ack_lost_pkts"),
        f.u64s("in_network_pkts"),
        f.u64s("shaper_held_pkts"),
    );
    for (i, flow) in sim.flows().iter().enumerate() {
        let rev_delivered = flow.stats.rev_delivered_pkts;
        let out = sent[i] + acks[i];
        let accounted = delivered[i] + rev_delivered + lost[i] + ack_lost[i] + in_net[i] + held[i];
        if out != accounted {
            return Err(format!(
                "flow {}: sent {} + acks {} != delivered {} + acks delivered {rev_delivered} + lost {} + acks lost {} + in network {} + shaper-held {}",
                flow.name, sent[i], acks[i], delivered[i], lost[i], ack_lost[i], in_net[i], held[i]
            ));
        }
    }
    let p = &r.ports;
    let (arr, tx, drops, waiting, qmax) = (p.u64s("arrivals_pkts"), p.u64s("tx_pkts"), p.u64s("drops"), p.u64s("queue_pkts_now"), p.f64s("queue_pkts_max"));
    let names = p.strs("port");
    for i in 0..names.len() {
        if arr[i] != tx[i] + drops[i] + waiting[i] {
            return Err(format!("port {}: arrivals {} != tx {} + drops {} + waiting {}", names[i], arr[i], tx[i], drops[i], waiting[i]));
        }
        // Ports come in link order, two per link (a->b, b->a).
        let limit = limits[i / 2] as f64;
        if qmax[i] > limit {
            return Err(format!("port {}: queue reached {} packets, limit {limit}", names[i], qmax[i]));
        }
    }
    let l = &r.links;
    for ((name, &rate), &thr) in l.strs("link").iter().zip(l.f64s("rate_bps")).zip(l.f64s("throughput_bps")) {
        if thr > rate * (1.0 + 1e-9) {
            return Err(format!("link {name}: throughput {thr} bit/s above its rate {rate} bit/s"));
        }
        let util = l.f64s("utilisation")[l.strs("link").iter().position(|x| x == name).unwrap()];
        if !(0.0..=1.0 + 1e-9).contains(&util) {
            return Err(format!("link {name}: utilisation {util}"));
        }
    }
    Ok(())
}

#[test]
fn random_valid_scenarios_conserve_packets_respect_rates_and_limits_and_repeat() {
    let (count, t0) = (std::sync::atomic::AtomicU64::new(0), std::time::Instant::now());
    let result = runner(scenario_cases()).run(&scenario_spec(), |spec| {
        progress("scenarios", &count, t0);
        let text = scenario_text(&spec);
        if std::env::var("PINCHPOINT_FUZZ_VERBOSE").is_ok() {
            eprintln!("--- case\n{text}");
        }
        let limits: Vec<u32> = spec.links.iter().map(|l| l.limit_pkts).collect();
        let (sim, r, stopped) = run_text(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        check_invariants(&sim, &r, &limits).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let (_, again, stopped_again) = run_text(&text).map_err(TestCaseError::fail)?;
        prop_assert!(fingerprint(&r) == fingerprint(&again) && stopped == stopped_again, "two runs differ\n{text}");
        // The resolved scenario (what the CLI writes as scenario.toml) validates again, resolves
        // to itself and reruns bit-identically.
        let resolved = to_toml_string(&from_toml_str(&text, "fuzz.toml").unwrap());
        let (_, rerun, _) = run_text(&resolved).map_err(|e| TestCaseError::fail(format!("resolved scenario: {e}\n{resolved}")))?;
        let resolved_again = to_toml_string(&from_toml_str(&resolved, "resolved.toml").unwrap());
        prop_assert!(resolved == resolved_again, "the resolved scenario resolves differently\n{resolved}\n---\n{resolved_again}");
        prop_assert!(fingerprint(&r) == fingerprint(&rerun), "the resolved scenario reruns differently\n{text}");
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn the_mutator_edits_numbers_units_and_strings_where_they_are() {
    let line = "rate = \"10Mbps\" # 5 comment";
    assert_eq!(number_spans(line), vec![(8, 10)]);
    assert_eq!(mutate(line, &[(0, Mutation::Number(0, 2))]), "rate = \"0.0Mbps\" # 5 comment");
    assert_eq!(mutate(line, &[(0, Mutation::Unit(0, 4))]), "rate = \"10Tbps\" # 5 comment");
    assert_eq!(mutate(line, &[(0, Mutation::Str(0, 0))]), "rate = \"\" # 5 comment");
    assert_eq!(number_spans("x = -1.5e-3, y = 2"), vec![(4, 11), (17, 18)]);
}

/// Fuzz finding (2026-11-23): `cc = "none"` (no window limit) with bulk data into an 18 Mbit/s
/// shaper filled the shaper's 100,000-packet bound by 7 ms of simulated time but took 13.8 s of
/// wall time to get there; without the shaper the same flow cost 15.6 s of wall time for 1.68 s
/// simulated. Cause (profiled: page faults and `send_segment_len`): with no receiver buffer
/// given the window was 64 GiB, so the sender emitted about 47 million segments in one call at
/// its start and after each timeout. The window is now TCP's largest advertisable, 2^30 bytes
/// (RFC 7323 s2.3). The bound below is wall time on a loaded 2-core machine, five times what an
/// idle one needs, and a tenth of the old cost.
#[test]
fn a_window_unlimited_sender_fills_its_shaper_bound_in_linear_time() {
    let text = "[simulation]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"r1\"\nkind = \"router\"\n[[nodes]]\nname = \"b\"\n\
        [[links]]\na = \"a\"\nb = \"r1\"\nrate = \"481kbps\"\ndelay = \"6ms\"\n[[links]]\na = \"r1\"\nb = \"b\"\nrate = \"84Mbps\"\ndelay = \"14ms\"\n\
        [[flows]]\nname = \"f0\"\nsrc = \"b\"\ndst = \"a\"\ncc = \"none\"\nworkload = { kind = \"bulk\" }\nshaper = { rate = \"18090kbps\", bucket = \"13332B\" }\n";
    let mut sim = pinchpoint_core::load_toml(text, "t.toml", None).unwrap();
    let t0 = std::time::Instant::now();
    sim.run();
    assert!(sim.error().is_some_and(|e| e.contains("simulation.max_shaper_pkts")));
    assert!(t0.elapsed().as_secs_f64() < 1.5, "{:?} to fill the shaper bound", t0.elapsed());
}

/// Fuzz finding (2026-11-23, parser campaign with `PROPTEST_RNG_SEED=2026`, case ~94,000):
/// `mean_pkts = 4294967295` in `poisson_transfers.toml` passed validation, which checked sizes in
/// packets at one byte per packet, and panicked in the builder, which multiplies by the MSS
/// (issue 14, class 1). Every arrival process's size is now checked at the transfer's MSS.
#[test]
fn a_transfer_size_in_packets_too_large_at_the_mss_is_refused_with_its_path() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/examples");
    let read = |f: &str| std::fs::read_to_string(root.join(f)).unwrap();
    let cases = [
        ("poisson_transfers.toml", "mean_pkts = 20 }", "mean_pkts = 4294967295 }", "arrivals[0].process.size.mean_pkts"),
        ("flash_crowd.toml", "pkts = 10 }", "pkts = 4294967295 }", "arrivals[0].process.size.pkts"),
        ("webtraf.toml", "pages_per_session = 4 }", "pages_per_session = 4, object_size = { kind = \"exponential\", mean_pkts = 4e9 } }", "arrivals[0].process.object_size.mean_pkts"),
    ];
    for (file, old, new, path) in cases {
        let text = read(file);
        assert_eq!(text.matches(old).count(), 1, "{file}: '{old}'");
        let e = pinchpoint_core::load_toml(&text.replacen(old, new, 1), file, None).err().unwrap_or_else(|| panic!("{file}: accepted"));
        assert_eq!(e.path, path, "{file}: {e}");
        assert!(e.message.contains("at most 1000000000000 bytes"), "{file}: {e}");
    }
}
