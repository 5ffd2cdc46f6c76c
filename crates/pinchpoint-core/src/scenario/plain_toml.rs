//! A reader for the plain part of TOML that scenario files are written in, feeding serde
//! directly (issue 13: the toml crate spent 0.9 CPU s tokenising and building its spanned
//! document for the 28 MB file of a 100,000-flow dumbbell, more than any other phase of
//! `pinchpoint run` outside the event loop).
//!
//! It accepts: comments; `[a.b]` and `[[a.b]]` headers and `key = value` lines with bare keys;
//! basic strings (with escapes) and literal strings on one line; decimal integers and floats
//! without underscores; booleans; arrays (over several lines too, without comments inside);
//! one-line inline tables. Anything else (dotted or quoted keys, multi-line strings, dates,
//! `inf`/`nan`, hex integers, a table opened twice or extended later, a repeated key, a newline
//! inside an inline table) makes [`parse`] give up with `None`, and the caller reads the text
//! with the toml crate as before, whose messages name the line and column. So this reader only
//! has to agree with the toml crate on documents it accepts, and never has to report an error
//! (`tests/plain_toml.rs` compares both on every bundled scenario and on the constructs above).

use serde::de::value::{Error, MapAccessDeserializer, MapDeserializer, SeqDeserializer};
use serde::de::{self, IntoDeserializer, Visitor};
use std::borrow::Cow;

/// A TOML value read from text, borrowing strings without escapes.
#[derive(Debug)]
pub enum Value<'a> {
    /// A string.
    Str(Cow<'a, str>),
    /// An integer.
    Int(i64),
    /// A finite float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// An array.
    Array {
        /// Its elements.
        items: Vec<Value<'a>>,
        /// Made by `[[...]]` headers (more can be added by later headers).
        of_tables: bool,
    },
    /// A table.
    Table(Table<'a>),
}

/// A table: entries in document order.
#[derive(Debug, Default)]
pub struct Table<'a> {
    entries: Vec<(&'a str, Value<'a>)>,
    /// Written inline (`{ ... }`): nothing can be added to it later.
    inline: bool,
}

impl<'a> Table<'a> {
    fn get_mut(&mut self, key: &str) -> Option<&mut Value<'a>> {
        self.entries.iter_mut().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
    fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _)| *k == key)
    }
}

/// The end of the run of ASCII digits in `b` that starts at `k` (`k` itself when there is none).
fn digits_end(b: &[u8], mut k: usize) -> usize {
    while k < b.len() && b[k].is_ascii_digit() {
        k += 1;
    }
    k
}

/// Reads `text` as a TOML document, or None when it uses anything outside the plain part (see
/// the module documentation) or is not valid TOML.
pub fn parse(text: &str) -> Option<Value<'_>> {
    let mut p = Parser { s: text, b: text.as_bytes(), i: 0, depth: 0 };
    let mut root = Table::default();
    // The keys from the root to the table that `key = value` lines go to; an array of tables on
    // the way stands for its last element.
    let mut current: Vec<&str> = Vec::new();
    loop {
        p.skip_ws();
        if p.i >= p.b.len() {
            break;
        }
        match p.b[p.i] {
            b'#' | b'\n' | b'\r' => p.end_of_line()?,
            b'[' => {
                let array = p.b.get(p.i + 1) == Some(&b'[');
                p.i += if array { 2 } else { 1 };
                let mut path = vec![p.bare_key_ws()?];
                while p.peek() == Some(b'.') {
                    if path.len() >= MAX_DEPTH {
                        return None;
                    }
                    p.i += 1;
                    path.push(p.bare_key_ws()?);
                }
                if p.peek()? != b']' || (array && p.b.get(p.i + 1) != Some(&b']')) {
                    return None;
                }
                p.i += if array { 2 } else { 1 };
                p.end_of_line()?;
                let (last, parents) = path.split_last()?;
                let parent = table_at(&mut root, parents, true)?;
                match parent.get_mut(last) {
                    None if array => parent.entries.push((last, Value::Array { items: vec![Value::Table(Table::default())], of_tables: true })),
                    None => parent.entries.push((last, Value::Table(Table::default()))),
                    Some(Value::Array { items, of_tables: true }) if array => items.push(Value::Table(Table::default())),
                    // A table defined twice, or one implied by an earlier header and defined now
                    // (valid, but rare): the toml crate decides.
                    Some(_) => return None,
                }
                current = path;
            }
            _ => {
                let key = p.bare_key_ws()?;
                if p.peek()? != b'=' {
                    return None; // a dotted key, or not a key-value pair
                }
                p.i += 1;
                p.skip_ws();
                let value = p.value()?;
                p.end_of_line()?;
                let table = table_at(&mut root, &current, false)?;
                if table.has(key) {
                    return None;
                }
                table.entries.push((key, value));
            }
        }
    }
    Some(Value::Table(root))
}

