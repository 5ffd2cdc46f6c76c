//! What a flow costs in memory before it starts (issue 13): measured, not added up by hand. A
//! counting allocator records the heap bytes still held after `build`; the cost of one flow is
//! the difference between two scenarios that differ only in their number of flows, divided by
//! that difference. It includes everything a flow brings: its `Flow` in the arena, its boxed
//! transport, its name, its share of the event heap and of the routes (and, in the dumbbell, its
//! two hosts and four ports with their names and queues), and the slack of arenas grown by
//! doubling. One test per binary, so no other thread allocates while it measures.

use pinchpoint_core::scenario::presets::dumbbell;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};

struct Counting;

/// Heap bytes allocated and not yet freed, by every thread.
static LIVE_BYTES: AtomicI64 = AtomicI64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(l.size() as i64, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE_BYTES.fetch_sub(l.size() as i64, Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(new_size as i64 - l.size() as i64, Ordering::Relaxed);
        unsafe { System.realloc(p, l, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Heap bytes a built (not yet run) simulation of `sc` holds.
fn built_bytes(sc: &pinchpoint_core::scenario::Scenario) -> i64 {
    let before = LIVE_BYTES.load(Ordering::Relaxed);
    let sim = pinchpoint_core::build(sc, None, "memory").expect("builds");
    let held = LIVE_BYTES.load(Ordering::Relaxed) - before;
    drop(sim);
    held
}

/// Two hosts, one link, `n` NewReno bulk flows from a to b that start at 10 s.
fn bare_flows(n: usize) -> pinchpoint_core::scenario::Scenario {
    let mut text = String::from(
        "[simulation]\nduration = \"20s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
         [[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n",
    );
    for i in 0..n {
        text.push_str(&format!("[[flows]]\nname = \"f{i}\"\nsrc = \"a\"\ndst = \"b\"\nstart = \"10s\"\nworkload = {{ kind = \"bulk\" }}\n"));
    }
    pinchpoint_core::scenario::from_toml_str(&text, "bare.toml").expect("parses")
}

/// Per-flow bytes between 1,024 and 2,048 flows (powers of two, so arenas that grow by
/// doubling are full in both and their slack does not flatter either).
fn per_flow(make: impl Fn(usize) -> pinchpoint_core::scenario::Scenario) -> f64 {
    let (small, large) = (make(1024), make(2048));
    (built_bytes(&large) - built_bytes(&small)) as f64 / 1024.0
}

#[test]
fn an_idle_flow_and_an_idle_dumbbell_flow_do_not_grow_past_their_measured_size() {
    let bare = per_flow(bare_flows);
    let dumbbell_flow = per_flow(|n| dumbbell(n, 1.0));
    eprintln!("bare idle flow: {bare:.0} B; idle dumbbell flow with its 2 hosts and 4 ports: {dumbbell_flow:.0} B");
    eprintln!(
        "size_of: Port {} B, Flow {} B, Node {} B, Packet {} B",
        std::mem::size_of::<pinchpoint_core::net::Port>(),
        std::mem::size_of::<pinchpoint_core::flows::Flow>(),
        std::mem::size_of::<pinchpoint_core::net::Node>(),
        std::mem::size_of::<pinchpoint_core::net::Packet>()
    );
    // Issue 13's budget is 512 B and 1.5 KiB. Measured on 5b5670b: 1,073 B and 4,523 B; with
    // the cold state allocated on first use: 833 B and 3,643 B; with the TCP connection built
    // at the start, the AQMs boxed and the event heap sized by what the build pushes: 377 B
    // and 1,939 B; after merging the idle fast path (one more word per port, four ports per
    // flow): 377 B and 2,003 B; with the ports' rare counters, random streams and hooks behind
    // one pointer each, port names derived from the nodes, drop-tail's limit packed and the
    // flow's rare state boxed: 345 B and 1,491 B (bench/README.md); with the flow aligned to a
    // cache line (304 -> 320 B, round 7: fewer lines per wake-up at large N): 361 B and 1,491 B;
    // with the port's per-packet fields in its first two lines and the port aligned to a line
    // (248 -> 256 B, round 8: fewer L2 misses per hop at large N): 361 B and 1,523 B.
    // Both meet their budget; the bounds guard against growth.
    assert!(bare < 370.0, "an idle flow holds {bare:.0} bytes");
    assert!(dumbbell_flow < 1530.0, "an idle dumbbell flow holds {dumbbell_flow:.0} bytes");
}
