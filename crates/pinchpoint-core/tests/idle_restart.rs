//! Window restart after idle (`tcp.slow_start_after_idle`, RFC 5681 s4.1 as Linux's
//! `tcp_cwnd_restart`) in a network: an on-off source over a dumbbell sends its second burst
//! from the initial window instead of the window it had when it went idle.

mod common;
use common::{dumbbell_routers, host_pair, run};

/// Start of the second on period, s: the first lasts `ON_S`, then `OFF_S` of silence.
const ON_S: f64 = 0.004;
const OFF_S: f64 = 10.0;

/// One NewReno flow s1 -> d1 over a 10 Mbit/s, 10 ms bottleneck (1 Gbit/s, 1 ms access links;
/// a 2000-packet buffer, so nothing is lost): an on-off source offering 4 ms at 1 Gbit/s
/// (346 messages of one segment, one per 11.584 us from the period's start) every 10 s. Returns (data segments s1 sent in the first 20 ms of the second
/// on period, less than one round trip; the bottleneck queue's peak after the idle period,
/// packets).
fn second_burst(slow_start_after_idle: bool) -> (usize, u64) {
    let tcp = if slow_start_after_idle { "tcp = { slow_start_after_idle = true }\n" } else { "" };
    let text = format!(
        "[simulation]\nduration = \"11s\"\n[metrics]\nqueue_trace = [\"r1->r2\"]\ncapture = [\"s1->r1\"]\n{}{}\
         [[flows]]\nname = \"f\"\nsrc = \"s1\"\ndst = \"d1\"\ncc = \"newreno\"\n{tcp}\
         workload = {{ kind = \"on_off\", rate = \"1Gbps\", packet_size = 1448, on = \"{ON_S}s\", off = \"{OFF_S}s\" }}\n",
        dumbbell_routers("10Mbps", "10ms", "{ kind = \"droptail\", limit_pkts = 2000 }"),
        host_pair("s1", "d1", "1Gbps", "1ms", "1ms"),
    );
    let r = run(&text);
    assert_eq!(r.ports.u64s("drops").iter().sum::<u64>(), 0, "no loss: only the window shapes the burst");
    let restart_ps = ((ON_S + OFF_S) * 1e12) as u64;
    let c = &r.capture;
    let (t, kind, payload) = (c.u64s("t_ps"), c.u64s("kind"), c.u64s("payload_bytes"));
    let burst = (0..t.len()).filter(|&i| kind[i] == 0 && payload[i] > 0 && t[i] >= restart_ps && t[i] < restart_ps + 20_000_000_000).count();
    let (qt, qp) = (r.queue_trace.f64s("t_s"), r.queue_trace.u64s("queue_pkts"));
    let peak = (0..qt.len()).filter(|&i| qt[i] >= ON_S + OFF_S).map(|i| qp[i]).max().unwrap_or(0);
    (burst, peak)
}

#[test]
fn after_an_idle_period_the_first_burst_is_the_initial_window_and_the_bottleneck_queue_stays_lower() {
    let (burst_kept, peak_kept) = second_burst(false);
    let (burst_restarted, peak_restarted) = second_burst(true);
    eprintln!("second on period: without the restart {burst_kept} segments in 20 ms, queue peak {peak_kept}; with it {burst_restarted} segments, peak {peak_restarted}");
    // Without the restart the window of the first period (grown past the 346 segments offered)
    // lets the whole second burst out at the application's rate.
    assert_eq!(burst_kept, 346);
    // With it, 10 s idle is many RTOs: cwnd is back at the initial window, 10 segments, and the
    // rest waits for acknowledgements (slow start again).
    assert_eq!(burst_restarted, 10);
    // Measured: 342 packets without the restart (all but what the bottleneck drained while the
    // burst arrived), 157 with it (slow start's overshoot).
    assert!(peak_kept > 300 && peak_restarted < peak_kept / 2, "queue peak {peak_restarted} with the restart, {peak_kept} without");
}
