//! Quantities with human units in scenario files: `64kbps`, `10ms`, `256KiB`.
//!
//! Each type accepts a string with a unit or a bare number in the base unit (bit/s, seconds,
//! bytes), and serialises back to a canonical string so resolved scenarios stay readable.

use crate::sim::{SimTime, PS_PER_S};

/// Largest rate accepted anywhere, bit/s (1 Pbit/s). With it and the size and time bounds below,
/// serialisation times and event times fit the 64-bit picosecond clock with room to spare.
pub const MAX_RATE_BPS: f64 = 1e15;
/// Largest duration accepted anywhere (delays, run length, timers), s: 10^6 s (11.6 days),
/// 10^18 ps, a tenth of the clock's range.
pub const MAX_DURATION_S: f64 = 1e6;
/// Largest size accepted anywhere, bytes (2^53, the largest integer a double holds exactly).
pub const MAX_BYTES: f64 = 9_007_199_254_740_992.0;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Units of a rate and their bit/s (a bare number is bit/s). Python's `pinchpoint.units` reads
/// these three tables through the native module, so the two never disagree.
pub const RATE_UNITS: &[(&str, f64)] = &[
    ("bps", 1.0), ("bit/s", 1.0), ("b/s", 1.0),
    ("kbps", 1e3), ("Kbps", 1e3), ("kbit/s", 1e3), ("Kbit/s", 1e3), ("kb/s", 1e3),
    ("Mbps", 1e6), ("Mbit/s", 1e6), ("Mb/s", 1e6),
    ("Gbps", 1e9), ("Gbit/s", 1e9), ("Gb/s", 1e9),
    ("Tbps", 1e12), ("Tbit/s", 1e12),
    ("Bps", 8.0), ("B/s", 8.0),
    ("kBps", 8e3), ("KBps", 8e3), ("kB/s", 8e3), ("KB/s", 8e3),
    ("MBps", 8e6), ("MB/s", 8e6),
    ("GBps", 8e9), ("GB/s", 8e9),
];
/// Units of a duration and their picoseconds (a bare number is seconds).
pub const DURATION_UNITS_PS: &[(&str, f64)] = &[
    ("s", PS_PER_S as f64), ("sec", PS_PER_S as f64), ("ms", 1e9), ("us", 1e6), ("µs", 1e6), ("ns", 1e3), ("ps", 1.0),
    ("min", 60.0 * PS_PER_S as f64), ("h", 3600.0 * PS_PER_S as f64),
];
/// Units of a size and their bytes (a bare number is bytes).
pub const SIZE_UNITS: &[(&str, f64)] = &[
    ("B", 1.0), ("bytes", 1.0), ("KB", 1e3), ("kB", 1e3), ("MB", 1e6), ("GB", 1e9),
    ("KiB", 1024.0), ("MiB", 1024.0 * 1024.0), ("GiB", 1024.0 * 1024.0 * 1024.0),
    ("bit", 0.125), ("bits", 0.125), ("kbit", 125.0), ("Kbit", 125.0), ("Mbit", 125_000.0),
];

/// The multiplier of `unit` in `table`; `bare` for a number without a unit.
fn multiplier(table: &[(&str, f64)], unit: &str, bare: f64) -> Option<f64> {
    if unit.is_empty() {
        return Some(bare);
    }
    table.iter().find(|(u, _)| *u == unit).map(|&(_, m)| m)
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' || *c == '+' || *c == '_'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // 'e' may start a unit; back off if what follows is not a valid number.
    let (mut num, mut unit) = s.split_at(end);
    let mut parsed = num.replace('_', "").parse::<f64>().ok();
    while parsed.is_none() && !num.is_empty() {
        let cut = num.len() - 1;
        num = &s[..cut];
        unit = &s[cut..];
        parsed = num.replace('_', "").parse::<f64>().ok();
    }
    Some((parsed?, unit.trim()))
}

/// A rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Rate(pub f64);

