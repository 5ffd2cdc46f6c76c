//! An output port: a queue discipline, a transmitter, hooks, and the wire behind it.
//!
//! The port owns its bookkeeping (the split of ns-3's QueueDisc base class): it counts arrivals,
//! transmissions, drops by reason and marks, tracks occupancy over time, calls its hooks, and
//! keeps the packets on the wire in a ring. The discipline only decides (which packet to drop or
//! mark, which to send next); the engine only moves packets between ports and flows. A link has
//! one rate and one delay, so packets leave the wire in the order they entered it: only the head
//! of the ring needs an event in the heap.
//!
//! Two paths, with the same results (DESIGN.md, "Event order"):
//! - eager: the transmitter's completions are `TxDone` events; the discipline holds the waiting
//!   packets. Every port with hooks, a queue trace, a capture or a discipline other than
//!   drop-tail, and every port when [`Port::force_eager`] was called.
//! - lazy (departures computed at arrival): a drop-tail FIFO port's departure times follow from
//!   the arrivals alone (Lindley's recursion: a packet starts when it arrives or when the packet
//!   ahead of it ends, whichever is later), so an accepted packet goes straight onto the wire
//!   with its arrival time at the far end, and no `TxDone` event exists. The last
//!   `waiting_pkts` packets on the wire are the ones still waiting; [`Port::advance`] starts
//!   those whose transmission begins at or before a time (the same-picosecond rule: a port's
//!   transmit completions before any arrival to it), recording the occupancy and transmit
//!   statistics at each start instant, exactly as the eager path's `TxDone` would. The engine
//!   advances a lazy port before every arrival to it and every port before anything reads them
//!   (samples, the end of `Simulation::run_until`).

use crate::metrics::{PortStats, QueueTrace};
use crate::net::packet::{Ecn, Packet, PacketSlab};
use crate::port_hooks::{AnyHook, HookCtx, HookEmit, PortHook, PortHooks, PortView};
use crate::queue::{AnyQueue, DropReason, QueueAction, QueueDiscipline, Verdict};
use crate::sim::{ps_to_secs, tx_time_fast, Event, EventQueue, SimRng, SimTime};
use crate::net::loss::AnyLoss;
use crate::net::wire::{OnWire, Wire};

/// What a port needs from the engine while it works: the event heap, the queue trace and the
/// buffer where hooks leave control packets for the engine to route.
pub struct PortEnv<'a> {
    /// The event heap (the port schedules its own `TxDone` and `Arrive` events).
    pub events: &'a mut EventQueue,
    /// Queue-change records of traced ports.
    pub trace: &'a mut QueueTrace,
    /// Control packets emitted by hooks, routed by the engine after the port returns.
    pub hook_out: &'a mut Vec<HookEmit>,
    /// Packets the captured ports started to transmit (metrics.capture): (time, port, copy).
    pub capture: &'a mut Vec<(SimTime, u32, Packet)>,
    /// Slots the discipline removed besides the arrival (CoDel head drops, FQ-CoDel overflow
    /// drops): counted here, freed and charged to their flows by the engine.
    pub dropped: &'a mut Vec<u32>,
}

