//! The sending end: segmentation, the retransmission timer, loss detection and recovery.
//! The window itself comes from the congestion controller.

use super::cc::{AckSample, AnyCc, CongestionControl, IdleRestart, RateSample};
use super::rack::{Rack, TimerMode};
use super::sack::Scoreboard;
use super::Recovery;
use crate::metrics::stats::u63_to_f64;
use crate::net::packet::{flags, Ecn, Packet, PacketKind};
use crate::sim::{SimTime, PS_PER_S};
use crate::transport::{Direction, TransportCtx, TransportReport, TIMER_PACING, TIMER_RTO};
use std::collections::VecDeque;

mod rack_sender;

/// Sender settings. `repr(C)` keeps the declared order (`TcpSender`'s layout): what a
/// retransmission timeout and the segments it sends read comes first.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct SenderSettings {
    /// Maximum segment size, payload bytes.
    pub mss: u32,
    /// Header bytes added to each data segment on the wire.
    pub header_bytes: u32,
    /// Network packets per segment (ATN WP/267 s5.2: a TPDU split into several NPDUs).
    pub packets_per_segment: u32,
    /// Duplicate acknowledgements that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// RTO upper bound, ps.
    pub max_rto_ps: SimTime,
    /// RTO lower bound, ps.
    pub min_rto_ps: SimTime,
    /// RTO before the first sample, ps.
    pub initial_rto_ps: SimTime,
    /// ECN: off, or which data segments are ECT (the sender reacts to ECN echoes unless off).
    pub ecn: EcnMode,
    /// Priority written on data packets.
    pub priority: u8,
    /// Read the receiver's SACK blocks (RFC 2018): the scoreboard used by SACK recovery and
    /// by retransmission after a timeout.
    pub sack: bool,
    /// Loss recovery after duplicate acknowledgements (needs `sack` for [`Recovery::Sack`]).
    pub recovery: Recovery,
    /// Pace transmissions (Linux internal pacing) at the controller's rate or, if it gives
    /// none, at 2x (slow start) or 1.2x (congestion avoidance) cwnd / srtt.
    pub pacing: bool,
    /// RFC 6937 proportional rate reduction during SACK recovery.
    pub prr: bool,
    /// RFC 3042 limited transmit on the first duplicate acknowledgements.
    pub limited_transmit: bool,
    /// Restart the window after idle (RFC 5681 s4.1 as Linux's `tcp_slow_start_after_idle`,
    /// see `idle_restart.rs`).
    pub slow_start_after_idle: bool,
}

/// Which data segments an ECN sender marks ECT (one byte: the settings fill their cache line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnMode {
    /// No ECN: every segment Not-ECT, echoes ignored.
    Off,
    /// RFC 3168: new data ECT, retransmissions Not-ECT (s6.1.5; Linux's `tcp_ecn_send`, ns-3).
    Rfc3168,
    /// Every data segment ECT, retransmissions too: Linux for a controller that needs ECN
    /// (`tcp_ca_needs_ecn`: DCTCP), ns-3's `DctcpEcn` mode.
    EctAlways,
}

impl EcnMode {
    /// Is ECN negotiated at all?
    #[inline]
    pub fn on(self) -> bool {
        self != EcnMode::Off
    }
}

/// Segments a paced sender may send back to back before pacing starts, as the initial quantum
/// of Linux's fq (10 MTU) that internal pacing mirrors.
pub const PACING_INITIAL_BURST_PKTS: u32 = 10;

/// What the sender remembers of a segment it sent, for delivery-rate estimation
/// (draft-cheng-iccrg-delivery-rate-estimation s3.2; Linux's `tcp_skb_cb.tx`).
#[derive(Clone, Copy, Debug)]
struct SentSeg {
    seq: u64,
    end: u64,
    sent_time: SimTime,
    /// C.delivered, C.delivered_time and C.first_sent_time when it was (last) sent.
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    app_limited: bool,
    /// Not yet delivered (SACKed or acknowledged).
    pending: bool,
    /// Sent more than once (Linux TCPCB_RETRANS): its delivery gives no RTT (Karn).
    retransmitted: bool,
}

/// Delivery-rate estimation state (draft-cheng-iccrg-delivery-rate-estimation s3).
#[derive(Debug, Default)]
struct RateEstimator {
    /// Sent segments not yet cumulatively acknowledged, in sequence order.
    segs: VecDeque<SentSeg>,
    /// C.delivered: bytes delivered (SACKed or acknowledged) so far.
    delivered: u64,
    /// C.delivered_time.
    delivered_time: SimTime,
    /// C.first_sent_time.
    first_sent_time: SimTime,
    /// C.app_limited: 0, or the delivered count that ends the application-limited period.
    app_limited_until: u64,
    /// Newly SACKed ranges of the acknowledgement being processed (reused buffer).
    newly_sacked: Vec<(u64, u64)>,
    /// The last sample handed to the controller.
    last_sample: Option<RateSample>,
    /// Every un-SACKed byte below this has been counted lost once (`RateSample::newly_lost_bytes`,
    /// Linux's `tp->lost`): RFC 6675's loss boundary only rises within a window, and a timeout
    /// deems everything outstanding lost without any acknowledgement reporting it.
    lost_upto: u64,
    /// The acknowledgement being processed: its timestamp RTT if it advances snd_una, else 0
    /// (the sample's RTT when every segment it delivers was retransmitted).
    ack_ts_rtt: SimTime,
}

impl RateEstimator {
    /// Draft s3.2 SendPacket: snapshot the connection's delivery state into the segment.
    fn on_send(&mut self, seq: u64, len: u32, now: SimTime, nothing_in_flight: bool, new_data: bool) {
        if nothing_in_flight {
            // The delivery clock starts now.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let rec = SentSeg {
            seq,
            end: seq + len as u64,
            sent_time: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited_until != 0,
            pending: true,
            retransmitted: !new_data,
        };
        if new_data {
            self.segs.push_back(rec);
        } else {
            // A resend may cover several shorter originals (a go-back-N segment of one MSS over
            // data the application offered in small pieces): each of them is sent again now.
            let mut i = self.segs.partition_point(|r| r.end <= seq);
            while let Some(r) = self.segs.get_mut(i) {
                if r.seq >= rec.end {
                    break;
                }
                *r = SentSeg { seq: r.seq, end: r.end, ..rec };
                i += 1;
            }
        }
    }

    /// Draft s3.3 UpdateRateSample for one newly delivered segment.
    fn deliver(&mut self, acc: &mut RateAcc, r: SentSeg, now: SimTime) {
        self.delivered += r.end - r.seq;
        self.delivered_time = now;
        if !acc.has || r.delivered > acc.prior_delivered {
            // The most recently sent of the segments this ack delivers.
            *acc = RateAcc {
                has: true,
                prior_delivered: r.delivered,
                send_elapsed: r.sent_time - r.first_sent_time,
                ack_elapsed: now - r.delivered_time,
                app_limited: r.app_limited,
                ..*acc
            };
            self.first_sent_time = r.sent_time;
        }
    }

    /// Marks delivered what `ack` and `newly_sacked` cover; draft s3.3 GenerateRateSample.
    fn on_ack(&mut self, ack: u64, now: SimTime, min_rtt: SimTime, in_flight: u64, in_recovery: bool, newly_lost: u64) -> Option<RateSample> {
        let mut acc = RateAcc::default();
        let delivered_before = self.delivered;
        for k in 0..self.newly_sacked.len() {
            let (a, b) = self.newly_sacked[k];
            let mut i = self.segs.partition_point(|r| r.seq < a);
            while i < self.segs.len() && self.segs[i].end <= b {
                let r = self.segs[i];
                if r.pending {
                    self.segs[i].pending = false;
                    if !r.retransmitted {
                        // Linux `tcp_sacktag_one`: `last_sackt` from segments never resent.
                        acc.sacked_sent = acc.sacked_sent.max(Some(r.sent_time));
                    }
                    self.deliver(&mut acc, r, now);
                }
                i += 1;
            }
        }
        while let Some(&r) = self.segs.front() {
            if r.end > ack {
                break;
            }
            self.segs.pop_front();
            if r.retransmitted {
                // Linux FLAG_RETRANS_DATA_ACKED: a cumulative ack of anything ever resent
                // gives no RTT from the cumulative part (Karn).
                acc.resent_acked = true;
            } else if r.pending {
                acc.acked_sent = acc.acked_sent.max(Some(r.sent_time));
            }
            if r.pending {
                self.deliver(&mut acc, r, now);
            }
        }
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        if !acc.has {
            return None;
        }
        let interval = acc.send_elapsed.max(acc.ack_elapsed);
        let delivered = self.delivered - acc.prior_delivered;
        let mut rs = RateSample {
            now,
            delivered_bytes: delivered,
            newly_delivered_bytes: self.delivered - delivered_before,
            interval_ps: interval,
            delivery_rate_bps: 0.0,
            prior_delivered_bytes: acc.prior_delivered,
            total_delivered_bytes: self.delivered,
            is_app_limited: acc.app_limited,
            rtt_ps: acc.karn_rtt(now, self.ack_ts_rtt),
            in_flight_bytes: in_flight,
            in_recovery,
            newly_lost_bytes: newly_lost,
        };
        // Draft s3.3 / Linux tcp_rate_gen: an interval shorter than the minimum RTT is an
        // artefact (ack compression, a stretched ack): no rate (interval 0, as Linux's -1), but
        // the acknowledgement still delivered data.
        if interval == 0 || interval < min_rtt {
            rs.interval_ps = 0;
            return Some(rs);
        }
        rs.delivery_rate_bps = delivered as f64 * 8.0 / (interval as f64 / PS_PER_S as f64);
        self.last_sample = Some(rs);
        Some(rs)
    }
}

