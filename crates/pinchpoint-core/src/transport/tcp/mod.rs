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
pub mod receiver;
pub mod sack;
pub mod sender;

use super::{Transport, TransportCtx, TransportReport, NEVER, TIMER_APP, TIMER_DELACK, TIMER_RTO};
use crate::net::packet::{Packet, PacketKind};
use receiver::TcpReceiver;
use sender::TcpSender;

/// Both ends of one TCP flow.
pub struct TcpConnection {
    /// The sending end (at the flow's source).
    pub sender: TcpSender,
    /// The receiving end (at the flow's destination).
    pub receiver: TcpReceiver,
}

impl TcpConnection {
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
        self.sender.start(ctx);
        self.wake_at_next_offer(ctx);
    }
    #[inline]
    fn on_packet(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        match pkt.kind {
            PacketKind::Data => self.receiver.on_data(pkt, ctx),
            PacketKind::Ack => self.sender.on_ack(pkt, ctx),
            PacketKind::Control => {}
        }
    }
    fn on_timer(&mut self, slot: u8, ctx: &mut TransportCtx) {
        match slot {
            TIMER_RTO => self.sender.on_rto(ctx),
            TIMER_DELACK => self.receiver.on_delack_timer(ctx),
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
        r
    }
}

#[cfg(test)]
mod tests;