/// One simplex channel's sending end. Its name, `from->to` by node names, is derived from its
/// two nodes when needed ([`crate::Simulation::port_name`]) rather than stored in every port
/// (issue 13: 24 bytes and an allocation per port).
///
/// Layout (issue 13, round 8): at large N the ports do not fit the cache and every packet-hop
/// misses on two of them (the one the packet leaves, the one it reaches), so the fields are in
/// declaration order (`repr(C)`) and the port starts a cache line. The first line holds what a
/// packet reaching the far end reads (the wire, and the lazy port's advance test) and what the
/// idle fast path reads besides the counters; the second the counters, the occupancy trackers
/// and the waiting bytes (every arrival and every start of transmission); the rest is cold on the
/// lazy path (the discipline, hooks, random streams, the nodes, the eager path's flags). A port
/// is four lines (256 bytes, 248 before). `the_per_packet_fields_of_a_port_fill_its_first_two_cache_lines` checks it.
#[repr(C, align(64))]
pub struct Port {
    // ---- line 0: the wire and the transmitter ----
    /// Packets on the wire: (arrival time at the far end, packet slot), in order.
    pub wire: Wire,
    /// When the transmitter finishes the packet it is sending (in the past when idle).
    pub busy_until: SimTime,
    /// Serialisation time per byte if exact, else 0 (see `sim::time::exact_ps_per_byte`; the
    /// division by [`Self::rate_bps`] then reads a cold line).
    pub ps_per_byte: u64,
    /// Propagation delay, ps.
    pub delay_ps: SimTime,
    /// Packets waiting. The one count the engine, the hooks and the statistics read (the
    /// discipline keeps its own for its decisions; a debug assertion checks they agree).
    pub waiting_pkts: u32,
    /// Size of the packet being serialised (valid while `busy_until` is in the future).
    pub in_service_bytes: u32,
    /// On a lazy port, arrivals of at most this many bytes fit the empty buffer: the idle fast
    /// path's bound (`fast_below_bytes` - 1, at most `u32::MAX`: the same test on a `u32` size).
    lazy_max_bytes: u32,
    /// Departures computed at arrival (the lazy path, see the module header): a drop-tail port
    /// without hooks, queue trace or capture, unless forced eager. Set by [`Self::choose_path`].
    lazy: bool,
    /// The wire loses packets (`draws` holds a loss model): read at every packet's arrival at
    /// the far end instead of the cold pointer.
    lossy: bool,
    // ---- line 1: what every arrival and every start of transmission counts ----
    /// Counters.
    pub stats: PortStats,
    /// Bytes waiting.
    pub waiting_bytes: u64,
    // ---- cold on the lazy path ----
    /// The queue discipline.
    pub queue: AnyQueue,
    /// Hooks, in scenario order (one pointer: most ports have none, and it never grows).
    pub hooks: PortHooks,
    /// The random streams of a port that draws (see [`PortDraws`]); none on the many that do
    /// not (issue 13: drop-tail ports without wire loss, such as every host's).
    pub draws: Option<Box<PortDraws>>,
    /// Transmission rate, bit/s.
    pub rate_bps: u64,
    /// Arrivals smaller than this many bytes may take the idle fast path
    /// ([`Self::try_send_at_once`]): the drop-tail limit for an empty buffer on a drop-tail port
    /// without hooks, 0 on every other port (no packet is that small). One compare in the
    /// per-packet path instead of a look at the hooks, the discipline and its limit.
    fast_below_bytes: u64,
    /// Node the port belongs to.
    pub from_node: u32,
    /// Node at the far end of the wire.
    pub to_node: u32,
    /// A `TxDone` event is in the heap. The port schedules one only when packets wait behind
    /// the one being sent (or hooks want the idle instant); a packet that finds the port idle is
    /// sent at once, so lightly loaded ports (access links, the ack path) cost one event per
    /// packet instead of two.
    pub txdone_pending: bool,
    /// Record every queue change (metrics.queue_trace).
    pub traced: bool,
    /// Record every packet transmitted (metrics.capture).
    pub captured: bool,
    /// The discipline reports actions besides its verdicts (CoDel, FQ-CoDel): drain them.
    pub queue_acts: bool,
}

/// The random streams of a port, on the heap for the ports that draw random numbers.
pub struct PortDraws {
    /// The discipline's stream (drawn only if [`QueueDiscipline::draws_random`]; a lossy
    /// drop-tail port keeps it too, unused).
    pub queue_rng: SimRng,
    /// Random loss on the wire (`links[].loss`) and its own random stream.
    pub loss: Option<(AnyLoss, SimRng)>,
}

/// State of the stream that ports whose discipline draws no random numbers hand to it.
const STAND_IN_SEED: u128 = 1;

/// What happened to a packet handed to a port ([`Port::receive_lazy`], [`Port::receive_queued`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Queued or sent at once; the port now holds the slot.
    Accepted,
    /// Dropped; the caller frees the slot (the port has counted the drop).
    Dropped(DropReason),
}