impl Rate {
    /// Parses `64kbps`, `10Mbps`, `1Gbps`, `1.5Mbit/s`, `500bps` or a bare number of bit/s.
    pub fn parse(s: &str) -> Result<Rate, String> {
        let (v, unit) = split_number(s).ok_or_else(|| format!("expected a rate like '10Mbps', got '{s}'"))?;
        // tc reads 'mbps' and 'gbps' as bytes per second, ns-3 (and these units, case sensitive
        // like ns-3's) Mbps as bits: the lower-case spellings are refused rather than read as
        // one or the other.
        if unit == "mbps" || unit == "gbps" {
            let bits = if unit == "mbps" { "Mbps" } else { "Gbps" };
            let bytes = if unit == "mbps" { "MBps" } else { "GBps" };
            return Err(format!("'{unit}' is ambiguous (tc reads it as bytes per second): expected '{bits}' for bits or '{bytes}' for bytes per second, got '{s}'"));
        }
        let Some(mult) = multiplier(RATE_UNITS, unit, 1.0) else {
            return Err(format!("expected a rate like '10Mbps' (units bps, kbps, Mbps, Gbps, Bps, kBps, MBps), got '{s}'"));
        };
        Rate::checked(v * mult).map_err(|e| format!("{e}, got '{s}'"))
    }
    /// A rate of `bps` bit/s if it is finite, not negative and at most [`MAX_RATE_BPS`].
    pub fn checked(bps: f64) -> Result<Rate, String> {
        if !bps.is_finite() || bps < 0.0 {
            return Err("expected a finite, non-negative rate".into());
        }
        if bps > MAX_RATE_BPS {
            return Err(format!("expected a rate of at most {MAX_RATE_BPS} bit/s"));
        }
        Ok(Rate(bps))
    }
    /// The rate in whole bit/s.
    pub fn bps(self) -> u64 {
        self.0.round() as u64
    }
}

/// A duration in picoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub SimTime);

impl Duration {
    /// Parses `10ms`, `1.5s`, `250us`, `40ns`, `3ps`, `2min` or a bare number of seconds.
    pub fn parse(s: &str) -> Result<Duration, String> {
        let (v, unit) = split_number(s).ok_or_else(|| format!("expected a duration like '10ms', got '{s}'"))?;
        let Some(ps_per_unit) = multiplier(DURATION_UNITS_PS, unit, PS_PER_S as f64) else {
            return Err(format!("expected a duration like '10ms' (units s, ms, us, ns, ps, min, h), got '{s}'"));
        };
        if v < 0.0 {
            return Err(format!("expected a non-negative duration, got '{s}'"));
        }
        Duration::checked_secs(v * ps_per_unit / PS_PER_S as f64).map_err(|e| format!("{e}, got '{s}'"))
    }
    /// A duration of `secs` seconds if finite, not negative and at most [`MAX_DURATION_S`].
    pub fn checked_secs(secs: f64) -> Result<Duration, String> {
        if !secs.is_finite() || secs < 0.0 {
            return Err("expected a finite, non-negative duration".into());
        }
        if secs > MAX_DURATION_S {
            return Err(format!("expected a duration of at most {MAX_DURATION_S} s"));
        }
        let ps = (secs * PS_PER_S as f64).round() as SimTime;
        // The clock counts whole picoseconds: a positive duration that rounds to none would
        // silently become 0 (a link without delay, a timer that fires at once).
        if ps == 0 && secs > 0.0 {
            return Err("expected 0 or at least 1 ps (the clock's resolution)".into());
        }
        Ok(Duration(ps))
    }
    /// The duration in seconds.
    pub fn secs(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
}

/// A float as TOML writes it (`nan`, `inf`, `-inf` for the non-finite ones), for messages.
pub fn float_text(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        v.to_string()
    }
}

/// An amount of data in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Bytes(pub u64);

