//! RACK-TLP (`recovery = "rack_tlp"`, RFC 8985) against RFC 6675 SACK recovery on a scripted
//! path: a bottleneck that serves one segment per millisecond, 10 ms of propagation each way
//! (minimum RTT 21 ms, so RACK's reordering window min_RTT / 4 is 5.25 ms), acknowledgements
//! back without queueing, and a script that drops or delays chosen transmissions of chosen
//! segments. Each test runs the same script under both recoveries.

use super::cc::CongestionControl;
use super::receiver::ReceiverSettings;
use super::testing::{receiver_settings, receiver_with, sender, settings, MSS};
use super::Recovery;
use crate::net::packet::Packet;
use crate::sim::{SimTime, PS_PER_MS, PS_PER_US};
use crate::transport::testing::Harness;
use crate::transport::{NEVER, TIMER_RTO};
use std::collections::HashMap;

const M: u64 = MSS as u64;
const MS: SimTime = PS_PER_MS;
/// One-way propagation delay.
const PROP: SimTime = 10 * MS;

/// What the path does to transmission `k` (0: the first) of segment `idx`: None drops it at the
/// bottleneck's entry, Some(extra) delivers it `extra` after the path's own delay.
type Script = dyn Fn(u64, u32) -> Option<SimTime>;

/// [`Script`] that also sees when the transmission would leave the bottleneck (for outages and
/// stalls that begin at a time).
type TimedScript<'a> = dyn Fn(u64, u32, SimTime) -> Option<SimTime> + 'a;

/// Outcome of one transfer.
#[derive(Debug)]
struct Outcome {
    completion_ps: SimTime,
    timeouts: u64,
    fast_retx: u64,
    retx_pkts: u64,
    /// (probes, probes that repaired a loss, segments RACK marked lost).
    rack: (u64, u64, u64),
    reordering_seen: bool,
    /// (D-SACKs received, reo_wnd's multiplier at the end).
    dsack: (u64, u8),
    /// (fast recoveries undone, timeouts undone).
    undone: (u64, u64),
    /// ssthresh at the end, bytes.
    ssthresh_end: u64,
    /// ssthresh just before and just after the first retransmission timeout.
    first_rto_ssthresh: Option<(u64, u64)>,
    /// Timeouts F-RTO found spurious.
    frto_spurious: u64,
    /// Every data transmission: (time, segment, transmission of it, 0 the first).
    trace: Vec<(SimTime, u64, u32)>,
    /// snd_max just before the first retransmission timeout, segments.
    snd_max_at_first_rto: Option<u64>,
}

/// Sends `segments` segments with `recovery` (PRR on) along the scripted path.
fn run(recovery: Recovery, segments: u64, script: &Script) -> Outcome {
    run_offered(recovery, segments, segments, NEVER, script).0
}

/// [`run`] with a receiver that sends D-SACKs (RFC 2883).
fn run_dsack(recovery: Recovery, segments: u64, script: &Script) -> Outcome {
    run_with(recovery, segments, segments, NEVER, script, true).0
}

/// A RACK-TLP transfer with undo (`tcp.undo`) on or off, the receiver sending D-SACKs if
/// `dsack`.
fn run_undo(segments: u64, script: &Script, dsack: bool, undo: bool) -> Outcome {
    run_full(Recovery::RackTlp, segments, segments, NEVER, script, dsack, undo).0
}

/// [`run`] with an application that offers `first` segments at the start and the rest at
/// `rest_at`; also returns ssthresh just before `rest_at`, and at the end.
fn run_offered(recovery: Recovery, segments: u64, first: u64, rest_at: SimTime, script: &Script) -> (Outcome, u64, u64) {
    run_with(recovery, segments, first, rest_at, script, false)
}

/// [`run_offered`], the receiver sending D-SACKs if `dsack`.
fn run_with(recovery: Recovery, segments: u64, first: u64, rest_at: SimTime, script: &Script, dsack: bool) -> (Outcome, u64, u64) {
    run_full(recovery, segments, first, rest_at, script, dsack, false)
}

/// [`run_with`], the sender undoing spurious reductions if `undo`.
fn run_full(recovery: Recovery, segments: u64, first: u64, rest_at: SimTime, script: &Script, dsack: bool, undo: bool) -> (Outcome, u64, u64) {
    run_timed(recovery, segments, first, rest_at, &|idx, k, _| script(idx, k), dsack, undo, false)
}

