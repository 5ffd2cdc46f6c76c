//! The event queue: two heaps ordered by (time, same-picosecond rank).
//!
//! The same-picosecond rule (DESIGN.md, "Event order"; model revision 2): at one picosecond,
//! every transmit completion (`TxDone`, by port index) comes first, then every packet reaching
//! the end of a wire (`Arrive`, by port index), then every other event in the order it was
//! scheduled (FIFO). Link events are thus ordered by what they are, never by when they were
//! pushed: a port that computes its departures when packets arrive (`net::port`, the lazy
//! path) pushes them at other instants than one that runs a `TxDone` per departure, and both
//! must give the same order. Every run stays deterministic.
//! Events are small `Copy` values that name their target by arena index; no packet ever sits
//! in the heap (links keep their packets in flight in a ring, see `net::port`).

use super::link_heap::LinkHeap;
use super::timer_wheel::TimerWheel;
use super::time::SimTime;

/// What happens at an instant. Every variant names its target by index into an arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Port `port` finished serialising its current packet.
    TxDone {
        /// Port index.
        port: u32,
    },
    /// The packet at the head of port `port`'s wire reaches the far end.
    Arrive {
        /// Port index.
        port: u32,
    },
    /// Timer `timer` of flow `flow`; stale unless its time matches the flow's pending time for
    /// that slot (lazy cancellation, see `simulation::FlowTimers`).
    FlowTimer {
        /// Flow index.
        flow: u32,
        /// Timer slot.
        timer: u8,
    },
    /// A port's periodic or scheduled work (hooks and disciplines that keep timers).
    PortTimer {
        /// Port index.
        port: u32,
    },
    /// Take one sample of every time series.
    Sample,
    /// Apply timed route change number `idx`.
    RouteChange {
        /// Index of the change.
        idx: u32,
    },
    /// The next transfer of arrival process `process` arrives.
    Arrival {
        /// Index of the process.
        process: u32,
    },
}

// Events are packed into 16-byte heap entries: the time, then one word holding a sequence
// number above a 29-bit payload (3 bits of kind, 26 bits of target). Comparing (time, word) as
// integers orders by time, then by that word. Link events (`TxDone` kind 0, `Arrive` kind 1)
// carry sequence number 0, so at one picosecond they come before every other event (whose
// numbers start at 1), `TxDone` before `Arrive` (kind bits), each kind by port index; other
// events are FIFO among equal times.
const PAYLOAD_BITS: u32 = 29;
const DATA_BITS: u32 = 26;
const DATA_MASK: u64 = (1 << DATA_BITS) - 1;
/// Largest port, flow or route-change index an event can name.
pub const MAX_PORTS: usize = 1 << DATA_BITS;
/// Bits of the payload that hold a flow timer's slot (`transport::TIMER_SLOTS` = 5 needs 3).
const TIMER_BITS: u32 = 3;
/// Largest number of flows (TIMER_BITS bits of the payload hold the timer slot).
pub const MAX_FLOWS: usize = 1 << (DATA_BITS - TIMER_BITS);

/// The kind bits of `Event::Arrive`.
const ARRIVE_KIND: u64 = 1;

#[inline]
fn encode(e: Event) -> u64 {
    let (kind, data) = match e {
        Event::TxDone { port } => (0u64, port as u64),
        Event::Arrive { port } => (ARRIVE_KIND, port as u64),
        Event::FlowTimer { flow, timer } => (2, ((flow as u64) << TIMER_BITS) | (timer as u64 & ((1 << TIMER_BITS) - 1))),
        Event::PortTimer { port } => (3, port as u64),
        Event::Sample => (4, 0),
        Event::RouteChange { idx } => (5, idx as u64),
        Event::Arrival { process } => (6, process as u64),
    };
    debug_assert!(data <= DATA_MASK);
    (kind << DATA_BITS) | data
}

#[inline]
fn decode(w: u64) -> Event {
    let data = w & DATA_MASK;
    match (w >> DATA_BITS) & 7 {
        0 => Event::TxDone { port: data as u32 },
        ARRIVE_KIND => Event::Arrive { port: data as u32 },
        2 => Event::FlowTimer { flow: (data >> TIMER_BITS) as u32, timer: (data & ((1 << TIMER_BITS) - 1)) as u8 },
        3 => Event::PortTimer { port: data as u32 },
        4 => Event::Sample,
        5 => Event::RouteChange { idx: data as u32 },
        _ => Event::Arrival { process: data as u32 },
    }
}