impl Port {
    /// A port with empty counters, idle since time 0.
    #[allow(clippy::too_many_arguments)]
    /// `rng` is the discipline's stream, `loss` the wire's loss model with its own stream.
    pub fn new(from_node: u32, to_node: u32, rate_bps: u64, delay_ps: SimTime, queue: AnyQueue, hooks: Vec<AnyHook>, rng: SimRng, loss: Option<(AnyLoss, SimRng)>) -> Self {
        let queue_acts = queue.may_act();
        let draws = (queue.draws_random() || loss.is_some()).then(|| Box::new(PortDraws { queue_rng: rng, loss }));
        let fast_below_bytes = match &queue {
            AnyQueue::DropTail(q) if hooks.is_empty() && !queue_acts => q.empty_admits_below_bytes(),
            _ => 0,
        };
        let lossy = draws.as_ref().is_some_and(|d| d.loss.is_some());
        Port {
            lazy: fast_below_bytes > 0,
            lazy_max_bytes: Self::lazy_max_bytes(fast_below_bytes),
            lossy,
            fast_below_bytes,
            queue_acts,
            from_node,
            to_node,
            rate_bps,
            ps_per_byte: crate::sim::time::exact_ps_per_byte(rate_bps),
            delay_ps,
            queue,
            hooks: PortHooks::new(hooks),
            busy_until: 0,
            txdone_pending: false,
            wire: Wire::default(),
            draws,
            waiting_pkts: 0,
            waiting_bytes: 0,
            in_service_bytes: 0,
            stats: PortStats::default(),
            traced: false,
            captured: false,
        }
    }

    /// Chooses the lazy or the eager path after `traced` and `captured` are set (the builder
    /// calls it once, before the run).
    pub fn choose_path(&mut self) {
        self.lazy = self.fast_below_bytes > 0 && !self.traced && !self.captured;
    }

    /// Puts the port on the eager path (`TxDone` events) whatever it is: the switch tests use
    /// to check that both paths give the same results. Only before the run starts.
    pub fn force_eager(&mut self) {
        debug_assert!(self.wire.is_empty() && self.waiting_pkts == 0);
        self.lazy = false;
    }

    /// The lazy path's form of the idle fast path's bound: arrivals of at most this many bytes
    /// are below `fast_below_bytes` (one compare of the `u32` size, in the port's first line).
    fn lazy_max_bytes(fast_below_bytes: u64) -> u32 {
        fast_below_bytes.saturating_sub(1).min(u32::MAX as u64) as u32
    }

    /// Asks for the port's first two cache lines, the ones a packet's arrival at a lazy port
    /// reads and writes (see "Layout" at [`Port`]); the rest is cold on that path. A hint only.
    #[inline(always)]
    pub fn prefetch_hot_lines(&self) {
        let at = self as *const Port as *const u8;
        crate::sim::prefetch::prefetch_read(at);
        crate::sim::prefetch::prefetch_read(at.wrapping_add(crate::sim::prefetch::LINE_BYTES));
    }

    /// True if the port computes departures at arrival (see the module header).
    #[inline]
    pub fn is_lazy(&self) -> bool {
        self.lazy
    }

    /// Lazy path: starts the transmission of every waiting packet whose start time is at or
    /// before `now` (the transmitter is free then: the packet ahead of it ended), in order, and
    /// records what the eager path records at each such `TxDone`. Nothing on an eager port (its
    /// waiting packets are in the discipline and its departures are events).
    #[inline]
    pub fn advance(&mut self, now: SimTime) {
        // The emptiness test first, on its own: most arrivals find nothing waiting, and the
        // engine's receive path then knows it (`receive_lazy` tests it again) instead of
        // combining three flags before a branch (issue 13, round 13).
        if self.lazy && self.waiting_pkts > 0 {
            while self.waiting_pkts > 0 && self.busy_until <= now {
                self.start_next_waiting();
            }
        }
    }

    /// Lazy path: the oldest waiting packet starts at `busy_until`, when the one ahead of it
    /// ended. Its arrival time at the far end was fixed at enqueue, so its end is that less the
    /// delay, and the busy time is exactly the eager path's `tx_time_fast`.
    #[inline]
    fn start_next_waiting(&mut self) {
        let start = self.busy_until;
        let w = *self.wire.nth_from_back(self.waiting_pkts as usize);
        self.waiting_pkts -= 1;
        self.waiting_bytes -= w.size_bytes as u64;
        self.note_occupancy(start);
        let end = w.arrival_ps - self.delay_ps;
        self.stats.tx_pkts += 1;
        self.stats.tx_bytes += w.size_bytes as u64;
        self.stats.busy_ps += end - start;
        self.in_service_bytes = w.size_bytes;
        self.busy_until = end;
    }