/// A RACK-TLP transfer with D-SACK and undo, F-RTO on or off, on a timed script.
fn run_frto(segments: u64, script: &TimedScript<'_>, frto: bool) -> Outcome {
    run_timed(Recovery::RackTlp, segments, segments, NEVER, script, true, true, frto).0
}

/// [`run_full`] on a timed script, the sender running F-RTO if `frto`.
#[allow(clippy::too_many_arguments)]
fn run_timed(recovery: Recovery, segments: u64, first: u64, rest_at: SimTime, script: &TimedScript<'_>, dsack: bool, undo: bool, frto: bool) -> (Outcome, u64, u64) {
    let (mut es, mut er) = (Harness::new("test"), Harness::new("test"));
    let s_settings = settings(recovery, true);
    let mut s = sender(s_settings, 10, segments * M);
    s.set_undo(undo);
    s.set_frto(frto);
    let mut trace = Vec::new();
    let mut snd_max_at_first_rto = None;
    let mut r = receiver_with(ReceiverSettings { dsack, ..receiver_settings(false, s_settings.sack) });
    es.call(|c| {
        s.offer(first * M, c);
        s.start(c)
    });
    let mut ssthresh_before = 0;
    let mut first_rto_ssthresh = None;
    let mut rest_offered = rest_at == NEVER;
    // In flight: (arrival, order, is_ack, packet).
    let mut events: Vec<(SimTime, u64, bool, Packet)> = Vec::new();
    let mut order = 0u64;
    let mut link_free: SimTime = 0;
    let mut sent: HashMap<u64, u32> = HashMap::new();
    let mut steps = 0;
    while !s.is_complete() {
        steps += 1;
        assert!(steps < 200_000, "transfer does not finish");
        for (p, _) in es.out.drain(..) {
            let idx = p.seq / M;
            let k = sent.entry(idx).or_insert(0);
            let depart = link_free.max(es.now) + MS;
            let fate = script(idx, *k, depart);
            trace.push((es.now, idx, *k));
            *k += 1;
            if let Some(extra) = fate {
                link_free = depart;
                order += 1;
                events.push((depart + PROP + extra, order, false, p));
            }
        }
        let next = events.iter().enumerate().min_by_key(|(_, e)| (e.0, e.1)).map(|(i, e)| (i, e.0));
        let rto = es.timers[TIMER_RTO as usize];
        if !rest_offered && next.is_none_or(|(_, t)| t >= rest_at) && rto >= rest_at {
            rest_offered = true;
            ssthresh_before = s.cc().ssthresh_bytes();
            es.now = rest_at;
            es.call(|c| s.offer(segments * M, c));
            continue;
        }
        match next {
            Some((_, t)) if t < rto => {}
            _ => {
                assert_ne!(rto, NEVER, "stalled with nothing in flight");
                es.now = rto;
                es.timers[TIMER_RTO as usize] = NEVER;
                let (before, timeouts) = (s.cc().ssthresh_bytes(), s.report().timeouts);
                let snd_max = s.snd_max();
                es.call(|c| s.on_rto(c));
                if first_rto_ssthresh.is_none() && s.report().timeouts > timeouts {
                    snd_max_at_first_rto = Some(snd_max.div_ceil(M));
                    first_rto_ssthresh = Some((before, s.cc().ssthresh_bytes()));
                }
                continue;
            }
        }
        let (i, t) = next.unwrap();
        let (_, _, is_ack, p) = events.swap_remove(i);
        if is_ack {
            es.now = t;
            es.call(|c| s.on_ack(&p, c));
        } else {
            er.now = t;
            er.call(|c| r.on_data(&p, c));
            for (a, _) in er.out.drain(..) {
                order += 1;
                events.push((t + PROP, order, true, a));
            }
        }
    }
    let rep = s.report();
    let rk = rep.rack.unwrap_or_default();
    let out = Outcome {
        completion_ps: es.now,
        timeouts: rep.timeouts,
        fast_retx: rep.fast_retx,
        retx_pkts: rep.retx_pkts,
        rack: (rk.probes, rk.probe_recoveries, rk.marked_lost_segs),
        reordering_seen: s.rack_reordering_seen(),
        dsack: (rk.dsacks, s.rack_reo_wnd_steps()),
        undone: (rk.recoveries_undone, rk.timeouts_undone),
        ssthresh_end: s.cc().ssthresh_bytes(),
        first_rto_ssthresh,
        frto_spurious: rk.frto_spurious_rtos,
        trace,
        snd_max_at_first_rto,
    };
    (out, ssthresh_before, s.cc().ssthresh_bytes())
}