/// The rate sample being built from one acknowledgement.
#[derive(Clone, Copy, Debug, Default)]
struct RateAcc {
    has: bool,
    prior_delivered: u64,
    send_elapsed: SimTime,
    ack_elapsed: SimTime,
    app_limited: bool,
    /// Send time of the most recently sent never-retransmitted segment newly SACKed (Linux
    /// `last_sackt`), and of one newly acknowledged cumulatively (`last_ackt`).
    sacked_sent: Option<SimTime>,
    acked_sent: Option<SimTime>,
    /// The cumulative acknowledgement covers a segment ever retransmitted.
    resent_acked: bool,
}

impl RateAcc {
    /// Linux `tcp_clean_rtx_queue` and `tcp_ack_update_rtt` (`rs->rtt_us`, which BBR's minimum
    /// RTT reads), Karn's rule: the RTT of the most recently sent segment SACKed that was never
    /// retransmitted; else of the one cumulatively acknowledged, unless the cumulative ack also
    /// covers a segment ever retransmitted; else the timestamp echoed by an acknowledgement
    /// that advances (`ts_rtt`, 0 if none); else none (0; Linux -1).
    fn karn_rtt(&self, now: SimTime, ts_rtt: SimTime) -> SimTime {
        match (self.sacked_sent, self.acked_sent) {
            (Some(t), _) => now - t,
            (None, Some(t)) if !self.resent_acked => now - t,
            _ => ts_rtt,
        }
    }
}

/// What the sender counts for its report. `repr(C)`: the two counters a timeout and its
/// retransmission bump come first, at the end of the sender's hot lines (`TcpSender`).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct SenderCounters {
    timeouts: u64,
    retx_pkts: u64,
    fast_retx: u64,
    rtt_samples: u64,
    rtt_sum_ps: f64,
    rtt_min_ps: SimTime,
    rtt_max_ps: SimTime,
    /// Sum of squared deviations of the RTT samples from their mean, ps^2 (Welford's update on
    /// the mean `rtt_sum_ps / rtt_samples`; 8 bytes where a full `Moments` would cost 40).
    rtt_m2_ps2: f64,
    /// rtt_sum_ps / rtt_samples after the last sample (0 before the first).
    rtt_mean_ps: f64,
}

impl Default for SenderCounters {
    fn default() -> Self {
        SenderCounters { timeouts: 0, retx_pkts: 0, fast_retx: 0, rtt_samples: 0, rtt_sum_ps: 0.0, rtt_min_ps: SimTime::MAX, rtt_max_ps: 0, rtt_m2_ps2: 0.0, rtt_mean_ps: 0.0 }
    }
}

/// RFC 6298 s2: the clock granularity G used in RTO = SRTT + max(G, 4 RTTVAR); 1 ms as Linux.
const CLOCK_GRANULARITY_PS: SimTime = 1_000_000_000;

/// The sending end of a TCP flow.
///
/// Layout (issue 13, large N with start jitter): at 100,000 flows most senders sit in RTO
/// backoff and each wake-up finds the connection out of every cache level but L3, so each
/// distinct line it touches costs an L3 access. `repr(C)` keeps the declared order: first what
/// a timeout, the segment it sends and a drop read (sequence numbers, windows, RTO and SRTT,
/// the controller, the scoreboard, the settings, the flags and the first two counters): the
/// connection's first 256 bytes with its handshake pointer (`TcpConnection`); then the RTT
/// counters and the recovery state only acknowledgements touch. (Rust's default layout sorted
/// the fields by alignment and spread a wake-up over six lines of the connection and the
/// boxed counters.)
#[derive(Debug)]
#[repr(C)]
pub struct TcpSender {
    /// Oldest unacknowledged byte.
    snd_una: u64,
    /// Next byte to send.
    snd_nxt: u64,
    /// Highest byte ever sent plus one.
    snd_max: u64,
    /// Bytes the application has offered so far (the workload, pulled by the connection).
    offered_bytes: u64,
    /// Bytes the application offers in all (u64::MAX: open-ended, never complete).
    total_bytes: u64,
    /// Window the receiver last advertised, bytes.
    rwnd: u64,
    rto: SimTime,
    srtt: SimTime,
    /// RFC 6582 `recover`: snd_max when the last recovery or timeout began.
    recover: Option<u64>,
    cc: AnyCc,
    /// What the receiver reported holding above snd_una (SACK), and RFC 6675 HighRxt (the
    /// highest byte retransmitted in this recovery plus one).
    board: Scoreboard,
    s: SenderSettings,
    /// Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation s3); allocated when
    /// the flow starts, so an idle flow does not hold it.
    rate: Option<Box<RateEstimator>>,
    dupacks: u32,
    in_recovery: bool,
    rto_armed: bool,
    completed: bool,
    /// Set CWR on the next data segment.
    cwr_pending: bool,
    /// Segments still allowed back to back before pacing applies.
    pacing_burst_left: u8,
    started: bool,
    has_rtt: bool,
    /// A partial ack already reset the timer in this recovery (RFC 6582 s3.2 step 5).
    partial_ack_seen: bool,
    /// Estimate the delivery rate: the controller uses rate samples (or a test asked). Per-ack
    /// work nothing reads is skipped otherwise.
    rate_wanted: bool,
    /// `recover` was set by a retransmission timeout, not a fast recovery (RFC 6675 s5.1 gates
    /// a new SACK recovery only after a timeout).
    recover_after_rto: bool,
    /// The oldest unacknowledged segment is the one the last timeout resent: no acknowledgement
    /// has advanced snd_una since. A timeout now is a repeat, and ssthresh is held (RFC 5681
    /// s3.1, see `on_rto`).
    head_resent_by_timer: bool,
    /// An ECN echo is being answered by a gradual window reduction (Linux's CA_CWR state, ns-3's
    /// `CA_CWR`) until an acknowledgement passes `cwr_high`: with SACK recovery and PRR (see
    /// [`TcpSender::cwr_uses_prr`]) the window is pipe + sndcnt, otherwise the controller's
    /// reduced window, not grown while the reduction lasts.
    in_cwr: bool,
    /// Counters for the reports. Held inline: a boxed copy allocated at the first
    /// retransmission or RTT sample was one more cold line on every timeout of a flow in
    /// backoff (issue 13); the connection is built only when the flow starts.
    counters: SenderCounters,
    /// The window during fast recovery, bytes: ssthresh + inflation (Reno, NewReno) or
    /// pipe + sndcnt (SACK with PRR).
    recovery_wnd: u64,
    /// RFC 6937 prr_delivered: bytes delivered to the receiver since recovery began.
    prr_delivered: u64,
    /// RFC 6937 prr_out: bytes sent since recovery began.
    prr_out: u64,
    /// RFC 6937 RecoverFS: snd.nxt - snd.una when recovery began.
    recover_fs: u64,
    /// ECN: no new reaction until snd_una passes this (RFC 3168 s6.1.2, once per window).
    ecn_hold_until: u64,
    /// snd_max when the ECN reduction began (Linux's `high_seq`, ns-3's `m_recover`): it ends
    /// when an acknowledgement covers more than this, so that the CWR flag has reached the
    /// receiver.
    cwr_high: u64,
    rttvar: SimTime,
    // Pacing.
    /// Earliest time the next paced segment may leave.
    next_send_ps: SimTime,
    /// When data was last sent (Linux's `lsndtime`): set when the flow starts (Linux: when the
    /// connection is established) and, with `slow_start_after_idle` or a controller that wants
    /// `on_tx_start` (CUBIC) only, at every data segment (so that other senders write nothing
    /// more per segment).
    last_data_sent_ps: SimTime,
    /// The initial window, bytes (Linux `tcp_init_cwnd`): the controller's window when the
    /// sender is built. An idle restart goes no lower than min(this, cwnd). Kept here, in the
    /// cold end, rather than in the settings, whose size would move the lines a timeout reads.
    init_cwnd_bytes: u64,
    /// RFC 8985 RACK-TLP state (`recovery = "rack_tlp"` only; see `rack.rs` and
    /// `rack_sender.rs`): none for every other sender, which pays one pointer.
    rack: Option<Box<Rack>>,
}

impl TcpSender {
    /// A sender that will offer `total_bytes` (u64::MAX: unbounded).
    pub fn new(s: SenderSettings, cc: AnyCc, total_bytes: u64) -> Self {
        // RACK-TLP reads the estimator's newly SACKed ranges and keeps its records beside the
        // estimator's, so the default sender's paths carry no test of their own for it.
        let rate_wanted = cc.wants_rate_samples() || s.recovery == Recovery::RackTlp;
        let init_cwnd_bytes = cc.cwnd_bytes();
        TcpSender {
            rate_wanted,
            recover_after_rto: false,
            head_resent_by_timer: false,
            s,
            cc,
            total_bytes,
            offered_bytes: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            rwnd: u64::MAX,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            recovery_wnd: 0,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            partial_ack_seen: false,
            ecn_hold_until: 0,
            cwr_high: 0,
            in_cwr: false,
            cwr_pending: false,
            board: Scoreboard::default(),
            srtt: 0,
            rttvar: 0,
            rto: s.initial_rto_ps,
            has_rtt: false,
            rto_armed: false,
            started: false,
            completed: false,
            counters: SenderCounters::default(),
            rate: None,
            next_send_ps: 0,
            pacing_burst_left: PACING_INITIAL_BURST_PKTS as u8,
            last_data_sent_ps: 0,
            init_cwnd_bytes,
            rack: (s.recovery == Recovery::RackTlp).then(Box::default),
        }
    }