    /// Lazy path: packet `slot` of `size_bytes` arrives at `now`, after [`Self::advance`] to
    /// `now`. An idle port sends it at once; otherwise drop-tail admits it against the waiting
    /// packets, and an accepted packet goes onto the wire behind the last one with the arrival
    /// time its departure will give it. Always inlined: the engine's per-hop path calls it
    /// (a call cost about 14 instructions per hop of register saves under callgrind).
    #[inline(always)]
    pub fn receive_lazy(&mut self, id: u32, slot: u32, size_bytes: u32, now: SimTime, events: &mut EventQueue) -> Admission {
        debug_assert!(self.lazy);
        self.stats.arrivals_pkts += 1;
        self.stats.arrivals_bytes += size_bytes as u64;
        if size_bytes <= self.lazy_max_bytes && self.waiting_pkts == 0 && now >= self.busy_until {
            self.put_on_wire(id, slot, size_bytes, now, events);
            return Admission::Accepted;
        }
        self.enqueue_lazy(id, slot, size_bytes, now, events)
    }

    /// [`Self::receive_lazy`] when the transmitter is busy (or the packet does not fit an
    /// empty buffer).
    #[inline(never)]
    fn enqueue_lazy(&mut self, id: u32, slot: u32, size_bytes: u32, now: SimTime, events: &mut EventQueue) -> Admission {
        let fits = match &self.queue {
            AnyQueue::DropTail(q) => q.fits(self.waiting_pkts, self.waiting_bytes, size_bytes),
            _ => unreachable!("only drop-tail ports take the lazy path"),
        };
        if !fits {
            self.stats.count_drop(DropReason::Overflow);
            return Admission::Dropped(DropReason::Overflow);
        }
        // It starts when the packet ahead of it ends: the last waiting one, or the one in
        // service (the transmitter is busy: a packet that fits finds an idle one in
        // `receive_lazy`).
        let start = if self.waiting_pkts > 0 { self.wire.back().arrival_ps - self.delay_ps } else { self.busy_until };
        debug_assert!(start > now || self.waiting_pkts > 0);
        self.waiting_pkts += 1;
        self.waiting_bytes += size_bytes as u64;
        self.note_occupancy(now);
        let arrival_ps = start + tx_time_fast(size_bytes, self.rate_bps, self.ps_per_byte) + self.delay_ps;
        if self.wire.is_empty() {
            events.push(arrival_ps, Event::Arrive { port: id });
        }
        self.wire.push_back(OnWire { arrival_ps, slot, size_bytes });
        Admission::Accepted
    }

    /// True while a packet is being serialised at `now`.
    #[inline]
    pub fn busy(&self, now: SimTime) -> bool {
        now < self.busy_until
    }

    /// Packets waiting in the queue.
    #[inline]
    pub fn queue_len_pkts(&self) -> u32 {
        self.waiting_pkts
    }

    /// Time spent serialising up to `now`, ps: the busy time credited at each start of
    /// transmission, less what is still to come of the packet in service.
    pub fn busy_ps_at(&self, now: SimTime) -> SimTime {
        self.stats.busy_ps - self.busy_until.saturating_sub(now)
    }

    /// Bytes whose serialisation finished by `now` (a packet in service is not counted).
    pub fn serialised_bytes_at(&self, now: SimTime) -> u64 {
        if self.busy(now) { self.stats.tx_bytes - self.in_service_bytes as u64 } else { self.stats.tx_bytes }
    }

    #[inline]
    fn view(&self, now: SimTime) -> PortView {
        PortView { queue_pkts: self.waiting_pkts, queue_bytes: self.waiting_bytes, busy: self.busy(now), rate_bps: self.rate_bps }
    }

