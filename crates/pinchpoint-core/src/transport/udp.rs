//! Unresponsive datagrams: every message the workload offers goes out at once as one datagram,
//! whatever the network does (the non-compliant cross traffic of ATN exercise 6 and the UDP
//! flows of the ISDA experiment). The timing (CBR, Poisson, on/off) is the workload's.

use super::{Direction, Transport, TransportCtx, TransportReport, NEVER, TIMER_APP};
use crate::net::packet::{Packet, PacketKind};

/// A datagram source and its sink. The state is boxed so that the transport enum every flow
/// holds stays two words (the TCP and TFRC states are boxed too).
#[derive(Debug)]
pub struct UdpFlow(Box<UdpState>);

#[derive(Debug)]
struct UdpState {
    seq: u64,
    sent_bytes: u64,
    delivered_bytes: u64,
    priority: u8,
}

impl UdpFlow {
    /// A datagram source writing `priority` on its packets.
    pub fn new(priority: u8) -> Self {
        UdpFlow(Box::new(UdpState { seq: 0, sent_bytes: 0, delivered_bytes: 0, priority }))
    }

    /// Sends one datagram per message offered and not yet sent; wakes at the next offer.
    fn send_offered(&mut self, ctx: &mut TransportCtx) {
        let offered = ctx.offered_bytes();
        // Validated: a udp flow's workload has messages.
        let size = ctx.workload_message_bytes().unwrap_or(1);
        while self.0.sent_bytes + size as u64 <= offered {
            let pkt = Packet {
                seq: self.0.seq,
                kind: PacketKind::Data,
                size_bytes: size,
                payload_bytes: size,
                sent_at: ctx.now,
                priority: self.0.priority,
                ..Default::default()
            };
            self.0.seq += size as u64;
            self.0.sent_bytes += size as u64;
            ctx.send(pkt, Direction::Forward);
        }
        let next = ctx.next_offer_at();
        if next != NEVER {
            ctx.set_timer(TIMER_APP, next);
        }
    }
}

impl Transport for UdpFlow {
    fn on_start(&mut self, ctx: &mut TransportCtx) {
        self.send_offered(ctx);
    }
    fn on_packet(&mut self, pkt: &Packet, _ctx: &mut TransportCtx) {
        self.0.delivered_bytes += pkt.payload_bytes as u64;
    }
    fn on_timer(&mut self, slot: u8, ctx: &mut TransportCtx) {
        if slot == TIMER_APP {
            self.send_offered(ctx);
        }
    }
    fn is_complete(&self) -> bool {
        false
    }
    fn is_finite(&self) -> bool {
        false
    }
    fn report(&self) -> TransportReport {
        TransportReport { delivered_bytes: self.0.delivered_bytes, acked_bytes: self.0.sent_bytes, ..Default::default() }
    }
}
