//! Bulk: the application always has more to send (an unbounded backlog), as an FTP source in
//! ns-2 or iperf's default. See `docs/traffic/bulk.md`.

use super::{Workload, NEVER};
use crate::sim::{SimRng, SimTime};

/// An unbounded backlog.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bulk;

impl Workload for Bulk {
    fn start(&mut self, _now: SimTime) {}
    fn offered_bytes(&mut self, _now: SimTime, _rng: &mut SimRng) -> u64 {
        u64::MAX
    }
    fn next_offer_at(&self) -> SimTime {
        NEVER
    }
    fn total_bytes(&self) -> Option<u64> {
        None
    }
    fn message_bytes(&self) -> Option<u32> {
        None
    }
}
