//! TCP connection set-up as an option (`tcp.handshake = true`): the active opener sends a SYN,
//! the passive end answers with a SYN-ACK, and data starts when the SYN-ACK arrives
//! (RFC 9293 s3.5; the third segment of the handshake travels with the first data, as it does
//! when the client has data waiting). A SYN without answer is retransmitted after the initial
//! RTO (RFC 6298 s2.1, 1 s), backing off by doubling (RFC 6298 s5.5), at most `syn_retries`
//! times (Linux `tcp_syn_retries`, 6); after the last one the attempt fails and the flow never
//! sends data. The handshake's round trip is the first RTT sample (RFC 6298 s2.2) unless the SYN
//! was retransmitted (Karn's rule, RFC 6298 s3); without a sample and after a SYN timeout the
//! data's RTO starts at 3 s (RFC 6298 s5.7).
//!
//! On the wire a SYN is a forward control packet with [`flags::SETUP`] and a SYN-ACK an
//! acknowledgement with [`flags::SETUP`], both header-only (`tcp.ack_bytes`). With
//! `tcp.ect_on_syn` they carry ECT (RFC 8311 s4.3); otherwise they are Not-ECT as RFC 3168
//! s6.1.1 requires, so an ECN queue drops them where it would mark. Differences from Linux are
//! listed in `docs/algorithms/tcp.md` ("Connection set-up").

use crate::net::packet::{flags, Ecn, Packet, PacketKind};
use crate::sim::{SimTime, PS_PER_S};
use crate::transport::{Direction, TransportCtx, TIMER_RTO};

/// Linux's default `net.ipv4.tcp_syn_retries`.
pub const DEFAULT_SYN_RETRIES: u32 = 6;
/// Largest `syn_retries` accepted (Linux `MAX_TCP_SYNCNT`).
pub const MAX_SYN_RETRIES: u32 = 127;
/// RFC 6298 s5.7: the RTO data starts with after a SYN timed out and no RTT sample was taken.
pub const RTO_AFTER_SYN_TIMEOUT_PS: SimTime = 3 * PS_PER_S;

/// Connection set-up settings.
#[derive(Clone, Copy, Debug)]
pub struct HandshakeSettings {
    /// Size of a SYN or SYN-ACK on the wire, bytes (header only, like a pure acknowledgement).
    pub syn_bytes: u32,
    /// SYN and SYN-ACK carry ECT.
    pub ect_on_syn: bool,
    /// RTO for the first SYN, ps.
    pub initial_rto_ps: SimTime,
    /// Upper bound of the backed-off RTO, ps.
    pub max_rto_ps: SimTime,
    /// SYN retransmissions before the attempt fails.
    pub syn_retries: u32,
    /// Priority written on SYNs.
    pub priority: u8,
}

/// Where the active opener is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenState {
    /// Not yet started.
    Closed,
    /// SYN sent, waiting for the SYN-ACK (RFC 9293 SYN-SENT).
    SynSent,
    /// SYN-ACK received: data may flow.
    Established,
    /// Every SYN went unanswered: the connection attempt failed (Linux `ETIMEDOUT`).
    Failed,
}

/// What the sender learns when the connection is established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Established {
    /// The handshake's round trip, unless Karn's rule forbids it (the SYN was retransmitted).
    pub rtt_sample_ps: Option<SimTime>,
    /// Some SYN timed out (RFC 6298 s5.7 applies when there is no sample).
    pub syn_timed_out: bool,
}

/// The handshake of one connection: the active opener's state at the source and the passive
/// end's answer at the destination.
#[derive(Clone, Debug)]
pub struct Handshake {
    s: HandshakeSettings,
    state: OpenState,
    /// When the application opened the connection (the flow's start).
    opened_at: SimTime,
    /// When the first SYN was sent.
    first_syn_at: SimTime,
    /// SYNs sent (first transmission included).
    syns_sent: u32,
    /// Current SYN timeout, ps (doubles on each expiry).
    rto_ps: SimTime,
    /// When the SYN-ACK arrived.
    established_at: Option<SimTime>,
    /// SYN-ACKs the passive end sent.
    syn_acks_sent: u32,
}

