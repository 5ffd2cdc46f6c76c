//! The receiving end: cumulative acknowledgements, out-of-order tracking, delayed acks,
//! timestamp echo and the advertised window.

use super::sack::{RangeSet, SackBlocks};
use crate::net::packet::{flags, Ecn, Packet, PacketKind};
use crate::sim::SimTime;
use crate::transport::credit::{AnyReceiverPolicy, ReceiverPolicy, ReceiverView};
use crate::transport::{Direction, TransportCtx, TIMER_DELACK};

/// Receiver settings.
#[derive(Clone, Copy, Debug)]
pub struct ReceiverSettings {
    /// Size of a pure acknowledgement on the wire, bytes.
    pub ack_bytes: u32,
    /// Delay acknowledgements (ack every second full segment or after `delack_timeout_ps`).
    pub delayed_ack: bool,
    /// Delayed-ack timeout, ps.
    pub delack_timeout_ps: SimTime,
    /// Echo CE marks as ECE (RFC 3168).
    pub ecn: bool,
    /// Sender MSS (the policy counts windows in it).
    pub mss: u32,
    /// Report SACK blocks (RFC 2018).
    pub sack: bool,
    /// DCTCP's echo (RFC 8257 s3.2) instead of RFC 3168's: ECE mirrors the CE state of the
    /// latest data, with an immediate acknowledgement whenever that state changes.
    pub dctcp_echo: bool,
    /// Report duplicate segments in a D-SACK block (RFC 2883; Linux `tcp_dsack`). Needs `sack`.
    pub dsack: bool,
}

/// The receiving end of a TCP flow.
#[derive(Debug)]
pub struct TcpReceiver {
    s: ReceiverSettings,
    policy: AnyReceiverPolicy,
    /// Next in-order byte expected.
    rcv_nxt: u64,
    /// Received ranges above `rcv_nxt`, sorted and disjoint: [start, end).
    ooo: RangeSet,
    /// Acknowledgement number of the last ack sent.
    last_ack_sent: u64,
    /// Timestamp to echo (RFC 7323 TS.Recent).
    ts_recent: SimTime,
    /// In-order segments received since the last ack (delayed acks).
    unacked_segs: u32,
    /// A CE mark was seen and not yet confirmed by CWR (RFC 3168 s6.1.3).
    ece_pending: bool,
    /// Start of the latest out-of-order segment (its block is reported first, RFC 2018 s4).
    latest_ooo: Option<u64>,
}

impl TcpReceiver {
    /// A receiver expecting byte 0 first.
    pub fn new(s: ReceiverSettings, policy: AnyReceiverPolicy) -> Self {
        TcpReceiver { s, policy, rcv_nxt: 0, ooo: RangeSet::default(), last_ack_sent: 0, ts_recent: 0, unacked_segs: 0, ece_pending: false, latest_ooo: None }
    }

    /// Bytes delivered in order to the application.
    pub fn delivered_bytes(&self) -> u64 {
        self.rcv_nxt
    }

    /// The window the policy currently advertises, bytes.
    pub fn window_bytes(&self) -> u64 {
        self.policy.window_bytes()
    }

    /// The receiver policy (for inspection).
    pub fn policy(&self) -> &AnyReceiverPolicy {
        &self.policy
    }

