//! CoDel, Controlled Delay (RFC 8289). See `docs/algorithms/codel.md`.
//!
//! Every packet is stamped when it is queued; at dequeue its sojourn time is compared with
//! `target`. Once the sojourn has stayed at or above `target` for a whole `interval` (and more
//! than one MTU waits), CoDel enters the dropping state and drops (or, with `ecn`, marks) the head
//! packet at times spaced `interval / sqrt(count)` apart, until a packet's sojourn falls below
//! `target` (RFC 8289 s5, the annotated pseudo-code).
//!
//! The state machine ([`CodelState`]) and the time-stamped FIFO ([`TimedFifo`]) are public so that
//! FQ-CoDel (RFC 8290) runs one per flow queue.

use super::{BufferLimit, DropReason, PortInfo, QueueAction, QueueDiscipline, QueueNew, Verdict};
use crate::net::packet::{Ecn, Packet};
use crate::registry::{FieldError, Validate};
use crate::scenario::units::Duration;
use crate::sim::{SimRng, SimTime, PS_PER_MS};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

pub(crate) fn default_target() -> Duration {
    Duration(5 * PS_PER_MS)
}
pub(crate) fn default_interval() -> Duration {
    Duration(100 * PS_PER_MS)
}
pub(crate) fn default_mtu() -> u32 {
    1500
}

/// Linux `sch_codel`'s default limit, packets (RFC 8289 gives none).
const DEFAULT_LIMIT_PKTS: u32 = 1000;

/// Scenario configuration of a CoDel queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodelConfig {
    /// Acceptable standing queue delay. Default 5 ms (RFC 8289 TARGET).
    #[serde(default = "default_target")]
    pub target: Duration,
    /// Window over which the sojourn must stay above `target` before dropping starts, and the
    /// base of the control law. Default 100 ms (RFC 8289 INTERVAL).
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// Mark ECN-capable packets with CE instead of dropping them (Linux `ecn`).
    #[serde(default)]
    pub ecn: bool,
    /// MAXPACKET of RFC 8289's pseudo-code: no drops while at most this many bytes wait. Default 1500.
    #[serde(default = "default_mtu")]
    pub mtu_bytes: u32,
    /// Buffer limit (packets and/or bytes). With neither given the buffer holds 1000 packets
    /// (Linux `sch_codel`).
    #[serde(flatten)]
    pub limit: BufferLimit,
}

impl CodelConfig {
    /// The buffer limit the queue runs with: as configured, or [`DEFAULT_LIMIT_PKTS`] packets
    /// when neither bound is given. The resolved scenario leaves an absent limit out, so the
    /// ns-3 translator asks for this instead of repeating the number.
    pub fn limit_in_effect(&self) -> BufferLimit {
        self.limit.or_pkts(DEFAULT_LIMIT_PKTS)
    }
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig { target: default_target(), interval: default_interval(), ecn: false, mtu_bytes: default_mtu(), limit: BufferLimit::default() }
    }
}

/// Shared range checks of CoDel's parameters (CoDel and FQ-CoDel).
pub(crate) fn check_codel_params(target: Duration, interval: Duration, mtu_bytes: u32) -> Result<(), FieldError> {
    if target.0 == 0 {
        return Err(FieldError::new("target", "expected a positive duration, got 0s"));
    }
    if interval.0 <= target.0 {
        return Err(FieldError::new("interval", format!("expected a duration longer than target ({} s), got {} s", target.secs(), interval.secs())));
    }
    if mtu_bytes == 0 {
        return Err(FieldError::new("mtu_bytes", "expected a positive size, got 0"));
    }
    Ok(())
}

impl Validate for CodelConfig {
    /// Checks ranges; errors name the field.
    fn validate(&self) -> Result<(), FieldError> {
        check_codel_params(self.target, self.interval, self.mtu_bytes)?;
        self.limit.validate()
    }
}

/// A queued packet with its enqueue time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedEntry {
    /// Packet slot.
    pub id: u32,
    /// Size on the wire, bytes.
    pub size_bytes: u32,
    /// When it was queued, ps.
    pub enqueued_at: SimTime,
    /// Its transport is ECN-capable (ECT or already CE), so it may be marked instead of dropped.
    pub ect: bool,
}

impl super::FifoEntry for TimedEntry {
    #[inline]
    fn size_bytes(&self) -> u32 {
        self.size_bytes
    }
}

/// A FIFO of time-stamped packet slots: the shared [`super::Fifo`] with CoDel's entries.
pub type TimedFifo = super::Fifo<TimedEntry>;

impl TimedFifo {
    /// Appends `pkt` (slot `id`) queued at `now`.
    #[inline]
    pub fn push(&mut self, id: u32, pkt: &Packet, now: SimTime) {
        self.push_entry(TimedEntry { id, size_bytes: pkt.size_bytes, enqueued_at: now, ect: pkt.ecn != Ecn::NotEct });
    }
    /// Removes the head.
    #[inline]
    pub fn pop(&mut self) -> Option<TimedEntry> {
        self.pop_entry()
    }
}

