//! Sender and receiver driven through their API without a network: hand-made acknowledgements
//! for exact window traces, and a loss-free FIFO "wire" (one data packet delivered per
//! millisecond, acknowledgements back at once) for recovery episodes with scripted losses.

use super::cc::CongestionControl;
use super::sack::SackBlocks;
use super::receiver::ReceiverSettings;
use super::sender::SenderSettings;
use super::testing::{receiver, receiver_settings, receiver_with, sender, settings, MSS};
use super::Recovery;
use crate::net::packet::{flags, Packet, PacketKind};
use crate::sim::{SimTime, PS_PER_MS, PS_PER_S};
use crate::transport::testing::Harness;
use crate::transport::{NEVER, TIMER_DELACK, TIMER_RTO};
use std::collections::VecDeque;

const M: u64 = MSS as u64;

/// One end of the engine, with the TCP tests' stream.
fn end() -> Harness {
    Harness::new("test")
}

/// Data segments `e` emitted since the last call: (seq, len, retransmission).
fn take(e: &mut Harness) -> Vec<(u64, u32, bool)> {
    e.out.drain(..).map(|(p, _)| (p.seq, p.payload_bytes, p.flags & flags::RETX != 0)).collect()
}

/// A hand-made acknowledgement of `ack` with SACK ranges (absolute) and an echoed timestamp.
fn ack_pkt(ack: u64, sacked: &[(u64, u64)], ts_echo: SimTime) -> Packet {
    let mut sack = SackBlocks::default();
    for &(s, e) in sacked.iter().take(super::sack::MAX_SACK_BLOCKS) {
        sack.blocks[sack.len as usize] = ((s - ack) as u32, (e - ack) as u32);
        sack.len += 1;
    }
    Packet { kind: PacketKind::Ack, ack, window_bytes: u32::MAX, ts_echo, sack, ..Default::default() }
}

/// A sender of `total_bytes` (initial window 10 segments) that estimates delivery rates, its
/// application offering everything, started: the rate-sample tests' set-up.
fn started_with_rate_estimator(st: SenderSettings, total_bytes: u64) -> (Harness, super::sender::TcpSender) {
    let mut e = end();
    let mut s = sender(st, 10, total_bytes);
    s.estimate_delivery_rate();
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    (e, s)
}

// ------------------------------------------------------------------------------------------
// Slow start and congestion avoidance (RFC 5681 s3.1, RFC 3465 byte counting with L = 2)
// ------------------------------------------------------------------------------------------

