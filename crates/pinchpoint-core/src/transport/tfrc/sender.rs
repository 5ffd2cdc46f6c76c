//! The TFRC sender (RFC 5348 s4): sets the allowed rate X from the receiver's reports and paces
//! packets s / X apart.

use super::{throughput_equation_bytes_per_s, Feedback, TfrcConfig};
use crate::net::packet::{Packet, PacketKind};
use crate::sim::{SimTime, PS_PER_S};
use crate::transport::{Direction, TransportCtx, TransportReport, TIMER_APP, TIMER_RTO};

/// RFC 5348 s4.3: t_mbi, the longest back-off interval: the rate never falls below s / 64 s.
const T_MBI_S: f64 = 64.0;
/// RFC 5348 s4.3: the RTT filter constant q (R = q R + (1 - q) R_sample).
const RTT_FILTER_Q: f64 = 0.9;
/// RFC 5348 s4.2: the no-feedback timer before the first feedback arrives.
const INITIAL_NO_FEEDBACK_S: f64 = 2.0;

/// The sending end of a TFRC flow.
#[derive(Debug)]
pub struct TfrcSender {
    s_bytes: f64,
    header_bytes: u32,
    b: f64,
    self_clocking: bool,
    self_clocking_mult: f64,
    priority: u8,
    /// Allowed sending rate X, payload bytes per second.
    x_bytes_per_s: f64,
    /// Last reported receive rate, bytes per second.
    x_recv_bytes_per_s: f64,
    /// Last reported loss-event rate.
    p: f64,
    /// Smoothed RTT R, seconds (0: no sample yet).
    rtt_s: f64,
    /// Time of the last doubling in slow start (t_ld), ps.
    last_doubled_ps: SimTime,
    next_seq: u64,
    sent_bytes: u64,
    last_send_ps: SimTime,
    /// When the pacing timer is set to fire (NEVER-like max when idle).
    next_send_ps: SimTime,
    feedbacks: u64,
    no_feedback_expiries: u64,
    rtt_sum_ps: f64,
    rtt_min_ps: SimTime,
    rtt_max_ps: SimTime,
    /// Every RTT sample's moments, ps (for the deviation in the flows table).
    rtt_moments: crate::metrics::stats::Moments,
}

impl TfrcSender {
    /// A sender with settings `cfg` (validated).
    pub fn new(cfg: &TfrcConfig, priority: u8) -> Self {
        let s = cfg.packet_size.0 as f64;
        TfrcSender {
            s_bytes: s,
            header_bytes: cfg.header_bytes,
            b: cfg.b,
            self_clocking: cfg.self_clocking,
            self_clocking_mult: cfg.self_clocking_mult,
            priority,
            // RFC 5348 s4.2: without an RTT estimate, one packet per second.
            x_bytes_per_s: s,
            x_recv_bytes_per_s: 0.0,
            p: 0.0,
            rtt_s: 0.0,
            last_doubled_ps: 0,
            next_seq: 0,
            sent_bytes: 0,
            last_send_ps: 0,
            next_send_ps: SimTime::MAX,
            feedbacks: 0,
            no_feedback_expiries: 0,
            rtt_sum_ps: 0.0,
            rtt_min_ps: SimTime::MAX,
            rtt_max_ps: 0,
            rtt_moments: Default::default(),
        }
    }

    /// Allowed sending rate X, payload bytes per second.
    pub fn rate_bytes_per_s(&self) -> f64 {
        self.x_bytes_per_s
    }
    /// Smoothed RTT R, seconds (0 before the first feedback).
    pub fn rtt_s(&self) -> f64 {
        self.rtt_s
    }
    /// Last loss-event rate reported by the receiver.
    pub fn loss_event_rate(&self) -> f64 {
        self.p
    }
    /// Feedback reports received.
    pub fn feedbacks(&self) -> u64 {
        self.feedbacks
    }
    /// Data packets sent.
    pub fn sent_pkts(&self) -> u64 {
        self.next_seq
    }