    /// Fast path: an idle drop-tail port without hooks, queue trace or capture sends an arrival
    /// that fits its empty buffer at once, and returns true (false: nothing was done, take
    /// [`Self::receive_queued`]). Enqueue-then-dequeue would leave the queue empty again and the
    /// occupancy statistics unchanged (the packet spends no time waiting), so only the arrival
    /// counts and the transmission remain. Needs only the event heap, so the engine calls it
    /// before it assembles a [`PortEnv`].
    #[inline]
    pub fn try_send_at_once(&mut self, id: u32, slot: u32, size_bytes: u32, now: SimTime, events: &mut EventQueue) -> bool {
        if (size_bytes as u64) < self.fast_below_bytes && self.waiting_pkts == 0 && now >= self.busy_until && !self.traced && !self.captured {
            // Without hooks a `TxDone` is scheduled only while packets wait, and a drop-tail
            // queue loses packets only by sending them: an empty queue has none pending.
            debug_assert!(!self.txdone_pending);
            self.stats.arrivals_pkts += 1;
            self.stats.arrivals_bytes += size_bytes as u64;
            self.put_on_wire(id, slot, size_bytes, now, events);
            return true;
        }
        false
    }

    /// An arrival at an eager port past the idle fast path ([`Self::try_send_at_once`]): hooks,
    /// the discipline's verdict, the queue. The engine tries the fast path first (its
    /// `port_receive`).
    pub fn receive_queued(&mut self, id: u32, slot: u32, packets: &mut PacketSlab, now: SimTime, env: &mut PortEnv) -> Admission {
        debug_assert!(!self.lazy);
        if self.txdone_pending && self.busy_until <= now {
            // The same-picosecond rule: this port's transmit completion at `now` comes before
            // any arrival to it. The event heap already orders `TxDone` before every other
            // event at a picosecond; this catches a packet a hook emitted from another port's
            // `TxDone` at the same picosecond. The `TxDone` still in the heap is then stale and
            // the engine skips it (see `Self::tx_done_is_due`).
            self.tx_done(id, packets, now, env);
        }
        let pkt = packets.get_mut(slot);
        if !self.hooks.is_empty() {
            let v = self.view(now);
            let was_marked = pkt.ce();
            for h in self.hooks.iter_mut() {
                h.on_arrival(pkt, &v, now);
            }
            if !was_marked && pkt.ce() {
                self.stats.count_mark();
            }
        }
        self.stats.arrivals_pkts += 1;
        self.stats.arrivals_bytes += pkt.size_bytes as u64;
        // A discipline that draws no random numbers gets a fixed stand-in stream (a debug
        // build checks that it stayed untouched).
        let mut stand_in = None;
        let rng = match self.draws.as_deref_mut() {
            Some(d) => &mut d.queue_rng,
            None => stand_in.insert(SimRng::new(STAND_IN_SEED)),
        };
        let verdict = self.queue.enqueue(slot, pkt, now, rng);
        debug_assert!(stand_in.is_none_or(|r| r == SimRng::new(STAND_IN_SEED)), "port {}->{}: a discipline drew from its stand-in stream", self.from_node, self.to_node);
        if !self.hooks.is_empty() {
            let mut ctx = HookCtx { now, port: self.view(now), node: self.from_node, out: env.hook_out };
            for h in self.hooks.iter_mut() {
                h.on_verdict(pkt, verdict, &mut ctx);
            }
        }
        match verdict {
            Verdict::Queued => {}
            Verdict::Marked => self.stats.count_mark(),
            Verdict::Dropped(reason) => {
                self.stats.count_drop(reason);
                return Admission::Dropped(reason);
            }
        }
        self.waiting_pkts += 1;
        self.waiting_bytes += pkt.size_bytes as u64;
        if self.queue_acts {
            self.take_queue_actions(packets, env.dropped);
        }
        if self.txdone_pending {
            self.queue_changed(id, now, env.trace);
        } else if now >= self.busy_until {
            // Idle port: the packet goes straight to the transmitter. It spends no time in the
            // queue, so the occupancy statistics do not see it.
            self.start_tx(id, packets, now, env);
        } else {
            self.queue_changed(id, now, env.trace);
            self.txdone_pending = true;
            env.events.push(self.busy_until, Event::TxDone { port: id });
        }
        Admission::Accepted
    }

    /// True if a `TxDone` event at `now` is this port's pending completion (false: it was
    /// handled early by an arrival at the same picosecond, see [`Self::receive_queued`]).
    #[inline]
    pub fn tx_done_is_due(&self, now: SimTime) -> bool {
        self.txdone_pending && self.busy_until == now
    }

