//! Receiver-driven windows: the receiver decides how much the sender may have outstanding and
//! advertises it as credit (TCP's receive window, ATN's credit window W). A `ReceiverPolicy` sees
//! every arriving data packet, with its congestion bits, and says what window to advertise.

use crate::net::packet::Packet;
use crate::sim::SimTime;


pub mod atn;
pub mod fixed;

/// What a receiver policy is told about the connection when a data packet arrives.
#[derive(Clone, Copy, Debug)]
pub struct ReceiverView {
    /// Next in-order byte expected before this packet.
    pub rcv_nxt: u64,
    /// Sender maximum segment size (payload bytes of a full data packet).
    pub mss: u32,
}

/// A receiver window policy. Hooks default to no-ops.
pub trait ReceiverPolicy {
    /// A network packet carrying data arrived (every packet, in order or not, duplicates too).
    fn on_data(&mut self, _pkt: &Packet, _view: &ReceiverView, _now: SimTime) {}
    /// The window to advertise now, bytes.
    fn window_bytes(&self) -> u64;
    /// The window as a number of packets, for time series (default: window / mss).
    fn window_pkts(&self, mss: u32) -> f64 {
        self.window_bytes() as f64 / mss as f64
    }
}

/// Facts a receiver policy is built with.
#[derive(Clone, Copy, Debug)]
pub struct ReceiverInit {
    /// Sender maximum segment size.
    pub mss: u32,
    /// The receiver buffer (`tcp.max_window`), bytes; none = unlimited.
    pub max_window_bytes: Option<u64>,
}

macro_rules! receiver_dispatch {
    ($Any:ident, $($variant:ident),*) => {
        impl ReceiverPolicy for $Any {
            #[inline]
            fn on_data(&mut self, p: &Packet, v: &ReceiverView, n: SimTime) {
                match self { $( $Any::$variant(x) => x.on_data(p, v, n), )* }
            }
            #[inline]
            fn window_bytes(&self) -> u64 {
                match self { $( $Any::$variant(x) => x.window_bytes(), )* }
            }
            #[inline]
            fn window_pkts(&self, mss: u32) -> f64 {
                match self { $( $Any::$variant(x) => x.window_pkts(mss), )* }
            }
        }
    };
}

crate::algorithm_registry! {
    /// A receiver policy as written in a scenario: a name or a table with `kind`.
    config ReceiverConfig;
    /// A built receiver policy.
    #[derive(Debug, Clone)]
    runtime AnyReceiverPolicy;
    /// Names accepted in `kind`.
    kinds RECEIVER_KINDS;
    init ReceiverInit;
    dispatch receiver_dispatch;

    "fixed" => Fixed(fixed::FixedWindow, fixed::FixedWindowConfig),
    "atn" => Atn(atn::AtnCredit, atn::AtnConfig),
}

