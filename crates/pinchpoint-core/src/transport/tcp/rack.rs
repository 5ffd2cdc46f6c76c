//! RFC 8985 RACK-TLP state: per-segment transmit times, time-based loss detection (RACK) and the
//! tail loss probe's bookkeeping (TLP), as Linux >= 4.18 with `net.ipv4.tcp_recovery = 1`
//! (`tcp_recovery.c`, `tcp_input.c`, `tcp_output.c`). Allocated only for `recovery = "rack_tlp"`:
//! other senders hold a null pointer. The sender (`sender.rs`) owns the decisions that touch the
//! window and the timer; this file holds the scoreboard of segments and the RACK rules.
//!
//! Cost: each segment sent pushes one record (sequence order) and one entry (transmit order);
//! each is removed once, so the work per acknowledgement is O(1) amortised plus a binary search
//! per newly SACKed range and per retransmission. Loss detection walks the transmit-order list
//! only up to the first segment sent after the most recently delivered one (RFC 8985 s6.2 step
//! 5, Linux `tcp_rack_detect_loss`), dropping entries made stale by a SACK, an acknowledgement
//! or a later retransmission as it goes.

use super::frto::Frto;
use super::undo::Undo;
use crate::sim::SimTime;
use std::collections::VecDeque;

/// What the sender remembers of one segment it sent (Linux `tcp_skb_cb`: seq, end_seq,
/// `tx.mstamp`, the TCPCB_* marks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegRecord {
    /// First byte.
    pub start: u64,
    /// Last byte plus one.
    pub end: u64,
    /// When it was last (re)transmitted, ps.
    pub xmit_ps: SimTime,
    /// Ever retransmitted (Linux TCPCB_EVER_RETRANS / TCPCB_RETRANS): its RTT is ambiguous.
    pub retransmitted: bool,
    /// A retransmission of it is in flight (Linux TCPCB_SACKED_RETRANS, counted in `retrans_out`).
    pub rtx_in_flight: bool,
    /// The receiver SACKed it (TCPCB_SACKED_ACKED).
    pub sacked: bool,
    /// Deemed lost and not repaired (TCPCB_LOST, counted in `lost_out`).
    pub lost: bool,
}

impl SegRecord {
    fn len(&self) -> u64 {
        self.end - self.start
    }
}

/// Which event the sender's one retransmission timer slot (`TIMER_RTO`) stands for, as Linux
/// shares `icsk_retransmit_timer` between ICSK_TIME_RETRANS, ICSK_TIME_LOSS_PROBE and
/// ICSK_TIME_REO_TIMEOUT (`icsk_pending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerMode {
    /// The retransmission timeout (RFC 6298).
    Rto,
    /// RFC 8985 s7.2: the probe timeout (PTO).
    Probe,
    /// RFC 8985 s6.2 step 5: the reordering timeout.
    Reorder,
}

/// RFC 8985 `TCP_TIMEOUT_MIN` as Linux: the 2 ms Linux adds to the PTO when more than one
/// segment is outstanding and to the reordering timeout (two jiffies at HZ = 1000), so that the
/// timer does not fire just before the event it waits for.
pub const TIMEOUT_MIN_PS: SimTime = 2_000_000_000;

/// Linux `TCP_RACK_RECOVERY_THRESH`: recoveries a widened reordering window lasts without a
/// new D-SACK (RFC 8985 s6.2 step 4: 16).
pub const RECOVERY_THRESH: u8 = 16;

/// RFC 8985 s7.2 / Linux `TCP_TIMEOUT_INIT`: the PTO before any RTT sample, 1 s.
pub const PTO_NO_RTT_PS: SimTime = 1_000_000_000_000;