    /// The transmitter finished (a `TxDone` event); send the next waiting packet.
    #[inline]
    pub fn tx_done(&mut self, id: u32, packets: &mut PacketSlab, now: SimTime, env: &mut PortEnv) {
        self.txdone_pending = false;
        self.start_tx(id, packets, now, env);
    }

    /// The transmitter of a port on the idle fast path (drop-tail, no hooks, not traced or
    /// captured) finished: sends the next waiting packet without a [`PortEnv`] and returns true.
    /// False (nothing done) for every other port: the engine calls [`Self::tx_done`].
    #[inline]
    pub fn tx_done_plain(&mut self, id: u32, packets: &PacketSlab, now: SimTime, events: &mut EventQueue) -> bool {
        if self.fast_below_bytes == 0 || self.traced || self.captured {
            return false;
        }
        self.txdone_pending = false;
        // As `start_tx` with no hooks, no queue actions and no trace: a drop-tail queue only
        // loses packets by sending them, and `TxDone` was scheduled because packets waited.
        let Some(slot) = self.queue.dequeue(now) else { return true };
        let size = packets.get(slot).size_bytes;
        self.waiting_pkts -= 1;
        self.waiting_bytes -= size as u64;
        self.note_occupancy(now);
        self.put_on_wire(id, slot, size, now, events);
        if self.waiting_pkts > 0 {
            self.txdone_pending = true;
            events.push(self.busy_until, Event::TxDone { port: id });
        }
        true
    }

    /// True if the packet now reaching the far end is lost on the wire (counted here).
    #[inline]
    pub fn lost_on_wire(&mut self) -> bool {
        use crate::net::loss::LossModel;
        if !self.lossy {
            return false;
        }
        match self.draws.as_deref_mut().and_then(|d| d.loss.as_mut()) {
            Some((model, rng)) => {
                let lost = model.lose(rng);
                if lost {
                    self.stats.count_link_loss();
                }
                lost
            }
            None => false,
        }
    }

    /// Removes the head of the wire. Called with its `Arrive` event still at the head of the
    /// event queue: the next packet's arrival replaces it there, or it is removed if the wire
    /// is now empty. A lazy port whose wire empties is advanced to `now`: every packet that
    /// waited has reached the far end, so it has started, and a lazy port with packets waiting
    /// always has packets on its wire (its `Arrive` event in the heap names it; the engine
    /// advances only those ports before it reads them, see `Simulation::advance_ports`).
    ///
    /// # Safety
    ///
    /// The wire is not empty (the port's `Arrive` event is pending: it exists exactly while
    /// packets are on the wire).
    #[inline]
    pub unsafe fn pop_wire(&mut self, id: u32, now: SimTime, events: &mut EventQueue) -> u32 {
        // SAFETY: the caller guarantees a packet on the wire.
        let (slot, next) = unsafe { self.wire.pop_front_and_next_arrival() };
        match next {
            Some(arrival_ps) => events.replace_net_head(arrival_ps, Event::Arrive { port: id }),
            None => {
                events.pop_net_head();
                self.advance(now);
                debug_assert!(!self.lazy || self.waiting_pkts == 0);
            }
        }
        slot
    }

    /// Applies what the discipline did besides deciding about the arrival or returning the next
    /// packet (see [`QueueAction`]). Returns true if it dropped any packet.
    #[inline]
    fn take_queue_actions(&mut self, packets: &mut PacketSlab, dropped: &mut Vec<u32>) -> bool {
        let mut any = false;
        while let Some(action) = self.queue.take_action() {
            match action {
                QueueAction::Marked(slot) => {
                    let pkt = packets.get_mut(slot);
                    if pkt.ecn != Ecn::Ce {
                        self.stats.count_mark();
                    }
                    pkt.ecn = Ecn::Ce;
                }
                QueueAction::Dropped(slot, reason) => {
                    any = true;
                    let size = packets.get(slot).size_bytes;
                    self.waiting_pkts -= 1;
                    self.waiting_bytes -= size as u64;
                    self.stats.count_drop(reason);
                    dropped.push(slot);
                }
            }
        }
        any
    }

