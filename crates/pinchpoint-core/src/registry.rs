//! The one registry macro every algorithm family uses (congestion controllers, queue
//! disciplines, port hooks, receiver policies), and the validation contract of their configs.
//!
//! A family declares its config enum, its runtime enum, what a constructor is given, and a small
//! dispatch macro for its trait; each algorithm is then one line:
//! `"name" => Variant(Type, ConfigType)`. The macro generates the scenario-facing config enum
//! (written as a bare name or a table with `kind`; errors inside the table keep their field
//! path), the list of names, `validate()` dispatch to each config's [`Validate`] impl, and
//! `build()`.

use serde::de::{DeserializeOwned, Error as _};
use serde::Deserializer;

/// Separates a field path carried inside an error message from the message (see
/// [`split_inner_path`]). Serde's internally tagged enums lose the path of an error inside the
/// table; the registry deserialiser puts it in the message and the scenario reader moves it back.
pub const PATH_MARK: char = '\u{1f}';

/// Splits `\u{1f}path\u{1f}message` (possibly repeated for nested tables) into the inner path
/// and the message.
pub fn split_inner_path(msg: &str) -> (String, String) {
    let mut path = String::new();
    let mut rest = msg;
    // The mark may follow a prefix (a TOML position); keep the prefix out of the path.
    let mut prefix = "";
    if let Some(i) = rest.find(PATH_MARK) {
        prefix = &rest[..i];
        rest = &rest[i..];
    }
    while let Some(r) = rest.strip_prefix(PATH_MARK) {
        let Some(end) = r.find(PATH_MARK) else { break };
        let p = &r[..end];
        if !p.is_empty() {
            if !path.is_empty() && !p.starts_with('[') {
                path.push('.');
            }
            path.push_str(p);
        }
        rest = &r[end + PATH_MARK.len_utf8()..];
    }
    (path, format!("{prefix}{rest}"))
}

/// Reads a registry entry: a bare name, or a table whose `kind` names the algorithm. Returns the
/// name and the rest of the table.
pub fn split_kind<'de, D: Deserializer<'de>>(d: D, kinds: &[&str]) -> Result<(String, serde_json::Value), D::Error> {
    let v = d.deserialize_any(FiniteJson)?;
    let (kind, rest) = match v {
        serde_json::Value::String(s) => (s, serde_json::Value::Object(Default::default())),
        serde_json::Value::Object(mut m) => match m.remove("kind") {
            Some(serde_json::Value::String(k)) => (k, serde_json::Value::Object(m)),
            Some(other) => return Err(D::Error::custom(format!("{PATH_MARK}kind{PATH_MARK}expected a name, got {other}"))),
            None => return Err(D::Error::custom("missing field `kind`")),
        },
        other => return Err(D::Error::custom(format!("expected a name (one of {kinds:?}) or a table with `kind`, got {other}"))),
    };
    if !kinds.contains(&kind.as_str()) {
        let list: Vec<String> = kinds.iter().map(|k| format!("`{k}`")).collect();
        return Err(D::Error::custom(format!("{PATH_MARK}kind{PATH_MARK}unknown variant `{kind}`, expected one of {}", list.join(", "))));
    }
    Ok((kind, rest))
}

/// Reads a value as JSON, refusing a non-finite number. JSON has no NaN or infinity:
/// `serde_json::Value` turns them into null, so `w_q = nan` was reported as `invalid type: null,
/// expected f64`, and an optional number written as nan was taken as absent. The scenario
/// reader's path tracker sees the keys this walks, so the error gets its field path there.
struct FiniteJson;

impl<'de> serde::de::DeserializeSeed<'de> for FiniteJson {
    type Value = serde_json::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<serde_json::Value, D::Error> {
        d.deserialize_any(FiniteJson)
    }
}

impl<'de> serde::de::Visitor<'de> for FiniteJson {
    type Value = serde_json::Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<serde_json::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E>(self, v: i64) -> Result<serde_json::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<serde_json::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<serde_json::Value, E> {
        match serde_json::Number::from_f64(v) {
            Some(n) => Ok(serde_json::Value::Number(n)),
            None => Err(E::custom(format!("expected a finite number, got {}", crate::sim::units::float_text(v)))),
        }
    }
    fn visit_str<E>(self, v: &str) -> Result<serde_json::Value, E> {
        Ok(v.into())
    }
    fn visit_string<E>(self, v: String) -> Result<serde_json::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E>(self) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_none<E>(self) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<serde_json::Value, D::Error> {
        d.deserialize_any(FiniteJson)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<serde_json::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(FiniteJson)? {
            out.push(v);
        }
        Ok(serde_json::Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<serde_json::Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(FiniteJson)?;
            out.insert(k, v);
        }
        Ok(serde_json::Value::Object(out))
    }
}