    fn gap_ps(&self) -> SimTime {
        ((self.s_bytes / self.x_bytes_per_s) * PS_PER_S as f64).round().max(1.0) as SimTime
    }

    /// RFC 5348 s4.2: W_init = min(4 s, max(2 s, 4380 bytes)) (RFC 3390).
    fn initial_window_bytes(&self) -> f64 {
        (4.0 * self.s_bytes).min((2.0 * self.s_bytes).max(4380.0))
    }

    fn no_feedback_interval_ps(&self) -> SimTime {
        // RFC 5348 s4.3 step 5: max(4R, 2s/X).
        let secs = (4.0 * self.rtt_s).max(2.0 * self.s_bytes / self.x_bytes_per_s);
        (secs * PS_PER_S as f64).round() as SimTime
    }

    /// The flow starts: send the first packet and arm the no-feedback timer.
    pub fn on_start(&mut self, ctx: &mut TransportCtx) {
        ctx.set_timer(TIMER_RTO, ctx.now + (INITIAL_NO_FEEDBACK_S * PS_PER_S as f64) as SimTime);
        self.send_one(ctx);
    }

    /// The pacing timer fired: send one packet and schedule the next.
    pub fn on_send_timer(&mut self, ctx: &mut TransportCtx) {
        self.send_one(ctx);
    }

    fn send_one(&mut self, ctx: &mut TransportCtx) {
        let now = ctx.now;
        let payload = self.s_bytes as u32;
        let pkt = Packet {
            seq: self.next_seq,
            kind: PacketKind::Data,
            size_bytes: payload + self.header_bytes,
            payload_bytes: payload,
            sent_at: now,
            // RFC 5348 s3.2.1: each data packet carries the sender's RTT estimate.
            ts_echo: (self.rtt_s * PS_PER_S as f64).round() as SimTime,
            priority: self.priority,
            ..Default::default()
        };
        self.next_seq += 1;
        self.sent_bytes += payload as u64;
        ctx.send(pkt, Direction::Forward);
        self.last_send_ps = now;
        // RFC 5348 s4.6: packets are spaced s / X apart.
        self.next_send_ps = now + self.gap_ps();
        ctx.set_timer(TIMER_APP, self.next_send_ps);
    }

    /// After X changed: bring the next transmission forward if the new rate allows it sooner.
    fn repace(&mut self, ctx: &mut TransportCtx) {
        let due = (self.last_send_ps + self.gap_ps()).max(ctx.now);
        if due < self.next_send_ps {
            self.next_send_ps = due;
            ctx.set_timer(TIMER_APP, due);
        }
    }

