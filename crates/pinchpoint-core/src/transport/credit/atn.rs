//! ATN receiver-based congestion avoidance: the receiving transport entity sizes the credit
//! window W from the fraction of data packets that arrive with Congestion Experienced set.
//!
//! Rules, with their sources (ATN WP/267 = seed 000; the draft SARPs paragraphs it amends are
//! not available to us, so the exact wording of the base rule is inferred, see docs/sources.md s2.2):
//! - s5.4: per sampling period count N, the network packets (NPDUs) that carry DT TPDUs, and NC,
//!   those of them with CE set. Acknowledgements (AK TPDUs) are never counted.
//! - s5.2: when a TPDU travels in several network packets (`tcp.packets_per_segment`), each
//!   packet counts in N (and in NC if it has CE), so the counts are per network packet.
//! - s3.2.2 / docs/sources.md s2.2: a sampling period lasts one window's worth of data; we end it when the data
//!   bytes counted in it reach W x TPDU size (W as at the period's start), so that it also spans
//!   one window when TPDUs are split into several packets.
//! - s5.5 (replacing the "1" of draft 5.2.6.2.4(1) by delta) with the standard CE-bit rule: at the
//!   end of a period, if NC >= lambda N then W = max(1, floor(beta W)), else W = W + delta.
//! - s5.3: if W changed, the next sampling period starts only one estimated RTT later; if it did
//!   not change, the next period starts at once.
//! - s5.5 table: beta 0.75..0.95, delta 1, W0 1, lambda 50 %. The paper gives beta only as a range;
//!   our default 0.875 is DECbit's decrease factor (docs/sources.md s2.2), inside that range.
//!
//! How the receiver estimates the RTT (the seed does not say; a TP4 receiver has no timestamps).
//! The receiver watches its own credit: every acknowledgement it sends opens the window up to
//! the edge `rcv_nxt + W x TPDU size`. A data packet ending beyond every edge advertised before
//! time t cannot have left the sender before the acknowledgement sent at t reached it. So when
//! the first new (not retransmitted) data packet reaching past the previous highest edge arrives,
//! the time since the acknowledgement that first advertised an edge covering it is one round trip:
//! acknowledgement out, data back, queueing included. Samples are smoothed as RFC 6298 s2.3 does
//! (gain 1/8). This is exact for a sender that is limited by the credit (it sends the moment the
//! credit opens), which is how the ATN transfers run; it overestimates when the sender paused for
//! other reasons (no data to send, a retransmission timeout), and it assumes every data packet is
//! acknowledged at once (no delayed acknowledgements), as the ATN scenarios do. Before the first
//! sample exists, a suspension lasts until the first sample arrives, which also is one round trip.

use super::{ReceiverInit, ReceiverPolicy, ReceiverView};
use crate::net::packet::{flags, Packet, PacketKind};
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

fn default_beta() -> f64 {
    0.875
}
fn default_one() -> u32 {
    1
}
fn default_lambda() -> f64 {
    0.5
}

/// Scenario configuration (`receiver = { kind = "atn", ... }`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AtnConfig {
    /// Window decrease factor beta (ATN WP/267 s5.5: 0.75..0.95; default 0.875, see module doc).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Window increase per sampling period without congestion, TPDUs (s5.5: 1).
    #[serde(default = "default_one")]
    pub delta: u32,
    /// Initial window W0, TPDUs (s5.5: 1).
    #[serde(default = "default_one")]
    pub w0: u32,
    /// Congestion ratio lambda: decrease when NC >= lambda N (s5.5: 50 %).
    #[serde(default = "default_lambda")]
    pub lambda: f64,
    /// Largest window, TPDUs (absent: no limit other than `tcp.max_window`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_max: Option<u32>,
}

impl Default for AtnConfig {
    fn default() -> Self {
        AtnConfig { beta: default_beta(), delta: 1, w0: 1, lambda: default_lambda(), w_max: None }
    }
}