/// The port of an `Arrive` event's packed word, `None` for any other kind.
#[inline]
fn arrive_port(w: u64) -> Option<u32> {
    ((w >> DATA_BITS) & 7 == ARRIVE_KIND).then_some((w & DATA_MASK) as u32)
}

/// The earliest event of an [`EventQueue`], as [`EventQueue::peek_head`] returns it: its time
/// and its packed word.
#[derive(Clone, Copy, Debug)]
pub struct Head {
    /// When the event happens.
    pub time: SimTime,
    key: u64,
}

impl Head {
    /// The port of an `Arrive` event, `None` for any other kind.
    #[inline(always)]
    pub fn arrive_port(self) -> Option<u32> {
        arrive_port(self.key)
    }
    /// The event.
    #[inline]
    pub fn event(self) -> Event {
        decode(self.key)
    }
}

/// A heap entry: the time in the high 64 bits, the sequence number and payload in the low 64,
/// so that one 128-bit comparison orders by time, then by insertion (FIFO among equal times).
/// Both heaps (min-heaps) hold the bare `u128`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Entry(u128);

impl Entry {
    #[inline]
    fn new(time: SimTime, key: u64) -> Self {
        Entry(((time as u128) << 64) | key as u128)
    }
    #[inline]
    fn time(self) -> SimTime {
        (self.0 >> 64) as SimTime
    }
    #[inline]
    fn key(self) -> u64 {
        self.0 as u64
    }
}

/// Priority queue of future events, in two stores of packed 16-byte entries: a heap for link
/// events (`TxDone`, `Arrive`), whose number follows the busy ports, and a timer store, whose
/// number follows the flows. The link heap stays shallow however many idle flows there are,
/// which keeps the per-hop cost flat from 10 to 10,000 flows; a pop compares the two heads,
/// and the global sequence number keeps FIFO order among equal times across both.
/// The link heap is a binary heap (a single 4-ary heap for every event measured more
/// instructions per packet-hop under callgrind: 799 against 748 at N = 10), std's until issue
/// 13's round 13, now `sim::link_heap` (a cheaper sift for the head's replacement, the run
/// loop's commonest operation, and a head that reads `u128::MAX` when empty). The timer store
/// is a timing wheel of 1.07 ms slots in front of two small heaps (`sim::timer_wheel`, issue
/// 13, fifteenth session), which replaced a 4-ary heap (`sim::dary_heap`, now its near and far
/// parts) whose pop walked its whole depth: about 390 instructions at 10,000 flows. Keys are
/// unique, so either pops in exactly the order std's binary heap did.
#[derive(Default)]
pub struct EventQueue {
    /// Link entries (`Entry::0`), smallest (earliest) first.
    net: LinkHeap,
    /// Timer entries (`Entry::0`), smallest (earliest) first.
    timers: TimerWheel,
    next_seq: u64,
}

