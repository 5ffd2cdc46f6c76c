//! Scenarios: the file format, its validation, and building a [`crate::Simulation`] from it.

pub mod build;
mod canonical;
pub use canonical::canonical_json;
pub mod flat;
pub mod plain_toml;
pub mod presets;
mod random_parts;
pub use random_parts::random_parts;
pub mod schema;
/// Units moved to `sim::units`; this path stays for existing imports.
pub use crate::sim::units;
pub mod validate;

pub use schema::Scenario;
use std::fmt;

/// A problem with a scenario: where (file, field path) and what was expected.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// The file (or other origin) the scenario came from.
    pub origin: String,
    /// Field path, like `links[2].rate`; empty for whole-document problems.
    pub path: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.origin, self.message)
        } else {
            write!(f, "{}: {}: {}", self.origin, self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

fn clean_path(p: &serde_path_to_error::Path) -> String {
    let s = p.to_string();
    if s == "." { String::new() } else { s }
}

/// Moves a field path that a registry table carried inside the message (see
/// `registry::PATH_MARK`) onto the outer path.
fn join_inner_path(outer: String, msg: &str) -> (String, String) {
    let (inner, msg) = crate::registry::split_inner_path(msg);
    let path = match (outer.is_empty(), inner.is_empty()) {
        (_, true) => outer,
        (true, false) => inner,
        (false, false) if inner.starts_with('[') => format!("{outer}{inner}"),
        (false, false) => format!("{outer}.{inner}"),
    };
    (path, msg)
}

/// Parses TOML text; `origin` names the file in errors.
///
/// Text in the plain part of TOML that reads as a scenario goes through [`plain_toml`]; any other
/// text, and any text with a mistake, through the toml crate, whose errors name the line.
pub fn from_toml_str(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    use serde::Deserialize;
    if let Some(sc) = plain_toml::parse(text).and_then(|doc| Scenario::deserialize(doc).ok()) {
        validate::validate(&sc).map_err(|(path, message)| ScenarioError { origin: origin.to_string(), path, message })?;
        return Ok(sc);
    }
    from_toml_str_by_toml_crate(text, origin)
}

/// [`from_toml_str`] through the toml crate only (the reference the plain reader is tested
/// against).
pub fn from_toml_str_by_toml_crate(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::parse(text).map_err(|e| ScenarioError {
        origin: origin.to_string(),
        path: String::new(),
        message: format!("not valid TOML: {}", e.to_string().trim()),
    })?;
    let sc: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = clean_path(e.path());
        let msg = e.inner().to_string();
        // toml's message starts with a source excerpt; keep its first line (with line/column) and
        // the explanation.
        let lines: Vec<&str> = msg.lines().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
        let place = lines.first().and_then(|l| l.find("at line").map(|i| l[i + 3..].to_string()));
        // An error raised inside a table that a registry reads (a non-finite number there) also
        // gets toml's "in `key`" line; the key is in the path already.
        let what = lines.iter().rev().find(|l| !l.contains('|') && !l.starts_with("in `")).copied().unwrap_or("invalid value");
        let msg = match place {
            Some(p) if !what.contains("at line") => format!("{what} ({p})"),
            _ => what.to_string(),
        };
        let (path, msg) = join_inner_path(path, &msg);
        ScenarioError { origin: origin.to_string(), path, message: msg }
    })?;
    validate::validate(&sc).map_err(|(path, message)| ScenarioError { origin: origin.to_string(), path, message })?;
    Ok(sc)
}

/// Parses JSON text (the Python builder's form); `origin` names the source in errors.
pub fn from_json_str(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let sc: Scenario = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let (path, message) = join_inner_path(clean_path(e.path()), &e.inner().to_string());
        ScenarioError { origin: origin.to_string(), path, message }
    })?;
    validate::validate(&sc).map_err(|(path, message)| ScenarioError { origin: origin.to_string(), path, message })?;
    Ok(sc)
}

/// The JSON Schema of the scenario format (for editors and external validators; the
/// authoritative checks are still `from_toml_str` / `from_json_str`).
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Scenario)).expect("schema serialises")
}