/// Where the sampling cycle stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Counting N and NC.
    Active,
    /// W changed; sampling restarts at this time (change time + estimated RTT), ps.
    SuspendedUntil(SimTime),
    /// W changed at this time before any RTT sample existed; sampling restarts once one arrives.
    AwaitingRtt(SimTime),
}

/// The ATN credit-window policy. Its state is boxed so that the receiver-policy enum, held by
/// every TCP receiver, stays the size of the fixed-window policy (an idle flow's memory).
#[derive(Clone, Debug)]
pub struct AtnCredit(Box<AtnState>);

impl AtnCredit {
    /// A policy starting at W0 (see [`AtnState::new`]).
    pub fn new(cfg: &AtnConfig, init: ReceiverInit) -> Self {
        AtnCredit(Box::new(AtnState::new(cfg, init)))
    }
}

impl std::ops::Deref for AtnCredit {
    type Target = AtnState;
    fn deref(&self) -> &AtnState {
        &self.0
    }
}

impl std::ops::DerefMut for AtnCredit {
    fn deref_mut(&mut self) -> &mut AtnState {
        &mut self.0
    }
}

impl ReceiverPolicy for AtnCredit {
    fn on_data(&mut self, pkt: &Packet, view: &ReceiverView, now: SimTime) {
        self.0.on_data(pkt, view, now)
    }
    fn window_bytes(&self) -> u64 {
        self.0.window_bytes()
    }
}

/// The ATN policy's state.
#[derive(Clone, Debug)]
pub struct AtnState {
    cfg: AtnConfig,
    mss: u32,
    max_window_bytes: Option<u64>,
    /// Current credit window W, TPDUs.
    w: u32,
    sampling: Sampling,
    /// Data packets counted in this period (N).
    n: u64,
    /// Of those, with CE set (NC).
    nc: u64,
    /// Payload bytes counted in this period.
    period_bytes: u64,
    /// The period ends when `period_bytes` reaches this (W at the period's start x TPDU size).
    period_target_bytes: u64,
    /// Credit advertisements that raised the edge, oldest first: (previous highest edge, new
    /// edge, time advertised, already gave a sample). Data ending in (previous, new] could
    /// only be sent after that acknowledgement reached the sender.
    edges: VecDeque<(u64, u64, SimTime, bool)>,
    /// Highest edge advertised so far.
    max_edge: u64,
    /// Highest data byte (end) seen so far.
    max_end: u64,
    /// Smoothed RTT estimate, ps (valid once `rtt_samples > 0`).
    srtt: SimTime,
    /// Counters (for reports and tests); boxed to keep the policy enum small.
    pub stats: Box<AtnStats>,
}

/// What the policy has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AtnStats {
    /// Data packets seen (counted or not).
    pub data_pkts: u64,
    /// Data packets counted in some sampling period (sum of N).
    pub counted_pkts: u64,
    /// Of those, with CE (sum of NC).
    pub counted_ce_pkts: u64,
    /// Sampling periods completed.
    pub periods: u64,
    /// Periods that decreased W.
    pub decreases: u64,
    /// Periods that increased W.
    pub increases: u64,
    /// RTT samples taken.
    pub rtt_samples: u64,
}

impl AtnState {
    /// Builds the policy.
    pub fn new(cfg: &AtnConfig, init: ReceiverInit) -> Self {
        debug_assert!(crate::registry::Validate::validate(cfg).is_ok(), "atn: built from an unvalidated config");
        let mut a = AtnState {
            cfg: *cfg,
            mss: init.mss,
            max_window_bytes: init.max_window_bytes,
            w: cfg.w0.min(cfg.w_max.unwrap_or(u32::MAX)),
            sampling: Sampling::Active,
            n: 0,
            nc: 0,
            period_bytes: 0,
            period_target_bytes: 0,
            edges: VecDeque::new(),
            max_edge: 0,
            max_end: 0,
            srtt: 0,
            stats: Box::default(),
        };
        a.start_period();
        // The initial credit is advertised in the connection handshake (s5.5: W0); the edge it
        // opens is not tied to an acknowledgement we time, so it gives no RTT sample.
        a.max_edge = a.window_bytes();
        a
    }