fn clean(_: u64, _: u32) -> Option<SimTime> {
    Some(0)
}

#[test]
fn reordering_within_the_window_is_not_a_loss_for_rack_once_reordering_has_been_seen() {
    // Segment 20 arrives 1.5 ms late (one segment overtakes it: no retransmission either way,
    // but RACK notes the reordering); segment 60 arrives 4.5 ms late, after four later
    // segments. RFC 6675's third duplicate retransmits it; RACK waits min_RTT / 4 = 5.25 ms
    // from its transmission and the segment arrives first.
    let script = |idx: u64, k: u32| Some(if k == 0 && idx == 20 { 1500 * PS_PER_US } else if k == 0 && idx == 60 { 4500 * PS_PER_US } else { 0 });
    let sack = run(Recovery::Sack, 150, &script);
    assert_eq!(sack.fast_retx, 1, "{sack:?}");
    assert!(sack.retx_pkts >= 1, "RFC 6675 retransmits the late segment: {sack:?}");
    let rack = run(Recovery::RackTlp, 150, &script);
    assert!(rack.reordering_seen, "{rack:?}");
    assert_eq!((rack.fast_retx, rack.retx_pkts, rack.timeouts, rack.rack.2), (0, 0, 0, 0), "{rack:?}");
    // The same late segment without the earlier reordering: Linux's reordering window is 0
    // once dupthresh segments are SACKed (`tcp_rack_reo_wnd`), so RACK retransmits too.
    let once = |idx: u64, k: u32| Some(if k == 0 && idx == 60 { 4500 * PS_PER_US } else { 0 });
    let rack = run(Recovery::RackTlp, 150, &once);
    assert!(!rack.reordering_seen, "{rack:?}");
    assert_eq!((rack.fast_retx, rack.retx_pkts), (1, 1), "{rack:?}");
}

#[test]
fn a_tail_loss_is_repaired_by_a_probe_within_a_few_rtts_where_sack_recovery_times_out() {
    let n = 100;
    let base = run(Recovery::Sack, n, &clean).completion_ps;
    for lost in [2, 3] {
        let script = move |idx: u64, k: u32| if k == 0 && idx >= n - lost { None } else { Some(0) };
        let sack = run(Recovery::Sack, n, &script);
        assert_eq!(sack.timeouts, 1, "{lost} lost: {sack:?}");
        assert!(sack.completion_ps >= base + 200 * MS, "at least the minimum RTO later: {sack:?}");
        let rack = run(Recovery::RackTlp, n, &script);
        assert_eq!(rack.timeouts, 0, "{lost} lost: {rack:?}");
        assert_eq!(rack.rack.0, 1, "one probe: {rack:?}");
        // The probe retransmits the last segment; the losses below it are then found by RACK
        // and repaired in one recovery.
        assert_eq!((rack.retx_pkts, rack.fast_retx), (lost, 1), "{lost} lost: {rack:?}");
        // The probe leaves 2 SRTT + 2 ms after the last acknowledgement (SRTT here is about
        // 30 ms with the queue), the recovery takes about one RTT more.
        let late = rack.completion_ps - base;
        assert!(late < 150 * MS, "{lost} lost: {} ms later than without loss: {rack:?}", late / MS);
        assert!(rack.completion_ps + 50 * MS < sack.completion_ps, "{rack:?} against {sack:?}");
    }
}