    #[inline]
    fn counters_mut(&mut self) -> &mut SenderCounters {
        &mut self.counters
    }

    /// Estimates the delivery rate even if the controller takes no samples (call before the
    /// flow starts; tests read [`Self::last_rate_sample`]).
    pub fn estimate_delivery_rate(&mut self) {
        self.rate_wanted = true;
    }

    /// The last delivery-rate sample (what the controller was last given); none unless the
    /// controller takes samples or [`Self::estimate_delivery_rate`] was called.
    pub fn last_rate_sample(&self) -> Option<RateSample> {
        self.rate.as_ref().and_then(|r| r.last_sample)
    }

    /// Bytes delivered to the receiver so far (SACKed or acknowledged): C.delivered.
    pub fn delivered_bytes(&self) -> u64 {
        self.rate.as_ref().map_or(0, |r| r.delivered)
    }

    /// The pacing rate in force, bit/s; none when not pacing (off, or no RTT sample yet).
    pub fn pacing_rate_bps(&self) -> Option<f64> {
        // A controller's own rate is always used (see `CongestionControl::pacing_rate_bps`).
        if let Some(r) = self.cc.pacing_rate_bps() {
            return Some(r);
        }
        if !self.s.pacing || !self.has_rtt || self.srtt == 0 {
            return None;
        }
        // Linux tcp_update_pacing_rate: 200% of cwnd/srtt in slow start (cwnd below half of
        // ssthresh), 120% otherwise (sysctls tcp_pacing_ss_ratio, tcp_pacing_ca_ratio).
        let cwnd = self.cwnd_bytes();
        let ratio = if cwnd < self.cc.ssthresh_bytes() / 2 { 2.0 } else { 1.2 };
        Some(ratio * cwnd as f64 * 8.0 / (self.srtt as f64 / PS_PER_S as f64))
    }

    /// Sends the next new segment (at most `mss` bytes) when the application has data and the
    /// receiver's window allows it (a segment larger than the whole window goes when nothing is
    /// outstanding); returns the bytes sent, 0 for none. Shared by the SACK and RACK-TLP sending loops.
    #[inline(always)]
    pub(super) fn send_new_segment(&mut self, mss: u64, ctx: &mut TransportCtx) -> u64 {
        let len = (self.offered_bytes - self.snd_max.min(self.offered_bytes)).min(mss);
        if len == 0 || self.snd_max + len > self.snd_una + self.rwnd.max(len) {
            return 0;
        }
        let seq = self.snd_max;
        self.send_segment_len(seq, len as u32, ctx);
        self.snd_max += len;
        self.snd_nxt = self.snd_max;
        len
    }

    /// True if pacing holds the next segment back; then the pacing timer is armed.
    fn paced_out(&mut self, ctx: &mut TransportCtx) -> bool {
        if self.pacing_burst_left > 0 || ctx.now >= self.next_send_ps {
            return false;
        }
        if self.pacing_rate_bps().is_none() {
            return false;
        }
        ctx.set_timer(TIMER_PACING, self.next_send_ps);
        true
    }

    /// The pacing timer fired: send what the window allows.
    pub fn on_pacing_timer(&mut self, ctx: &mut TransportCtx) {
        if self.started && !self.completed {
            self.try_send(ctx);
        }
    }

    /// Notes a transmission for pacing and for delivery-rate estimation (draft s3.2
    /// SendPacket); `seq >= snd_max` means new data.
    /// (Both parts are out of line: most senders neither pace nor estimate the delivery rate,
    /// and the segment they are building keeps its registers.)
    #[inline(always)]
    fn on_transmit(&mut self, seq: u64, len: u32, wire_bytes: u64, now: SimTime) {
        if self.s.pacing || self.cc.pacing_rate_bps().is_some() {
            self.pace_transmission(wire_bytes, now);
        }
        if self.rate.is_some() {
            self.rate_on_send(seq, len, now);
        }
    }

    #[inline(never)]
    fn pace_transmission(&mut self, wire_bytes: u64, now: SimTime) {
        // The flow's first PACING_INITIAL_BURST_PKTS segments go back to back; later ones
        // are spaced by their wire time at the pacing rate.
        let gap = self.pacing_rate_bps().map_or(0, |rate| (wire_bytes as f64 * 8.0 / rate * PS_PER_S as f64) as SimTime);
        if self.pacing_burst_left > 0 {
            self.pacing_burst_left -= 1;
            self.next_send_ps = now + gap;
        } else {
            self.next_send_ps = self.next_send_ps.max(now) + gap;
        }
    }

    #[inline(never)]
    fn rate_on_send(&mut self, seq: u64, len: u32, now: SimTime) {
        let (idle, new_data) = (self.snd_max == self.snd_una, seq >= self.snd_max);
        if let Some(r) = self.rate.as_mut() {
            r.on_send(seq, len, now, idle, new_data);
        }
        // A RACK-TLP sender always has the estimator (see `new`), so its records are kept
        // here, off the path of the senders that have neither.
        if let Some(r) = self.rack.as_mut() {
            r.on_send(seq, len, now, new_data);
        }
    }

    /// Marks delivered what `ack` and the newly SACKed ranges cover and, if anything was,
    /// hands the controller a rate sample.
    ///
    /// A RACK-TLP sender takes its sample later, once RACK has marked this acknowledgement's
    /// losses (`rack_on_ack`).
    #[inline]
    fn rate_sample_on_ack(&mut self, ack: u64, now: SimTime) {
        if self.rate.is_none() || self.rack.is_some() {
            // No estimator (the controller takes no rate samples): nothing reads the pipe
            // estimate below, so it is not computed.
            return;
        }
        let una = ack.max(self.snd_una);
        let newly_lost = self.newly_lost_bytes(una);
        self.take_rate_sample(ack, now, newly_lost);
    }

    /// Builds the rate sample of an acknowledgement whose losses are `newly_lost` bytes and
    /// hands it to the controller (Linux `tcp_rate_gen`, then `tcp_cong_control`).
    pub(super) fn take_rate_sample(&mut self, ack: u64, now: SimTime, newly_lost: u64) {
        // Linux tcp_packets_in_flight: with SACK information, RFC 6675 pipe (RACK's count of
        // what is neither SACKed nor lost, plus retransmissions, for a RACK-TLP sender).
        let una = ack.max(self.snd_una);
        let in_flight = self.packets_in_flight_bytes(una);
        let min_rtt = if self.counters.rtt_samples > 0 { self.counters.rtt_min_ps } else { 0 };
        let in_recovery = self.in_recovery;
        if let Some(r) = self.rate.as_mut() {
            if let Some(rs) = r.on_ack(ack, now, min_rtt, in_flight, in_recovery, newly_lost) {
                self.cc.on_rate_sample(&rs);
            }
        }
    }

    /// Bytes this acknowledgement's SACK information makes lost (Linux `rs->losses`, in bytes):
    /// the un-SACKed bytes that RFC 6675's IsLost boundary now passes and no earlier
    /// acknowledgement or timeout counted. Linux marks them in `tcp_fastretrans_alert` before
    /// `tcp_rate_gen` on the same acknowledgement; the boundary is known here already, as it
    /// depends only on what is SACKed. Without SACK nothing is counted (see
    /// docs/algorithms/bbr.md). Only called with a rate estimator and without RACK-TLP, whose
    /// losses are the bytes it marks by time (`rack_on_ack`).
    fn newly_lost_bytes(&mut self, una: u64) -> u64 {
        let Some(r) = self.rate.as_deref() else { return 0 };
        if self.board.sacked_bytes() == 0 {
            return 0;
        }
        let boundary = self.board.loss_boundary(self.s.dupack_threshold, self.s.mss).min(self.snd_max);
        let from = r.lost_upto.max(una);
        if boundary <= from {
            return 0;
        }
        let lost = (boundary - from) - self.board.sacked_bytes_in(from, boundary);
        if let Some(r) = self.rate.as_mut() {
            r.lost_upto = boundary;
        }
        lost
    }

    /// Linux `tcp_packets_in_flight` in bytes with snd_una at `una`: with SACK information,
    /// RFC 6675 pipe (RACK's count of what is neither SACKed nor lost, plus retransmissions,
    /// for a RACK-TLP sender).
    fn packets_in_flight_bytes(&mut self, una: u64) -> u64 {
        match self.rack.as_ref() {
            // After a timeout every un-SACKed byte outstanding then is lost (Linux
            // `tcp_timeout_mark_lost`): in flight is what was resent or sent since, as the
            // go-back-N counts it (for RACK-TLP too: RACK's marks are cleared at a timeout).
            _ if self.s.sack && self.in_timeout_recovery_at(una) => self.timeout_recovery_pipe(una, self.recover.unwrap_or(0)),
            Some(r) => r.pipe_given_sacked(self.snd_max - una.min(self.snd_max), self.board.sacked_bytes()),
            None if self.board.sacked_bytes() > 0 => self.board.pipe(una, self.snd_max, self.s.dupack_threshold, self.s.mss),
            None => self.snd_max - una,
        }
    }

    /// In the loss state after a timeout (Linux CA_Loss): until snd_una passes `recover`.
    pub(super) fn in_timeout_recovery(&self) -> bool {
        self.in_timeout_recovery_at(self.snd_una)
    }

    /// [`TcpSender::in_timeout_recovery`] with snd_una at `una` (the state an acknowledgement
    /// found, before it moved snd_una).
    pub(super) fn in_timeout_recovery_at(&self, una: u64) -> bool {
        self.recover_after_rto && self.recover.is_some_and(|r| una < r)
    }

