//! The reliable window transport: a TCP-like byte-stream sender and receiver.
//!
//! The sender follows RFC 5681 (slow start, congestion avoidance, fast retransmit), RFC 6582
//! (NewReno recovery), RFC 2018 and RFC 6675 (SACK and SACK-based loss recovery), RFC 6298
//! (retransmission timer), RFC 3042 (limited transmit) and RFC 3168 (ECN); the controller that sizes the window is a [`cc::CongestionControl`]. The
//! receiver acknowledges cumulatively, acknowledges out-of-order data at once (duplicate
//! acknowledgements), optionally delays acknowledgements (RFC 1122, RFC 5681 s4.2), echoes
//! timestamps (RFC 7323) and advertises the window its [`crate::transport::credit::ReceiverPolicy`]
//! chooses. Deliberate differences from Linux are listed in `docs/algorithms/tcp.md`.

pub mod cc;
pub mod frto;
pub mod handshake;
pub mod idle_restart;
pub mod rack;
pub mod receiver;
pub mod recipe;
pub mod sack;
pub mod sender;
pub mod undo;

use super::{Transport, TransportCtx, TransportReport, NEVER, TIMER_APP, TIMER_DELACK, TIMER_PACING, TIMER_RTO};
use crate::net::packet::{flags, Packet, PacketKind};
use crate::registry::FieldError;
use receiver::TcpReceiver;
use sender::TcpSender;
use serde::{Deserialize, Serialize};

/// How the sender recovers from a loss detected by duplicate acknowledgements. This is chosen
/// apart from the congestion controller, as in Linux and ns-3: the controller only sizes the
/// window (`ssthresh` on a loss), the recovery decides what is sent while the loss is repaired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Recovery {
    /// RFC 5681 s3.2 fast recovery: the window is inflated by one segment per duplicate and the
    /// first acknowledgement of new data ends recovery (1990 "Reno" TCP).
    #[serde(rename = "reno")]
    Reno,
    /// RFC 6582: recovery lasts until everything outstanding at the loss is acknowledged; each
    /// partial acknowledgement retransmits the next hole.
    #[serde(rename = "newreno")]
    NewReno,
    /// RFC 6675 SACK-based recovery (with RFC 6937 proportional rate reduction when `prr`).
    #[serde(rename = "sack")]
    Sack,
    /// RFC 8985 RACK-TLP as Linux (>= 4.18, `net.ipv4.tcp_recovery = 1`): the SACK scoreboard,
    /// time-based loss detection (RACK) instead of the duplicate-acknowledgement rule, the
    /// tail loss probe (TLP), and RFC 6937 PRR when `prr` (see `rack.rs`).
    #[serde(rename = "rack_tlp")]
    RackTlp,
}

impl Recovery {
    /// The name used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
            Recovery::RackTlp => "rack_tlp",
        }
    }

    /// True for the recoveries built on the SACK scoreboard (RFC 6675's and RACK-TLP): they
    /// read SACK blocks, use PRR when `prr`, and count the window against the data in flight
    /// instead of inflating it.
    #[inline]
    pub fn reads_sack(self) -> bool {
        matches!(self, Recovery::Sack | Recovery::RackTlp)
    }
}

/// Every loss recovery, for listings (`pinchpoint kinds`) and the random generators.
pub const RECOVERY_KINDS: [Recovery; 4] = [Recovery::Reno, Recovery::NewReno, Recovery::Sack, Recovery::RackTlp];

/// Both ends of one TCP flow.
///
/// `repr(C)`: the handshake pointer (read on every retransmission timeout) and then the sender,
/// whose first lines hold what a timeout touches (see [`TcpSender`]), so a wake-up of a flow in
/// backoff touches the connection's first 256 bytes only (issue 13, large N); the receiver
/// follows. Not `align(64)`: the box would then come from `posix_memalign`, and 100,000
/// connections built that way cost more CPU time than the line saved (`bench/README.md`, round
/// 7); from `malloc` the 256 bytes start 16-byte aligned and cover 4 or 5 lines.
#[repr(C)]
pub struct TcpConnection {
    /// Connection set-up (`tcp.handshake`); None: data starts at the flow's start.
    pub handshake: Option<Box<handshake::Handshake>>,
    /// The sending end (at the flow's source).
    pub sender: TcpSender,
    /// The receiving end (at the flow's destination).
    pub receiver: TcpReceiver,
}

