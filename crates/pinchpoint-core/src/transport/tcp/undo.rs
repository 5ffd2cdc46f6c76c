//! Undoing a window reduction that proves spurious, as Linux does (`tcp_input.c`:
//! `tcp_try_undo_recovery`, `tcp_try_undo_partial`, `tcp_try_undo_dsack`, `tcp_try_undo_loss`;
//! `tcp.undo`, RACK-TLP senders only). Two kinds of evidence are read:
//!
//! - D-SACK (RFC 2883 s5, RFC 3708): every retransmission of the episode has been reported as a
//!   duplicate, so the receiver had the originals and nothing was lost;
//! - the timestamp echo (the Eifel detection algorithm, RFC 3522): an acknowledgement of new data
//!   echoes a timestamp older than the episode's first retransmission, so an original, not a
//!   retransmission, made the receiver send it (Linux `tcp_packet_delayed`).
//!
//! An episode is a fast recovery or a retransmission timeout. It keeps the window it cut
//! (Linux `prior_cwnd`, `prior_ssthresh`) and, until it is undone or a new one begins, stays
//! undoable after it ends, as Linux's `undo_marker` does: a late D-SACK can still undo it.
//! Linux compares timestamps in its timestamp clock's ticks (1 ms by default); so does this.

use crate::sim::{SimTime, PS_PER_MS};

/// The timestamp clock's tick (Linux `TCP_TS_HZ` = 1000: `tcp_time_stamp_ts` in ms).
pub const TS_TICK_PS: SimTime = PS_PER_MS;

/// The window an undo restores (Linux `prior_cwnd`, `prior_ssthresh`), handed to the
/// controller's `on_undo`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UndoWindow {
    /// Time of the undo.
    pub now: SimTime,
    /// The window when the episode began, bytes.
    pub prior_cwnd_bytes: u64,
    /// ssthresh when the episode began (Linux `tcp_current_ssthresh`: at least 3/4 of the
    /// window outside a reduction), bytes.
    pub prior_ssthresh_bytes: u64,
}

/// Undo bookkeeping of one sender (lives in the RACK state).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Undo {
    /// Linux `undo_marker`: snd_una when the episode began; None: nothing to undo.
    marker: Option<u64>,
    /// Linux `undo_retrans`: retransmissions of the episode not yet reported as duplicates; -1
    /// while none has been sent (a D-SACK then proves nothing).
    retrans: i64,
    /// Linux `retrans_stamp`: when the first retransmission of the episode left.
    retrans_stamp_ps: Option<SimTime>,
    /// The window to restore; `prior.prior_ssthresh_bytes` 0: the episode began with an ECN
    /// echo or inside an ECN reduction, so congestion was signalled and the window stays cut
    /// (Linux sets `prior_ssthresh = 0` then).
    prior: UndoWindow,
    /// The episode began with a retransmission timeout (else a fast recovery).
    timeout: bool,
    /// Fast recoveries undone (Linux MIBs TCPFullUndo + TCPPartialUndo + TCPDSACKUndo).
    pub recoveries_undone: u64,
    /// Timeouts undone (TCPLossUndo).
    pub timeouts_undone: u64,
}

impl Undo {
    /// A new episode begins at `snd_una` (Linux `tcp_init_undo`), with `rtx_in_flight_segs`
    /// retransmissions of the last one still outstanding. `prior`: the (cwnd, ssthresh) to
    /// restore, or None when congestion was signalled (ECN). `timeout`: a retransmission
    /// timeout began it (else a fast recovery).
    pub fn begin(&mut self, snd_una: u64, rtx_in_flight_segs: u64, prior: Option<(u64, u64)>, timeout: bool) {
        self.marker = Some(snd_una);
        self.timeout = timeout;
        self.retrans = if rtx_in_flight_segs > 0 { rtx_in_flight_segs as i64 } else { -1 };
        self.prior = match prior {
            Some((cwnd, ssthresh)) => UndoWindow { now: 0, prior_cwnd_bytes: cwnd, prior_ssthresh_bytes: ssthresh },
            None => UndoWindow::default(),
        };
    }

    /// `segs` segments were retransmitted at `now` (Linux `tcp_retransmit_skb`; not a loss
    /// probe, which Linux sends with `__tcp_retransmit_skb`).
    pub fn on_retransmit(&mut self, segs: u64, now: SimTime) {
        if self.retrans_stamp_ps.is_none() {
            self.retrans_stamp_ps = Some(now);
        }
        self.retrans = self.retrans.max(0) + segs as i64;
    }

    /// A D-SACK reported `dup_segs` duplicate segments ending at `dup_end` that were
    /// retransmitted (Linux `tcp_sacktag_one` for data above snd_una, and the "dumb counting" of
    /// `tcp_check_dsack` for data below it): they need not have been.
    pub fn on_dsack(&mut self, dup_end: u64, dup_segs: u64) {
        if let Some(m) = self.marker {
            if self.retrans > 0 && dup_end > m {
                self.retrans = (self.retrans - dup_segs as i64).max(0);
            }
        }
    }

    /// ECN signalled congestion (Linux `tcp_fastretrans_alert` step A, `tcp_enter_cwr`): the
    /// reduction is required, so an undo leaves the window as it is.
    pub fn forbid_window_undo(&mut self) {
        self.prior = UndoWindow::default();
    }

    /// An ECN reduction began (Linux `tcp_enter_cwr`: `undo_marker = 0`): the last episode can
    /// no longer be undone.
    pub fn cancel(&mut self) {
        self.marker = None;
        self.prior = UndoWindow::default();
    }

