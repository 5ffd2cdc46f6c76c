//! Flows: the two ends of a transport, its routes, timers, shaper and network-side counters, and
//! what happens to the packets a transport emits before they reach the first port (stamping,
//! counting, shaping). The engine (`simulation.rs`) only moves what a flow hands it.

use crate::metrics::stats::u63_to_f64;
use crate::metrics::{FlowStats, PacketTrace};
use crate::net::{Packet, PacketKind};
use crate::shaper::TokenBucket;
use crate::sim::{ps_to_secs, EventQueue, SimRng, SimTime, PS_PER_S};
use crate::traffic::{AnyWorkload, Workload};
use crate::transport::{AnyTransport, Direction, Transport, TransportCtx, NEVER, TIMER_SHAPER, TIMER_SLOTS};
use std::collections::VecDeque;

/// One timer slot of a flow: the deadline the transport wants (NEVER: disarmed) and the time of
/// the event already in the heap for it (NEVER: none). `repr(C)`: both words of a slot are
/// next to each other, so resolving a slot's event touches one cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct TimerSlot {
    /// Wanted deadline (NEVER: disarmed). The transport's, through [`TransportCtx`].
    pub deadline: SimTime,
    /// Time of the heap event (NEVER: none). The engine's.
    pub pending: SimTime,
}

/// Lazily cancelled timers of one flow: per slot the deadline the transport wants and the time
/// of the event already in the heap. A re-armed deadline later than the pending event costs no
/// heap operation: when the pending event fires it is pushed on to the new deadline. Indexing
/// (`timers[k]`) reads and writes slot `k`'s deadline, which is all a transport sees.
///
/// The slots hold their deadline and pending time side by side (`repr(C)` pairs; the two were
/// separate arrays until issue 13's round 8), so with the flow's layout (see [`Flow`]) the
/// retransmission slot (0) and the delayed-ack slot (1) lie in the flow's first cache line
/// with its transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct FlowTimers {
    /// The slots, by timer number (`transport::TIMER_*`).
    pub slots: [TimerSlot; TIMER_SLOTS],
}

impl Default for FlowTimers {
    fn default() -> Self {
        FlowTimers { slots: [TimerSlot { deadline: NEVER, pending: NEVER }; TIMER_SLOTS] }
    }
}

impl std::ops::Index<usize> for FlowTimers {
    type Output = SimTime;
    #[inline(always)]
    fn index(&self, k: usize) -> &SimTime {
        &self.slots[k].deadline
    }
}

impl std::ops::IndexMut<usize> for FlowTimers {
    #[inline(always)]
    fn index_mut(&mut self, k: usize) -> &mut SimTime {
        &mut self.slots[k].deadline
    }
}

/// What the heap event of a timer slot means when it pops ([`FlowTimers::resolve`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerState {
    /// Not the slot's pending event: an earlier push superseded it.
    Superseded,
    /// The slot was disarmed.
    Cancelled,
    /// The slot was re-armed later, at this deadline: the event moves on to it.
    Moved(SimTime),
    /// The deadline is due: the timer fires.
    Due,
}

impl FlowTimers {
    /// Arms slot `k` at `at` and pushes a heap event unless an earlier one is pending.
    #[inline]
    pub(crate) fn arm(&mut self, f: u32, k: u8, at: SimTime, events: &mut EventQueue) {
        let t = &mut self.slots[k as usize];
        t.deadline = at;
        if at < t.pending {
            t.pending = at;
            events.push_flow_timer(at, f, k);
        }
    }

    /// What slot `k`'s heap event at `at` means (changes nothing): the one rule for
    /// [`Flow::fire_timer`] and for the engine's look-ahead at the next timer (which prefetches
    /// the transport only for a timer that will fire).
    #[inline(always)]
    pub fn resolve(&self, k: usize, at: SimTime) -> TimerState {
        let t = &self.slots[k];
        if t.pending != at {
            TimerState::Superseded
        } else if t.deadline == NEVER {
            TimerState::Cancelled
        } else if t.deadline > at {
            TimerState::Moved(t.deadline)
        } else {
            TimerState::Due
        }
    }

