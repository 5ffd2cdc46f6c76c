//! Simulation time: an integer count of picoseconds.
//!
//! Picoseconds make serialisation times exact from 64 kbit/s (a 500-byte packet takes
//! 62.5 ms = 62_500_000_000 ps) up to 100 Gbit/s (a 64-byte frame takes 5_120 ps), and a u64 still
//! covers 213 days of simulated time.

/// Simulated time in picoseconds since the start of the run.
pub type SimTime = u64;

/// Picoseconds in one second.
pub const PS_PER_S: u64 = 1_000_000_000_000;
/// Picoseconds in one millisecond.
pub const PS_PER_MS: u64 = 1_000_000_000;
/// Picoseconds in one microsecond.
pub const PS_PER_US: u64 = 1_000_000;

/// Converts seconds (float) to picoseconds, rounding to the nearest picosecond.
#[inline]
pub fn secs_to_ps(secs: f64) -> SimTime {
    (secs * PS_PER_S as f64).round() as SimTime
}

/// Converts picoseconds to seconds.
#[inline]
pub fn ps_to_secs(ps: SimTime) -> f64 {
    ps as f64 / PS_PER_S as f64
}

/// Time to serialise `size_bytes` onto a channel of `rate_bps`, rounded up to a whole picosecond
/// so that a link can never carry more than its rate.
#[inline]
pub fn tx_time_ps(size_bytes: u32, rate_bps: u64) -> SimTime {
    let bits = size_bytes as u128 * 8 * PS_PER_S as u128;
    bits.div_ceil(rate_bps as u128) as SimTime
}

/// Serialisation time per byte at `rate_bps` when it is a whole number of picoseconds (every
/// rate that divides 8e12: 64 kbit/s, 10 Mbit/s, 1 Gbit/s, ...), else 0. Ports use it to replace
/// a 128-bit division per packet by one multiplication; the result is identical.
pub fn exact_ps_per_byte(rate_bps: u64) -> u64 {
    let num = 8 * PS_PER_S;
    if rate_bps > 0 && num.is_multiple_of(rate_bps) { num / rate_bps } else { 0 }
}

/// Serialisation time of `size_bytes`, using the exact per-byte time when there is one.
#[inline]
pub fn tx_time_fast(size_bytes: u32, rate_bps: u64, ps_per_byte: u64) -> SimTime {
    if ps_per_byte != 0 { size_bytes as u64 * ps_per_byte } else { tx_time_ps(size_bytes, rate_bps) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_time_is_exact_at_64_kbps() {
        assert_eq!(tx_time_ps(500, 64_000), 62_500 * PS_PER_US);
    }

    #[test]
    fn fast_path_agrees_with_the_division() {
        for rate in [64_000u64, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000, 7, 3_000_000, 155_520_000] {
            let ppb = exact_ps_per_byte(rate);
            for size in [1u32, 40, 500, 1500, 9000] {
                assert_eq!(tx_time_fast(size, rate, ppb), tx_time_ps(size, rate), "rate {rate} size {size}");
            }
        }
        assert_eq!(exact_ps_per_byte(7), 0);
    }

    #[test]
    fn serialisation_time_rounds_up() {
        // 1500 bytes at 3 bit/s is 4000 s exactly; at 7 bit/s it is 1714.2857.. s, rounded up.
        assert_eq!(tx_time_ps(1500, 3), 4000 * PS_PER_S);
        assert_eq!(tx_time_ps(1500, 7), (12_000u128 * PS_PER_S as u128).div_ceil(7) as u64);
    }
}