#[test]
fn a_lone_tail_segment_is_probed_no_later_than_the_rto_would_fire() {
    // One segment outstanding: Linux's PTO adds the minimum RTO for a delayed acknowledgement
    // (`tcp_schedule_loss_probe`), and the PTO is capped at the RTO, so the probe goes out
    // when the timeout would have: no gain in time, but no timeout (the window is kept).
    let n = 100;
    let script = move |idx: u64, k: u32| if k == 0 && idx == n - 1 { None } else { Some(0) };
    let sack = run(Recovery::Sack, n, &script);
    let rack = run(Recovery::RackTlp, n, &script);
    assert_eq!(sack.timeouts, 1, "{sack:?}");
    assert_eq!((rack.timeouts, rack.rack.0, rack.retx_pkts), (0, 1, 1), "{rack:?}");
    assert!(rack.completion_ps <= sack.completion_ps, "{rack:?} against {sack:?}");
}

#[test]
fn a_lost_retransmission_is_found_by_rack_without_a_timeout() {
    // Segment 30 is lost, and so is its first retransmission. RFC 6675 keeps the hole marked
    // as retransmitted until the timer; RACK sees later segments, sent after the
    // retransmission, delivered, and retransmits again.
    let script = |idx: u64, k: u32| if idx == 30 && k < 2 { None } else { Some(0) };
    let sack = run(Recovery::Sack, 200, &script);
    assert!(sack.timeouts >= 1, "{sack:?}");
    let rack = run(Recovery::RackTlp, 200, &script);
    assert_eq!((rack.timeouts, rack.fast_retx, rack.retx_pkts), (0, 1, 2), "{rack:?}");
    assert_eq!(rack.rack.2, 2, "marked lost twice: {rack:?}");
    assert!(rack.completion_ps < sack.completion_ps, "{rack:?} against {sack:?}");
}

#[test]
fn without_loss_or_reordering_rack_tlp_sends_what_sack_recovery_sends() {
    let sack = run(Recovery::Sack, 300, &clean);
    let rack = run(Recovery::RackTlp, 300, &clean);
    assert_eq!(sack.completion_ps, rack.completion_ps);
    assert_eq!((rack.retx_pkts, rack.timeouts, rack.rack), (0, 0, (0, 0, 0)), "{rack:?}");
}

#[test]
fn a_burst_of_losses_is_repaired_in_one_recovery() {
    // Three losses in one window (as the RFC 6675 tests in tests.rs).
    let script = |idx: u64, k: u32| if k == 0 && [30, 33, 36].contains(&idx) { None } else { Some(0) };
    let rack = run(Recovery::RackTlp, 200, &script);
    assert_eq!((rack.fast_retx, rack.timeouts, rack.retx_pkts), (1, 0, 3), "{rack:?}");
}

#[test]
fn a_probe_that_repaired_a_loss_cuts_the_window_once_when_later_data_is_acknowledged() {
    // The application offers 40 segments, then 60 more at 2 s. The 40th is lost: the probe
    // retransmits it and its acknowledgement covers TLP.end_seq exactly, which does not tell
    // whether the original arrived too. The first acknowledgement of the data offered at 2 s
    // goes beyond it without a duplicate in between: only the probe's copy arrived, a loss
    // (RFC 8985 s7.4, Linux `tcp_process_tlp_ack`), and the window is cut once.
    let script = |idx: u64, k: u32| if k == 0 && idx == 39 { None } else { Some(0) };
    let (rack, before, after) = run_offered(Recovery::RackTlp, 100, 40, 2 * PS_PER_MS * 1000, &script);
    assert_eq!((rack.timeouts, rack.fast_retx, rack.retx_pkts), (0, 0, 1), "{rack:?}");
    assert_eq!((rack.rack.0, rack.rack.1), (1, 1), "one probe, which repaired a loss: {rack:?}");
    assert!(before > 1 << 60, "no reduction before the later data: ssthresh {before}");
    assert!(after < 1 << 40, "the probe's loss cut the window: ssthresh {after}");
    // Without the loss, no probe and no cut.
    let (clean_run, _, after) = run_offered(Recovery::RackTlp, 100, 40, 2 * PS_PER_MS * 1000, &clean);
    assert_eq!(clean_run.rack, (0, 0, 0), "{clean_run:?}");
    assert!(after > 1 << 60);
}