    /// Every slot's deadline, by slot.
    pub fn deadlines(&self) -> impl Iterator<Item = SimTime> + '_ {
        self.slots.iter().map(|t| t.deadline)
    }

    /// Disarms every slot; pending events stay in the heap and resolve to nothing.
    pub fn disarm_all(&mut self) {
        for t in &mut self.slots {
            t.deadline = NEVER;
        }
    }

    /// Takes over the pending events of `old` (a reused flow slot whose stale events are still
    /// in the heap), keeping these deadlines.
    pub fn inherit_pending(&mut self, old: &FlowTimers) {
        for (t, o) in self.slots.iter_mut().zip(&old.slots) {
            t.pending = o.pending;
        }
    }
}

/// A per-flow shaper and the packets it holds back.
pub struct FlowShaper {
    /// The bucket.
    pub bucket: TokenBucket,
    /// Packets waiting for tokens.
    pub held: VecDeque<Packet>,
    /// Most packets it may hold (`simulation.max_shaper_pkts`); beyond it the run stops.
    pub max_held_pkts: usize,
    /// ECA weight when this is a WTP shaper (rate = weight / RLOAD, `shaper::wtp`).
    pub wtp_weight: Option<f64>,
}

/// The receiving host's side of ECA (MSR-TR-2001-100 s3.A.1): the last LOAD seen on the flow's
/// data, reflected as RLOAD on every reverse packet, or in a control packet when no reverse
/// packet left for `ECA_REFLECT_INTERVAL` (s5: every 100 ms). Done by the host's network layer,
/// so the transport is unchanged. Only flows with a WTP shaper reflect.
#[derive(Clone, Copy, Debug, Default)]
pub struct EcaReflect {
    /// Last LOAD seen on a delivered data packet.
    pub load: f32,
    /// When the destination last sent a reverse packet.
    pub last_reverse_at: SimTime,
}

/// Longest gap between load reflections (MSR-TR-2001-100 s5: every 100 ms).
pub const ECA_REFLECT_INTERVAL: SimTime = 100 * crate::sim::PS_PER_MS;
/// Size of a separate load-report control packet on the wire (a small UDP datagram).
pub const ECA_REPORT_BYTES: u32 = 40;

/// What a flow timer event means once the lazy cancellation is resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerAction {
    /// Superseded, cancelled or moved on: nothing to do.
    Nothing,
    /// The shaper may release held packets.
    Shaper,
    /// The workload starts.
    Start,
    /// A transport timer fired.
    Transport(u8),
}

/// One flow: its two ends, its routes and its counters.
///
/// Layout (issue 13, large N with start jitter): at 100,000 flows no flow stays in the 2 MiB
/// L2 and most flows sit in RTO backoff, so each wake-up (timer, transport, one packet sent and
/// usually dropped) pays an L3 access per distinct cache line of the flow it touches. The
/// fields are grouped by the path that touches them, and `repr(C, align(64))` keeps that order
/// and starts every flow of the `Vec` on a line (320 bytes):
/// - line 0 (0-63): what resolving a timer, a send and a drop read (transport, shaper, forward
///   route, priority, the started/done flags) and the retransmission and delayed-ack timer
///   slots (deadline and pending event side by side, [`FlowTimers`]), so that the run loop's
///   look-ahead at the next timer and the timer's own resolution read this line only;
/// - line 1: the other timer slots, the reverse route, the live-packet count, ECA's pointer;
/// - line 2: the first 64 bytes of `stats` (`FlowStats` is `repr(C)`): the sent and dropped
///   counters and the loss events, which the segment a timeout sends and its drop update;
/// - line 3: the delivery counters, the delay statistics, start and completion times;
/// - line 4: the start time, random stream, workload, name and end nodes.
#[repr(C, align(64))]
pub struct Flow {
    /// The transport.
    pub transport: AnyTransport,
    /// Optional shaper on the forward path.
    pub shaper: Option<Box<FlowShaper>>,
    /// Current forward route.
    pub fwd_route: u32,
    /// Priority written on every packet of the flow.
    pub priority: u8,
    /// The workload has been started.
    pub started: bool,
    /// Completion has been recorded.
    pub done: bool,
    /// Timers.
    pub timers: FlowTimers,
    /// Current reverse route.
    pub rev_route: u32,
    /// Packets of this flow in the network (injected, not yet delivered or dropped): a
    /// transfer's flow is freed only when none is left (`traffic::arrivals::engine`). Counted
    /// for transfers only (static flows are never freed): stays 0 on a static flow.
    pub live_pkts: u32,
    /// ECA load reflection (flows with a WTP shaper only).
    pub eca: Option<Box<EcaReflect>>,
    /// Network-side counters.
    pub stats: FlowStats,
    /// Start time of the workload.
    pub start: SimTime,
    /// Random stream.
    pub rng: SimRng,
    /// What the application offers the transport.
    pub workload: AnyWorkload,
    /// Name from the scenario.
    pub name: String,
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
}

