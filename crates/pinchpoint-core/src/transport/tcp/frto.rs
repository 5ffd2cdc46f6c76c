//! Forward RTO-Recovery (F-RTO, RFC 5682 s3, the SACK-enhanced version as Linux runs it with
//! `tcp_frto = 2`; `tcp.frto`, RACK-TLP senders with undo only). After a retransmission
//! timeout the sender resends the oldest segment as usual; F-RTO then decides from the next
//! acknowledgements whether the timeout was spurious, before the rest of the window is resent:
//!
//! - an acknowledgement (cumulative or SACK) of data that was never retransmitted and was sent
//!   before the timeout means the window was not lost, only late: the timeout is undone
//!   (step 3.b; Linux `tcp_process_loss`, FLAG_ORIG_SACK_ACKED, `tcp_try_undo_loss(sk, true)`);
//! - the first acknowledgement that advances snd_una sends new data instead of resending
//!   (step 2.b, Linux REXMIT_NEW), if there is new data the receiver's window allows;
//! - once that new data is out, a duplicate acknowledgement or a SACK shows the loss was real,
//!   and the usual go-back-N resends the rest (step 3.a).
//!
//! This file holds the decision; the sender (`sender/rack_sender.rs`) supplies what the
//! acknowledgement did and carries the decision out.

/// F-RTO state of one sender (lives in the RACK state).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frto {
    /// F-RTO is configured (`tcp.frto`).
    pub enabled: bool,
    /// Linux `tp->frto`: this loss episode is being watched.
    active: bool,
    /// The acknowledgement being processed chose step 2.b: send new data, not resends.
    pub send_new: bool,
    /// Timeouts F-RTO found spurious (Linux MIB TCPSpuriousRTOs).
    pub spurious: u64,
}

/// What the acknowledgement did, as F-RTO reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossAck {
    /// It acknowledged or SACKed a segment never retransmitted that lies below the loss
    /// episode's recovery point (Linux FLAG_ORIG_SACK_ACKED).
    pub original_delivered: bool,
    /// It advanced snd_una (FLAG_SND_UNA_ADVANCED).
    pub una_advanced: bool,
    /// It SACKed new data (FLAG_DATA_SACKED), or it is a duplicate: it neither advances snd_una
    /// nor carries a D-SACK (Linux `num_dupack`).
    pub sacked_or_dupack: bool,
    /// snd_una reached the recovery point: the episode ends.
    pub recovered: bool,
    /// New data was sent since the recovery point was set (Linux `after(snd_nxt, high_seq)`).
    pub new_data_sent: bool,
    /// The application has new data and the receiver's window has room beyond snd_max
    /// (Linux `tcp_send_head(sk) && after(tcp_wnd_end(tp), tp->snd_nxt)`).
    pub new_data_allowed: bool,
}

/// F-RTO's verdict on one acknowledgement in the loss state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not F-RTO's decision: the loss recovery goes on as without it.
    Conventional,
    /// Step 3.b: the timeout was spurious; undo it.
    Spurious,
    /// Step 2.b: move the recovery point to snd_max and send new data on this acknowledgement.
    SendNewData,
}

impl Frto {
    /// A retransmission timeout (RFC 5682 s3.1 step 1, Linux `tcp_enter_loss`): F-RTO watches
    /// the episode if `may_start`, that is when no fast recovery or earlier timeout was under
    /// way, or when this timeout repeats the last one with no acknowledgement advancing in
    /// between (s3.2: the same snd_una).
    pub fn on_timeout(&mut self, may_start: bool) {
        self.active = self.enabled && may_start;
        self.send_new = false;
    }

    /// The episode is being watched.
    pub fn active(&self) -> bool {
        self.active
    }

    /// Stops watching (new data could not be sent after all).
    pub fn stop(&mut self) {
        self.active = false;
    }

