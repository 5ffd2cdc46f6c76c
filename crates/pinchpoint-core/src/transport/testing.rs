//! The unit tests' stand-in for the engine: one end's output buffer, timers, random stream and
//! workload, lent to a transport as its [`TransportCtx`]. Shared by the TCP, TFRC and TRUMP
//! tests (the TCP-specific set-up is `tcp::testing`).

use super::{Direction, TransportCtx};
use crate::net::packet::Packet;
use crate::sim::{SimRng, SimTime};

/// One end's view of the engine.
pub(crate) struct Harness {
    /// What the transport emitted, oldest first.
    pub out: Vec<(Packet, Direction)>,
    /// Timer deadlines by slot (`NEVER`: disarmed).
    pub timers: crate::flows::FlowTimers,
    /// The transport's random stream.
    pub rng: SimRng,
    /// The clock of [`Harness::call`], ps.
    pub now: SimTime,
    /// The application's workload (bulk).
    pub wl: crate::traffic::AnyWorkload,
}

impl Harness {
    /// An end at time 0 with no timers, a bulk workload and the stream of seed 1 named `stream`.
    pub fn new(stream: &str) -> Self {
        Harness { out: Vec::new(), timers: crate::flows::FlowTimers::default(), rng: crate::sim::rng::stream(1, stream), now: 0, wl: crate::traffic::AnyWorkload::Bulk(crate::traffic::bulk::Bulk) }
    }
    /// The context of an event at `now`.
    pub fn ctx(&mut self, now: SimTime) -> TransportCtx<'_> {
        TransportCtx { now, out: &mut self.out, timers: &mut self.timers, armed_slots: 0, rng: &mut self.rng, workload: &mut self.wl }
    }
    /// Runs `f` with the context of an event at [`Harness::now`].
    pub fn call<R>(&mut self, f: impl FnOnce(&mut TransportCtx) -> R) -> R {
        let now = self.now;
        f(&mut self.ctx(now))
    }
}