    /// A data packet arrived.
    pub fn on_data(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        let view = ReceiverView { rcv_nxt: self.rcv_nxt, mss: self.s.mss };
        self.policy.on_data(pkt, &view, ctx.now);
        if self.s.ecn && self.s.dctcp_echo {
            // RFC 8257 s3.2: when the CE state changes, first acknowledge what arrived before
            // with the old state, so the sender can count marked bytes exactly.
            let ce = pkt.ecn == Ecn::Ce;
            if ce != self.ece_pending {
                if self.unacked_segs > 0 {
                    self.send_ack(ctx);
                }
                self.ece_pending = ce;
            }
        } else if self.s.ecn {
            // RFC 3168 s6.1.3: CWR stops the echo; a new CE starts it again.
            if pkt.flags & flags::CWR != 0 {
                self.ece_pending = false;
            }
            if pkt.ecn == Ecn::Ce {
                self.ece_pending = true;
            }
        }
        let start = pkt.seq;
        let end = pkt.seq + pkt.payload_bytes as u64;
        // Every branch below decides whether to acknowledge now; the one acknowledgement is
        // built at the end (inline: its register saves once per call, not per branch).
        let ack_now = if end <= self.rcv_nxt {
            // Entirely old data: acknowledge at once so the sender learns where we are.
            if self.s.dsack && end > start {
                // RFC 2883 s4 (Linux `tcp_data_queue`, `tcp_dsack_set`): report the duplicate.
                return self.send_ack_with_dsack((start, end), ctx);
            }
            true
        } else if start <= self.rcv_nxt {
            if start < self.rcv_nxt && self.s.dsack {
                return self.on_data_with_old_head(pkt, ctx);
            }
            let had_holes = self.take_in_order(pkt);
            if pkt.flags & flags::MORE != 0 && !had_holes {
                // ATN WP/267 s5.2: a TPDU split into several network packets is acknowledged
                // once, when its last packet has arrived.
                false
            } else if had_holes || !self.s.delayed_ack || (self.ece_pending && !self.s.dctcp_echo) {
                // RFC 5681 s4.2: acknowledge at once when a segment fills (part of) a gap.
                true
            } else {
                self.unacked_segs += 1;
                if self.unacked_segs >= 2 {
                    true
                } else {
                    ctx.set_timer(TIMER_DELACK, ctx.now + self.s.delack_timeout_ps);
                    false
                }
            }
        } else {
            // Out of order: remember the range, send a duplicate ack at once (RFC 5681 s4.2).
            // RFC 2883 s4.1.2 (Linux `tcp_data_queue_ofo`): out-of-order data held already is
            // reported; only a segment held whole (one that overlaps a held range in part is
            // not; segments here are resent whole).
            let dup = self.s.dsack && self.ooo.containing(start).is_some_and(|r| r.1 >= end);
            self.insert_ooo(start, end);
            self.latest_ooo = Some(start);
            if dup {
                return self.send_ack_with_dsack((start, end), ctx);
            }
            true
        };
        if ack_now {
            self.build_ack(ctx);
        }
    }

    /// Takes an in-order segment: the timestamp to echo, `rcv_nxt`, and the out-of-order ranges
    /// it joins. True if there were holes (the acknowledgement then goes at once).
    #[inline(always)]
    fn take_in_order(&mut self, pkt: &Packet) -> bool {
        // RFC 7323 s4.3: take the timestamp of a segment that covers the left window edge.
        if pkt.seq <= self.last_ack_sent {
            self.ts_recent = pkt.sent_at;
        }
        self.rcv_nxt = pkt.seq + pkt.payload_bytes as u64;
        let had_holes = !self.ooo.is_empty();
        if had_holes {
            self.absorb_ooo();
        }
        had_holes
    }

    /// A segment whose head is old and whose tail is new, with D-SACK (RFC 2883 s4.1.1): the
    /// old part is the duplicate. Linux reports it with the next acknowledgement; here that
    /// acknowledgement goes at once.
    #[cold]
    #[inline(never)]
    fn on_data_with_old_head(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        let dup = (pkt.seq, self.rcv_nxt);
        self.take_in_order(pkt);
        self.send_ack_with_dsack(dup, ctx);
    }

    /// Sends the acknowledgement with a D-SACK block for `dup` first (RFC 2883 s4); the SACK
    /// blocks follow as space allows.
    #[cold]
    #[inline(never)]
    fn send_ack_with_dsack(&mut self, dup: (u64, u64), ctx: &mut TransportCtx) {
        self.build_ack(ctx);
        if let Some((last, _)) = ctx.out.last_mut() {
            last.sack = last.sack.with_dsack(last.ack, dup);
        }
    }

    /// The delayed-ack timer fired.
    pub fn on_delack_timer(&mut self, ctx: &mut TransportCtx) {
        if self.unacked_segs > 0 {
            self.send_ack(ctx);
        }
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        self.ooo.insert(start, end);
    }

    fn absorb_ooo(&mut self) {
        // Each range absorbed is removed once: O(log n) per range.
        while let Some((s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove_below(e);
        }
    }

    #[inline(never)]
    fn send_ack(&mut self, ctx: &mut TransportCtx) {
        self.build_ack(ctx);
    }

    /// Sends the acknowledgement for what has arrived (built in place in the output buffer).
    #[inline(always)]
    fn build_ack(&mut self, ctx: &mut TransportCtx) {
        let mut f = 0;
        if self.ece_pending {
            f |= flags::ECE;
        }
        let ack = Packet {
            kind: PacketKind::Ack,
            ack: self.rcv_nxt,
            seq: 0,
            size_bytes: self.s.ack_bytes,
            payload_bytes: 0,
            window_bytes: self.policy.window_bytes().min(u32::MAX as u64) as u32,
            ts_echo: self.ts_recent,
            sent_at: ctx.now,
            flags: f,
            sack: if self.s.sack && !self.ooo.is_empty() {
                SackBlocks::from_ooo(self.rcv_nxt, &self.ooo, self.latest_ooo)
            } else {
                SackBlocks::default()
            },
            ..Default::default()
        };
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_segs = 0;
        ctx.cancel_timer(TIMER_DELACK);
        ctx.send(ack, Direction::Reverse);
    }
}