#[test]
fn dsacks_widen_the_reordering_window_so_that_repeated_reordering_stops_costing_retransmissions() {
    // RFC 8985 s6.2 step 4 / Linux `tcp_rack_update_reo_wnd`. Segment 20 arrives 1.5 ms late
    // (reordering seen, no retransmission); segments 50, 100, ..., 350 (one every 50 ms, more
    // than two round trips apart) arrive 15 ms late, beyond min_RTT / 4 = 5.25 ms. Without
    // D-SACK RACK deems each of them lost and resends it, 7 spurious retransmissions. With
    // D-SACK each resend comes back as a duplicate and adds a step of 5.25 ms to reo_wnd; from
    // three steps (15.75 ms) on the late segments arrive within the window, and no more are
    // resent.
    let script = |idx: u64, k: u32| {
        Some(if k > 0 {
            0
        } else if idx == 20 {
            1500 * PS_PER_US
        } else if (50..=350).contains(&idx) && idx % 50 == 0 {
            15 * MS
        } else {
            0
        })
    };
    let plain = run(Recovery::RackTlp, 400, &script);
    assert!(plain.reordering_seen);
    assert_eq!((plain.retx_pkts, plain.timeouts, plain.dsack), (7, 0, (0, 1)), "{plain:?}");
    let widened = run_dsack(Recovery::RackTlp, 400, &script);
    assert_eq!(widened.timeouts, 0);
    assert_eq!(widened.dsack.0, widened.retx_pkts, "every resend is reported as a duplicate: {widened:?}");
    assert!(widened.dsack.1 >= 3, "at least three steps: {widened:?}");
    assert!(widened.retx_pkts <= 4, "the late segments after the window grew are not resent: {widened:?}");
    assert!(widened.completion_ps < plain.completion_ps, "{widened:?} {plain:?}");
}

/// The reordering of the D-SACK test above without its first, harmless reordering: segments
/// 50, 100, ..., 350 arrive 15 ms late. Each is deemed lost and resent, and each resend starts a
/// recovery that cuts the window.
fn late_every_50(idx: u64, k: u32) -> Option<SimTime> {
    Some(if k == 0 && (50..=350).contains(&idx) && idx % 50 == 0 { 15 * MS } else { 0 })
}

#[test]
fn recoveries_that_the_timestamps_show_were_spurious_are_undone() {
    // The late original fills the hole before its resend arrives: the acknowledgement it
    // triggers echoes its timestamp, from before the resend (Eifel, RFC 3522; Linux
    // `tcp_try_undo_partial`), so the recovery is undone at once, without D-SACK.
    let cut = run_undo(400, &late_every_50, false, false);
    // (Without undo two of the resends fall into one recovery.)
    assert_eq!((cut.fast_retx, cut.retx_pkts, cut.undone), (6, 7, (0, 0)), "{cut:?}");
    assert!(cut.ssthresh_end < 1 << 40, "six halvings: {cut:?}");
    let undone = run_undo(400, &late_every_50, false, true);
    assert_eq!((undone.fast_retx, undone.retx_pkts, undone.timeouts), (7, 7, 0), "{undone:?}");
    assert_eq!(undone.undone, (7, 0), "every recovery undone: {undone:?}");
    // The first recovery began in slow start, whose unbounded ssthresh the undo restores; so
    // does each later undo, and the flow never leaves slow start.
    assert!(undone.ssthresh_end > 1 << 60, "{undone:?}");
    assert!(undone.reordering_seen, "a delayed original below SACKed data is reordering: {undone:?}");
    // At one segment per millisecond, 400 segments take 400 ms at best: the undone transfer
    // ends near that, the cut one about 320 ms later.
    assert!(undone.completion_ps < 450 * MS && cut.completion_ps > 700 * MS, "{undone:?} {cut:?}");
}

#[test]
fn dsacks_of_every_resend_undo_a_recovery_and_widen_the_window_once_reordering_is_seen() {
    // With D-SACK as well: the first recovery is undone (the timestamp already shows it), and
    // the undo marks reordering as seen, from which the D-SACKs widen the reordering window.
    let both = run_undo(400, &late_every_50, true, true);
    assert_eq!(both.undone.0, both.fast_retx, "{both:?}");
    assert!(both.dsack.1 >= 2, "the window widened: {both:?}");
    assert!(both.retx_pkts <= 3, "fewer resends than the 7 without D-SACK: {both:?}");
    assert!(both.ssthresh_end > 1 << 60, "{both:?}");
}

