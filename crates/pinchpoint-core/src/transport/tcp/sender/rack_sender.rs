//! The sender's side of RFC 8985 RACK-TLP (`recovery = "rack_tlp"`): what it does with the
//! marks `rack.rs` keeps. Loss detection on each acknowledgement and at the reordering timeout,
//! sending against the in-flight estimate, the tail loss probe and its timer, and the probe's
//! own loss detection. Every function here runs only for a sender that has the RACK state, so
//! the default recovery never reaches this file.

use super::super::cc::CongestionControl;
use super::super::frto::{LossAck, Verdict};
use super::super::rack::{TimerMode, PTO_NO_RTT_PS, TIMEOUT_MIN_PS};
use super::TcpSender;
use crate::net::packet::{flags, Packet};
use crate::sim::SimTime;
use crate::transport::{TransportCtx, TIMER_RTO};

impl TcpSender {
    /// The connection's minimum RTT so far, 0 before any sample (RFC 8985 RACK.min_RTT; Linux
    /// keeps a windowed minimum, `tcp_min_rtt`, over 5 minutes by default).
    fn min_rtt_ps(&self) -> SimTime {
        if self.counters.rtt_samples > 0 {
            self.counters.rtt_min_ps
        } else {
            0
        }
    }

    /// Outside recovery, with SACKed (or lost) data outstanding and no go-back-N under way,
    /// the window is compared with the data deemed in flight, as Linux's `tcp_cwnd_test` counts
    /// `tcp_packets_in_flight` in every state (its "disorder" state included).
    pub(super) fn rack_sends_by_pipe(&self) -> bool {
        self.snd_nxt == self.snd_max && self.rack.as_ref().is_some_and(|r| r.sacked_bytes() > 0 || r.has_lost())
    }

    /// Sends what the window allows against RACK's in-flight estimate: first segments marked
    /// lost (Linux `tcp_xmit_retransmit_queue`), then new data. The window is PRR's during
    /// recovery or an ECN reduction (RFC 6937, as `sack_send`), else the controller's.
    #[inline(never)]
    pub(super) fn rack_send(&mut self, ctx: &mut TransportCtx) {
        let mss = self.s.mss as u64;
        let reducing = self.in_recovery | self.in_cwr;
        let cwnd = if reducing && self.s.prr && !self.cc.sets_recovery_window() { self.recovery_wnd } else { self.cc.cwnd_bytes() }.min(self.rwnd);
        loop {
            let Some(r) = self.rack.as_mut() else { return };
            if r.pipe(self.snd_una, self.snd_max) + mss > cwnd {
                break;
            }
            // Linux `tcp_try_undo_partial` holding: new data only on this acknowledgement.
            let lost = if r.hold_retransmits { None } else { r.next_lost() };
            if self.paced_out(ctx) {
                return;
            }
            if let Some((start, end)) = lost {
                let len = (end.min(self.snd_max) - start).min(mss) as u32;
                self.send_segment_len(start, len.max(1), ctx);
                continue;
            }
            if self.send_new_segment(mss, ctx) > 0 {
                continue;
            }
            break;
        }
        self.check_app_limited();
    }

    /// The end of an acknowledgement for a RACK-TLP sender (the part of `on_ack` after the
    /// window update): loss detection, PRR, sending, then the timer.
    #[inline(never)]
    pub(super) fn rack_end_of_ack(&mut self, ack: u64, in_flight_before: u64, delivered: u64, pkt: &Packet, ctx: &mut TransportCtx) {
        self.rack_on_ack(ack, in_flight_before, pkt, ctx);
        if (self.in_recovery | self.in_cwr) && self.s.prr {
            self.prr_on_ack(delivered);
        }
        self.rack_send_what_is_allowed(ctx);
        if let Some(r) = self.rack.as_mut() {
            r.hold_retransmits = false;
            r.ece_ack = false;
        }
        self.rack_arm_timer(true, ctx);
    }

    /// Sends what the window allows: against the in-flight estimate while something is SACKed
    /// or lost (and in recovery, through `try_send_inline`), else as every sender does; F-RTO's
    /// new data when this acknowledgement chose it.
    fn rack_send_what_is_allowed(&mut self, ctx: &mut TransportCtx) {
        if self.rack.as_ref().is_some_and(|r| r.frto.send_new) {
            return self.frto_send_new_data(ctx);
        }
        if !(self.in_recovery | self.in_cwr) && self.rack_sends_by_pipe() {
            self.rack_send(ctx);
        } else {
            self.try_send_inline(ctx);
        }
    }