impl EventQueue {
    /// An empty queue with room for `cap` events.
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            net: LinkHeap::with_capacity(cap),
            timers: TimerWheel::with_capacity(cap),
            next_seq: 0,
        }
    }

    /// Schedules `event` at `time`.
    #[inline(always)]
    pub fn push(&mut self, time: SimTime, event: Event) {
        match event {
            Event::TxDone { .. } | Event::Arrive { .. } => self.net.push(Self::net_entry(time, event).0),
            _ => {
                let e = self.entry(time, event);
                self.timers.push(e.0)
            }
        }
    }

    /// Schedules flow `flow`'s timer slot `timer` at `time`: [`Self::push`] of an
    /// [`Event::FlowTimer`] without the match on the kind, so that the run loop's link-event
    /// pushes stay the only inlined callers of `push` (issue 13, round 8).
    #[inline]
    pub fn push_flow_timer(&mut self, time: SimTime, flow: u32, timer: u8) {
        let e = self.entry(time, Event::FlowTimer { flow, timer });
        self.timers.push(e.0)
    }

    /// The entry for `event` at `time`: link events carry sequence number 0 (ordered by kind
    /// and port), every other event takes the next number from 1 on (FIFO).
    #[inline]
    fn entry(&mut self, time: SimTime, event: Event) -> Entry {
        let key = match event {
            Event::TxDone { .. } | Event::Arrive { .. } => encode(event),
            _ => {
                self.next_seq += 1;
                (self.next_seq << PAYLOAD_BITS) | encode(event)
            }
        };
        Entry::new(time, key)
    }

    /// The entry for a link event (`TxDone` or `Arrive`) at `time`: sequence number 0.
    #[inline]
    fn net_entry(time: SimTime, event: Event) -> Entry {
        debug_assert!(matches!(event, Event::TxDone { .. } | Event::Arrive { .. }));
        Entry::new(time, encode(event))
    }

    /// True if the earliest event is in the link heap (ties cannot happen: a link event has
    /// sequence number 0, a timer a positive one).
    #[inline]
    fn head_is_net(&self) -> Option<bool> {
        // An empty heap reads `u128::MAX`, later than every entry.
        let (a, t) = (self.net.head(), self.timers.head());
        if a < t {
            Some(true)
        } else {
            (!self.timers.is_empty()).then_some(false)
        }
    }

    /// The earliest entry, left in the queue: the smaller of the two heads (each reads
    /// `u128::MAX` when its heap is empty, and no entry is that).
    #[inline(always)]
    fn head(&self) -> Option<Entry> {
        let e = self.net.head().min(self.timers.head());
        (e != u128::MAX).then_some(Entry(e))
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        // One call site of each heap's pop keeps them inlined here.
        let e = if self.head_is_net()? { Entry(self.net.pop()?) } else { Entry(self.timers.pop()?) };
        Some((e.time(), decode(e.key())))
    }

    /// The earliest event, left in the queue.
    #[inline]
    pub fn peek(&self) -> Option<(SimTime, Event)> {
        let e = self.head()?;
        Some((e.time(), decode(e.key())))
    }

    /// The earliest event, left in the queue, still packed: the run loop reads its time, tests
    /// it for the commonest kind ([`Head::arrive_port`]) and decodes it only if it is another.
    /// (A `Result` of port or event here cost about 6 instructions per event more than the
    /// packed word under callgrind: its tag was built, then tested twice; issue 13, round 13.)
    #[inline]
    pub fn peek_head(&self) -> Option<Head> {
        let e = self.head()?;
        Some(Head { time: e.time(), key: e.key() })
    }

    /// The earliest event, left in the queue, as its time and either the port of an `Arrive`
    /// (`Ok`) or any other event (`Err`).
    #[inline]
    pub fn peek_arrive(&self) -> Option<(SimTime, Result<u32, Event>)> {
        let h = self.peek_head()?;
        Some((h.time, h.arrive_port().ok_or_else(|| h.event())))
    }

    /// Removes the earliest event, which must be a link event (`Arrive` or `TxDone`) just
    /// returned by [`Self::peek`].
    #[inline]
    pub fn pop_net_head(&mut self) {
        self.net.pop();
    }

    /// Replaces the earliest event, a link event just returned by [`Self::peek`], by `event`
    /// at `time` (a link event too). The same as popping it and pushing the new one in one
    /// sift instead of two: the next packet on a wire.
    #[inline]
    pub fn replace_net_head(&mut self, time: SimTime, event: Event) {
        debug_assert!(self.net.head() < self.timers.head(), "the earliest event is not a link event");
        self.net.replace_top(Self::net_entry(time, event).0);
    }

    /// The ports whose wire holds packets (each has one `Arrive` event pending), in no
    /// particular order: a walk over the link heap, whose size follows the busy ports.
    pub fn ports_with_packets_on_the_wire(&self) -> impl Iterator<Item = u32> + '_ {
        self.net.as_slice().iter().filter_map(|&e| arrive_port(Entry(e).key()))
    }

    /// The ports named by the link heap's entries at positions 1 and 2 of its array (the head's
    /// children): a read-only look for the run loop's prefetches (`sim::prefetch`). Which event
    /// comes after the head is not known without a pop; the head's children are the likeliest.
    /// An `Arrive` and a `TxDone` both touch their port next, so the kind is not decoded; a
    /// missing entry gives `DATA_MASK`, a port id only a network of `MAX_PORTS` ports has (the
    /// caller's bounds check skips it elsewhere, and a prefetch of a real port is harmless).
    #[inline(always)]
    pub fn ports_after_head(&self) -> [u32; 2] {
        self.net.head_children().map(|e| (Entry(e).key() & DATA_MASK) as u32)
    }

    /// Time of the earliest event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        Some(self.head()?.time())
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.net.len() + self.timers.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.net.is_empty() && self.timers.is_empty()
    }

    /// The timer `k` places after the earliest in the timer wheel's current slot, if it is a
    /// flow timer, as (time, flow, slot), left in the queue: a look further ahead for the
    /// timer path's prefetches (`Simulation::prefetch_timers_ahead`). Approximate by design:
    /// it never looks past the slot and may skip short timers pushed into it after it was
    /// sorted.
    #[inline]
    pub fn peek_flow_timer_ahead(&self, k: usize) -> Option<(SimTime, u32, u8)> {
        flow_timer_of(self.timers.ahead_in_slot(k)?)
    }

    /// The earliest timer-store event if it is a flow timer, as (time, flow, slot), left in the
    /// queue: a read-only look for the run loop's prefetches (`sim::prefetch`). It may not be
    /// the next event overall (link events come between).
    #[inline]
    pub fn peek_flow_timer(&self) -> Option<(SimTime, u32, u8)> {
        flow_timer_of(self.timers.peek()?)
    }
}