/// CoDel's parameters in engine units.
#[derive(Clone, Copy, Debug)]
pub struct CodelParams {
    /// TARGET, ps.
    pub target_ps: SimTime,
    /// INTERVAL, ps.
    pub interval_ps: SimTime,
    /// MAXPACKET, bytes.
    pub mtu_bytes: u64,
    /// Mark ECT packets instead of dropping them.
    pub ecn: bool,
}

/// The per-queue variables of RFC 8289's pseudo-code.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CodelState {
    /// When the sojourn will have been above target for an interval; 0 when below (RFC
    /// `first_above_time_`).
    pub first_above_time: SimTime,
    /// When the next drop is due while dropping (RFC `drop_next_`).
    pub drop_next: SimTime,
    /// Drops (or marks) since entering the dropping state (RFC `count_`).
    pub count: u32,
    /// `count` when the dropping state was last entered (RFC `lastcount_`).
    pub lastcount: u32,
    /// In the dropping state (RFC `dropping_`).
    pub dropping: bool,
}

/// RFC 8289 `control_law`: the next drop time, `t + interval / sqrt(count)` (rounded down to a ps).
#[inline]
pub fn control_law(t: SimTime, interval_ps: SimTime, count: u32) -> SimTime {
    t + (interval_ps as f64 / (count.max(1) as f64).sqrt()) as SimTime
}

impl CodelState {
    /// RFC 8289 `dodequeue`: pops the head and says whether it may be dropped.
    ///
    /// `others_bytes` is what the enclosing qdisc holds outside `q`: CoDel's "too little queued
    /// to drop" test reads the qdisc's whole backlog, as Linux's `codel_should_drop` does (FQ-CoDel
    /// passes `&sch->qstats.backlog`, every flow queue together); plain CoDel passes 0.
    fn dodequeue(&mut self, q: &mut TimedFifo, now: SimTime, p: &CodelParams, others_bytes: u64) -> (Option<TimedEntry>, bool) {
        let Some(e) = q.pop() else {
            // The queue is empty: leave the above-target state.
            self.first_above_time = 0;
            return (None, false);
        };
        let sojourn = now.saturating_sub(e.enqueued_at);
        let mut ok_to_drop = false;
        if sojourn < p.target_ps || q.len_bytes() + others_bytes <= p.mtu_bytes {
            // Below target, or too little queued to matter.
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            // Just went above target: drop if it stays there for an interval.
            self.first_above_time = now + p.interval_ps;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        (Some(e), ok_to_drop)
    }

    /// RFC 8289 `dequeue`: the packet to send, after dropping (pushed to `actions`) those
    /// the control law removes. With `ecn` an ECT head packet is marked (a
    /// [`QueueAction::Marked`]) and sent instead of dropped, as Linux does.
    pub fn dequeue(&mut self, q: &mut TimedFifo, now: SimTime, p: &CodelParams, others_bytes: u64, actions: &mut VecDeque<QueueAction>) -> Option<TimedEntry> {
        let (mut r, mut ok_to_drop) = self.dodequeue(q, now, p, others_bytes);
        let Some(mut head) = r else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                // Sojourn went below target: leave the dropping state.
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if p.ecn && head.ect {
                    actions.push_back(QueueAction::Marked(head.id));
                    self.drop_next = control_law(self.drop_next, p.interval_ps, self.count);
                    return Some(head);
                }
                actions.push_back(QueueAction::Dropped(head.id, DropReason::Early));
                (r, ok_to_drop) = self.dodequeue(q, now, p, others_bytes);
                match r {
                    Some(e) if ok_to_drop => {
                        head = e;
                        // Schedule the next drop: the interval shrinks with sqrt(count).
                        self.drop_next = control_law(self.drop_next, p.interval_ps, self.count);
                    }
                    _ => {
                        self.dropping = false;
                        return r;
                    }
                }
            }
            Some(head)
        } else if ok_to_drop {
            // Enter the dropping state with a drop (or mark) of this packet.
            if p.ecn && head.ect {
                actions.push_back(QueueAction::Marked(head.id));
                r = Some(head);
            } else {
                actions.push_back(QueueAction::Dropped(head.id, DropReason::Early));
                (r, _) = self.dodequeue(q, now, p, others_bytes);
            }
            self.dropping = true;
            // RFC 8289 `dequeue`: if the last dropping state ended recently, resume near its drop
            // rate rather than at 1 (`now - drop_next` approximates the time since its last drop).
            let delta = self.count as i64 - self.lastcount as i64;
            self.count = 1;
            if delta > 1 && (now as i128 - self.drop_next as i128) < 16 * p.interval_ps as i128 {
                self.count = delta as u32;
            }
            self.drop_next = control_law(now, p.interval_ps, self.count);
            self.lastcount = self.count;
            r
        } else {
            Some(head)
        }
    }
}