    /// Some data counted lost has not been resent yet (Linux `lost_out > retrans_out`): RACK's
    /// marks; after a timeout, the go-back-N short of the recovery point; in an RFC 6675
    /// recovery, an un-SACKed byte between HighRxt and the loss boundary (IsLost).
    fn lost_data_awaits_resend(&mut self) -> bool {
        if let Some(r) = self.rack.as_ref() {
            if r.lost_bytes() > r.rtx_bytes() {
                return true;
            }
        }
        if self.in_timeout_recovery() {
            return self.recover.is_some_and(|h| self.snd_nxt < h);
        }
        if self.rack.is_none() && self.in_recovery && self.s.sack {
            let from = self.board.high_rxt().max(self.snd_una);
            let boundary = self.board.loss_boundary(self.s.dupack_threshold, self.s.mss);
            return boundary > from && self.board.sacked_bytes_in(from, boundary) < boundary - from;
        }
        false
    }

    /// Draft-cheng-iccrg-delivery-rate-estimation s3.4 CheckIfApplicationLimited, as Linux's
    /// `tcp_rate_check_app_limited`: less than one segment the application has written is left
    /// unsent (`write_seq - snd_nxt < mss`: what was offered so far, not the whole workload, so
    /// an application that writes as it goes is application-limited between its writes), the
    /// window is not full over what is in flight, and every segment counted lost has been
    /// resent. Only the estimator reads the mark, so without one there is nothing to check.
    #[inline]
    fn check_app_limited(&mut self) {
        if self.rate.is_none() {
            return;
        }
        self.check_app_limited_with_estimator();
    }

    #[inline(never)]
    fn check_app_limited_with_estimator(&mut self) {
        if self.offered_bytes.saturating_sub(self.snd_max) >= self.s.mss as u64 {
            return;
        }
        let in_flight = self.packets_in_flight_bytes(self.snd_una);
        if in_flight < self.send_window() && !self.lost_data_awaits_resend() {
            if let Some(r) = self.rate.as_mut() {
                r.app_limited_until = (r.delivered + in_flight).max(1);
            }
        }
    }

    /// Sets the receiver window known before the first acknowledgement: the one the receiver
    /// announces in the connection handshake (TCP's SYN-ACK window, ATN's initial credit W0).
    pub fn set_initial_rwnd(&mut self, rwnd_bytes: u64) {
        self.rwnd = rwnd_bytes;
    }

    /// Undo spurious window reductions (`tcp.undo`, `undo.rs`); only a RACK-TLP sender does.
    /// Turning undo off turns F-RTO off too (its verdict is an undo).
    pub fn set_undo(&mut self, on: bool) {
        if let Some(r) = self.rack.as_mut() {
            r.undo = on.then(super::undo::Undo::default);
            r.frto.enabled &= on;
        }
    }

    /// F-RTO after a retransmission timeout (`tcp.frto`, `frto.rs`); only a RACK-TLP sender
    /// with undo runs it.
    pub fn set_frto(&mut self, on: bool) {
        if let Some(r) = self.rack.as_mut() {
            r.frto.enabled = on && r.undo.is_some();
        }
    }

    /// The congestion controller.
    pub fn cc(&self) -> &AnyCc {
        &self.cc
    }
    /// Current retransmission timeout, ps.
    pub fn rto_ps(&self) -> SimTime {
        self.rto
    }
    /// Smoothed RTT, ps (0 before the first sample).
    pub fn srtt_ps(&self) -> SimTime {
        self.srtt
    }
    /// Oldest unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Highest byte sent plus one.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// True during fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// True while an ECN echo is answered by a gradual reduction (Linux's CA_CWR).
    pub fn in_cwr(&self) -> bool {
        self.in_cwr
    }
    /// An ECN echo reduces the window through PRR, as Linux (`tcp_enter_cwr`, then
    /// `tcp_cwnd_reduction` on each acknowledgement) and ns-3 (`EnterCwr` with its recovery
    /// algorithm) do: only where loss recovery uses PRR too (SACK recovery with `tcp.prr`), and
    /// not for a controller that sets the window itself. Otherwise the window is cut at once.
    #[inline]
    fn cwr_uses_prr(&self) -> bool {
        self.s.prr && self.s.recovery.reads_sack() && !self.cc.sets_recovery_window()
    }
    /// Bytes sent and not yet acknowledged.
    pub fn in_flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// The window that limits sending now: congestion (or recovery) window and receiver window.
    pub fn send_window(&self) -> u64 {
        let cwnd = if (self.in_recovery && !self.cc.sets_recovery_window()) || (self.in_cwr && self.cwr_uses_prr()) { self.recovery_wnd } else { self.cc.cwnd_bytes() };
        cwnd.min(self.rwnd)
    }
    /// The congestion window in force: the controller's, or the sender's own during a recovery
    /// that sets one (Reno and NewReno inflation, PRR) and during an ECN reduction by PRR.
    pub fn cwnd_bytes(&self) -> u64 {
        if (self.in_cwr && self.cwr_uses_prr()) || (self.in_recovery && (!self.s.recovery.reads_sack() || self.s.prr) && !self.cc.sets_recovery_window()) {
            self.recovery_wnd
        } else {
            self.cc.cwnd_bytes()
        }
    }
    /// The settings.
    pub fn settings(&self) -> &SenderSettings {
        &self.s
    }
    /// Bytes the scoreboard records as SACKed above `snd_una`.
    pub fn sacked_bytes(&self) -> u64 {
        self.board.sacked_bytes()
    }
    /// RFC 6675 pipe: the sender's estimate of the bytes still in the network.
    pub fn pipe_bytes(&mut self) -> u64 {
        if let Some(r) = self.rack.as_ref() {
            return r.pipe(self.snd_una, self.snd_max);
        }
        self.board.pipe(self.snd_una, self.snd_max, self.s.dupack_threshold, self.s.mss)
    }
    /// True if the whole finite workload is acknowledged.
    pub fn is_complete(&self) -> bool {
        self.completed
    }
    /// True for a finite workload.
    pub fn is_finite(&self) -> bool {
        self.total_bytes != u64::MAX
    }

    /// The application has offered `offered_bytes` in all by now; sends what the window allows.
    pub fn offer(&mut self, offered_bytes: u64, ctx: &mut TransportCtx) {
        self.offered_bytes = offered_bytes.min(self.total_bytes);
        if self.started && !self.completed {
            self.try_send(ctx);
        }
    }

    /// The workload starts.
    pub fn start(&mut self, ctx: &mut TransportCtx) {
        self.started = true;
        // Linux tcp_init_transfer: lsndtime = now, so a connection that waits for its first data
        // measures its idle time from here (the restart then finds cwnd = IW and changes nothing).
        self.last_data_sent_ps = ctx.now;
        if self.rate_wanted {
            // Linux `tcp_init_sock`: `tp->app_limited = ~0U` ("a bubble in the pipe until at
            // least the first ACK"): the first flight is marked, and the first delivery ends it.
            self.rate = Some(Box::new(RateEstimator { app_limited_until: 1, ..Default::default() }));
        }
        if self.total_bytes == 0 {
            self.completed = true;
            return;
        }
        self.try_send(ctx);
    }

    /// The connection handshake completed (`tcp.handshake`, see `handshake.rs`): its round
    /// trip is the first RTT sample (RFC 6298 s2.2) when Karn's rule allows one; otherwise,
    /// after a SYN timeout, the RTO starts at 3 s (RFC 6298 s5.7). Then data starts.
    pub fn on_established(&mut self, est: super::handshake::Established, ctx: &mut TransportCtx) {
        match est.rtt_sample_ps {
            Some(rtt) => self.rtt_sample(rtt),
            None if est.syn_timed_out => {
                self.rto = self.rto.max(super::handshake::RTO_AFTER_SYN_TIMEOUT_PS).min(self.s.max_rto_ps);
            }
            None => {}
        }
        self.start(ctx);
    }

    /// Sends the segment starting at `seq` (a full one, or what is left of the file);
    /// `snd_max` must not yet include it if it is new.
    fn send_segment(&mut self, seq: u64, ctx: &mut TransportCtx) {
        let len = (self.offered_bytes - seq).min(self.s.mss as u64) as u32;
        self.send_segment_len(seq, len, ctx);
    }

    /// Sends `len` bytes from `seq`.
    #[inline(never)]
    fn send_segment_len(&mut self, seq: u64, len: u32, ctx: &mut TransportCtx) {
        self.send_segment_len_inline(seq, len, ctx);
    }

    /// [`Self::send_segment_len`], always inlined into the ack path's sending loop.
    #[inline(always)]
    fn send_segment_len_inline(&mut self, seq: u64, len: u32, ctx: &mut TransportCtx) {
        // ATN WP/267 s5.2: a TPDU may travel in several network packets.
        let k = self.s.packets_per_segment.clamp(1, len.max(1));
        let mut f = 0;
        if seq < self.snd_max {
            f |= flags::RETX;
            self.counters_mut().retx_pkts += k as u64;
        }
        if self.in_recovery | self.in_cwr {
            // RFC 6937: prr_out counts every byte sent during recovery (and during an ECN
            // reduction: Linux's `tcp_event_data_sent` counts prr_out in both).
            self.prr_out += len as u64;
        }
        if self.cwr_pending {
            f |= flags::CWR;
            self.cwr_pending = false;
        }
        self.on_transmit(seq, len, len as u64 + k as u64 * self.s.header_bytes as u64, ctx.now);
        let pkt = Packet {
            kind: PacketKind::Data,
            seq,
            size_bytes: len + self.s.header_bytes,
            payload_bytes: len,
            sent_at: ctx.now,
            // RFC 3168 s6.1.5: a retransmission is Not-ECT (unless DCTCP), so a router that would
            // mark it drops it instead.
            ecn: match self.s.ecn {
                EcnMode::Rfc3168 if f & flags::RETX == 0 => Ecn::Ect,
                EcnMode::EctAlways => Ecn::Ect,
                _ => Ecn::NotEct,
            },
            flags: f,
            priority: self.s.priority,
            ..Default::default()
        };
        if k == 1 {
            ctx.send(pkt, Direction::Forward);
        } else {
            // Each packet has its own header and an equal share of the payload; all but the
            // last say that more of the TPDU follows (the receiver acknowledges at the last).
            let share = len.div_ceil(k);
            let mut off = 0;
            while off < len {
                let l = share.min(len - off);
                let mut p = Packet { seq: seq + off as u64, size_bytes: l + self.s.header_bytes, payload_bytes: l, ..pkt };
                if off + l < len {
                    p.flags |= flags::MORE;
                }
                if off > 0 {
                    p.flags &= !flags::CWR;
                }
                ctx.send(p, Direction::Forward);
                off += l;
            }
        }
        if self.s.slow_start_after_idle || self.cc.wants_tx_start() {
            self.note_data_sent(ctx.now);
        }
        // RFC 6298 s5.1: start the timer when data is sent and it is not running.
        if !self.rto_armed {
            self.arm_rto(ctx);
        }
    }