/// TOML text as JSON text with the same values, or None if the text is not TOML or holds what
/// JSON cannot carry exactly (a non-finite float, a date-time). The run key (Python,
/// `store.canonical_scenario`) reads the resolved scenario through this: Python's `tomllib` needs
/// 40 s for the resolved scenario of 10,000 flows, this about a second (and the caller falls
/// back to `tomllib` on None, so keys never change).
pub fn toml_to_json(text: &str) -> Option<String> {
    fn plain(v: &toml::Value) -> bool {
        match v {
            toml::Value::Float(x) => x.is_finite(),
            toml::Value::Datetime(_) => false,
            toml::Value::Array(a) => a.iter().all(plain),
            toml::Value::Table(t) => t.values().all(plain),
            _ => true,
        }
    }
    let table: toml::Table = text.parse().ok()?;
    if !table.values().all(plain) {
        return None;
    }
    serde_json::to_string(&table).ok()
}

/// Serialises a scenario back to TOML (units in canonical form).
///
/// The text is the same as `toml::to_string(sc)`, made in linear time: the toml crate's document
/// serialiser inserts text into its output for every table that has plain fields after a
/// sub-table (each `[[flows]]` with its `[flows.tcp]`, each `[[links]]` with a queue table), and
/// each insertion moves everything after it, so one call is quadratic in flows (3.6 s at
/// 10,000 flows). Serialising the top-level fields and then each array element on its own keeps
/// every insertion inside a small document.
pub fn to_toml_string(sc: &Scenario) -> String {
    to_toml_chunked(sc).unwrap_or_else(|e| format!("# could not serialise: {e}"))
}

fn to_toml_chunked(sc: &Scenario) -> Result<String, toml::ser::Error> {
    use serde::Serialize;
    /// The top-level fields; an empty array stays here, where the whole-document serialiser
    /// puts it (with the root's plain fields).
    #[derive(Serialize)]
    struct Head<'a> {
        name: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        description: &'a str,
        simulation: &'a schema::SimulationConfig,
        metrics: &'a schema::MetricsConfig,
        #[serde(skip_serializing_if = "Option::is_none")]
        nodes: Option<&'a [schema::NodeConfig]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        links: Option<&'a [schema::LinkConfig]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        flows: Option<&'a [schema::FlowConfig]>,
    }
    fn empty_only<T>(v: &[T]) -> Option<&[T]> {
        if v.is_empty() { Some(v) } else { None }
    }
    let head = Head {
        name: &sc.name,
        description: &sc.description,
        simulation: &sc.simulation,
        metrics: &sc.metrics,
        nodes: empty_only(&sc.nodes),
        links: empty_only(&sc.links),
        flows: empty_only(&sc.flows),
    };
    let mut out = toml::to_string(&head)?;
    /// `{key = [item]}`: serialised as the one-entry map `BTreeMap<&str, [&T; 1]>` was (a map
    /// of one entry whose value is a one-element tuple), without building a map per element.
    struct One<'a, T> {
        key: &'a str,
        item: &'a T,
    }
    impl<T: Serialize> Serialize for One<'_, T> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry(self.key, &[self.item])?;
            m.end()
        }
    }
    fn elements<T: Serialize>(out: &mut String, key: &str, items: &[T]) -> Result<(), toml::ser::Error> {
        use std::fmt::Write;
        // One document buffer for all elements (`clear` keeps its allocations), written into
        // `out` through its `Display`, which gives the text `toml::to_string` returns (its
        // `into_string` splices the same pieces in place) without a String per element.
        let mut buf = toml::ser::Buffer::new();
        for item in items {
            buf.clear();
            One { key, item }.serialize(toml::ser::Serializer::new(&mut buf))?;
            out.push('\n');
            let _ = write!(out, "{buf}");
        }
        Ok(())
    }
    elements(&mut out, "nodes", &sc.nodes)?;
    elements(&mut out, "links", &sc.links)?;
    elements(&mut out, "routes", &sc.routes)?;
    elements(&mut out, "flows", &sc.flows)?;
    elements(&mut out, "arrivals", &sc.arrivals)?;
    Ok(out)
}
