//! The canonical form of a resolved scenario that the run key hashes (Python,
//! `pinchpoint.store.run_key`): the values of the scenario's TOML form, without the top-level
//! `description`, as the JSON text Python's `json.dumps(d, sort_keys=True, separators=(",", ":"))`
//! writes for them (keys sorted by code point, floats as Python's `repr`, non-ASCII characters
//! escaped).
//!
//! It is written straight from the scenario in memory by a serde serializer that follows the
//! toml crate's value serializer (a `None` field is left out, an integer above `i64::MAX` or a
//! unit cannot be written), so the run key no longer reads the resolved text back (70 MB at
//! 100,000 flows). For a scenario whose resolved text is `to_toml_string(sc)` it equals
//! `store.canonical_scenario(text)`, so keys of runs stored before do not change
//! (tests/test_cli_overhead.py checks every bundled scenario).

use serde::ser::{self, Serialize};
use std::fmt::{self, Write};

/// The canonical JSON of `sc` (see the module documentation), or None when its TOML form holds
/// what JSON cannot carry exactly (a non-finite float) or what TOML cannot hold: the caller then
/// takes the text path.
pub fn canonical_json(sc: &super::Scenario) -> Option<String> {
    let mut out = String::with_capacity(1 << 16);
    let pool = Pool::default();
    sc.serialize(Canon { out: &mut out, skip_key: Some("description"), pool: &pool }).ok()?;
    Some(out)
}

#[derive(Debug)]
enum CanonError {
    /// A `None`: the enclosing table leaves the entry out (as the toml crate does).
    None,
    /// What neither TOML nor JSON can carry exactly.
    Unsupported,
}

impl fmt::Display for CanonError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            CanonError::None => "none",
            CanonError::Unsupported => "unsupported",
        })
    }
}

impl std::error::Error for CanonError {}

impl ser::Error for CanonError {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        CanonError::Unsupported
    }
}

type Res = Result<(), CanonError>;

struct Canon<'a> {
    out: &'a mut String,
    /// A key the table being written leaves out (`description` at the top level only).
    skip_key: Option<&'static str>,
    pool: &'a Pool,
}

fn nested<'a>(out: &'a mut String, pool: &'a Pool) -> Canon<'a> {
    Canon { out, skip_key: None, pool }
}

/// A table's entries: key, and the start and end of its value's text in the table's buffer.
type Entries = Vec<(std::borrow::Cow<'static, str>, usize, usize)>;

/// Buffers of finished tables, empty, for the next table to take: a scenario has a few tables
/// per flow (the flow, its `tcp` and `workload`), and allocating and freeing a buffer and an
/// entry list for each was about a fifth of this serialiser's time at 100,000 flows.
#[derive(Default)]
struct Pool(std::cell::RefCell<Vec<(String, Entries)>>);

impl Pool {
    fn take(&self) -> (String, Entries) {
        self.0.borrow_mut().pop().unwrap_or_default()
    }

    fn give(&self, mut buf: String, mut entries: Entries) {
        // Only small buffers come back: an outer table's (the top level's holds every flow) is
        // freed, not kept for the rest of the call.
        if buf.capacity() <= 1 << 16 {
            buf.clear();
            entries.clear();
            self.0.borrow_mut().push((buf, entries));
        }
    }
}

/// An array: elements written in order.
struct Seq<'a> {
    out: &'a mut String,
    pool: &'a Pool,
    first: bool,
    /// Closing text: `]`, or `]}` for a tuple variant (`{"variant":[...]}`).
    close: &'static str,
}

impl Seq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Res {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        v.serialize(nested(self.out, self.pool))
    }
}

/// A table: entries are written to a buffer and emitted sorted by key at the end.
struct Map<'a> {
    out: &'a mut String,
    pool: &'a Pool,
    buf: String,
    entries: Entries,
    next_key: Option<String>,
    skip_key: Option<&'static str>,
    /// Closing text: `}`, or `}}` for a struct variant.
    close: &'static str,
}

