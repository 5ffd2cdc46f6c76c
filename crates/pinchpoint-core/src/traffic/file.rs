//! File: the application offers `size` bytes at the flow's start and nothing more; the flow is
//! complete when all of them are acknowledged. See `docs/traffic/file.md`.

use super::{Workload, NEVER};
use crate::scenario::units::Bytes;
use crate::sim::{SimRng, SimTime};
use serde::{Deserialize, Serialize};

/// Parameters of `kind = "file"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// File size.
    pub size: Bytes,
}

/// One file offered at once.
#[derive(Clone, Copy, Debug)]
pub struct File {
    size_bytes: u64,
    started: bool,
}

impl File {
    /// A file of `size_bytes`.
    pub fn new(size_bytes: u64) -> Self {
        File { size_bytes, started: false }
    }
}

impl Workload for File {
    fn start(&mut self, _now: SimTime) {
        self.started = true;
    }
    fn offered_bytes(&mut self, _now: SimTime, _rng: &mut SimRng) -> u64 {
        if self.started {
            self.size_bytes
        } else {
            0
        }
    }
    fn next_offer_at(&self) -> SimTime {
        NEVER
    }
    fn total_bytes(&self) -> Option<u64> {
        Some(self.size_bytes)
    }
    fn message_bytes(&self) -> Option<u32> {
        None
    }
}
