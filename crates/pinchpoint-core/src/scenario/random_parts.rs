//! Which parts of a scenario draw random numbers, so that its seed changes what it does: the
//! answer comes from each part's own settings (`on_off` with fixed periods draws nothing, with
//! exponential ones it does), not from its kind alone. The sweep's replication check, the
//! `seed_sources` column and `pinchpoint validate` read it through the Python bindings.

use super::schema::{FlowSettings, Scenario};

/// The parts of `sc` that draw random numbers, as labels in the scenario file's terms, in file
/// order: `flows.f1.start_jitter`, `flows.f1.cc=bbr`, `flows.f2.workload=on_off`,
/// `flows.f3.trump.packet_size_max`, `links.r1->r2.queue=red` (also `queue_ab`, `queue_ba`,
/// `hooks.0=...`, `loss=bernoulli`), `arrivals.web.process=webtraf`, `arrivals.web.src` (each
/// transfer picks one of several hosts). Empty: every seed gives the same run.
///
/// `sc` should have passed validation (a setting that has no effect is refused there, so
/// every part listed here is in use).
pub fn random_parts(sc: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    for f in &sc.flows {
        let at = format!("flows.{}", f.name);
        if f.start_jitter.as_ref().is_some_and(|j| j.0 > 0) {
            out.push(format!("{at}.start_jitter"));
        }
        settings_parts(&at, &f.settings, &mut out);
        if f.workload.draws_random() {
            out.push(format!("{at}.workload={}", f.workload.kind()));
        }
        if f.trump.as_ref().is_some_and(|t| t.draws_random()) {
            out.push(format!("{at}.trump.packet_size_max"));
        }
    }
    for l in &sc.links {
        let at = format!("links.{}->{}", l.a, l.b);
        for (field, q) in [("queue", &l.queue), ("queue_ab", &l.queue_ab), ("queue_ba", &l.queue_ba)] {
            if let Some(q) = q.as_ref().filter(|q| q.draws_random()) {
                out.push(format!("{at}.{field}={}", q.kind()));
            }
        }
        for (field, hooks) in [("hooks", &l.hooks), ("hooks_ab", &l.hooks_ab), ("hooks_ba", &l.hooks_ba)] {
            for (i, h) in hooks.iter().enumerate().filter(|(_, h)| h.draws_random()) {
                out.push(format!("{at}.{field}.{i}={}", h.kind()));
            }
        }
        if let Some(loss) = l.loss.as_ref().filter(|m| m.draws_random()) {
            out.push(format!("{at}.loss={}", loss.kind()));
        }
    }
    for a in &sc.arrivals {
        let at = format!("arrivals.{}", a.name);
        if a.process.draws_random() {
            out.push(format!("{at}.process={}", a.process.kind()));
        }
        for (field, hosts) in [("src", &a.src), ("dst", &a.dst)] {
            let mut names = hosts.names();
            names.sort_unstable();
            names.dedup();
            // traffic/arrivals: each transfer (WebTraf: each session) picks one host uniformly.
            if names.len() > 1 {
                out.push(format!("{at}.{field}"));
            }
        }
        settings_parts(&at, &a.settings, &mut out);
    }
    out
}

/// The random parts of a flow's (or a transfer template's) transport settings.
fn settings_parts(at: &str, s: &FlowSettings, out: &mut Vec<String>) {
    if let Some(cc) = s.cc.as_ref().filter(|c| c.draws_random()) {
        out.push(format!("{at}.cc={}", cc.kind()));
    }
    if let Some(r) = s.tcp.receiver.as_ref().filter(|r| r.draws_random()) {
        out.push(format!("{at}.tcp.receiver={}", r.kind()));
    }
}

#[cfg(test)]
mod tests {
    use super::random_parts;