#[test]
fn slow_start_adds_one_segment_per_acknowledged_segment_and_sends_two_for_each() {
    let mut e = end();
    let mut s = sender(settings(Recovery::NewReno, false), 2, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    assert_eq!(take(&mut e), vec![(0, 1000, false), (1000, 1000, false)]);
    let mut cwnds = Vec::new();
    for k in 1..=6u64 {
        e.now += PS_PER_MS;
        e.call(|c| s.on_ack(&ack_pkt(k * M, &[], 0), c));
        cwnds.push(s.cwnd_bytes());
        // Each ack frees one segment and grows the window by one: two new segments.
        let sent = take(&mut e);
        assert_eq!(sent.len(), 2, "ack {k}");
        assert_eq!(s.snd_max(), (2 + 2 * k) * M);
    }
    assert_eq!(cwnds, vec![3000, 4000, 5000, 6000, 7000, 8000]);
    assert!(s.cc().ssthresh_bytes() > 1 << 60, "no loss yet: ssthresh unbounded");
}

#[test]
fn one_ack_covering_three_segments_grows_slow_start_by_two_segments_only() {
    // RFC 3465 s2.2: at most L = 2 SMSS per acknowledgement.
    let mut e = end();
    let mut s = sender(settings(Recovery::NewReno, false), 10, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    e.call(|c| s.on_ack(&ack_pkt(3 * M, &[], 0), c));
    assert_eq!(s.cwnd_bytes(), 12_000);
    e.call(|c| s.on_ack(&ack_pkt(4 * M, &[], 0), c));
    assert_eq!(s.cwnd_bytes(), 13_000);
}

#[test]
fn delayed_acks_grow_the_window_by_the_two_segments_each_covers() {
    // Receiver acks every second segment; byte counting makes each ack worth 2 MSS.
    let (mut es, mut er) = (end(), end());
    let mut s = sender(settings(Recovery::NewReno, false), 2, u64::MAX);
    let mut r = receiver(true, false);
    es.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    let mut wire: VecDeque<Packet> = es.out.drain(..).map(|(p, _)| p).collect();
    let mut cwnds = Vec::new();
    while cwnds.len() < 5 {
        let p = wire.pop_front().unwrap();
        er.call(|c| r.on_data(&p, c));
        for (a, _) in er.out.drain(..).collect::<Vec<_>>() {
            assert_eq!(a.ack % (2 * M), 0, "an ack every second segment");
            es.call(|c| s.on_ack(&a, c));
            cwnds.push(s.cwnd_bytes());
            wire.extend(es.out.drain(..).map(|(p, _)| p));
        }
    }
    assert_eq!(cwnds, vec![4000, 6000, 8000, 10_000, 12_000]);
}

#[test]
fn congestion_avoidance_adds_one_segment_per_window_of_acknowledged_bytes() {
    // Enter recovery with 10 segments out (ssthresh = 5000), leave it with a full ack, then
    // count: one MSS per cwnd bytes acknowledged (RFC 5681 s3.1, byte counting).
    let mut e = end();
    let mut s = sender(SenderSettings { limited_transmit: false, ..settings(Recovery::NewReno, false) }, 10, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    for _ in 0..3 {
        e.call(|c| s.on_ack(&ack_pkt(0, &[], 0), c));
    }
    assert!(s.in_recovery());
    assert_eq!(s.cc().ssthresh_bytes(), 5000);
    e.call(|c| s.on_ack(&ack_pkt(10 * M, &[], 0), c)); // full ack
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd_bytes(), 5000);
    take(&mut e);
    let mut trace = Vec::new();
    let mut una = 10 * M;
    for _ in 0..12 {
        una += M;
        e.call(|c| s.on_ack(&ack_pkt(una, &[], 0), c));
        trace.push(s.cwnd_bytes());
    }
    // 5 acks of 1000 fill the 5000-byte window -> 6000; then 6 acks -> 7000.
    assert_eq!(trace, vec![5000, 5000, 5000, 5000, 6000, 6000, 6000, 6000, 6000, 6000, 7000, 7000]);
}

// ------------------------------------------------------------------------------------------
// Recovery with one, two and three losses in a window
// ------------------------------------------------------------------------------------------

/// Outcome of a transfer over the FIFO wire.
#[derive(Debug)]
struct Episode {
    fast_retx: u64,
    timeouts: u64,
    retx_pkts: u64,
    /// (flight before the ack, ssthresh after) at each entry into recovery.
    entries: Vec<(u64, u64)>,
    /// cwnd right after each exit from recovery.
    exits: Vec<u64>,
    /// ssthresh at each exit.
    exit_ssthresh: Vec<u64>,
}

/// Sends `segments` segments over a wire that serves one data packet per millisecond (no
/// propagation delay, acks back at once), dropping the first transmission of each segment
/// index in `lost`.
fn transfer(s_settings: SenderSettings, segments: u64, lost: &[u64]) -> Episode {
    let (mut es, mut er) = (end(), end());
    let mut s = sender(s_settings, 10, segments * M);
    let mut r = receiver(false, s_settings.sack);
    es.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    let mut wire: VecDeque<Packet> = es.out.drain(..).map(|(p, _)| p).collect();
    let mut ep = Episode { fast_retx: 0, timeouts: 0, retx_pkts: 0, entries: vec![], exits: vec![], exit_ssthresh: vec![] };
    let mut steps = 0;
    while !s.is_complete() {
        steps += 1;
        assert!(steps < 100_000, "transfer does not finish");
        let next_data = if wire.is_empty() { NEVER } else { es.now + PS_PER_MS };
        let rto = es.timers[TIMER_RTO as usize];
        if rto <= next_data {
            assert_ne!(rto, NEVER, "stalled");
            es.now = rto;
            er.now = rto;
            es.timers[TIMER_RTO as usize] = NEVER;
            es.call(|c| s.on_rto(c));
        } else {
            es.now = next_data;
            er.now = next_data;
            let p = wire.pop_front().unwrap();
            let first = p.flags & flags::RETX == 0;
            if !(first && lost.contains(&(p.seq / M))) {
                er.call(|c| r.on_data(&p, c));
                for (a, _) in er.out.drain(..).collect::<Vec<_>>() {
                    let was = s.in_recovery();
                    let flight = s.in_flight();
                    es.call(|c| s.on_ack(&a, c));
                    if !was && s.in_recovery() {
                        ep.entries.push((flight, s.cc().ssthresh_bytes()));
                    }
                    if was && !s.in_recovery() {
                        ep.exits.push(s.cwnd_bytes());
                        ep.exit_ssthresh.push(s.cc().ssthresh_bytes());
                    }
                }
            }
        }
        wire.extend(es.out.drain(..).map(|(p, _)| p));
    }
    let rep = s.report();
    ep.fast_retx = rep.fast_retx;
    ep.timeouts = rep.timeouts;
    ep.retx_pkts = rep.retx_pkts;
    ep
}

/// Losses at segments 30, 30+3, 30+6 (all in the same window: cwnd is well above 10 by then).
fn losses(n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| 30 + 3 * i).collect()
}

fn check_one_recovery(ep: &Episode, losses: usize) {
    assert_eq!(ep.fast_retx, 1, "{ep:?}");
    assert_eq!(ep.timeouts, 0, "{ep:?}");
    assert_eq!(ep.retx_pkts, losses as u64, "every retransmission repairs a loss: {ep:?}");
    // RFC 5681 eq. 4: ssthresh = FlightSize / 2 when recovery begins.
    let (flight, ssthresh) = ep.entries[0];
    assert_eq!(ssthresh, flight / 2, "{ep:?}");
    // Recovery ends with cwnd = ssthresh (RFC 6582 s3.2 step 3, RFC 6675 s5, RFC 6937).
    assert_eq!(ep.exits.len(), 1, "{ep:?}");
    assert_eq!(ep.exits[0], ep.exit_ssthresh[0], "{ep:?}");
}

#[test]
fn newreno_repairs_one_two_and_three_losses_in_one_recovery_one_hole_per_partial_ack() {
    for n in 1..=3 {
        let ep = transfer(settings(Recovery::NewReno, false), 200, &losses(n));
        check_one_recovery(&ep, n);
    }
}

#[test]
fn sack_recovery_with_and_without_prr_repairs_every_loss_in_one_recovery() {
    for prr in [true, false] {
        for n in 1..=3 {
            let ep = transfer(settings(Recovery::Sack, prr), 200, &losses(n));
            check_one_recovery(&ep, n);
        }
    }
}

#[test]
fn reno_repairs_one_loss_but_leaves_recovery_at_the_first_partial_ack_and_times_out_on_more() {
    let ep = transfer(settings(Recovery::Reno, false), 200, &losses(1));
    check_one_recovery(&ep, 1);
    for n in [2, 3] {
        let ep = transfer(settings(Recovery::Reno, false), 200, &losses(n));
        // The partial ack ends recovery; the duplicates that follow do not cover `recover`,
        // so no second fast retransmit: the timer repairs the rest.
        assert_eq!(ep.fast_retx, 1, "{n} losses: {ep:?}");
        assert_eq!(ep.timeouts, 1, "{n} losses: {ep:?}");
        assert_eq!(ep.exits.len(), 1, "{n} losses: {ep:?}");
        // After the timeout cwnd is 1 MSS: the resent hole (33) brings an ack of 3 segments.
        // With two losses that ends it; with three the window is now 3 MSS (1 + 2, RFC 3465
        // L = 2) and go-back-N resends the last hole (36) and 37, 38, which the receiver holds.
        let extra = if n == 3 { 2 } else { 0 };
        assert_eq!(ep.retx_pkts, n as u64 + extra, "{n} losses: {ep:?}");
    }
}

#[test]
fn after_a_fast_recovery_sack_may_start_another_at_once_and_newreno_waits_for_newer_data() {
    // Lose segment 30, then the first segment sent after the recovery it starts began: the
    // duplicates for that second hole all carry the ack that ended the first recovery (its
    // snd_max). RFC 6675 gates a new SACK recovery only after a timeout (s5.1), so SACK starts
    // a second fast retransmit; RFC 6582 s3.2 step 2 (NewReno) needs an ack covering more than
    // `recover`, the highest byte sent then, so NewReno leaves this hole to the timer.
    for (recovery, prr) in [(Recovery::NewReno, false), (Recovery::Sack, true), (Recovery::Sack, false)] {
        let first = transfer(settings(recovery, prr), 200, &[30]);
        check_one_recovery(&first, 1);
        let (flight, _) = first.entries[0];
        let next = (30 * M + flight) / M;
        let ep = transfer(settings(recovery, prr), 200, &[30, next]);
        let expect = if recovery == Recovery::Sack { (2, 0) } else { (1, 1) };
        assert_eq!((ep.fast_retx, ep.timeouts), expect, "{recovery:?} prr {prr}, second loss at {next}: {ep:?}");
    }
}

#[test]
fn an_ecn_sender_sends_retransmissions_not_ect_unless_its_controller_needs_ecn() {
    // RFC 3168 s6.1.5: new data is ECT, a retransmission is not (Linux tcp_ecn_send, ns-3);
    // DCTCP keeps ECT on every segment (Linux tcp_ca_needs_ecn).
    use crate::net::packet::Ecn;
    use super::sender::EcnMode;
    for mode in [EcnMode::Rfc3168, EcnMode::EctAlways] {
        let mut e = end();
        let s_settings = SenderSettings { ecn: mode, limited_transmit: false, ..settings(Recovery::NewReno, false) };
        let mut s = sender(s_settings, 10, u64::MAX);
        e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
        let first: Vec<Packet> = e.out.drain(..).map(|(p, _)| p).collect();
        assert_eq!(first.len(), 10);
        assert!(first.iter().all(|p| p.ecn == Ecn::Ect && p.flags & flags::RETX == 0), "{first:?}");
        for _ in 0..3 {
            e.call(|c| s.on_ack(&ack_pkt(0, &[], 0), c));
        }
        let retx: Vec<Packet> = e.out.drain(..).map(|(p, _)| p).collect();
        assert_eq!(retx.iter().map(|p| (p.seq, p.flags & flags::RETX != 0)).collect::<Vec<_>>(), vec![(0, true)]);
        let want = if mode == EcnMode::EctAlways { Ecn::Ect } else { Ecn::NotEct };
        assert_eq!(retx[0].ecn, want, "{mode:?}");
        // New data sent as the recovery ends is ECT again.
        e.call(|c| s.on_ack(&ack_pkt(10 * M, &[], 0), c));
        let after: Vec<Packet> = e.out.drain(..).map(|(p, _)| p).collect();
        assert!(!after.is_empty() && after.iter().all(|p| p.ecn == Ecn::Ect && p.flags & flags::RETX == 0), "{after:?}");
    }
}

#[test]
fn a_cubic_sender_resumes_its_curve_after_an_application_pause() {
    // RFC 9438 s5.8 / Linux CA_EVENT_TX_START: the epoch moves by the time nothing was in
    // flight, so an ack after a 20 s pause grows the window as one 20 s earlier would have. A
    // curve left running through the pause would be far past W_max at that ack.
    use super::cc::{AnyCc, CcConfig, CcInit};
    let cubic = || AnyCc::build(&CcConfig::Cubic(super::cc::cubic::CubicConfig { hystart: super::cc::cubic::HyStartSetting::Enabled(false), ..Default::default() }), CcInit { mss: MSS, init_cwnd_pkts: 10 });
    let run = |pause: bool| {
        let mut e = end();
        let mut s = super::sender::TcpSender::new(settings(Recovery::NewReno, false), cubic(), u64::MAX);
        e.call(|c| { s.offer(20 * M, c); s.start(c) });
        let mut una = 0;
        // A loss sets W_max and ssthresh; recovery ends at the full ack of the first 10.
        for _ in 0..3 {
            e.call(|c| s.on_ack(&ack_pkt(0, &[], 0), c));
        }
        e.now += 50 * PS_PER_MS;
        e.call(|c| s.on_ack(&ack_pkt(10 * M, &[], 0), c));
        una += 10 * M;
        let offered = 40 * M;
        e.call(|c| s.offer(offered, c));
        // Acknowledge everything outstanding, one segment per ms, in congestion avoidance.
        let ack_all = |e: &mut Harness, s: &mut super::sender::TcpSender, una: &mut u64| {
            while *una < s.snd_max() {
                e.now += PS_PER_MS;
                *una += M;
                let a = *una;
                e.call(|c| s.on_ack(&ack_pkt(a, &[], 0), c));
            }
        };
        ack_all(&mut e, &mut s, &mut una);
        assert_eq!(s.snd_max(), offered);
        let before = s.cwnd_bytes();
        if pause {
            e.now += 20 * PS_PER_S;
        }
        e.call(|c| s.offer(offered + 200 * M, c));
        e.now += PS_PER_MS;
        una += M;
        let a = una;
        e.call(|c| s.on_ack(&ack_pkt(a, &[], 0), c));
        (before, s.cwnd_bytes())
    };
    let (before_busy, after_busy) = run(false);
    let (before_idle, after_idle) = run(true);
    assert_eq!(before_busy, before_idle);
    assert_eq!(after_busy, after_idle, "the pause moved the curve: {after_busy} without it, {after_idle} after it");
    assert!(after_idle - before_idle < M, "one ack grew the window by {} bytes", after_idle - before_idle);
}

// ------------------------------------------------------------------------------------------
// PRR (RFC 6937)
// ------------------------------------------------------------------------------------------

#[test]
fn prr_spreads_the_reduction_over_the_recovery_and_ends_with_pipe_at_ssthresh() {
    // RFC 6937 s3 with a single loss in a window of 20 (the RFC's example: ssthresh = 10
    // segments, RecoverFS = 20), segments 1..19 SACKed one per duplicate, limited transmit off.
    // Above ssthresh sndcnt = ceil(prr_delivered * 10 / 20) - prr_out: the fast retransmit at
    // the third duplicate is prr_out = 1 and prr_delivered counts from that duplicate, so new
    // segments go out at duplicates 6, 8, 10, 12 (one per two delivered). pipe = 20 - k + sent
    // reaches ssthresh at duplicate 14; from there the slow-start reduction bound sends one
    // segment per delivered one (15..19), holding pipe at ssthresh.
    let mut e = end();
    let mut s = sender(SenderSettings { limited_transmit: false, ..settings(Recovery::Sack, true) }, 20, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    assert_eq!(take(&mut e).len(), 20);
    let mut sent_per_ack = Vec::new();
    for k in 1..=19u64 {
        e.call(|c| s.on_ack(&ack_pkt(0, &[(M, (k + 1) * M)], 0), c));
        let sent = take(&mut e);
        if k == 3 {
            assert_eq!(sent, vec![(0, 1000, true)], "fast retransmit of the hole, nothing else");
            assert_eq!(s.cc().ssthresh_bytes(), 10_000);
        }
        sent_per_ack.push(sent.iter().filter(|x| !x.2).count());
    }
    let sends_at: Vec<u64> = (1..=19u64).filter(|&k| sent_per_ack[k as usize - 1] == 1).collect();
    assert_eq!(sends_at, vec![6, 8, 10, 12, 15, 16, 17, 18, 19]);
    assert!(sent_per_ack.iter().all(|&n| n <= 1));
    // Ten segments sent in recovery (1 retransmission + 9 new) = ssthresh, and pipe = ssthresh.
    assert_eq!(s.pipe_bytes(), 10_000);
    assert_eq!(s.cwnd_bytes(), 10_000);
}

#[test]
fn prr_slow_starts_back_to_ssthresh_when_the_losses_leave_pipe_below_it() {
    // Segments 0..9 lost, 10..19 SACKed one per duplicate. At the third duplicate pipe is
    // 7 unSACKed + 1 retransmitted = 8 segments < ssthresh = 10, so PRR-SSRB allows
    // min(ssthresh - pipe, max(prr_delivered - prr_out, DeliveredData) + MSS) = 2 more
    // retransmissions; afterwards one per duplicate (each delivers one, pipe back at 10).
    let mut e = end();
    let mut s = sender(SenderSettings { limited_transmit: false, ..settings(Recovery::Sack, true) }, 20, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    take(&mut e);
    let mut sent = Vec::new();
    for k in 1..=7u64 {
        e.call(|c| s.on_ack(&ack_pkt(0, &[(10 * M, (10 + k) * M)], 0), c));
        sent.push(take(&mut e));
    }
    let rx = |seqs: &[u64]| seqs.iter().map(|&i| (i * M, 1000, true)).collect::<Vec<_>>();
    assert_eq!(sent[..2], [vec![], vec![]]);
    assert_eq!(sent[2], rx(&[0, 1, 2]));
    assert_eq!(sent[3..], [rx(&[3]), rx(&[4]), rx(&[5]), rx(&[6])]);
    assert_eq!(s.pipe_bytes(), 10_000);
}

// ------------------------------------------------------------------------------------------
// The reduction an ECN echo starts (RFC 3168 s6.1.2; Linux CA_CWR with PRR, ns-3 EnterCwr)
// ------------------------------------------------------------------------------------------

/// An acknowledgement of `ack` carrying ECE when `ece`.
fn ecn_ack(ack: u64, sacked: &[(u64, u64)], ece: bool) -> Packet {
    let mut p = ack_pkt(ack, sacked, 0);
    if ece {
        p.flags |= flags::ECE;
    }
    p
}

/// A sender of 20 segments in flight (initial window 20) with RFC 3168 ECN and `recovery`.
fn ecn_sender_with_window_of_20(e: &mut Harness, recovery: Recovery, prr: bool) -> super::sender::TcpSender {
    use super::sender::EcnMode;
    let mut s = sender(SenderSettings { ecn: EcnMode::Rfc3168, limited_transmit: false, ..settings(recovery, prr) }, 20, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    assert_eq!(take(e).len(), 20);
    s
}

#[test]
fn an_ecn_echo_brings_the_window_down_by_prr_over_one_window_without_growth() {
    // Window 20, the first acknowledgement (of one segment) carries ECE: ssthresh = 9.5
    // segments, half the 19 then in flight (RFC 5681 FlightSize, as ns-3's GetSsThresh(
    // BytesInFlight()); Linux halves cwnd, 10), RecoverFS = 19. While pipe > ssthresh, sndcnt
    // = ceil(prr_delivered * 9.5 / 19) - prr_out: one new segment per two delivered, so pipe
    // falls from 20 towards ssthresh over the window (Linux tcp_cwnd_reduction; an immediate
    // cut sends nothing for eleven acknowledgements, then one each). At the twentieth pipe is
    // 9 segments, below ssthresh, and PRR-SSRB allows ssthresh - pipe = half a segment:
    // nothing. The first new segment carries CWR.
    let mut e = end();
    let mut s = ecn_sender_with_window_of_20(&mut e, Recovery::Sack, true);
    let mut sent_per_ack = Vec::new();
    let mut first_new = None;
    for k in 1..=20u64 {
        e.call(|c| s.on_ack(&ecn_ack(k * M, &[], k == 1), c));
        if k == 1 {
            assert!(s.in_cwr());
            assert_eq!(s.cc().ssthresh_bytes(), 9_500);
        }
        let out: Vec<Packet> = e.out.drain(..).map(|(p, _)| p).collect();
        if first_new.is_none() {
            first_new = out.first().cloned();
        }
        sent_per_ack.push(out.len());
        // The window in force is pipe + sndcnt, and the controller's window is not grown.
        assert_eq!(s.cc().cwnd_bytes(), 9_500, "ack {k}");
        assert_eq!(s.cwnd_bytes(), s.send_window());
    }
    assert_eq!(sent_per_ack, [[0, 1].repeat(9), vec![0, 0]].concat(), "one new segment per two delivered");
    assert!(first_new.unwrap().flags & flags::CWR != 0, "the first new segment carries CWR");
    assert_eq!(s.pipe_bytes(), 9 * M);
    assert_eq!(s.cwnd_bytes(), 9_500);
    // The reduction ends when an acknowledgement covers more than snd_max at the echo (20
    // segments): then the window is ssthresh, from where congestion avoidance counts bytes.
    assert!(s.in_cwr());
    e.call(|c| s.on_ack(&ecn_ack(21 * M, &[], false), c));
    assert!(!s.in_cwr());
    assert_eq!(s.cwnd_bytes(), 9_500);
}

#[test]
fn without_prr_an_ecn_echo_cuts_the_window_at_once_and_holds_it_for_the_window() {
    // NewReno recovery (no SACK): ns-3's classic recovery sets cwnd = ssthresh at EnterCwr and
    // does not grow it until CA_CWR ends (ssthresh 9.5 segments, as above). Nothing is sent
    // until flight + one segment fits in it, at the twelfth acknowledgement.
    let mut e = end();
    let mut s = ecn_sender_with_window_of_20(&mut e, Recovery::NewReno, false);
    let mut sent_per_ack = Vec::new();
    for k in 1..=20u64 {
        e.call(|c| s.on_ack(&ecn_ack(k * M, &[], k == 1), c));
        sent_per_ack.push(take(&mut e).len());
        assert_eq!(s.cwnd_bytes(), 9_500, "ack {k}");
    }
    assert_eq!(sent_per_ack, [vec![0; 11], vec![1; 9]].concat());
    e.call(|c| s.on_ack(&ecn_ack(21 * M, &[], false), c));
    assert!(!s.in_cwr());
    assert_eq!(s.cwnd_bytes(), 9_500);
}

#[test]
fn a_second_echo_in_the_same_window_is_ignored_and_one_after_it_reduces_again() {
    let mut e = end();
    let mut s = ecn_sender_with_window_of_20(&mut e, Recovery::Sack, true);
    for k in 1..=20u64 {
        e.call(|c| s.on_ack(&ecn_ack(k * M, &[], true), c));
        take(&mut e);
    }
    assert_eq!(s.cc().ssthresh_bytes(), 9_500, "one reduction per window (RFC 3168 s6.1.2)");
    // Past the window (ack 21 covers more than the 20 segments outstanding at the echo).
    e.call(|c| s.on_ack(&ecn_ack(21 * M, &[], true), c));
    assert!(s.in_cwr());
    assert_eq!(s.in_flight(), 8 * M);
    assert_eq!(s.cc().ssthresh_bytes(), 4 * M, "half of the 8 segments then in flight");
}

#[test]
fn a_loss_found_during_an_ecn_reduction_recovers_without_cutting_the_window_again() {
    // Linux tcp_enter_recovery from CA_CWR keeps ssthresh and the PRR counts.
    let mut e = end();
    let mut s = ecn_sender_with_window_of_20(&mut e, Recovery::Sack, true);
    e.call(|c| s.on_ack(&ecn_ack(M, &[], true), c));
    take(&mut e);
    assert_eq!(s.cc().ssthresh_bytes(), 9_500);
    // Segment 1 lost: segments 2.. SACKed, one per duplicate.
    for k in 1..=3u64 {
        e.call(|c| s.on_ack(&ecn_ack(M, &[(2 * M, (2 + k) * M)], false), c));
    }
    let sent = take(&mut e);
    assert!(s.in_recovery() && !s.in_cwr());
    assert!(sent.contains(&(M, 1000, true)), "fast retransmit of segment 1: {sent:?}");
    assert_eq!(s.report().fast_retx, 1);
    assert_eq!(s.cc().ssthresh_bytes(), 9_500, "no second cut for the same window");
}

#[test]
fn dctcp_updates_alpha_from_the_acknowledgements_of_a_window_being_reduced() {
    // Linux's dctcp_update_alpha runs in every state: with every acknowledgement marked and
    // alpha starting at 0, the first observation window (from the first acknowledgement to
    // the twentieth, all of it in CWR after the first echo) gives F = 1 and alpha = g.
    use super::cc::{dctcp::DctcpConfig, AnyCc, CcConfig, CcInit};
    use super::sender::{EcnMode, TcpSender};
    let mut e = end();
    let cc = AnyCc::build(&CcConfig::Dctcp(DctcpConfig { g: 1.0 / 16.0, initial_alpha: 0.0 }), CcInit { mss: MSS, init_cwnd_pkts: 20 });
    let mut s = TcpSender::new(SenderSettings { ecn: EcnMode::EctAlways, limited_transmit: false, ..settings(Recovery::Sack, true) }, cc, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    take(&mut e);
    let alpha = |s: &TcpSender| match s.cc() { AnyCc::Dctcp(d) => d.alpha(), _ => unreachable!() };
    for k in 1..=19u64 {
        e.call(|c| s.on_ack(&ecn_ack(k * M, &[], true), c));
        take(&mut e);
    }
    assert!(s.in_cwr(), "alpha 0: no reduction, but the window is held for the window");
    assert_eq!(alpha(&s), 0.0);
    e.call(|c| s.on_ack(&ecn_ack(20 * M, &[], true), c));
    assert_eq!(alpha(&s), 1.0 / 16.0);
}

// ------------------------------------------------------------------------------------------
// Retransmission timer (RFC 6298)
// ------------------------------------------------------------------------------------------

#[test]
fn retransmission_timeout_doubles_up_to_max_rto_and_collapses_the_window() {
    let mut e = end();
    let st = SenderSettings { max_rto_ps: 5 * PS_PER_S, ..settings(Recovery::NewReno, false) };
    let mut s = sender(st, 10, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    assert_eq!(take(&mut e).len(), 10);
    assert_eq!(e.timers[TIMER_RTO as usize], PS_PER_S, "RFC 6298 s2.1: initial RTO 1 s");
    let mut rtos = Vec::new();
    for _ in 0..5 {
        e.now = e.timers[TIMER_RTO as usize];
        e.call(|c| s.on_rto(c));
        rtos.push(s.rto_ps() / PS_PER_MS);
        // Go back N from snd_una with cwnd = 1 MSS: exactly one segment, the oldest.
        assert_eq!(take(&mut e), vec![(0, 1000, true)]);
        assert_eq!(s.cwnd_bytes(), 1000);
        assert_eq!(e.timers[TIMER_RTO as usize], e.now + s.rto_ps());
    }
    // RFC 6298 s5.5 doubling, capped at max_rto (s2.5).
    assert_eq!(rtos, vec![2000, 4000, 5000, 5000, 5000]);
    // RFC 5681 eq. 4 after the first timeout: ssthresh = min(FlightSize, cwnd) / 2 = 5000.
    // The later timeouts are of the segment the timer already resent, so RFC 5681 s3.1 holds
    // ssthresh (as Linux does); lowering it again gave 2 MSS.
    assert_eq!(s.cc().ssthresh_bytes(), 5000);
}

#[test]
fn a_timeout_after_an_ack_has_advanced_lowers_ssthresh_again_and_a_repeat_does_not() {
    let mut e = end();
    let mut s = sender(settings(Recovery::NewReno, false), 10, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    take(&mut e);
    // First timeout: ssthresh = 10 segments / 2.
    e.now = e.timers[TIMER_RTO as usize];
    e.call(|c| s.on_rto(c));
    assert_eq!((s.cc().ssthresh_bytes(), s.cwnd_bytes()), (5000, 1000));
    // Four acknowledgements: slow start from one segment to ssthresh, go-back-N meanwhile.
    for k in 1..=4u64 {
        e.now += PS_PER_MS;
        e.call(|c| s.on_ack(&ack_pkt(k * M, &[], 0), c));
    }
    assert_eq!(s.cwnd_bytes(), 5000);
    take(&mut e);
    // The oldest segment now was resent by go-back-N on acknowledgements, not by the timer:
    // ssthresh comes from min(FlightSize, cwnd) = 5 segments, 2.5 segments.
    e.now = e.timers[TIMER_RTO as usize];
    e.call(|c| s.on_rto(c));
    assert_eq!((s.cc().ssthresh_bytes(), s.cwnd_bytes()), (2500, 1000));
    assert_eq!(take(&mut e), vec![(4 * M, 1000, true)]);
    // It times out again with no acknowledgement in between: ssthresh held (it was lowered to
    // max(1 segment / 2, 2 segments) = 2000 before model revision 6).
    e.now = e.timers[TIMER_RTO as usize];
    e.call(|c| s.on_rto(c));
    assert_eq!((s.cc().ssthresh_bytes(), s.cwnd_bytes()), (2500, 1000));
    // Its acknowledgement ends the repeat: the next timeout lowers ssthresh again.
    e.now += PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(5 * M, &[], 0), c));
    e.now = e.timers[TIMER_RTO as usize];
    e.call(|c| s.on_rto(c));
    assert_eq!(s.cc().ssthresh_bytes(), 2000);
}

#[test]
fn rto_follows_srtt_and_rttvar_and_is_floored_at_min_rto() {
    let mut e = end();
    let mut s = sender(settings(Recovery::NewReno, false), 10, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    // First sample R = 300 ms: SRTT = R, RTTVAR = R/2, RTO = SRTT + 4 RTTVAR = 900 ms.
    e.now = 300 * PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(M, &[], 0), c));
    assert_eq!(s.rto_ps(), 900 * PS_PER_MS);
    // Second sample 100 ms: RTTVAR = 3/4 * 150 + 1/4 * 200 = 162.5; SRTT = 7/8 * 300 + 1/8 * 100 = 275.
    e.now = 400 * PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(2 * M, &[], 300 * PS_PER_MS), c));
    assert_eq!(s.rto_ps(), 925 * PS_PER_MS);
    // Tiny samples: the 200 ms floor holds.
    for k in 3..40u64 {
        e.now += PS_PER_MS;
        let echo = e.now - PS_PER_MS / 10;
        e.call(|c| s.on_ack(&ack_pkt(k * M, &[], echo), c));
    }
    assert_eq!(s.rto_ps(), 200 * PS_PER_MS);
}

// ------------------------------------------------------------------------------------------
// Delayed acknowledgements (RFC 1122 s4.2.3.2, RFC 5681 s4.2)
// ------------------------------------------------------------------------------------------

fn data_pkt(seq: u64) -> Packet {
    Packet { kind: PacketKind::Data, seq, payload_bytes: MSS, size_bytes: MSS + 40, ..Default::default() }
}

/// The blocks of an acknowledgement as absolute ranges, the D-SACK block (if any) apart.
fn blocks_of(a: &Packet) -> (Option<(u64, u64)>, Vec<(u64, u64)>) {
    (a.sack.dsack_range(a.ack), a.sack.ranges(a.ack).collect())
}

#[test]
fn a_dsack_receiver_reports_each_duplicate_once_in_the_first_block() {
    // RFC 2883 s4: segments 0, 2, 3 and 5 arrive; then 0 again (below the ack), 3 again (out of
    // order, held), and 5 again. Each duplicate's acknowledgement carries it first, the SACK
    // blocks after it as space allows (3 blocks in all), and only that acknowledgement does.
    let mut e = end();
    let mut r = receiver_with(ReceiverSettings { dsack: true, ..receiver_settings(false, true) });
    for k in [0u64, 2, 3, 5] {
        e.call(|c| r.on_data(&data_pkt(k * M), c));
    }
    let last = e.out.drain(..).last().unwrap().0;
    assert_eq!(blocks_of(&last), (None, vec![(5 * M, 6 * M), (2 * M, 4 * M)]));
    e.call(|c| r.on_data(&data_pkt(0), c));
    let a = e.out.drain(..).map(|(p, _)| p).collect::<Vec<_>>();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].ack, M);
    assert_eq!(blocks_of(&a[0]), (Some((0, M)), vec![(5 * M, 6 * M), (2 * M, 4 * M)]));
    e.call(|c| r.on_data(&data_pkt(3 * M), c));
    let a = e.out.drain(..).map(|(p, _)| p).collect::<Vec<_>>();
    // The range holding the latest arrival (2..4) comes first among the SACK blocks.
    assert_eq!(blocks_of(&a[0]), (Some((3 * M, 4 * M)), vec![(2 * M, 4 * M), (5 * M, 6 * M)]));
    // A new out-of-order segment: no D-SACK.
    e.call(|c| r.on_data(&data_pkt(7 * M), c));
    let a = e.out.drain(..).map(|(p, _)| p).collect::<Vec<_>>();
    assert_eq!(blocks_of(&a[0]).0, None);
    assert_eq!(blocks_of(&a[0]).1.len(), 3);
    // With three SACK ranges held, a duplicate leaves room for two of them.
    e.call(|c| r.on_data(&data_pkt(5 * M), c));
    let a = e.out.drain(..).map(|(p, _)| p).collect::<Vec<_>>();
    assert_eq!(blocks_of(&a[0]), (Some((5 * M, 6 * M)), vec![(5 * M, 6 * M), (7 * M, 8 * M)]));
    // Without the setting the same duplicate carries no D-SACK.
    let mut plain = receiver(false, true);
    e.call(|c| plain.on_data(&data_pkt(0), c));
    e.call(|c| plain.on_data(&data_pkt(0), c));
    assert!(e.out.drain(..).all(|(p, _)| !p.sack.dsack && p.sack.len == 0));
}

