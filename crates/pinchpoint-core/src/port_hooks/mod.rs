//! Port hooks: code that sees every packet at a port's arrival and departure and may rewrite its
//! congestion fields (CE marking, ECA load, RBCC rates). Each hook is one file plus one line in
//! the registry below.

use crate::net::packet::Packet;
use crate::queue::Verdict;
use crate::sim::SimTime;


pub mod ce_threshold;
pub mod decbit;
pub mod eca_load;
pub mod rbcc;

/// A port's hooks, in scenario order: one pointer, null for the many ports without any (issue
/// 13: a boxed slice took 16 bytes on every port). Never grows after the build.
#[derive(Default)]
pub struct PortHooks(Option<Box<Vec<AnyHook>>>);

impl PortHooks {
    /// The hooks `hooks` (no allocation when there are none).
    pub fn new(mut hooks: Vec<AnyHook>) -> Self {
        hooks.shrink_to_fit();
        PortHooks((!hooks.is_empty()).then(|| Box::new(hooks)))
    }
    /// True if the port has no hook.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
    /// The hooks, in scenario order.
    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, AnyHook> {
        self.0.as_deref().map_or(&[][..], |v| v.as_slice()).iter()
    }
    /// The hooks, in scenario order, mutably.
    #[inline]
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, AnyHook> {
        self.0.as_deref_mut().map_or(&mut [][..], |v| v.as_mut_slice()).iter_mut()
    }
}

impl<'a> IntoIterator for &'a PortHooks {
    type Item = &'a AnyHook;
    type IntoIter = std::slice::Iter<'a, AnyHook>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// What a hook may read about its port when a packet passes.
#[derive(Clone, Copy, Debug)]
pub struct PortView {
    /// Packets waiting in the queue (before this arrival is queued / after this departure left).
    pub queue_pkts: u32,
    /// Bytes waiting in the queue.
    pub queue_bytes: u64,
    /// True while the transmitter is sending a packet.
    pub busy: bool,
    /// Port rate, bit/s.
    pub rate_bps: u64,
}

/// A control packet a hook wants delivered to the source of a flow (Rate Quench, seed 002): the
/// engine routes it from the hook's node back along the flow's reverse route.
#[derive(Clone, Copy, Debug)]
pub struct HookEmit {
    /// Node of the port whose hook emitted it.
    pub node: u32,
    /// The packet; `flow` names the flow whose source receives it.
    pub pkt: Packet,
}

/// What a hook gets on the events where it may act beyond the packet in hand: the time, its
/// port, and an output buffer for control packets (the engine routes them after the port's work).
pub struct HookCtx<'a> {
    /// Current time, ps.
    pub now: SimTime,
    /// The port as the hook sees it.
    pub port: PortView,
    /// Node the port belongs to.
    pub node: u32,
    /// Emitted control packets.
    pub out: &'a mut Vec<HookEmit>,
}

impl HookCtx<'_> {
    /// Sends `pkt` toward the source of `about`'s flow. The packet is sent as a control packet
    /// from this port's node; the source's transport receives it in `on_packet`.
    pub fn send_to_source(&mut self, about: &Packet, mut pkt: Packet) {
        pkt.flow = about.flow;
        pkt.kind = crate::net::packet::PacketKind::Control;
        pkt.sent_at = self.now;
        self.out.push(HookEmit { node: self.node, pkt });
    }
}

/// A port hook. Every method has a no-op default; a hook writes only what it uses. The port
/// calls, in order: `on_arrival` (before the discipline), `on_verdict` (after it), then
/// `on_queue_change` whenever the waiting count changes, `on_departure` and `on_dequeue` when a
/// packet starts transmission, and `on_idle` when the transmitter finishes with nothing waiting.
pub trait PortHook {
    /// A packet arrives at the port, before the queue discipline decides about it.
    fn on_arrival(&mut self, _pkt: &mut Packet, _port: &PortView, _now: SimTime) {}
    /// The discipline decided about an arriving packet (a dropped packet is freed afterwards).
    fn on_verdict(&mut self, _pkt: &Packet, _verdict: Verdict, _ctx: &mut HookCtx) {}
    /// A packet leaves the queue and starts transmission.
    fn on_departure(&mut self, _pkt: &mut Packet, _port: &PortView, _now: SimTime) {}
    /// The same instant as `on_departure`, with a context to emit control packets.
    fn on_dequeue(&mut self, _pkt: &mut Packet, _ctx: &mut HookCtx) {}
    /// The waiting count changed (after an enqueue or a dequeue); for averaging estimators.
    fn on_queue_change(&mut self, _port: &PortView, _now: SimTime) {}
    /// The transmitter finished and nothing waits: the port is idle from `now`.
    fn on_idle(&mut self, _port: &PortView, _now: SimTime) {}
}

macro_rules! hook_dispatch {
    ($Any:ident, $($variant:ident),*) => {
        impl PortHook for $Any {
            #[inline]
            fn on_arrival(&mut self, pkt: &mut Packet, port: &PortView, now: SimTime) {
                match self { $( $Any::$variant(h) => h.on_arrival(pkt, port, now), )* }
            }
            #[inline]
            fn on_departure(&mut self, pkt: &mut Packet, port: &PortView, now: SimTime) {
                match self { $( $Any::$variant(h) => h.on_departure(pkt, port, now), )* }
            }
            #[inline]
            fn on_queue_change(&mut self, port: &PortView, now: SimTime) {
                match self { $( $Any::$variant(h) => h.on_queue_change(port, now), )* }
            }
            #[inline]
            fn on_verdict(&mut self, pkt: &Packet, verdict: Verdict, ctx: &mut HookCtx) {
                match self { $( $Any::$variant(h) => h.on_verdict(pkt, verdict, ctx), )* }
            }
            #[inline]
            fn on_dequeue(&mut self, pkt: &mut Packet, ctx: &mut HookCtx) {
                match self { $( $Any::$variant(h) => h.on_dequeue(pkt, ctx), )* }
            }
            #[inline]
            fn on_idle(&mut self, port: &PortView, now: SimTime) {
                match self { $( $Any::$variant(h) => h.on_idle(port, now), )* }
            }
        }
    };
}

crate::algorithm_registry! {
    /// A port hook as written in a scenario (`{ kind = "...", ... }`).
    config HookConfig;
    /// A built hook.
    runtime AnyHook;
    /// Names accepted in `kind`.
    kinds HOOK_KINDS;
    init u64;
    dispatch hook_dispatch;

    "ce_threshold" => CeThreshold(ce_threshold::CeThreshold, ce_threshold::CeThresholdConfig),
    "decbit" => Decbit(decbit::Decbit, decbit::DecbitConfig),
    "rbcc" => Rbcc(rbcc::Rbcc, rbcc::RbccConfig),
    "eca_load" => EcaLoad(eca_load::EcaLoad, eca_load::EcaLoadConfig),
}

impl AnyHook {
    /// Tells the hook the engine's index of the port it sits on (RBCC names itself by it in the
    /// packets whose rate it sets).
    pub fn attach_to_port(&mut self, port_index: u32) {
        if let AnyHook::Rbcc(h) = self {
            h.set_port_index(port_index);
        }
    }
}
