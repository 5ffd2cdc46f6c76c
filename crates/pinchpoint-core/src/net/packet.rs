//! The packet: a plain `Copy` struct carrying ids, sequence numbers, timestamps and every
//! congestion field the seed mechanisms need. Packets live in a [`PacketSlab`] and the rest of the
//! engine passes `u32` slots around, so nothing is allocated per packet.

use crate::sim::SimTime;

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum PacketKind {
    /// Transport data (a TCP segment, an ATN DT TPDU, a UDP datagram).
    #[default]
    Data = 0,
    /// An acknowledgement (TCP ACK, ATN AK TPDU).
    Ack = 1,
    /// A control packet (handshakes, Rate Quench).
    Control = 2,
}

/// ECN codepoint of the IP header (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct = 0,
    /// ECN-capable transport.
    Ect = 1,
    /// Congestion experienced.
    Ce = 3,
}

/// Flag bits of [`Packet::flags`].
pub mod flags {
    /// ATN / DECbit Congestion Experienced bit (ATN WP/267 s5.1).
    pub const CE: u8 = 1 << 0;
    /// TCP ECN-Echo on an acknowledgement (RFC 3168 s6.1.3).
    pub const ECE: u8 = 1 << 1;
    /// TCP Congestion Window Reduced (RFC 3168 s6.1.2).
    pub const CWR: u8 = 1 << 2;
    /// The segment is a retransmission (for bookkeeping only; not on the wire).
    pub const RETX: u8 = 1 << 3;
    /// More network packets of the same TPDU follow (a TPDU split into several NPDUs,
    /// ATN WP/267 s5.2); the receiver acknowledges at the TPDU's last packet.
    pub const MORE: u8 = 1 << 4;
    /// TRUMP connection setup (a forward control packet) or its acknowledgement (an ack).
    pub const SETUP: u8 = 1 << 5;
    /// RBCC Rate Quench: a control packet a congested router sends straight back to the source.
    pub const QUENCH: u8 = 1 << 6;
}

/// One packet. 112 bytes; see the size test below. `repr(C)` with what the engine reads at
/// every hop first (flow, route, size, hop, kind, ECN, flags, priority, send time: 32 bytes),
/// then what only the endpoints and the rate- and load-marking ports read: a packet that waited
/// in a queue or on a wire is cold when it arrives, and at 100,000 flows its route and hop,
/// in different lines under the default layout, were two cache misses per hop (issue 13).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct Packet {
    /// Flow this packet belongs to (index into the flow arena).
    pub flow: u32,
    /// Route the packet follows (index into the route arena).
    pub route: u32,
    /// Size on the wire, headers included, in bytes.
    pub size_bytes: u32,
    /// Payload bytes (data) carried.
    pub payload_bytes: u32,
    /// Index of the next hop on the route.
    pub hop: u16,
    /// Data, acknowledgement or control.
    pub kind: PacketKind,
    /// ECN codepoint.
    pub ecn: Ecn,
    /// Flag bits, see [`flags`].
    pub flags: u8,
    /// Scheduling priority at ports that honour it (0 = highest).
    pub priority: u8,
    /// When the transport handed this packet to the network (end-to-end delay is measured from it).
    pub sent_at: SimTime,
    /// Sequence number of the first payload byte (data) or of the next byte expected (acks carry
    /// the cumulative acknowledgement in `ack`).
    pub seq: u64,
    /// Cumulative acknowledgement: the next byte the receiver expects.
    pub ack: u64,
    /// Timestamp echoed by the receiver (RFC 7323 TSecr), for RTT samples.
    pub ts_echo: SimTime,
    /// Receiver-advertised window or credit, in bytes (TCP rwnd, ATN credit W x TPDU size).
    pub window_bytes: u32,
    /// RBCC Rate: the explicit rate the routers allow on the forward path, bit/s (the source
    /// writes its desired rate or infinity; routers only lower it). 0: not a rate-controlled
    /// packet. f32 as the thesis suggests (Toomey 1996 s12: IEEE-754 single, able to hold infinity).
    pub rate_bps: f32,
    /// RBCC Return_Rate, bit/s: on acknowledgements the Rate the destination received, on data
    /// the rate the source currently sends at.
    pub return_rate_bps: f32,
    /// Id of the RBCC port that last lowered `rate_bps` (0: the source's desired rate).
    pub rate_by: u32,
    /// Id of the port that set `return_rate_bps` (the flow's current bottleneck).
    pub return_rate_by: u32,
    /// Path load seen so far (ECA LOAD), dimensionless.
    pub load: f32,
    /// Load reflected from the receiver (ECA RLOAD), dimensionless.
    pub rload: f32,
    /// SACK blocks of an acknowledgement (RFC 2018), relative to `ack`.
    pub sack: crate::transport::tcp::sack::SackBlocks,
}