    /// A reduction that is not an episode of its own (Linux `tcp_init_cwnd_reduction` for a
    /// loss probe's cut) sets the window an undo restores, if that window is still kept.
    pub fn set_prior_cwnd(&mut self, cwnd_bytes: u64) {
        if self.prior.prior_ssthresh_bytes > 0 {
            self.prior.prior_cwnd_bytes = cwnd_bytes;
        }
    }

    /// No retransmission is outstanding and the head was never retransmitted (Linux clears
    /// `retrans_stamp` then, `tcp_try_to_open`; and in the Open state).
    pub fn clear_stamp(&mut self) {
        self.retrans_stamp_ps = None;
    }

    /// An episode is undoable.
    pub fn pending(&self) -> bool {
        self.marker.is_some()
    }

    /// Linux `tcp_packet_delayed`: the acknowledgement echoes a timestamp from before the
    /// first retransmission (in timestamp ticks).
    pub fn packet_delayed(&self, ts_echo_ps: SimTime) -> bool {
        self.retrans_stamp_ps.is_some_and(|s| ts_echo_ps / TS_TICK_PS < s / TS_TICK_PS)
    }

    /// Linux `tcp_may_undo`: an episode to undo, and either every retransmission reported as a
    /// duplicate or the acknowledgement triggered by an original.
    pub fn may_undo(&self, ts_echo_ps: SimTime) -> bool {
        self.marker.is_some() && (self.retrans == 0 || self.packet_delayed(ts_echo_ps))
    }

    /// Linux `tcp_try_undo_dsack`'s test: every retransmission reported as a duplicate.
    pub fn all_retransmissions_duplicate(&self) -> bool {
        self.marker.is_some() && self.retrans == 0
    }

    /// Ends the episode as undone (Linux `tcp_undo_cwnd_reduction`: `undo_marker = 0`), counts
    /// it by how it began, and returns the window to restore, if congestion did not forbid it.
    pub fn take(&mut self, now: SimTime) -> Option<UndoWindow> {
        self.take_as(now, self.timeout)
    }

    /// [`Undo::take`], counted as a timeout undone if `timeout`, else as a fast recovery.
    pub fn take_as(&mut self, now: SimTime, timeout: bool) -> Option<UndoWindow> {
        self.marker = None;
        if timeout {
            self.timeouts_undone += 1;
        } else {
            self.recoveries_undone += 1;
        }
        (self.prior.prior_ssthresh_bytes > 0).then_some(UndoWindow { now, ..self.prior })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = PS_PER_MS;

    #[test]
    fn every_retransmission_reported_as_a_duplicate_allows_the_undo() {
        let mut u = Undo::default();
        assert!(!u.may_undo(0), "no episode");
        u.begin(1000, 0, Some((20_000, 15_000)), false);
        assert!(!u.all_retransmissions_duplicate(), "nothing retransmitted yet: -1, not 0");
        u.on_retransmit(1, 10 * MS);
        u.on_retransmit(1, 11 * MS);
        u.on_dsack(3000, 1);
        assert!(!u.all_retransmissions_duplicate());
        // A D-SACK of data below the episode's start proves nothing about it.
        u.on_dsack(900, 1);
        assert!(!u.all_retransmissions_duplicate());
        u.on_dsack(4000, 1);
        assert!(u.all_retransmissions_duplicate());
        assert_eq!(u.take(50 * MS), Some(UndoWindow { now: 50 * MS, prior_cwnd_bytes: 20_000, prior_ssthresh_bytes: 15_000 }));
        assert!(!u.pending() && !u.may_undo(0), "an undo ends the episode");
        assert_eq!((u.recoveries_undone, u.timeouts_undone), (1, 0));
    }

    #[test]
    fn an_echo_older_than_the_first_retransmission_in_timestamp_ticks_is_a_delayed_packet() {
        let mut u = Undo::default();
        u.begin(0, 0, Some((10_000, 10_000)), true);
        u.on_retransmit(1, 30 * MS + 400_000_000);
        u.on_retransmit(1, 45 * MS);
        // The stamp is the first retransmission's: 30.4 ms, tick 30.
        assert!(u.may_undo(29 * MS + 999_999_999));
        assert!(!u.may_undo(30 * MS), "same tick: not before it");
        assert!(!u.may_undo(31 * MS));
        u.clear_stamp();
        assert!(!u.may_undo(0), "no retransmission outstanding: no timestamp evidence");
    }

    #[test]
    fn an_ecn_signal_leaves_the_window_cut_but_ends_the_episode() {
        let mut u = Undo::default();
        u.begin(0, 2, Some((10_000, 8_000)), false);
        u.on_dsack(2000, 1);
        u.on_dsack(3000, 1);
        assert!(u.all_retransmissions_duplicate(), "two retransmissions outstanding, both reported");
        u.forbid_window_undo();
        assert_eq!(u.take(1), None);
        assert!(!u.pending());
        u.begin(0, 0, None, true);
        u.on_retransmit(1, 0);
        u.on_dsack(1000, 3);
        assert!(u.all_retransmissions_duplicate(), "the count never goes below 0");
        assert_eq!(u.take(2), None);
        assert_eq!((u.recoveries_undone, u.timeouts_undone), (1, 1), "counted even without a window to restore");
        u.begin(0, 0, Some((1, 1)), false);
        u.cancel();
        assert!(!u.pending(), "an ECN reduction ends the episode");
    }
}