    #[inline]
    fn queue_changed(&mut self, id: u32, now: SimTime, trace: &mut QueueTrace) {
        let (qp, qb) = (self.waiting_pkts, self.waiting_bytes);
        self.note_occupancy(now);
        if !self.hooks.is_empty() {
            let v = self.view(now);
            for h in self.hooks.iter_mut() {
                h.on_queue_change(&v, now);
            }
        }
        if self.traced {
            trace.t.push(ps_to_secs(now));
            trace.port.push(id);
            trace.queue_pkts.push(qp);
            trace.queue_bytes.push(qb);
        }
    }

    /// The occupancy statistics after a change of the queue at `now`.
    #[inline]
    fn note_occupancy(&mut self, now: SimTime) {
        let qp = self.waiting_pkts;
        let qb = self.waiting_bytes;
        debug_assert!(self.lazy || (qp, qb) == (self.queue.len_pkts(), self.queue.len_bytes()), "port {}->{}", self.from_node, self.to_node);
        self.stats.set_occupancy(now, qp, qb);
    }

    /// The transmitter is free: start sending the next packet, if any. Schedules `TxDone` only
    /// if more packets wait (or hooks want to see the transmitter go idle).
    #[inline]
    fn start_tx(&mut self, id: u32, packets: &mut PacketSlab, now: SimTime, env: &mut PortEnv) {
        let next = self.queue.dequeue(now);
        let dropped_at_head = self.queue_acts && self.take_queue_actions(packets, env.dropped);
        let Some(slot) = next else {
            if dropped_at_head {
                self.queue_changed(id, now, env.trace);
                return;
            }
            // The transmitter just went idle. Ports with hooks always schedule TxDone, so this
            // runs at the idle instant.
            if !self.hooks.is_empty() {
                let v = self.view(now);
                for h in self.hooks.iter_mut() {
                    h.on_idle(&v, now);
                }
            }
            return;
        };
        let pkt = packets.get(slot);
        self.waiting_pkts -= 1;
        self.waiting_bytes -= pkt.size_bytes as u64;
        self.queue_changed(id, now, env.trace);
        self.transmit(id, slot, packets, now, env);
    }

    /// Puts packet `slot` on the transmitter at `now` (the transmitter is free): hooks see the
    /// departure, the wire gets the packet, and `TxDone` is scheduled if packets wait.
    #[inline]
    fn transmit(&mut self, id: u32, slot: u32, packets: &mut PacketSlab, now: SimTime, env: &mut PortEnv) {
        let pkt = packets.get_mut(slot);
        if !self.hooks.is_empty() {
            let v = self.view(now);
            for h in self.hooks.iter_mut() {
                h.on_departure(pkt, &v, now);
            }
            let mut ctx = HookCtx { now, port: v, node: self.from_node, out: env.hook_out };
            for h in self.hooks.iter_mut() {
                h.on_dequeue(pkt, &mut ctx);
            }
        }
        if self.captured {
            env.capture.push((now, id, *pkt));
        }
        let size = pkt.size_bytes;
        self.put_on_wire(id, slot, size, now, env.events);
        if self.waiting_pkts > 0 || !self.hooks.is_empty() {
            self.txdone_pending = true;
            env.events.push(self.busy_until, Event::TxDone { port: id });
        }
    }

    /// The transmitter starts on packet `slot` of `size` bytes at `now`: counters, busy time,
    /// and the packet onto the wire (with an `Arrive` event if it is the only one there).
    /// Always inlined: a call costs about 15 instructions per packet-hop here (callgrind).
    #[inline(always)]
    fn put_on_wire(&mut self, id: u32, slot: u32, size: u32, now: SimTime, events: &mut EventQueue) {
        let tx = tx_time_fast(size, self.rate_bps, self.ps_per_byte);
        self.stats.tx_pkts += 1;
        self.stats.tx_bytes += size as u64;
        self.stats.busy_ps += tx;
        self.in_service_bytes = size;
        let arrival = now + tx + self.delay_ps;
        if self.wire.is_empty() {
            events.push(arrival, Event::Arrive { port: id });
        }
        self.wire.push_back(OnWire { arrival_ps: arrival, slot, size_bytes: size });
        self.busy_until = now + tx;
    }
}

#[cfg(test)]
mod tests {
    use crate::queue::droptail::{DropTail, DropTailConfig};
    use crate::queue::{BufferLimit, PortInfo};
    use crate::sim::units::Bytes;