    /// `try_send` for a RACK-TLP sender (outside an acknowledgement: an offer, the pacing
    /// timer, a timeout): new data sent schedules the loss probe (Linux `tcp_write_xmit`).
    pub(super) fn rack_try_send(&mut self, ctx: &mut TransportCtx) {
        let snd_max = self.snd_max;
        if self.frto_awaits_verdict() {
            // Between F-RTO's new data and the acknowledgement that judges it, a send outside
            // an acknowledgement (an offer, the pacing timer) is new data only, within the
            // window over what is in flight (Linux `tcp_write_xmit` with the rest marked lost):
            // no resend before the verdict.
            self.frto_send_new(ctx);
            self.check_app_limited();
        } else {
            self.rack_send_what_is_allowed(ctx);
        }
        if self.snd_max > snd_max {
            self.rack_arm_timer(false, ctx);
        }
    }

    /// F-RTO sent new data after a timeout (step 2.b) and no acknowledgement has judged it yet.
    fn frto_awaits_verdict(&self) -> bool {
        self.rack.as_ref().is_some_and(|r| r.frto.active()) && self.in_timeout_recovery() && self.recover.is_some_and(|h| self.snd_max > h)
    }

    /// Sends new data as the window allows over what F-RTO counts in flight: the timeout's
    /// resends still out and the new data sent since the recovery point (Linux counts the rest
    /// as lost). The go-back-N's position is kept for when the loss proves real.
    fn frto_send_new(&mut self, ctx: &mut TransportCtx) {
        let mss = self.s.mss as u64;
        let cwnd = self.cc.cwnd_bytes();
        let high_seq = self.recover.unwrap_or(self.snd_max);
        let resend_from = self.snd_nxt;
        loop {
            let Some(r) = self.rack.as_ref() else { break };
            if r.rtx_bytes() + (self.snd_max - high_seq) + mss > cwnd || self.paced_out(ctx) {
                break;
            }
            if self.send_new_segment(mss, ctx) == 0 {
                break;
            }
        }
        self.snd_nxt = resend_from;
    }

    /// RFC 5682 s3.1 step 2.b / Linux `tcp_xmit_recovery` with REXMIT_NEW: after the first
    /// acknowledgement that advanced snd_una following a timeout, new data goes out instead of
    /// resends, as the window allows (`frto_send_new`). If nothing could be sent, F-RTO gives up
    /// and the go-back-N resends (Linux sets `tp->frto = 0` and retransmits the queue).
    fn frto_send_new_data(&mut self, ctx: &mut TransportCtx) {
        let high_seq = self.recover.unwrap_or(self.snd_max);
        if let Some(r) = self.rack.as_mut() {
            r.frto.send_new = false;
        }
        self.frto_send_new(ctx);
        if self.snd_max > high_seq {
            self.check_app_limited();
            return;
        }
        if let Some(r) = self.rack.as_mut() {
            r.frto.stop();
        }
        self.try_send_inline(ctx);
    }

    /// RFC 5682 s3.1 step 1 / Linux `tcp_enter_loss` (`tp->frto`): F-RTO watches a timeout
    /// that finds no fast recovery and no earlier timeout's episode under way (Linux's Open,
    /// Disorder and CWR states), or that repeats the last timeout before any acknowledgement
    /// advanced (`icsk_retransmits` set; RFC 5682 s3.2). Called before the timeout changes the
    /// state.
    pub(super) fn rack_frto_on_timeout(&mut self) {
        let may_start = (!self.in_recovery && !self.in_timeout_recovery()) || self.head_resent_by_timer;
        if let Some(r) = self.rack.as_mut() {
            r.frto.on_timeout(may_start);
        }
    }

    /// A new recovery may start now: RFC 6675 s5.1 / RFC 6582 gate it only after a timeout,
    /// until everything outstanding then is acknowledged (Linux stays in CA_Loss until then).
    fn rack_may_recover(&self, ack: u64) -> bool {
        match self.recover {
            None => true,
            Some(r) => !self.recover_after_rto || ack > r,
        }
    }

