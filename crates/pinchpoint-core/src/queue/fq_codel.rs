//! FQ-CoDel, the Flow Queue CoDel packet scheduler and AQM (RFC 8290). See
//! `docs/algorithms/fq_codel.md`.
//!
//! Arriving packets are sorted into `flows` queues by a hash of their flow id (RFC 8290 s4.1.1).
//! A queue that becomes active joins the tail of the *new* list with a deficit of one `quantum`.
//! Dequeue serves the head of the new list, else of the old list, by deficit round robin: a queue
//! whose deficit is spent gets another quantum and moves to the tail of the old list; a queue that
//! runs empty leaves (a new one first passes through the old list, so it cannot jump the line
//! twice). Each queue runs its own CoDel (RFC 8289) on its packets (RFC 8290 s4.2). When the
//! buffer is over its limit, packets are dropped from the head of the queue holding the most
//! bytes (RFC 8290 s4.1).
//!
//! Hash: a seeded 64-bit finaliser (splitmix64) of the flow id, reduced modulo `flows`. Linux uses
//! a keyed Jenkins hash of the 5-tuple with a random key; ours is deterministic for a given
//! `hash_seed` so runs repeat exactly. Distinct flows can collide, as in Linux.

use super::codel::{check_codel_params, default_interval, default_mtu, default_target, CodelParams, CodelState, TimedFifo};
use super::{Backlog, BufferLimit, DropReason, PortInfo, QueueAction, QueueDiscipline, QueueNew, Verdict};
use crate::net::packet::Packet;
use crate::registry::{check_int, FieldError, Validate};
use crate::scenario::units::Duration;
use crate::sim::{SimRng, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

fn default_flows() -> u32 {
    1024
}
fn default_quantum() -> u32 {
    1514
}

/// RFC 8290's Packet Limit parameter and Linux: 10240 packets.
const DEFAULT_LIMIT_PKTS: u32 = 10240;

/// Scenario configuration of an FQ-CoDel queue.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCodelConfig {
    /// Number of flow queues. Default 1024 (RFC 8290's Flows parameter; Linux `flows`).
    #[serde(default = "default_flows")]
    pub flows: u32,
    /// Bytes a queue may send per round, bytes. Default 1514 (RFC 8290's Quantum parameter; Linux `quantum`).
    #[serde(default = "default_quantum")]
    pub quantum_bytes: u32,
    /// CoDel target of each queue. Default 5 ms (RFC 8290's Target parameter).
    #[serde(default = "default_target")]
    pub target: Duration,
    /// CoDel interval of each queue. Default 100 ms (RFC 8290's Interval parameter).
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// Mark ECN-capable packets instead of dropping them (RFC 8290's ECN parameter; Linux default on).
    /// Default false here, so that a scenario switches ECN on deliberately.
    #[serde(default)]
    pub ecn: bool,
    /// CoDel's MAXPACKET, compared with the whole qdisc's backlog (as Linux does), bytes.
    /// Default 1500.
    #[serde(default = "default_mtu")]
    pub mtu_bytes: u32,
    /// Seed of the flow hash.
    #[serde(default)]
    pub hash_seed: u64,
    /// Buffer limit over all queues (packets and/or bytes). With neither given 10240 packets
    /// (RFC 8290's Packet Limit; Linux `limit`).
    #[serde(flatten)]
    pub limit: BufferLimit,
}

impl FqCodelConfig {
    /// The buffer limit the queue runs with: as configured, or [`DEFAULT_LIMIT_PKTS`] packets
    /// when neither bound is given. The resolved scenario leaves an absent limit out, so the
    /// ns-3 translator asks for this instead of repeating the number.
    pub fn limit_in_effect(&self) -> BufferLimit {
        self.limit.or_pkts(DEFAULT_LIMIT_PKTS)
    }
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        FqCodelConfig {
            flows: default_flows(),
            quantum_bytes: default_quantum(),
            target: default_target(),
            interval: default_interval(),
            ecn: false,
            mtu_bytes: default_mtu(),
            hash_seed: 0,
            limit: BufferLimit::default(),
        }
    }
}

