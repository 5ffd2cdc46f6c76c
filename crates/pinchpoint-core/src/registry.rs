//! Helpers for the one-line registries of algorithms.

/// Lets a config enum tagged by `kind` also be written as a bare string naming the kind, so that
/// `cc = "newreno"` and `cc = { kind = "aimd", a = 1, b = 0.5 }` both work, with serde's field-path
/// errors kept for the table form. `$ty` must be `#[serde(tag = "kind")]`-compatible through the
/// private twin `$tagged` that the registry macro generates.
#[macro_export]
macro_rules! string_or_table {
    ($ty:ident, $tagged:ident, $names:expr) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        write!(f, "a name (one of {:?}) or a table with `kind`", $names)
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<$ty, E> {
                        use serde::de::IntoDeserializer;
                        let map: std::collections::BTreeMap<&str, &str> = [("kind", s)].into_iter().collect();
                        let t: Result<$tagged, serde::de::value::Error> =
                            serde::Deserialize::deserialize(map.into_deserializer());
                        t.map($ty::from).map_err(|e| E::custom(e.to_string()))
                    }
                    fn visit_map<M: serde::de::MapAccess<'de>>(self, m: M) -> Result<$ty, M::Error> {
                        let t: $tagged = serde::Deserialize::deserialize(serde::de::value::MapAccessDeserializer::new(m))?;
                        Ok($ty::from(t))
                    }
                }
                d.deserialize_any(V)
            }
        }

        impl schemars::JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let table = g.subschema_for::<$tagged>();
                let names: Vec<&str> = $names.to_vec();
                schemars::json_schema!({
                    "description": "A name, or a table with `kind` and the parameters.",
                    "anyOf": [ { "type": "string", "enum": names }, table ]
                })
            }
        }
    };
}