    /// Linux `tcp_event_data_sent`, for a data segment (retransmissions too) leaving now: one
    /// that leaves with nothing in flight is CA_EVENT_TX_START for the controller; then
    /// `lsndtime`. Called before the caller moves `snd_max` past a new segment, so nothing was
    /// in flight if `snd_una` equals it. Not `cold`: a CUBIC sender comes here per segment.
    fn note_data_sent(&mut self, now: SimTime) {
        if self.snd_una == self.snd_max && self.cc.wants_tx_start() {
            self.cc.on_tx_start(now, now.saturating_sub(self.last_data_sent_ps));
        }
        self.last_data_sent_ps = now;
    }

    fn arm_rto(&mut self, ctx: &mut TransportCtx) {
        self.rto_armed = true;
        ctx.set_timer(TIMER_RTO, ctx.now + self.rto);
    }

    #[inline(never)]
    fn try_send(&mut self, ctx: &mut TransportCtx) {
        if self.rack.is_some() {
            return self.rack_try_send(ctx);
        }
        self.try_send_inline(ctx);
    }

    /// [`Self::try_send`], always inlined: the acknowledgement path (one call per ack) saves
    /// the call's register saves and restores.
    #[inline(always)]
    fn try_send_inline(&mut self, ctx: &mut TransportCtx) {
        if self.s.slow_start_after_idle && self.snd_max == self.snd_una && self.snd_nxt < self.offered_bytes {
            self.restart_window_if_idle(ctx.now);
        }
        // Draft s3.4: check before sending too, so that what is sent now (retransmissions)
        // carries the mark when the application has nothing more.
        self.check_app_limited();
        if (self.in_recovery && self.s.recovery.reads_sack()) | self.in_cwr {
            // During an ECN reduction the PRR window is compared with pipe, as in recovery.
            if self.rack.is_some() {
                self.rack_send(ctx);
            } else {
                self.sack_send(ctx);
            }
            return;
        }
        if self.recover_after_rto && self.s.sack && self.in_timeout_recovery() {
            // After a timeout with SACK the window is compared with what is in flight.
            return self.timeout_recovery_send(ctx);
        }
        let wnd = self.send_window();
        // Going back after a timeout skips what the receiver reported holding. The SACKed
        // ranges do not change while this loop sends, so the next one is looked up once per
        // hole, not per segment: [snd_nxt, clear_until) is known to hold no SACKed byte.
        // (A go-back-N burst of a window-unlimited sender is 10^7 segments; two map lookups
        // each were a fifth of its cost, fuzz campaign.)
        let mut clear_until = 0u64;
        while self.snd_nxt < self.offered_bytes {
            if self.s.sack && self.snd_nxt < self.snd_max && self.snd_nxt >= clear_until {
                self.snd_nxt = self.board.skip_sacked(self.snd_nxt);
                if self.snd_nxt >= self.offered_bytes {
                    break;
                }
                clear_until = self.board.next_sacked_above(self.snd_nxt).unwrap_or(u64::MAX);
            }
            let mut len = (self.offered_bytes - self.snd_nxt).min(self.s.mss as u64);
            if self.s.sack && self.snd_nxt < self.snd_max {
                len = len.min(clear_until - self.snd_nxt);
            }
            // Send whole segments only (sender-side silly-window avoidance, RFC 1122 s4.2.3.4),
            // except that one segment may always be outstanding.
            let limit = self.snd_una + wnd.max(len.min(self.s.mss as u64));
            if self.snd_nxt + len > limit {
                break;
            }
            if self.paced_out(ctx) {
                return;
            }
            let seq = self.snd_nxt;
            self.send_segment_len_inline(seq, len as u32, ctx);
            self.snd_nxt += len;
            if self.snd_nxt > self.snd_max {
                self.snd_max = self.snd_nxt;
            }
        }
        self.check_app_limited();
    }

    /// Sending after a timeout with SACK, until everything outstanding then is acknowledged
    /// (Linux CA_Loss, ns-3 CA_LOSS). Both count every un-SACKed byte outstanding at the
    /// timeout as lost (Linux `tcp_timeout_mark_lost`, ns-3 `TcpTxBuffer::SetSentListLost`), so
    /// what is in flight is what was resent since and is not SACKed, plus data sent above the
    /// recovery point and not SACKed (Linux `tcp_packets_in_flight`, ns-3 `BytesInFlight`).
    /// The go-back-N resends the holes from snd_una upwards while that stays within cwnd
    /// (Linux `tcp_xmit_retransmit_queue`, ns-3 `NextSeg`), then sends new data. Counting the
    /// window from snd_una instead, as a sender without SACK does, let SACKed ranges between
    /// snd_una and the go-back point take up the window (model revision 11).
    ///
    /// The scoreboard's HighRxt follows the go-back point, capped at the recovery point, so
    /// that it keeps the SACKed bytes below that point up to date (each range is crossed once).
    /// Data above the recovery point sent before the go-back point reached it (F-RTO's new
    /// data, RFC 5682 step 2.b) is in flight, not lost: the go-back-N steps over it.
    #[inline(never)]
    fn timeout_recovery_send(&mut self, ctx: &mut TransportCtx) {
        let mss = self.s.mss as u64;
        let Some(recover) = self.recover else { return };
        let cwnd = self.cc.cwnd_bytes();
        self.board.set_high_rxt(self.snd_nxt.clamp(self.snd_una, recover));
        let mut pipe = self.timeout_recovery_pipe(self.snd_una, recover);
        let mut clear_until = 0u64;
        while self.snd_nxt < self.offered_bytes {
            if self.snd_nxt < self.snd_max && self.snd_nxt >= clear_until {
                self.snd_nxt = self.board.skip_sacked(self.snd_nxt);
                if self.snd_nxt >= self.offered_bytes {
                    break;
                }
                clear_until = self.board.next_sacked_above(self.snd_nxt).unwrap_or(u64::MAX);
            }
            if self.snd_nxt >= recover && self.snd_nxt < self.snd_max {
                // F-RTO's new data, reached by resending or across a SACKed range that runs
                // over the recovery point into it.
                self.snd_nxt = self.snd_max;
                continue;
            }
            let mut len = (self.offered_bytes - self.snd_nxt).min(mss);
            if self.snd_nxt < self.snd_max {
                len = len.min(clear_until - self.snd_nxt);
                if self.snd_nxt < recover && self.snd_max > recover {
                    // A resend stops at the new data above the recovery point.
                    len = len.min(recover - self.snd_nxt);
                }
            }
            // Whole segments only, except that one may always be outstanding (as the loop in
            // `try_send_inline`), against cwnd for what is in flight and against the
            // receiver's window for the sequence space.
            let one = len.min(mss);
            if pipe + len > cwnd.max(one) || self.snd_nxt + len > self.snd_una + self.rwnd.max(one) {
                break;
            }
            if self.paced_out(ctx) {
                self.board.set_high_rxt(self.snd_nxt.clamp(self.snd_una, recover));
                return;
            }
            let seq = self.snd_nxt;
            self.send_segment_len(seq, len as u32, ctx);
            self.snd_nxt += len;
            pipe += len;
            if self.snd_nxt > self.snd_max {
                self.snd_max = self.snd_nxt;
            }
        }
        self.board.set_high_rxt(self.snd_nxt.clamp(self.snd_una, recover));
        self.check_app_limited();
    }

    /// What is in flight after a timeout with SACK (see [`Self::timeout_recovery_send`]), with
    /// snd_una at `una` below the recovery point `recover`: the resent bytes below the go-back
    /// point (the scoreboard's HighRxt) that are not SACKed, plus the bytes above the recovery
    /// point that are not SACKed. O(1) once the go-back point has reached the recovery point;
    /// before, the SACKed bytes above it are F-RTO's few new segments.
    fn timeout_recovery_pipe(&mut self, una: u64, recover: u64) -> u64 {
        let resent_to = self.board.high_rxt().clamp(una, recover);
        // Below snd_una the scoreboard holds nothing, so its count below HighRxt is 0 there.
        let sacked_resent = if self.board.high_rxt() > una { self.board.sacked_below_high_rxt() } else { 0 };
        let resent = (resent_to - una).saturating_sub(sacked_resent);
        if self.snd_max <= recover {
            return resent;
        }
        let from = recover.max(una);
        let sacked_above = if resent_to >= recover { self.board.sacked_bytes().saturating_sub(sacked_resent) } else { self.board.sacked_bytes_in(from, self.snd_max) };
        resent + (self.snd_max - from).saturating_sub(sacked_above)
    }

