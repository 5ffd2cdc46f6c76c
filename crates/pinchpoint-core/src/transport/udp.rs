//! Unresponsive datagram sources: constant bit rate and Poisson. They ignore the network (the
//! non-compliant cross traffic of ATN exercise 6 and the UDP flows of the ISDA experiment).

use super::{Direction, Transport, TransportCtx, TransportReport, TIMER_APP};
use crate::net::packet::{Packet, PacketKind};
use crate::sim::{rng, SimTime, PS_PER_S};

/// How the gaps between datagrams are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gaps {
    /// Equal gaps: size * 8 / rate.
    Constant,
    /// Exponential gaps with mean size * 8 / rate.
    Poisson,
}

/// A datagram source and its sink.
#[derive(Debug)]
pub struct UdpFlow {
    gaps: Gaps,
    packet_bytes: u32,
    mean_gap_ps: f64,
    stop_at: SimTime,
    seq: u64,
    sent_bytes: u64,
    delivered_bytes: u64,
    priority: u8,
}

impl UdpFlow {
    /// A source of `packet_bytes` datagrams at `rate_bps` (on the wire), stopping at `stop_at`.
    pub fn new(gaps: Gaps, rate_bps: f64, packet_bytes: u32, stop_at: SimTime, priority: u8) -> Self {
        UdpFlow {
            gaps,
            packet_bytes,
            mean_gap_ps: packet_bytes as f64 * 8.0 * PS_PER_S as f64 / rate_bps,
            stop_at,
            seq: 0,
            sent_bytes: 0,
            delivered_bytes: 0,
            priority,
        }
    }

    fn send_one(&mut self, ctx: &mut TransportCtx) {
        if ctx.now >= self.stop_at {
            return;
        }
        let pkt = Packet {
            seq: self.seq,
            kind: PacketKind::Data,
            size_bytes: self.packet_bytes,
            payload_bytes: self.packet_bytes,
            sent_at: ctx.now,
            priority: self.priority,
            ..Default::default()
        };
        self.seq += self.packet_bytes as u64;
        self.sent_bytes += self.packet_bytes as u64;
        ctx.send(pkt, Direction::Forward);
        let gap = match self.gaps {
            Gaps::Constant => self.mean_gap_ps,
            Gaps::Poisson => rng::exponential(ctx.rng, self.mean_gap_ps),
        };
        let next = ctx.now + (gap.round() as SimTime).max(1);
        if next < self.stop_at {
            ctx.set_timer(TIMER_APP, next);
        }
    }
}

impl Transport for UdpFlow {
    fn on_start(&mut self, ctx: &mut TransportCtx) {
        self.send_one(ctx);
    }
    fn on_packet(&mut self, pkt: &Packet, _ctx: &mut TransportCtx) {
        self.delivered_bytes += pkt.payload_bytes as u64;
    }
    fn on_timer(&mut self, slot: u8, ctx: &mut TransportCtx) {
        if slot == TIMER_APP {
            self.send_one(ctx);
        }
    }
    fn is_complete(&self) -> bool {
        false
    }
    fn is_finite(&self) -> bool {
        false
    }
    fn report(&self) -> TransportReport {
        TransportReport { delivered_bytes: self.delivered_bytes, acked_bytes: self.sent_bytes, ..Default::default() }
    }
}