/// The table at `path` (arrays of tables stand for their last element); with `create`, missing
/// tables are made on the way (as a header's parents are).
fn table_at<'t, 'a>(root: &'t mut Table<'a>, path: &[&'a str], create: bool) -> Option<&'t mut Table<'a>> {
    let mut t = root;
    for key in path {
        if !t.has(key) {
            if !create {
                return None;
            }
            t.entries.push((key, Value::Table(Table::default())));
        }
        t = match t.get_mut(key)? {
            Value::Table(inner) if !inner.inline => inner,
            Value::Array { items, of_tables: true } => match items.last_mut()? {
                Value::Table(inner) => inner,
                _ => return None,
            },
            _ => return None,
        };
    }
    Some(t)
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    /// Arrays and inline tables open around the value being read.
    depth: usize,
}

/// Deeper nesting (arrays and inline tables in a value, keys in a header) gives up and the
/// toml crate decides: reading, deserializing and dropping the tree recurse, and text of many
/// nested brackets could otherwise exhaust the stack.
const MAX_DEPTH: usize = 32;

/// A control character TOML does not allow in comments and strings (tab is allowed).
fn is_control(c: u8) -> bool {
    (c < 0x20 && c != b'\t') || c == 0x7f
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    /// Spaces, an optional comment, then a newline or the end.
    fn end_of_line(&mut self) -> Option<()> {
        self.skip_ws();
        if self.peek() == Some(b'#') {
            while let Some(c) = self.peek() {
                if c == b'\n' || c == b'\r' {
                    break;
                }
                if is_control(c) {
                    return None;
                }
                self.i += 1;
            }
        }
        match self.peek() {
            None => Some(()),
            Some(b'\n') => {
                self.i += 1;
                Some(())
            }
            Some(b'\r') if self.b.get(self.i + 1) == Some(&b'\n') => {
                self.i += 2;
                Some(())
            }
            _ => None,
        }
    }

    /// A bare key with the spaces around it.
    fn bare_key_ws(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let start = self.i;
        while matches!(self.peek(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-')) {
            self.i += 1;
        }
        if self.i == start {
            return None;
        }
        let key = &self.s[start..self.i];
        self.skip_ws();
        Some(key)
    }

    fn value(&mut self) -> Option<Value<'a>> {
        match self.peek()? {
            b'"' => self.basic_string().map(Value::Str),
            b'\'' => self.literal_string().map(Value::Str),
            b'[' | b'{' => {
                if self.depth >= MAX_DEPTH {
                    return None;
                }
                self.depth += 1;
                let v = if self.peek()? == b'[' { self.array() } else { self.inline_table() };
                self.depth -= 1;
                v
            }
            b't' | b'f' => {
                let word_end = self.s[self.i..].find(|c: char| !c.is_ascii_alphanumeric()).map_or(self.b.len(), |n| self.i + n);
                let v = match &self.s[self.i..word_end] {
                    "true" => true,
                    "false" => false,
                    _ => return None,
                };
                self.i = word_end;
                Some(Value::Bool(v))
            }
            b'0'..=b'9' | b'+' | b'-' => self.number(),
            _ => None,
        }
    }

    /// A decimal integer or float as TOML writes them, without underscores; anything else that
    /// starts like a number (a date, `inf`, `0x10`, `1_000`) gives up.
    fn number(&mut self) -> Option<Value<'a>> {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' | b'_' | b'.' | b'+' | b'-' | b':')) {
            self.i += 1;
        }
        let t = &self.s[start..self.i];
        let b = t.as_bytes();
        let mut k = usize::from(matches!(b.first(), Some(b'+' | b'-')));
        // The integer part: 0, or a digit 1-9 followed by digits.
        let int_start = k;
        k = digits_end(b, k);
        let int_digits = k - int_start;
        if int_digits == 0 || (int_digits > 1 && b[int_start] == b'0') {
            return None;
        }
        if k == b.len() {
            return t.parse::<i64>().ok().map(Value::Int);
        }
        let mut float = false;
        if b[k] == b'.' {
            k += 1;
            let frac_start = k;
            k = digits_end(b, k);
            if k == frac_start {
                return None;
            }
            float = true;
        }
        if k < b.len() && (b[k] == b'e' || b[k] == b'E') {
            k += 1;
            if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
                k += 1;
            }
            let exp_start = k;
            k = digits_end(b, k);
            if k == exp_start {
                return None;
            }
            float = true;
        }
        if !float || k != b.len() {
            return None;
        }
        let x: f64 = t.parse().ok()?;
        // A literal too large for a double is an error in TOML: the toml crate reports it.
        x.is_finite().then_some(Value::Float(x))
    }

    /// `"..."` on one line; borrowed when it has no escapes.
    fn basic_string(&mut self) -> Option<Cow<'a, str>> {
        if self.b.get(self.i..self.i + 3) == Some(b"\"\"\"") {
            return None; // multi-line
        }
        self.i += 1;
        let start = self.i;
        loop {
            let c = self.peek()?;
            if c == b'"' {
                let s = &self.s[start..self.i];
                self.i += 1;
                return Some(Cow::Borrowed(s));
            }
            if c == b'\\' {
                break;
            }
            if is_control(c) {
                return None;
            }
            self.i += 1;
        }
        let mut out = String::from(&self.s[start..self.i]);
        loop {
            let c = self.peek()?;
            match c {
                b'"' => {
                    self.i += 1;
                    return Some(Cow::Owned(out));
                }
                b'\\' => {
                    let e = *self.b.get(self.i + 1)?;
                    self.i += 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'n' => out.push('\n'),
                        b't' => out.push('\t'),
                        b'r' => out.push('\r'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'u' | b'U' => {
                            let n = if e == b'u' { 4 } else { 8 };
                            let hex = self.s.get(self.i..self.i + n)?;
                            if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                                return None;
                            }
                            out.push(char::from_u32(u32::from_str_radix(hex, 16).ok()?)?);
                            self.i += n;
                        }
                        _ => return None, // `\e`, `\x..` (TOML 1.1) and the invalid ones
                    }
                }
                _ if is_control(c) => return None,
                _ => {
                    // Copy up to the next quote or backslash (whole UTF-8 characters).
                    let run = self.b[self.i..].iter().position(|&x| x == b'"' || x == b'\\' || is_control(x)).unwrap_or(self.b.len() - self.i);
                    out.push_str(&self.s[self.i..self.i + run]);
                    self.i += run;
                }
            }
        }
    }

    /// `'...'` on one line.
    fn literal_string(&mut self) -> Option<Cow<'a, str>> {
        if self.b.get(self.i..self.i + 3) == Some(b"'''") {
            return None;
        }
        self.i += 1;
        let start = self.i;
        loop {
            let c = self.peek()?;
            if c == b'\'' {
                let s = &self.s[start..self.i];
                self.i += 1;
                return Some(Cow::Borrowed(s));
            }
            if is_control(c) {
                return None;
            }
            self.i += 1;
        }
    }

    /// Spaces and newlines inside an array (a comment there gives up).
    fn skip_ws_newlines(&mut self) -> Option<()> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n') => self.i += 1,
                Some(b'\r') if self.b.get(self.i + 1) == Some(&b'\n') => self.i += 2,
                Some(b'#') => return None,
                _ => return Some(()),
            }
        }
    }

    fn array(&mut self) -> Option<Value<'a>> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws_newlines()?;
            if self.peek()? == b']' {
                self.i += 1;
                return Some(Value::Array { items, of_tables: false });
            }
            items.push(self.value()?);
            self.skip_ws_newlines()?;
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(Value::Array { items, of_tables: false });
                }
                _ => return None,
            }
        }
    }

    fn inline_table(&mut self) -> Option<Value<'a>> {
        self.i += 1;
        let mut t = Table { entries: Vec::new(), inline: true };
        self.skip_ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(Value::Table(t));
        }
        loop {
            let key = self.bare_key_ws()?;
            if self.peek()? != b'=' || t.has(key) {
                return None;
            }
            self.i += 1;
            self.skip_ws();
            let v = self.value()?;
            t.entries.push((key, v));
            self.skip_ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(Value::Table(t));
                }
                _ => return None,
            }
        }
    }
}