impl Bytes {
    /// Parses `1500B`, `64KB` (1000), `256KiB` (1024), `1MB`, `2MiB`, `1GB`, `4kbit` or a bare number of bytes.
    pub fn parse(s: &str) -> Result<Bytes, String> {
        let (v, unit) = split_number(s).ok_or_else(|| format!("expected a size like '256KiB', got '{s}'"))?;
        let Some(mult) = multiplier(SIZE_UNITS, unit, 1.0) else {
            return Err(format!("expected a size like '256KiB' (units B, KB, MB, GB, KiB, MiB, GiB, bit, kbit, Mbit), got '{s}'"));
        };
        if v < 0.0 {
            return Err(format!("expected a non-negative size, got '{s}'"));
        }
        Bytes::checked(v * mult).map_err(|e| format!("{e}, got '{s}'"))
    }
    /// A size of `b` bytes if finite, not negative, whole and at most [`MAX_BYTES`]: for "1.5B"
    /// and for a bare 1500.5 alike (the bare number was once rounded to 1501 bytes without a
    /// word).
    pub fn checked(b: f64) -> Result<Bytes, String> {
        if !b.is_finite() || b < 0.0 {
            return Err("expected a finite, non-negative size".into());
        }
        if (b - b.round()).abs() > 1e-9 {
            return Err("expected a whole number of bytes".into());
        }
        if b > MAX_BYTES {
            return Err(format!("expected a size of at most 2^53 bytes"));
        }
        Ok(Bytes(b.round() as u64))
    }
}

macro_rules! unit_serde {
    ($ty:ident, $what:literal, $from_num:expr, $number:expr, $unit:literal) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $ty::parse(s).map_err(E::custom)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        if v < 0.0 || !v.is_finite() {
                            return Err(E::custom(format!("expected a finite, non-negative number ({}), got {v}", $what)));
                        }
                        $from_num(v).map_err(|e: String| E::custom(format!("{e}, got {v}")))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        self.visit_f64(v as f64)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        self.visit_f64(v as f64)
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let number = $number(self);
                let mut buf = StackText { buf: [0; 48], len: 0 };
                match fmt::Write::write_fmt(&mut buf, format_args!("{number}{}", $unit)) {
                    Ok(()) => s.serialize_str(buf.as_str()),
                    Err(_) => s.serialize_str(&format!("{number}{}", $unit)),
                }
            }
        }
    };
}

/// Text formatted on the stack: a unit value's text (`100000000000ps`) without a heap
/// allocation. Serialising a scenario writes three to eight of them per flow, and allocating
/// each was about a tenth of the resolved TOML's and the run key's cost (issue 13). Longer text
/// (a huge float rate) fails the write and the caller formats it on the heap.
struct StackText {
    buf: [u8; 48],
    len: usize,
}

impl StackText {
    fn as_str(&self) -> &str {
        // Only whole `&str`s are copied in, so the bytes are UTF-8.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }
}

impl fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

macro_rules! unit_schema {
    ($ty:ident, $name:literal, $pattern:literal, $desc:literal) => {
        impl schemars::JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "description": $desc,
                    "anyOf": [
                        { "type": "string", "pattern": $pattern },
                        { "type": "number", "minimum": 0 }
                    ]
                })
            }
        }
    };
}

unit_schema!(Rate, "Rate", "^\\s*[0-9.eE+_-]+\\s*(bps|kbps|Kbps|Mbps|Gbps|Tbps|bit/s|kbit/s|Kbit/s|Mbit/s|Gbit/s|Tbit/s|b/s|kb/s|Mb/s|Gb/s|Bps|B/s|kBps|KBps|kB/s|KB/s|MBps|MB/s|GBps|GB/s)?\\s*$",
    "A rate: a number with a unit (64kbps, 10Mbps, 1Gbps, 1.5Mbit/s, 100kBps) or a bare number of bit/s.");
unit_schema!(Duration, "Duration", "^\\s*[0-9.eE+_]+\\s*(s|sec|ms|us|µs|ns|ps|min|h)?\\s*$",
    "A duration: a number with a unit (10ms, 1.5s, 250us, 2min) or a bare number of seconds.");
unit_schema!(Bytes, "Bytes", "^\\s*[0-9.eE+_]+\\s*(B|bytes|KB|kB|MB|GB|KiB|MiB|GiB|bit|bits|kbit|Kbit|Mbit)?\\s*$",
    "A size: a number with a unit (1500B, 64KB = 64000, 256KiB = 262144, 4kbit) or a bare number of bytes.");

