//! Port hooks: code that sees every packet at a port's arrival and departure and may rewrite its
//! congestion fields (CE marking, ECA load, RBCC rates). Each hook is one file plus one line in
//! the registry below.

use crate::net::packet::Packet;
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};

pub mod ce_threshold;
pub mod decbit;
pub mod rbcc;

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

/// A port hook. Every method has a no-op default; a hook writes only what it uses.
pub trait PortHook {
    /// A packet arrives at the port, before the queue discipline decides about it.
    fn on_arrival(&mut self, _pkt: &mut Packet, _port: &PortView, _now: SimTime) {}
    /// A packet leaves the queue and starts transmission.
    fn on_departure(&mut self, _pkt: &mut Packet, _port: &PortView, _now: SimTime) {}
    /// The queue length changed (after any enqueue or dequeue), or the transmitter went idle;
    /// for averaging estimators.
    fn on_queue_change(&mut self, _port: &PortView, _now: SimTime) {}
}

macro_rules! registry {
    ($( $name:literal => $variant:ident($ty:ty, $cfg:ty) ),* $(,)?) => {
        /// A port hook as written in a scenario (`{ kind = "...", ... }`).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(tag = "kind")]
        pub enum HookConfig {
            $( #[doc = $name] #[serde(rename = $name)] $variant($cfg), )*
        }
        /// A built hook.
        pub enum AnyHook {
            $( #[doc = $name] $variant($ty), )*
        }
        /// Names accepted in `kind`.
        pub const HOOK_KINDS: &[&str] = &[$($name),*];
        impl AnyHook {
            /// Builds the hook `cfg` describes for a port of `rate_bps`.
            pub fn build(cfg: &HookConfig, rate_bps: u64) -> Self {
                match cfg { $( HookConfig::$variant(c) => AnyHook::$variant(<$ty>::new(c, rate_bps)), )* }
            }
        }
        impl PortHook for AnyHook {
            #[inline]
            fn on_arrival(&mut self, pkt: &mut Packet, port: &PortView, now: SimTime) {
                match self { $( AnyHook::$variant(h) => h.on_arrival(pkt, port, now), )* }
            }
            #[inline]
            fn on_departure(&mut self, pkt: &mut Packet, port: &PortView, now: SimTime) {
                match self { $( AnyHook::$variant(h) => h.on_departure(pkt, port, now), )* }
            }
            #[inline]
            fn on_queue_change(&mut self, port: &PortView, now: SimTime) {
                match self { $( AnyHook::$variant(h) => h.on_queue_change(port, now), )* }
            }
        }
    };
}

registry! {
    "ce_threshold" => CeThreshold(ce_threshold::CeThreshold, ce_threshold::CeThresholdConfig),
    "decbit" => Decbit(decbit::Decbit, decbit::DecbitConfig),
    "rbcc" => Rbcc(rbcc::Rbcc, rbcc::RbccConfig),
}