/// The (time, flow, slot) of timer-store key `key` if it is a flow timer.
#[inline]
fn flow_timer_of(key: u128) -> Option<(SimTime, u32, u8)> {
    let e = Entry(key);
    match decode(e.key()) {
        Event::FlowTimer { flow, timer } => Some((e.time(), flow, timer)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn every_event_kind_round_trips_through_the_packing() {
        let evs = [
            Event::TxDone { port: (MAX_PORTS - 1) as u32 },
            Event::Arrive { port: 7 },
            Event::FlowTimer { flow: (MAX_FLOWS - 1) as u32, timer: 3 },
            // The pacing timer, the highest slot (it used to wrap to slot 0).
            Event::FlowTimer { flow: 9, timer: (crate::transport::TIMER_SLOTS - 1) as u8 },
            Event::PortTimer { port: 5 },
            Event::Sample,
            Event::RouteChange { idx: 2 },
        ];
        let mut q = EventQueue::default();
        for e in evs {
            q.push(1, e);
        }
        let back: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(back, evs);
    }

    #[test]
    fn peek_arrive_names_the_port_of_an_arrival_and_decodes_every_other_kind() {
        let mut q = EventQueue::default();
        q.push(5, Event::Arrive { port: (MAX_PORTS - 1) as u32 });
        q.push(3, Event::TxDone { port: 4 });
        q.push(4, Event::FlowTimer { flow: 2, timer: 1 });
        assert_eq!(q.peek_arrive(), Some((3, Err(Event::TxDone { port: 4 }))));
        q.pop();
        assert_eq!(q.peek_arrive(), Some((4, Err(Event::FlowTimer { flow: 2, timer: 1 }))));
        q.pop();
        assert_eq!(q.peek_arrive(), Some((5, Ok((MAX_PORTS - 1) as u32))));
        q.pop();
        assert_eq!(q.peek_arrive(), None);
    }

    #[test]
    fn at_one_picosecond_transmit_completions_come_first_then_arrivals_by_port_then_the_rest_fifo() {
        let mut q = EventQueue::default();
        q.push(9, Event::FlowTimer { flow: 1, timer: 0 });
        q.push(9, Event::Arrive { port: 5 });
        q.push(9, Event::Sample);
        q.push(9, Event::Arrive { port: 2 });
        q.push(9, Event::TxDone { port: 7 });
        q.push(8, Event::FlowTimer { flow: 3, timer: 0 });
        q.push(9, Event::TxDone { port: 4 });
        q.push(9, Event::FlowTimer { flow: 0, timer: 2 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (8, Event::FlowTimer { flow: 3, timer: 0 }),
                (9, Event::TxDone { port: 4 }),
                (9, Event::TxDone { port: 7 }),
                (9, Event::Arrive { port: 2 }),
                (9, Event::Arrive { port: 5 }),
                (9, Event::FlowTimer { flow: 1, timer: 0 }),
                (9, Event::Sample),
                (9, Event::FlowTimer { flow: 0, timer: 2 }),
            ]
        );
    }

    #[test]
    fn the_ports_with_packets_on_the_wire_are_those_with_an_arrival_pending() {
        let mut q = EventQueue::default();
        q.push(5, Event::Arrive { port: 9 });
        q.push(3, Event::TxDone { port: 4 });
        q.push(4, Event::FlowTimer { flow: 3, timer: 1 });
        q.push(2, Event::PortTimer { port: 6 });
        q.push(7, Event::Arrive { port: 3 });
        let mut ports: Vec<u32> = q.ports_with_packets_on_the_wire().collect();
        ports.sort();
        assert_eq!(ports, vec![3, 9]);
        // The next packet on port 9's wire replaces its arrival; port 3's last packet arrives.
        for _ in 0..3 {
            q.pop();
        }
        assert_eq!(q.peek(), Some((5, Event::Arrive { port: 9 })));
        q.replace_net_head(8, Event::Arrive { port: 9 });
        assert_eq!(q.peek(), Some((7, Event::Arrive { port: 3 })));
        q.pop_net_head();
        assert_eq!(q.ports_with_packets_on_the_wire().collect::<Vec<_>>(), vec![9]);
    }

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        for p in 0..5 {
            q.push(7, Event::TxDone { port: p });
        }
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        let expect: Vec<_> = (0..5).map(|p| Event::TxDone { port: p }).collect();
        assert_eq!(order, expect);
    }

    proptest! {
        /// Replacing the head link event is the same as popping it and pushing the new event:
        /// two queues, one driven each way, pop the same sequence.
        #[test]
        fn replacing_the_head_equals_pop_then_push(ops in proptest::collection::vec((0u8..3, 0u64..40), 1..300)) {
            let (mut a, mut b) = (EventQueue::default(), EventQueue::default());
            let mut now = 0;
            for (i, (op, dt)) in ops.into_iter().enumerate() {
                let ev = if i % 4 == 0 { Event::FlowTimer { flow: i as u32, timer: 0 } } else { Event::Arrive { port: i as u32 } };
                match op {
                    0 => {
                        a.push(now + dt, ev);
                        b.push(now + dt, ev);
                    }
                    1 => prop_assert_eq!(a.pop(), b.pop()),
                    _ => {
                        // Only when the head is a link event, as in the run loop.
                        if let Some((t, Event::Arrive { .. })) = a.peek() {
                            now = t;
                            let next = Event::Arrive { port: 1_000 + i as u32 };
                            a.replace_net_head(t + dt, next);
                            b.pop();
                            b.push(t + dt, next);
                        }
                    }
                }
            }
            while let Some(x) = a.pop() {
                prop_assert_eq!(Some(x), b.pop());
            }
            prop_assert!(b.pop().is_none());
        }


        /// The heap agrees with a BTreeMap shadow keyed by (time, arrivals first, seq) under
        /// any interleaving (arrivals here take increasing port numbers, so seq is port order).
        #[test]
        fn heap_matches_btreemap_shadow(ops in proptest::collection::vec((any::<bool>(), 0u64..50), 1..400)) {
            let mut q = EventQueue::default();
            let mut shadow: BTreeMap<(u64, bool, u64), u32> = BTreeMap::new();
            let mut seq = 0u64;
            for (push, t) in ops {
                if push {
                    let ev = if seq.is_multiple_of(3) { Event::FlowTimer { flow: seq as u32, timer: 1 } } else { Event::Arrive { port: seq as u32 } };
                    q.push(t, ev);
                    shadow.insert((t, matches!(ev, Event::FlowTimer { .. }), seq), seq as u32);
                    seq += 1;
                } else {
                    let got = q.pop();
                    let want = shadow.pop_first();
                    match (got, want) {
                        (None, None) => {}
                        (Some((t1, Event::Arrive { port })), Some(((t2, _, _), p2))) => {
                            prop_assert_eq!(t1, t2);
                            prop_assert_eq!(port, p2);
                        }
                        (Some((t1, Event::FlowTimer { flow, .. })), Some(((t2, _, _), p2))) => {
                            prop_assert_eq!(t1, t2);
                            prop_assert_eq!(flow, p2);
                        }
                        other => prop_assert!(false, "mismatch {:?}", other),
                    }
                }
            }
        }
    }
}
