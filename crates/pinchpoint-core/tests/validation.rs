//! Bad inputs are refused with the field path and what was expected, never a panic, a hang or a
//! silently changed value (issue 14, classes 1-6). The table is shared with the Python CLI test
//! (`tests/test_bad_inputs.py`): `tests/data/bad_inputs.json` mutates one line of
//! `tests/data/base_scenario.toml` per case.

use pinchpoint_core::scenario::from_toml_str;

fn repo_file(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_base_scenario_of_the_bad_input_table_is_valid_and_runs() {
    let text = repo_file("tests/data/base_scenario.toml");
    let mut sim = pinchpoint_core::load_toml(&text, "base.toml", None).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    assert!(sim.error().is_none());
    assert!(sim.results().flows.u64s("delivered_pkts").iter().all(|&d| d > 0));
}

#[test]
fn every_bad_input_is_refused_with_its_field_path_and_expectation() {
    let base = repo_file("tests/data/base_scenario.toml");
    let cases: Vec<serde_json::Value> = serde_json::from_str(&repo_file("tests/data/bad_inputs.json")).unwrap();
    let mut failures = Vec::new();
    for c in &cases {
        let (old, new) = (c["old"].as_str().unwrap(), c["new"].as_str().unwrap());
        assert_eq!(base.matches(old).count(), 1, "'{old}' must occur once in the base scenario");
        let text = base.replacen(old, new, 1);
        let want_path = c["path"].as_str().unwrap();
        let want_says = c["says"].as_str().unwrap();
        let outcome = std::panic::catch_unwind(|| from_toml_str(&text, "bad.toml").and_then(|sc| pinchpoint_core::build(&sc, None, "bad.toml").map(|_| ())));
        match outcome {
            Err(_) => failures.push(format!("{new}: panicked")),
            Ok(Ok(())) => failures.push(format!("{new}: accepted")),
            Ok(Err(e)) => {
                if e.path != want_path || !e.message.contains(want_says) {
                    failures.push(format!("{new}: got `{}: {}`, want `{want_path}` containing `{want_says}`", e.path, e.message));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} cases wrong:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// Builds the base scenario with each `(old, new)` replacement made once (`old` must occur
/// exactly once).
fn build_edited_base(pairs: &[(&str, &str)]) -> Result<(), pinchpoint_core::ScenarioError> {
    let mut t = repo_file("tests/data/base_scenario.toml");
    for (old, new) in pairs {
        assert_eq!(t.matches(old).count(), 1, "{old}");
        t = t.replacen(old, new, 1);
    }
    from_toml_str(&t, "t.toml").and_then(|sc| pinchpoint_core::build(&sc, None, "t.toml").map(|_| ()))
}

/// Settings that need two edits of the base scenario to be useless (the table above changes one
/// line): each is refused naming its field, and accepted where it has an effect.
#[test]
fn settings_without_an_effect_in_the_scenario_are_refused_and_accepted_where_they_act() {
    let edit = build_edited_base;
    let no_priority_queue = ("kind = \"priority\", classes = 2,", "kind = \"droptail\",");
    let priority = ("name = \"udp\"", "name = \"udp\"\npriority = 1");
    let e = edit(&[no_priority_queue, priority]).unwrap_err();
    assert_eq!((e.path.as_str(), e.message.contains("no port has a priority queue")), ("flows[1].priority", true), "{e}");
    edit(&[priority]).unwrap();
    let no_shaper = ("shaper = { rate = \"300kbps\", bucket = \"3000B\" }", "");
    let bound = ("duration = \"2s\"", "duration = \"2s\"\nmax_shaper_pkts = 10");
    let e = edit(&[no_shaper, bound]).unwrap_err();
    assert_eq!((e.path.as_str(), e.message.contains("no flow has a shaper")), ("simulation.max_shaper_pkts", true), "{e}");
    edit(&[bound]).unwrap();
    // The defaults, which the resolved scenario writes out, pass.
    edit(&[no_shaper, ("duration = \"2s\"", "duration = \"2s\"\nmax_shaper_pkts = 100000")]).unwrap();
    edit(&[("mss = 1000,", "mss = 1000, delayed_ack_timeout = \"40ms\",")]).unwrap();
    edit(&[("mss = 1000,", "mss = 1000, delayed_ack = true, delayed_ack_timeout = \"100ms\",")]).unwrap();
    edit(&[("cc = \"newreno\"", "cc = \"newreno\"\nwtp = { weight = 1.0 }"), ("alpha = 1.0 }]", "alpha = 1.0 }, { kind = \"eca_load\" }]")]).unwrap();
    edit(&[("limit_pkts = 50", "limit_pkts = 50, flows = 2, hash_seed = 7"), ("kind = \"droptail\"", "kind = \"fq_codel\"")]).unwrap();
    // BBR paces at its own rate and sets its window in recovery itself: tcp.pacing and tcp.prr
    // change nothing with it, and are refused; without them BBR is accepted.
    let bbr = ("cc = \"newreno\"", "cc = \"bbr\"");
    edit(&[bbr]).unwrap();
    for (setting, field) in [("pacing = true", "flows[0].tcp.pacing"), ("prr = false", "flows[0].tcp.prr"), ("prr = true", "flows[0].tcp.prr")] {
        let with = format!("mss = 1000, {setting},");
        let e = edit(&[bbr, ("mss = 1000,", &with)]).unwrap_err();
        assert_eq!((e.path.as_str(), e.message.contains("has no effect with cc = \"bbr\"")), (field, true), "{e}");
        edit(&[("mss = 1000,", &with)]).unwrap(); // NewReno reads both
    }
    // The averaging settings of the RDA/AQM family and eq. 2's inputs, at their defaults (as a
    // resolved scenario writes them), pass where they have no effect.
    let q = "queue = { kind = \"droptail\", limit_pkts = 50 }";
    edit(&[(q, "queue = { kind = \"rda\", measure = \"instantaneous\", weight = 0.002, mean_pkt_bytes = 1000 }")]).unwrap();
    edit(&[(q, "queue = { kind = \"rda_vp\", max_p = 0.1, target_rtt = \"100ms\" }")]).unwrap();
    edit(&[(q, "queue = { kind = \"sda\", min_que_pkts = 30, max_que_pkts = 25 }")]).unwrap();
    edit(&[("alpha = 1.0 }]", "alpha = 1.0, averaging = \"ewma\", ewma_weight = 0.5 }]")]).unwrap();
}

/// `tcp.slow_start_after_idle` acts only where the sender can send again after an idle period
/// and the controller's window is restarted (the file workload of the base scenario is the
/// bad-input table's case).
#[test]
fn slow_start_after_idle_is_refused_where_no_sender_can_restart_and_accepted_where_one_can() {
    let edit = build_edited_base;
    let ssai = ("mss = 1000,", "mss = 1000, slow_start_after_idle = true,");
    let on_off = ("workload = { kind = \"file\", size = \"200KB\" }", "workload = { kind = \"on_off\", rate = \"1Mbps\", packet_size = 1000, on = \"100ms\", off = \"500ms\" }");
    let bulk = ("workload = { kind = \"file\", size = \"200KB\" }", "workload = { kind = \"bulk\" }");
    edit(&[ssai, on_off]).unwrap();
    edit(&[ssai, on_off, ("cc = \"newreno\"", "cc = \"cubic\"")]).unwrap();
    let refused = |pairs: &[(&str, &str)], says: &str| {
        let e = edit(pairs).unwrap_err();
        assert_eq!((e.path.as_str(), e.message.contains(says)), ("flows[0].tcp.slow_start_after_idle", true), "{e}");
    };
    refused(&[ssai, bulk], "bulk workload");
    refused(&[ssai, on_off, ("cc = \"newreno\"", "cc = \"bbr\"")], "cc = \"bbr\"");
    refused(&[ssai, on_off, ("cc = \"newreno\"", "cc = \"none\"")], "cc = \"none\"");
    // Each transfer of an arrival process is a file on a connection of its own.
    let arrivals = (
        "bucket = \"3000B\" }",
        "bucket = \"3000B\" }\n[[arrivals]]\nname = \"c\"\nsrc = \"a\"\ndst = \"b\"\ntcp = { slow_start_after_idle = true }\nprocess = { kind = \"flash_crowd\", count = 20, rate_per_s = 100.0, at = \"1s\", spacing = \"poisson\", size = { kind = \"fixed\", pkts = 10 } }",
    );
    let e = edit(&[arrivals]).unwrap_err();
    assert_eq!((e.path.as_str(), e.message.contains("file workload")), ("arrivals[0].tcp.slow_start_after_idle", true), "{e}");
}

/// ECN needs both sides: a flow that negotiates ECN needs a port on its path that marks CE, and
/// a queue's ecn needs an ECN-capable flow through it (the base's decbit hook marks ECT packets
/// on both ports of r-b; the tcp flow goes a -> r -> b).
#[test]
fn ecn_settings_with_nothing_to_pair_with_are_refused() {
    let edit = build_edited_base;
    let refused = |pairs: &[(&str, &str)], path: &str| {
        let e = edit(pairs).unwrap_err();
        assert!(e.path == path && e.message.contains("has no effect"), "{pairs:?}: {e}");
    };
    let ecn = ("mss = 1000,", "mss = 1000, ecn = true,");
    let no_hook = ("hooks = [{ kind = \"decbit\", alpha = 1.0 }]", "");
    let q0 = "queue = { kind = \"droptail\", limit_pkts = 50 }";
    edit(&[ecn]).unwrap();
    refused(&[ecn, no_hook], "flows[0].tcp.ecn");
    // A marking queue on the flow's path pairs with it; on the reverse port only, it does not.
    edit(&[ecn, no_hook, (q0, "queue = { kind = \"red\", ecn = true }")]).unwrap();
    edit(&[ecn, no_hook, (q0, "queue_ab = { kind = \"codel\", ecn = true }")]).unwrap();
    refused(&[ecn, (q0, "queue_ba = { kind = \"codel\", ecn = true }")], "links[0].queue_ba.ecn");
    // A DCTCP-style threshold hook marks too.
    edit(&[ecn, ("kind = \"decbit\", alpha = 1.0", "kind = \"ce_threshold\", threshold_pkts = 20")]).unwrap();
    // An arrival process's transfers count like flows.
    let arrivals = "bucket = \"3000B\" }\n[[arrivals]]\nname = \"p\"\nsrc = \"a\"\ndst = \"b\"\ntcp = { ecn = true }\nprocess = { kind = \"poisson\", rate_per_s = 10.0, size = { kind = \"fixed\", pkts = 10 } }";
    edit(&[("bucket = \"3000B\" }", arrivals)]).unwrap();
    refused(&[("bucket = \"3000B\" }", arrivals), no_hook], "arrivals[0].tcp.ecn");
    edit(&[("bucket = \"3000B\" }", arrivals), no_hook, (q0, "queue = { kind = \"fq_codel\", ecn = true }")]).unwrap();
}

/// A CE-marking hook acts only through a flow that reads the marks: TCP with ECN or an ATN
/// credit receiver (the base's TCP flow has one, a -> r -> b) whose data crosses the port.
#[test]
fn marking_hooks_without_a_flow_that_reads_the_marks_are_refused() {
    let edit = build_edited_base;
    let refused = |pairs: &[(&str, &str)], path: &str| {
        let e = edit(pairs).unwrap_err();
        assert!(e.path == path && e.message.contains("has no effect") && e.message.contains("reads congestion marks"), "{pairs:?}: {e}");
    };
    let no_atn = (", receiver = { kind = \"atn\", beta = 0.875, w0 = 1 }", "");
    let hooks = "hooks = [{ kind = \"decbit\", alpha = 1.0 }]";
    refused(&[no_atn], "links[1].hooks[0]");
    refused(&[no_atn, (hooks, "hooks = [{ kind = \"ce_threshold\", threshold_pkts = 5 }]")], "links[1].hooks[0]");
    // An ECN flow reads them instead of the ATN receiver.
    edit(&[no_atn, ("mss = 1000", "mss = 1000, ecn = true")]).unwrap();
    // Only the port the data crosses (r -> b, the link's a -> b) counts; the acknowledgements'
    // port b -> r has no reader.
    edit(&[(hooks, "hooks_ab = [{ kind = \"decbit\", alpha = 1.0 }]")]).unwrap();
    refused(&[(hooks, "hooks_ba = [{ kind = \"decbit\", alpha = 1.0 }]")], "links[1].hooks_ba[0]");
}

/// A link loss model that can never lose a packet changes nothing, and draws for nothing.
#[test]
fn loss_models_that_never_lose_a_packet_are_refused() {
    let edit = build_edited_base;
    let q0 = "queue = { kind = \"droptail\", limit_pkts = 50 }";
    let with = |loss: &str| format!("{q0}\nloss = {loss}");
    for (loss, field) in [
        ("{ kind = \"bernoulli\", p = 0.0 }", "links[0].loss.p"),
        ("{ kind = \"gilbert_elliott\", p_gb = 0.01, p_bg = 0.1, loss_good = 0.0, loss_bad = 0.0 }", "links[0].loss.loss_bad"),
        ("{ kind = \"gilbert_elliott\", p_gb = 0.0, p_bg = 0.1 }", "links[0].loss.p_gb"),
    ] {
        let e = edit(&[(q0, &with(loss))]).unwrap_err();
        assert!(e.path == field && e.message.contains("has no effect"), "{loss}: {e}");
    }
    for loss in ["{ kind = \"bernoulli\", p = 0.01 }", "{ kind = \"bernoulli\", p = 1.0 }", "{ kind = \"gilbert_elliott\", p_gb = 0.0, p_bg = 0.1, loss_good = 0.01 }", "{ kind = \"gilbert_elliott\", p_gb = 0.01, p_bg = 0.1 }"] {
        edit(&[(q0, &with(loss))]).unwrap_or_else(|e| panic!("{loss}: {e}"));
    }
}

#[test]
fn delay_routing_with_a_timed_route_change_runs() {
    let text = include_str!("common/two_homed_route_change.toml");
    let mut sim = pinchpoint_core::load_toml(text, "t.toml", None).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    let r = sim.results();
    let i = r.links.strs("link").iter().position(|l| l == "a->r2").unwrap();
    assert!(r.links.u64s("tx_bytes")[i] > 0, "traffic moved to r2 after the change");
}
