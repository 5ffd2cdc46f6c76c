//! TRUMP, the rate-based reliable unicast transport of Toomey's thesis (1998, ch. 5 and 9;
//! seminar 1996 s5), which runs over RBCC routers (`port_hooks::rbcc`).
//!
//! * Two-way handshake: the source sends a setup packet every `setup_interval` (1 s) until the
//!   setup acknowledgement returns, and gives up after `setup_timeout` (30 s) [seminar s5]. The
//!   setup crosses the routers like data, so its acknowledgement brings the first Return_Rate.
//! * Leaky-bucket admission: one timer paces data packets `size * 8 / Return_Rate` apart; every
//!   acknowledgement may change Return_Rate and re-times the next packet [seminar s5].
//! * Finite desired rate: the source writes it into every packet's Rate field, so no router
//!   allocates more, and never sends faster.
//! * Selective acknowledgements of size k: the destination acknowledges once per `sack_every`
//!   data packets received (and at the last packet of the file), naming the packet that
//!   triggered it, the cumulative count and the range around it, and reflecting Rate as
//!   Return_Rate. The ack also carries (in `window_bytes`) the data bytes it stands for, so RBCC
//!   routers can size the acknowledgement stream.
//! * Lazy retransmission: a loss changes nothing. Once every packet has been sent once, the
//!   source keeps cycling through the unacknowledged packets at the paced rate until all are
//!   acknowledged: no round-trip timer [thesis ch. 9].
//! * Variable packet sizes: each packet's size is drawn uniformly in
//!   [`packet_size`, `packet_size_max`] (thesis scenario 7).
//!
//! Sequence numbers count packets, not bytes.

use super::{Direction, Transport, TransportCtx, TransportReport, NEVER, TIMER_APP, TIMER_RTO};
use crate::net::packet::{flags, Packet, PacketKind};
use crate::scenario::units::{Bytes, Duration, Rate};
use crate::metrics::stats::Moments;
use crate::sim::{rng, SimTime, PS_PER_S};
use crate::transport::tcp::sack::SackBlocks;
use serde::{Deserialize, Serialize};

/// TRUMP settings of a flow (`[flows.trump]`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TrumpConfig {
    /// Size of a data packet on the wire (the smallest, if `packet_size_max` is set). The thesis
    /// uses 1500-byte packets (GAPS.md s9).
    pub packet_size: Bytes,
    /// If set, packet sizes are uniform in [`packet_size`, `packet_size_max`] (thesis scenario 7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packet_size_max: Option<Bytes>,
    /// Size of an acknowledgement on the wire (GAPS.md s9: 40 bytes).
    pub ack_size: Bytes,
    /// Data packets per selective acknowledgement (k; thesis scenario 9 uses 1 and 16).
    pub sack_every: u32,
    /// Highest rate the source wants (bit/s on the wire); none: as fast as the network allows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desired_rate: Option<Rate>,
    /// Gap between connection-setup packets (seminar s5: 1 s).
    pub setup_interval: Duration,
    /// Give up if no setup acknowledgement arrives within this time (seminar s5: 30 s).
    pub setup_timeout: Duration,
}

impl TrumpConfig {
    /// Packet sizes uniform in [`packet_size`, `packet_size_max`] are drawn at the start; one
    /// size is not.
    pub fn draws_random(&self) -> bool {
        self.packet_size_max.is_some_and(|max| max.0 > self.packet_size.0)
    }
}