    /// An acknowledgement in the loss state, after the timestamp undo test found nothing
    /// (Linux `tcp_process_loss`, the `tp->frto` block, in its order).
    pub fn on_loss_ack(&mut self, a: LossAck) -> Verdict {
        if !self.active {
            return Verdict::Conventional;
        }
        if a.original_delivered {
            // Step 3.b: not everything was lost; never-resent data got through.
            self.active = false;
            self.spurious += 1;
            return Verdict::Spurious;
        }
        if a.new_data_sent {
            // Step 3.a: a duplicate or a SACK after the new data: the loss was real.
            if a.sacked_or_dupack {
                self.active = false;
            }
        } else if a.una_advanced && !a.recovered {
            // Step 2.b, or back to the conventional recovery when no new data can go.
            if a.new_data_allowed {
                return Verdict::SendNewData;
            }
            self.active = false;
        }
        Verdict::Conventional
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watching() -> Frto {
        let mut f = Frto { enabled: true, ..Frto::default() };
        f.on_timeout(true);
        f
    }

    #[test]
    fn a_disabled_or_refused_episode_is_never_watched() {
        let mut f = Frto::default();
        f.on_timeout(true);
        assert!(!f.active());
        let mut f = Frto { enabled: true, ..Frto::default() };
        f.on_timeout(false);
        assert_eq!(f.on_loss_ack(LossAck { original_delivered: true, ..LossAck::default() }), Verdict::Conventional);
        assert_eq!(f.spurious, 0);
    }

    #[test]
    fn never_resent_data_delivered_makes_the_timeout_spurious_at_any_step() {
        let mut f = watching();
        assert_eq!(f.on_loss_ack(LossAck { original_delivered: true, sacked_or_dupack: true, ..LossAck::default() }), Verdict::Spurious);
        assert!(!f.active() && f.spurious == 1);
        // After new data went out too (step 3.b proper).
        let mut f = watching();
        let step2 = LossAck { una_advanced: true, new_data_allowed: true, ..LossAck::default() };
        assert_eq!(f.on_loss_ack(step2), Verdict::SendNewData);
        assert!(f.active());
        let step3 = LossAck { original_delivered: true, una_advanced: true, new_data_sent: true, ..LossAck::default() };
        assert_eq!(f.on_loss_ack(step3), Verdict::Spurious);
    }

    #[test]
    fn a_duplicate_or_sack_after_the_new_data_shows_the_loss_was_real() {
        for dup in [LossAck { new_data_sent: true, sacked_or_dupack: true, una_advanced: true, ..LossAck::default() }, LossAck { new_data_sent: true, sacked_or_dupack: true, ..LossAck::default() }] {
            let mut f = watching();
            assert_eq!(f.on_loss_ack(LossAck { una_advanced: true, new_data_allowed: true, ..LossAck::default() }), Verdict::SendNewData);
            assert_eq!(f.on_loss_ack(dup), Verdict::Conventional);
            assert!(!f.active(), "{dup:?}");
            assert_eq!(f.on_loss_ack(LossAck { original_delivered: true, ..LossAck::default() }), Verdict::Conventional, "no longer watched");
        }
    }

    #[test]
    fn an_acknowledgement_that_is_no_duplicate_leaves_the_new_data_watched() {
        // A D-SACK alone (Linux FLAG_DSACKING_ACK: `num_dupack` 0) is no step 3.a evidence: a
        // later SACK of never-resent data still finds the timeout spurious.
        let mut f = watching();
        assert_eq!(f.on_loss_ack(LossAck { una_advanced: true, new_data_allowed: true, ..LossAck::default() }), Verdict::SendNewData);
        assert_eq!(f.on_loss_ack(LossAck { new_data_sent: true, ..LossAck::default() }), Verdict::Conventional);
        assert!(f.active());
        assert_eq!(f.on_loss_ack(LossAck { new_data_sent: true, original_delivered: true, sacked_or_dupack: true, ..LossAck::default() }), Verdict::Spurious);
    }

    #[test]
    fn duplicates_before_the_first_advance_leave_the_episode_watched() {
        // Linux keeps `tp->frto` through duplicates at step 2 (they repair conventionally).
        let mut f = watching();
        assert_eq!(f.on_loss_ack(LossAck { sacked_or_dupack: true, ..LossAck::default() }), Verdict::Conventional);
        assert!(f.active());
        assert_eq!(f.on_loss_ack(LossAck { una_advanced: true, new_data_allowed: true, ..LossAck::default() }), Verdict::SendNewData);
    }

    #[test]
    fn without_new_data_to_send_or_at_the_recovery_point_f_rto_gives_up() {
        let mut f = watching();
        assert_eq!(f.on_loss_ack(LossAck { una_advanced: true, ..LossAck::default() }), Verdict::Conventional);
        assert!(!f.active());
        let mut f = watching();
        assert_eq!(f.on_loss_ack(LossAck { una_advanced: true, recovered: true, new_data_allowed: true, ..LossAck::default() }), Verdict::Conventional);
        assert!(f.active(), "Linux leaves tp->frto set when the episode ends");
    }
}