    /// Every field a lazy port reads or writes per packet (the far end's arrival, the advance
    /// test, the idle fast path, a start of transmission, an enqueue) is in the port's first two
    /// cache lines, the wire and the advance test in the first, and the port starts a line.
    #[test]
    fn the_per_packet_fields_of_a_port_fill_its_first_two_cache_lines() {
        use super::Port;
        use crate::metrics::PortStats;
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<Port>(), 64);
        assert_eq!(size_of::<Port>(), 256, "four lines (the memory budget of issue 13 counts them)");
        let line_of = |at: usize, size: usize| {
            assert_eq!(at / 64, (at + size - 1) / 64, "a field at {at} of {size} B straddles two lines");
            at / 64
        };
        let stats = offset_of!(Port, stats);
        let fields = [
            ("wire", offset_of!(Port, wire), size_of::<crate::net::wire::Wire>(), 0),
            ("busy_until", offset_of!(Port, busy_until), 8, 0),
            ("ps_per_byte", offset_of!(Port, ps_per_byte), 8, 0),
            ("delay_ps", offset_of!(Port, delay_ps), 8, 0),
            ("waiting_pkts", offset_of!(Port, waiting_pkts), 4, 0),
            ("in_service_bytes", offset_of!(Port, in_service_bytes), 4, 0),
            ("lazy_max_bytes", offset_of!(Port, lazy_max_bytes), 4, 0),
            ("lazy", offset_of!(Port, lazy), 1, 0),
            ("lossy", offset_of!(Port, lossy), 1, 0),
            ("arrivals_pkts", stats + offset_of!(PortStats, arrivals_pkts), 8, 1),
            ("arrivals_bytes", stats + offset_of!(PortStats, arrivals_bytes), 8, 1),
            ("tx_pkts", stats + offset_of!(PortStats, tx_pkts), 8, 1),
            ("tx_bytes", stats + offset_of!(PortStats, tx_bytes), 8, 1),
            ("busy_ps", stats + offset_of!(PortStats, busy_ps), 8, 1),
            ("occupancy", stats + offset_of!(PortStats, occupancy), 8, 1),
            ("waiting_bytes", offset_of!(Port, waiting_bytes), 8, 1),
        ];
        for (name, at, size, line) in fields {
            assert_eq!(line_of(at, size), line, "{name} at {at}");
        }
        assert_eq!(size_of::<crate::net::wire::Wire>(), 24);
        assert!(offset_of!(Port, queue) >= 128 && offset_of!(Port, rate_bps) >= 128 && offset_of!(Port, draws) >= 128);
    }

    /// The idle fast path keeps the drop-tail limit as one number; it must admit exactly what
    /// the discipline's own test for an empty buffer admits, at and around every bound.
    #[test]
    fn the_fast_path_bound_admits_exactly_what_fits_an_empty_drop_tail_buffer() {
        let limits = [
            (None, None),
            (Some(0), None),
            (Some(1), None),
            (Some(100), Some(1500)),
            (None, Some(1)),
            (None, Some(0)),
            (Some(0), Some(9000)),
            (None, Some(u32::MAX as u64 + 7)),
        ];
        for (limit_pkts, limit_bytes) in limits {
            let cfg = DropTailConfig { limit: BufferLimit { limit_pkts, limit_bytes: limit_bytes.map(Bytes) } };
            let q = DropTail::new(&cfg, PortInfo { rate_bps: 1_000_000, delay_ps: 0 });
            let below = q.empty_admits_below_bytes();
            // The lazy path's form of the same bound: at most `below - 1`, as a `u32`.
            let lazy_max = super::Port::lazy_max_bytes(below);
            for size in [0u32, 1, 2, 1499, 1500, 1501, 8999, 9000, 9001, u32::MAX - 1, u32::MAX] {
                assert_eq!((size as u64) < below, q.admits_into_empty(size), "limits {limit_pkts:?} / {limit_bytes:?}, {size} B");
                if below > 0 {
                    assert_eq!(size <= lazy_max, q.admits_into_empty(size), "lazy bound, limits {limit_pkts:?} / {limit_bytes:?}, {size} B");
                }
            }
        }
    }
}
