//! Queue disciplines: what a port does with an arriving packet and which packet it sends next.
//!
//! A discipline only decides. The port that wraps it (`net::port::Port`) owns the bookkeeping:
//! arrivals, departures, drops and marks by reason, occupancy statistics and the conservation
//! check. Adding a discipline means: its file here, one line in [`registry!`] below, its tests and
//! its page under `docs/algorithms/`. A discipline larger than drop-tail's 64 bytes is written
//! `Boxed<file::Type>` in its registry line and builds through `impl QueueNew` in its own file
//! (so every port's [`AnyQueue`] stays drop-tail's size).

use crate::net::packet::Packet;
use crate::registry::{check_f64, check_f64_above, check_int, FieldError};
use crate::sim::{SimRng, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

pub mod aqm;
pub mod codel;
pub mod droptail;
pub mod fq_codel;
pub mod isda;
pub mod pie;
pub mod priority;
pub mod rda;
pub mod rda_fp;
pub mod rda_vp;
pub mod red;
pub mod sda;

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    /// The buffer was full.
    Overflow = 0,
    /// An active queue management rule dropped it early (threshold, probability).
    Early = 1,
    /// A per-flow policy singled out its flow (SDA, ISDA).
    Policy = 2,
}

/// Number of [`DropReason`] values (size of per-reason counter arrays).
pub const DROP_REASONS: usize = 3;
/// Column names for the per-reason counters, indexed by `DropReason as usize`.
pub const DROP_REASON_NAMES: [&str; DROP_REASONS] = ["overflow", "early", "policy"];

/// A discipline's decision about an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queued unchanged.
    Queued,
    /// Queued, and a congestion mark (ECN CE or the CE bit) was set on it.
    Marked,
    /// Not queued; the port frees the packet.
    Dropped(DropReason),
}

/// Something a discipline did to a packet other than the one it was handed or returned:
/// CoDel drops and marks at the head of its queue (RFC 8289 s5), FQ-CoDel drops from the
/// fattest flow when the buffer overflows (RFC 8290 s4.1). The port collects these with
/// [`QueueDiscipline::take_action`] after every `enqueue` and `dequeue`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueAction {
    /// Slot `0`, which the discipline had queued, was removed and must be freed.
    Dropped(u32, DropReason),
    /// Slot `0`, the one `dequeue` just returned, must carry CE (it is ECN-capable).
    Marked(u32),
}

/// Facts about the port a discipline serves, given when it is built.
#[derive(Clone, Copy, Debug)]
pub struct PortInfo {
    /// Transmission rate of the port, bit/s.
    pub rate_bps: u64,
    /// Propagation delay of the link behind the port, ps.
    pub delay_ps: SimTime,
}

/// The decision-making half of an output port.
pub trait QueueDiscipline {
    /// Decides about packet `pkt` (stored in slot `id`) arriving at `now`; queues its slot unless
    /// it returns `Dropped`. May set congestion fields on `pkt`.
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict;
    /// The slot of the next packet to transmit, if any.
    fn dequeue(&mut self, now: SimTime) -> Option<u32>;
    /// Packets waiting (not counting one being transmitted).
    fn len_pkts(&self) -> u32;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    /// The next action taken on a packet other than the arrival (see [`QueueAction`]), oldest
    /// first; `None` when there is nothing more to report.
    #[inline]
    fn take_action(&mut self) -> Option<QueueAction> {
        None
    }
    /// True if this discipline ever reports actions through [`QueueDiscipline::take_action`];
    /// the port asks once, at build, so other disciplines pay nothing per packet.
    fn may_act(&self) -> bool {
        false
    }
    /// True if [`QueueDiscipline::enqueue`] may draw from the port's random stream. The port
    /// keeps a stream only for such disciplines (issue 13: 16 bytes on every port otherwise);
    /// the rest get a fixed stand-in they must not draw from. Asked once, at build.
    fn draws_random(&self) -> bool {
        true
    }
}

/// Packets and bytes waiting: what a [`Fifo`] counts of itself, and FQ-CoDel of all its flow
/// queues together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Packets.
    pub pkts: u32,
    /// Bytes.
    pub bytes: u64,
}

impl Backlog {
    /// One packet of `size_bytes` more.
    #[inline]
    pub fn add(&mut self, size_bytes: u32) {
        self.pkts += 1;
        self.bytes += size_bytes as u64;
    }
    /// What left between `before` and `after` (a queue's backlogs) left this one too.
    #[inline]
    pub fn remove_change(&mut self, before: Backlog, after: Backlog) {
        self.pkts -= before.pkts - after.pkts;
        self.bytes -= before.bytes - after.bytes;
    }
}