impl TcpConnection {
    /// Bytes from the connection's start that a retransmission timeout of a flow in backoff
    /// reads and writes (the sender's layout test checks it): what the engine prefetches for a
    /// timer that will fire.
    pub const TIMEOUT_BYTES: usize = 256;

    /// Arms the application timer at the workload's next offer, to pull it then.
    fn wake_at_next_offer(&mut self, ctx: &mut TransportCtx) {
        let next = ctx.next_offer_at();
        if next != NEVER {
            ctx.set_timer(TIMER_APP, next);
        }
    }
}

impl Transport for TcpConnection {
    fn on_start(&mut self, ctx: &mut TransportCtx) {
        let offered = ctx.offered_bytes();
        self.sender.offer(offered, ctx);
        match self.handshake.as_mut() {
            // RFC 9293 s3.5: the application's data waits for the SYN-ACK.
            Some(h) => h.open(ctx),
            None => self.sender.start(ctx),
        }
        self.wake_at_next_offer(ctx);
    }
    #[inline]
    fn on_packet(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        match pkt.kind {
            PacketKind::Data => self.receiver.on_data(pkt, ctx),
            PacketKind::Ack if pkt.flags & flags::SETUP != 0 => self.on_syn_ack(ctx),
            PacketKind::Ack => self.sender.on_ack(pkt, ctx),
            PacketKind::Control if pkt.flags & flags::SETUP != 0 => self.on_syn(pkt, ctx),
            PacketKind::Control => {}
        }
    }
    fn on_timer(&mut self, slot: u8, ctx: &mut TransportCtx) {
        match slot {
            // The sender starts when the handshake is established (`on_syn_ack`), and only
            // then with a handshake: its flag answers without reading the boxed handshake, one
            // cold line less on each timeout of a flow in backoff (issue 13, round 9).
            TIMER_RTO if !self.sender.is_started() && self.handshake.as_ref().is_some_and(|h| !h.is_established()) => {
                if let Some(h) = self.handshake.as_mut() {
                    h.on_syn_timer(ctx);
                }
            }
            TIMER_RTO => self.sender.on_rto(ctx),
            TIMER_DELACK => self.receiver.on_delack_timer(ctx),
            TIMER_PACING => self.sender.on_pacing_timer(ctx),
            TIMER_APP => {
                let offered = ctx.offered_bytes();
                self.sender.offer(offered, ctx);
                self.wake_at_next_offer(ctx);
            }
            _ => {}
        }
    }
    fn is_complete(&self) -> bool {
        self.sender.is_complete()
    }
    fn is_finite(&self) -> bool {
        self.sender.is_finite()
    }
    fn report(&self) -> TransportReport {
        let mut r = self.sender.report();
        r.delivered_bytes = self.receiver.delivered_bytes();
        r.rwnd_bytes = self.receiver.window_bytes();
        r.handshake = self.handshake.as_ref().map(|h| h.report());
        r
    }
}

impl TcpConnection {
    /// A SYN reached the destination: the passive end answers (a SYN without a handshake
    /// configured cannot arrive).
    #[cold]
    #[inline(never)]
    fn on_syn(&mut self, syn: &Packet, ctx: &mut TransportCtx) {
        let window = self.receiver.window_bytes();
        if let Some(h) = self.handshake.as_mut() {
            h.on_syn(syn, window, ctx);
        }
    }

