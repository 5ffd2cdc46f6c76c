//! The plain TOML reader (`scenario::plain_toml`, issue 13) reads what the toml crate reads, and
//! leaves everything outside its part of TOML to the toml crate.

mod common;
use pinchpoint_core::scenario::{self, plain_toml, Scenario};
use serde::Deserialize;

/// The scenario the plain reader makes of `text`, or None when it leaves the text to the toml
/// crate.
fn plain(text: &str) -> Option<Scenario> {
    plain_toml::parse(text).and_then(|doc| Scenario::deserialize(doc).ok())
}

/// Both readers give the same scenario (compared through its resolved text and its run key's
/// canonical form), or the same error.
fn assert_same(text: &str, what: &str) {
    let by_crate = scenario::from_toml_str_by_toml_crate(text, "x.toml");
    let by_default = scenario::from_toml_str(text, "x.toml");
    match (by_crate, by_default) {
        (Ok(a), Ok(b)) => {
            assert_eq!(scenario::to_toml_string(&a), scenario::to_toml_string(&b), "{what}");
            assert_eq!(scenario::canonical_json(&a), scenario::canonical_json(&b), "{what}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{what}"),
        (a, b) => panic!("{what}: the toml crate gives {:?}, from_toml_str {:?}", a.err(), b.err()),
    }
}

/// Every bundled scenario, as written and resolved (with a one-line description, which the
/// resolved text writes as a plain string), reads the same through both; every resolved text is
/// read by the plain reader, so these comparisons test it rather than the fallback.
#[test]
fn the_plain_reader_reads_every_bundled_and_resolved_scenario_as_the_toml_crate_does() {
    let mut read_plain = 0;
    for p in common::bundled_scenario_files() {
        let text = std::fs::read_to_string(&p).unwrap();
        assert_same(&text, &p.display().to_string());
        let Ok(mut sc) = scenario::from_toml_str(&text, "x.toml") else { continue };
        sc.description = "one line with \"quotes\", a \\ and \u{e9}".into();
        let resolved = scenario::to_toml_string(&sc);
        assert!(plain(&resolved).is_some(), "{}: the plain reader left the resolved text to the toml crate", p.display());
        assert_same(&resolved, &format!("{} resolved", p.display()));
        read_plain += 1;
    }
    assert!(read_plain >= 10, "only {read_plain} bundled scenarios read");
}

const BASE: &str = "[simulation]\nduration = \"2s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
[[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n";

/// Comments, CRLF line ends, literal strings, escapes, signed numbers and exponents, arrays over
/// several lines with a trailing comma, inline tables and sub-tables of an array of tables are
/// read by the plain reader, with the same values as the toml crate's.
#[test]
fn the_plain_part_of_toml_reads_as_the_toml_crate_reads_it() {
    let docs = [
        format!("# a comment\n{BASE}  # indented comment\n\n[metrics]\nqueue_trace = [ 'a->b' , \"b->a\" , ]\n"),
        format!("{BASE}[metrics]\nqueue_trace = [\n  \"a->b\",\n  \"b->a\"\n]\nseries_interval = \"100ms\"\n").replace('\n', "\r\n"),
        format!("name = \"t\\u00e9st \\\"q\\\" \\\\ \\t \\U0001F600\"\ndescription = 'C:\\path'\n{BASE}"),
        format!("{BASE}[[flows]]\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\nworkload = {{ kind = \"cbr\", rate = 1.5e6, packet_size = +1000 }}\ntransport = \"udp\"\n"),
        format!("{BASE}[[flows]]\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\nworkload = {{kind=\"bulk\"}}\n[flows.tcp]\nmss = 1000\ninit_cwnd_pkts = 4\n[[flows]]\nname = \"g\"\nsrc = \"b\"\ndst = \"a\"\nstart = 0.25\nworkload = {{ kind = \"bulk\" }}\n"),
        format!("{BASE}[[links]]\na = \"b\"\nb = \"a\"\nrate = 1e7\ndelay = 0.001\nqueue = {{ kind = \"red\", limit_pkts = 100, min_th_pkts = 5, max_th_pkts = 15.0, max_p = 0.1, w_q = 2e-3 }}\n"),
    ];
    for (i, d) in docs.iter().enumerate() {
        assert!(plain(d).is_some(), "document {i} was left to the toml crate:\n{d}");
        assert_same(d, &format!("document {i}"));
    }
}

/// What the plain reader does not read goes to the toml crate: dotted and quoted keys,
/// multi-line strings, dates, special floats, underscores and prefixes in numbers, a table
/// defined twice or implied first, a repeated key, an inline table over two lines, a comment in
/// an array; and text that is not TOML (a leading zero, an unclosed string, a control
/// character, a value missing) gets the toml crate's message. Nesting deeper than 32 arrays or
/// inline tables, or a header of more than 32 keys, is left to the toml crate too (reading it recursively could exhaust the stack).
#[test]
fn text_outside_the_plain_part_is_left_to_the_toml_crate() {
    let outside = [
        "simulation.duration = \"2s\"\n",
        "\"name\" = \"x\"\n",
        "description = \"\"\"\nmore\n\"\"\"\n",
        "description = '''x'''\n",
        "name = 1979-05-27\n",
        "x = inf\n",
        "x = nan\n",
        "x = 1_000\n",
        "x = 0x10\n",
        "[simulation]\n[simulation]\n",
        "[a.b]\n[a]\n",
        "name = \"a\"\nname = \"b\"\n",
        "x = { a = 1,\n b = 2 }\n",
        "x = [ 1, # one\n 2 ]\n",
        "x = 01\n",
        "x = 1.\n",
        "x = .5\n",
        "x = 1e\n",
        "x = \"open\n",
        "x = \"tab\u{1}\"\n",
        "x =\n",
        "x = 1 2\n",
        "x = \"\\e\"\n",
        "[[a]]\n[a]\n",
        "a = [1]\n[[a]]\n",
        "a = { b = 1 }\n[a.c]\n",
        "x = 1e999\n",
        "x = 99999999999999999999\n",
        "x = true1\n",
        "[ [a]]\n",
    ];
    let deep = format!("x = {}1{}\n", "[".repeat(100_000), "]".repeat(100_000));
    assert!(plain_toml::parse(&deep).is_none(), "the plain reader read 100,000 nested arrays");
    let long_header = format!("[{}]\n", vec!["a"; 100_000].join("."));
    assert!(plain_toml::parse(&long_header).is_none(), "the plain reader read a header of 100,000 keys");
    for d in outside {
        assert!(plain_toml::parse(d).is_none(), "the plain reader read {d:?}");
        let text = format!("{BASE}{d}");
        assert_same(&text, d);
    }
}