    /// A feedback report arrived (RFC 5348 s4.3).
    pub fn on_feedback(&mut self, fb: &Feedback, ctx: &mut TransportCtx) {
        let now = ctx.now;
        self.feedbacks += 1;
        // Step 1-2: RTT sample and smoothed R.
        let sample_ps = now.saturating_sub(fb.ts_echo).max(1);
        self.rtt_sum_ps += sample_ps as f64;
        self.rtt_min_ps = self.rtt_min_ps.min(sample_ps);
        self.rtt_max_ps = self.rtt_max_ps.max(sample_ps);
        self.rtt_moments.add(sample_ps as f64);
        let sample_s = sample_ps as f64 / PS_PER_S as f64;
        self.rtt_s = if self.rtt_s == 0.0 { sample_s } else { RTT_FILTER_Q * self.rtt_s + (1.0 - RTT_FILTER_Q) * sample_s };
        self.p = fb.p;
        self.x_recv_bytes_per_s = fb.x_recv_bytes_per_s;
        let r = self.rtt_s;
        if self.p > 0.0 {
            // Step 4, p > 0: X = max(min(X_Bps, recv_limit), s / t_mbi). The receive-rate cap is
            // ns-2's (GAPS.md, seed 004 s3): 2 X_recv; with self-clocking X_recv after a loss
            // in the last RTT, else scmult * X_recv. A report with no measured rate (0) does
            // not cap.
            let x_calc = throughput_equation_bytes_per_s(self.s_bytes, r, self.p, self.b);
            let mult = if !self.self_clocking {
                2.0
            } else if fb.losses_since_last > 0 {
                1.0
            } else {
                self.self_clocking_mult
            };
            let recv_limit = if self.x_recv_bytes_per_s > 0.0 { mult * self.x_recv_bytes_per_s } else { f64::INFINITY };
            self.x_bytes_per_s = x_calc.min(recv_limit).max(self.s_bytes / T_MBI_S);
        } else {
            // Step 4, p = 0 (slow start): double once per RTT, up to twice the receive rate,
            // never below W_init / R.
            let w_init_rate = self.initial_window_bytes() / r;
            if self.feedbacks == 1 {
                self.x_bytes_per_s = w_init_rate;
                self.last_doubled_ps = now;
            } else if (now.saturating_sub(self.last_doubled_ps)) as f64 >= r * PS_PER_S as f64 {
                let recv_cap = if self.x_recv_bytes_per_s > 0.0 { 2.0 * self.x_recv_bytes_per_s } else { f64::INFINITY };
                self.x_bytes_per_s = (2.0 * self.x_bytes_per_s).min(recv_cap).max(w_init_rate);
                self.last_doubled_ps = now;
            }
        }
        // Step 5: restart the no-feedback timer.
        ctx.set_timer(TIMER_RTO, now + self.no_feedback_interval_ps());
        self.repace(ctx);
    }

    /// No feedback for max(4R, 2s/X) (RFC 5348 s4.4, simplified: halve the rate, floor s/t_mbi).
    pub fn on_no_feedback_timer(&mut self, ctx: &mut TransportCtx) {
        self.no_feedback_expiries += 1;
        self.x_bytes_per_s = (self.x_bytes_per_s / 2.0).max(self.s_bytes / T_MBI_S);
        self.x_recv_bytes_per_s /= 2.0;
        if self.rtt_s == 0.0 {
            ctx.set_timer(TIMER_RTO, ctx.now + (INITIAL_NO_FEEDBACK_S * PS_PER_S as f64) as SimTime);
        } else {
            ctx.set_timer(TIMER_RTO, ctx.now + self.no_feedback_interval_ps());
        }
    }