    /// RFC 5681 s4.1 / Linux tcp_cwnd_restart: data is about to be sent with nothing in flight
    /// (Linux's `packets_out == 0`); if no data was sent for more than the current RTO, the
    /// window restarts (`idle_restart.rs`). Linux up to 4.x checked this at transmission
    /// (`tcp_event_data_sent`), later kernels when the application writes
    /// (`tcp_slow_start_after_idle_check`); here data goes out when it is written unless the
    /// receiver window or pacing holds it, so the two agree. The clock restarts with the
    /// restart: data held back by the receiver window cannot cut the window twice for one idle
    /// period.
    #[cold]
    #[inline(never)]
    fn restart_window_if_idle(&mut self, now: SimTime) {
        let idle_ps = now.saturating_sub(self.last_data_sent_ps);
        if !super::idle_restart::is_idle(idle_ps, self.rto) {
            return;
        }
        let w = super::idle_restart::restart_window(self.cc.cwnd_bytes(), self.cc.ssthresh_bytes(), self.init_cwnd_bytes, idle_ps, self.rto);
        self.cc.on_idle_restart(&IdleRestart { now, idle_ps, cwnd_bytes: w.cwnd_bytes, ssthresh_bytes: w.ssthresh_bytes, snd_nxt: self.snd_nxt });
        self.last_data_sent_ps = now;
    }

    /// RFC 6675 s5 step (C): while cwnd - pipe >= 1 SMSS, send NextSeg(): first the lowest
    /// lost and not yet retransmitted hole, then new data. (Rule 3 of NextSeg, retransmitting
    /// a hole not yet deemed lost, is not used; RFC 6675 makes it optional.) cwnd is ssthresh
    /// (RFC 6675 s5 step 4.2) or, with PRR, pipe + sndcnt set on each acknowledgement.
    fn sack_send(&mut self, ctx: &mut TransportCtx) {
        let mss = self.s.mss as u64;
        let cwnd = if self.s.prr && !self.cc.sets_recovery_window() { self.recovery_wnd } else { self.cc.cwnd_bytes() }.min(self.rwnd);
        // The SACKed ranges do not change while this loop sends, so the loss boundary is
        // found once. RFC 6675 s4 SetPipe once, then kept up to date: new data sent above
        // snd_max adds exactly its length (its bytes are neither SACKed nor lost, and neither
        // the loss boundary, which lies below the old snd_max, nor HighRxt, which never exceeds
        // it, moves); a retransmission moves HighRxt, so the pipe is computed again after one.
        let (lost_below, sacked_above) = self.board.loss_boundary_and_above(self.s.dupack_threshold, self.s.mss);
        let mut pipe = self.board.pipe_given(self.snd_una, self.snd_max, lost_below, sacked_above);
        loop {
            debug_assert_eq!(pipe, self.board.pipe(self.snd_una, self.snd_max, self.s.dupack_threshold, self.s.mss));
            if pipe + mss > cwnd {
                break;
            }
            if self.paced_out(ctx) {
                return;
            }
            let hole = self.board.skip_sacked(self.board.high_rxt().max(self.snd_una));
            if hole < lost_below && hole < self.snd_max {
                let end = self.board.next_sacked_above(hole).unwrap_or(self.snd_max).min(self.snd_max);
                let len = (end - hole).min(mss) as u32;
                self.send_segment_len(hole, len, ctx);
                self.board.set_high_rxt(hole + len as u64);
                pipe = self.board.pipe_given(self.snd_una, self.snd_max, lost_below, sacked_above);
                continue;
            }
            let len = self.send_new_segment(mss, ctx);
            if len > 0 {
                pipe += len;
                continue;
            }
            break;
        }
    }

    #[inline(always)]
    fn rtt_sample(&mut self, r: SimTime) {
        let c = self.counters_mut();
        // Welford's update on the mean rtt_sum_ps / rtt_samples: the mean after the previous
        // sample is kept, so each sample divides once (the same quotients as dividing twice).
        // (The conversions go through i64: a sample and a count are below 2^63.)
        let mean_before = c.rtt_mean_ps;
        let r_f = u63_to_f64(r);
        c.rtt_samples += 1;
        c.rtt_sum_ps += r_f;
        c.rtt_mean_ps = c.rtt_sum_ps / u63_to_f64(c.rtt_samples);
        c.rtt_m2_ps2 += (r_f - mean_before) * (r_f - c.rtt_mean_ps);
        c.rtt_min_ps = c.rtt_min_ps.min(r);
        c.rtt_max_ps = c.rtt_max_ps.max(r);
        if !self.has_rtt {
            // RFC 6298 s2.2.
            self.srtt = r;
            self.rttvar = r / 2;
            self.has_rtt = true;
        } else {
            // RFC 6298 s2.3 with alpha = 1/8, beta = 1/4.
            let diff = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + diff) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
        let rto = self.srtt + CLOCK_GRANULARITY_PS.max(4 * self.rttvar);
        // RFC 6298 s2.4 / s2.5: clamp to [min, max].
        self.rto = rto.clamp(self.s.min_rto_ps, self.s.max_rto_ps);
    }

    /// True once the sender has started sending (at the flow's start, or when its handshake is
    /// established).
    #[inline]
    pub fn is_started(&self) -> bool {
        self.started
    }