impl Validate for FqCodelConfig {
    /// Checks ranges; errors name the field.
    fn validate(&self) -> Result<(), FieldError> {
        check_int("flows", self.flows, 1, 65536)?;
        if self.quantum_bytes == 0 {
            return Err(FieldError::new("quantum_bytes", "expected a positive number of bytes, got 0"));
        }
        check_codel_params(self.target, self.interval, self.mtu_bytes)?;
        // One flow queue takes every flow whatever the hash.
        if self.flows == 1 && self.hash_seed != 0 {
            return Err(FieldError::new("hash_seed", "has no effect with flows = 1 (every flow hashes to the one queue): expected flows above 1, or no hash_seed"));
        }
        self.limit.validate()
    }
}

/// Which list a flow queue is on (RFC 8290 s4.2: new, old, or none while empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Debug)]
struct FlowQueue {
    fifo: TimedFifo,
    codel: CodelState,
    deficit: i64,
    list: List,
}

/// The queue index of flow `flow` (RFC 8290 s4.1.1), splitmix64 of the seeded id.
#[inline]
pub fn flow_index(flow: u32, seed: u64, flows: u32) -> u32 {
    let mut z = (flow as u64).wrapping_add(seed).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % flows as u64) as u32
}

/// An FQ-CoDel queue.
#[derive(Debug)]
pub struct FqCodel {
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    limit: BufferLimit,
    quantum: i64,
    params: CodelParams,
    hash_seed: u64,
    /// All flow queues together.
    backlog: Backlog,
    actions: VecDeque<QueueAction>,
}

impl QueueNew for FqCodel {
    type Config = FqCodelConfig;
    /// Builds an FQ-CoDel queue (the configuration must have passed [`FqCodelConfig::validate`]).
    fn new(cfg: &FqCodelConfig, _port: PortInfo) -> Self {
        let limit = cfg.limit_in_effect();
        let n = cfg.flows.max(1);
        FqCodel {
            queues: (0..n).map(|_| FlowQueue { fifo: TimedFifo::default(), codel: CodelState::default(), deficit: 0, list: List::None }).collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            limit,
            quantum: cfg.quantum_bytes as i64,
            params: CodelParams { target_ps: cfg.target.0, interval_ps: cfg.interval.0, mtu_bytes: cfg.mtu_bytes as u64, ecn: cfg.ecn },
            hash_seed: cfg.hash_seed,
            backlog: Backlog::default(),
            actions: VecDeque::new(),
        }
    }
}

impl FqCodel {
    fn index(&self, flow: u32) -> u32 {
        flow_index(flow, self.hash_seed, self.queues.len() as u32)
    }

    /// Packets waiting in the queue of flow `flow`.
    pub fn flow_len_pkts(&self, flow: u32) -> u32 {
        self.queues[self.index(flow) as usize].fifo.len_pkts()
    }

    fn over_limit(&self) -> bool {
        self.limit.limit_pkts.is_some_and(|l| self.backlog.pkts > l) || self.limit.limit_bytes.is_some_and(|l| self.backlog.bytes > l.0)
    }

    /// RFC 8290 s4.1: drop the head packet of the queue with the most bytes.
    fn drop_from_fattest(&mut self) {
        let Some((fat, _)) = self.queues.iter().enumerate().max_by_key(|(i, q)| (q.fifo.len_bytes(), std::cmp::Reverse(*i))) else {
            return;
        };
        let q = &mut self.queues[fat].fifo;
        let before = q.backlog();
        if let Some(e) = q.pop() {
            self.backlog.remove_change(before, q.backlog());
            self.actions.push_back(QueueAction::Dropped(e.id, DropReason::Overflow));
        }
    }
}