// serde: the values as the toml crate's deserializer presents them (integers as i64, a string
// as a unit variant, a table of one entry as a variant with content, no nulls).

impl<'de> IntoDeserializer<'de, Error> for Value<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

fn entries<'de>(t: Table<'de>) -> MapDeserializer<'de, std::vec::IntoIter<(&'de str, Value<'de>)>, Error> {
    MapDeserializer::new(t.entries.into_iter())
}

impl<'de> de::Deserializer<'de> for Value<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Str(Cow::Borrowed(s)) => visitor.visit_borrowed_str(s),
            Value::Str(Cow::Owned(s)) => visitor.visit_string(s),
            Value::Int(v) => visitor.visit_i64(v),
            Value::Float(v) => visitor.visit_f64(v),
            Value::Bool(v) => visitor.visit_bool(v),
            Value::Array { items, .. } => {
                let mut seq = SeqDeserializer::new(items.into_iter());
                let v = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(v)
            }
            Value::Table(t) => {
                let mut map = entries(t);
                let v = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(v)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(self, _name: &'static str, _variants: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Str(s) => visitor.visit_enum(de::value::CowStrDeserializer::new(s)),
            Value::Table(t) if t.entries.len() == 1 => visitor.visit_enum(MapAccessDeserializer::new(entries(t))),
            _ => Err(de::Error::custom("expected a string or a table of one entry for an enum")),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}