    /// Hosts a, b (and c) through router r; `rest` adds flows, arrivals and link settings.
    fn parts(link_extra: &str, rest: &str) -> Vec<String> {
        let text = format!(
            r#"
name = "t"
[simulation]
duration = "1s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[nodes]]
name = "r"
kind = "router"
[[links]]
a = "a"
b = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "c"
b = "r"
rate = "100Mbps"
delay = "1ms"
[[links]]
a = "r"
b = "b"
rate = "10Mbps"
delay = "10ms"
{link_extra}
{rest}
"#
        );
        let sc = crate::scenario::from_toml_str(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
        random_parts(&sc)
    }

    /// A flow from `src` to b with `extra` lines.
    fn flow(name: &str, src: &str, extra: &str) -> String {
        format!("[[flows]]\nname = \"{name}\"\nsrc = \"{src}\"\ndst = \"b\"\n{extra}\n")
    }

    fn on_off(distribution: &str) -> String {
        let workload = format!(
            r#"workload = {{ kind = "on_off", rate = "1Mbps", packet_size = 1000, on = "100ms", off = "100ms", distribution = "{distribution}" }}"#
        );
        flow("f", "a", &format!("transport = \"udp\"\n{workload}"))
    }

    fn crowd(spacing: &str, size: &str, src: &str) -> String {
        format!(
            r#"[[arrivals]]
name = "crowd"
src = {src}
dst = "b"
process = {{ kind = "flash_crowd", count = 10, rate_per_s = 100.0, at = "0.1s", spacing = "{spacing}", size = {size} }}"#
        )
    }

    #[test]
    fn on_off_with_fixed_periods_draws_nothing_and_with_exponential_periods_is_listed() {
        assert_eq!(parts("", &on_off("fixed")), Vec::<String>::new());
        assert_eq!(parts("", &on_off("exponential")), ["flows.f.workload=on_off"]);
    }

    #[test]
    fn a_flash_crowd_is_random_through_its_spacing_its_sizes_or_its_choice_of_hosts() {
        let fixed = r#"{ kind = "fixed", pkts = 10 }"#;
        let exponential = r#"{ kind = "exponential", mean_pkts = 10 }"#;
        assert_eq!(parts("", &crowd("even", fixed, r#""a""#)), Vec::<String>::new());
        assert_eq!(parts("", &crowd("poisson", fixed, r#""a""#)), ["arrivals.crowd.process=flash_crowd"]);
        assert_eq!(parts("", &crowd("even", exponential, r#""a""#)), ["arrivals.crowd.process=flash_crowd"]);
        assert_eq!(parts("", &crowd("even", fixed, r#"["a", "c"]"#)), ["arrivals.crowd.src"]);
    }

    #[test]
    fn every_place_a_random_part_can_stand_is_listed_in_file_order() {
        let flows = [
            flow("f1", "a", "cc = \"bbr\"\nstart_jitter = \"10ms\"\nworkload = { kind = \"bulk\" }"),
            flow("f2", "a", "cc = \"cubic\"\nworkload = { kind = \"bulk\" }"),
            flow("f3", "c", "transport = \"udp\"\nworkload = { kind = \"poisson\", rate = \"1Mbps\", packet_size = 500 }"),
            flow("f4", "c", "transport = \"trump\"\ntrump = { packet_size = \"500B\", packet_size_max = \"1500B\" }\nworkload = { kind = \"file\", size = \"100kB\" }"),
        ]
        .concat()
            + r#"
[[arrivals]]
name = "web"
src = "a"
dst = "b"
cc = "bbr"
process = { kind = "webtraf", sessions = 2, pages_per_session = 2 }
"#;
        let link = r#"queue = "red"
loss = { kind = "gilbert_elliott", p_gb = 0.01, p_bg = 0.3 }"#;
        assert_eq!(
            parts(link, &flows),
            [
                "flows.f1.start_jitter",
                "flows.f1.cc=bbr",
                "flows.f3.workload=poisson",
                "flows.f4.trump.packet_size_max",
                "links.r->b.queue=red",
                "links.r->b.loss=gilbert_elliott",
                "arrivals.web.process=webtraf",
                "arrivals.web.cc=bbr",
            ]
        );
    }

    #[test]
    fn loss_models_whose_probabilities_are_all_zero_or_one_draw_nothing() {
        // p = 0 is refused (it never loses a packet); p = 1 loses every packet without a draw.
        let f = flow("f", "a", "workload = { kind = \"bulk\" }");
        assert_eq!(parts(r#"loss = { kind = "bernoulli", p = 1.0 }"#, &f), Vec::<String>::new());
        assert_eq!(parts(r#"loss = { kind = "bernoulli", p = 0.01 }"#, &f), ["links.r->b.loss=bernoulli"]);
        // Never leaves Good (which loses every packet), so Bad's random loss is never drawn.
        let unreachable_bad = r#"loss = { kind = "gilbert_elliott", p_gb = 0.0, p_bg = 0.5, loss_good = 1.0, loss_bad = 0.5 }"#;
        assert_eq!(parts(unreachable_bad, &f), Vec::<String>::new());
    }
}