    /// Current window W, TPDUs.
    pub fn w(&self) -> u32 {
        self.w
    }
    /// Where the sampling cycle stands.
    pub fn sampling(&self) -> Sampling {
        self.sampling
    }
    /// Smoothed RTT estimate, ps (None before the first sample).
    pub fn srtt_ps(&self) -> Option<SimTime> {
        (self.stats.rtt_samples > 0).then_some(self.srtt)
    }
    /// (N, NC) of the period in progress.
    pub fn counts(&self) -> (u64, u64) {
        (self.n, self.nc)
    }

    fn start_period(&mut self) {
        self.n = 0;
        self.nc = 0;
        self.period_bytes = 0;
        // s3.2.2: one window's worth of data.
        self.period_target_bytes = self.w as u64 * self.mss as u64;
    }

    fn rtt_sample(&mut self, r: SimTime) {
        if self.stats.rtt_samples == 0 {
            self.srtt = r;
        } else {
            // RFC 6298 s2.3 smoothing, gain 1/8.
            self.srtt = (7 * self.srtt + r) / 8;
        }
        self.stats.rtt_samples += 1;
    }

    /// Takes an RTT sample from a new data packet ending at `end`, if it is the first to use
    /// the credit of some acknowledgement (see the module doc).
    fn measure_rtt(&mut self, pkt: &Packet, end: u64, now: SimTime) {
        if pkt.flags & flags::RETX != 0 || end <= self.max_end {
            return;
        }
        self.max_end = end;
        while self.edges.front().is_some_and(|e| e.1 < end) {
            self.edges.pop_front();
        }
        if let Some(front) = self.edges.front_mut() {
            if end > front.0 && !front.3 {
                front.3 = true;
                let r = now - front.2;
                self.rtt_sample(r);
            }
        }
    }

    /// End of a sampling period: the window rule of s5.5.
    fn end_period(&mut self, now: SimTime) {
        self.stats.periods += 1;
        let old = self.w;
        // ATN WP/267 s5.5 (draft SARPs 5.2.6.2.4): NC >= lambda N -> W = max(1, floor(beta W)),
        // else W = W + delta.
        if self.nc as f64 >= self.cfg.lambda * self.n as f64 {
            self.w = ((self.cfg.beta * self.w as f64).floor() as u32).max(1);
        } else {
            self.w = self.w.saturating_add(self.cfg.delta).min(self.cfg.w_max.unwrap_or(u32::MAX));
        }
        if self.w < old {
            self.stats.decreases += 1;
        } else if self.w > old {
            self.stats.increases += 1;
        }
        self.start_period();
        if self.w != old {
            // ATN WP/267 s5.3: after W changes, wait one estimated RTT before sampling again.
            self.sampling = match self.srtt_ps() {
                Some(rtt) => Sampling::SuspendedUntil(now + rtt),
                None => Sampling::AwaitingRtt(now),
            };
        }
    }
}