#[test]
fn delayed_ack_goes_out_at_every_second_segment_or_when_the_timer_fires() {
    let mut e = end();
    let mut r = receiver(true, false);
    e.call(|c| r.on_data(&data_pkt(0), c));
    assert!(e.out.is_empty(), "first segment: ack held back");
    assert_eq!(e.timers[TIMER_DELACK as usize], 40 * PS_PER_MS);
    e.now = 5 * PS_PER_MS;
    e.call(|c| r.on_data(&data_pkt(M), c));
    let acks: Vec<u64> = e.out.drain(..).map(|(p, _)| p.ack).collect();
    assert_eq!(acks, vec![2000], "second segment: acked at once");
    assert_eq!(e.timers[TIMER_DELACK as usize], NEVER, "timer cancelled with the ack");
    // A lone segment is acked when the timer fires, 40 ms after it arrived.
    e.now = 10 * PS_PER_MS;
    e.call(|c| r.on_data(&data_pkt(2 * M), c));
    assert!(e.out.is_empty());
    assert_eq!(e.timers[TIMER_DELACK as usize], 50 * PS_PER_MS);
    e.now = 50 * PS_PER_MS;
    e.call(|c| r.on_delack_timer(c));
    let acks: Vec<u64> = e.out.drain(..).map(|(p, _)| p.ack).collect();
    assert_eq!(acks, vec![3000]);
    // Out of order: a duplicate ack at once, and the segment that fills the hole is acked at once.
    e.call(|c| r.on_data(&data_pkt(4 * M), c));
    e.call(|c| r.on_data(&data_pkt(3 * M), c));
    let acks: Vec<u64> = e.out.drain(..).map(|(p, _)| p.ack).collect();
    assert_eq!(acks, vec![3000, 5000]);
}

