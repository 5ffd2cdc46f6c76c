//! The packets on one wire, in the order they will reach the far end: a ring whose capacity is
//! a power of two, so a slot index is a mask instead of a compare and subtract (std's
//! `VecDeque` allows any capacity).

use crate::sim::SimTime;

/// Entries of a ring's first allocation (128 bytes). Issue 13, round 8 (bench/README.md): 4
/// entries gave 2.9 % fewer L2 misses at N = 10,000 but 0.3 % fewer at N = 100,000 for 15 more
/// instructions per hop there (more rings grow a second time); 2 entries more of both.
const FIRST_CAPACITY: usize = 8;

/// One packet on a wire (16 bytes: the size fills what would be padding).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OnWire {
    /// When the packet reaches the far end, ps.
    pub arrival_ps: SimTime,
    /// Its slot in the packet slab.
    pub slot: u32,
    /// Its size, bytes (a lazy port reads it when the packet's transmission starts).
    pub size_bytes: u32,
}

/// Packets in flight on a wire, oldest first. On a port that computes departures at arrival
/// (`net::port`, the lazy path) the last `Port::waiting_pkts` of them are still waiting for the
/// transmitter: their arrival times are already known. 24 bytes (a boxed slice and two 32-bit
/// indices) so that it fits the port's first cache line with the rest of what a packet's arrival
/// at the far end reads (`net::port`); a wire holds far fewer than 2^32 packets (its
/// bandwidth-delay product, and every packet alive is in the slab's `u32` slots).
#[derive(Debug, Default)]
pub struct Wire {
    buf: Box<[OnWire]>,
    head: u32,
    len: u32,
}

impl Wire {
    /// Number of packets on the wire.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when no packet is on the wire.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The packet that arrives next.
    #[inline]
    pub fn front(&self) -> Option<&OnWire> {
        if self.len == 0 { None } else { Some(&self.buf[self.head as usize]) }
    }

    /// The `i`-th packet from the front (`i < len`).
    #[inline]
    pub fn get(&self, i: usize) -> &OnWire {
        debug_assert!(i < self.len());
        &self.buf[(self.head as usize + i) & (self.buf.len() - 1)]
    }

    /// The `k`-th packet from the back (`k` = 1: the last one pushed), `k` at most the ring's
    /// capacity. It may already have left the wire: a lazy port that had no arrival for a
    /// while (`net::port`) counts packets as waiting that have since reached the far end. Their
    /// entries stay intact in the ring until the next push, and the port is advanced past
    /// them before it pushes, so this reads them by wrapping back from the tail (a subtraction
    /// from the length would overflow there).
    #[inline]
    pub fn nth_from_back(&self, k: usize) -> &OnWire {
        debug_assert!(k >= 1 && k <= self.buf.len());
        &self.buf[(self.head as usize + self.len as usize).wrapping_sub(k) & (self.buf.len() - 1)]
    }

    /// The packet that arrives last (the wire is not empty).
    #[inline]
    pub fn back(&self) -> &OnWire {
        self.get(self.len() - 1)
    }

    /// Adds a packet that arrives after every packet already on the wire.
    #[inline]
    pub fn push_back(&mut self, item: OnWire) {
        // A loop rather than an `if` (one `grow` always suffices): past it the compiler knows
        // that the ring holds more entries than `len`, so it is not empty and the masked index
        // below needs no bounds check (issue 13, round 13: one compare and branch per hop).
        while self.len() >= self.buf.len() {
            self.grow();
        }
        let mask = self.buf.len() - 1;
        self.buf[(self.head as usize + self.len as usize) & mask] = item;
        self.len += 1;
    }

    /// Removes the packet that arrives next.
    #[inline]
    pub fn pop_front(&mut self) -> Option<OnWire> {
        if self.len == 0 {
            return None;
        }
        let item = self.buf[self.head as usize];
        self.head = ((self.head as usize + 1) & (self.buf.len() - 1)) as u32;
        self.len -= 1;
        Some(item)
    }