/// RACK-TLP state of one sender.
#[derive(Debug)]
pub struct Rack {
    /// Records of the segments in [snd_una, snd_max), in sequence order.
    segs: VecDeque<SegRecord>,
    /// (start, xmit_ps) of each transmission, in transmit order (Linux `tsorted_sent_queue`).
    /// An entry is stale when its segment has been SACKed, acknowledged, marked lost or sent
    /// again since; stale entries are dropped when met.
    by_xmit: VecDeque<(u64, SimTime)>,
    /// Starts of the segments marked lost and not yet retransmitted, in the order marked (the
    /// transmit order, so sequence order for first losses).
    lost_queue: VecDeque<u64>,
    /// Entries kept by a loss-detection walk (reused buffer).
    keep: Vec<(u64, SimTime)>,
    /// RACK.xmit_ts: transmit time of the most recently sent segment delivered so far.
    xmit_ps: SimTime,
    /// RACK.end_seq: its end.
    end_seq: u64,
    /// RACK.rtt: the RTT measured on it.
    rtt_ps: SimTime,
    /// Linux `rack.advanced`: RACK.xmit_ts moved since the last detection (detection is skipped
    /// otherwise, `tcp_rack_mark_lost`).
    advanced: bool,
    /// RFC 8985 RACK.reordering_seen (Linux `reord_seen`).
    reordering_seen: bool,
    /// Highest SACKed byte plus one seen so far (Linux's prior `tcp_highest_sack_seq`).
    fack: u64,
    /// Bytes of records SACKed, marked lost, and with a retransmission in flight.
    sacked_bytes: u64,
    sacked_segs: u64,
    lost_bytes: u64,
    rtx_bytes: u64,
    /// TLP.end_seq (Linux `tlp_high_seq`): snd_max when the outstanding probe was sent.
    pub tlp_high_seq: Option<u64>,
    /// The probe was a retransmission (Linux `tlp_retrans`), not new data.
    pub tlp_retrans: bool,
    /// What the `TIMER_RTO` slot stands for now.
    pub timer: TimerMode,
    /// When the retransmission timeout would fire (the RTO armed last): the PTO is capped at it
    /// and the RTO goes back to it after a probe that sent nothing.
    pub rto_deadline_ps: SimTime,
    /// The deadline RACK put on the slot for the probe or reordering timeout. The sender arms
    /// the RTO without telling RACK (so that other senders pay nothing); a slot that no longer
    /// holds this time holds an RTO.
    pub timer_at_ps: SimTime,
    /// Probes sent (Linux MIB TCPLossProbes).
    pub probes: u64,
    /// Probes whose acknowledgement showed they repaired a loss (TCPLossProbeRecovery).
    pub probe_recoveries: u64,
    /// Segments RACK marked lost (with the reordering timer too).
    pub marked_lost: u64,
    /// D-SACKs received (Linux MIB `TCPDSACKRecv` + `TCPDSACKOfoRecv`).
    pub dsacks: u64,
    /// A D-SACK arrived and has not yet widened the window (Linux `rack.dsack_seen`).
    dsack_seen: bool,
    /// This acknowledgement's D-SACK covers the probe (Linux FLAG_DSACK_TLP); taken by the
    /// probe's loss detection.
    pub dsack_tlp: bool,
    /// Linux `rack.reo_wnd_steps`: reo_wnd = min_RTT / 4 times this, 1 to 255.
    reo_wnd_steps: u8,
    /// Linux `rack.reo_wnd_persist`: recoveries left before a widened window goes back.
    reo_wnd_persist: u8,
    /// When the window was last widened (Linux keeps `rack.last_delivered`, the delivery count).
    reo_widened_ps: SimTime,
    /// Bytes of those segments, a retransmission deemed lost again counted again (Linux
    /// `tcp_sum_lost` adds to `tp->lost` alike); the sender takes the difference over one
    /// acknowledgement as the rate sample's losses (Linux `rs->losses`).
    pub marked_lost_bytes: u64,
    /// The wait the last loss detection on an acknowledgement asked for (0: none), for the
    /// reordering timer armed after the acknowledgement's transmissions.
    pub reo_wait_ps: SimTime,
    /// The acknowledgement being processed acknowledged new data (Linux FLAG_SET_XMIT_TIMER).
    pub acked_new_data: bool,
    /// Undoing spurious window reductions (`tcp.undo`); None when it is off.
    pub undo: Option<Undo>,
    /// A loss probe is being sent: its retransmission is not one the undo counts (Linux sends
    /// probes with `__tcp_retransmit_skb`, which leaves `undo_retrans` and `retrans_stamp`).
    pub probing: bool,
    /// Segments retransmitted, probes included (Linux `total_retrans`), and segments D-SACKs
    /// reported as duplicates (`dsack_dups`): a D-SACK that would make the second exceed the
    /// first cannot be the sender's doing and is disregarded (Linux `tcp_dsack_seen`).
    total_retrans_segs: u64,
    dsack_dups: u64,
    /// The acknowledgement being processed carries an ECN echo (Linux FLAG_ECE): a recovery it
    /// starts keeps its window cut.
    pub ece_ack: bool,
    /// Linux `tcp_try_undo_partial` with retransmissions outstanding: on this acknowledgement
    /// no segment is marked lost and none retransmitted, only new data is sent.
    pub hold_retransmits: bool,
    /// F-RTO after a retransmission timeout (`tcp.frto`, `frto.rs`).
    pub frto: Frto,
    /// The lowest end of a never-retransmitted segment the acknowledgement being processed
    /// delivered (acknowledged, not SACKed before, or newly SACKed); `u64::MAX`: none. F-RTO
    /// compares it with the recovery point (Linux FLAG_ORIG_SACK_ACKED).
    pub original_delivered_end: u64,
}