// ------------------------------------------------------------------------------------------
// Settings: defaults as Linux, settings without effect refused
// ------------------------------------------------------------------------------------------

#[test]
fn recovery_defaults_to_sack_with_prr_and_to_newreno_without_sack() {
    use crate::scenario::schema::TcpConfig;
    let d = TcpConfig::default();
    assert!(d.sack_enabled());
    assert_eq!(d.recovery_in_use(), Recovery::Sack);
    assert!(d.prr_enabled());
    let no_sack = TcpConfig { sack: Some(false), ..TcpConfig::default() };
    assert_eq!(no_sack.recovery_in_use(), Recovery::NewReno);
    assert!(!no_sack.prr_enabled());
    let reno = TcpConfig { recovery: Some(Recovery::Reno), ..TcpConfig::default() };
    assert!(!reno.sack_enabled(), "SACK is off unless asked for when the recovery ignores it");
    assert!(reno.validate().is_ok());
}

#[test]
fn settings_that_would_have_no_effect_are_refused_naming_the_field() {
    use crate::scenario::schema::TcpConfig;
    use crate::scenario::units::Duration;
    let field = |c: TcpConfig| c.validate().err().map(|e| e.field.clone()).unwrap_or_default();
    let d = TcpConfig::default;
    assert_eq!(field(TcpConfig { recovery: Some(Recovery::Sack), sack: Some(false), ..d() }), "recovery");
    assert_eq!(field(TcpConfig { recovery: Some(Recovery::NewReno), sack: Some(true), ..d() }), "sack");
    assert_eq!(field(TcpConfig { recovery: Some(Recovery::NewReno), prr: Some(true), ..d() }), "prr");
    assert_eq!(field(TcpConfig { sack: Some(false), prr: Some(false), ..d() }), "prr");
    assert_eq!(field(TcpConfig { prr: Some(false), ..d() }), "");
    // RACK-TLP runs on the SACK scoreboard; PRR and the reordering threshold still apply.
    assert_eq!(field(TcpConfig { recovery: Some(Recovery::RackTlp), sack: Some(false), ..d() }), "recovery");
    assert_eq!(field(TcpConfig { recovery: Some(Recovery::RackTlp), prr: Some(false), dupack_threshold: 5, ..d() }), "");
    let rack = TcpConfig { recovery: Some(Recovery::RackTlp), ..d() };
    assert!(rack.sack_enabled() && rack.prr_enabled() && rack.recovery_in_use() == Recovery::RackTlp);
    // Ranges.
    assert_eq!(field(TcpConfig { min_rto: Duration(61 * PS_PER_S), ..d() }), "min_rto");
    assert_eq!(field(TcpConfig { initial_rto: Duration(0), ..d() }), "initial_rto");
    assert_eq!(field(TcpConfig { init_cwnd_pkts: u32::MAX, ..d() }), "init_cwnd_pkts");
    assert_eq!(field(TcpConfig { mss: 0, ..d() }), "mss");
    assert_eq!(field(TcpConfig { mss: 65_000, header_bytes: 1000, ..d() }), "header_bytes");
    assert_eq!(field(TcpConfig { ack_bytes: 0, ..d() }), "ack_bytes");
    assert_eq!(field(TcpConfig { max_window: Some(crate::scenario::units::Bytes(100)), ..d() }), "max_window");
}