/// An entry a [`Fifo`] holds: a packet slot and its size on the wire, with whatever else the
/// discipline keeps per packet (CoDel: the enqueue time).
pub trait FifoEntry: Copy {
    /// Size on the wire, bytes.
    fn size_bytes(&self) -> u32;
}

/// A plain FIFO entry: (packet slot, size in bytes).
impl FifoEntry for (u32, u32) {
    #[inline]
    fn size_bytes(&self) -> u32 {
        self.1
    }
}

/// A FIFO of packet slots that keeps its length in packets and bytes; the building block most
/// disciplines share (the plain form holds (slot, size) pairs, CoDel's [`codel::TimedFifo`]
/// time-stamped entries).
#[derive(Debug)]
pub struct Fifo<E = (u32, u32)> {
    items: VecDeque<E>,
    bytes: u64,
}

impl<E> Default for Fifo<E> {
    fn default() -> Self {
        Fifo { items: VecDeque::new(), bytes: 0 }
    }
}

impl<E: FifoEntry> Fifo<E> {
    /// Appends an entry.
    #[inline]
    pub fn push_entry(&mut self, e: E) {
        self.bytes += e.size_bytes() as u64;
        self.items.push_back(e);
    }
    /// Removes the head entry.
    #[inline]
    pub fn pop_entry(&mut self) -> Option<E> {
        let e = self.items.pop_front()?;
        self.bytes -= e.size_bytes() as u64;
        Some(e)
    }
    /// The head entry, if any.
    #[inline]
    pub fn front(&self) -> Option<&E> {
        self.items.front()
    }
    /// Packets held.
    #[inline]
    pub fn len_pkts(&self) -> u32 {
        self.items.len() as u32
    }
    /// Bytes held.
    #[inline]
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }
    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// Packets and bytes held.
    #[inline]
    pub fn backlog(&self) -> Backlog {
        Backlog { pkts: self.len_pkts(), bytes: self.bytes }
    }
}

impl Fifo {
    /// Appends slot `id` of `size_bytes`.
    #[inline]
    pub fn push(&mut self, id: u32, size_bytes: u32) {
        self.push_entry((id, size_bytes));
    }
    /// Removes the head slot.
    #[inline]
    pub fn pop(&mut self) -> Option<u32> {
        self.pop_entry().map(|(id, _)| id)
    }
}

/// A buffer limit in packets and/or bytes; a packet fits if it fits both.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct BufferLimit {
    /// Largest number of waiting packets; none means no packet limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_pkts: Option<u32>,
    /// Largest number of waiting bytes; none means no byte limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_bytes: Option<crate::sim::units::Bytes>,
}

// Read through `flat_with_path`: the disciplines flatten the limit into their tables, which
// would otherwise lose the field of an error (`limit_pkts`, `limit_bytes`).
impl<'de> Deserialize<'de> for BufferLimit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::registry::flat_with_path(d, |d| BufferLimit::deserialize(d))
    }
}

impl Serialize for BufferLimit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        BufferLimit::serialize(self, s)
    }
}

/// The buffer of a discipline whose config gives neither `limit_pkts` nor `limit_bytes`, packets
/// (the common router default of ns-2 and ns-3, 100 packets).
pub const DEFAULT_LIMIT_PKTS: u32 = 100;

impl BufferLimit {
    /// This limit, or [`DEFAULT_LIMIT_PKTS`] packets when it gives neither bound.
    pub fn or_default(self) -> BufferLimit {
        self.or_pkts(DEFAULT_LIMIT_PKTS)
    }

    /// This limit, or `pkts` packets when it gives neither bound (a discipline's own default).
    pub fn or_pkts(self, pkts: u32) -> BufferLimit {
        if self.limit_pkts.is_none() && self.limit_bytes.is_none() {
            BufferLimit { limit_pkts: Some(pkts), limit_bytes: None }
        } else {
            self
        }
    }

    /// A limit, if given, must admit at least one packet: `limit_pkts` at least 1 and
    /// `limit_bytes` at least 1 (a zero limit would drop every packet, for every discipline).
    pub fn validate(&self) -> Result<(), FieldError> {
        if self.limit_pkts == Some(0) {
            return Err(FieldError::new("limit_pkts", "expected at least 1 packet (0 would drop every packet)"));
        }
        if let Some(b) = self.limit_bytes {
            if b.0 == 0 {
                return Err(FieldError::new("limit_bytes", "expected at least 1 byte (0 would drop every packet)"));
            }
        }
        Ok(())
    }

