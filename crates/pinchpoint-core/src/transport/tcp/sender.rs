//! The sending end: segmentation, the retransmission timer, loss detection and recovery.
//! The window itself comes from the congestion controller.

use super::cc::{AckSample, AnyCc, CongestionControl, RecoveryStyle};
use super::sack::Scoreboard;
use crate::net::packet::{flags, Ecn, Packet, PacketKind};
use crate::sim::SimTime;
use crate::transport::{Direction, TransportCtx, TransportReport, TIMER_RTO};

/// Sender settings.
#[derive(Clone, Copy, Debug)]
pub struct SenderSettings {
    /// Maximum segment size, payload bytes.
    pub mss: u32,
    /// Header bytes added to each data segment on the wire.
    pub header_bytes: u32,
    /// Duplicate acknowledgements that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// Network packets per segment (ATN WP/267 s5.2: a TPDU split into several NPDUs).
    pub packets_per_segment: u32,
    /// RTO lower bound, ps.
    pub min_rto_ps: SimTime,
    /// RTO before the first sample, ps.
    pub initial_rto_ps: SimTime,
    /// RTO upper bound, ps.
    pub max_rto_ps: SimTime,
    /// Mark data ECT and react to ECN echoes.
    pub ecn: bool,
    /// RFC 3042 limited transmit on the first duplicate acknowledgements.
    pub limited_transmit: bool,
    /// Priority written on data packets.
    pub priority: u8,
    /// Use the receiver's SACK blocks for loss recovery (RFC 6675); off: NewReno (RFC 6582).
    pub sack: bool,
}

/// RFC 6298 s2: the clock granularity G used in RTO = SRTT + max(G, 4 RTTVAR); 1 ms as Linux.
const CLOCK_GRANULARITY_PS: SimTime = 1_000_000_000;