/// What [`Flow::admit`] decided about a packet the transport sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// The packet enters the network now.
    Send,
    /// The shaper holds it.
    Held,
    /// The shaper already holds its bound (`simulation.max_shaper_pkts`): the run must stop.
    ShaperFull(usize),
}

impl Flow {
    /// Calls the transport with a context; what it sends lands in `out`. Returns the timer
    /// slots the transport armed (one bit per slot), for [`Flow::push_timers`].
    #[inline]
    pub fn call_transport(&mut self, now: SimTime, out: &mut Vec<(Packet, Direction)>, call: impl FnOnce(&mut AnyTransport, &mut TransportCtx)) -> u8 {
        let mut ctx = TransportCtx { now, out, timers: &mut self.timers, armed_slots: 0, rng: &mut self.rng, workload: &mut self.workload };
        call(&mut self.transport, &mut ctx);
        ctx.armed_slots
    }

    /// Pushes heap events for the timers in `armed_slots` (bits from [`Flow::call_transport`])
    /// whose deadline is earlier than what the heap holds, in slot order. Only an armed slot
    /// can have moved earlier, so the others are not looked at; most calls re-arm only the
    /// retransmission timer, later than its pending event.
    #[inline(always)]
    pub fn push_timers(&mut self, f: u32, armed_slots: u8, events: &mut EventQueue) {
        let mut left = armed_slots;
        while left != 0 {
            let k = left.trailing_zeros() as usize;
            left &= left - 1;
            let t = &mut self.timers.slots[k];
            if t.deadline < t.pending {
                t.pending = t.deadline;
                events.push_flow_timer(t.deadline, f, k as u8);
            }
        }
    }

    /// Notes completion of a finite workload at `now`; true the first time it is complete.
    #[inline]
    pub fn note_completion(&mut self, now: SimTime) -> bool {
        if !self.done && self.transport.is_finished() {
            self.done = true;
            self.stats.set_completed_at(now);
            return true;
        }
        false
    }

    /// Resolves a timer event of slot `slot` firing at `now` ([`FlowTimers::resolve`]).
    #[inline(always)]
    pub fn fire_timer(&mut self, f: u32, slot: u8, now: SimTime, events: &mut EventQueue) -> TimerAction {
        let k = slot as usize;
        match self.timers.resolve(k, now) {
            TimerState::Superseded => return TimerAction::Nothing,
            TimerState::Cancelled => {
                self.timers.slots[k].pending = NEVER;
                return TimerAction::Nothing;
            }
            TimerState::Moved(dl) => {
                self.timers.slots[k].pending = dl;
                events.push_flow_timer(dl, f, slot);
                return TimerAction::Nothing;
            }
            TimerState::Due => {}
        }
        self.timers.slots[k] = TimerSlot { deadline: NEVER, pending: NEVER };
        if slot == TIMER_SHAPER {
            return TimerAction::Shaper;
        }
        if !self.started {
            self.started = true;
            self.stats.set_started_at(now);
            self.transport.open(&self.name, self.workload.total_bytes().unwrap_or(u64::MAX));
            self.workload.start(now);
            return TimerAction::Start;
        }
        TimerAction::Transport(slot)
    }

    /// Stamps a packet the transport of flow `f` sent, counts it, and passes it through the
    /// shaper (which keeps a copy when it holds the packet back).
    #[inline(always)]
    pub fn admit(&mut self, f: u32, pkt: &mut Packet, dir: Direction, now: SimTime, events: &mut EventQueue) -> Admit {
        pkt.flow = f;
        pkt.hop = 0;
        if pkt.priority == 0 {
            pkt.priority = self.priority;
        }
        match dir {
            Direction::Forward => {
                pkt.route = self.fwd_route;
                if pkt.kind == PacketKind::Data {
                    self.stats.data_sent_pkts += 1;
                    self.stats.data_sent_bytes += pkt.size_bytes as u64;
                } else {
                    self.stats.rev_sent_pkts += 1;
                }
                if let Some(sh) = self.shaper.as_mut() {
                    if !sh.held.is_empty() {
                        if sh.held.len() >= sh.max_held_pkts {
                            // The run stops here. The packet is already counted as sent, so it
                            // stays counted as held by the host (one past the bound) and the
                            // flow still conserves packets.
                            sh.held.push_back(*pkt);
                            return Admit::ShaperFull(sh.max_held_pkts);
                        }
                        sh.held.push_back(*pkt);
                        return Admit::Held;
                    }
                    if let Err(ready) = sh.bucket.try_take(now, pkt.size_bytes) {
                        sh.held.push_back(*pkt);
                        self.timers.arm(f, TIMER_SHAPER, ready, events);
                        return Admit::Held;
                    }
                }
            }
            Direction::Reverse => {
                pkt.route = self.rev_route;
                if let Some(e) = self.eca.as_mut() {
                    pkt.rload = e.load;
                    e.last_reverse_at = now;
                }
                self.stats.rev_sent_pkts += 1;
            }
        }
        Admit::Send
    }