    /// True if a packet of `size_bytes` fits on top of `fifo`.
    #[inline]
    pub fn fits(&self, pkts: u32, bytes: u64, size_bytes: u32) -> bool {
        self.limit_pkts.is_none_or(|l| pkts < l)
            && self.limit_bytes.is_none_or(|l| bytes + size_bytes as u64 <= l.0)
    }
}

/// A [`BufferLimit`] as the inline disciplines (drop-tail, strict priority) keep it: an absent
/// limit is the largest value, so the struct takes 16 bytes instead of 24 and every port's
/// [`AnyQueue`] 64 instead of 72 (issue 13). It admits exactly what the `BufferLimit` admits for
/// every queue a run can hold (fewer than `u32::MAX` packets, fewer than `u64::MAX` bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedLimit {
    /// Largest number of waiting packets (`u32::MAX`: no packet limit).
    pkts: u32,
    /// Largest number of waiting bytes (`u64::MAX`: no byte limit).
    bytes: u64,
}

impl PackedLimit {
    /// The limit `l`.
    pub fn new(l: BufferLimit) -> Self {
        PackedLimit { pkts: l.limit_pkts.unwrap_or(u32::MAX), bytes: l.limit_bytes.map_or(u64::MAX, |b| b.0) }
    }

    /// True if a packet of `size_bytes` fits on top of `pkts` packets of `bytes` bytes.
    #[inline]
    pub fn fits(&self, pkts: u32, bytes: u64, size_bytes: u32) -> bool {
        pkts < self.pkts && bytes.saturating_add(size_bytes as u64) <= self.bytes
    }

    /// Packets smaller than this many bytes fit an empty buffer (0: none does).
    pub fn empty_admits_below_bytes(&self) -> u64 {
        if self.pkts == 0 { 0 } else { self.bytes.saturating_add(1) }
    }
}

/// Checks shared by the averaging disciplines (RDA, SDA, ISDA and their variants): thresholds
/// `0 <= min_que_pkts < max_que_pkts <= 10^9` packets, averaging weight in (0, 1], mean packet
/// size 1 to 10^6 bytes.
pub fn check_average(min_que_pkts: f64, max_que_pkts: f64, weight: f64, mean_pkt_bytes: u32) -> Result<(), FieldError> {
    check_f64("min_que_pkts", min_que_pkts, 0.0, 1e9)?;
    check_f64("max_que_pkts", max_que_pkts, 0.0, 1e9)?;
    if max_que_pkts <= min_que_pkts {
        return Err(FieldError::new("max_que_pkts", format!("expected more than min_que_pkts ({min_que_pkts}), got {max_que_pkts}")));
    }
    check_f64_above("weight", weight, 0.0, 1.0)?;
    check_int("mean_pkt_bytes", mean_pkt_bytes, 1, 1_000_000)
}

macro_rules! queue_dispatch {
    ($Any:ident, $($variant:ident),*) => {
        impl QueueDiscipline for $Any {
            #[inline]
            fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
                match self { $( $Any::$variant(q) => q.enqueue(id, pkt, now, rng), )* }
            }
            #[inline]
            fn dequeue(&mut self, now: SimTime) -> Option<u32> {
                match self { $( $Any::$variant(q) => q.dequeue(now), )* }
            }
            #[inline]
            fn len_pkts(&self) -> u32 {
                match self { $( $Any::$variant(q) => q.len_pkts(), )* }
            }
            #[inline]
            fn len_bytes(&self) -> u64 {
                match self { $( $Any::$variant(q) => q.len_bytes(), )* }
            }
            #[inline]
            fn take_action(&mut self) -> Option<QueueAction> {
                match self { $( $Any::$variant(q) => q.take_action(), )* }
            }
            fn may_act(&self) -> bool {
                match self { $( $Any::$variant(q) => q.may_act(), )* }
            }
            fn draws_random(&self) -> bool {
                match self { $( $Any::$variant(q) => q.draws_random(), )* }
            }
        }
    };
}

/// A discipline built from its config: what [`Boxed`] calls. A boxed discipline implements it in
/// its own file (in place of an inherent `new`), so its registry line is all the registry needs.
pub trait QueueNew {
    /// The discipline's config.
    type Config;
    /// Builds the discipline (the config has passed `validate`).
    fn new(cfg: &Self::Config, port: PortInfo) -> Self;
}

