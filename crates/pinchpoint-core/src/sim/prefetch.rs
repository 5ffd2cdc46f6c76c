//! Software prefetch hints for the run loop at large N (issue 13, "Large N with start jitter").
//!
//! With tens of thousands of flows the state a hop touches (a flow, its boxed transport, a
//! port and its wire) is no longer in the core's own caches, and each hop waits for several
//! lines from L3 or memory. Part of that state is known before it is needed: a timer's flow
//! sits at the head of the timer store long before the timer fires, the next arrival's port at
//! the head of the link heap. A prefetch asks for such a line early and goes on; the load that
//! needs it later finds it close. A prefetch never faults and changes no value, so results
//! cannot move. On targets other than x86_64 the helpers do nothing.

/// Size of a cache line on the machines this is tuned for (x86_64).
pub const LINE_BYTES: usize = 64;

/// Asks for the cache line holding `ptr` (into every cache level), without waiting for it.
#[inline(always)]
pub fn prefetch_read<T>(ptr: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is a hint: it never faults, whatever the address, and reads nothing
    // the program can observe.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(ptr as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

/// Asks for the cache lines of the first `len` bytes of `value` (at most its size): the part
/// of a large value that a path reads.
#[inline(always)]
pub fn prefetch_bytes<T>(value: &T, len: usize) {
    let start = value as *const T as usize;
    let end = start + len.min(std::mem::size_of::<T>());
    let mut line = start & !(LINE_BYTES - 1);
    while line < end {
        prefetch_read(line as *const u8);
        line += LINE_BYTES;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Event, EventQueue};

    #[test]
    fn peeking_names_the_next_flow_timer_and_removes_nothing() {
        let mut q = EventQueue::default();
        q.push(5, Event::Sample);
        q.push(7, Event::FlowTimer { flow: 3, timer: 1 });
        q.push(2, Event::Arrive { port: 9 });
        // The timer store's head is the sample: no flow timer to look at yet.
        assert_eq!(q.peek_flow_timer(), None);
        q.pop();
        q.pop();
        assert_eq!(q.peek_flow_timer(), Some((7, 3, 1)));
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop(), Some((7, Event::FlowTimer { flow: 3, timer: 1 })));
        assert_eq!(q.peek_flow_timer(), None);
    }

    #[test]
    fn looking_ahead_in_the_slot_names_later_flow_timers_in_order_and_removes_nothing() {
        let mut q = EventQueue::default();
        // Retransmission timers of flows 10..15 a few microseconds apart, one slot of the wheel.
        for (k, f) in (10u32..15).enumerate() {
            q.push(1_000_000 + k as u64 * 1_000, Event::FlowTimer { flow: f, timer: 0 });
        }
        // The slot is sorted when its first key is popped; before that nothing is ahead.
        assert_eq!(q.peek_flow_timer_ahead(1), None);
        assert_eq!(q.pop(), Some((1_000_000, Event::FlowTimer { flow: 10, timer: 0 })));
        assert_eq!(q.peek_flow_timer(), Some((1_001_000, 11, 0)));
        assert_eq!(q.peek_flow_timer_ahead(0), Some((1_001_000, 11, 0)));
        assert_eq!(q.peek_flow_timer_ahead(2), Some((1_003_000, 13, 0)));
        assert_eq!(q.peek_flow_timer_ahead(3), Some((1_004_000, 14, 0)));
        assert_eq!(q.peek_flow_timer_ahead(4), None);
        assert_eq!(q.len(), 4);
        let order: Vec<u64> = std::iter::from_fn(|| q.pop().map(|(t, _)| t)).collect();
        assert_eq!(order, [1_001_000, 1_002_000, 1_003_000, 1_004_000]);
    }

    #[test]
    fn the_ports_after_the_head_are_the_link_heap_head_s_children_whatever_their_kind() {
        let mut q = EventQueue::default();
        q.push(5, Event::Arrive { port: 9 });
        // One link event: nothing after the head; a missing entry names no port of a network
        // below MAX_PORTS ports.
        let none = (crate::sim::event::MAX_PORTS - 1) as u32;
        assert_eq!(q.ports_after_head(), [none, none]);
        q.push(7, Event::TxDone { port: 4 });
        q.push(6, Event::Arrive { port: 2 });
        q.push(1, Event::FlowTimer { flow: 3, timer: 1 });
        // The timer store is not looked at; of the three link events the head (time 5) is left out.
        let mut after = q.ports_after_head();
        after.sort();
        assert_eq!(after, [2, 4]);
        assert_eq!(q.len(), 4);
    }

    #[test]
    fn prefetching_any_address_neither_faults_nor_changes_the_value() {
        let v = [7u64; 40];
        prefetch_bytes(&v, usize::MAX);
        prefetch_read(std::ptr::null::<u8>());
        prefetch_read(usize::MAX as *const u8);
        assert_eq!(v, [7u64; 40]);
    }
}