#[test]
fn a_real_loss_is_not_undone() {
    // Segment 30 is lost: the hole is filled by the resend, whose timestamp the
    // acknowledgement echoes, and no D-SACK comes back.
    let script = |idx: u64, k: u32| if k == 0 && idx == 30 { None } else { Some(0) };
    let r = run_undo(200, &script, true, true);
    assert_eq!((r.fast_retx, r.retx_pkts, r.undone, r.dsack.0), (1, 1, (0, 0), 0), "{r:?}");
    assert!(r.ssthresh_end < 1 << 40, "the window stays cut: {r:?}");
    // A burst of losses and a lost retransmission alike.
    let script = |idx: u64, k: u32| if (k == 0 && [60, 63, 66].contains(&idx)) || (idx == 90 && k < 2) { None } else { Some(0) };
    let r = run_undo(200, &script, true, true);
    assert_eq!(r.undone, (0, 0), "{r:?}");
}

#[test]
fn a_timeout_that_the_timestamps_show_was_spurious_is_undone_and_the_go_back_n_stops() {
    // From segment 100 on the path is 400 ms longer (every transmission, resends too): the
    // acknowledgements stop for longer than the RTO, which fires and resends segment 100. The
    // original arrives first; its acknowledgement echoes a timestamp from before the resend
    // (Eifel; Linux `tcp_process_loss` -> `tcp_try_undo_loss`). Without undo the sender goes
    // back N from one segment and resends the whole window; with it the resends stop there and
    // the window and ssthresh come back.
    let script = |idx: u64, _k: u32| Some(if idx >= 100 { 400 * MS } else { 0 });
    let cut = run_undo(400, &script, false, false);
    assert_eq!((cut.timeouts, cut.undone), (1, (0, 0)), "{cut:?}");
    let (before, after) = cut.first_rto_ssthresh.expect("a timeout");
    assert!(after < before, "a timeout outside a recovery lowers ssthresh: {cut:?}");
    assert!(cut.retx_pkts > 100, "{cut:?}");
    let undone = run_undo(400, &script, false, true);
    assert_eq!((undone.timeouts, undone.undone.1), (1, 1), "{undone:?}");
    assert!(undone.retx_pkts <= 5, "{undone:?}");
    assert!(undone.ssthresh_end > 1 << 60, "back in slow start: {undone:?}");
    assert!(undone.completion_ps + 1000 * MS < cut.completion_ps, "{undone:?} {cut:?}");
}

#[test]
fn a_timeout_inside_a_recovery_keeps_the_recovery_s_ssthresh_where_sack_recovery_cuts_again() {
    // Segment 30 and its first resend are lost, and so is every first transmission from 45 on:
    // after the recovery for 30 starts, nothing is delivered that could show its resend lost,
    // and the RTO fires inside the recovery. Linux (`tcp_enter_loss`) keeps the cut the
    // recovery made; RFC 6675 recovery here, as ns-3, lowers ssthresh again.
    let script = |idx: u64, k: u32| if (idx == 30 && k < 2) || (k == 0 && idx >= 45) { None } else { Some(0) };
    let rack = run_undo(200, &script, true, true);
    let (before, after) = rack.first_rto_ssthresh.expect("a timeout");
    assert_eq!(rack.fast_retx, 1, "{rack:?}");
    assert_eq!(before, after, "{rack:?}");
    assert!(before < 1 << 40, "the recovery's cut: {rack:?}");
    let sack = run(Recovery::Sack, 200, &script);
    let (before, after) = sack.first_rto_ssthresh.expect("a timeout");
    assert!(after < before, "{sack:?}");
}

/// Drops the first transmission of segment 100 and does `then` to every transmission that
/// leaves the bottleneck in the `len` after it: None drops it, Some(f) delivers it `f(depart,
/// start)` later than the path would (`start`: when segment 100 would have left).
fn after_segment_100(len: SimTime, then: impl Fn(SimTime, SimTime) -> Option<SimTime>) -> impl Fn(u64, u32, SimTime) -> Option<SimTime> {
    let start = std::cell::Cell::new(NEVER);
    move |idx, k, depart| {
        if idx == 100 && k == 0 {
            start.set(depart);
            return None;
        }
        let s = start.get();
        if depart >= s && depart < s + len {
            then(depart, s)
        } else {
            Some(0)
        }
    }
}