#[test]
fn a_scenario_with_bad_tcp_settings_is_refused_with_the_field_path() {
    let base = "[simulation]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
                [[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
                [[flows]]\nname = \"f\"\nsrc = \"a\"\ndst = \"b\"\nworkload = { kind = \"bulk\" }\n";
    for (tcp, path) in [
        ("{ min_rto = \"2s\", max_rto = \"1s\" }", "flows[0].tcp.min_rto"),
        ("{ initial_rto = \"0s\" }", "flows[0].tcp.initial_rto"),
        ("{ init_cwnd_pkts = 4294967295 }", "flows[0].tcp.init_cwnd_pkts"),
        ("{ recovery = \"sack\", sack = false }", "flows[0].tcp.recovery"),
        ("{ recovery = \"reno\", prr = true }", "flows[0].tcp.prr"),
        ("{ recovery = \"rack_tlp\", sack = false }", "flows[0].tcp.recovery"),
    ] {
        let text = format!("{base}tcp = {tcp}\n");
        let err = match crate::load_toml(&text, "t.toml", None) {
            Ok(_) => panic!("{tcp} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(path), "{tcp}: {err}");
    }
    assert!(crate::load_toml(&format!("{base}tcp = {{ recovery = \"reno\" }}\n"), "t.toml", None).is_ok());
}

// ------------------------------------------------------------------------------------------
// Delivery-rate estimation and pacing
// ------------------------------------------------------------------------------------------

#[test]
fn delivery_rate_sample_measures_the_bottleneck_rate_once_the_pipe_is_full() {
    // The FIFO wire delivers one 1000-byte segment per ms: 8 Mbit/s of payload.
    let (mut es, mut er) = (end(), end());
    let mut s = sender(settings(Recovery::Sack, true), 10, u64::MAX);
    s.estimate_delivery_rate();
    let mut r = receiver(false, true);
    es.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    let mut wire: VecDeque<Packet> = es.out.drain(..).map(|(p, _)| p).collect();
    for _ in 0..200 {
        es.now += PS_PER_MS;
        er.now = es.now;
        let p = wire.pop_front().unwrap();
        er.call(|c| r.on_data(&p, c));
        for (a, _) in er.out.drain(..).collect::<Vec<_>>() {
            es.call(|c| s.on_ack(&a, c));
        }
        wire.extend(es.out.drain(..).map(|(p, _)| p));
    }
    let rs = s.last_rate_sample().expect("a sample");
    assert!(!rs.is_app_limited);
    assert_eq!(rs.total_delivered_bytes, 200 * M);
    assert!((rs.delivery_rate_bps - 8e6).abs() < 1e-6 * 8e6, "{rs:?}");
    assert_eq!(s.delivered_bytes(), 200 * M);
}

/// Linux `tcp_init_sock` starts a connection application-limited (`tp->app_limited = ~0U`, "a
/// bubble in the pipe until at least the first ACK"): the samples of the first flight are
/// marked, and the first delivery ends the mark, so what is sent from then on is not.
#[test]
fn the_first_flight_gives_app_limited_samples_and_what_follows_does_not() {
    let (mut e, mut s) = started_with_rate_estimator(settings(Recovery::Sack, true), u64::MAX);
    assert_eq!(take(&mut e).len(), 10);
    let mut samples = Vec::new();
    for k in 1..=20u64 {
        e.now = (10 + k) * PS_PER_MS;
        e.call(|c| s.on_ack(&ack_pkt(k * M, &[], 0), c));
        samples.push(s.last_rate_sample().unwrap().is_app_limited);
        take(&mut e);
    }
    assert_eq!(samples, [[true; 10], [false; 10]].concat());
}

#[test]
fn segments_sent_after_the_application_ran_dry_give_app_limited_samples() {
    // Draft s3.4: a 5-segment file in a 10-segment window leaves the window unfilled, so the
    // sender is application-limited from then on; the retransmission after a timeout carries
    // the mark, and so does the sample its acknowledgement produces.
    let (mut e, mut s) = started_with_rate_estimator(settings(Recovery::Sack, true), 5 * M);
    assert_eq!(take(&mut e).len(), 5);
    e.now = PS_PER_S;
    e.call(|c| s.on_rto(c));
    assert_eq!(take(&mut e), vec![(0, 1000, true)]);
    e.now = PS_PER_S + 10 * PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(M, &[], PS_PER_S), c));
    let rs = s.last_rate_sample().unwrap();
    assert!(rs.is_app_limited, "{rs:?}");
    assert_eq!(rs.delivered_bytes, M);
    assert_eq!(rs.rtt_ps, 10 * PS_PER_MS);
    // interval = max(send_elapsed = 1 s, ack_elapsed = 1.01 s) from the clocks set at t = 0.
    assert_eq!(rs.interval_ps, PS_PER_S + 10 * PS_PER_MS);
}

/// Model revision 12: an application that writes as it goes is application-limited between its
/// writes (Linux `tcp_rate_check_app_limited` reads `write_seq`, what was written so far). An
/// unbounded transfer whose application has written 5 segments, in a 10-segment window, is
/// application-limited after sending them, so the sixth segment, written later, carries the
/// mark and so does its sample (before, only the end of the whole workload could set it, and a
/// BBR flow fed by a constant-rate source let the source's rate into its bandwidth filter).
/// Once the application has written more than the window holds, the mark ends with the
/// delivery of what was outstanding when it was set.
#[test]
fn an_application_that_has_written_less_than_the_window_holds_gives_app_limited_samples() {
    let mut e = end();
    let mut s = sender(settings(Recovery::Sack, true), 10, u64::MAX);
    s.estimate_delivery_rate();
    e.call(|c| { s.offer(5 * M, c); s.start(c) });
    assert_eq!(take(&mut e).len(), 5);
    e.now = PS_PER_MS;
    e.call(|c| s.offer(6 * M, c));
    assert_eq!(take(&mut e), vec![(5 * M, 1000, false)]);
    let mut acked = 0;
    let mut samples = Vec::new();
    for k in 1..=6 {
        acked += M;
        e.now = (10 + k) * PS_PER_MS;
        e.call(|c| s.on_ack(&ack_pkt(acked, &[], 0), c));
        samples.push(s.last_rate_sample().unwrap().is_app_limited);
    }
    // The first five are the first flight (marked as Linux marks a new connection's); the
    // sixth was sent after the application ran dry.
    assert_eq!(samples, [true; 6], "the sixth segment was sent application-limited");
    // The application writes 100 segments more: the window (16 segments) fills. These were
    // sent while the mark stood (the last acknowledgement found nothing to send and set it
    // again, as Linux's check at the write does: they follow an application-limited stretch);
    // it ends with their first delivery, and the segments sent from then on carry none.
    e.call(|c| s.offer(106 * M, c));
    assert_eq!(take(&mut e).len(), 16);
    let mut samples = Vec::new();
    for _ in 0..32 {
        acked += M;
        e.now += PS_PER_MS;
        e.call(|c| s.on_ack(&ack_pkt(acked, &[], 0), c));
        samples.push(s.last_rate_sample().unwrap().is_app_limited);
        take(&mut e);
    }
    assert_eq!(samples, [[true; 16], [false; 16]].concat());
}

/// Model revision 11, Karn's rule in the rate sample's RTT (Linux `rs->rtt_us`, which BBR's
/// minimum RTT reads): ten segments leave at t = 0, the timer resends segment 0 at 1 s and the
/// original's acknowledgement (echoing t = 0) arrives 0.5 ms later. The resend gives no RTT; the
/// echoed timestamp gives 1.0005 s. Before, the sample said 0.5 ms (from the resend). A later
/// acknowledgement of never-retransmitted segments measures from their own send time.
#[test]
fn a_rate_sample_takes_no_rtt_from_a_retransmission_whose_original_was_acknowledged() {
    let (mut e, mut s) = started_with_rate_estimator(SenderSettings { limited_transmit: false, ..settings(Recovery::Sack, true) }, u64::MAX);
    assert_eq!(take(&mut e).len(), 10);
    e.now = e.timers[TIMER_RTO as usize];
    let rto_at = e.now;
    e.call(|c| s.on_rto(c));
    assert_eq!(take(&mut e), vec![(0, 1000, true)]);
    e.now = rto_at + PS_PER_MS / 2;
    e.call(|c| s.on_ack(&ack_pkt(M, &[], 0), c));
    assert_eq!(s.last_rate_sample().unwrap().rtt_ps, rto_at + PS_PER_MS / 2, "the echoed timestamp, not the resend");
    // A SACK of segment 5 (sent once, at t = 0) and no advance: its own send time.
    e.now += PS_PER_MS;
    let now = e.now;
    e.call(|c| s.on_ack(&ack_pkt(M, &[(5 * M, 6 * M)], 0), c));
    assert_eq!(s.last_rate_sample().unwrap().rtt_ps, now);
}

/// Karn's rule is per acknowledgement, as Linux's FLAG_RETRANS_DATA_ACKED: a cumulative ack
/// that covers a resent segment gives no RTT from the never-resent segments it also covers
/// (they waited behind the hole), only the echoed timestamp. NewReno without SACK: segment 0 of
/// 10 is lost, its fast retransmit leaves at 12 ms and the full acknowledgement at 22 ms echoes
/// it: 10 ms, not the 22 ms since segment 9 left.
#[test]
fn a_cumulative_ack_covering_a_resend_takes_its_rtt_from_the_timestamp_only() {
    let (mut e, mut s) = started_with_rate_estimator(settings(Recovery::NewReno, false), 10 * M);
    assert_eq!(take(&mut e).len(), 10);
    for k in 0..3u64 {
        e.now = (10 + k) * PS_PER_MS;
        e.call(|c| s.on_ack(&ack_pkt(0, &[], 0), c));
    }
    let resend_at = e.now;
    assert!(take(&mut e).contains(&(0, 1000, true)), "the fast retransmit");
    e.now = resend_at + 10 * PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(10 * M, &[], resend_at), c));
    assert_eq!(s.last_rate_sample().unwrap().rtt_ps, 10 * PS_PER_MS);
}