    /// RACK and TLP on one acknowledgement, after the scoreboard and snd_una have been updated
    /// (Linux `tcp_ack`: `tcp_clean_rtx_queue` with `tcp_rack_advance`, then
    /// `tcp_process_tlp_ack`, then `tcp_fastretrans_alert` with `tcp_identify_packet_loss`).
    /// `ack` is the acknowledgement's cumulative ack, `in_flight_before` what was outstanding
    /// before it.
    #[inline(never)]
    fn rack_on_ack(&mut self, ack: u64, in_flight_before: u64, pkt: &Packet, ctx: &mut TransportCtx) {
        let now = ctx.now;
        let min_rtt = self.min_rtt_ps();
        let una_before = self.snd_max - in_flight_before;
        // Linux CA_Loss when the acknowledgement arrived: after a timeout, until snd_una passes
        // what was outstanding then.
        let loss_state = self.in_timeout_recovery_at(una_before);
        let (srtt, dupthresh, snd_una) = (self.srtt, self.s.dupack_threshold, self.snd_una);
        let Some(r) = self.rack.as_mut() else { return };
        // The estimator (always present with RACK) holds this acknowledgement's newly SACKed
        // ranges.
        let newly: &[(u64, u64)] = self.rate.as_ref().map_or(&[], |e| &e.newly_sacked);
        let newly_sacked = !newly.is_empty();
        // Linux FLAG_SET_XMIT_TIMER: only an acknowledgement of new data moves the timer.
        r.acked_new_data = ack > una_before;
        let newest_sent = r.on_ack(snd_una, newly, now, min_rtt);
        // Linux `tcp_ack`: `tcp_rack_update_reo_wnd` after the queue is cleaned, before loss
        // detection.
        r.update_reo_wnd(now, newest_sent);
        let tlp_cut = self.tlp_on_ack(ack, ack > una_before, newly_sacked);
        if tlp_cut {
            self.tlp_reduce(in_flight_before, now);
        }
        if self.rack.as_ref().is_some_and(|r| r.undo.is_some()) {
            // Linux `tcp_fastretrans_alert`: the undo tests come before loss detection.
            let ece = self.s.ecn.on() && pkt.flags & flags::ECE != 0;
            // Linux `num_dupack`: an acknowledgement that neither advances nor carries a D-SACK.
            let dupack = ack == una_before && !pkt.sack.dsack;
            self.rack_try_undo(ack > una_before, una_before, newly_sacked || dupack, loss_state, pkt.ts_echo, ece, now);
        }
        // Read after the undo, which may have ended the recovery (Linux `tcp_rack_reo_wnd` reads
        // the state `tcp_try_keep_open` left).
        let in_recovery = self.in_recovery;
        let Some(r) = self.rack.as_mut() else { return };
        let lost_bytes_before = r.marked_lost_bytes;
        // Linux `tcp_rack_mark_lost`: only if RACK.xmit_ts advanced (and not while a partial
        // undo holds, `tcp_try_undo_partial` returning before `tcp_identify_packet_loss`).
        if !r.hold_retransmits && r.take_advanced() {
            let reo_wnd = r.reo_wnd_ps(in_recovery, dupthresh, min_rtt, srtt);
            r.reo_wait_ps = r.detect_loss(now, reo_wnd);
        }
        let newly_lost = r.marked_lost_bytes - lost_bytes_before;
        // Linux `tcp_ack`: `tcp_rate_gen` runs after `tcp_fastretrans_alert` has marked this
        // acknowledgement's losses, so the sample carries them (`rs->losses`, here in bytes) and
        // its in-flight count leaves them out.
        self.take_rate_sample(ack, now, newly_lost);
        // Linux `tcp_time_to_recover` with RACK: recovery when a segment is marked lost.
        if self.rack.as_ref().is_some_and(|r| r.has_lost()) && !self.in_recovery && self.rack_may_recover(ack) {
            self.enter_recovery(ctx);
        }
    }

