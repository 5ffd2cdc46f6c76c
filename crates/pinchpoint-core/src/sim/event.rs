//! The event queue: one binary heap ordered by (time, insertion sequence).
//!
//! Equal times pop in the order they were pushed (FIFO), which makes every run deterministic.
//! Events are small `Copy` values that name their target by arena index; no packet ever sits
//! in the heap (links keep their packets in flight in a ring, see `net::port`).

use super::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens at an instant. Every variant names its target by index into an arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Port `port` finished serialising its current packet.
    TxDone {
        /// Port index.
        port: u32,
    },
    /// The packet at the head of port `port`'s wire reaches the far end.
    Arrive {
        /// Port index.
        port: u32,
    },
    /// Timer `timer` of flow `flow`; stale unless its time matches the flow's pending time for
    /// that slot (lazy cancellation, see `simulation::FlowTimers`).
    FlowTimer {
        /// Flow index.
        flow: u32,
        /// Timer slot.
        timer: u8,
    },
    /// A port's periodic or scheduled work (hooks and disciplines that keep timers).
    PortTimer {
        /// Port index.
        port: u32,
        /// Generation: stale unless it matches the port's current one.
        gen: u32,
    },
    /// Take one sample of every time series.
    Sample,
    /// Apply timed route change number `idx`.
    RouteChange {
        /// Index of the change.
        idx: u32,
    },
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed so that std's max-heap pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.cmp(&self.time).then_with(|| other.seq.cmp(&self.seq))
    }
}

/// Priority queue of future events.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    /// An empty queue with room for `cap` events.
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(cap), next_seq: 0 }
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }

    /// Time of the earliest event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        for p in 0..5 {
            q.push(7, Event::TxDone { port: p });
        }
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        let expect: Vec<_> = (0..5).map(|p| Event::TxDone { port: p }).collect();
        assert_eq!(order, expect);
    }

    proptest! {
        /// The heap agrees with a BTreeMap shadow keyed by (time, seq) under any interleaving.
        #[test]
        fn heap_matches_btreemap_shadow(ops in proptest::collection::vec((any::<bool>(), 0u64..50), 1..400)) {
            let mut q = EventQueue::default();
            let mut shadow: BTreeMap<(u64, u64), u32> = BTreeMap::new();
            let mut seq = 0u64;
            for (push, t) in ops {
                if push {
                    q.push(t, Event::Arrive { port: seq as u32 });
                    shadow.insert((t, seq), seq as u32);
                    seq += 1;
                } else {
                    let got = q.pop();
                    let want = shadow.pop_first();
                    match (got, want) {
                        (None, None) => {}
                        (Some((t1, Event::Arrive { port })), Some(((t2, _), p2))) => {
                            prop_assert_eq!(t1, t2);
                            prop_assert_eq!(port, p2);
                        }
                        other => prop_assert!(false, "mismatch {:?}", other),
                    }
                }
            }
        }
    }
}
