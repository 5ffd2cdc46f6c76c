//! A token bucket: tokens (bytes) accrue at `rate_bps / 8` per second up to `bucket_bytes`; a
//! packet may leave when the bucket holds its size. The per-flow pacer ECA's weighted token-bucket
//! pacing (WTP) builds on by changing the rate.

use crate::sim::{SimTime, PS_PER_S};

/// Token-bucket state. Tokens are kept in bit-picoseconds (bits x ps/s) to stay exact.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    rate_bps: u64,
    /// Capacity in bits * PS_PER_S.
    cap: u128,
    /// Tokens in bits * PS_PER_S.
    tokens: u128,
    last: SimTime,
}

impl TokenBucket {
    /// A full bucket of `bucket_bytes` filling at `rate_bps`.
    pub fn new(rate_bps: u64, bucket_bytes: u64) -> Self {
        let cap = bucket_bytes as u128 * 8 * PS_PER_S as u128;
        TokenBucket { rate_bps: rate_bps.max(1), cap, tokens: cap, last: 0 }
    }

    /// Current fill rate, bit/s.
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// Changes the fill rate from `now` on.
    pub fn set_rate(&mut self, now: SimTime, rate_bps: u64) {
        self.refill(now);
        self.rate_bps = rate_bps.max(1);
    }

    fn refill(&mut self, now: SimTime) {
        if now > self.last {
            let add = (now - self.last) as u128 * self.rate_bps as u128;
            self.tokens = (self.tokens + add).min(self.cap);
            self.last = now;
        }
    }

    /// Takes tokens for a packet of `size_bytes` if there are enough; otherwise returns the
    /// earliest time there will be.
    pub fn try_take(&mut self, now: SimTime, size_bytes: u32) -> Result<(), SimTime> {
        self.refill(now);
        let need = size_bytes as u128 * 8 * PS_PER_S as u128;
        if self.tokens >= need {
            self.tokens -= need;
            Ok(())
        } else {
            // A packet larger than the bucket waits for a full bucket and then takes all of it.
            let need = need.min(self.cap.max(1));
            if self.tokens >= need {
                self.tokens = 0;
                return Ok(());
            }
            let wait = (need - self.tokens).div_ceil(self.rate_bps as u128);
            Err(now + wait as SimTime)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::PS_PER_MS;

    #[test]
    fn bursts_up_to_the_bucket_then_paces_at_rate() {
        // 8 Mbit/s = 1 byte/us; bucket 2000 bytes.
        let mut tb = TokenBucket::new(8_000_000, 2000);
        assert!(tb.try_take(0, 1000).is_ok());
        assert!(tb.try_take(0, 1000).is_ok());
        let ready = tb.try_take(0, 1000).unwrap_err();
        assert_eq!(ready, PS_PER_MS); // 1000 bytes at 1 byte/us
        assert!(tb.try_take(ready, 1000).is_ok());
    }

    #[test]
    fn long_run_rate_is_the_fill_rate() {
        let mut tb = TokenBucket::new(1_000_000, 1500);
        let mut t = 0;
        let mut sent = 0u64;
        while t < 10 * PS_PER_S {
            match tb.try_take(t, 1250) {
                Ok(()) => sent += 1250,
                Err(at) => t = at,
            }
        }
        // 10 s at 1 Mbit/s = 1.25 MB (+ the initial bucket).
        assert!((sent as i64 - 1_250_000 - 1250).abs() <= 1250, "{sent}");
    }
}