#[test]
fn sack_delivers_segments_to_the_rate_sample_when_they_are_sacked_not_when_acked() {
    let (mut e, mut s) = started_with_rate_estimator(SenderSettings { limited_transmit: false, ..settings(Recovery::Sack, true) }, u64::MAX);
    e.now = PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(0, &[(M, 3 * M)], 0), c));
    assert_eq!(s.delivered_bytes(), 2 * M);
    e.now = 2 * PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(3 * M, &[], 0), c));
    assert_eq!(s.delivered_bytes(), 3 * M, "the SACKed segments are not counted twice");
}

#[test]
fn a_rate_sample_counts_the_bytes_its_sack_makes_lost_once_and_none_after_a_timeout() {
    // Linux rs->losses (BBR reads it): segments 0 and 5 are lost; the rest of the window of 10
    // arrives. RFC 6675 IsLost (dupthresh 3): a hole is lost once more than 2 segments are
    // SACKed above it.
    let (mut e, mut s) = started_with_rate_estimator(SenderSettings { limited_transmit: false, ..settings(Recovery::Sack, true) }, u64::MAX);
    let mut lost_per_ack = Vec::new();
    for k in [1u64, 2, 3, 4, 6, 7, 8, 9] {
        e.now += PS_PER_MS;
        let blocks: Vec<(u64, u64)> = if k < 5 { vec![(M, (k + 1) * M)] } else { vec![(6 * M, (k + 1) * M), (M, 5 * M)] };
        e.call(|c| s.on_ack(&ack_pkt(0, &blocks, 0), c));
        lost_per_ack.push(s.last_rate_sample().unwrap().newly_lost_bytes);
    }
    // Segment 0 is lost when the third segment above it is SACKed (k = 3); segment 5 when the
    // third above it is (k = 8); each is counted once.
    assert_eq!(lost_per_ack, vec![0, 0, M, 0, 0, 0, M, 0]);
    // A timeout deems the whole window lost without a sample; the acknowledgements that follow
    // report no loss for it again.
    e.now = e.timers[TIMER_RTO as usize];
    e.call(|c| s.on_rto(c));
    e.now += PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(M, &[(6 * M, 10 * M), (2 * M, 5 * M)], 0), c));
    assert_eq!(s.last_rate_sample().unwrap().newly_lost_bytes, 0);
}