    /// The next held packet the shaper lets go at `now`, if any; arms the shaper timer when the
    /// next one must wait.
    #[inline]
    pub fn release_one(&mut self, f: u32, now: SimTime, events: &mut EventQueue) -> Option<Packet> {
        let sh = self.shaper.as_mut()?;
        let pkt = *sh.held.front()?;
        match sh.bucket.try_take(now, pkt.size_bytes) {
            Ok(()) => {
                sh.held.pop_front();
                Some(pkt)
            }
            Err(ready) => {
                self.timers.arm(f, TIMER_SHAPER, ready, events);
                None
            }
        }
    }

    /// ECA at the destination: notes the LOAD of a delivered data packet and returns a load
    /// report to send back if no reverse packet carried one for `ECA_REFLECT_INTERVAL`.
    #[inline]
    pub fn eca_note_load(&mut self, pkt: &Packet, now: SimTime) -> Option<Packet> {
        let e = self.eca.as_mut()?;
        e.load = pkt.load;
        if now.saturating_sub(e.last_reverse_at) < ECA_REFLECT_INTERVAL {
            return None;
        }
        Some(Packet { kind: PacketKind::Control, size_bytes: ECA_REPORT_BYTES, sent_at: now, ..Default::default() })
    }

    /// ECA at the source: a reverse packet's RLOAD sets the WTP rate. True if the rate changed.
    #[inline]
    pub fn eca_apply_rload(&mut self, pkt: &Packet, now: SimTime) -> bool {
        let Some(sh) = self.shaper.as_mut() else { return false };
        let Some(w) = sh.wtp_weight else { return false };
        match crate::shaper::wtp::wtp_rate_bps(w, pkt.rload) {
            Some(r) if r != sh.bucket.rate_bps() => {
                sh.bucket.set_rate(now, r);
                true
            }
            _ => false,
        }
    }

    /// Packets held by the shaper (sent by the transport, not yet in the network).
    pub fn shaper_held_pkts(&self) -> u64 {
        self.shaper.as_ref().map_or(0, |s| s.held.len() as u64)
    }

    /// Counts a packet of this flow reaching the end of its route at `now`.
    #[inline(always)]
    pub fn record_delivery(&mut self, pkt: &Packet, now: SimTime, trace: Option<&mut PacketTrace>) {
        let fs = &mut self.stats;
        if pkt.kind == PacketKind::Data {
            fs.data_delivered_pkts += 1;
            let d = now - pkt.sent_at;
            // ps_to_secs(d), with the conversion for values below 2^63 (a delay is).
            let d_s = u63_to_f64(d) / PS_PER_S as f64;
            let ds = fs.delay.get_or_insert_with(crate::metrics::DelayStats::new_boxed);
            ds.secs.add(d_s);
            ds.hist_ns.add(d / 1000, 1);
            // Congestion experienced by either signal: the DECbit / ATN bit (`flags::CE`) or
            // the IP ECN codepoint CE (RFC 3168) that RED, CoDel, PIE and FQ-CoDel set.
            if pkt.ce_any() {
                fs.data_ce_pkts += 1;
            }
            if let Some(tr) = trace {
                tr.t.push(ps_to_secs(now));
                tr.flow.push(pkt.flow);
                tr.delay_s.push(d_s);
                tr.size_bytes.push(pkt.size_bytes);
                tr.seq.push(pkt.seq);
                tr.ce.push(pkt.ce_any());
                tr.retx.push(pkt.flags & crate::net::packet::flags::RETX != 0);
            }
        } else {
            fs.rev_delivered_pkts += 1;
        }
    }