/// What a report says about a RACK-TLP sender (`recovery = "rack_tlp"`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RackReport {
    /// Tail loss probes sent (Linux MIB `TCPLossProbes`).
    pub probes: u64,
    /// Probes whose acknowledgement showed they repaired a loss (`TCPLossProbeRecovery`).
    pub probe_recoveries: u64,
    /// Segments RACK marked lost, on acknowledgements and at the reordering timeout (a
    /// retransmission deemed lost again counted again).
    pub marked_lost_segs: u64,
    /// D-SACKs received (`tcp.dsack`).
    pub dsacks: u64,
    /// Fast recoveries undone (`tcp.undo`; Linux MIBs TCPFullUndo, TCPPartialUndo and the
    /// TCPDSACKUndo of a recovery).
    pub recoveries_undone: u64,
    /// Retransmission timeouts undone (TCPLossUndo and the TCPDSACKUndo of a timeout).
    pub timeouts_undone: u64,
    /// Of those, the timeouts F-RTO found spurious (`tcp.frto`; Linux TCPSpuriousRTOs).
    pub frto_spurious_rtos: u64,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            segs: VecDeque::new(),
            by_xmit: VecDeque::new(),
            lost_queue: VecDeque::new(),
            keep: Vec::new(),
            xmit_ps: 0,
            end_seq: 0,
            rtt_ps: 0,
            advanced: false,
            reordering_seen: false,
            fack: 0,
            sacked_bytes: 0,
            sacked_segs: 0,
            lost_bytes: 0,
            rtx_bytes: 0,
            tlp_high_seq: None,
            tlp_retrans: false,
            timer: TimerMode::Rto,
            rto_deadline_ps: 0,
            timer_at_ps: 0,
            probes: 0,
            probe_recoveries: 0,
            marked_lost: 0,
            marked_lost_bytes: 0,
            dsacks: 0,
            dsack_seen: false,
            dsack_tlp: false,
            reo_wnd_steps: 1,
            reo_wnd_persist: 0,
            reo_widened_ps: 0,
            reo_wait_ps: 0,
            acked_new_data: false,
            undo: None,
            probing: false,
            total_retrans_segs: 0,
            dsack_dups: 0,
            ece_ack: false,
            hold_retransmits: false,
            frto: Frto::default(),
            original_delivered_end: u64::MAX,
        }
    }
}

