//! TCP-Friendly Rate Control (RFC 5348): an equation-based, rate-paced, unreliable transport.
//!
//! The receiver ([`receiver::TfrcReceiver`]) groups losses into loss events, keeps the last k
//! loss intervals and reports the loss-event rate `p` and its receive rate `X_recv` once per
//! round-trip time. The sender ([`sender::TfrcSender`]) computes the allowed rate `X` from the
//! TCP throughput equation ([`throughput_equation_bytes_per_s`]), caps it by a multiple of
//! `X_recv` (the self-clocking option of the slow-CC study, ns-2 `conservative_`) and paces
//! packets `s / X` apart. See `docs/algorithms/tfrc.md`.
//!
//! Feedback travels in existing [`Packet`] fields, so TFRC adds none (see [`Feedback`]). Data
//! packets carry their packet number in `seq` and the sender's RTT estimate in `ts_echo`
//! (RFC 5348 s3.2.1: "the sender's current estimate of the round-trip time").

pub mod receiver;
pub mod sender;

use super::{Transport, TransportCtx, TransportReport, TIMER_APP, TIMER_DELACK, TIMER_RTO};
use crate::net::packet::{Packet, PacketKind};
use crate::scenario::units::Bytes;
use crate::sim::{math, SimTime};
use serde::{Deserialize, Serialize};

/// Scenario settings of a TFRC flow (`tfrc = { ... }` beside `transport = "tfrc"`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TfrcConfig {
    /// Payload bytes per packet: `s` of the throughput equation (RFC 5348 s3.1: segment size
    /// without headers). Default 1000 B (ns-2 `Agent/TFRC size_`).
    pub packet_size: Bytes,
    /// Header bytes added to each data packet on the wire. Default 40 (IPv4 + UDP + TFRC header).
    pub header_bytes: u32,
    /// Size of a feedback packet on the wire. Default 40 B.
    pub feedback_bytes: u32,
    /// k: loss intervals in the weighted average, TFRC(k). Default 8 (RFC 5348 s5.4).
    pub loss_intervals: u32,
    /// Self-clocking (ns-2 `Agent/TFRC conservative_ 1`): after a loss in the last RTT the rate
    /// is capped at the reported receive rate, else at 1.5x it; without it at 2x. Default off.
    pub self_clocking: bool,
    /// Multiplier of the receive-rate cap after a loss-free RTT when `self_clocking` is on
    /// (ns-2 `scmult_`). Default 1.5.
    pub self_clocking_mult: f64,
    /// History discounting (RFC 5348 s5.5, ns-2 `discount_`). Default off (the RFC's option).
    pub history_discounting: bool,
    /// b of the throughput equation: packets acknowledged per TCP ack. Default 1 (RFC 5348 s3.1).
    pub b: f64,
}

impl Default for TfrcConfig {
    fn default() -> Self {
        TfrcConfig {
            packet_size: Bytes(1000),
            header_bytes: 40,
            feedback_bytes: 40,
            loss_intervals: 8,
            self_clocking: false,
            self_clocking_mult: 1.5,
            history_discounting: false,
            b: 1.0,
        }
    }
}

impl TfrcConfig {
    /// Checks what types cannot; returns (field, expectation) of the first problem.
    pub fn validate(&self) -> Result<(), (&'static str, &'static str)> {
        if self.packet_size.0 == 0 || self.packet_size.0 > u32::MAX as u64 / 2 {
            return Err(("packet_size", "expected a positive size below 2 GB"));
        }
        if self.feedback_bytes == 0 {
            return Err(("feedback_bytes", "expected a positive size"));
        }
        if self.loss_intervals == 0 || self.loss_intervals > 4096 {
            return Err(("loss_intervals", "expected 1 to 4096 loss intervals"));
        }
        if !(self.self_clocking_mult.is_finite() && self.self_clocking_mult >= 1.0) {
            return Err(("self_clocking_mult", "expected a number >= 1"));
        }
        // Read only by the self-clocking cap (a resolved scenario writes the default).
        if !self.self_clocking && self.self_clocking_mult != TfrcConfig::default().self_clocking_mult {
            return Err(("self_clocking_mult", "has no effect with self_clocking = false: expected self_clocking = true, or no self_clocking_mult"));
        }
        if !(self.b.is_finite() && self.b > 0.0) {
            return Err(("b", "expected a positive number of packets per ack"));
        }
        Ok(())
    }
}

