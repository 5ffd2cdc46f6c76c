//! Fields shared by several tables of the scenario format, written beside each table's own
//! fields (a `[[flows]]` entry and an `[[arrivals]]` entry both carry the flow settings).
//!
//! serde's `flatten` does this by buffering the table first, which loses what the scenario
//! errors are made of: the field path (`flows[0].tcp.mss`) and the line in the file. Here each
//! value is read straight from the document instead: the table's keys are sorted as they come,
//! a shared key's value goes to the [`SharedFields`] struct, every other known key to the
//! table's own derived deserializer (whose `#[serde(flatten)]` field then sees nothing and takes
//! its defaults, but gives the JSON Schema the shared properties), and an unknown key is refused
//! with the table's whole field list, where the derived code would have refused it.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use std::fmt;

/// A struct whose fields are written inline in other tables.
pub trait SharedFields: Default {
    /// Its keys.
    const KEYS: &'static [&'static str];
    /// Reads the value of `key` (one of [`SharedFields::KEYS`]) from `map`.
    fn read_value<'de, M: MapAccess<'de>>(&mut self, key: &str, map: &mut M) -> Result<(), M::Error>;
}

/// Deserializes a table with the shared fields `F` inline: `own` is the table's derived
/// deserializer (`#[serde(remote = "Self")]`), `keys` every key of the table in declaration
/// order (the list an unknown key's error gives), `put` stores the shared fields.
pub fn deserialize<'de, D, T, F>(
    d: D,
    keys: &'static [&'static str],
    own: impl FnOnce(Split<'_, D, F>) -> Result<T, D::Error>,
    put: impl FnOnce(&mut T, F),
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    F: SharedFields,
{
    let mut shared = F::default();
    let mut t = own(Split { de: d, shared: &mut shared, keys })?;
    put(&mut t, shared);
    Ok(t)
}

/// A deserializer that hands a table's own keys to the derived code and keeps the shared ones.
pub struct Split<'s, D, F> {
    de: D,
    shared: &'s mut F,
    keys: &'static [&'static str],
}

impl<'de, D: Deserializer<'de>, F: SharedFields> Deserializer<'de> for Split<'_, D, F> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_any(SplitVisitor { inner: visitor, shared: self.shared, keys: self.keys })
    }
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_map(SplitVisitor { inner: visitor, shared: self.shared, keys: self.keys })
    }
    fn deserialize_struct<V: Visitor<'de>>(self, name: &'static str, fields: &'static [&'static str], visitor: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_struct(name, fields, SplitVisitor { inner: visitor, shared: self.shared, keys: self.keys })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct enum identifier ignored_any
    }
}

struct SplitVisitor<'s, V, F> {
    inner: V,
    shared: &'s mut F,
    keys: &'static [&'static str],
}

impl<'de, V: Visitor<'de>, F: SharedFields> Visitor<'de> for SplitVisitor<'_, V, F> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(f)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(SplitMap { map, shared: self.shared, keys: self.keys, seen: 0 })
    }
}

/// The table's entries as the derived code sees them: its own keys only.
struct SplitMap<'s, A, F> {
    map: A,
    shared: &'s mut F,
    keys: &'static [&'static str],
    /// Shared keys read so far (bit i: `F::KEYS[i]`).
    seen: u64,
}

/// A key, sorted.
enum Key {
    Shared(usize),
    Own(&'static str),
}

struct Classify<F> {
    keys: &'static [&'static str],
    _shared: std::marker::PhantomData<F>,
}

impl<'de, F: SharedFields> DeserializeSeed<'de> for Classify<F> {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de, F: SharedFields> Visitor<'de> for Classify<F> {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("field identifier")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        if let Some(i) = F::KEYS.iter().position(|k| *k == v) {
            return Ok(Key::Shared(i));
        }
        match self.keys.iter().find(|k| **k == v) {
            Some(k) => Ok(Key::Own(k)),
            None => Err(E::unknown_field(v, self.keys)),
        }
    }
}

impl<'de, A: MapAccess<'de>, F: SharedFields> MapAccess<'de> for SplitMap<'_, A, F> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        loop {
            let classify = Classify::<F> { keys: self.keys, _shared: std::marker::PhantomData };
            match self.map.next_key_seed(classify)? {
                None => return Ok(None),
                Some(Key::Shared(i)) => {
                    if self.seen & (1 << i) != 0 {
                        return Err(de::Error::duplicate_field(F::KEYS[i]));
                    }
                    self.seen |= 1 << i;
                    self.shared.read_value(F::KEYS[i], &mut self.map)?;
                }
                Some(Key::Own(k)) => {
                    return seed.deserialize(de::value::BorrowedStrDeserializer::<A::Error>::new(k)).map(Some);
                }
            }
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}