    /// Counts a packet of this flow dropped in the network.
    #[inline]
    pub fn record_drop(&mut self, kind: PacketKind, sent_at: SimTime) {
        if kind == PacketKind::Data {
            self.stats.data_dropped_pkts += 1;
            let rtt_ps = self.transport.srtt_ps();
            self.stats.loss_events.on_loss(sent_at, rtt_ps);
        } else {
            self.stats.rev_dropped_pkts += 1;
        }
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use crate::metrics::loss_events::LossEvents;
    use crate::transport::{TIMER_DELACK, TIMER_RTO};
    use std::mem::{align_of, offset_of, size_of};

    /// Cache lines (64 bytes, from the flow's start) that `len` bytes at `off` cover.
    fn lines(off: usize, len: usize) -> std::ops::RangeInclusive<usize> {
        off / 64..=(off + len - 1) / 64
    }

    #[test]
    fn a_wake_up_its_segment_and_its_drop_touch_two_cache_lines_of_the_flow() {
        // What `fire_timer` (and the run loop's look-ahead, `FlowTimers::resolve`), `admit`,
        // `push_timers`, `note_completion` and `record_drop` read or write for a flow in RTO
        // backoff whose retransmission is dropped (issue 13).
        let stats = offset_of!(Flow, stats);
        let timers = offset_of!(Flow, timers);
        let rto = timers + TIMER_RTO as usize * size_of::<TimerSlot>();
        let touched = [
            ("transport", offset_of!(Flow, transport), size_of::<AnyTransport>()),
            ("shaper", offset_of!(Flow, shaper), 8),
            ("fwd_route", offset_of!(Flow, fwd_route), 4),
            ("priority", offset_of!(Flow, priority), 1),
            ("started", offset_of!(Flow, started), 1),
            ("done", offset_of!(Flow, done), 1),
            ("rto deadline", rto + offset_of!(TimerSlot, deadline), 8),
            ("rto pending", rto + offset_of!(TimerSlot, pending), 8),
            ("data_sent_pkts", stats + offset_of!(FlowStats, data_sent_pkts), 8),
            ("data_sent_bytes", stats + offset_of!(FlowStats, data_sent_bytes), 8),
            ("data_dropped_pkts", stats + offset_of!(FlowStats, data_dropped_pkts), 8),
            ("loss_events", stats + offset_of!(FlowStats, loss_events), size_of::<LossEvents>()),
        ];
        let mut all: Vec<usize> = touched.iter().flat_map(|&(_, off, len)| lines(off, len)).collect();
        all.sort();
        all.dedup();
        assert_eq!(all, [0, 2], "{touched:?}");
        assert_eq!(align_of::<Flow>(), 64, "every flow of the Vec starts on a line");
        assert_eq!(size_of::<Flow>(), 320, "five lines (the memory budget of issue 13 counts them)");
    }

    #[test]
    fn resolving_a_timer_and_reading_its_transport_touch_the_flows_first_line_only() {
        // The look-ahead at the next timer (`Simulation::prefetch_next_timer_state`) reads the
        // slot's deadline and pending time and then the transport's pointer; the receiver's
        // delayed-ack slot is there too.
        let timers = offset_of!(Flow, timers);
        let slots_end = timers + (TIMER_DELACK as usize + 1) * size_of::<TimerSlot>();
        assert!(offset_of!(Flow, transport) + size_of::<AnyTransport>() <= 64);
        assert!(slots_end <= 64, "timer slots 0 and 1 end at byte {slots_end}");
        assert_eq!(size_of::<TimerSlot>(), 16);
    }

    #[test]
    fn a_slots_resolution_follows_its_pending_event_and_deadline() {
        let mut t = FlowTimers::default();
        assert_eq!(t.resolve(0, 5), TimerState::Superseded, "no event pending");
        t.slots[0] = TimerSlot { deadline: 5, pending: 5 };
        assert_eq!(t.resolve(0, 5), TimerState::Due);
        assert_eq!(t.resolve(0, 4), TimerState::Superseded, "an earlier, superseded event");
        t[0] = 9;
        assert_eq!(t.resolve(0, 5), TimerState::Moved(9), "re-armed later");
        t[0] = 3;
        assert_eq!(t.resolve(0, 5), TimerState::Due, "re-armed earlier: due when its event pops");
        t[0] = NEVER;
        assert_eq!(t.resolve(0, 5), TimerState::Cancelled);
        assert_eq!(t.deadlines().collect::<Vec<_>>(), [NEVER; TIMER_SLOTS]);
    }
}