    /// RFC 8985 s7.4 / Linux `tcp_process_tlp_ack`: what the acknowledgement says of the
    /// outstanding probe. True if the probe repaired a loss (the window is cut once then).
    fn tlp_on_ack(&mut self, ack: u64, una_advanced: bool, newly_sacked: bool) -> bool {
        let Some(r) = self.rack.as_mut() else { return false };
        let dsack_tlp = std::mem::take(&mut r.dsack_tlp);
        let Some(high) = r.tlp_high_seq else { return false };
        if ack < high {
            return false;
        }
        if !r.tlp_retrans {
            // The probe was new data, and it is acknowledged: nothing to infer.
            r.tlp_high_seq = None;
        } else if dsack_tlp {
            // A D-SACK of the probe's segment: the original and the probe both arrived, no loss.
            r.tlp_high_seq = None;
        } else if ack > high {
            // Data sent after the probe is acknowledged, so the probe's copy was the only one
            // to arrive: a loss, repaired by the probe.
            r.tlp_high_seq = None;
            r.probe_recoveries += 1;
            return true;
        } else if !una_advanced && !newly_sacked {
            // A pure duplicate: the original and the probe both arrived, no loss.
            r.tlp_high_seq = None;
        }
        false
    }

    /// Linux `tcp_process_tlp_ack` on a repaired loss: `tcp_init_cwnd_reduction`, CWR, and at
    /// once `tcp_end_cwnd_reduction`: one multiplicative decrease, with no recovery episode.
    fn tlp_reduce(&mut self, flight: u64, now: SimTime) {
        if self.in_recovery || self.in_cwr {
            return;
        }
        if let Some(u) = self.rack.as_mut().and_then(|r| r.undo.as_mut()) {
            // Linux `tcp_init_cwnd_reduction`: `prior_cwnd` is the window before this cut, which
            // a later undo of the last episode restores.
            u.set_prior_cwnd(self.cc.cwnd_bytes());
        }
        self.cc.on_loss(flight, self.s.mss, now);
        self.cc.on_recovery_exit(now);
        // RFC 3168 s6.1.2: the reduction is this window's congestion response.
        self.ecn_hold_until = self.snd_max;
    }

    /// Linux `tcp_set_xmit_timer` / `tcp_schedule_loss_probe`: after an acknowledgement or a
    /// transmission, the `TIMER_RTO` slot holds the reordering timeout if RACK asked for one,
    /// else the probe timeout when a probe may be sent, else the retransmission timeout as
    /// armed. `on_ack`: called at the end of an acknowledgement (else after new data was sent).
    #[inline(never)]
    pub(super) fn rack_arm_timer(&mut self, on_ack: bool, ctx: &mut TransportCtx) {
        let now = ctx.now;
        let done = !self.started || self.completed || self.snd_una >= self.snd_max;
        let one_segment = self.snd_max - self.snd_una <= self.s.mss as u64;
        let probe_allowed = !self.in_recovery && !self.in_timeout_recovery();
        let (has_rtt, srtt, rto, min_rto) = (self.has_rtt, self.srtt, self.rto, self.s.min_rto_ps);
        let Some(r) = self.rack.as_mut() else { return };
        r.sync_timer(ctx.timers[TIMER_RTO as usize]);
        let wait = std::mem::take(&mut r.reo_wait_ps);
        let acked = std::mem::take(&mut r.acked_new_data);
        if done || (on_ack && !acked && wait == 0) {
            return;
        }
        if wait > 0 {
            // RFC 8985 s6.2 step 5 / Linux `tcp_rack_mark_lost`: wake when the segment that
            // waits longest would be lost, plus TCP_TIMEOUT_MIN, no later than one RTO.
            let at = now + (wait + TIMEOUT_MIN_PS).min(rto);
            r.timer = TimerMode::Reorder;
            r.timer_at_ps = at;
            self.rto_armed = true;
            ctx.set_timer(TIMER_RTO, at);
            return;
        }
        // Linux probes only in the Open and CWR states: nothing SACKed, lost or retransmitted
        // outstanding, not in recovery or after a timeout.
        if !probe_allowed || r.in_disorder() || r.timer == TimerMode::Reorder {
            return;
        }
        // RFC 8985 s7.2: PTO = 2 SRTT, plus (Linux) the minimum RTO when one segment is
        // outstanding (the receiver may be delaying its acknowledgement) or TCP_TIMEOUT_MIN
        // otherwise; 1 s before any RTT sample (TCP_TIMEOUT_INIT); never later than the RTO.
        let mut pto = if has_rtt { 2 * srtt + if one_segment { min_rto } else { TIMEOUT_MIN_PS } } else { PTO_NO_RTT_PS };
        let rto_left = r.rto_deadline_ps.saturating_sub(now);
        if rto_left > 0 {
            pto = pto.min(rto_left);
        }
        r.timer = TimerMode::Probe;
        r.timer_at_ps = now + pto;
        self.rto_armed = true;
        ctx.set_timer(TIMER_RTO, now + pto);
    }