/// RFC 8985 s6.2 RACK_sent_after / Linux `tcp_skb_sent_after`: sent later, or at the same time
/// with a higher end (segments of one burst leave at one instant here).
#[inline]
fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// Index of the record holding `seq`, or where it would be.
    fn index_of(&self, seq: u64) -> usize {
        self.segs.partition_point(|r| r.end <= seq)
    }

    /// The record starting at `start`, if it is still outstanding.
    fn record_at(&self, start: u64) -> Option<usize> {
        let i = self.index_of(start);
        (i < self.segs.len() && self.segs[i].start == start).then_some(i)
    }

    /// Bytes deemed in flight (Linux `tcp_packets_in_flight` in bytes, RFC 8985 with RFC 6675's
    /// pipe replaced by the RACK marks): outstanding - SACKed - lost + retransmitted.
    pub fn pipe(&self, snd_una: u64, snd_max: u64) -> u64 {
        (snd_max - snd_una).saturating_sub(self.sacked_bytes + self.lost_bytes) + self.rtx_bytes
    }

    /// [`Rack::pipe`] with the SACKed bytes given (the scoreboard's, during an acknowledgement
    /// whose SACK blocks these records have not taken yet).
    pub fn pipe_given_sacked(&self, outstanding: u64, sacked: u64) -> u64 {
        outstanding.saturating_sub(sacked + self.lost_bytes) + self.rtx_bytes
    }

    /// Bytes SACKed (Linux `sacked_out`, in bytes).
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    /// Segments marked lost and not yet repaired (Linux `lost_out > 0`).
    pub fn has_lost(&self) -> bool {
        self.lost_bytes > 0
    }

    /// Linux's "disorder" state: something SACKed, lost or retransmitted is outstanding (no
    /// probe is scheduled then, `tcp_schedule_loss_probe`).
    pub fn in_disorder(&self) -> bool {
        self.sacked_bytes > 0 || self.lost_bytes > 0 || self.rtx_bytes > 0
    }

    /// Reads the slot's deadline before RACK sets it: if it no longer holds the probe or
    /// reordering time RACK put there, the sender armed the RTO since, at `slot_ps`.
    pub fn sync_timer(&mut self, slot_ps: SimTime) {
        if self.timer != TimerMode::Rto && slot_ps == self.timer_at_ps {
            return;
        }
        self.timer = TimerMode::Rto;
        if slot_ps != crate::transport::NEVER {
            self.rto_deadline_ps = slot_ps;
        }
    }

    /// RFC 8985 RACK.reordering_seen.
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }

    /// The highest-sequence outstanding segment (RFC 8985 s7.3: what a probe retransmits).
    pub fn last_segment(&self) -> Option<(u64, u64)> {
        self.segs.back().map(|r| (r.start, r.end))
    }

    /// A segment [seq, seq + len) leaves at `now`; `new_data` if it starts at snd_max.
    /// RFC 8985 s6.1: the transmit time is recorded per segment, and a retransmission
    /// replaces it (Linux `tcp_update_skb_after_send` moves the skb to the tail of the
    /// transmit-ordered list).
    pub fn on_send(&mut self, seq: u64, len: u32, now: SimTime, new_data: bool) {
        let end = seq + len as u64;
        if new_data {
            self.segs.push_back(SegRecord { start: seq, end, xmit_ps: now, retransmitted: false, rtx_in_flight: false, sacked: false, lost: false });
            self.by_xmit.push_back((seq, now));
            return;
        }
        // A retransmission may cover parts of several records (after a timeout the sender
        // resends whole MSS-sized segments from snd_una): each record it touches counts as
        // retransmitted.
        let mut i = self.index_of(seq);
        let mut segs = 0;
        while i < self.segs.len() && self.segs[i].start < end {
            let r = &mut self.segs[i];
            if !r.sacked {
                r.xmit_ps = now;
                r.retransmitted = true;
                if !r.rtx_in_flight {
                    r.rtx_in_flight = true;
                    self.rtx_bytes += r.len();
                }
                self.by_xmit.push_back((r.start, now));
                segs += 1;
            }
            i += 1;
        }
        self.total_retrans_segs += segs;
        if let Some(u) = self.undo.as_mut().filter(|_| segs > 0 && !self.probing) {
            u.on_retransmit(segs, now);
        }
    }

    /// Linux `tcp_rack_advance` for a segment delivered now: RFC 8985 s6.2 steps 1-2. The RTT
    /// of a retransmitted segment is ambiguous; a sample shorter than the minimum RTT can only
    /// come from the original (or an earlier copy), so it is ignored.
    fn advance(&mut self, r: SegRecord, now: SimTime, min_rtt_ps: SimTime) {
        let rtt = now.saturating_sub(r.xmit_ps);
        if r.retransmitted && rtt < min_rtt_ps {
            return;
        }
        self.advanced = true;
        self.rtt_ps = rtt;
        if sent_after(r.xmit_ps, r.end, self.xmit_ps, self.end_seq) {
            self.xmit_ps = r.xmit_ps;
            self.end_seq = r.end;
        }
    }

    /// RFC 8985 s6.2 step 3 / Linux `tcp_check_sack_reordering`: an original transmission
    /// delivered below the highest byte SACKed before it arrived out of order.
    fn check_reordering(&mut self, r: &SegRecord) {
        if !r.retransmitted && r.start < self.fack {
            self.reordering_seen = true;
        }
    }

    /// Clears the marks of a record that has been delivered (SACKed or acknowledged).
    fn unmark(&mut self, r: &SegRecord) {
        if r.lost {
            self.lost_bytes -= r.len();
        }
        if r.rtx_in_flight {
            self.rtx_bytes -= r.len();
        }
    }

    /// Processes one acknowledgement: the ranges newly SACKed by it and everything below
    /// `ack`. `min_rtt_ps` is the connection's minimum RTT (0 before any sample).
    /// Returns the transmit time of the most recently sent segment it delivered (None: it
    /// delivered nothing).
    pub fn on_ack(&mut self, ack: u64, newly_sacked: &[(u64, u64)], now: SimTime, min_rtt_ps: SimTime) -> Option<SimTime> {
        let mut fack = self.fack;
        let mut newest: Option<SimTime> = None;
        let mut original_end = u64::MAX;
        for &(a, b) in newly_sacked {
            let mut i = self.index_of(a);
            while i < self.segs.len() && self.segs[i].start < b {
                let r = self.segs[i];
                // Only whole records are SACKed (the receiver reports what it holds, and a
                // record's bytes arrive together).
                if !r.sacked && r.start >= a && r.end <= b {
                    if !r.retransmitted {
                        original_end = original_end.min(r.end);
                    }
                    self.check_reordering(&r);
                    self.unmark(&r);
                    self.advance(r, now, min_rtt_ps);
                    newest = newest.max(Some(r.xmit_ps));
                    let m = &mut self.segs[i];
                    m.sacked = true;
                    m.lost = false;
                    m.rtx_in_flight = false;
                    self.sacked_bytes += r.len();
                    self.sacked_segs += 1;
                    fack = fack.max(r.end);
                }
                i += 1;
            }
        }
        while let Some(&r) = self.segs.front() {
            if r.end > ack {
                break;
            }
            self.segs.pop_front();
            if r.sacked {
                self.sacked_bytes -= r.len();
                self.sacked_segs -= 1;
            } else {
                if !r.retransmitted {
                    original_end = original_end.min(r.end);
                }
                self.check_reordering(&r);
                self.unmark(&r);
                self.advance(r, now, min_rtt_ps);
                newest = newest.max(Some(r.xmit_ps));
            }
        }
        self.fack = fack;
        self.original_delivered_end = original_end;
        newest
    }

    /// A D-SACK arrived (RFC 2883; Linux `tcp_dsack_seen`, `tcp_check_dsack`): the receiver got
    /// a segment twice, so a retransmission was not needed. `dup` is the duplicate range, `mss`
    /// the segment size, `snd_una` the oldest unacknowledged byte before this acknowledgement.
    pub fn on_dsack(&mut self, dup: (u64, u64), mss: u64, snd_una: u64) {
        if dup.1 <= dup.0 {
            return;
        }
        self.dsacks += 1;
        let len = dup.1 - dup.0;
        let dup_segs = len.div_ceil(mss).max(1);
        // Linux FLAG_DSACK_TLP: a D-SACK of at most one segment ending at TLP.end_seq says both
        // the probe and the segment it resent arrived, so the probe repaired no loss.
        let tlp = len <= mss && self.tlp_high_seq == Some(dup.1);
        if tlp {
            self.dsack_tlp = true;
        }
        // Linux `tcp_dsack_seen`: more duplicates than retransmissions were not the sender's
        // doing (a network that duplicates packets), and are disregarded.
        self.dsack_dups += dup_segs;
        if self.dsack_dups > self.total_retrans_segs {
            return;
        }
        // Linux >= 5.11 (`tcp_dsack_seen`): the reordering window widens only for D-SACKs that
        // may come from a recovery RACK started too early, that is once reordering has been
        // seen and not for the probe's duplicate (a probe is sent by the timer, not by RACK).
        if self.reordering_seen && !tlp {
            self.dsack_seen = true;
        }
        let mut i = self.index_of(dup.0);
        // Linux `tcp_sacktag_one`: a D-SACK of a retransmitted segment already SACKed below the
        // highest SACK is reordering (`state->reord`, then `tcp_check_sack_reordering`): the
        // original was only late. Linux skips this after a timeout with nothing to undo.
        let mut j = i;
        while j < self.segs.len() && self.segs[j].start < dup.1 {
            let r = self.segs[j];
            if r.retransmitted && r.sacked && r.start < self.fack {
                self.reordering_seen = true;
            }
            j += 1;
        }
        let Some(u) = self.undo.as_mut() else { return };
        if dup.1 <= snd_una {
            // Linux `tcp_check_dsack`: data already acknowledged, its records gone ("dumb
            // counting").
            u.on_dsack(dup.1, dup_segs);
            return;
        }
        // Linux `tcp_sacktag_one`: each outstanding record in the range that was retransmitted.
        while i < self.segs.len() && self.segs[i].start < dup.1 {
            let r = self.segs[i];
            if r.retransmitted {
                u.on_dsack(r.end, 1);
            }
            i += 1;
        }
    }

    /// Retransmissions in flight, segments (Linux `retrans_out`): what a new undo episode
    /// starts counting from.
    pub fn rtx_in_flight_segs(&self) -> u64 {
        if self.rtx_bytes == 0 {
            return 0;
        }
        self.segs.iter().filter(|r| r.rtx_in_flight).count() as u64
    }

    /// A retransmission is in flight (Linux `retrans_out > 0`).
    pub fn has_rtx_in_flight(&self) -> bool {
        self.rtx_bytes > 0
    }

    /// Bytes of retransmissions in flight (Linux `retrans_out`, in bytes).
    pub fn rtx_bytes(&self) -> u64 {
        self.rtx_bytes
    }

    /// Bytes marked lost and not yet SACKed or acknowledged (Linux `lost_out`, in bytes).
    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }

    /// Linux `tcp_any_retrans_done`: a retransmission is in flight or the oldest outstanding
    /// segment was ever retransmitted.
    pub fn any_retrans_done(&self) -> bool {
        self.has_rtx_in_flight() || self.segs.front().is_some_and(|r| r.retransmitted)
    }

    /// Linux `tcp_undo_cwnd_reduction(sk, true)`: no segment counts as lost any more, and
    /// detection looks at the segments afresh on the next acknowledgement (`rack.advanced`).
    pub fn unmark_all_lost(&mut self) {
        for r in self.segs.iter_mut() {
            r.lost = false;
        }
        self.lost_bytes = 0;
        self.lost_queue.clear();
        self.advanced = true;
    }

    /// Linux `tcp_undo_cwnd_reduction`: `rack.advanced = 1`, losses are looked at again.
    pub fn force_detection(&mut self) {
        self.advanced = true;
    }

    /// Linux `tcp_check_sack_reordering(sk, low_seq, 1)` from a timestamp-proven delayed
    /// segment (`tcp_try_undo_partial`): reordering if data above `low_seq` was SACKed.
    pub fn note_delayed_below_fack(&mut self, low_seq: u64) {
        if low_seq < self.fack {
            self.reordering_seen = true;
        }
    }

    /// Linux `tcp_try_undo_dsack`: an undo by D-SACK keeps a widened reordering window for one
    /// more recovery (at most 16).
    pub fn extend_reo_wnd_persist(&mut self) {
        self.reo_wnd_persist = (self.reo_wnd_persist + 1).min(RECOVERY_THRESH);
    }

    /// RFC 8985 s6.2 step 4 / Linux `tcp_rack_update_reo_wnd`, on an acknowledgement whose
    /// most recently sent delivered segment left at `newest_sent` (None: nothing delivered, and
    /// a D-SACK seen waits for an acknowledgement that delivers): a D-SACK widens the reordering
    /// window by one step of min_RTT / 4, at most once per round trip (a D-SACK is disregarded
    /// while the segment delivered was sent before the last widening; Linux compares delivery
    /// counts, `rs->prior_delivered` against `rack.last_delivered`, which orders the same
    /// events), and keeps it for 16 recoveries; after those without a D-SACK the window goes
    /// back to one step.
    pub fn update_reo_wnd(&mut self, now: SimTime, newest_sent: Option<SimTime>) {
        let Some(sent) = newest_sent else { return };
        if self.dsack_seen && sent < self.reo_widened_ps {
            self.dsack_seen = false;
        }
        if self.dsack_seen {
            self.reo_wnd_steps = self.reo_wnd_steps.saturating_add(1);
            self.dsack_seen = false;
            self.reo_widened_ps = now;
            self.reo_wnd_persist = RECOVERY_THRESH;
        } else if self.reo_wnd_persist == 0 {
            self.reo_wnd_steps = 1;
        }
    }

    /// A recovery ended without an undo (Linux `tcp_try_undo_recovery`): one of the 16
    /// recoveries that keep a widened window has passed.
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
    }

    /// The reordering window's multiplier (Linux `rack.reo_wnd_steps`, 1 to 255).
    pub fn reo_wnd_steps(&self) -> u8 {
        self.reo_wnd_steps
    }

    /// RFC 8985 s6.2 step 4 / Linux `tcp_rack_reo_wnd`: min_RTT / 4, at most SRTT; but 0 while
    /// no reordering has been seen and either the sender is in recovery or at least
    /// `dupthresh` segments are SACKed (Linux's `tp->reordering`, 3 by default, which is what
    /// `dupack_threshold` still sets here). min_RTT / 4 is multiplied by `reo_wnd_steps`, which
    /// D-SACKs raise (`update_reo_wnd`), before the SRTT cap.
    pub fn reo_wnd_ps(&self, in_recovery: bool, dupthresh: u32, min_rtt_ps: SimTime, srtt_ps: SimTime) -> SimTime {
        if !self.reordering_seen && (in_recovery || self.sacked_segs >= dupthresh as u64) {
            return 0;
        }
        (min_rtt_ps / 4 * self.reo_wnd_steps as SimTime).min(srtt_ps)
    }

    /// Linux `tcp_rack_mark_lost`: detection only if RACK.xmit_ts advanced on this ack.
    pub fn take_advanced(&mut self) -> bool {
        std::mem::replace(&mut self.advanced, false)
    }

    /// RFC 8985 s6.2 step 5 / Linux `tcp_rack_detect_loss`: every segment not yet delivered
    /// that was sent before RACK.xmit_ts and more than RACK.rtt + reo_wnd ago is lost. Returns
    /// the longest wait until one of the others would be (0: none waits): the reordering timer.
    pub fn detect_loss(&mut self, now: SimTime, reo_wnd_ps: SimTime) -> SimTime {
        let mut wait = 0;
        self.keep.clear();
        while let Some(&(start, x)) = self.by_xmit.front() {
            let Some(i) = self.record_at(start) else {
                self.by_xmit.pop_front();
                continue;
            };
            let r = self.segs[i];
            // Stale: SACKed, sent again since, or lost and not yet retransmitted (Linux skips
            // those; their retransmission adds a new entry).
            if r.sacked || r.xmit_ps != x || (r.lost && !r.rtx_in_flight) {
                self.by_xmit.pop_front();
                continue;
            }
            if !sent_after(self.xmit_ps, self.end_seq, r.xmit_ps, r.end) {
                break;
            }
            self.by_xmit.pop_front();
            // Time left before it counts as lost: RACK.rtt + reo_wnd - (now - xmit).
            let deadline = r.xmit_ps + self.rtt_ps + reo_wnd_ps;
            if deadline <= now {
                self.mark_lost(i);
            } else {
                wait = wait.max(deadline - now);
                self.keep.push((start, x));
            }
        }
        for &e in self.keep.iter().rev() {
            self.by_xmit.push_front(e);
        }
        wait
    }

    /// Linux `tcp_mark_skb_lost`: a retransmission deemed lost again leaves `retrans_out`; the
    /// segment is queued for (another) retransmission.
    fn mark_lost(&mut self, i: usize) {
        let r = &mut self.segs[i];
        if r.rtx_in_flight {
            r.rtx_in_flight = false;
            self.rtx_bytes -= r.end - r.start;
        }
        if !r.lost {
            r.lost = true;
            self.lost_bytes += r.end - r.start;
        }
        self.marked_lost += 1;
        self.marked_lost_bytes += r.end - r.start;
        self.lost_queue.push_back(r.start);
    }

    /// The next segment to retransmit (Linux `tcp_xmit_retransmit_queue`: LOST and not
    /// SACKED_RETRANS), as (start, end); stale queue entries are dropped.
    pub fn next_lost(&mut self) -> Option<(u64, u64)> {
        while let Some(&start) = self.lost_queue.front() {
            if let Some(i) = self.record_at(start) {
                let r = self.segs[i];
                if r.lost && !r.rtx_in_flight && !r.sacked {
                    return Some((r.start, r.end));
                }
            }
            self.lost_queue.pop_front();
        }
        None
    }

    /// A retransmission timeout: Linux `tcp_enter_loss` clears the marks and resends from
    /// snd_una (here the sender's go-back-N); the probe state ends (`tcp_retransmit_timer`).
    pub fn on_rto(&mut self) {
        for r in self.segs.iter_mut() {
            r.lost = false;
            r.rtx_in_flight = false;
        }
        self.lost_bytes = 0;
        self.rtx_bytes = 0;
        self.lost_queue.clear();
        self.tlp_high_seq = None;
    }

    /// Records outstanding (tests).
    pub fn records(&self) -> impl Iterator<Item = &SegRecord> {
        self.segs.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = 1_000_000_000;

    fn sent(n: u64, now: SimTime) -> Rack {
        let mut r = Rack::default();
        for k in 0..n {
            r.on_send(k * 1000, 1000, now + k * MS, true);
        }
        r
    }

    #[test]
    fn a_segment_sent_before_a_delivered_one_is_lost_only_after_rtt_plus_the_window() {
        // Segments 0..4 sent at 0, 1, 2, 3 ms; 1..4 SACKed at 50 ms: RACK.xmit = 3 ms,
        // RACK.rtt = 47 ms. Segment 0 (sent at 0) is lost at 47 ms + reo_wnd.
        let mut r = sent(4, 0);
        r.on_ack(0, &[(1000, 4000)], 50 * MS, 10 * MS);
        assert!(r.take_advanced());
        // reo_wnd 10 ms: deadline 0 + 47 + 10 = 57 ms, 7 ms from now.
        assert_eq!(r.detect_loss(50 * MS, 10 * MS), 7 * MS);
        assert!(!r.has_lost());
        assert_eq!(r.detect_loss(57 * MS, 10 * MS), 0);
        assert!(r.has_lost());
        assert_eq!(r.next_lost(), Some((0, 1000)));
        assert_eq!(r.pipe(0, 4000), 0);
    }

    #[test]
    fn a_retransmission_is_walked_again_and_can_be_lost_again() {
        let mut r = sent(3, 0);
        r.on_ack(0, &[(1000, 3000)], 50 * MS, 10 * MS);
        r.detect_loss(100 * MS, 0);
        assert_eq!(r.next_lost(), Some((0, 1000)));
        r.on_send(0, 1000, 100 * MS, false);
        assert_eq!(r.next_lost(), None, "retransmitted: no longer queued");
        assert_eq!(r.pipe(0, 3000), 1000);
        // New data sent at 110 ms and SACKed at 160 ms: RACK.xmit = 110 ms; the retransmission
        // (sent at 100 ms) is lost once 50 ms have passed since it left.
        r.on_send(3000, 1000, 110 * MS, true);
        r.on_ack(0, &[(3000, 4000)], 160 * MS, 10 * MS);
        assert_eq!(r.detect_loss(160 * MS, 0), 0);
        assert_eq!(r.next_lost(), Some((0, 1000)));
        assert_eq!(r.marked_lost, 2);
    }

    #[test]
    fn an_original_delivered_below_the_highest_sack_is_reordering() {
        let mut r = sent(3, 0);
        r.on_ack(0, &[(1000, 2000)], 40 * MS, 40 * MS);
        assert!(!r.reordering_seen());
        // Segment 0 arrives late and is acknowledged: reordering.
        r.on_ack(2000, &[], 41 * MS, 40 * MS);
        assert!(r.reordering_seen());
        assert_eq!(r.records().count(), 1);
    }

    #[test]
    fn the_reordering_window_is_zero_until_reordering_is_seen_once_enough_is_sacked() {
        let mut r = sent(5, 0);
        r.on_ack(0, &[(1000, 5000)], 40 * MS, 40 * MS);
        assert_eq!(r.reo_wnd_ps(false, 3, 40 * MS, 50 * MS), 0);
        assert_eq!(r.reo_wnd_ps(false, 5, 40 * MS, 50 * MS), 10 * MS);
        assert_eq!(r.reo_wnd_ps(true, 5, 40 * MS, 50 * MS), 0);
        assert_eq!(r.reo_wnd_ps(false, 5, 40 * MS, 5 * MS), 5 * MS, "capped at SRTT");
    }

    #[test]
    fn a_short_sample_of_a_retransmitted_segment_does_not_advance_rack() {
        let mut r = sent(2, 0);
        r.on_send(0, 1000, 30 * MS, false);
        r.on_ack(1000, &[], 35 * MS, 20 * MS);
        assert!(!r.take_advanced(), "5 ms after the retransmission: the original's ack");
    }

    #[test]
    fn dsacks_add_a_step_once_per_round_trip_and_sixteen_recoveries_without_one_undo_them() {
        // Linux `tcp_rack_update_reo_wnd`: min_RTT 20 ms, so a step is 5 ms (reordering seen).
        let mut r = Rack::default();
        r.reordering_seen = true;
        r.total_retrans_segs = 3;
        let wnd = |r: &Rack| r.reo_wnd_ps(false, 3, 20 * MS, 100 * MS);
        assert_eq!(wnd(&r), 5 * MS);
        r.on_dsack((0, 1000), 1000, 0);
        r.update_reo_wnd(10 * MS, None);
        assert_eq!(wnd(&r), 5 * MS, "waits for an acknowledgement that delivers");
        r.update_reo_wnd(11 * MS, Some(2 * MS));
        assert_eq!((r.reo_wnd_steps(), wnd(&r)), (2, 10 * MS));
        // A D-SACK answered by data sent before that step (less than a round trip later): no step.
        r.on_dsack((1000, 2000), 1000, 0);
        r.update_reo_wnd(20 * MS, Some(10 * MS));
        assert_eq!(r.reo_wnd_steps(), 2);
        r.on_dsack((2000, 3000), 1000, 0);
        r.update_reo_wnd(40 * MS, Some(12 * MS));
        assert_eq!((r.reo_wnd_steps(), wnd(&r)), (3, 15 * MS));
        // The cap at SRTT.
        assert_eq!(r.reo_wnd_ps(false, 3, 20 * MS, 12 * MS), 12 * MS);
        // Fifteen recoveries without a D-SACK keep the steps; the sixteenth ends them.
        for _ in 0..15 {
            r.on_recovery_exit();
            r.update_reo_wnd(50 * MS, Some(45 * MS));
        }
        assert_eq!(r.reo_wnd_steps(), 3);
        r.on_recovery_exit();
        r.update_reo_wnd(60 * MS, Some(55 * MS));
        assert_eq!(r.reo_wnd_steps(), 1);
        assert_eq!(r.dsacks, 3);
    }

    #[test]
    fn a_dsack_of_the_probed_segment_says_the_probe_repaired_nothing() {
        let mut r = Rack::default();
        r.tlp_high_seq = Some(5000);
        r.on_dsack((3000, 4000), 1000, 0);
        assert!(!r.dsack_tlp, "not the probe's segment");
        r.on_dsack((1000, 5000), 1000, 0);
        assert!(!r.dsack_tlp, "longer than a segment");
        r.on_dsack((4000, 5000), 1000, 0);
        assert!(r.dsack_tlp);
    }

    #[test]
    fn only_dsacks_after_reordering_and_within_the_retransmissions_widen_the_window() {
        // Linux >= 5.11 `tcp_dsack_seen`.
        let mut r = sent(6, 0);
        r.on_send(0, 1000, 30 * MS, false);
        r.on_send(1000, 1000, 30 * MS, false);
        r.on_dsack((0, 1000), 1000, 0);
        assert!(!r.dsack_seen, "no reordering seen yet");
        r.reordering_seen = true;
        r.tlp_high_seq = Some(2000);
        r.on_dsack((1000, 2000), 1000, 0);
        assert!(!r.dsack_seen && r.dsack_tlp, "the probe's duplicate");
        r.tlp_high_seq = None;
        r.on_dsack((2000, 3000), 1000, 0);
        assert!(!r.dsack_seen, "three duplicates of two retransmissions: not the sender's doing");
        assert_eq!(r.dsacks, 3, "counted all the same");
        r.on_send(2000, 1000, 31 * MS, false);
        r.on_send(3000, 1000, 31 * MS, false);
        r.on_dsack((3000, 4000), 1000, 0);
        assert!(r.dsack_seen);
    }

    #[test]
    fn a_dsack_counts_against_the_undo_only_for_retransmitted_data() {
        let mut r = sent(6, 0);
        let mut u = Undo::default();
        u.begin(0, 0, Some((6000, 6000)), false);
        r.undo = Some(u);
        r.on_send(1000, 1000, 30 * MS, false);
        r.on_send(2000, 1000, 30 * MS, false);
        r.on_send(0, 1000, 30 * MS, false);
        r.probing = true;
        r.on_send(5000, 1000, 31 * MS, false);
        r.probing = false;
        let undo = |r: &Rack| r.undo.unwrap();
        // Three counted retransmissions (the probe is not one). A D-SACK of a segment that was
        // never retransmitted, then of three that were.
        r.on_dsack((4000, 5000), 1000, 0);
        r.on_dsack((0, 1000), 1000, 0);
        assert!(!undo(&r).all_retransmissions_duplicate());
        r.on_dsack((1000, 2000), 1000, 0);
        assert!(!undo(&r).all_retransmissions_duplicate());
        // The second after the cumulative acknowledgement passed it ("dumb counting").
        r.on_ack(3000, &[], 40 * MS, 10 * MS);
        r.on_dsack((2000, 3000), 1000, 3000);
        assert!(undo(&r).all_retransmissions_duplicate());
        assert!(undo(&r).may_undo(u64::MAX), "the D-SACKs alone prove it");
    }
}