/// A CoDel queue.
#[derive(Debug)]
pub struct Codel {
    fifo: TimedFifo,
    limit: BufferLimit,
    params: CodelParams,
    state: CodelState,
    actions: VecDeque<QueueAction>,
}

impl QueueNew for Codel {
    type Config = CodelConfig;
    /// Builds a CoDel queue (the configuration must have passed [`CodelConfig::validate`]).
    fn new(cfg: &CodelConfig, _port: PortInfo) -> Self {
        let limit = cfg.limit_in_effect();
        Codel {
            fifo: TimedFifo::default(),
            limit,
            params: CodelParams { target_ps: cfg.target.0, interval_ps: cfg.interval.0, mtu_bytes: cfg.mtu_bytes as u64, ecn: cfg.ecn },
            state: CodelState::default(),
            actions: VecDeque::new(),
        }
    }
}

impl Codel {
    /// The control state (for inspection and tests).
    pub fn state(&self) -> &CodelState {
        &self.state
    }
}

impl QueueDiscipline for Codel {
    #[inline]
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, _rng: &mut SimRng) -> Verdict {
        if !self.limit.fits(self.fifo.len_pkts(), self.fifo.len_bytes(), pkt.size_bytes) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.fifo.push(id, pkt, now);
        Verdict::Queued
    }
    #[inline]
    fn dequeue(&mut self, now: SimTime) -> Option<u32> {
        self.state.dequeue(&mut self.fifo, now, &self.params, 0, &mut self.actions).map(|e| e.id)
    }
    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
    #[inline]
    fn may_act(&self) -> bool {
        true
    }
    fn take_action(&mut self) -> Option<QueueAction> {
        self.actions.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    const MS: SimTime = PS_PER_MS;

    fn codel(ecn: bool) -> Codel {
        Codel::new(&CodelConfig { ecn, ..Default::default() }, PortInfo { rate_bps: 10_000_000, delay_ps: 0 })
    }

    fn fill(q: &mut Codel, n: u32, at: SimTime, ecn: Ecn) {
        let mut rng = stream(0, "t");
        for i in 0..n {
            let mut p = Packet { size_bytes: 1000, ecn, ..Default::default() };
            assert_eq!(q.enqueue(1000 * i, &mut p, at, &mut rng), Verdict::Queued);
        }
    }

    fn drain_actions(q: &mut Codel) -> Vec<QueueAction> {
        std::iter::from_fn(|| q.take_action()).collect()
    }

    #[test]
    fn control_law_shrinks_the_interval_with_sqrt_count() {
        assert_eq!(control_law(1000, 100 * MS, 1), 1000 + 100 * MS);
        assert_eq!(control_law(0, 100 * MS, 4), 50 * MS);
        assert_eq!(control_law(0, 100 * MS, 2), 70_710_678_118); // 100 ms / sqrt 2, floored
    }

    #[test]
    fn sojourn_above_target_arms_first_above_time_one_interval_ahead() {
        let mut q = codel(false);
        fill(&mut q, 5, 0, Ecn::NotEct);
        // 6 ms sojourn >= 5 ms target and 3000 bytes > MTU remain after the pop.
        assert!(q.dequeue(6 * MS).is_some());
        assert_eq!(q.state().first_above_time, 106 * MS);
        assert!(!q.state().dropping);
        // Below target again: reset.
        let mut q = codel(false);
        fill(&mut q, 5, 0, Ecn::NotEct);
        q.dequeue(4 * MS);
        assert_eq!(q.state().first_above_time, 0);
    }

    #[test]
    fn no_drop_while_at_most_one_mtu_remains() {
        let mut q = codel(false);
        fill(&mut q, 2, 0, Ecn::NotEct);
        q.state.first_above_time = 1;
        // After popping one 1000-byte packet, 1000 bytes <= 1500 remain.
        assert!(q.dequeue(500 * MS).is_some());
        assert_eq!(q.state().first_above_time, 0);
        assert!(drain_actions(&mut q).is_empty());
    }

    #[test]
    fn entering_the_dropping_state_drops_the_head_and_sets_drop_next() {
        let mut q = codel(false);
        fill(&mut q, 10, 0, Ecn::NotEct);
        q.state.first_above_time = 100 * MS;
        let sent = q.dequeue(120 * MS);
        // The head (slot 0) is dropped, the next one sent.
        assert_eq!(drain_actions(&mut q), vec![QueueAction::Dropped(0, DropReason::Early)]);
        assert_eq!(sent, Some(1000));
        let s = *q.state();
        assert!(s.dropping);
        assert_eq!((s.count, s.lastcount), (1, 1));
        assert_eq!(s.drop_next, 220 * MS);
    }

    #[test]
    fn in_the_dropping_state_each_due_drop_advances_drop_next_by_interval_over_sqrt_count() {
        let mut q = codel(false);
        fill(&mut q, 10, 0, Ecn::NotEct);
        q.state = CodelState { first_above_time: 1, drop_next: 200 * MS, count: 1, lastcount: 1, dropping: true };
        // Not yet due: plain dequeue.
        assert_eq!(q.dequeue(150 * MS), Some(0));
        assert!(drain_actions(&mut q).is_empty());
        // Due: drop one, count 2, next drop 100/sqrt(2) ms later.
        assert_eq!(q.dequeue(200 * MS), Some(2000));
        assert_eq!(drain_actions(&mut q), vec![QueueAction::Dropped(1000, DropReason::Early)]);
        assert_eq!(q.state().count, 2);
        assert_eq!(q.state().drop_next, 200 * MS + 70_710_678_118);
    }

    #[test]
    fn several_overdue_drops_happen_in_one_dequeue() {
        let mut q = codel(false);
        fill(&mut q, 10, 0, Ecn::NotEct);
        q.state = CodelState { first_above_time: 1, drop_next: 100 * MS, count: 1, lastcount: 1, dropping: true };
        // At 200 ms: drop (count 2, next 170.7 ms) and drop again (count 3, next 170.7 + 57.7 = 228.4 ms).
        assert_eq!(q.dequeue(200 * MS), Some(2000));
        assert_eq!(drain_actions(&mut q).len(), 2);
        assert_eq!(q.state().count, 3);
        assert_eq!(q.state().drop_next, 100 * MS + 70_710_678_118 + 57_735_026_918);
    }

    #[test]
    fn a_packet_below_target_ends_the_dropping_state() {
        let mut q = codel(false);
        fill(&mut q, 10, 100 * MS, Ecn::NotEct);
        q.state = CodelState { first_above_time: 1, drop_next: 101 * MS, count: 4, lastcount: 1, dropping: true };
        assert_eq!(q.dequeue(102 * MS), Some(0));
        assert!(!q.state().dropping);
        assert!(drain_actions(&mut q).is_empty());
    }

    #[test]
    fn reentering_soon_after_resumes_at_the_previous_drop_rate() {
        let mut q = codel(false);
        fill(&mut q, 10, 0, Ecn::NotEct);
        // Last cycle: count went from lastcount 2 to 7, drop_next 50 ms ago.
        q.state = CodelState { first_above_time: 100 * MS, drop_next: 950 * MS, count: 7, lastcount: 2, dropping: false };
        q.dequeue(1000 * MS);
        assert_eq!(q.state().count, 5); // delta = 7 - 2
        assert_eq!(q.state().lastcount, 5);
        assert_eq!(q.state().drop_next, 1000 * MS + control_law(0, 100 * MS, 5));
        // Long after (>= 16 intervals): start again from 1.
        let mut q = codel(false);
        fill(&mut q, 10, 0, Ecn::NotEct);
        q.state = CodelState { first_above_time: 100 * MS, drop_next: 300 * MS, count: 7, lastcount: 2, dropping: false };
        q.dequeue(1900 * MS);
        assert_eq!(q.state().count, 1);
    }

    #[test]
    fn with_ecn_the_head_is_marked_and_sent_instead_of_dropped() {
        let mut q = codel(true);
        fill(&mut q, 10, 0, Ecn::Ect);
        q.state.first_above_time = 100 * MS;
        assert_eq!(q.dequeue(120 * MS), Some(0));
        assert_eq!(drain_actions(&mut q), vec![QueueAction::Marked(0)]);
        assert!(q.state().dropping);
        assert_eq!(q.len_pkts(), 9);
        // Non-ECT packets are still dropped.
        let mut q = codel(true);
        fill(&mut q, 10, 0, Ecn::NotEct);
        q.state.first_above_time = 100 * MS;
        assert_eq!(q.dequeue(120 * MS), Some(1000));
        assert_eq!(drain_actions(&mut q), vec![QueueAction::Dropped(0, DropReason::Early)]);
    }

    #[test]
    fn validation_names_the_offending_field() {
        let bad = |s: &str| toml::from_str::<CodelConfig>(s).unwrap().validate().unwrap_err().field;
        assert_eq!(bad("target = \"0ms\""), "target");
        assert_eq!(bad("target = \"10ms\"\ninterval = \"5ms\""), "interval");
        assert_eq!(bad("mtu_bytes = 0"), "mtu_bytes");
        assert_eq!(bad("limit_pkts = 0"), "limit_pkts");
        toml::from_str::<CodelConfig>("").unwrap().validate().unwrap();
    }
}