/// The transmissions that follow the `k`-th transmission of segment `idx`: (segment, its
/// transmission).
fn sends_after(o: &Outcome, idx: u64, k: u32, n: usize) -> Vec<(u64, u32)> {
    let at = o.trace.iter().position(|&(_, i, j)| i == idx && j == k).expect("that transmission");
    o.trace[at + 1..].iter().take(n).map(|&(_, i, j)| (i, j)).collect()
}

#[test]
fn a_timeout_after_which_never_resent_data_is_sacked_is_undone_by_f_rto_where_the_timestamps_cannot_show_it() {
    // Segment 100 is lost and the path then holds everything for 500 ms (a stall): the RTO fires
    // and resends 100, which the stall holds too, behind the originals. When the stall ends the
    // receiver gets 101, 102, ... out of order and SACKs them, then 100's resend fills the hole.
    // The SACKs acknowledge nothing new (no Eifel test), and the acknowledgement that does
    // echoes the resend's timestamp; but they SACK data never resent, sent before the timeout:
    // F-RTO's step 3.b (RFC 5682; Linux FLAG_ORIG_SACK_ACKED) finds the timeout spurious and
    // undoes it, as Linux does.
    let stall = after_segment_100(500 * MS, |depart, start| Some(start + 500 * MS - depart));
    let plain = run_frto(400, &stall, false);
    assert_eq!((plain.timeouts, plain.retx_pkts, plain.undone, plain.frto_spurious), (1, 1, (0, 0), 0), "{plain:?}");
    assert!(plain.ssthresh_end < 1 << 40, "the timeout's cut stands: {plain:?}");
    let frto = run_frto(400, &stall, true);
    assert_eq!((frto.timeouts, frto.retx_pkts, frto.undone, frto.frto_spurious), (1, 1, (0, 1), 1), "{frto:?}");
    assert!(frto.ssthresh_end > 1 << 60, "the window and slow start's ssthresh come back: {frto:?}");
    assert!(frto.completion_ps + 20 * MS < plain.completion_ps, "{frto:?} against {plain:?}");
}

#[test]
fn after_a_real_timeout_f_rto_sends_two_new_segments_then_resends_what_was_lost() {
    // Everything that leaves in the 200 ms from segment 100 on is lost (the probe too): the RTO
    // resends 100. Its acknowledgement advances snd_una, and F-RTO sends two new segments
    // (step 2.b; cwnd is 2 after slow start's first acknowledgement) where the go-back-N
    // resends 101 and 102. Their SACKs show the loss was real (step 3.a): the go-back-N
    // follows, one round trip later, with as many resends.
    let outage = after_segment_100(200 * MS, |_, _| None);
    let plain = run_frto(400, &outage, false);
    let frto = run_frto(400, &outage, true);
    for o in [&plain, &frto] {
        assert_eq!((o.timeouts, o.undone, o.frto_spurious), (1, (0, 0), 0), "{o:?}");
    }
    let top = frto.snd_max_at_first_rto.expect("a timeout");
    assert_eq!(sends_after(&plain, 100, 1, 2), [(101, 1), (102, 1)], "{plain:?}");
    assert_eq!(sends_after(&frto, 100, 1, 4), [(top, 0), (top + 1, 0), (101, 1), (102, 1)], "{frto:?}");
    assert_eq!(frto.retx_pkts, plain.retx_pkts, "the new segments are not resends");
    let later = frto.completion_ps - plain.completion_ps;
    assert!(later > 0 && later <= 30 * MS, "about one round trip later: {} ms", later / MS);
    // A 600 ms outage loses the first resend too: the second timeout repeats the first on the
    // same snd_una, and F-RTO runs for it (RFC 5682 s3.2; Linux `icsk_retransmits` set).
    let outage = after_segment_100(600 * MS, |_, _| None);
    let frto = run_frto(400, &outage, true);
    assert_eq!((frto.timeouts, frto.undone), (2, (0, 0)), "{frto:?}");
    assert_eq!(sends_after(&frto, 100, 2, 3), [(top, 0), (top + 1, 0), (101, 1)], "{frto:?}");
}