/// A discipline kept on the heap. Every port holds an [`AnyQueue`], which is as large as its
/// largest variant: the active queue managers (up to 296 bytes) are boxed so that the enum
/// stays drop-tail's size (issue 13: an idle host's port holds a drop-tail queue). Drop-tail,
/// the common case, and strict priority (no larger) stay inline; the boxed ones pay one pointer
/// step per call on top of their per-packet work.
#[derive(Debug)]
pub struct Boxed<T>(pub Box<T>);

impl<T: QueueNew> Boxed<T> {
    /// Builds the discipline on the heap.
    pub fn new(cfg: &T::Config, port: PortInfo) -> Self {
        Boxed(Box::new(T::new(cfg, port)))
    }
}

impl<T> std::ops::Deref for Boxed<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: QueueDiscipline> QueueDiscipline for Boxed<T> {
    #[inline]
    fn enqueue(&mut self, id: u32, pkt: &mut Packet, now: SimTime, rng: &mut SimRng) -> Verdict {
        self.0.enqueue(id, pkt, now, rng)
    }
    #[inline]
    fn dequeue(&mut self, now: SimTime) -> Option<u32> {
        self.0.dequeue(now)
    }
    #[inline]
    fn len_pkts(&self) -> u32 {
        self.0.len_pkts()
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        self.0.len_bytes()
    }
    #[inline]
    fn take_action(&mut self) -> Option<QueueAction> {
        self.0.take_action()
    }
    fn may_act(&self) -> bool {
        self.0.may_act()
    }
    fn draws_random(&self) -> bool {
        self.0.draws_random()
    }
}

crate::algorithm_registry! {
    /// Configuration of a port's queue discipline, as written in a scenario (`kind = "..."`).
    config QueueConfig;
    /// A built queue discipline.
    runtime AnyQueue;
    /// Names accepted in `kind`.
    kinds QUEUE_KINDS;
    init PortInfo;
    dispatch queue_dispatch;

    "droptail" => DropTail(droptail::DropTail, droptail::DropTailConfig),
    "priority" => Priority(priority::StrictPriority, priority::StrictPriorityConfig),
    "rda" => Rda(Boxed<rda::Rda>, rda::RdaConfig),
    "rda_fp" => RdaFp(Boxed<rda_fp::RdaFp>, rda_fp::RdaFpConfig),
    "rda_vp" => RdaVp(Boxed<rda_vp::RdaVp>, rda_vp::RdaVpConfig),
    "sda" => Sda(Boxed<sda::Sda>, sda::SdaConfig),
    "isda" => Isda(Boxed<isda::Isda>, isda::IsdaConfig),
    "red" => Red(Boxed<red::Red>, red::RedConfig),
    "codel" => Codel(Boxed<codel::Codel>, codel::CodelConfig),
    "fq_codel" => FqCodel(Boxed<fq_codel::FqCodel>, fq_codel::FqCodelConfig),
    "pie" => Pie(Boxed<pie::Pie>, pie::PieConfig),
}

impl QueueConfig {
    /// True if the discipline, as configured, marks ECN-capable packets with CE (its `ecn`
    /// setting); the others only drop. Read by the build's check that ECN settings pair up.
    pub fn marks_ecn(&self) -> bool {
        match self {
            QueueConfig::Red(c) => c.ecn,
            QueueConfig::Codel(c) => c.ecn,
            QueueConfig::FqCodel(c) => c.ecn,
            QueueConfig::Pie(c) => c.ecn,
            QueueConfig::RdaFp(c) => c.aqm.ecn,
            QueueConfig::RdaVp(c) => c.aqm.ecn,
            QueueConfig::Isda(c) => c.aqm.ecn,
            // SDA refuses ecn = true; the others have no ECN setting.
            QueueConfig::Sda(_) | QueueConfig::Rda(_) | QueueConfig::DropTail(_) | QueueConfig::Priority(_) => false,
        }
    }
}

impl QueueConfig {
    /// The buffer limit a drop-tail, RED, CoDel, FQ-CoDel or PIE queue runs with, its
    /// discipline's default filled in where the table gives neither bound (the resolved scenario
    /// leaves that default out); None for the other disciplines. Each arm is the rule its
    /// queue's constructor applies.
    pub fn limit_in_effect(&self) -> Option<BufferLimit> {
        match self {
            QueueConfig::DropTail(c) => Some(c.limit.or_default()),
            QueueConfig::Red(c) => Some(c.limit.or_default()),
            QueueConfig::Codel(c) => Some(c.limit_in_effect()),
            QueueConfig::FqCodel(c) => Some(c.limit_in_effect()),
            QueueConfig::Pie(c) => Some(c.limit_in_effect()),
            _ => None,
        }
    }
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig::DropTail(droptail::DropTailConfig::default())
    }
}