impl QueueDiscipline for FqCodel {
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, _rng: &mut SimRng) -> Verdict {
        let idx = self.index(pkt.flow) as usize;
        let q = &mut self.queues[idx];
        q.fifo.push(id, pkt, now);
        if q.list == List::None {
            // RFC 8290 s4.1: a queue becoming active joins the new list with a full quantum.
            q.list = List::New;
            q.deficit = self.quantum;
            self.new_flows.push_back(idx as u32);
        }
        self.backlog.add(pkt.size_bytes);
        if self.over_limit() {
            // The arrival may itself be the victim; the port learns it through `take_action`.
            let before = self.actions.len();
            while self.over_limit() {
                self.drop_from_fattest();
            }
            if let Some(pos) = self.actions.iter().skip(before).position(|a| *a == QueueAction::Dropped(id, DropReason::Overflow)) {
                // Report the arrival's own drop through the verdict instead.
                self.actions.remove(before + pos);
                return Verdict::Dropped(DropReason::Overflow);
            }
        }
        Verdict::Queued
    }

    fn dequeue(&mut self, now: SimTime) -> Option<u32> {
        loop {
            // RFC 8290 s4.2: new flows first, then old ones.
            let (idx, from_new) = if let Some(&i) = self.new_flows.front() {
                (i, true)
            } else if let Some(&i) = self.old_flows.front() {
                (i, false)
            } else {
                return None;
            };
            let q = &mut self.queues[idx as usize];
            if q.deficit <= 0 {
                // Spent: a new quantum and to the back of the old list.
                q.deficit += self.quantum;
                q.list = List::Old;
                if from_new { self.new_flows.pop_front() } else { self.old_flows.pop_front() };
                self.old_flows.push_back(idx);
                continue;
            }
            let before = q.fifo.backlog();
            // Linux's fq_codel hands CoDel the whole qdisc's backlog for its MAXPACKET test
            // (the other flow queues do not change while this one drops).
            let others_bytes = self.backlog.bytes - q.fifo.len_bytes();
            let sent = q.codel.dequeue(&mut q.fifo, now, &self.params, others_bytes, &mut self.actions);
            self.backlog.remove_change(before, q.fifo.backlog());
            match sent {
                Some(e) => {
                    q.deficit -= e.size_bytes as i64;
                    return Some(e.id);
                }
                None => {
                    // Empty: a new queue passes through the old list once (so that it cannot
                    // return straight to the new list); an old one becomes inactive.
                    if from_new {
                        self.new_flows.pop_front();
                        if !self.old_flows.is_empty() {
                            q.list = List::Old;
                            self.old_flows.push_back(idx);
                            continue;
                        }
                    } else {
                        self.old_flows.pop_front();
                    }
                    q.list = List::None;
                }
            }
        }
    }
    fn len_pkts(&self) -> u32 {
        self.backlog.pkts
    }
    fn len_bytes(&self) -> u64 {
        self.backlog.bytes
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
    use crate::sim::PS_PER_MS;

    fn fq(cfg: FqCodelConfig) -> FqCodel {
        FqCodel::new(&cfg, PortInfo { rate_bps: 10_000_000, delay_ps: 0 })
    }

    fn send(q: &mut FqCodel, id: u32, flow: u32, size: u32) -> Verdict {
        let mut rng = stream(0, "t");
        q.enqueue(id, &mut Packet { flow, size_bytes: size, ..Default::default() }, 0, &mut rng)
    }

    /// Two flows that land in different queues.
    fn two_flows(q: &FqCodel) -> (u32, u32) {
        let a = 0;
        let b = (1..100).find(|&f| q.index(f) != q.index(a)).unwrap();
        (a, b)
    }

    #[test]
    fn flow_index_is_deterministic_and_spreads_flows() {
        assert_eq!(flow_index(7, 0, 1024), flow_index(7, 0, 1024));
        let used: std::collections::HashSet<u32> = (0..64).map(|f| flow_index(f, 0, 1024)).collect();
        assert!(used.len() >= 60, "{}", used.len());
        assert_ne!((0..16).map(|f| flow_index(f, 1, 1024)).collect::<Vec<_>>(), (0..16).map(|f| flow_index(f, 0, 1024)).collect::<Vec<_>>());
    }

    #[test]
    fn deficit_round_robin_alternates_by_quantum() {
        let mut q = fq(FqCodelConfig { quantum_bytes: 1500, ..Default::default() });
        let (a, b) = two_flows(&q);
        for i in 0..4 {
            send(&mut q, 10 + i, a, 1500);
        }
        for i in 0..4 {
            send(&mut q, 20 + i, b, 1500);
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(0)).collect();
        // a sends one quantum, then b, then they alternate on the old list.
        assert_eq!(order, vec![10, 20, 11, 21, 12, 22, 13, 23]);
        assert_eq!((q.len_pkts(), q.len_bytes()), (0, 0));
    }

    #[test]
    fn a_sparse_flow_arriving_later_goes_before_the_backlogged_old_flow() {
        let mut q = fq(FqCodelConfig::default());
        let (a, b) = two_flows(&q);
        for i in 0..5 {
            send(&mut q, 10 + i, a, 1000);
        }
        assert_eq!(q.dequeue(0), Some(10));
        assert_eq!(q.dequeue(0), Some(11)); // deficit 1514 - 1000 = 514 > 0 still
        assert_eq!(q.dequeue(0), Some(12)); // after a refill a is on the old list
        send(&mut q, 20, b, 100);
        assert_eq!(q.dequeue(0), Some(20));
    }

    #[test]
    fn overflow_drops_from_the_head_of_the_fattest_queue() {
        let mut q = fq(FqCodelConfig { limit: BufferLimit { limit_pkts: Some(4), limit_bytes: None }, ..Default::default() });
        let (a, b) = two_flows(&q);
        for i in 0..3 {
            assert_eq!(send(&mut q, 10 + i, a, 1500), Verdict::Queued);
        }
        assert_eq!(send(&mut q, 20, b, 100), Verdict::Queued);
        // Fifth packet (flow b): over the limit, a is fattest; its head (10) goes.
        assert_eq!(send(&mut q, 21, b, 100), Verdict::Queued);
        assert_eq!(q.take_action(), Some(QueueAction::Dropped(10, DropReason::Overflow)));
        assert_eq!(q.take_action(), None);
        assert_eq!((q.len_pkts(), q.flow_len_pkts(a), q.flow_len_pkts(b)), (4, 2, 2));
        // An arrival of the fattest flow whose queue holds only it is reported by the verdict.
        let mut q = fq(FqCodelConfig { limit: BufferLimit { limit_pkts: Some(1), limit_bytes: None }, ..Default::default() });
        assert_eq!(send(&mut q, 30, b, 100), Verdict::Queued);
        assert_eq!(send(&mut q, 31, a, 1500), Verdict::Dropped(DropReason::Overflow));
        assert_eq!(q.take_action(), None);
        assert_eq!(q.len_pkts(), 1);
    }

    #[test]
    fn each_queue_runs_its_own_codel() {
        let mut q = fq(FqCodelConfig { quantum_bytes: 100_000, ..Default::default() });
        let (a, b) = two_flows(&q);
        let mut rng = stream(0, "t");
        for i in 0..10 {
            q.enqueue(10 + i, &mut Packet { flow: a, size_bytes: 1000, ..Default::default() }, 0, &mut rng);
        }
        let ia = q.index(a) as usize;
        q.queues[ia].codel.first_above_time = 100 * PS_PER_MS;
        // a's head has waited 120 ms for over an interval: dropped, the next one sent.
        assert_eq!(q.dequeue(120 * PS_PER_MS), Some(11));
        assert_eq!(q.take_action(), Some(QueueAction::Dropped(10, DropReason::Early)));
        assert_eq!(q.len_pkts(), 8);
        // b's fresh packet has its own state: not dropped.
        q.enqueue(20, &mut Packet { flow: b, size_bytes: 1000, ..Default::default() }, 120 * PS_PER_MS, &mut rng);
        assert!(!q.queues[q.index(b) as usize].codel.dropping);
    }

    #[test]
    fn a_queue_of_one_packet_is_dropped_from_when_the_other_queues_hold_more_than_an_mtu() {
        // Linux hands CoDel the qdisc's whole backlog for its "too little queued" test: a flow
        // queue left with at most an MTU behind its head still drops once its head has waited
        // over target for an interval, if the other queues hold more.
        for others in [0u32, 3] {
            let mut q = fq(FqCodelConfig { quantum_bytes: 100_000, ..Default::default() });
            let (a, b) = two_flows(&q);
            let mut rng = stream(0, "t");
            for i in 0..2 {
                q.enqueue(10 + i, &mut Packet { flow: a, size_bytes: 1000, ..Default::default() }, 0, &mut rng);
            }
            for i in 0..others {
                q.enqueue(20 + i, &mut Packet { flow: b, size_bytes: 1000, ..Default::default() }, 0, &mut rng);
            }
            let ia = q.index(a) as usize;
            q.queues[ia].codel.first_above_time = 100 * PS_PER_MS;
            // a's head has waited 120 ms; behind it 1000 bytes of a (<= MTU 1500).
            let first = q.dequeue(120 * PS_PER_MS);
            let action = q.take_action();
            if others == 0 {
                assert_eq!((first, action), (Some(10), None), "alone, a's queue is too short to drop from");
            } else {
                assert_eq!((first, action), (Some(11), Some(QueueAction::Dropped(10, DropReason::Early))), "b's 3000 bytes count");
            }
        }
    }

    #[test]
    fn random_operations_keep_counts_and_lists_consistent() {
        let mut q = fq(FqCodelConfig { flows: 8, quantum_bytes: 600, limit: BufferLimit { limit_pkts: Some(40), limit_bytes: None }, ..Default::default() });
        let mut rng = stream(3, "ops");
        let (mut next_id, mut now) = (0u32, 0u64);
        let (mut queued, mut gone) = (0u64, 0u64);
        for _ in 0..20_000 {
            now += (crate::sim::rng::uniform(&mut rng) * 3e9) as u64;
            if crate::sim::rng::uniform(&mut rng) < 0.55 {
                let flow = (crate::sim::rng::uniform(&mut rng) * 20.0) as u32;
                let size = 100 + (crate::sim::rng::uniform(&mut rng) * 1400.0) as u32;
                let mut p = Packet { flow, size_bytes: size, ..Default::default() };
                if q.enqueue(next_id, &mut p, now, &mut rng) == Verdict::Queued {
                    queued += 1;
                }
                next_id += 1;
            } else if q.dequeue(now).is_some() {
                gone += 1;
            }
            while let Some(a) = q.take_action() {
                assert!(matches!(a, QueueAction::Dropped(..)));
                gone += 1;
            }
            assert_eq!(q.len_pkts() as u64, queued - gone);
            assert_eq!(q.len_pkts(), q.queues.iter().map(|f| f.fifo.len_pkts()).sum::<u32>());
            assert_eq!(q.len_bytes(), q.queues.iter().map(|f| f.fifo.len_bytes()).sum::<u64>());
            assert!(q.len_pkts() <= 40);
            for (i, f) in q.queues.iter().enumerate() {
                let on_new = q.new_flows.iter().filter(|&&j| j as usize == i).count();
                let on_old = q.old_flows.iter().filter(|&&j| j as usize == i).count();
                // A queue with packets is on exactly one list, and the one its tag names.
                assert!(on_new + on_old <= 1);
                assert_eq!(f.list == List::New, on_new == 1);
                assert_eq!(f.list == List::Old, on_old == 1);
                if !f.fifo.is_empty() {
                    assert_ne!(f.list, List::None);
                }
            }
        }
        assert!(gone > 5000);
    }

    #[test]
    fn validation_names_the_offending_field() {
        let bad = |s: &str| toml::from_str::<FqCodelConfig>(s).unwrap().validate().unwrap_err().field;
        assert_eq!(bad("flows = 0"), "flows");
        assert_eq!(bad("quantum_bytes = 0"), "quantum_bytes");
        assert_eq!(bad("interval = \"1ms\""), "interval");
        toml::from_str::<FqCodelConfig>("").unwrap().validate().unwrap();
    }
}