    /// Puts the retransmission timeout back on the slot at its own deadline (Linux
    /// `tcp_rearm_rto` with a probe or reordering timeout pending: the time the RTO had left).
    fn rearm_remaining_rto(&mut self, ctx: &mut TransportCtx) {
        let now = ctx.now;
        let Some(r) = self.rack.as_mut() else { return };
        let at = r.rto_deadline_ps.max(now + 1);
        r.timer = TimerMode::Rto;
        self.rto_armed = true;
        ctx.set_timer(TIMER_RTO, at);
    }

    /// RFC 8985 s7.3 / Linux `tcp_send_loss_probe`: the probe timeout fired. At most one probe
    /// is outstanding; the probe is one new segment if the receiver window allows one (sent
    /// whatever cwnd says), else a retransmission of the highest-sequence segment. Then the
    /// retransmission timeout, from now.
    pub(super) fn on_probe_timer(&mut self, ctx: &mut TransportCtx) {
        if self.completed || self.snd_una >= self.snd_max {
            self.rto_armed = false;
            return;
        }
        if self.rack.as_ref().is_none_or(|r| r.tlp_high_seq.is_some()) {
            return self.rearm_remaining_rto(ctx);
        }
        let mss = self.s.mss as u64;
        let len = (self.offered_bytes - self.snd_max.min(self.offered_bytes)).min(mss);
        let retrans = if len > 0 && self.snd_nxt == self.snd_max && self.snd_max + len <= self.snd_una + self.rwnd {
            let seq = self.snd_max;
            self.send_segment_len(seq, len as u32, ctx);
            self.snd_max += len;
            self.snd_nxt = self.snd_max;
            false
        } else if let Some((start, end)) = self.rack.as_ref().and_then(|r| r.last_segment()) {
            let len = (end - start).min(mss) as u32;
            let seq = end - len as u64;
            if let Some(r) = self.rack.as_mut() {
                r.probing = true;
            }
            self.send_segment_len(seq, len, ctx);
            if let Some(r) = self.rack.as_mut() {
                r.probing = false;
            }
            true
        } else {
            return self.rearm_remaining_rto(ctx);
        };
        let snd_max = self.snd_max;
        if let Some(r) = self.rack.as_mut() {
            r.tlp_high_seq = Some(snd_max);
            r.tlp_retrans = retrans;
            r.probes += 1;
        }
        self.arm_rto(ctx);
        let at = ctx.now + self.rto;
        if let Some(r) = self.rack.as_mut() {
            r.timer = TimerMode::Rto;
            r.rto_deadline_ps = at;
        }
    }

    /// RFC 8985 s6.3 / Linux `tcp_rack_reo_timeout`: the reordering timer fired. Segments
    /// that have now waited RACK.rtt + reo_wnd are lost; a recovery starts if none is under
    /// way (the controller's cut, once) and what PRR allows is sent. Then the retransmission
    /// timeout, at the time it had left.
    pub(super) fn on_reorder_timer(&mut self, ctx: &mut TransportCtx) {
        if self.completed || self.snd_una >= self.snd_max {
            self.rto_armed = false;
            return;
        }
        let min_rtt = self.min_rtt_ps();
        let (srtt, dupthresh, in_recovery, snd_una) = (self.srtt, self.s.dupack_threshold, self.in_recovery, self.snd_una);
        let Some(r) = self.rack.as_mut() else { return };
        let before = r.marked_lost;
        let reo_wnd = r.reo_wnd_ps(in_recovery, dupthresh, min_rtt, srtt);
        // Linux ignores the wait this detection returns: the next acknowledgement sets it.
        r.detect_loss(ctx.now, reo_wnd);
        if r.marked_lost != before {
            if !self.in_recovery && self.rack_may_recover(snd_una) {
                self.enter_recovery(ctx);
                if self.s.prr {
                    // Linux `tcp_cwnd_reduction(sk, 1, newly_lost, 0)`: nothing delivered.
                    self.prr_on_ack(0);
                }
            }
            self.try_send(ctx);
        }
        // Linux `tcp_rack_reo_timeout`: the RTO back on the slot, at the time it had left.
        self.rearm_remaining_rto(ctx);
    }