    /// An acknowledgement arrived.
    pub fn on_ack(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        if !self.started || self.completed {
            return;
        }
        self.rwnd = pkt.window_bytes as u64;
        let ack = pkt.ack.min(self.snd_max);
        let in_flight_before = self.snd_max - self.snd_una;
        // RFC 6937 DeliveredData: the change in snd_una plus the change in SACKed bytes.
        let delivered_mark_before = self.snd_una + self.board.sacked_bytes();
        if let Some(r) = self.rate.as_mut() {
            r.newly_sacked.clear();
            r.ack_ts_rtt = if ack > self.snd_una { ctx.now.saturating_sub(pkt.ts_echo) } else { 0 };
        }
        if self.s.sack {
            if pkt.sack.dsack {
                // RFC 2883: only RACK reads D-SACKs here (`tcp.dsack` needs `rack_tlp`).
                if let (Some(r), Some(dup)) = (self.rack.as_mut(), pkt.sack.dsack_range(pkt.ack)) {
                    r.on_dsack(dup, self.s.mss as u64, self.snd_una);
                }
            }
            let mut newly = self.rate.as_mut().map(|r| &mut r.newly_sacked);
            for (a, b) in pkt.sack.ranges(pkt.ack) {
                self.board.add_with(a.max(ack), b.min(self.snd_max), |x, y| {
                    if let Some(n) = newly.as_mut() {
                        n.push((x, y));
                    }
                });
            }
            self.board.advance(ack.max(self.snd_una));
        }
        let delivered = (ack.max(self.snd_una) + self.board.sacked_bytes()).saturating_sub(delivered_mark_before);
        self.rate_sample_on_ack(ack, ctx.now);
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            // RFC 7323 s4.1: an RTT sample from the echoed timestamp of an ack that advances.
            let rtt = ctx.now.saturating_sub(pkt.ts_echo);
            self.rtt_sample(rtt);
            self.snd_una = ack;
            self.head_resent_by_timer = false;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            self.dupacks = 0;
            let mut partial = false;
            let ece = self.s.ecn.on() && pkt.flags & flags::ECE != 0;
            let sample = AckSample { now: ctx.now, bytes_acked: acked, rtt_ps: Some(rtt), srtt_ps: self.srtt, in_flight_bytes: in_flight_before, mss: self.s.mss, snd_una: self.snd_una, snd_max: self.snd_max, ece };
            if self.in_recovery {
                // Linux calls `in_ack_event` and `pkts_acked` in every state, `cong_avoid` only
                // outside a window reduction.
                self.cc.on_ack_in_reduction(&sample);
                let full = self.recover.is_none_or(|r| ack >= r);
                if full || self.s.recovery == Recovery::Reno {
                    // RFC 6582 s3.2 step 3 (full ack) / RFC 5681 (any new ack): leave recovery,
                    // window = ssthresh.
                    self.in_recovery = false;
                    if self.rack.is_some() {
                        // Linux `tcp_try_undo_recovery` (`rack_sender.rs`).
                        self.rack_on_recovery_end(pkt.ts_echo, ece, ctx.now);
                    }
                    self.cc.on_recovery_exit(ctx.now);
                } else {
                    // RFC 6582 s3.2 step 5: partial ack. Retransmit the next hole, deflate the
                    // window by the amount acknowledged and add back one segment.
                    partial = true;
                    if self.s.recovery == Recovery::NewReno {
                        self.send_segment(self.snd_una, ctx);
                        self.recovery_wnd = self.recovery_wnd.saturating_sub(acked) + self.s.mss as u64;
                    }
                    // "Impatient" variant: only the first partial ack restarts the timer, so a
                    // window with many losses falls back to a timeout instead of recovering one
                    // hole per RTT for a long time.
                    if !self.partial_ack_seen {
                        self.partial_ack_seen = true;
                        self.arm_rto(ctx);
                    }
                }
            } else {
                if self.in_cwr && ack > self.cwr_high {
                    // Linux tcp_fastretrans_alert in CA_CWR: the reduction ends once an
                    // acknowledgement covers more than high_seq (the CWR flag has reached the
                    // receiver); tcp_end_cwnd_reduction sets cwnd = ssthresh, which is the
                    // controller's window, unchanged since on_ecn. ns-3 ends CA_CWR alike.
                    self.in_cwr = false;
                    self.cc.on_recovery_exit(ctx.now);
                }
                if self.in_cwr || (ece && self.ecn_may_react() && self.ecn_starts_cwr()) {
                    // RFC 3168 s6.1.2: no window increase for an ECN echo; Linux enters CWR
                    // before `tcp_cong_control`, which then reduces instead of growing, on this
                    // acknowledgement and every one until the reduction ends.
                    self.cc.on_ack_in_reduction(&sample);
                } else {
                    self.cc.on_ack(&sample);
                }
            }
            if ece {
                self.on_ece(ctx);
            }
            if self.snd_una >= self.total_bytes {
                if self.rack.is_some() {
                    // The last acknowledgement still delivers a rate sample (it marks no loss:
                    // everything is acknowledged).
                    self.take_rate_sample(ack, ctx.now, 0);
                }
                self.completed = true;
                self.rto_armed = false;
                ctx.cancel_timer(TIMER_RTO);
                return;
            }
            // RFC 6298 s5.2 / s5.3: stop the timer when all is acknowledged, else restart it
            // (partial acks handled above).
            if self.snd_una == self.snd_max {
                self.rto_armed = false;
                ctx.cancel_timer(TIMER_RTO);
            } else if !partial {
                self.arm_rto(ctx);
            }
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            // A duplicate acknowledgement (RFC 5681 s2: no data, same ack, data outstanding).
            self.dupacks += 1;
            if self.in_recovery {
                if !self.s.recovery.reads_sack() {
                    // RFC 5681 s3.2 step 4 / RFC 6582 s3.2 step 4: inflate by one segment per
                    // duplicate (with SACK the pipe estimate does this).
                    self.recovery_wnd += self.s.mss as u64;
                }
            } else if self.rack.is_some() {
                // RFC 8985 s6.2 / Linux `tcp_time_to_recover` with RACK: no duplicate-count
                // rule; recovery starts when RACK marks a segment lost (`rack_on_ack` below),
                // and SACKed data frees the window as Linux counts it (`rack_sends_by_pipe`),
                // which takes the place of limited transmit.
            } else if self.dupacks == self.s.dupack_threshold
                || (self.dupacks < self.s.dupack_threshold && self.s.sack && self.board.loss_boundary(self.s.dupack_threshold, self.s.mss) > self.snd_una)
            {
                // RFC 6582 s3.2 step 2: a new fast retransmit only if the ack covers more than
                // `recover`, the highest byte sent when the last recovery or timeout began
                // (snd_max - 1; `recover` holds snd_max): at least one newer byte must be
                // acknowledged, ack > snd_max then (Linux holds a Reno sender alike "until
                // something *above* high_seq is ACKed"; FreeBSD's snd_recover test is the
                // same). RFC 6675 keeps that gate for SACK only after a timeout (s5.1: HighACK >
                // RecoveryPoint, HighACK the highest byte acknowledged); after a fast recovery
                // a new one may start at once, as in Linux. Gating SACK there too left a loss of
                // the first segment sent after a recovery began to the timer.
                let may_recover = match self.recover {
                    None => true,
                    Some(r) => (self.s.recovery.reads_sack() && !self.recover_after_rto) || ack > r,
                };
                if may_recover {
                    self.enter_recovery(ctx);
                }
            } else if self.dupacks < self.s.dupack_threshold && self.s.limited_transmit && !self.in_cwr && !(self.s.sack && self.in_timeout_recovery()) {
                // (After a timeout with SACK the window is compared with what is in flight in
                // `try_send_inline` instead: a SACKed segment leaves the flight there.)
                // RFC 3042: send one new segment per early duplicate, within cwnd + 2 segments.
                let len = (self.offered_bytes - self.snd_nxt.min(self.offered_bytes)).min(self.s.mss as u64);
                let allowance = self.cc.cwnd_bytes().min(self.rwnd) + self.dupacks as u64 * self.s.mss as u64;
                if len > 0 && self.snd_nxt == self.snd_max && self.snd_max + len <= self.snd_una + allowance && !self.paced_out(ctx) {
                    let seq = self.snd_nxt;
                    self.send_segment(seq, ctx);
                    self.snd_nxt += len;
                    self.snd_max = self.snd_nxt;
                }
                return;
            }
        }
        if self.rack.is_some() {
            // RACK-TLP's loss detection, sending and timer (`sender/rack_sender.rs`).
            return self.rack_end_of_ack(ack, in_flight_before, delivered, pkt, ctx);
        }
        if (self.in_recovery | self.in_cwr) && self.s.recovery.reads_sack() && self.s.prr {
            self.prr_on_ack(delivered);
        }
        self.try_send_inline(ctx);
    }

    /// RFC 6937 s3 (PRR-SSRB), on every acknowledgement during recovery: how much may be sent,
    /// as the window `pipe + sndcnt`. Above ssthresh the sending rate is the delivery rate
    /// scaled by ssthresh / RecoverFS; below it, slow start back up to ssthresh, at most one
    /// segment more than was delivered.
    fn prr_on_ack(&mut self, delivered: u64) {
        let mss = self.s.mss as u64;
        self.prr_delivered += delivered;
        let pipe = self.pipe_bytes();
        let ssthresh = self.cc.ssthresh_bytes();
        let sndcnt = if pipe > ssthresh {
            // Proportional rate reduction: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            let fs = self.recover_fs.max(1) as u128;
            let target = (self.prr_delivered as u128 * ssthresh as u128).div_ceil(fs);
            (target.min(u64::MAX as u128) as u64).saturating_sub(self.prr_out)
        } else {
            // Slow start reduction bound.
            let limit = self.prr_delivered.saturating_sub(self.prr_out).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        };
        self.recovery_wnd = pipe + sndcnt;
    }

    fn enter_recovery(&mut self, ctx: &mut TransportCtx) {
        let flight = self.snd_max - self.snd_una;
        self.counters_mut().fast_retx += 1;
        // A loss found during an ECN reduction continues it (Linux tcp_enter_recovery: no new
        // ssthresh and no new PRR start when already in CWR; RFC 3168 s6.1.2, one reaction per
        // window). ns-3 3.44 does not start a fast recovery in CA_CWR at all (a documented
        // difference).
        let from_cwr = std::mem::replace(&mut self.in_cwr, false);
        if self.rack.is_some() {
            self.rack_begin_undo(from_cwr);
        }
        if !from_cwr {
            self.cc.on_loss(flight, self.s.mss, ctx.now);
            // RFC 6937 s3: initialise at the start of recovery.
            self.prr_delivered = 0;
            self.prr_out = 0;
            self.recover_fs = flight;
        }
        self.recover = Some(self.snd_max);
        self.recover_after_rto = false;
        self.in_recovery = true;
        self.partial_ack_seen = false;
        if self.s.recovery.reads_sack() {
            // RFC 6675 s5 step 4.2 (cwnd = ssthresh); PRR resets it on this same ack (from an
            // ECN reduction, to where that reduction has come).
            if !from_cwr || !self.s.prr {
                self.recovery_wnd = self.cc.cwnd_bytes();
            }
        } else {
            // RFC 6582 s3.2 step 2 / RFC 5681 s3.2 step 4: ssthresh + 3 segments.
            self.recovery_wnd = self.cc.cwnd_bytes() + self.s.dupack_threshold as u64 * self.s.mss as u64;
        }
        if let Some(r) = self.rack.as_mut() {
            // RFC 8985 s6.2 / Linux `tcp_init_cwnd_reduction`: a new reduction ends the probe
            // episode. The first segment RACK marked lost goes out at once, as the fast
            // retransmit below; the rest as PRR allows (`rack_send`).
            r.tlp_high_seq = None;
            if let Some((start, end)) = r.next_lost() {
                let len = (end.min(self.snd_max) - start).min(self.s.mss as u64) as u32;
                self.send_segment_len(start, len.max(1), ctx);
            }
            self.ecn_hold_until = self.snd_max;
            return;
        }
        if self.s.recovery == Recovery::Sack && self.board.high_rxt() > self.snd_una {
            // Holes up to HighRxt were retransmitted in the previous recovery and those copies
            // are still in flight: do not send them again (Linux keeps the same per-segment
            // "retransmitted" mark until the segment is acknowledged or the timer expires).
            return;
        }
        // Retransmit the first unacknowledged segment (up to the next SACKed range). This fast
        // retransmit goes out whatever PRR allows, as Linux sends at least one segment when
        // prr_out is 0; it counts in prr_out.
        let end = if self.s.sack { self.board.next_sacked_above(self.snd_una).unwrap_or(self.snd_max) } else { self.snd_max };
        let len = (end.min(self.snd_max) - self.snd_una).min(self.s.mss as u64) as u32;
        self.send_segment_len(self.snd_una, len.max(1), ctx);
        self.board.set_high_rxt(self.snd_una + len as u64);
        // A loss also counts as the ECN reaction for this window (RFC 3168 s6.1.2).
        self.ecn_hold_until = self.snd_max;
    }

    /// An ECN echo may start a reduction now: none is under way (loss recovery or an ECN
    /// reduction) and none began in the window this acknowledgement ends (RFC 3168 s6.1.2).
    #[inline]
    fn ecn_may_react(&self) -> bool {
        // Linux `tcp_enter_cwr` only from Open or Disorder: not in CA_Loss either.
        !self.in_recovery && !self.in_cwr && self.snd_una >= self.ecn_hold_until && !self.in_timeout_recovery()
    }

    /// The reduction an ECN echo starts is held as a state (Linux's CA_CWR): the window does
    /// not grow until it ends, and with PRR it comes down gradually. Not for a controller that
    /// sets the window itself (BBR: Linux enters CWR, but its `cong_control` ignores it) or that
    /// has no window to reduce ("none").
    #[inline]
    fn ecn_starts_cwr(&self) -> bool {
        !self.cc.sets_recovery_window() && self.cc.answers_ecn()
    }

    fn on_ece(&mut self, ctx: &mut TransportCtx) {
        if !self.ecn_may_react() {
            return;
        }
        let flight = self.snd_max - self.snd_una;
        let cwnd_before = self.cc.cwnd_bytes();
        self.cc.on_ecn(flight, self.s.mss, ctx.now);
        self.ecn_hold_until = self.snd_max;
        self.cwr_pending = true;
        if self.ecn_starts_cwr() {
            // Linux tcp_enter_cwr -> tcp_init_cwnd_reduction: high_seq = snd_nxt, prr_delivered =
            // prr_out = 0, ssthresh from the controller (on_ecn above). ns-3's EnterCwr alike,
            // with RecoverFS the data outstanding, as for a loss here (Linux takes the window).
            self.in_cwr = true;
            self.cwr_high = self.snd_max;
            let in_loss = self.in_timeout_recovery();
            if let Some(u) = self.rack.as_mut().and_then(|r| r.undo.as_mut()) {
                if in_loss {
                    // Linux in CA_Loss does not enter CWR: the echo only keeps the window from
                    // being restored (`tcp_fastretrans_alert` step A); the timeout may still be
                    // undone.
                    u.forbid_window_undo();
                } else {
                    // Linux `tcp_enter_cwr`: congestion is proven, the last episode stays.
                    u.cancel();
                }
            }
            self.prr_delivered = 0;
            self.prr_out = 0;
            self.recover_fs = flight;
            // With PRR the window starts from the one in force and prr_on_ack sets it on this
            // ack. Without, the controller's window is the reduced one at once and, not grown,
            // stays there until the reduction ends (ns-3's classic recovery: cwnd = ssthresh at
            // EnterCwr).
            if self.cwr_uses_prr() {
                self.recovery_wnd = cwnd_before;
            }
        }
    }

    /// The retransmission timer fired.
    pub fn on_rto(&mut self, ctx: &mut TransportCtx) {
        if let Some(r) = self.rack.as_mut() {
            // The slot fired at the probe or reordering deadline RACK set, unless the RTO was
            // armed since (`arm_rto` knows nothing of RACK; see `Rack::timer_at_ps`).
            match r.timer {
                TimerMode::Probe if ctx.now == r.timer_at_ps => return self.on_probe_timer(ctx),
                TimerMode::Reorder if ctx.now == r.timer_at_ps => return self.on_reorder_timer(ctx),
                _ => {
                    r.timer = TimerMode::Rto;
                    r.on_rto();
                }
            }
        }
        self.rto_armed = false;
        if self.completed || self.snd_una >= self.snd_max {
            return;
        }
        self.counters_mut().timeouts += 1;
        // A RACK-TLP sender follows Linux's `tcp_enter_loss`: no second ssthresh cut inside a
        // recovery or an ECN reduction either (`rack_timeout_begins_episode`).
        if self.rack.is_some() {
            // RFC 5682 s3.1 step 1: whether F-RTO watches this episode depends on the state
            // the timeout found.
            self.rack_frto_on_timeout();
        }
        let repeated = if self.rack.is_some() { !self.rack_timeout_begins_episode() } else { self.head_resent_by_timer };
        // RFC 5681 eq. 4 halves FlightSize. After a NewReno recovery that inflated the window,
        // snd_max - snd_una also counts segments already lost or received out of order, which
        // RFC 6675's pipe (and ns-3's scoreboard) exclude; Linux halves cwnd instead. Half of
        // min(FlightSize, cwnd) follows both: the window that was really in use.
        let flight = (self.snd_max - self.snd_una).min(self.cc.cwnd_bytes());
        // RFC 5681 s3.1: ssthresh is lowered for a segment "not yet resent by way of the
        // retransmission timer"; when the timer fires again before the segment it resent is
        // acknowledged, ssthresh is held and the window is the loss window again. Lowering it
        // once more (from a one-segment window: to 2 segments) left a flow in congestion
        // avoidance from 2 segments after two timeouts in a row. Linux (`tcp_enter_loss`: in
        // CA_Loss with `icsk_retransmits` set, which an advancing ack clears) skips its ssthresh
        // hook alike. ns-3 3.44 means to (`TcpSocketBase::ReTxTimeout` tests for CA_LOSS with
        // the head retransmitted) but clears the retransmitted marks just before the test, so it
        // lowers ssthresh at every timeout (docs/crossval.md; model revision 6).
        if repeated {
            self.cc.on_repeated_timeout(self.s.mss, ctx.now);
        } else {
            self.cc.on_timeout(flight, self.s.mss, ctx.now);
        }
        self.head_resent_by_timer = true;
        if let Some(r) = self.rate.as_mut() {
            // Linux tcp_enter_loss: everything outstanding is marked lost now, outside any
            // acknowledgement's rate sample.
            r.lost_upto = r.lost_upto.max(self.snd_max);
        }
        // RFC 6582 s4: after a timeout, remember snd_max so stale duplicates do not start a
        // fast retransmit.
        self.recover = Some(self.snd_max);
        self.recover_after_rto = true;
        self.in_recovery = false;
        self.in_cwr = false;
        self.dupacks = 0;
        // RFC 6298 s5.5: back off the timer.
        self.rto = (self.rto * 2).min(self.s.max_rto_ps);
        // Go back N: resend from the oldest unacknowledged byte as the window allows (with
        // SACK, skipping what the receiver holds; reneging is not modelled).
        self.snd_nxt = self.snd_una;
        self.board.set_high_rxt(self.snd_una);
        self.try_send(ctx);
        if !self.rto_armed {
            self.arm_rto(ctx);
        }
    }

    /// Counters and state for reports.
    pub fn report(&self) -> TransportReport {
        let c = self.counters;
        TransportReport {
            delivered_bytes: 0,
            acked_bytes: self.snd_una,
            retx_pkts: c.retx_pkts,
            timeouts: c.timeouts,
            fast_retx: c.fast_retx,
            cwnd_bytes: self.cwnd_bytes(),
            rwnd_bytes: 0,
            srtt_ps: self.srtt,
            rtt_samples: c.rtt_samples,
            rtt_sum_ps: c.rtt_sum_ps,
            rtt_min_ps: if c.rtt_samples > 0 { c.rtt_min_ps } else { 0 },
            rtt_max_ps: c.rtt_max_ps,
            rtt_std_ps: if c.rtt_samples > 0 { (c.rtt_m2_ps2 / c.rtt_samples as f64).max(0.0).sqrt() } else { 0.0 },
            rate_bps: 0.0,
            handshake: None,
            rack: self.rack.as_ref().map(|r| super::rack::RackReport {
                probes: r.probes,
                probe_recoveries: r.probe_recoveries,
                marked_lost_segs: r.marked_lost,
                dsacks: r.dsacks,
                recoveries_undone: r.undo.map_or(0, |u| u.recoveries_undone),
                timeouts_undone: r.undo.map_or(0, |u| u.timeouts_undone),
                frto_spurious_rtos: r.frto.spurious,
            }),
        }
    }
}

