//! Micro-benchmarks of the engine: the event heap alone, and the whole event loop on the
//! benchmark dumbbell (reported per packet-hop). `cargo bench -p pinchpoint-core`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use pinchpoint_core::scenario::presets::dumbbell;
use pinchpoint_core::sim::{Event, EventQueue};
use std::hint::black_box;

fn heap(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    g.throughput(Throughput::Elements(100_000));
    g.bench_function("push_pop_100k_at_200_pending", |b| {
        b.iter(|| {
            let mut q = EventQueue::with_capacity(256);
            let mut t = 0u64;
            for i in 0..200u32 {
                q.push(i as u64 * 1_000, Event::TxDone { port: i });
            }
            for _ in 0..100_000 {
                let (now, ev) = q.pop().unwrap();
                t = now;
                q.push(now + 12_000 + (t % 7_919), ev);
            }
            black_box(t)
        })
    });
    g.finish();
}

fn dumbbell_loop(c: &mut Criterion) {
    let mut g = c.benchmark_group("dumbbell");
    g.sample_size(10);
    for n in [10usize, 100] {
        let sc = dumbbell(n, 2.0);
        // Packet-hops of one run, for the throughput figure.
        let mut probe = pinchpoint_core::build(&sc, None, "bench").unwrap();
        probe.run();
        g.throughput(Throughput::Elements(probe.counters().packet_hops));
        g.bench_function(format!("n{n}_2s"), |b| {
            b.iter_batched(
                || pinchpoint_core::build(&sc, None, "bench").unwrap(),
                |mut sim| {
                    sim.run();
                    black_box(sim.counters().packet_hops)
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, heap, dumbbell_loop);
criterion_main!(benches);