/// RFC 5348 s3.1, the TCP throughput equation, in bytes per second, with t_RTO = 4R (the RFC's
/// recommended simplification):
///
/// ```text
/// X = s / (R sqrt(2bp/3) + t_RTO (3 sqrt(3bp/8)) p (1 + 32 p^2))
/// ```
///
/// `s` in bytes, `rtt_s` in seconds, `p` the loss-event rate in (0, 1]. Infinite for p = 0.
pub fn throughput_equation_bytes_per_s(s_bytes: f64, rtt_s: f64, p: f64, b: f64) -> f64 {
    let t_rto_s = 4.0 * rtt_s;
    let denom = rtt_s * (2.0 * b * p / 3.0).sqrt() + t_rto_s * (3.0 * (3.0 * b * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p);
    s_bytes / denom
}

/// The loss-event rate p at which [`throughput_equation_bytes_per_s`] gives `x_bytes_per_s`
/// (bisection in log p; the equation falls monotonically in p). RFC 5348 s6.3.1 uses it to
/// synthesise the first loss interval from the receive rate.
pub fn loss_rate_for_throughput(s_bytes: f64, rtt_s: f64, x_bytes_per_s: f64, b: f64) -> f64 {
    let (mut lo, mut hi) = (math::ln(1e-12), 0.0_f64); // ln p
    if !(x_bytes_per_s > 0.0 && rtt_s > 0.0) {
        return 1.0;
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if throughput_equation_bytes_per_s(s_bytes, rtt_s, math::exp(mid), b) > x_bytes_per_s {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    math::exp(0.5 * (lo + hi))
}

/// Weights w_1..w_k of the k most recent loss intervals (index 0 holds w_1).
///
/// RFC 5348 s5.4 (k = 8): 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2. For TFRC(k) we follow ns-2's
/// `TfrcSinkAgent::init_WALI` (GAPS.md, seed 004 s3): with m = floor(k/2), w_i = 1 for
/// i <= m and w_i = 1 - (i - m)/(m + 1) for i > m. For even k this is exactly the RFC's
/// general form w_i = 2(k - i + 1)/(k + 2).
pub fn interval_weights(k: usize) -> Vec<f64> {
    let m = k / 2;
    // Written as (2m + 1 - i) / (m + 1), the same number, so that k = 8 gives 0.2 exactly.
    (1..=k).map(|i| if i <= m { 1.0 } else { (2 * m + 1 - i) as f64 / (m + 1) as f64 }).collect()
}

/// What a feedback packet carries (RFC 5348 s3.2.2), and where it sits in [`Packet`]:
///
/// * `ts_echo`: the timestamp of the last data packet received plus the time the receiver held
///   it (t_recvdata + t_delay folded into one), so the sender's RTT sample is `now - ts_echo`;
/// * `return_rate_bps`: X_recv, the receive rate since the last feedback, in bit/s;
/// * `ack`: the loss-event rate p as the bits of an `f64` (exact);
/// * `window_bytes`: the number of data packets lost since the last feedback (ns-2's
///   `losses_since_last_report`, read by the self-clocking rule).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback {
    /// Echoed timestamp, adjusted by the receiver's holding time, ps.
    pub ts_echo: SimTime,
    /// Receive rate over the last feedback interval, bytes per second.
    pub x_recv_bytes_per_s: f64,
    /// Loss-event rate.
    pub p: f64,
    /// Data packets lost since the previous feedback.
    pub losses_since_last: u32,
}

impl Feedback {
    /// Writes the feedback into a packet of `size_bytes`.
    pub fn to_packet(self, size_bytes: u32, sent_at: SimTime) -> Packet {
        Packet {
            kind: PacketKind::Ack,
            size_bytes,
            sent_at,
            ts_echo: self.ts_echo,
            // Packet rate fields are f32 (RBCC, seed 002): X_recv keeps 7 significant digits.
            return_rate_bps: (self.x_recv_bytes_per_s * 8.0) as f32,
            ack: self.p.to_bits(),
            window_bytes: self.losses_since_last,
            ..Default::default()
        }
    }
    /// Reads the feedback out of a packet written by [`Feedback::to_packet`].
    pub fn from_packet(pkt: &Packet) -> Self {
        Feedback {
            ts_echo: pkt.ts_echo,
            x_recv_bytes_per_s: pkt.return_rate_bps as f64 / 8.0,
            p: f64::from_bits(pkt.ack),
            losses_since_last: pkt.window_bytes,
        }
    }
}

/// Both ends of a TFRC flow.
#[derive(Debug)]
pub struct TfrcFlow {
    /// The rate-controlled sender.
    pub sender: sender::TfrcSender,
    /// The receiver that measures loss events and reports.
    pub receiver: receiver::TfrcReceiver,
}

impl TfrcFlow {
    /// A TFRC flow with settings `cfg` (validated) whose data packets get scheduling `priority`.
    pub fn new(cfg: &TfrcConfig, priority: u8) -> Self {
        TfrcFlow { sender: sender::TfrcSender::new(cfg, priority), receiver: receiver::TfrcReceiver::new(cfg) }
    }
}

impl Transport for TfrcFlow {
    fn on_start(&mut self, ctx: &mut TransportCtx) {
        self.sender.on_start(ctx);
    }
    #[inline]
    fn on_packet(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        match pkt.kind {
            PacketKind::Data => self.receiver.on_data(pkt, ctx),
            PacketKind::Ack => self.sender.on_feedback(&Feedback::from_packet(pkt), ctx),
            PacketKind::Control => {}
        }
    }
    fn on_timer(&mut self, slot: u8, ctx: &mut TransportCtx) {
        match slot {
            TIMER_APP => self.sender.on_send_timer(ctx),
            TIMER_RTO => self.sender.on_no_feedback_timer(ctx),
            TIMER_DELACK => self.receiver.on_feedback_timer(ctx),
            _ => {}
        }
    }
    fn is_complete(&self) -> bool {
        false
    }
    fn is_finite(&self) -> bool {
        false
    }
    fn report(&self) -> TransportReport {
        let mut r = self.sender.report();
        r.delivered_bytes = self.receiver.delivered_bytes();
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_clocking_mult_is_refused_without_self_clocking_unless_at_its_default() {
        let off = TfrcConfig { self_clocking_mult: 3.0, ..Default::default() };
        assert_eq!(off.validate().unwrap_err().0, "self_clocking_mult");
        TfrcConfig { self_clocking: true, ..off }.validate().unwrap();
        TfrcConfig::default().validate().unwrap(); // the resolved scenario writes the default
    }

    #[test]
    fn equation_gives_the_rfc_value_at_one_percent_loss_and_100_ms() {
        // s = 1000 B, R = 0.1 s, p = 0.01, b = 1, t_RTO = 0.4 s:
        // R sqrt(2p/3) = 0.1 * 0.0816497 = 0.00816497
        // t_RTO * 3 sqrt(3p/8) * p * (1 + 32p^2) = 0.4 * 3 * 0.0612372 * 0.01 * 1.0032 = 0.000737189
        // X = 1000 / 0.00890216 = 112332.3 B/s
        let x = throughput_equation_bytes_per_s(1000.0, 0.1, 0.01, 1.0);
        let expect = 1000.0 / (0.1 * (0.02f64 / 3.0).sqrt() + 0.4 * 3.0 * (0.03f64 / 8.0).sqrt() * 0.01 * 1.0032);
        assert!((x - expect).abs() < 1e-9 * expect);
        assert!((x - 112_332.3).abs() < 0.5, "{x}");
    }

    #[test]
    fn equation_with_b_two_is_slower_than_with_b_one() {
        let x1 = throughput_equation_bytes_per_s(1000.0, 0.05, 0.001, 1.0);
        let x2 = throughput_equation_bytes_per_s(1000.0, 0.05, 0.001, 2.0);
        // At small p the first term dominates: X ~ 1/sqrt(b).
        assert!((x1 / x2 - 2f64.sqrt()).abs() < 0.02, "{}", x1 / x2);
    }

    #[test]
    fn inverse_equation_recovers_p() {
        for p in [1e-5, 1e-3, 0.02, 0.3] {
            let x = throughput_equation_bytes_per_s(1460.0, 0.08, p, 1.0);
            let back = loss_rate_for_throughput(1460.0, 0.08, x, 1.0);
            assert!((back - p).abs() < 1e-9 * p, "{p} -> {back}");
        }
    }

    #[test]
    fn weights_for_k_8_are_the_rfc_weights() {
        assert_eq!(interval_weights(8), vec![1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2]);
    }

    #[test]
    fn weights_for_even_k_match_the_rfc_general_form() {
        for k in [2usize, 4, 16, 256] {
            let w = interval_weights(k);
            for (idx, wi) in w.iter().enumerate() {
                let i = idx + 1;
                let rfc = if i <= k / 2 { 1.0 } else { 2.0 * (k - i + 1) as f64 / (k + 2) as f64 };
                assert!((wi - rfc).abs() < 1e-12, "k={k} i={i}: {wi} vs {rfc}");
            }
        }
        // Odd k (ns-2's rule): k = 5, m = 2: 1, 1, 2/3, 1/3, 0.
        let w5 = interval_weights(5);
        let want = [1.0, 1.0, 2.0 / 3.0, 1.0 / 3.0, 0.0];
        for (a, b) in w5.iter().zip(want) {
            assert!((a - b).abs() < 1e-12);
        }
    }

    #[test]
    fn feedback_survives_the_packet_round_trip() {
        let fb = Feedback { ts_echo: 123_456, x_recv_bytes_per_s: 98_765.5, p: 0.012_345_678_9, losses_since_last: 3 };
        let back = Feedback::from_packet(&fb.to_packet(40, 7));
        assert_eq!(back, fb);
    }
}