    /// Counters for summaries: `cwnd_bytes` is the rate-equivalent window X R, `acked_bytes`
    /// the payload bytes sent (TFRC acknowledges nothing), `timeouts` the no-feedback expiries.
    pub fn report(&self) -> TransportReport {
        let r_ps = (self.rtt_s * PS_PER_S as f64).round() as SimTime;
        TransportReport {
            acked_bytes: self.sent_bytes,
            timeouts: self.no_feedback_expiries,
            cwnd_bytes: (self.x_bytes_per_s * self.rtt_s) as u64,
            srtt_ps: r_ps,
            rtt_samples: self.feedbacks,
            rtt_sum_ps: self.rtt_sum_ps,
            rtt_min_ps: if self.feedbacks > 0 { self.rtt_min_ps } else { 0 },
            rtt_max_ps: self.rtt_max_ps,
            rtt_std_ps: self.rtt_moments.std(),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::testing::Harness;

    const MS: SimTime = crate::sim::PS_PER_MS;

    fn fb(ts_echo: SimTime, x_recv: f64, p: f64, losses: u32) -> Feedback {
        Feedback { ts_echo, x_recv_bytes_per_s: x_recv, p, losses_since_last: losses }
    }

    #[test]
    fn first_feedback_sets_the_initial_window_rate_and_paces_at_s_over_x() {
        let mut s = TfrcSender::new(&TfrcConfig::default(), 0);
        let mut h = Harness::new("t");
        s.on_start(&mut h.ctx(0));
        assert_eq!(h.out.len(), 1);
        assert_eq!(h.timers[TIMER_APP as usize], PS_PER_S, "1 packet per second before an RTT");
        // Feedback after 100 ms: R = 0.1 s, W_init = min(4000, max(2000, 4380)) = 4000 B,
        // X = 40 000 B/s, gap = 1000 / 40 000 = 25 ms, due at once (last send at 0).
        s.on_feedback(&fb(0, 0.0, 0.0, 0), &mut h.ctx(100 * MS));
        assert!((s.rtt_s() - 0.1).abs() < 1e-12);
        assert!((s.rate_bytes_per_s() - 40_000.0).abs() < 1e-9);
        assert_eq!(h.timers[TIMER_APP as usize], 100 * MS);
        s.on_send_timer(&mut h.ctx(100 * MS));
        assert_eq!(h.timers[TIMER_APP as usize], 125 * MS);
        // No-feedback timer: max(4R, 2s/X) = max(0.4, 0.05) s after the feedback.
        assert_eq!(h.timers[TIMER_RTO as usize], 500 * MS);
    }

    #[test]
    fn slow_start_doubles_once_per_rtt_capped_at_twice_the_receive_rate() {
        let mut s = TfrcSender::new(&TfrcConfig::default(), 0);
        let mut h = Harness::new("t");
        s.on_start(&mut h.ctx(0));
        s.on_feedback(&fb(0, 0.0, 0.0, 0), &mut h.ctx(100 * MS)); // X = 40 000
        s.on_feedback(&fb(100 * MS, 50_000.0, 0.0, 0), &mut h.ctx(150 * MS)); // < R since doubling
        assert!((s.rate_bytes_per_s() - 40_000.0).abs() < 1e-9);
        s.on_feedback(&fb(200 * MS, 50_000.0, 0.0, 0), &mut h.ctx(300 * MS)); // doubles
        assert!((s.rate_bytes_per_s() - 80_000.0).abs() < 1e-9);
        s.on_feedback(&fb(300 * MS, 30_000.0, 0.0, 0), &mut h.ctx(420 * MS)); // capped 2 * 30 000
        assert!((s.rate_bytes_per_s() - 60_000.0).abs() < 1e-9);
    }

    #[test]
    fn with_loss_the_rate_is_the_equation_capped_by_the_receive_rate() {
        for (self_clocking, losses, mult) in [(false, 1, 2.0), (true, 1, 1.0), (true, 0, 1.5)] {
            let cfg = TfrcConfig { self_clocking, ..Default::default() };
            let mut s = TfrcSender::new(&cfg, 0);
            let mut h = Harness::new("t");
            s.on_start(&mut h.ctx(0));
            s.on_feedback(&fb(0, 0.0, 0.0, 0), &mut h.ctx(100 * MS)); // R = 0.1
            // Equation at p = 0.01, R = 0.1 (R sample 0.1 again): 112 332 B/s.
            let x_eq = throughput_equation_bytes_per_s(1000.0, 0.1, 0.01, 1.0);
            s.on_feedback(&fb(100 * MS, 1e6, 0.01, losses), &mut h.ctx(200 * MS));
            assert!((s.rate_bytes_per_s() - x_eq).abs() < 1e-6, "uncapped");
            s.on_feedback(&fb(200 * MS, 40_000.0, 0.01, losses), &mut h.ctx(300 * MS));
            assert!((s.rate_bytes_per_s() - mult * 40_000.0).abs() < 1e-6, "sc={self_clocking} losses={losses}");
        }
    }

    #[test]
    fn no_feedback_halves_the_rate_down_to_one_packet_per_64_s() {
        let mut s = TfrcSender::new(&TfrcConfig::default(), 0);
        let mut h = Harness::new("t");
        s.on_start(&mut h.ctx(0));
        for k in 1..=10 {
            s.on_no_feedback_timer(&mut h.ctx(k * 2 * PS_PER_S));
        }
        assert!((s.rate_bytes_per_s() - 1000.0 / 64.0).abs() < 1e-12);
    }
}