    /// Linux `tcp_current_ssthresh`: ssthresh during a reduction, else at least 3/4 of the
    /// window (what an undo may restore).
    fn current_ssthresh(&self) -> u64 {
        let (cwnd, ssthresh) = (self.cc.cwnd_bytes(), self.cc.ssthresh_bytes());
        if self.in_recovery || self.in_cwr {
            ssthresh
        } else {
            ssthresh.max(cwnd / 2 + cwnd / 4)
        }
    }

    /// A fast recovery begins (Linux `tcp_enter_recovery`: `tcp_init_undo`, and the window to
    /// restore unless the recovery continues an ECN reduction or this acknowledgement carries
    /// an ECN echo). Called before the controller cuts the window.
    pub(super) fn rack_begin_undo(&mut self, from_cwr: bool) {
        let prior = (self.cc.cwnd_bytes(), self.current_ssthresh());
        let snd_una = self.snd_una;
        let Some(r) = self.rack.as_mut() else { return };
        let (ece, rtx) = (r.ece_ack, r.rtx_in_flight_segs());
        if let Some(u) = r.undo.as_mut() {
            u.begin(snd_una, rtx, (!from_cwr && !ece).then_some(prior), false);
        }
    }

    /// A retransmission timeout of a RACK-TLP sender (Linux `tcp_enter_loss`): true if it
    /// begins a new loss episode, which lowers ssthresh and may later be undone. It does not
    /// when it falls inside an episode whose reduction stands: a fast recovery or an ECN
    /// reduction under way ("reduce ssthresh if it has not yet been made inside this window"),
    /// or a timeout again before any acknowledgement advanced (`icsk_retransmits` set). Called
    /// before the state changes.
    pub(super) fn rack_timeout_begins_episode(&mut self) -> bool {
        let in_loss = self.in_timeout_recovery();
        let new_episode = (!self.in_recovery && !self.in_cwr && !in_loss) || (in_loss && !self.head_resent_by_timer);
        if !new_episode {
            return false;
        }
        // The marks were cleared by the timeout (`Rack::on_rto`): nothing counts as resent yet.
        let prior = (self.cc.cwnd_bytes(), self.current_ssthresh());
        let snd_una = self.snd_una;
        if let Some(u) = self.rack.as_mut().and_then(|r| r.undo.as_mut()) {
            u.begin(snd_una, 0, Some(prior), true);
        }
        true
    }

    /// A fast recovery ended on a full acknowledgement (Linux `tcp_try_undo_recovery`): undone
    /// if every retransmission was reported as a duplicate or the acknowledgement echoes a
    /// timestamp from before the first one; else one of the recoveries that keep a widened
    /// reordering window has passed.
    pub(super) fn rack_on_recovery_end(&mut self, ts_echo: SimTime, ece: bool, now: SimTime) {
        let Some(r) = self.rack.as_mut() else { return };
        if ece {
            // Linux step A: an ECN echo proves congestion; an undo leaves the window cut.
            if let Some(u) = r.undo.as_mut() {
                u.forbid_window_undo();
            }
        }
        let Some(u) = r.undo.as_mut().filter(|u| u.may_undo(ts_echo)) else {
            r.on_recovery_exit();
            return;
        };
        let w = u.take(now);
        r.force_detection();
        if let Some(w) = w {
            self.cc.on_undo(&w);
        }
    }