/// What a report says about the handshake of a flow that used one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HandshakeReport {
    /// Time from opening to established, ps (None: not established).
    pub established_after_ps: Option<SimTime>,
    /// SYN retransmissions.
    pub syn_retransmits: u64,
    /// The attempt failed.
    pub failed: bool,
}

impl Handshake {
    /// A closed connection.
    pub fn new(s: HandshakeSettings) -> Self {
        Handshake { s, state: OpenState::Closed, opened_at: 0, first_syn_at: 0, syns_sent: 0, rto_ps: s.initial_rto_ps, established_at: None, syn_acks_sent: 0 }
    }

    /// Where the active opener is.
    pub fn state(&self) -> OpenState {
        self.state
    }

    /// True once the SYN-ACK has arrived.
    #[inline]
    pub fn is_established(&self) -> bool {
        self.state == OpenState::Established
    }

    /// SYN-ACKs the passive end sent.
    pub fn syn_acks_sent(&self) -> u32 {
        self.syn_acks_sent
    }

    /// The application opens the connection (the flow starts): send the first SYN.
    pub fn open(&mut self, ctx: &mut TransportCtx) {
        self.state = OpenState::SynSent;
        self.opened_at = ctx.now;
        self.first_syn_at = ctx.now;
        self.send_syn(ctx);
    }

    fn send_syn(&mut self, ctx: &mut TransportCtx) {
        self.syns_sent += 1;
        let pkt = Packet {
            kind: PacketKind::Control,
            flags: flags::SETUP,
            size_bytes: self.s.syn_bytes,
            sent_at: ctx.now,
            ecn: self.ecn(),
            priority: self.s.priority,
            ..Default::default()
        };
        ctx.send(pkt, Direction::Forward);
        ctx.set_timer(TIMER_RTO, ctx.now + self.rto_ps);
    }

    fn ecn(&self) -> Ecn {
        if self.s.ect_on_syn { Ecn::Ect } else { Ecn::NotEct }
    }

    /// The SYN timer fired (RFC 6298 s5.5 back-off; Linux gives up after `tcp_syn_retries`
    /// retransmissions and one more timeout).
    pub fn on_syn_timer(&mut self, ctx: &mut TransportCtx) {
        if self.state != OpenState::SynSent {
            return;
        }
        if self.syns_sent > self.s.syn_retries {
            self.state = OpenState::Failed;
            return;
        }
        self.rto_ps = (self.rto_ps * 2).min(self.s.max_rto_ps);
        self.send_syn(ctx);
    }

    /// A SYN reached the passive end: answer with a SYN-ACK advertising `window_bytes`. A
    /// retransmitted SYN gets a fresh SYN-ACK (the previous one may have been lost), as a
    /// Linux listener answers a SYN that matches a pending request.
    pub fn on_syn(&mut self, syn: &Packet, window_bytes: u64, ctx: &mut TransportCtx) {
        self.syn_acks_sent += 1;
        let pkt = Packet {
            kind: PacketKind::Ack,
            flags: flags::SETUP,
            size_bytes: self.s.syn_bytes,
            sent_at: ctx.now,
            ts_echo: syn.sent_at,
            window_bytes: window_bytes.min(u32::MAX as u64) as u32,
            ecn: self.ecn(),
            ..Default::default()
        };
        ctx.send(pkt, Direction::Reverse);
    }

    /// A SYN-ACK reached the opener. The first one while waiting establishes the connection;
    /// later duplicates are ignored.
    pub fn on_syn_ack(&mut self, ctx: &mut TransportCtx) -> Option<Established> {
        if self.state != OpenState::SynSent {
            return None;
        }
        self.state = OpenState::Established;
        self.established_at = Some(ctx.now);
        ctx.cancel_timer(TIMER_RTO);
        let syn_timed_out = self.syns_sent > 1;
        // RFC 6298 s3 (Karn): no sample from a segment that was retransmitted.
        let rtt_sample_ps = if syn_timed_out { None } else { Some(ctx.now - self.first_syn_at) };
        Some(Established { rtt_sample_ps, syn_timed_out })
    }

    /// For the results.
    pub fn report(&self) -> HandshakeReport {
        HandshakeReport {
            established_after_ps: self.established_at.map(|t| t - self.opened_at),
            syn_retransmits: self.syns_sent.saturating_sub(1) as u64,
            failed: self.state == OpenState::Failed,
        }
    }
}

#[cfg(test)]
mod tests;