#[test]
fn an_offer_between_f_rto_s_new_data_and_its_verdict_sends_no_resend() {
    // The outage above, with the application offering its last 100 segments 1 ms after F-RTO
    // sent its two new segments. The window (2 segments) is full with them, so the offer sends
    // nothing (Linux `tcp_write_xmit` counts them in flight and the rest as lost); the resends
    // wait for the SACKs that show the loss real, as without the offer.
    let outage = after_segment_100(200 * MS, |_, _| None);
    let base = run_frto(400, &outage, true);
    let top = base.snd_max_at_first_rto.expect("a timeout");
    let (new_at, _, _) = *base.trace.iter().find(|&&(_, i, k)| i == top && k == 0).expect("F-RTO's new data");
    let (o, _, _) = run_timed(Recovery::RackTlp, 400, 300, new_at + MS, &outage, true, true, true);
    assert_eq!(sends_after(&o, top + 1, 0, 2), [(101, 1), (102, 1)], "{o:?}");
    let resend_at = o.trace.iter().find(|&&(_, i, k)| i == 101 && k == 1).expect("a resend").0;
    assert!(resend_at >= new_at + 20 * MS, "the resends follow the SACKs, a round trip after the new data: {} ms", (resend_at - new_at) / MS);
    assert_eq!(o.trace, base.trace, "the offer changes nothing: the data was there all along in the base run");
}

#[test]
fn f_rto_sends_new_data_where_the_go_back_n_resends_segments_that_were_only_late() {
    // As the outage above, but what leaves in those 200 ms is late, not lost: it arrives 20 ms
    // after the timeout, between the acknowledgement of 100's resend and that of whatever is
    // sent on it. Both senders undo the timeout when the late originals are acknowledged (their
    // echoes predate the resend: Eifel), but without F-RTO the go-back-N has resent 101 and 102
    // in vain by then.
    let outage = after_segment_100(200 * MS, |_, _| None);
    let rto_at = run_frto(400, &outage, true).trace.iter().find(|&&(_, i, k)| i == 100 && k == 1).expect("a resend").0;
    let late = after_segment_100(200 * MS, |depart, _| Some((rto_at + 20 * MS).saturating_sub(depart + PROP)));
    let plain = run_frto(400, &late, false);
    let frto = run_frto(400, &late, true);
    for o in [&plain, &frto] {
        assert_eq!((o.timeouts, o.undone), (1, (0, 1)), "{o:?}");
        assert!(o.ssthresh_end > 1 << 60, "{o:?}");
    }
    assert_eq!((plain.retx_pkts, frto.retx_pkts), (3, 1), "{plain:?} {frto:?}");
    let top = frto.snd_max_at_first_rto.expect("a timeout");
    assert_eq!(sends_after(&frto, 100, 1, 2), [(top, 0), (top + 1, 0)], "{frto:?}");
}

#[test]
fn f_rto_does_not_run_for_a_timeout_inside_a_fast_recovery() {
    // The script of the test above whose first timeout falls inside a recovery: Linux's
    // `tp->frto` is set only from the Open, Disorder and CWR states, so after that timeout both
    // senders go back N (resending 45, 46, 47 on the resend's acknowledgement) and send the same
    // until the next timeout, at 627 ms. That one finds no recovery under way, and F-RTO's new
    // data (every first transmission from 45 on is lost) costs it more timeouts.
    let script = |idx: u64, k: u32, _: SimTime| if (idx == 30 && k < 2) || (k == 0 && idx >= 45) { None } else { Some(0) };
    let plain = run_frto(200, &script, false);
    let frto = run_frto(200, &script, true);
    assert_eq!(frto.fast_retx, 1, "{frto:?}");
    assert_eq!(sends_after(&frto, 30, 2, 3), [(45, 1), (46, 1), (47, 1)]);
    let until = |o: &Outcome| o.trace.iter().take_while(|&&(t, _, _)| t < 600 * MS).copied().collect::<Vec<_>>();
    assert_eq!(until(&frto), until(&plain));
    assert_eq!(sends_after(&frto, 77, 1, 2), [(99, 0), (100, 0)], "the next timeout's F-RTO sends new data");
    assert_eq!(sends_after(&plain, 77, 1, 2), [(78, 1), (79, 1)]);
}