#[cfg(test)]
mod layout_tests {
    use super::super::TcpConnection;
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn what_a_retransmission_timeout_touches_lies_in_the_connections_first_256_bytes() {
        // `on_rto` -> `cc.on_timeout` (or `on_repeated_timeout`) -> `try_send` -> `send_segment_len` -> `arm_rto`, the
        // started flag checked before it (the handshake box only until data starts),
        // `is_finished` after it and `srtt_ps` on the drop (issue 13).
        let sender = offset_of!(TcpConnection, sender);
        let counters = sender + offset_of!(TcpSender, counters);
        let touched = [
            ("handshake", offset_of!(TcpConnection, handshake), 8),
            ("snd_una", sender + offset_of!(TcpSender, snd_una), 8),
            ("snd_nxt", sender + offset_of!(TcpSender, snd_nxt), 8),
            ("snd_max", sender + offset_of!(TcpSender, snd_max), 8),
            ("offered_bytes", sender + offset_of!(TcpSender, offered_bytes), 8),
            ("total_bytes", sender + offset_of!(TcpSender, total_bytes), 8),
            ("rwnd", sender + offset_of!(TcpSender, rwnd), 8),
            ("rto", sender + offset_of!(TcpSender, rto), 8),
            ("srtt", sender + offset_of!(TcpSender, srtt), 8),
            ("recover", sender + offset_of!(TcpSender, recover), size_of::<Option<u64>>()),
            ("cc", sender + offset_of!(TcpSender, cc), size_of::<AnyCc>()),
            ("board", sender + offset_of!(TcpSender, board), size_of::<Scoreboard>()),
            ("s", sender + offset_of!(TcpSender, s), size_of::<SenderSettings>()),
            ("rate", sender + offset_of!(TcpSender, rate), 8),
            ("dupacks", sender + offset_of!(TcpSender, dupacks), 4),
            ("flags", sender + offset_of!(TcpSender, in_recovery), 5),
            ("started", sender + offset_of!(TcpSender, started), 1),
            ("recover_after_rto", sender + offset_of!(TcpSender, recover_after_rto), 1),
            ("head_resent_by_timer", sender + offset_of!(TcpSender, head_resent_by_timer), 1),
            ("timeouts", counters + offset_of!(SenderCounters, timeouts), 8),
            ("retx_pkts", counters + offset_of!(SenderCounters, retx_pkts), 8),
        ];
        // Four lines when the box starts on one, five at most from a 16-byte aligned `malloc`.
        for (name, off, len) in touched {
            assert!(off + len <= TcpConnection::TIMEOUT_BYTES, "{name} at bytes {off}..{}", off + len);
        }
        assert_eq!(align_of::<TcpConnection>(), 8, "boxed by malloc, not posix_memalign");
    }
}
