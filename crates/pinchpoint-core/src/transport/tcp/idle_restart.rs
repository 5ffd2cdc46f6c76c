//! Window restart after idle (`tcp.slow_start_after_idle`), as Linux does it.
//!
//! After an idle period the acknowledgements that clocked the sender out have drained, so a
//! sender that keeps its old window puts a whole window on the wire at once, and what it learnt
//! about the path may be stale. RFC 5681 s4.1 (a SHOULD) cuts cwnd to the restart window
//! RW = min(IW, cwnd) before sending when no data has been sent for more than an RTO. RFC 2861
//! s3 (Experimental, now Historic: obsoleted by RFC 7661) decays instead: cwnd is halved for
//! each RTO of idle time, and ssthresh keeps a memory of the old window, at least 3/4 of it.
//!
//! Linux (`tcp_cwnd_restart`, enabled by the sysctl `tcp_slow_start_after_idle`, default 1)
//! combines the two, and this module computes exactly its rule:
//!
//! ```text
//! ssthresh = max(ssthresh, cwnd/2 + cwnd/4)          (tcp_current_ssthresh)
//! rw       = min(IW, cwnd)
//! delta    = now - lsndtime
//! while (delta -= rto) > 0 and cwnd > rw: cwnd /= 2
//! cwnd     = max(cwnd, rw)
//! ```
//!
//! so an idle time of k.5 RTOs halves the window k times, never below RW (RFC 5681 alone would
//! go to RW at once). Differences from Linux, all small: windows here are bytes, so the halving
//! and the 3/4 are exact in bytes where Linux rounds down to whole segments; Linux's clock for
//! `lsndtime` and the RTO is the jiffy (1 to 10 ms), ours the picosecond; and the RTO it is
//! compared with is ours (`min_rto` applied as RFC 6298 s2.4, not Linux's `rto_min` added to the
//! variance; see docs/algorithms/tcp.md), so with Linux's 200 ms floor an idle period between
//! our RTO and Linux's (about SRTT + 200 ms) restarts here but not in Linux. `tcp_current_ssthresh`
//! keeps ssthresh unchanged during a window reduction (CWR or recovery); a sender with nothing
//! in flight is never in one here, so the max is always taken.

use crate::sim::SimTime;

/// The window after an idle period, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestartedWindow {
    /// The new congestion window.
    pub cwnd_bytes: u64,
    /// The new slow-start threshold.
    pub ssthresh_bytes: u64,
}

/// True if a sender with nothing in flight that last sent data `idle_ps` ago restarts its window
/// before sending: the idle time exceeds the current RTO (Linux `tcp_event_data_sent` and
/// `tcp_slow_start_after_idle_check`: `delta > icsk_rto`, strictly).
#[inline]
pub fn is_idle(idle_ps: SimTime, rto_ps: SimTime) -> bool {
    idle_ps > rto_ps
}

/// Linux `tcp_cwnd_restart` for a window of `cwnd_bytes` and threshold `ssthresh_bytes`, an
/// initial window of `init_cwnd_bytes`, `idle_ps` since the last data segment was sent and the
/// current RTO `rto_ps` (positive). Call only when [`is_idle`] says so.
pub fn restart_window(cwnd_bytes: u64, ssthresh_bytes: u64, init_cwnd_bytes: u64, idle_ps: SimTime, rto_ps: SimTime) -> RestartedWindow {
    debug_assert!(rto_ps > 0);
    // tcp_current_ssthresh outside a window reduction: remember 3/4 of the old window.
    let ssthresh = ssthresh_bytes.max(cwnd_bytes / 2 + cwnd_bytes / 4);
    let restart = init_cwnd_bytes.min(cwnd_bytes);
    let mut cwnd = cwnd_bytes;
    // One halving for each RTO the idle time still exceeds after subtracting it (the loop of
    // tcp_cwnd_restart, on unsigned numbers: `left > rto` is `left - rto > 0`).
    let mut left = idle_ps;
    while left > rto_ps && cwnd > restart {
        left -= rto_ps;
        cwnd /= 2;
    }
    RestartedWindow { cwnd_bytes: cwnd.max(restart), ssthresh_bytes: ssthresh }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTO: SimTime = 200;

    #[test]
    fn each_full_rto_of_idle_time_halves_the_window_down_to_the_restart_window() {
        // 80 segments of 1000 bytes, initial window 10, ssthresh 30: idle 1.5, 2.5, 3.5 and
        // 5.5 RTOs halve 1, 2, 3 and (capped at RW = 10 segments) 3 times.
        let w = |idle| restart_window(80_000, 30_000, 10_000, idle, RTO);
        assert_eq!(w(300), RestartedWindow { cwnd_bytes: 40_000, ssthresh_bytes: 60_000 });
        assert_eq!(w(500).cwnd_bytes, 20_000);
        assert_eq!(w(700).cwnd_bytes, 10_000);
        assert_eq!(w(1100).cwnd_bytes, 10_000);
        // Exactly two RTOs: `(delta -= rto) > 0` holds once only.
        assert_eq!(w(400).cwnd_bytes, 40_000);
        // Just over one RTO: one halving already.
        assert_eq!(w(201).cwnd_bytes, 40_000);
        assert!(!is_idle(200, RTO) && is_idle(201, RTO));
    }

    #[test]
    fn the_floor_is_the_smaller_of_the_initial_window_and_cwnd_and_ssthresh_only_grows() {
        // cwnd below the initial window: RW = cwnd, nothing to halve.
        assert_eq!(restart_window(6_000, 4_000, 10_000, 5_000, RTO), RestartedWindow { cwnd_bytes: 6_000, ssthresh_bytes: 4_500 });
        // Halving below RW stops at RW: 24 -> 12 -> 6 is floored at 10 segments.
        assert_eq!(restart_window(24_000, 1 << 62, 10_000, 700, RTO), RestartedWindow { cwnd_bytes: 10_000, ssthresh_bytes: 1 << 62 });
        // A window that is not a whole number of segments halves in bytes.
        assert_eq!(restart_window(15_000, 0, 4_000, 300, RTO).cwnd_bytes, 7_500);
    }
}
