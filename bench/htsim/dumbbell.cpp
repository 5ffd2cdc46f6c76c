// The bench dumbbell (bench/README.md) written against htsim's API, to compare how the two
// simulators' wall time per packet-hop grows with the number of flows (issue 13). Built and run by
// bench/htsim/run.sh, which also adds the two counters declared below to htsim's sources.
//
//   htsim_dumbbell N SIM_SECONDS [JITTER_MS=100] [SEED=1]
//
// Per flow: sender queue (1 Gbit/s, 100 packets) and 1 ms pipe to router A; A->B 100 Mbit/s,
// 100 packets, 10 ms (shared); B to the receiver 1 Gbit/s, 1 ms. Acks return the same way. One
// htsim TcpSrc/TcpSink bulk flow per sender, starting uniformly in [0, JITTER_MS). Only the event
// loop is timed. Differences from our preset (packet sizes, byte-limited queues, no SACK, RTO
// detection by a 10 ms scanner) are listed in bench/README.md.
#include "config.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <unistd.h>
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "tcp.h"

extern uint64_t g_pp_pipe_hops;   // packets that left a pipe: one per link a packet crossed
extern bool g_pp_tcp_verbose;     // htsim prints a line per timeout unless this is false

int main(int argc, char** argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 10;
    const double secs = argc > 2 ? atof(argv[2]) : 10.0;
    const double jitter_ms = argc > 3 ? atof(argv[3]) : 100.0;
    const unsigned seed = argc > 4 ? (unsigned)atoi(argv[4]) : 1;
    g_pp_tcp_verbose = false;

    EventList events;
    events.setEndtime(timeFromSec(secs));
    Packet::set_packet_size(1500);
    const linkspeed_bps access_bps = speedFromMbps((uint64_t)1000), bottleneck_bps = speedFromMbps((uint64_t)100);
    const mem_b buffer = memFromPkt(100);

    std::vector<Queue*> queues;
    auto queue = [&](linkspeed_bps rate) { Queue* q = new Queue(rate, buffer, events, NULL); queues.push_back(q); return q; };
    Queue* a_to_b = queue(bottleneck_bps);
    Queue* b_to_a = queue(bottleneck_bps);
    Pipe* a_to_b_wire = new Pipe(timeFromMs(10), events);
    Pipe* b_to_a_wire = new Pipe(timeFromMs(10), events);
    // htsim's TCP finds expired retransmission timers by scanning every flow; 10 ms is the period
    // its own TCP examples use.
    TcpRtxTimerScanner* scanner = new TcpRtxTimerScanner(timeFromMs(10), events);

    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<TcpSink*> sinks;
    for (int i = 0; i < n; i++) {
        TcpSrc* src = new TcpSrc(NULL, NULL, events);
        TcpSink* sink = new TcpSink();
        scanner->registerTcp(*src);
        Route* fwd = new Route();
        fwd->push_back(queue(access_bps)); fwd->push_back(new Pipe(timeFromMs(1), events));
        fwd->push_back(a_to_b); fwd->push_back(a_to_b_wire);
        fwd->push_back(queue(access_bps)); fwd->push_back(new Pipe(timeFromMs(1), events));
        fwd->push_back(sink);
        Route* rev = new Route();
        rev->push_back(queue(access_bps)); rev->push_back(new Pipe(timeFromMs(1), events));
        rev->push_back(b_to_a); rev->push_back(b_to_a_wire);
        rev->push_back(queue(access_bps)); rev->push_back(new Pipe(timeFromMs(1), events));
        rev->push_back(src);
        src->connect(*fwd, *rev, *sink, (simtime_picosec)(unit(rng) * (double)timeFromMs(jitter_ms)));
        sinks.push_back(sink);
    }

    const auto t0 = std::chrono::steady_clock::now();
    while (events.doNextEvent()) {}
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    uint64_t delivered_bytes = 0, drops = 0;
    int flows_with_data = 0;
    for (TcpSink* s : sinks) {
        if (s->_cumulative_ack > 1) { delivered_bytes += s->_cumulative_ack - 1; flows_with_data++; }  // less the 1-byte SYN
    }
    for (Queue* q : queues) drops += q->num_drops();
    printf("sim=htsim n=%d sim_s=%g jitter_ms=%g wall_s=%.4f packet_hops=%llu ns_per_hop=%.1f goodput_bps=%.0f flows_with_data=%d drops=%llu\n",
           n, secs, jitter_ms, wall_s, (unsigned long long)g_pp_pipe_hops, wall_s * 1e9 / (double)g_pp_pipe_hops,
           delivered_bytes * 8.0 / secs, flows_with_data, (unsigned long long)drops);
    fflush(stdout);
    _exit(0);  // the teardown of a large run is not of interest
}