/// Deserialises a struct that configs embed with `#[serde(flatten)]` (a buffer limit, the AQM
/// fields) through `own`, its derived deserializer (`#[serde(remote = "Self")]`), keeping the
/// field path of an error inside it in the message (see [`PATH_MARK`]): serde's flatten buffers
/// the table, and the path of an error inside a flattened struct is lost
/// (`limit_pkts = -1` was reported at `links[1].queue`, not `links[1].queue.limit_pkts`).
pub fn flat_with_path<'de, D: Deserializer<'de>, T>(d: D, own: impl for<'t> FnOnce(serde_path_to_error::Deserializer<'static, 't, D>) -> Result<T, D::Error>) -> Result<T, D::Error> {
    let mut track = serde_path_to_error::Track::new();
    let r = own(serde_path_to_error::Deserializer::new(d, &mut track));
    r.map_err(move |e| {
        let path = track.path().to_string();
        if path.is_empty() || path == "." {
            e
        } else {
            D::Error::custom(format!("{PATH_MARK}{path}{PATH_MARK}{e}"))
        }
    })
}

/// Deserialises one algorithm's config from the rest of its table, keeping the field path of
/// an error in the message (see [`PATH_MARK`]).
pub fn de_with_path<T: DeserializeOwned, E: serde::de::Error>(v: serde_json::Value) -> Result<T, E> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if path.is_empty() || path == "." {
            E::custom(inner)
        } else {
            E::custom(format!("{PATH_MARK}{path}{PATH_MARK}{inner}"))
        }
    })
}

/// As [`de_with_path`], for one algorithm's config in a registry family. A config that flattens
/// another (a queue's buffer limit) has serde report an unknown field without the fields it
/// accepts and at the table rather than the field (`links[0].queue: unknown field \`max_p\``); the
/// accepted fields are read from the config's JSON schema instead, and the path names the field.
pub fn de_config_with_path<T: DeserializeOwned + schemars::JsonSchema, E: serde::de::Error>(v: serde_json::Value) -> Result<T, E> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let unlisted = inner.strip_prefix("unknown field `").and_then(|r| r.strip_suffix('`')).filter(|f| !f.contains('`'));
        if let Some(field) = unlisted {
            let schema = schemars::schema_for!(T);
            let mut names: Vec<&str> = schema
                .get("properties")
                .and_then(|p| p.as_object())
                .map(|m| m.keys().map(String::as_str).filter(|k| *k != "kind").collect())
                .unwrap_or_default();
            names.sort_unstable();
            let expected = if names.is_empty() {
                "there are no fields besides `kind`".to_string()
            } else {
                format!("expected one of {}", names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
            };
            let at = if path.is_empty() || path == "." { field.to_string() } else { format!("{path}.{field}") };
            return E::custom(format!("{PATH_MARK}{at}{PATH_MARK}unknown field `{field}`, {expected}"));
        }
        if path.is_empty() || path == "." {
            E::custom(inner)
        } else {
            E::custom(format!("{PATH_MARK}{path}{PATH_MARK}{inner}"))
        }
    })
}