impl Packet {
    /// True if the CE (congestion experienced) bit is set.
    #[inline]
    pub fn ce(&self) -> bool {
        self.flags & flags::CE != 0
    }
    /// True if congestion was experienced by either signal: the CE bit above or the IP ECN
    /// codepoint CE (RFC 3168).
    #[inline]
    pub fn ce_any(&self) -> bool {
        self.ce() | (self.ecn == Ecn::Ce)
    }
    /// Sets the CE bit.
    #[inline]
    pub fn set_ce(&mut self) {
        self.flags |= flags::CE;
    }
}

/// Arena of packets in the network, addressed by `u32` slot. Freed slots are reused (LIFO), so
/// the slab grows only to the largest number of packets ever alive at once.
#[derive(Default)]
pub struct PacketSlab {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketSlab {
    /// Stores `pkt` and returns its slot.
    #[inline]
    pub fn insert(&mut self, pkt: Packet) -> u32 {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = pkt;
            id
        } else {
            self.slots.push(pkt);
            (self.slots.len() - 1) as u32
        }
    }
    /// Frees slot `id`.
    #[inline]
    pub fn remove(&mut self, id: u32) {
        self.free.push(id);
    }
    /// The packet in slot `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &Packet {
        &self.slots[id as usize]
    }
    /// Asks for the lines of the per-hop fields (the first 32 bytes, two lines when a slot
    /// straddles one) of the packet in slot `id`, which may be free; changes nothing.
    #[inline(always)]
    pub fn prefetch_hop_fields(&self, id: u32) {
        let at = self.slots.as_ptr().wrapping_add(id as usize) as *const u8;
        crate::sim::prefetch::prefetch_read(at);
        crate::sim::prefetch::prefetch_read(at.wrapping_add(31));
    }
    /// The packet in slot `id`, mutably.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut Packet {
        &mut self.slots[id as usize]
    }
    /// [`Self::get`] without the bounds check, for the run loop's per-hop reads.
    ///
    /// # Safety
    ///
    /// `id` is a slot [`Self::insert`] returned (freed since or not: the slab never shrinks, so
    /// every slot it ever returned stays below its length).
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, id: u32) -> &Packet {
        debug_assert!((id as usize) < self.slots.len());
        // SAFETY: the caller guarantees a slot `insert` returned, below `slots.len()` for good.
        unsafe { self.slots.get_unchecked(id as usize) }
    }
    /// [`Self::get_mut`] without the bounds check.
    ///
    /// # Safety
    ///
    /// As for [`Self::get_unchecked`].
    #[inline(always)]
    pub unsafe fn get_unchecked_mut(&mut self, id: u32) -> &mut Packet {
        debug_assert!((id as usize) < self.slots.len());
        // SAFETY: as in `get_unchecked`.
        unsafe { self.slots.get_unchecked_mut(id as usize) }
    }
    /// Packets currently stored.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
    /// Slots currently free.
    pub fn free_slots(&self) -> &[u32] {
        &self.free
    }
    /// The largest number of packets ever alive at once.
    pub fn high_water(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_stays_small() {
        assert!(std::mem::size_of::<Packet>() <= 112, "{}", std::mem::size_of::<Packet>());
    }

    #[test]
    fn what_every_hop_reads_is_in_a_packets_first_32_bytes() {
        use std::mem::offset_of;
        for (name, offset, size) in [
            ("flow", offset_of!(Packet, flow), 4),
            ("route", offset_of!(Packet, route), 4),
            ("size_bytes", offset_of!(Packet, size_bytes), 4),
            ("hop", offset_of!(Packet, hop), 2),
            ("kind", offset_of!(Packet, kind), 1),
            ("ecn", offset_of!(Packet, ecn), 1),
            ("flags", offset_of!(Packet, flags), 1),
            ("priority", offset_of!(Packet, priority), 1),
            ("sent_at", offset_of!(Packet, sent_at), 8),
        ] {
            assert!(offset + size <= 32, "{name} at {offset}");
        }
    }

    #[test]
    fn slab_reuses_slots() {
        let mut s = PacketSlab::default();
        let a = s.insert(Packet::default());
        let _b = s.insert(Packet::default());
        s.remove(a);
        let c = s.insert(Packet { flow: 9, ..Default::default() });
        assert_eq!(a, c);
        assert_eq!(s.get(c).flow, 9);
        assert_eq!(s.live(), 2);
        assert_eq!(s.high_water(), 2);
    }
}