impl Default for TrumpConfig {
    fn default() -> Self {
        TrumpConfig {
            packet_size: Bytes(1500),
            packet_size_max: None,
            ack_size: Bytes(40),
            sack_every: 1,
            desired_rate: None,
            setup_interval: Duration(PS_PER_S),
            setup_timeout: Duration(30 * PS_PER_S),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Setup,
    Data,
    Done,
    Aborted,
}

/// Both ends of a TRUMP connection.
#[derive(Debug)]
pub struct TrumpFlow {
    cfg_min: u32,
    cfg_max: u32,
    ack_size: u32,
    sack_every: u32,
    desired_bps: f64,
    setup_interval: SimTime,
    setup_timeout: SimTime,
    total_bytes: u64,
    priority: u8,
    // ---- source ----
    phase: Phase,
    sizes: Vec<u32>,
    acked: Vec<bool>,
    n_acked: usize,
    next_new: usize,
    cursor: usize,
    rate_bps: f64,
    rate_by: u32,
    setup_started: SimTime,
    last_sent_at: SimTime,
    last_size: u32,
    acked_bytes: u64,
    retx_pkts: u64,
    /// Every RTT sample (data sent to its acknowledgement back), ps.
    rtt: Moments,
    srtt_ps: SimTime,
    // ---- destination ----
    received: Vec<bool>,
    cum: usize,
    since_ack_pkts: u32,
    since_ack_bytes: u32,
    delivered_bytes: u64,
}

impl TrumpFlow {
    /// A connection carrying a file of `total_bytes`.
    pub fn new(cfg: &TrumpConfig, total_bytes: u64, priority: u8) -> Self {
        let lo = cfg.packet_size.0 as u32;
        TrumpFlow {
            cfg_min: lo,
            cfg_max: cfg.packet_size_max.map_or(lo, |b| b.0 as u32),
            ack_size: cfg.ack_size.0 as u32,
            sack_every: cfg.sack_every.max(1),
            desired_bps: cfg.desired_rate.map_or(f64::INFINITY, |r| r.0),
            setup_interval: cfg.setup_interval.0,
            setup_timeout: cfg.setup_timeout.0,
            total_bytes,
            priority,
            phase: Phase::Idle,
            sizes: Vec::new(),
            acked: Vec::new(),
            n_acked: 0,
            next_new: 0,
            cursor: 0,
            rate_bps: f64::INFINITY,
            rate_by: 0,
            setup_started: 0,
            last_sent_at: 0,
            last_size: 0,
            acked_bytes: 0,
            retx_pkts: 0,
            rtt: Moments::default(),
            srtt_ps: 0,
            received: Vec::new(),
            cum: 0,
            since_ack_pkts: 0,
            since_ack_bytes: 0,
            delivered_bytes: 0,
        }
    }

    /// The rate the source paces at now, bit/s (infinite before the handshake completes).
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    fn base(&self, now: SimTime) -> Packet {
        Packet { sent_at: now, priority: self.priority, ..Default::default() }
    }

    fn send_setup(&mut self, ctx: &mut TransportCtx) {
        let mut p = self.base(ctx.now);
        p.kind = PacketKind::Control;
        p.flags = flags::SETUP;
        p.size_bytes = self.ack_size;
        p.rate_bps = self.desired_bps as f32;
        p.return_rate_bps = f32::INFINITY;
        ctx.send(p, Direction::Forward);
        ctx.set_timer(TIMER_RTO, ctx.now + self.setup_interval);
    }

    fn gap_ps(&self, size: u32) -> SimTime {
        (size as f64 * 8.0 * PS_PER_S as f64 / self.rate_bps).round().max(1.0) as SimTime
    }

    /// The next packet to send: new data first, then (lazily) the unacknowledged ones in turn.
    fn pick(&mut self) -> Option<(usize, bool)> {
        if self.next_new < self.sizes.len() {
            self.next_new += 1;
            return Some((self.next_new - 1, false));
        }
        let n = self.sizes.len();
        for k in 0..n {
            let i = (self.cursor + k) % n;
            if !self.acked[i] {
                self.cursor = (i + 1) % n;
                return Some((i, true));
            }
        }
        None
    }

    fn send_data(&mut self, ctx: &mut TransportCtx) {
        if self.phase != Phase::Data {
            return;
        }
        let Some((i, retx)) = self.pick() else { return };
        let size = self.sizes[i];
        let mut p = self.base(ctx.now);
        p.kind = PacketKind::Data;
        p.seq = i as u64;
        p.size_bytes = size;
        p.payload_bytes = size;
        p.rate_bps = self.desired_bps as f32;
        p.return_rate_bps = self.rate_bps as f32;
        p.return_rate_by = self.rate_by;
        if retx {
            p.flags |= flags::RETX;
            self.retx_pkts += 1;
        }
        ctx.send(p, Direction::Forward);
        self.last_sent_at = ctx.now;
        self.last_size = size;
        ctx.set_timer(TIMER_APP, ctx.now + self.gap_ps(size));
    }

    fn set_rate(&mut self, r: f32, by: u32, ctx: &mut TransportCtx) {
        if !(r > 0.0) {
            return;
        }
        let new = (r as f64).min(self.desired_bps);
        if new == self.rate_bps && by == self.rate_by {
            return;
        }
        self.rate_bps = new;
        self.rate_by = by;
        if self.phase == Phase::Data && self.last_size > 0 && ctx.timers[TIMER_APP as usize] != NEVER {
            // Re-time the next packet from the last one at the new rate.
            let next = (self.last_sent_at + self.gap_ps(self.last_size)).max(ctx.now);
            ctx.set_timer(TIMER_APP, next);
        }
    }

    fn mark_acked(&mut self, i: usize) {
        if i < self.acked.len() && !self.acked[i] {
            self.acked[i] = true;
            self.n_acked += 1;
            self.acked_bytes += self.sizes[i] as u64;
        }
    }

    // ---- source side ----
    fn on_reverse(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        if pkt.flags & flags::QUENCH != 0 {
            // Rate Quench: take the router's lower rate at once.
            if (pkt.return_rate_bps as f64) < self.rate_bps {
                self.set_rate(pkt.return_rate_bps, pkt.return_rate_by, ctx);
            }
            return;
        }
        if pkt.flags & flags::SETUP != 0 {
            if self.phase == Phase::Setup {
                self.phase = Phase::Data;
                ctx.cancel_timer(TIMER_RTO);
                self.rate_bps = (pkt.return_rate_bps as f64).min(self.desired_bps);
                self.rate_by = pkt.return_rate_by;
                self.send_data(ctx);
            }
            return;
        }
        if self.phase != Phase::Data {
            return;
        }
        let rtt = ctx.now.saturating_sub(pkt.ts_echo);
        self.rtt.add(rtt as f64);
        self.srtt_ps = if self.srtt_ps == 0 { rtt } else { (7 * self.srtt_ps + rtt) / 8 };
        for i in 0..(pkt.ack as usize).min(self.acked.len()) {
            self.mark_acked(i);
        }
        for (s, e) in pkt.sack.ranges(pkt.ack) {
            for i in s..e {
                self.mark_acked(i as usize);
            }
        }
        self.mark_acked(pkt.seq as usize);
        self.set_rate(pkt.return_rate_bps, pkt.return_rate_by, ctx);
        if self.n_acked == self.sizes.len() {
            self.phase = Phase::Done;
            ctx.cancel_timer(TIMER_APP);
        }
    }

    // ---- destination side ----
    fn on_forward(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        let mut a = self.base(ctx.now);
        a.kind = PacketKind::Ack;
        a.size_bytes = self.ack_size;
        a.ts_echo = pkt.sent_at;
        // Return_Rate: the Rate the routers left in the packet, and who set it.
        a.return_rate_bps = pkt.rate_bps;
        a.return_rate_by = pkt.rate_by;
        if pkt.kind == PacketKind::Control {
            a.flags = flags::SETUP;
            ctx.send(a, Direction::Reverse);
            return;
        }
        let i = pkt.seq as usize;
        if self.received.len() < self.sizes.len() {
            self.received = vec![false; self.sizes.len()];
        }
        if i < self.received.len() && !self.received[i] {
            self.received[i] = true;
            self.delivered_bytes += pkt.payload_bytes as u64;
            while self.cum < self.received.len() && self.received[self.cum] {
                self.cum += 1;
            }
        }
        self.since_ack_pkts += 1;
        self.since_ack_bytes = self.since_ack_bytes.saturating_add(pkt.size_bytes);
        let all = self.cum == self.received.len();
        if self.since_ack_pkts >= self.sack_every || all {
            a.seq = pkt.seq;
            a.ack = self.cum as u64;
            // The run of received packets around the one that triggered this ack.
            if i > self.cum {
                let (mut s, mut e) = (i, i + 1);
                while s > self.cum && self.received[s - 1] {
                    s -= 1;
                }
                while e < self.received.len() && self.received[e] {
                    e += 1;
                }
                a.sack = SackBlocks { blocks: [((s - self.cum) as u32, (e - self.cum) as u32), (0, 0), (0, 0)], len: 1, dsack: false };
            }
            a.window_bytes = self.since_ack_bytes;
            self.since_ack_pkts = 0;
            self.since_ack_bytes = 0;
            ctx.send(a, Direction::Reverse);
        }
    }
}

impl Transport for TrumpFlow {
    fn on_start(&mut self, ctx: &mut TransportCtx) {
        // Packet sizes are drawn once, at the start (one allocation per flow, none per packet).
        let mut left = self.total_bytes;
        while left > 0 {
            let span = (self.cfg_max - self.cfg_min) as f64;
            let s = if span > 0.0 { self.cfg_min + (rng::uniform(ctx.rng) * (span + 1.0)).floor().min(span) as u32 } else { self.cfg_min };
            let s = (s as u64).min(left) as u32;
            self.sizes.push(s);
            left -= s as u64;
        }
        self.acked = vec![false; self.sizes.len()];
        self.received = vec![false; self.sizes.len()];
        if self.sizes.is_empty() {
            self.phase = Phase::Done;
            return;
        }
        self.phase = Phase::Setup;
        self.setup_started = ctx.now;
        self.send_setup(ctx);
    }

    fn on_packet(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        match pkt.kind {
            PacketKind::Data => self.on_forward(pkt, ctx),
            PacketKind::Control if pkt.flags & flags::SETUP != 0 => self.on_forward(pkt, ctx),
            _ => self.on_reverse(pkt, ctx),
        }
    }

    fn on_timer(&mut self, slot: u8, ctx: &mut TransportCtx) {
        match (slot, self.phase) {
            (TIMER_RTO, Phase::Setup) => {
                if ctx.now.saturating_sub(self.setup_started) >= self.setup_timeout {
                    self.phase = Phase::Aborted; // seminar s5: give up after T = 30 s
                } else {
                    self.send_setup(ctx);
                }
            }
            (TIMER_APP, Phase::Data) => self.send_data(ctx),
            _ => {}
        }
    }

    fn is_complete(&self) -> bool {
        self.phase == Phase::Done
    }

    fn is_finite(&self) -> bool {
        true
    }

    fn report(&self) -> TransportReport {
        TransportReport {
            delivered_bytes: self.delivered_bytes,
            acked_bytes: self.acked_bytes,
            retx_pkts: self.retx_pkts,
            srtt_ps: self.srtt_ps,
            rtt_samples: self.rtt.count,
            rtt_sum_ps: self.rtt.mean() * self.rtt.count as f64,
            rtt_min_ps: if self.rtt.count > 0 { self.rtt.min as SimTime } else { 0 },
            rtt_max_ps: if self.rtt.count > 0 { self.rtt.max as SimTime } else { 0 },
            rtt_std_ps: self.rtt.std(),
            rate_bps: if self.phase == Phase::Data || self.phase == Phase::Done { self.rate_bps } else { 0.0 },
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::testing::Harness;

    #[test]
    fn setup_is_repeated_every_second_and_abandoned_after_thirty() {
        let mut t = TrumpFlow::new(&TrumpConfig::default(), 15_000, 0);
        let mut h = Harness::new("t");
        t.on_start(&mut h.ctx(0));
        let mut sent = 1;
        while h.timers[TIMER_RTO as usize] != NEVER {
            let at = h.timers[TIMER_RTO as usize];
            h.timers[TIMER_RTO as usize] = NEVER;
            t.on_timer(TIMER_RTO, &mut h.ctx(at));
            if h.timers[TIMER_RTO as usize] != NEVER {
                sent += 1;
                assert_eq!(h.timers[TIMER_RTO as usize] - at, PS_PER_S);
            }
        }
        assert_eq!(sent, 30, "setups at 0, 1, ..., 29 s");
        assert!(h.out.iter().all(|(p, d)| p.kind == PacketKind::Control && *d == Direction::Forward));
        assert_eq!(t.phase, Phase::Aborted);
    }

    #[test]
    fn data_is_paced_at_the_returned_rate_and_lost_packets_are_resent_lazily() {
        let mut t = TrumpFlow::new(&TrumpConfig::default(), 3 * 1500, 0);
        let mut h = Harness::new("t");
        t.on_start(&mut h.ctx(0));
        let setup = h.out.pop().unwrap().0;
        // The destination answers the setup; the routers allowed 64 kbit/s.
        let mut through = setup;
        through.rate_bps = 64_000.0;
        t.on_packet(&through, &mut h.ctx(1));
        let (ack, dir) = h.out.pop().unwrap();
        assert_eq!(dir, Direction::Reverse);
        t.on_packet(&ack, &mut h.ctx(2 * PS_PER_S));
        // First data packet at once, the next 1500*8/64000 = 0.1875 s later.
        assert_eq!(h.out.len(), 1);
        assert_eq!(h.timers[TIMER_APP as usize], 2 * PS_PER_S + 187_500_000_000);
        let mut now = h.timers[TIMER_APP as usize];
        for _ in 0..4 {
            t.on_timer(TIMER_APP, &mut h.ctx(now));
            now = h.timers[TIMER_APP as usize];
        }
        let seqs: Vec<u64> = h.out.iter().map(|(p, _)| p.seq).collect();
        assert_eq!(seqs, vec![0, 1, 2, 0, 1], "new data first, then the unacknowledged ones in turn");
        assert_eq!(t.report().retx_pkts, 2);
    }
}