#[test]
fn a_rack_sender_s_rate_sample_carries_the_losses_rack_marks_on_the_same_acknowledgement() {
    // Linux `tcp_ack`: RACK marks losses (`tcp_fastretrans_alert`) before `tcp_rate_gen`, so
    // `rs->losses` and the in-flight count see them. Ten segments leave at t = 0; segment 0 is
    // acknowledged at 10 ms (min RTT 10 ms, reo_wnd 2.5 ms); segment 1 is lost and 2, 3, 4 are
    // SACKed at 11, 12 and 13 ms. With one or two SACKed, segment 1's deadline (its send time +
    // RACK.rtt + reo_wnd) lies ahead; with three (dupthresh, no reordering seen) reo_wnd is 0
    // and RACK.rtt is 13 ms, so it is lost on that acknowledgement.
    let mut e = end();
    let mut s = sender(settings(Recovery::RackTlp, true), 10, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    assert_eq!(take(&mut e).len(), 10);
    e.now = 10 * PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(M, &[], 0), c));
    let mut samples = Vec::new();
    for k in 2..=4u64 {
        e.now = (9 + k) * PS_PER_MS;
        e.call(|c| s.on_ack(&ack_pkt(M, &[(2 * M, (k + 1) * M)], 0), c));
        let rs = s.last_rate_sample().unwrap();
        assert_eq!(rs.now, e.now, "every acknowledgement here gives a sample");
        samples.push((rs.newly_lost_bytes, rs.in_flight_bytes, s.report().rack.map_or(0, |r| r.marked_lost_segs)));
    }
    // In flight = outstanding - SACKed - lost, before this acknowledgement's transmissions:
    // the acknowledgement at 10 ms left 11 segments outstanding (slow start, window 11), and
    // each SACK since frees one segment of the window, which goes out as new data (Linux's
    // disorder state counts `tcp_packets_in_flight`): 11 - 1, 12 - 2, 13 - 3 - 1 segments.
    assert_eq!(samples, vec![(0, 10 * M, 0), (0, 10 * M, 0), (M, 9 * M, 1)]);
    assert_eq!(s.report().fast_retx, 1, "the loss starts a recovery after the sample");
}

#[test]
fn pacing_spaces_segments_at_twice_cwnd_over_srtt_in_slow_start_after_the_initial_burst() {
    let mut e = end();
    let mut s = sender(SenderSettings { pacing: true, ..settings(Recovery::NewReno, false) }, 10, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    // No RTT yet and the initial quantum: 10 segments back to back.
    assert_eq!(take(&mut e).len(), 10);
    assert_eq!(s.pacing_rate_bps(), None);
    e.now = 100 * PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(M, &[], 0), c));
    // srtt 100 ms, cwnd 11000 bytes, slow start: 2 * 11000 * 8 / 0.1 s = 1.76 Mbit/s.
    let rate = s.pacing_rate_bps().unwrap();
    assert!((rate - 1.76e6).abs() < 1e-3, "{rate}");
    // The window allows two segments: the first leaves now, the second one wire time later
    // (1040 bytes at 1.76 Mbit/s = 4.727 ms).
    assert_eq!(take(&mut e).len(), 1);
    let gap = (1040.0 * 8.0 / rate * PS_PER_S as f64) as SimTime;
    assert_eq!(e.timers[crate::transport::TIMER_PACING as usize], e.now + gap);
    e.now += gap;
    e.call(|c| s.on_pacing_timer(c));
    assert_eq!(take(&mut e), vec![(11_000, 1000, false)]);
}

/// Fuzz campaign (issue 14, class 8): a go-back-N burst after a timeout looks up the next SACKed
/// range once per hole, not per segment (a window-unlimited sender resends 10^7 segments). It
/// must still skip every SACKed byte and cut a segment where a SACKed range starts.
#[test]
fn go_back_n_after_a_timeout_skips_sacked_ranges_and_cuts_segments_at_their_edges() {
    let mut e = end();
    let cc = super::cc::AnyCc::build(&super::cc::CcConfig::NoCc(Default::default()), super::cc::CcInit { mss: MSS, init_cwnd_pkts: 10 });
    let mut s = super::sender::TcpSender::new(SenderSettings { limited_transmit: false, ..settings(Recovery::Sack, false) }, cc, u64::MAX);
    s.set_initial_rwnd(10 * M);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    assert_eq!(take(&mut e).len(), 10, "cc = none: the receiver's 10-segment window is the limit");
    // A duplicate acknowledgement: the receiver holds [2500, 3000) and [6000, 7000) (too little
    // to deem anything lost, RFC 6675 s4 IsLost, so no recovery starts).
    e.now = PS_PER_MS;
    let dup = Packet { window_bytes: 10 * MSS, ..ack_pkt(0, &[(2500, 3 * M), (6 * M, 7 * M)], 0) };
    e.call(|c| s.on_ack(&dup, c));
    assert_eq!(take(&mut e), vec![], "the window is full");
    e.now = e.timers[TIMER_RTO as usize];
    e.call(|c| s.on_rto(c));
    let resent: Vec<(u64, u32, bool)> = [(0, 1000), (1000, 1000), (2000, 500), (3000, 1000), (4000, 1000), (5000, 1000), (7000, 1000), (8000, 1000), (9000, 1000)]
        .iter()
        .map(|&(seq, len)| (seq, len, true))
        .collect();
    assert_eq!(take(&mut e), resent);
}

/// Model revision 11: after a timeout a SACK sender counts in flight what Linux
/// (`tcp_timeout_mark_lost`, `tcp_packets_in_flight`) and ns-3 (`SetSentListLost`,
/// `BytesInFlight`) count: every un-SACKed byte outstanding at the timeout is lost, so what is
/// in flight is what was resent since and is not SACKed, plus new data. SACKed ranges between
/// snd_una and the go-back point take up no window. Segments 0, 3 and 6 of 20 are lost, and
/// everything the fast recovery sends; the timer resends 0; its acknowledgement (3000, the
/// receiver holds 1 and 2) leaves nothing in flight, so the window of 3 segments resends both
/// holes and segment 20. Counting the window from snd_una, as before, resent only segment 3
/// ([4000, 6000) filled the rest).
#[test]
fn after_a_timeout_sacked_ranges_take_up_no_window_and_holes_go_out_as_in_linux() {
    let mut e = end();
    let mut s = sender(SenderSettings { limited_transmit: false, ..settings(Recovery::Sack, true) }, 20, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    assert_eq!(take(&mut e).len(), 20);
    // The receiver holds everything but segments 0, 3 and 6: a fast recovery starts.
    e.now = PS_PER_MS;
    let held = [(M, 3 * M), (4 * M, 6 * M), (7 * M, 20 * M)];
    e.call(|c| s.on_ack(&ack_pkt(0, &held, 0), c));
    // The recovery resends the three holes and sends segments 20 to 26 (PRR's window).
    let sent = take(&mut e);
    assert_eq!(sent.iter().filter(|x| x.2).map(|x| x.0).collect::<Vec<_>>(), vec![0, 3 * M, 6 * M]);
    assert_eq!(sent.iter().filter(|x| !x.2).map(|x| x.0).collect::<Vec<_>>(), (20..27).map(|k| k * M).collect::<Vec<_>>());
    // All of it is lost too: the timer fires and resends the head only.
    e.now = e.timers[TIMER_RTO as usize];
    let resent_at = e.now;
    e.call(|c| s.on_rto(c));
    assert_eq!(take(&mut e), vec![(0, 1000, true)]);
    assert_eq!(s.cwnd_bytes(), M);
    // The resent head arrives: the cumulative ack jumps over the SACKed [1000, 3000).
    e.now += 10 * PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(3 * M, &held[1..], resent_at), c));
    // Slow start from one segment: 3000 bytes acknowledged, at most 2 segments added (RFC 3465).
    assert_eq!(s.cwnd_bytes(), 3 * M);
    // Segments 20 to 26 count as lost as well (nothing SACKed them): 20 is the third.
    assert_eq!(take(&mut e), vec![(3 * M, 1000, true), (6 * M, 1000, true), (20 * M, 1000, true)]);
    // Segment 3's resend arrives: ack 6000. In flight: the resends of 6 and 20; the window of
    // 5 segments resends 21 to 23.
    e.now += PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(6 * M, &held[2..], resent_at), c));
    assert_eq!(s.cwnd_bytes(), 5 * M);
    assert_eq!(take(&mut e), vec![(21 * M, 1000, true), (22 * M, 1000, true), (23 * M, 1000, true)]);
}