    /// A SYN-ACK reached the source: the first one establishes the connection and data starts.
    #[cold]
    #[inline(never)]
    fn on_syn_ack(&mut self, ctx: &mut TransportCtx) {
        let Some(h) = self.handshake.as_mut() else { return };
        if let Some(est) = h.on_syn_ack(ctx) {
            self.sender.on_established(est, ctx);
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod rack_tests;
#[cfg(test)]
pub(crate) mod testing;

/// Largest initial window accepted, segments. The first call to the sender puts a whole initial
/// window of packets on the wire at once; a bound keeps that burst (and the memory it takes)
/// finite. 100,000 segments is 145 MB at the default MSS, far above any window studied.
pub const MAX_INIT_CWND_PKTS: u32 = 100_000;
/// Largest segment or header size accepted, bytes: an IPv4 datagram's total length field is
/// 16 bits (RFC 791), so no segment, header or acknowledgement can be longer.
pub const MAX_PACKET_BYTES: u32 = 65_535;
/// Largest duplicate-acknowledgement threshold accepted.
pub const MAX_DUPACK_THRESHOLD: u32 = 1000;

fn secs(ps: crate::sim::SimTime) -> f64 {
    ps as f64 / crate::sim::PS_PER_S as f64
}

impl crate::scenario::schema::TcpConfig {
    /// True if the ends exchange SACK blocks. Default: on (as Linux), unless the recovery
    /// chosen is one that does not read them.
    pub fn sack_enabled(&self) -> bool {
        self.sack.unwrap_or(!matches!(self.recovery, Some(Recovery::Reno | Recovery::NewReno)))
    }

    /// The loss recovery in use: as written, else SACK recovery when SACK is on and NewReno
    /// otherwise (Linux's choice; ns-3 3.44 likewise uses its SACK scoreboard with PRR).
    pub fn recovery_in_use(&self) -> Recovery {
        self.recovery.unwrap_or(if self.sack_enabled() { Recovery::Sack } else { Recovery::NewReno })
    }

    /// True if SACK recovery runs with RFC 6937 proportional rate reduction (default, as Linux
    /// and ns-3's `TcpPrrRecovery`).
    pub fn prr_enabled(&self) -> bool {
        self.recovery_in_use().reads_sack() && self.prr.unwrap_or(true)
    }

    /// True if the receiver reports duplicates in D-SACK blocks (RFC 2883): by default with
    /// RACK-TLP, the one recovery here that reads them (Linux's `tcp_dsack` is on by default).
    pub fn dsack_enabled(&self) -> bool {
        self.recovery_in_use() == Recovery::RackTlp && self.dsack.unwrap_or(true)
    }

    /// True if the sender undoes window reductions that prove spurious (`undo.rs`): by default
    /// with RACK-TLP, the one recovery here that does (Linux always does).
    pub fn undo_enabled(&self) -> bool {
        self.recovery_in_use() == Recovery::RackTlp && self.undo.unwrap_or(true)
    }

    /// True if the sender runs F-RTO after a timeout (`frto.rs`): by default whenever it undoes
    /// (Linux `tcp_frto = 2`).
    pub fn frto_enabled(&self) -> bool {
        self.undo_enabled() && self.frto.unwrap_or(true)
    }

    /// Checks the TCP settings of one flow: the one place they are validated. On a problem
    /// returns the field (relative to the flow's `tcp` table) and what was expected. Sizes stay
    /// within an IPv4 datagram, timers are positive and ordered, and settings that would have no
    /// effect are refused.
    pub fn validate(&self) -> Result<(), FieldError> {
        let bad = |field: &str, msg: String| Err(FieldError::new(field, msg));
        let pkt = MAX_PACKET_BYTES;
        if self.mss == 0 || self.mss > pkt {
            return bad("mss", format!("expected 1 to {pkt} bytes, got {}", self.mss));
        }
        if self.header_bytes > pkt - self.mss {
            return bad("header_bytes", format!("expected mss + header_bytes at most {pkt} bytes, got {} + {}", self.mss, self.header_bytes));
        }
        if self.ack_bytes == 0 || self.ack_bytes > pkt {
            return bad("ack_bytes", format!("expected 1 to {pkt} bytes, got {}", self.ack_bytes));
        }
        if self.init_cwnd_pkts == 0 || self.init_cwnd_pkts > MAX_INIT_CWND_PKTS {
            return bad("init_cwnd_pkts", format!("expected 1 to {MAX_INIT_CWND_PKTS} segments, got {}", self.init_cwnd_pkts));
        }
        if self.dupack_threshold == 0 || self.dupack_threshold > MAX_DUPACK_THRESHOLD {
            return bad("dupack_threshold", format!("expected 1 to {MAX_DUPACK_THRESHOLD}, got {}", self.dupack_threshold));
        }
        if self.packets_per_segment == 0 || self.packets_per_segment > self.mss {
            return bad("packets_per_segment", "expected 1 to mss".into());
        }
        for (d, name) in [(self.min_rto, "min_rto"), (self.initial_rto, "initial_rto"), (self.max_rto, "max_rto")] {
            if d.0 == 0 {
                return bad(name, "expected a positive duration (a zero timeout would fire forever at the same instant)".into());
            }
        }
        if self.min_rto.0 > self.max_rto.0 {
            return bad("min_rto", format!("expected at most max_rto ({} s), got {} s", secs(self.max_rto.0), secs(self.min_rto.0)));
        }
        if self.initial_rto.0 > self.max_rto.0 {
            return bad("initial_rto", format!("expected at most max_rto ({} s), got {} s", secs(self.max_rto.0), secs(self.initial_rto.0)));
        }
        if self.delayed_ack && self.delayed_ack_timeout.0 == 0 {
            return bad("delayed_ack_timeout", "expected a positive duration when delayed_ack = true".into());
        }
        // The receiver arms the delayed-ACK timer only with delayed_ack = true. The default
        // passes (the resolved scenario writes it for every flow).
        if !self.delayed_ack && self.delayed_ack_timeout != Self::default().delayed_ack_timeout {
            return bad("delayed_ack_timeout", "has no effect without delayed acknowledgements: expected delayed_ack = true (or leave delayed_ack_timeout unset)".into());
        }
        if let Some(w) = self.max_window {
            if w.0 < self.mss as u64 {
                return bad("max_window", format!("expected at least one segment ({} bytes), got {} bytes", self.mss, w.0));
            }
        }
        if let Some(r) = &self.receiver {
            r.validate().map_err(|e| FieldError::new(format!("receiver.{}", e.field), e.message))?;
        }
        match (self.recovery, self.sack) {
            (Some(r @ (Recovery::Sack | Recovery::RackTlp)), Some(false)) => {
                return bad("recovery", format!("recovery = \"{}\" reads SACK blocks: expected sack = true (or leave sack unset)", r.name()));
            }
            (Some(r @ (Recovery::Reno | Recovery::NewReno)), Some(true)) => {
                return bad("sack", format!("SACK blocks are read only by recovery = \"sack\" and \"rack_tlp\"; with recovery = \"{}\" they would have no effect: expected sack = false (or leave it unset)", r.name()));
            }
            _ => {}
        }
        if self.prr.is_some() && !self.recovery_in_use().reads_sack() {
            return bad("prr", format!("proportional rate reduction is part of SACK recovery; recovery here is \"{}\": remove prr or use recovery = \"sack\" or \"rack_tlp\"", self.recovery_in_use().name()));
        }
        if self.dsack.is_some() && self.recovery_in_use() != Recovery::RackTlp {
            return bad("dsack", format!("only recovery = \"rack_tlp\" reads D-SACK blocks (RFC 8985 s6.2); recovery here is \"{}\", where they would have no effect: remove dsack or use recovery = \"rack_tlp\"", self.recovery_in_use().name()));
        }
        if self.undo.is_some() && self.recovery_in_use() != Recovery::RackTlp {
            return bad("undo", format!("only recovery = \"rack_tlp\" undoes spurious window reductions here; recovery here is \"{}\", where undo would have no effect: remove undo or use recovery = \"rack_tlp\"", self.recovery_in_use().name()));
        }
        if self.frto.is_some() && self.recovery_in_use() != Recovery::RackTlp {
            return bad("frto", format!("only recovery = \"rack_tlp\" runs F-RTO (RFC 5682) here; recovery here is \"{}\", where frto would have no effect: remove frto or use recovery = \"rack_tlp\"", self.recovery_in_use().name()));
        }
        if self.frto.is_some() && !self.undo_enabled() {
            return bad("frto", "F-RTO's verdict on a spurious timeout is an undo, and undo = false here turns F-RTO off with it, so frto would have no effect: remove frto, or remove undo = false".to_string());
        }
        self.validate_handshake()
    }

    /// The connection set-up settings: only with `handshake = true`; ECT on SYN only when ECN
    /// is negotiated (RFC 8311 s4.3 relaxes RFC 3168 s6.1.1 for ECN-capable connections only).
    fn validate_handshake(&self) -> Result<(), FieldError> {
        if !self.handshake {
            for (set, field) in [(self.ect_on_syn, "ect_on_syn"), (self.syn_retries.is_some(), "syn_retries")] {
                if set {
                    return Err(FieldError::new(field, "connection set-up settings have no effect without it: expected handshake = true"));
                }
            }
            return Ok(());
        }
        if self.ect_on_syn && !self.ecn {
            return Err(FieldError::new("ect_on_syn", "an ECN-capable SYN needs ECN on the connection: expected ecn = true"));
        }
        if let Some(n) = self.syn_retries {
            if n > handshake::MAX_SYN_RETRIES {
                return Err(FieldError::new("syn_retries", format!("expected 0 to {} (Linux MAX_TCP_SYNCNT), got {n}", handshake::MAX_SYN_RETRIES)));
            }
        }
        Ok(())
    }

    /// True if any connection set-up setting is written (for refusing them on other transports).
    pub fn handshake_settings_written(&self) -> Option<&'static str> {
        if self.handshake {
            Some("handshake")
        } else if self.ect_on_syn {
            Some("ect_on_syn")
        } else if self.syn_retries.is_some() {
            Some("syn_retries")
        } else {
            None
        }
    }
}