impl Map<'_> {
    fn entry<T: Serialize + ?Sized>(&mut self, key: std::borrow::Cow<'static, str>, v: &T) -> Res {
        if self.skip_key == Some(key.as_ref()) {
            return Ok(());
        }
        let start = self.buf.len();
        match v.serialize(nested(&mut self.buf, self.pool)) {
            Ok(()) => {
                self.entries.push((key, start, self.buf.len()));
                Ok(())
            }
            Err(CanonError::None) => {
                self.buf.truncate(start);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    fn finish(mut self) -> Res {
        // Stable sort, then the last of equal keys wins (a later insert replaces the value).
        self.entries.sort_by(|a, b| a.0.cmp(&b.0));
        // Grown once for the whole table (the top level's is the size of the output).
        self.out.reserve(self.buf.len() + self.entries.iter().map(|e| e.0.len() + 4).sum::<usize>() + 2);
        self.out.push('{');
        let mut first = true;
        for (i, (key, start, end)) in self.entries.iter().enumerate() {
            if self.entries.get(i + 1).is_some_and(|next| next.0 == *key) {
                continue;
            }
            if !first {
                self.out.push(',');
            }
            first = false;
            write_str(self.out, key);
            self.out.push(':');
            self.out.push_str(&self.buf[*start..*end]);
        }
        self.out.push_str(self.close);
        self.pool.give(self.buf, self.entries);
        Ok(())
    }
}

impl<'a> Canon<'a> {
    fn map(self, close: &'static str) -> Map<'a> {
        let (buf, entries) = self.pool.take();
        Map { out: self.out, pool: self.pool, buf, entries, next_key: None, skip_key: self.skip_key, close }
    }

    fn open_variant(&mut self, variant: &str) {
        self.out.push('{');
        write_str(self.out, variant);
        self.out.push(':');
    }
}

impl<'a> ser::Serializer for Canon<'a> {
    type Ok = ();
    type Error = CanonError;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Map<'a>;
    type SerializeStruct = Map<'a>;
    type SerializeStructVariant = Map<'a>;

    fn serialize_bool(self, v: bool) -> Res {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Res {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Res {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Res {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Res {
        let _ = write!(self.out, "{v}");
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Res {
        self.serialize_i64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Res {
        self.serialize_i64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Res {
        self.serialize_i64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Res {
        // TOML integers are i64: the resolved text cannot hold a larger one.
        self.serialize_i64(i64::try_from(v).map_err(|_| CanonError::Unsupported)?)
    }
    fn serialize_f32(self, v: f32) -> Res {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Res {
        write_float(self.out, v).ok_or(CanonError::Unsupported)
    }
    fn serialize_char(self, v: char) -> Res {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Res {
        write_str(self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Res {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Res {
        Err(CanonError::None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Res {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Res {
        Err(CanonError::Unsupported)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Res {
        Err(CanonError::Unsupported)
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Res {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, v: &T) -> Res {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(mut self, _name: &'static str, _index: u32, variant: &'static str, v: &T) -> Res {
        self.open_variant(variant);
        v.serialize(nested(self.out, self.pool))?;
        self.out.push('}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'a>, CanonError> {
        self.out.push('[');
        Ok(Seq { out: self.out, pool: self.pool, first: true, close: "]" })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'a>, CanonError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'a>, CanonError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(mut self, _name: &'static str, _index: u32, variant: &'static str, _len: usize) -> Result<Seq<'a>, CanonError> {
        self.open_variant(variant);
        self.out.push('[');
        Ok(Seq { out: self.out, pool: self.pool, first: true, close: "]}" })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'a>, CanonError> {
        Ok(self.map("}"))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Map<'a>, CanonError> {
        Ok(self.map("}"))
    }
    fn serialize_struct_variant(mut self, _name: &'static str, _index: u32, variant: &'static str, _len: usize) -> Result<Map<'a>, CanonError> {
        self.open_variant(variant);
        Ok(self.map("}}"))
    }
}

impl ser::SerializeSeq for Seq<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Res {
        self.element(v)
    }
    fn end(self) -> Res {
        self.out.push_str(self.close);
        Ok(())
    }
}

impl ser::SerializeTuple for Seq<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Res {
        self.element(v)
    }
    fn end(self) -> Res {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Res {
        self.element(v)
    }
    fn end(self) -> Res {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleVariant for Seq<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Res {
        self.element(v)
    }
    fn end(self) -> Res {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeMap for Map<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Res {
        // Keys are rare (maps, not structs): read them through the toml crate, which accepts
        // exactly the keys that serialise as strings.
        match toml::Value::try_from(key) {
            Ok(toml::Value::String(s)) => {
                self.next_key = Some(s);
                Ok(())
            }
            _ => Err(CanonError::Unsupported),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Res {
        let key = self.next_key.take().ok_or(CanonError::Unsupported)?;
        self.entry(key.into(), v)
    }
    fn end(self) -> Res {
        self.finish()
    }
}

impl ser::SerializeStruct for Map<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Res {
        self.entry(key.into(), v)
    }
    fn end(self) -> Res {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Map<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Res {
        self.entry(key.into(), v)
    }
    fn end(self) -> Res {
        self.finish()
    }
}

/// A string as `json.dumps` writes it with `ensure_ascii=True`: printable ASCII as it is, the
/// short escapes, everything else as `\uXXXX` (lower-case hex, UTF-16 pairs above U+FFFF).
fn write_str(out: &mut String, s: &str) {
    out.push('"');
    // Most strings (names, units) need no escape: copy them whole.
    if s.bytes().all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\') {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// A finite float as Python's `repr`: the shortest digits that read back exactly (Rust's
/// formatting finds the same ones), positional for decimal exponents -4 to 15, otherwise
/// `d.ddde±XX` with at least two exponent digits. None for NaN and infinities, which JSON has
/// no exact form for.
fn write_float(out: &mut String, x: f64) -> Option<()> {
    if !x.is_finite() {
        return None;
    }
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    out.push_str(sign);
    if x == 0.0 {
        out.push_str("0.0");
    } else if !(-4..16).contains(&exp) {
        out.push_str(mantissa);
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    } else if exp >= 0 {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
        out.push_str(&digits);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn py(x: f64) -> String {
        let mut s = String::new();
        write_float(&mut s, x).unwrap();
        s
    }

    #[test]
    fn floats_are_written_as_python_repr_writes_them() {
        // Each pair is (value, repr(value)) from CPython 3.11.
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"), (-0.0, "-0.0"), (1.0, "1.0"), (100.0, "100.0"), (0.1, "0.1"), (1.5, "1.5"),
            (0.0001, "0.0001"), (0.00012, "0.00012"), (1e-5, "1e-05"), (1.5e-7, "1.5e-07"),
            (123456789.125, "123456789.125"), (1e15, "1000000000000000.0"), (1e16, "1e+16"),
            (1.25e16, "1.25e+16"), (1e100, "1e+100"), (5e-324, "5e-324"), (-2.5e-9, "-2.5e-09"),
            (1e9, "1000000000.0"), (100e6, "100000000.0"), (0.3, "0.3"), (2.0 / 3.0, "0.6666666666666666"),
            (1.7976931348623157e308, "1.7976931348623157e+308"), (9007199254740993.0, "9007199254740992.0"),
        ];
        for (x, want) in cases {
            assert_eq!(py(*x), *want, "{x:e}");
        }
        assert!(write_float(&mut String::new(), f64::NAN).is_none());
    }

    #[test]
    fn strings_are_escaped_as_json_dumps_escapes_them_with_ensure_ascii() {
        let mut s = String::new();
        write_str(&mut s, "a\"b\\c\nd\te\u{1}f\u{7f}é€😀 ~");
        assert_eq!(s, r#""a\"b\\c\nd\te\u0001f\u007f\u00e9\u20ac\ud83d\ude00 ~""#);
    }

    /// The same values through the toml crate's own value tree, written with sorted keys.
    fn via_toml_value(sc: &crate::scenario::Scenario) -> String {
        fn write(out: &mut String, v: &toml::Value) {
            match v {
                toml::Value::String(s) => write_str(out, s),
                toml::Value::Integer(i) => out.push_str(&i.to_string()),
                toml::Value::Float(x) => write_float(out, *x).unwrap(),
                toml::Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
                toml::Value::Datetime(_) => unreachable!(),
                toml::Value::Array(a) => {
                    out.push('[');
                    for (i, x) in a.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write(out, x);
                    }
                    out.push(']');
                }
                toml::Value::Table(t) => {
                    let mut keys: Vec<&String> = t.keys().collect();
                    keys.sort();
                    out.push('{');
                    for (i, k) in keys.into_iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write_str(out, k);
                        out.push(':');
                        write(out, &t[k.as_str()]);
                    }
                    out.push('}');
                }
            }
        }
        let mut v = toml::Value::try_from(sc).unwrap();
        if let toml::Value::Table(t) = &mut v {
            t.remove("description");
        }
        let mut out = String::new();
        write(&mut out, &v);
        out
    }

    #[test]
    fn the_streamed_form_equals_the_toml_value_tree_written_with_sorted_keys() {
        let mut sc = crate::scenario::presets::dumbbell(3, 1.0);
        sc.flows[1].start_jitter = Some(crate::scenario::units::Duration(7));
        sc.flows[2].settings.group = Some("g\u{e9}".into());
        let streamed = canonical_json(&sc).unwrap();
        assert_eq!(streamed, via_toml_value(&sc));
        assert!(!streamed.contains("description") && streamed.starts_with("{\"flows\":["));
    }
}