unit_serde!(Rate, "a rate like '10Mbps'", Rate::checked, |r: &Rate| r.0, "bps");
unit_serde!(Duration, "a duration like '10ms'", Duration::checked_secs, |d: &Duration| d.0, "ps");
unit_serde!(Bytes, "a size like '256KiB'", Bytes::checked, |b: &Bytes| b.0, "B");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_human_units() {
        assert_eq!(Rate::parse("64kbps").unwrap().bps(), 64_000);
        assert_eq!(Rate::parse("1.5Mbps").unwrap().bps(), 1_500_000);
        assert_eq!(Rate::parse("1Gbps").unwrap().bps(), 1_000_000_000);
        assert_eq!(Duration::parse("10ms").unwrap().0, 10_000_000_000);
        assert_eq!(Duration::parse("1.5s").unwrap().0, 1_500_000_000_000);
        assert_eq!(Duration::parse("250us").unwrap().0, 250_000_000);
        assert_eq!(Bytes::parse("256KiB").unwrap().0, 262_144);
        assert_eq!(Bytes::parse("64KB").unwrap().0, 64_000);
        assert_eq!(Bytes::parse("4kbit").unwrap().0, 500);
        assert_eq!(Bytes::parse("1e3B").unwrap().0, 1000);
    }

    #[test]
    fn every_unit_of_the_tables_parses_to_its_multiplier() {
        // Python's typed sweep columns read these tables (`unit_table`): each entry must be
        // what the parser does with the unit.
        for &(u, m) in RATE_UNITS {
            assert_eq!(Rate::parse(&format!("2{u}")).unwrap().0, 2.0 * m, "{u}");
        }
        for &(u, ps) in DURATION_UNITS_PS {
            assert_eq!(Duration::parse(&format!("2{u}")).unwrap().0, (2.0 * ps) as SimTime, "{u}");
        }
        for &(u, m) in SIZE_UNITS {
            assert_eq!(Bytes::parse(&format!("16{u}")).unwrap().0, (16.0 * m) as u64, "{u}");
        }
        // The units the error messages list are in the tables.
        for (msg, table) in [(Rate::parse("1x").unwrap_err(), RATE_UNITS), (Duration::parse("1x").unwrap_err(), DURATION_UNITS_PS),
                             (Bytes::parse("1x").unwrap_err(), SIZE_UNITS)] {
            let listed = msg.split("(units ").nth(1).and_then(|r| r.split(')').next()).expect("a unit list");
            for u in listed.split(", ") {
                assert!(table.iter().any(|e| e.0 == u), "{u} listed in '{msg}' but not in the table");
            }
        }
    }

    #[test]
    fn rejects_bad_units() {
        assert!(Rate::parse("10 furlongs").unwrap_err().contains("expected a rate"));
        assert!(Duration::parse("-1s").is_err());
        assert!(Duration::parse("ms").is_err());
        assert!(Bytes::parse("1.5B").is_err());
    }

    #[test]
    fn infinite_and_out_of_range_quantities_are_refused() {
        for bad in ["inf", "infbps", "1e400Mbps", "NaN", "2Pbps", "1e16"] {
            assert!(Rate::parse(bad).is_err(), "{bad}");
        }
        for bad in ["1e400s", "inf", "1e7s", "2e6"] {
            assert!(Duration::parse(bad).is_err(), "{bad}");
        }
        assert!(Bytes::parse("1e17B").is_err());
        assert!(Rate::parse("1Pbps").is_err(), "no such unit");
        assert_eq!(Duration::parse("1000000s").unwrap().0, 1_000_000 * PS_PER_S);
        // Below the clock's resolution: refused rather than rounded to nothing; 0.6 ps is 1 ps.
        assert!(Duration::parse("0.4ps").unwrap_err().contains("at least 1 ps"), "{:?}", Duration::parse("0.4ps"));
        assert!(Duration::parse("1e-13").is_err());
        assert_eq!(Duration::parse("0.6ps").unwrap().0, 1);
        assert_eq!(Duration::parse("0ps").unwrap().0, 0);
    }
}