/// After a timeout with SACK, an early duplicate goes to the in-flight count (Linux sends in
/// CA_Loss within cwnd over `tcp_packets_in_flight`), not to limited transmit (RFC 3042), which
/// sends only new data and only once the go-back-N has reached snd_max. The head's resend is
/// acknowledged (cwnd 2 segments, 1 and 2 resent); a duplicate then SACKs 2's resend, so only
/// 1's is in flight and the go-back-N resends 3. Before, the duplicate went to limited
/// transmit, which sent nothing and returned: the freed window waited for the next advance.
#[test]
fn after_a_timeout_with_sack_an_early_duplicate_frees_the_window_for_the_next_hole() {
    let mut e = end();
    let mut s = sender(settings(Recovery::Sack, true), 10, u64::MAX);
    e.call(|c| { s.offer(u64::MAX, c); s.start(c) });
    assert_eq!(take(&mut e).len(), 10);
    e.now = e.timers[TIMER_RTO as usize];
    let resent_at = e.now;
    e.call(|c| s.on_rto(c));
    assert_eq!(take(&mut e), vec![(0, 1000, true)]);
    e.now += 10 * PS_PER_MS;
    let second_at = e.now;
    e.call(|c| s.on_ack(&ack_pkt(M, &[], resent_at), c));
    assert_eq!(s.cwnd_bytes(), 2 * M);
    assert_eq!(take(&mut e), vec![(M, 1000, true), (2 * M, 1000, true)]);
    e.now += 10 * PS_PER_MS;
    e.call(|c| s.on_ack(&ack_pkt(M, &[(2 * M, 3 * M)], second_at), c));
    assert_eq!(s.cwnd_bytes(), 2 * M, "a duplicate grows no window");
    assert_eq!(take(&mut e), vec![(3 * M, 1000, true)]);
}

// ------------------------------------------------------------------------------------------
// Window restart after idle (tcp.slow_start_after_idle: RFC 5681 s4.1, Linux tcp_cwnd_restart)
// ------------------------------------------------------------------------------------------

/// A NewReno sender (initial window 2 segments, no limited transmit) brought to a window of 12
/// segments with ssthresh 8 segments and nothing in flight, every RTT sample 10 ms (so the RTO
/// is the 200 ms floor). Returns the engine end, the sender and when it last sent data.
fn sender_gone_idle(slow_start_after_idle: bool) -> (Harness, super::sender::TcpSender, SimTime) {
    const RTT: SimTime = 10 * PS_PER_MS;
    let mut e = end();
    let st = SenderSettings { limited_transmit: false, slow_start_after_idle, ..settings(Recovery::NewReno, false) };
    let mut s = sender(st, 2, u64::MAX);
    let mut offered = 30 * M;
    e.now = RTT;
    e.call(|c| { s.offer(offered, c); s.start(c) });
    let mut last_sent = e.now;
    let ack = |e: &mut Harness, s: &mut super::sender::TcpSender, a: u64, last_sent: &mut SimTime| {
        e.now += PS_PER_MS;
        let now = e.now;
        e.call(|c| s.on_ack(&ack_pkt(a, &[], now - RTT), c));
        if !take(e).is_empty() {
            *last_sent = e.now;
        }
    };
    // Slow start to 16 segments (14 acks of one segment each), 16 in flight.
    for k in 1..=14 {
        ack(&mut e, &mut s, k * M, &mut last_sent);
    }
    assert_eq!((s.cwnd_bytes(), s.in_flight()), (16 * M, 16 * M));
    // Three duplicates: ssthresh = FlightSize / 2 = 8 segments; the full ack ends recovery.
    for _ in 0..3 {
        ack(&mut e, &mut s, 14 * M, &mut last_sent);
    }
    ack(&mut e, &mut s, 30 * M, &mut last_sent);
    assert_eq!((s.cwnd_bytes(), s.cc().ssthresh_bytes()), (8 * M, 8 * M));
    // Congestion avoidance to 12 segments (8 + 9 + 10 + 11 acknowledged segments), the
    // application offering just enough, then everything acknowledged.
    offered += 38 * M;
    e.call(|c| s.offer(offered, c));
    if !take(&mut e).is_empty() {
        last_sent = e.now;
    }
    let mut una = 30 * M;
    while una < s.snd_max() {
        una += M;
        ack(&mut e, &mut s, una, &mut last_sent);
    }
    assert_eq!(s.snd_max(), offered);
    assert_eq!((s.cwnd_bytes(), s.cc().ssthresh_bytes(), s.in_flight()), (12 * M, 8 * M, 0));
    assert_eq!(s.rto_ps(), 200 * PS_PER_MS);
    (e, s, last_sent)
}

/// After `idle` since the last data segment, the application offers 20 more segments: the
/// window, ssthresh and the number of segments sent at once.
fn offer_after_idle(slow_start_after_idle: bool, idle: SimTime) -> (u64, u64, usize) {
    let (mut e, mut s, last_sent) = sender_gone_idle(slow_start_after_idle);
    e.now = last_sent + idle;
    let more = s.snd_max() + 20 * M;
    e.call(|c| s.offer(more, c));
    (s.cwnd_bytes(), s.cc().ssthresh_bytes(), take(&mut e).len())
}

#[test]
fn a_sender_idle_for_more_than_an_rto_halves_its_window_per_rto_down_to_the_initial_window() {
    // Linux tcp_cwnd_restart by hand, cwnd 12 segments, ssthresh 8, IW 2, RTO 200 ms:
    // idle <= RTO: nothing changes. Otherwise ssthresh = max(8, 12/2 + 12/4 = 9) = 9 segments,
    // RW = min(2, 12) = 2, and cwnd halves while (idle -= RTO) > 0 and cwnd > RW:
    // 1.5 RTO -> 6 segments, 2.5 RTO -> 3, 3.5 RTO -> 1.5, floored at RW = 2.
    let rto = 200 * PS_PER_MS;
    let at = |k_halves: u64| offer_after_idle(true, k_halves * rto / 2);
    assert_eq!(at(1), (12 * M, 8 * M, 12), "0.5 RTO: no restart, the whole window goes at once");
    assert_eq!(at(3), (6 * M, 9 * M, 6), "1.5 RTO");
    assert_eq!(at(5), (3 * M, 9 * M, 3), "2.5 RTO");
    assert_eq!(at(7), (2 * M, 9 * M, 2), "3.5 RTO: the restart window, min(IW, cwnd)");
}

#[test]
fn without_the_setting_the_window_survives_idle_periods_unchanged() {
    for k_halves in [1, 3, 5, 7] {
        assert_eq!(offer_after_idle(false, k_halves * 100 * PS_PER_MS), (12 * M, 8 * M, 12), "{k_halves} half RTOs");
    }
}

#[test]
fn a_sender_with_data_in_flight_is_not_idle_however_long_ago_it_sent() {
    // One segment goes out and is not acknowledged; 3.5 RTOs later (the timer is not run here)
    // the application offers more: packets_out > 0, so no restart (Linux alike).
    let (mut e, mut s, last_sent) = sender_gone_idle(true);
    let one = s.snd_max() + M;
    e.now = last_sent + PS_PER_MS;
    e.call(|c| s.offer(one, c));
    assert_eq!(take(&mut e).len(), 1);
    e.now += 700 * PS_PER_MS;
    let more = one + 20 * M;
    e.call(|c| s.offer(more, c));
    assert_eq!((s.cwnd_bytes(), s.cc().ssthresh_bytes(), take(&mut e).len()), (12 * M, 8 * M, 11));
}