impl ReceiverPolicy for AtnState {
    fn on_data(&mut self, pkt: &Packet, view: &ReceiverView, now: SimTime) {
        // ATN WP/267 s5.4: only NPDUs conveying DT TPDUs are sampled; the receiver feeds the
        // policy data packets only, and this keeps it so.
        assert_eq!(pkt.kind, PacketKind::Data, "atn: the credit policy must only see data packets");
        self.stats.data_pkts += 1;
        let end = pkt.seq + pkt.payload_bytes as u64;
        self.measure_rtt(pkt, end, now);

        if let Sampling::AwaitingRtt(since) = self.sampling {
            if let Some(rtt) = self.srtt_ps() {
                self.sampling = Sampling::SuspendedUntil(since + rtt);
            }
        }
        if let Sampling::SuspendedUntil(t) = self.sampling {
            if now >= t {
                // s5.3: the suspension is over; a new period starts with this packet.
                self.sampling = Sampling::Active;
                self.start_period();
            }
        }
        if self.sampling == Sampling::Active {
            // s5.4 / s5.2: count every network packet carrying data, and those with CE.
            self.n += 1;
            self.stats.counted_pkts += 1;
            if pkt.ce() {
                self.nc += 1;
                self.stats.counted_ce_pkts += 1;
            }
            self.period_bytes += pkt.payload_bytes as u64;
            if self.period_bytes >= self.period_target_bytes {
                self.end_period(now);
            }
        }

        // The acknowledgement the receiver sends for this packet advertises this edge.
        let rcv_after = if pkt.seq <= view.rcv_nxt { view.rcv_nxt.max(end) } else { view.rcv_nxt };
        let edge = rcv_after + self.window_bytes();
        // A packet with more of its TPDU to follow is not acknowledged by itself (s5.2).
        if edge > self.max_edge && pkt.flags & flags::MORE == 0 {
            self.edges.push_back((self.max_edge, edge, now, false));
            self.max_edge = edge;
        }
    }

    fn window_bytes(&self) -> u64 {
        // The credit is W TPDUs of one MSS each.
        let w = self.w as u64 * self.mss as u64;
        self.max_window_bytes.map_or(w, |m| w.min(m))
    }
}