/// Generates a family's config enum, runtime enum, name list, `validate`, `build` and trait
/// dispatch (through the family's `$dispatch!` macro, called with the runtime enum and the
/// variants). One line per algorithm: `"name" => Variant(Type, ConfigType)`.
///
/// `validate()` dispatches to each config's [`Validate`] impl. A family whose configs are
/// checked against more than their own table (a congestion controller against the flow's TCP
/// settings) writes `validated_by_dispatch;` after `dispatch`: its dispatch macro then generates
/// the family's own `validate`, and its configs implement only the family's settings trait.
#[macro_export]
macro_rules! algorithm_registry {
    (
        $(#[$cmeta:meta])* config $Config:ident;
        $(#[$ameta:meta])* runtime $Any:ident;
        $(#[$kmeta:meta])* kinds $KINDS:ident;
        init $init:ty;
        dispatch $dispatch:ident;
        validated_by_dispatch;
        $( $name:literal => $variant:ident($ty:ty, $cfg:ty) ),* $(,)?
    ) => {
        $crate::algorithm_registry! {
            @family [$(#[$cmeta])*] $Config; [$(#[$ameta])*] $Any; [$(#[$kmeta])*] $KINDS; $init; $dispatch;
            $( $name => $variant($ty, $cfg) ),*
        }
    };
    (
        $(#[$cmeta:meta])* config $Config:ident;
        $(#[$ameta:meta])* runtime $Any:ident;
        $(#[$kmeta:meta])* kinds $KINDS:ident;
        init $init:ty;
        dispatch $dispatch:ident;
        $( $name:literal => $variant:ident($ty:ty, $cfg:ty) ),* $(,)?
    ) => {
        $crate::algorithm_registry! {
            @family [$(#[$cmeta])*] $Config; [$(#[$ameta])*] $Any; [$(#[$kmeta])*] $KINDS; $init; $dispatch;
            $( $name => $variant($ty, $cfg) ),*
        }
        impl $Config {
            /// Checks the parameters: the config's own [`$crate::registry::Validate`] impl.
            pub fn validate(&self) -> Result<(), $crate::registry::FieldError> {
                match self { $( $Config::$variant(c) => $crate::registry::Validate::validate(c), )* }
            }
            /// Whether the algorithm, as configured, draws random numbers (the config's own
            /// [`$crate::registry::Validate::draws_random`]).
            pub fn draws_random(&self) -> bool {
                match self { $( $Config::$variant(c) => $crate::registry::Validate::draws_random(c), )* }
            }
        }
    };
    (
        @family [$(#[$cmeta:meta])*] $Config:ident; [$(#[$ameta:meta])*] $Any:ident; [$(#[$kmeta:meta])*] $KINDS:ident;
        $init:ty; $dispatch:ident;
        $( $name:literal => $variant:ident($ty:ty, $cfg:ty) ),*
    ) => {
        $(#[$cmeta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        #[serde(tag = "kind")]
        pub enum $Config {
            $( #[doc = $name] #[serde(rename = $name)] $variant($cfg), )*
        }

        $(#[$kmeta])*
        pub const $KINDS: &[&str] = &[$($name),*];

        $(#[$ameta])*
        pub enum $Any {
            $( #[doc = $name] $variant($ty), )*
        }

        impl $Any {
            /// Builds the algorithm `cfg` describes; `cfg` must have passed `validate`.
            pub fn build(cfg: &$Config, init: $init) -> Self {
                match cfg { $( $Config::$variant(c) => $Any::$variant(<$ty>::new(c, init)), )* }
            }
        }

        impl $Config {
            /// The name written in `kind`.
            pub fn kind(&self) -> &'static str {
                match self { $( $Config::$variant(_) => $name, )* }
            }
        }

        impl<'de> serde::Deserialize<'de> for $Config {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let (kind, rest) = $crate::registry::split_kind(d, $KINDS)?;
                $( if kind == $name {
                    return $crate::registry::de_config_with_path::<$cfg, D::Error>(rest).map($Config::$variant);
                } )*
                unreachable!("split_kind checked the name")
            }
        }

        impl schemars::JsonSchema for $Config {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($Config).into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                #[derive(schemars::JsonSchema)]
                #[serde(tag = "kind")]
                #[allow(dead_code)]
                enum Tagged {
                    $( #[serde(rename = $name)] $variant($cfg), )*
                }
                let table = <Tagged as schemars::JsonSchema>::json_schema(g);
                let names: Vec<&str> = $KINDS.to_vec();
                schemars::json_schema!({
                    "description": "A name, or a table with `kind` and the parameters.",
                    "anyOf": [ { "type": "string", "enum": names }, table ]
                })
            }
        }

        $dispatch!($Any, $($variant),*);
    };
}

/// A problem with one field of an algorithm's configuration. `field` is relative to the
/// configuration table (`alpha`, `limit.limit_pkts`); the scenario validator prefixes where the
/// table sits (`links[3].hooks[0]`).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// Field path inside the configuration table.
    pub field: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl FieldError {
    /// A problem with `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError { field: field.into(), message: message.into() }
    }
}

/// Checks of an algorithm's configuration that its types cannot express (ranges, relations
/// between fields), and whether it draws random numbers. Every config in a registry implements
/// it; constructors may then assume a validated configuration and never panic on user input.
/// The defaults accept everything and draw nothing: a deterministic config without numeric
/// fields writes `impl Validate for XConfig {}`.
pub trait Validate {
    /// Ok, or the first field that is out of range.
    fn validate(&self) -> Result<(), FieldError> {
        Ok(())
    }
    /// Whether the algorithm, with these settings, draws from its random stream so that the
    /// seed changes what it does ([`crate::scenario::random_parts`] lists a scenario's). An
    /// algorithm that draws says so beside its config; `tests/test_random_kinds.py` runs every
    /// registered kind under two seeds and fails if the answer disagrees with the runs.
    fn draws_random(&self) -> bool {
        false
    }
}

/// `v` must be a finite number in `[lo, hi]`.
pub fn check_f64(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), FieldError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(FieldError::new(field, format!("expected a number from {lo} to {hi}, got {v}")))
    }
}

/// `v` must be a finite number in `(lo, hi]` (`lo` excluded).
pub fn check_f64_above(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), FieldError> {
    if v.is_finite() && v > lo && v <= hi {
        Ok(())
    } else {
        Err(FieldError::new(field, format!("expected a number above {lo} and at most {hi}, got {v}")))
    }
}

/// `v` must be a finite number in `(lo, hi)` (both ends excluded).
pub fn check_f64_open(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), FieldError> {
    if v.is_finite() && v > lo && v < hi {
        Ok(())
    } else {
        Err(FieldError::new(field, format!("expected a number strictly between {lo} and {hi}, got {v}")))
    }
}

/// `v` must be an integer in `[lo, hi]`.
pub fn check_int<T: Into<u64> + Copy>(field: &str, v: T, lo: u64, hi: u64) -> Result<(), FieldError> {
    let x: u64 = v.into();
    if x >= lo && x <= hi {
        Ok(())
    } else {
        Err(FieldError::new(field, format!("expected an integer from {lo} to {hi}, got {x}")))
    }
}