    /// Removes the packet that arrives next and returns its slot with the arrival time of the
    /// packet now at the front, if any: `pop_front` then `front` with one emptiness test and
    /// one index computation fewer, and no bounds checks (the run loop does this per hop).
    ///
    /// # Safety
    ///
    /// The wire is not empty.
    #[inline]
    pub unsafe fn pop_front_and_next_arrival(&mut self) -> (u32, Option<SimTime>) {
        debug_assert!(self.len > 0, "popping an empty wire");
        let mask = self.buf.len() - 1;
        debug_assert!((self.head as usize) < self.buf.len());
        // SAFETY: the ring's invariant (every method keeps it): `len <= buf.len()` and, once
        // the ring has entries, `head < buf.len()`. The caller guarantees `len > 0`, so the
        // ring has entries and `head` indexes one.
        let slot = unsafe { self.buf.get_unchecked(self.head as usize) }.slot;
        let head = (self.head as usize + 1) & mask;
        self.head = head as u32;
        self.len -= 1;
        // SAFETY: `head` is masked by `buf.len() - 1`, and `buf.len()` is a power of two (at
        // least 1 here, see above): it indexes an entry.
        let next = if self.len == 0 { None } else { Some(unsafe { self.buf.get_unchecked(head) }.arrival_ps) };
        (slot, next)
    }

    /// Doubles the capacity (at least [`FIRST_CAPACITY`]), keeping the order. Rare: a wire's
    /// length is bounded by its bandwidth-delay product in packets.
    #[cold]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(FIRST_CAPACITY);
        assert!(cap <= 1 << 31, "more than 2^31 packets on one wire");
        let mut buf = Vec::with_capacity(cap);
        let mask = self.buf.len().wrapping_sub(1);
        for i in 0..self.len() {
            buf.push(self.buf[(self.head as usize + i) & mask]);
        }
        buf.resize(cap, OnWire::default());
        self.buf = buf.into_boxed_slice();
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn the_ring_keeps_fifo_order_across_growth_and_wrap_around() {
        let (mut w, mut shadow) = (Wire::default(), VecDeque::new());
        let mut next = 0u32;
        // Pushes and pops in uneven bursts so the head wraps while the ring grows.
        for round in 0..200u32 {
            for _ in 0..(round % 7) + 1 {
                let x = OnWire { arrival_ps: next as u64, slot: next, size_bytes: next * 3 };
                w.push_back(x);
                shadow.push_back(x);
                next += 1;
            }
            for _ in 0..(round % 5) {
                assert_eq!(w.pop_front(), shadow.pop_front());
            }
            assert_eq!(w.len(), shadow.len());
            assert_eq!(w.front(), shadow.front());
            for i in 0..w.len() {
                assert_eq!(w.get(i), &shadow[i]);
                assert_eq!(w.nth_from_back(w.len() - i), &shadow[i]);
            }
            if !w.is_empty() {
                assert_eq!(w.back(), shadow.back().unwrap());
            }
        }
        while let Some(x) = shadow.pop_front() {
            // Half of them through the combined pop: the same slot, and the next arrival.
            if x.slot % 2 == 0 {
                // SAFETY: the wire holds `x`, so it is not empty.
                assert_eq!(unsafe { w.pop_front_and_next_arrival() }, (x.slot, shadow.front().map(|y| y.arrival_ps)));
            } else {
                assert_eq!(w.pop_front(), Some(x));
            }
        }
        assert!(w.is_empty() && w.pop_front().is_none());
    }

    #[test]
    fn a_packet_that_left_the_wire_is_still_read_from_the_back_until_the_next_push() {
        let mut w = Wire::default();
        // Wraps: the ring (8 entries) starts at entry 6 after these.
        for k in 0..6u32 {
            w.push_back(OnWire { arrival_ps: k as u64, slot: k, size_bytes: 0 });
            w.pop_front();
        }
        for k in 10..13u32 {
            w.push_back(OnWire { arrival_ps: k as u64, slot: k, size_bytes: 100 + k });
        }
        w.pop_front();
        w.pop_front();
        assert_eq!(w.len(), 1);
        assert_eq!([3, 2, 1].map(|k| w.nth_from_back(k).slot), [10, 11, 12]);
    }
}