    /// The undo tests of one acknowledgement before loss detection (Linux
    /// `tcp_fastretrans_alert`): after a timeout `tcp_try_undo_loss`; in a fast recovery
    /// `tcp_try_undo_partial` on a partial acknowledgement, then `tcp_try_undo_dsack`; outside
    /// both, `tcp_try_undo_dsack` for a late D-SACK. An undo inside an episode ends it: the
    /// sender is out of recovery (a loss still marked may start a new one at once, as in
    /// Linux); after a timeout the go-back-N stops, since the segments it has not yet resent
    /// are not lost. `sacked_or_dupack`: the acknowledgement SACKed new data or is a duplicate
    /// (F-RTO's step 3.a evidence).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn rack_try_undo(&mut self, una_advanced: bool, una_before: u64, sacked_or_dupack: bool, loss_state: bool, ts_echo: SimTime, ece: bool, now: SimTime) {
        let snd_una = self.snd_una;
        let recovered = self.recover.is_none_or(|r| snd_una >= r);
        let high_seq = self.recover.unwrap_or(self.snd_max);
        // F-RTO's inputs (read before the RACK state is borrowed).
        let new_data_allowed = self.offered_bytes > self.snd_max && self.snd_una + self.rwnd > self.snd_max;
        let new_data_sent = self.snd_max > high_seq;
        let (in_recovery, in_cwr) = (self.in_recovery, self.in_cwr);
        let Some(r) = self.rack.as_mut() else { return };
        r.ece_ack = ece;
        let any_retrans_done = r.any_retrans_done();
        let rtx_out = r.has_rtx_in_flight();
        let Some(mut u) = r.undo else { return };
        if ece {
            // Linux step A: an ECN echo proves congestion; the reduction stays.
            u.forbid_window_undo();
        }
        // Some(window to restore, if any): undone.
        let undone = if loss_state {
            // Linux `tcp_process_loss`.
            let eifel = una_advanced && u.may_undo(ts_echo);
            let verdict = if eifel {
                Verdict::Conventional
            } else {
                let original_delivered = r.original_delivered_end <= high_seq;
                r.frto.on_loss_ack(LossAck { original_delivered, una_advanced, sacked_or_dupack, recovered, new_data_sent, new_data_allowed })
            };
            if eifel || verdict == Verdict::Spurious {
                // The timestamp test (`tcp_try_undo_loss(sk, false)`), or F-RTO's step 3.b
                // (`tcp_try_undo_loss(sk, true)`, which needs no other evidence).
                r.unmark_all_lost();
                r.frto.stop();
                self.snd_nxt = self.snd_max;
                self.recover_after_rto = false;
                // Linux `tcp_try_undo_loss`: `icsk_retransmits = 0`, so a later timeout is no
                // repeat of this one.
                self.head_resent_by_timer = false;
                // Counted as a timeout undone (Linux TCPLossUndo) even when the episode began
                // with a fast recovery that the timeout fell inside.
                Some(u.take_as(now, true))
            } else if verdict == Verdict::SendNewData {
                // Step 2.b: this acknowledgement sends new data (`frto_send_new_data`). Linux
                // sets `high_seq = snd_nxt` here, which it already is (no new data has been sent
                // since the timeout set it): so is `recover`.
                debug_assert_eq!(self.recover, Some(self.snd_max));
                r.frto.send_new = true;
                None
            } else {
                if recovered {
                    // `tcp_try_undo_recovery` without an undo.
                    r.on_recovery_exit();
                }
                None
            }
        } else if in_recovery {
            if una_advanced && u.pending() && u.packet_delayed(ts_echo) {
                // Linux `tcp_try_undo_partial`: the hole was filled by a delayed original.
                r.note_delayed_below_fack(una_before);
                if rtx_out {
                    r.hold_retransmits = true;
                    None
                } else {
                    if !any_retrans_done {
                        u.clear_stamp();
                    }
                    r.unmark_all_lost();
                    Some(u.take(now))
                }
            } else if u.all_retransmissions_duplicate() {
                // Linux `tcp_try_undo_dsack`.
                r.extend_reo_wnd_persist();
                r.force_detection();
                Some(u.take(now))
            } else {
                None
            }
        } else {
            // Open, disorder or an ECN reduction: `retrans_stamp` cleared once nothing resent is
            // outstanding (`tcp_try_to_open`); outside the ECN reduction `tcp_try_undo_dsack`.
            if !any_retrans_done {
                u.clear_stamp();
            }
            if !in_cwr && u.all_retransmissions_duplicate() {
                r.extend_reo_wnd_persist();
                r.force_detection();
                Some(u.take(now))
            } else {
                None
            }
        };
        r.undo = Some(u);
        let Some(window) = undone else { return };
        if let Some(w) = window {
            self.cc.on_undo(&w);
        }
        if in_recovery {
            // `tcp_try_keep_open`: the recovery is over.
            self.in_recovery = false;
            self.cc.on_recovery_exit(now);
        }
    }

    /// The reordering window's multiplier (Linux `rack.reo_wnd_steps`; 1 without RACK). The
    /// counters are in [`TcpSender::report`].
    pub fn rack_reo_wnd_steps(&self) -> u8 {
        self.rack.as_ref().map_or(1, |r| r.reo_wnd_steps())
    }

    /// RFC 8985 RACK.reordering_seen (false without RACK).
    pub fn rack_reordering_seen(&self) -> bool {
        self.rack.as_ref().is_some_and(|r| r.reordering_seen())
    }
}