/// Ranges: `beta` in (0, 1), `lambda` in (0, 1], `delta` 1 to 10^6, `w0` 1 to 10^6 packets,
/// `w_max` (if given) at least `w0`.
impl crate::registry::Validate for AtnConfig {
    fn validate(&self) -> Result<(), crate::registry::FieldError> {
        use crate::registry::{check_f64_above, check_f64_open, check_int, FieldError};
        check_f64_open("beta", self.beta, 0.0, 1.0)?;
        check_f64_above("lambda", self.lambda, 0.0, 1.0)?;
        check_int("delta", self.delta, 1, 1_000_000)?;
        check_int("w0", self.w0, 1, 1_000_000)?;
        if let Some(m) = self.w_max {
            if m < self.w0 {
                return Err(FieldError::new("w_max", format!("expected at least w0 ({}), got {m}", self.w0)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = crate::sim::PS_PER_MS;
    const MSS: u32 = 500;

    fn policy(cfg: AtnConfig) -> AtnCredit {
        AtnCredit::new(&cfg, ReceiverInit { mss: MSS, max_window_bytes: None })
    }

    fn data(seq: u64, ce: bool) -> Packet {
        let mut p = Packet { kind: PacketKind::Data, seq, payload_bytes: MSS, size_bytes: MSS + 40, ..Default::default() };
        if ce {
            p.set_ce();
        }
        p
    }

    /// Feeds the next in-order full packet and advances `seq`.
    fn feed(a: &mut AtnCredit, seq: &mut u64, now: SimTime, ce: bool) {
        let view = ReceiverView { rcv_nxt: *seq, mss: MSS };
        a.on_data(&data(*seq, ce), &view, now);
        *seq += MSS as u64;
    }

    /// As `feed`, but flagged as a retransmission so that it leaves the RTT estimate alone
    /// (it is still counted, as s5.4 counts every data NPDU).
    fn feed_fixed_rtt(a: &mut AtnCredit, seq: &mut u64, now: SimTime, ce: bool) {
        let view = ReceiverView { rcv_nxt: *seq, mss: MSS };
        let mut p = data(*seq, ce);
        p.flags |= flags::RETX;
        a.on_data(&p, &view, now);
        *seq += MSS as u64;
    }

    #[test]
    fn starts_at_w0_and_advertises_w_times_mss() {
        let a = policy(AtnConfig { w0: 3, ..Default::default() });
        assert_eq!(a.w(), 3);
        assert_eq!(a.window_bytes(), 1500);
        let capped = AtnCredit::new(&AtnConfig { w0: 3, ..Default::default() }, ReceiverInit { mss: MSS, max_window_bytes: Some(1000) });
        assert_eq!(capped.window_bytes(), 1000);
    }

    #[test]
    fn window_follows_beta_delta_rule_on_scripted_ce() {
        // beta 0.75, w0 8, RTT estimate fixed at 1 ms; packets 10 ms apart, so every
        // suspension is over by the next packet.
        let mut a = policy(AtnConfig { beta: 0.75, w0: 8, ..Default::default() });
        a.rtt_sample(MS);
        let mut seq = 0;
        let mut t = 0;
        // Period 1 (8 packets), 4 with CE: 4 >= 0.5 x 8 -> W = floor(0.75 x 8) = 6.
        for i in 0..8 {
            t += 10 * MS;
            feed_fixed_rtt(&mut a, &mut seq, t, i % 2 == 0);
        }
        assert_eq!(a.w(), 6);
        assert_eq!(a.stats.decreases, 1);
        // Period 2 (6 packets), 2 with CE: 2 < 3 -> W = 7.
        for i in 0..6 {
            t += 10 * MS;
            feed_fixed_rtt(&mut a, &mut seq, t, i < 2);
        }
        assert_eq!(a.w(), 7);
        // Period 3 (7 packets), all CE -> floor(5.25) = 5.
        for _ in 0..7 {
            t += 10 * MS;
            feed_fixed_rtt(&mut a, &mut seq, t, true);
        }
        assert_eq!(a.w(), 5);
        // Repeated decreases floor at 1: 5 -> 3 -> 2 -> 1 -> 1.
        for expect in [3, 2, 1, 1] {
            let w = a.w();
            for _ in 0..w {
                t += 10 * MS;
                feed_fixed_rtt(&mut a, &mut seq, t, true);
            }
            assert_eq!(a.w(), expect);
        }
        assert_eq!(a.stats.periods, 7);
    }

    #[test]
    fn increase_respects_w_max_and_unchanged_w_does_not_suspend() {
        let mut a = policy(AtnConfig { w0: 2, w_max: Some(3), ..Default::default() });
        a.rtt_sample(100 * MS);
        let mut seq = 0;
        feed(&mut a, &mut seq, 0, false);
        feed(&mut a, &mut seq, 1, false);
        assert_eq!(a.w(), 3);
        assert_eq!(a.sampling(), Sampling::SuspendedUntil(1 + 100 * MS));
        for k in 0..3 {
            feed(&mut a, &mut seq, 200 * MS + k, false);
        }
        // W stays at w_max: no change, so the next period starts at once (s5.3 note).
        assert_eq!(a.w(), 3);
        assert_eq!(a.sampling(), Sampling::Active);
        assert_eq!(a.stats.periods, 2);
    }

    #[test]
    fn sampling_is_suspended_one_rtt_after_a_change() {
        let mut a = policy(AtnConfig { w0: 1, ..Default::default() });
        a.rtt_sample(500 * MS);
        let mut seq = 0;
        // One packet, no CE: W 1 -> 2 at t = 0, suspended until 500 ms.
        feed(&mut a, &mut seq, 0, false);
        assert_eq!(a.w(), 2);
        assert_eq!(a.sampling(), Sampling::SuspendedUntil(500 * MS));
        // Packets before 500 ms are not counted, even with CE.
        feed(&mut a, &mut seq, 100 * MS, true);
        feed(&mut a, &mut seq, 499 * MS, true);
        assert_eq!(a.counts(), (0, 0));
        assert_eq!(a.stats.counted_pkts, 1);
        assert_eq!(a.w(), 2);
        // From 500 ms a period of W = 2 packets runs: 1 CE of 2 -> 1 >= 1 -> W = floor(1.75) = 1.
        feed(&mut a, &mut seq, 500 * MS, true);
        assert_eq!(a.counts(), (1, 1));
        feed(&mut a, &mut seq, 600 * MS, false);
        assert_eq!(a.w(), 1);
        assert_eq!(a.stats.counted_pkts, 3);
    }

    #[test]
    fn receiver_measures_rtt_from_its_own_credit() {
        // W0 = 1. Packet [0,500) arrives at 100 ms (sent on the handshake credit: no sample).
        // W -> 2; the ack at 100 ms advertises edge 500 + 1000 = 1500. Packets [500,1000) and
        // [1000,1500) arrive at 400 ms and 410 ms: the first gives RTT 300 ms, the second none.
        let mut a = policy(AtnConfig::default());
        let mut seq = 0;
        feed(&mut a, &mut seq, 100 * MS, false);
        assert_eq!(a.srtt_ps(), None);
        assert_eq!(a.sampling(), Sampling::AwaitingRtt(100 * MS));
        feed(&mut a, &mut seq, 400 * MS, false);
        assert_eq!(a.srtt_ps(), Some(300 * MS));
        // The suspension ran from 100 ms for one RTT: it ends at 400 ms, so this packet counts.
        assert_eq!(a.sampling(), Sampling::Active);
        assert_eq!(a.counts(), (1, 0));
        feed(&mut a, &mut seq, 410 * MS, false);
        assert_eq!(a.stats.rtt_samples, 1);
        assert_eq!(a.w(), 3);
        // Edge after 400 ms: 1000 + 1000 = 2000 (W was 2); after 410 ms: 1500 + 1500 = 3000.
        // [1500,2000) at 700 ms: first past 1500, covered by the 400 ms edge: sample 300 ms.
        feed(&mut a, &mut seq, 700 * MS, false);
        assert_eq!(a.stats.rtt_samples, 2);
        assert_eq!(a.srtt_ps(), Some(300 * MS));
        // A retransmission never gives a sample.
        let mut r = data(2000, false);
        r.flags |= flags::RETX;
        a.on_data(&r, &ReceiverView { rcv_nxt: 2000, mss: MSS }, 2000 * MS);
        assert_eq!(a.stats.rtt_samples, 2);
    }

    #[test]
    fn split_tpdus_count_per_network_packet() {
        // A 500-byte TPDU in two 250-byte packets (s5.2): with W = 2 the period is 4 packets.
        let mut a = policy(AtnConfig { w0: 2, ..Default::default() });
        a.rtt_sample(MS);
        for (i, ce) in [true, true, false, false].into_iter().enumerate() {
            let p = Packet { kind: PacketKind::Data, seq: 250 * i as u64, payload_bytes: 250, size_bytes: 290, flags: if ce { flags::CE } else { 0 }, ..Default::default() };
            a.on_data(&p, &ReceiverView { rcv_nxt: 250 * i as u64, mss: MSS }, i as SimTime);
        }
        // N = 4, NC = 2 >= 2 -> W = floor(0.875 x 2) = 1.
        assert_eq!(a.stats.counted_pkts, 4);
        assert_eq!(a.stats.counted_ce_pkts, 2);
        assert_eq!(a.w(), 1);
    }

    #[test]
    #[should_panic(expected = "only see data packets")]
    fn acknowledgements_are_never_counted() {
        let mut a = policy(AtnConfig::default());
        let ack = Packet { kind: PacketKind::Ack, flags: flags::CE, ..Default::default() };
        a.on_data(&ack, &ReceiverView { rcv_nxt: 0, mss: MSS }, 0);
    }

    #[test]
    fn config_defaults_follow_s5_5() {
        let c: AtnConfig = toml::from_str("").unwrap();
        assert_eq!(c, AtnConfig::default());
        assert_eq!((c.beta, c.delta, c.w0, c.lambda, c.w_max), (0.875, 1, 1, 0.5, None));
        assert!(toml::from_str::<AtnConfig>("gamma = 1").is_err());
    }
}