/// The sending end of a TCP flow.
#[derive(Debug)]
pub struct TcpSender {
    s: SenderSettings,
    cc: AnyCc,
    /// Bytes the application offers in all (u64::MAX: open-ended, never complete).
    total_bytes: u64,
    /// Bytes the application has offered so far (the workload, pulled by the connection).
    offered_bytes: u64,
    /// Oldest unacknowledged byte.
    snd_una: u64,
    /// Next byte to send.
    snd_nxt: u64,
    /// Highest byte ever sent plus one.
    snd_max: u64,
    /// Window the receiver last advertised, bytes.
    rwnd: u64,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover`: snd_max when the last recovery or timeout began.
    recover: Option<u64>,
    /// The window during fast recovery (ssthresh + inflation), bytes.
    recovery_wnd: u64,
    /// A partial ack already reset the timer in this recovery (RFC 6582 s3.2 step 5).
    partial_ack_seen: bool,
    /// ECN: no new reaction until snd_una passes this (RFC 3168 s6.1.2, once per window).
    ecn_hold_until: u64,
    /// Set CWR on the next data segment.
    cwr_pending: bool,
    /// What the receiver reported holding above snd_una (SACK).
    board: Scoreboard,
    /// RFC 6675 HighRxt: highest byte retransmitted in this recovery plus one.
    high_rxt: u64,
    srtt: SimTime,
    rttvar: SimTime,
    rto: SimTime,
    has_rtt: bool,
    rto_armed: bool,
    started: bool,
    completed: bool,
    // Counters.
    retx_pkts: u64,
    timeouts: u64,
    fast_retx: u64,
    rtt_samples: u64,
    rtt_sum_ps: f64,
    rtt_min_ps: SimTime,
    rtt_max_ps: SimTime,
}

impl TcpSender {
    /// A sender that will offer `total_bytes` (u64::MAX: unbounded).
    pub fn new(s: SenderSettings, cc: AnyCc, total_bytes: u64) -> Self {
        TcpSender {
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
            partial_ack_seen: false,
            ecn_hold_until: 0,
            cwr_pending: false,
            board: Scoreboard::default(),
            high_rxt: 0,
            srtt: 0,
            rttvar: 0,
            rto: s.initial_rto_ps,
            has_rtt: false,
            rto_armed: false,
            started: false,
            completed: false,
            retx_pkts: 0,
            timeouts: 0,
            fast_retx: 0,
            rtt_samples: 0,
            rtt_sum_ps: 0.0,
            rtt_min_ps: SimTime::MAX,
            rtt_max_ps: 0,
        }
    }

    /// Sets the receiver window known before the first acknowledgement: the one the receiver
    /// announces in the connection handshake (TCP's SYN-ACK window, ATN's initial credit W0).
    pub fn set_initial_rwnd(&mut self, rwnd_bytes: u64) {
        self.rwnd = rwnd_bytes;
    }

    /// The congestion controller.
    pub fn cc(&self) -> &AnyCc {
        &self.cc
    }
    /// Current retransmission timeout, ps.
    pub fn rto_ps(&self) -> SimTime {
        self.rto
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
    /// Bytes sent and not yet acknowledged.
    pub fn in_flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// The window that limits sending now: congestion (or recovery) window and receiver window.
    pub fn send_window(&self) -> u64 {
        let cwnd = if self.in_recovery { self.recovery_wnd } else { self.cc.cwnd_bytes() };
        cwnd.min(self.rwnd)
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
        if self.total_bytes == 0 {
            self.completed = true;
            return;
        }
        self.try_send(ctx);
    }

    /// Sends the segment starting at `seq` (a full one, or what is left of the file);
    /// `snd_max` must not yet include it if it is new.
    fn send_segment(&mut self, seq: u64, ctx: &mut TransportCtx) {
        let len = (self.offered_bytes - seq).min(self.s.mss as u64) as u32;
        self.send_segment_len(seq, len, ctx);
    }

    /// Sends `len` bytes from `seq`.
    fn send_segment_len(&mut self, seq: u64, len: u32, ctx: &mut TransportCtx) {
        // ATN WP/267 s5.2: a TPDU may travel in several network packets.
        let k = self.s.packets_per_segment.clamp(1, len.max(1));
        let mut f = 0;
        if seq < self.snd_max {
            f |= flags::RETX;
            self.retx_pkts += k as u64;
        }
        if self.cwr_pending {
            f |= flags::CWR;
            self.cwr_pending = false;
        }
        let pkt = Packet {
            kind: PacketKind::Data,
            seq,
            size_bytes: len + self.s.header_bytes,
            payload_bytes: len,
            sent_at: ctx.now,
            ecn: if self.s.ecn { Ecn::Ect } else { Ecn::NotEct },
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
        // RFC 6298 s5.1: start the timer when data is sent and it is not running.
        if !self.rto_armed {
            self.arm_rto(ctx);
        }
    }

    fn arm_rto(&mut self, ctx: &mut TransportCtx) {
        self.rto_armed = true;
        ctx.set_timer(TIMER_RTO, ctx.now + self.rto);
    }

    fn try_send(&mut self, ctx: &mut TransportCtx) {
        if self.in_recovery && self.s.sack {
            self.sack_send(ctx);
            return;
        }
        let wnd = self.send_window();
        while self.snd_nxt < self.offered_bytes {
            if self.s.sack && self.snd_nxt < self.snd_max {
                // Going back after a timeout: skip what the receiver reported holding.
                self.snd_nxt = self.board.skip_sacked(self.snd_nxt);
                if self.snd_nxt >= self.offered_bytes {
                    break;
                }
            }
            let mut len = (self.offered_bytes - self.snd_nxt).min(self.s.mss as u64);
            if self.s.sack && self.snd_nxt < self.snd_max {
                if let Some(next) = self.board.next_sacked_above(self.snd_nxt) {
                    len = len.min(next - self.snd_nxt);
                }
            }
            // Send whole segments only (sender-side silly-window avoidance, RFC 1122 s4.2.3.4),
            // except that one segment may always be outstanding.
            let limit = self.snd_una + wnd.max(len.min(self.s.mss as u64));
            if self.snd_nxt + len > limit {
                break;
            }
            let seq = self.snd_nxt;
            self.send_segment_len(seq, len as u32, ctx);
            self.snd_nxt += len;
            if self.snd_nxt > self.snd_max {
                self.snd_max = self.snd_nxt;
            }
        }
    }

    /// RFC 6675 s5 step (C): while cwnd - pipe >= 1 SMSS, send NextSeg(): first the lowest
    /// lost and not yet retransmitted hole, then new data. (Rule 3 of NextSeg, retransmitting
    /// a hole not yet deemed lost, is not used; RFC 6675 makes it optional.)
    fn sack_send(&mut self, ctx: &mut TransportCtx) {
        let mss = self.s.mss as u64;
        let cwnd = self.cc.cwnd_bytes().min(self.rwnd);
        let lost_below = self.board.loss_boundary(self.s.dupack_threshold, self.s.mss);
        loop {
            let pipe = self.board.pipe(self.snd_una, self.snd_max, lost_below, self.high_rxt);
            if pipe + mss > cwnd {
                break;
            }
            let hole = self.board.skip_sacked(self.high_rxt.max(self.snd_una));
            if hole < lost_below && hole < self.snd_max {
                let end = self.board.next_sacked_above(hole).unwrap_or(self.snd_max).min(self.snd_max);
                let len = (end - hole).min(mss) as u32;
                self.send_segment_len(hole, len, ctx);
                self.high_rxt = hole + len as u64;
                continue;
            }
            let len = (self.offered_bytes - self.snd_max.min(self.offered_bytes)).min(mss);
            if len > 0 && self.snd_max + len <= self.snd_una + self.rwnd.max(len) {
                let seq = self.snd_max;
                self.send_segment_len(seq, len as u32, ctx);
                self.snd_max += len;
                self.snd_nxt = self.snd_max;
                continue;
            }
            break;
        }
    }

    fn rtt_sample(&mut self, r: SimTime) {
        self.rtt_samples += 1;
        self.rtt_sum_ps += r as f64;
        self.rtt_min_ps = self.rtt_min_ps.min(r);
        self.rtt_max_ps = self.rtt_max_ps.max(r);
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

    /// An acknowledgement arrived.
    pub fn on_ack(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        if !self.started || self.completed {
            return;
        }
        self.rwnd = pkt.window_bytes as u64;
        let ack = pkt.ack.min(self.snd_max);
        let in_flight_before = self.snd_max - self.snd_una;
        if self.s.sack {
            for (a, b) in pkt.sack.ranges(pkt.ack) {
                self.board.add(a.max(ack), b.min(self.snd_max));
            }
            self.board.advance(ack.max(self.snd_una));
        }
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            // RFC 7323 s4.1: an RTT sample from the echoed timestamp of an ack that advances.
            let rtt = ctx.now.saturating_sub(pkt.ts_echo);
            self.rtt_sample(rtt);
            self.snd_una = ack;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            self.dupacks = 0;
            let mut partial = false;
            if self.in_recovery {
                let full = self.recover.is_none_or(|r| ack >= r);
                if full || self.cc.recovery() == RecoveryStyle::Reno {
                    // RFC 6582 s3.2 step 3 (full ack) / RFC 5681 (any new ack): leave recovery,
                    // window = ssthresh.
                    self.in_recovery = false;
                    self.cc.on_recovery_exit(ctx.now);
                } else {
                    // RFC 6582 s3.2 step 5: partial ack. Retransmit the next hole, deflate the
                    // window by the amount acknowledged and add back one segment.
                    partial = true;
                    if !self.s.sack {
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
                self.cc.on_ack(&AckSample { now: ctx.now, bytes_acked: acked, rtt_ps: Some(rtt), in_flight_bytes: in_flight_before, mss: self.s.mss });
            }
            if self.s.ecn && pkt.flags & flags::ECE != 0 {
                self.on_ece(ctx);
            }
            if self.snd_una >= self.total_bytes {
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
            let sack_lost = self.s.sack && self.board.loss_boundary(self.s.dupack_threshold, self.s.mss) > self.snd_una;
            if self.in_recovery {
                // RFC 6582 s3.2 step 4: inflate by one segment per duplicate (NewReno; with
                // SACK the pipe estimate does this).
                self.recovery_wnd += self.s.mss as u64;
            } else if self.dupacks == self.s.dupack_threshold || (sack_lost && self.dupacks < self.s.dupack_threshold) {
                // RFC 6582 s3.2 step 2: only if the ack covers more than `recover`.
                let may_recover = self.recover.is_none_or(|r| ack > r);
                if may_recover {
                    self.enter_recovery(ctx);
                }
            } else if self.dupacks < self.s.dupack_threshold && self.s.limited_transmit {
                // RFC 3042: send one new segment per early duplicate, within cwnd + 2 segments.
                let len = (self.offered_bytes - self.snd_nxt.min(self.offered_bytes)).min(self.s.mss as u64);
                let allowance = self.cc.cwnd_bytes().min(self.rwnd) + self.dupacks as u64 * self.s.mss as u64;
                if len > 0 && self.snd_nxt == self.snd_max && self.snd_max + len <= self.snd_una + allowance {
                    let seq = self.snd_nxt;
                    self.send_segment(seq, ctx);
                    self.snd_nxt += len;
                    self.snd_max = self.snd_nxt;
                }
                return;
            }
        }
        self.try_send(ctx);
    }

    fn enter_recovery(&mut self, ctx: &mut TransportCtx) {
        let flight = self.snd_max - self.snd_una;
        self.fast_retx += 1;
        self.cc.on_loss(flight, self.s.mss, ctx.now);
        self.recover = Some(self.snd_max);
        self.in_recovery = true;
        self.partial_ack_seen = false;
        // RFC 6582 s3.2 step 2 / RFC 5681 s3.2 step 4: ssthresh + 3 segments.
        self.recovery_wnd = self.cc.cwnd_bytes() + self.s.dupack_threshold as u64 * self.s.mss as u64;
        if self.s.sack && self.high_rxt > self.snd_una {
            // Holes up to HighRxt were retransmitted in the previous recovery and those copies
            // are still in flight: do not send them again (Linux keeps the same per-segment
            // "retransmitted" mark until the segment is acknowledged or the timer expires).
            return;
        }
        // Retransmit the first unacknowledged segment (up to the next SACKed range).
        let end = if self.s.sack { self.board.next_sacked_above(self.snd_una).unwrap_or(self.snd_max) } else { self.snd_max };
        let len = (end.min(self.snd_max) - self.snd_una).min(self.s.mss as u64) as u32;
        self.send_segment_len(self.snd_una, len.max(1), ctx);
        self.high_rxt = self.snd_una + len as u64;
        // A loss also counts as the ECN reaction for this window (RFC 3168 s6.1.2).
        self.ecn_hold_until = self.snd_max;
    }

    fn on_ece(&mut self, ctx: &mut TransportCtx) {
        if self.in_recovery || self.snd_una < self.ecn_hold_until {
            return;
        }
        let flight = self.snd_max - self.snd_una;
        self.cc.on_ecn(flight, self.s.mss, ctx.now);
        self.ecn_hold_until = self.snd_max;
        self.cwr_pending = true;
    }

    /// The retransmission timer fired.
    pub fn on_rto(&mut self, ctx: &mut TransportCtx) {
        self.rto_armed = false;
        if self.completed || self.snd_una >= self.snd_max {
            return;
        }
        self.timeouts += 1;
        // RFC 5681 eq. 4 halves FlightSize. After a NewReno recovery that inflated the window,
        // snd_max - snd_una also counts segments already lost or received out of order, which
        // RFC 6675's pipe (and ns-3's scoreboard) exclude; Linux halves cwnd instead. Half of
        // min(FlightSize, cwnd) follows both: the window that was really in use.
        let flight = (self.snd_max - self.snd_una).min(self.cc.cwnd_bytes());
        self.cc.on_timeout(flight, self.s.mss, ctx.now);
        // RFC 6582 s4: after a timeout, remember snd_max so stale duplicates do not start a
        // fast retransmit.
        self.recover = Some(self.snd_max);
        self.in_recovery = false;
        self.dupacks = 0;
        // RFC 6298 s5.5: back off the timer.
        self.rto = (self.rto * 2).min(self.s.max_rto_ps);
        // Go back N: resend from the oldest unacknowledged byte as the window allows (with
        // SACK, skipping what the receiver holds; reneging is not modelled).
        self.snd_nxt = self.snd_una;
        self.high_rxt = self.snd_una;
        self.try_send(ctx);
        if !self.rto_armed {
            self.arm_rto(ctx);
        }
    }

    /// Counters and state for reports.
    pub fn report(&self) -> TransportReport {
        TransportReport {
            delivered_bytes: 0,
            acked_bytes: self.snd_una,
            retx_pkts: self.retx_pkts,
            timeouts: self.timeouts,
            fast_retx: self.fast_retx,
            cwnd_bytes: if self.in_recovery && !self.s.sack { self.recovery_wnd } else { self.cc.cwnd_bytes() },
            rwnd_bytes: 0,
            srtt_ps: self.srtt,
            rtt_samples: self.rtt_samples,
            rtt_sum_ps: self.rtt_sum_ps,
            rtt_min_ps: if self.rtt_samples > 0 { self.rtt_min_ps } else { 0 },
            rtt_max_ps: self.rtt_max_ps,
        }
    }
}
