//! BBR v1 (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016),
//! as Linux's `net/ipv4/tcp_bbr.c` runs it.
//!
//! BBR keeps a model of the path: the bottleneck bandwidth (the windowed maximum of the
//! delivery-rate samples over 10 round trips) and the round-trip propagation time (the minimum
//! RTT over 10 s). It paces at `pacing_gain x bw` and caps the data in flight at
//! `cwnd_gain x bw x min_rtt` (plus a few send quanta). A state machine sets the gains:
//! STARTUP (2/ln2 for both) until the bandwidth stops growing by 25% for 3 rounds, DRAIN
//! (pacing ln2/2) until the queue STARTUP built is gone, then PROBE_BW, cycling the pacing gain
//! through [5/4, 3/4, 1, 1, 1, 1, 1, 1] one min_rtt per phase; and PROBE_RTT (cwnd 4 packets
//! for max(200 ms, one round)) when the minimum RTT has not been refreshed for 10 s.
//!
//! Windows are in packets (MSS), as in Linux; the sender sees bytes. All the work happens on
//! delivery-rate samples (`on_rate_sample`, Linux's `cong_control` hook). The deliberate
//! differences from Linux and ns-3 are listed in `docs/algorithms/bbr.md`.

use super::{AckSample, CcInit, CcSettings, CongestionControl, RateSample};
use crate::sim::rng::{self, SimRng};
use crate::sim::{SimTime, PS_PER_MS, PS_PER_S};
use serde::{Deserialize, Serialize};

/// No parameters: BBR v1's constants are those of `tcp_bbr.c`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BbrConfig {}

impl CcSettings for BbrConfig {
    fn validate(&self, tcp: &super::TcpFacts) -> Result<(), super::CcProblem> {
        if tcp.slow_start_after_idle {
            // tcp_slow_start_after_idle_check: no restart for a controller with cong_control.
            return Err(super::CcProblem::tcp("slow_start_after_idle", "has no effect with cc = \"bbr\": Linux skips the window restart for a controller that sets the window itself (cong_control)"));
        }
        if tcp.pacing {
            return Err(super::CcProblem::tcp("pacing", "has no effect with cc = \"bbr\": BBR always paces at its own rate (docs/algorithms/bbr.md): expected no tcp.pacing"));
        }
        if tcp.prr.is_some() {
            return Err(super::CcProblem::tcp("prr", "has no effect with cc = \"bbr\": BBR sets the window in recovery itself (cong_control), so PRR never runs: expected no tcp.prr"));
        }
        Ok(())
    }
    /// tcp_bbr.c `bbr_reset_probe_bw_mode`: PROBE_BW starts at a random phase of its cycle.
    fn draws_random(&self) -> bool {
        true
    }
}

// tcp_bbr.c constants. Gains are fixed point with BBR_UNIT = 256 in Linux; the values below are
// the ones that fixed point gives, so traces match the kernel's.
/// bbr_high_gain = 2885/1000 * 256 + 1 = 739 (2/ln2 = 2.885).
const HIGH_GAIN: f64 = 739.0 / 256.0;
/// bbr_drain_gain = 1000/2885 * 256 = 88 (ln2/2 = 0.347).
const DRAIN_GAIN: f64 = 88.0 / 256.0;
/// bbr_cwnd_gain: 2.
const CWND_GAIN: f64 = 2.0;
/// bbr_pacing_gain: one phase per min_rtt in PROBE_BW.
const PACING_GAIN: [f64; CYCLE_LEN] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const CYCLE_LEN: usize = 8;
/// bbr_cycle_rand: the PROBE_BW start phase is drawn among CYCLE_LEN - 1 phases (not 3/4).
const CYCLE_RAND: u32 = 7;
/// bbr_bw_rtts = CYCLE_LEN + 2: the max-bandwidth filter window, round trips.
const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
/// bbr_min_rtt_win_sec: the min-RTT filter window.
const MIN_RTT_WIN_PS: SimTime = 10 * PS_PER_S;
/// bbr_probe_rtt_mode_ms: the least time spent in PROBE_RTT.
const PROBE_RTT_MODE_PS: SimTime = 200 * PS_PER_MS;
/// bbr_cwnd_min_target: packets.
const CWND_MIN_TARGET_PKTS: u64 = 4;
/// bbr_full_bw_thresh (5/4) and bbr_full_bw_cnt (3 rounds).
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_CNT: u32 = 3;
/// bbr_pacing_margin_percent: pace 1% below the estimate so the bottleneck queue drains.
const PACING_MARGIN_PERCENT: f64 = 1.0;
/// bbr_min_tso_rate: below this pacing rate the send quantum is one packet, else two at least.
const MIN_TSO_RATE_BPS: f64 = 1_200_000.0;
/// TCP_INIT_CWND: the BDP before any RTT sample, packets.
const TCP_INIT_CWND_PKTS: u64 = 10;
/// Linux sk_pacing_shift = 10: the send quantum is at most ~1 ms at the pacing rate.
const PACING_SHIFT: u32 = 10;
/// GSO_MAX_SIZE - 1 - MAX_TCP_HEADER (65536 - 1 - 320 on x86-64): the largest GSO packet.
const MAX_GSO_BYTES: f64 = 65_215.0;
/// At most 0x7F segments per quantum (tcp_bbr.c bbr_tso_segs_goal).
const MAX_TSO_SEGS: u64 = 0x7F;
/// bbr_extra_acked_win_rtts: the ACK-aggregation estimate is the larger of two windowed maxima,
/// each kept for 5 round trips (Linux >= 4.19; bbr_extra_acked_gain is BBR_UNIT, so the
/// estimate enters the window target unscaled).
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// bbr_ack_epoch_acked_reset_thresh: an aggregation epoch that has counted this many packets
/// starts again (it may be very old).
const ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;
/// The 20-bit field Linux keeps the epoch's count in (`ack_epoch_acked:20`, capped at 0xFFFFF).
const ACK_EPOCH_ACKED_MAX: u64 = 0xF_FFFF;
/// bbr_extra_acked_max_us: the allowance is at most 100 ms at the estimated bandwidth.
const EXTRA_ACKED_MAX_PS: SimTime = 100 * PS_PER_MS;

/// BBR's state machine (tcp_bbr.c `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbrMode {
    /// Ramp up sending rate rapidly to fill the pipe.
    Startup,
    /// Drain any queue created during startup.
    Drain,
    /// Cycle the pacing gain to discover and share bandwidth.
    ProbeBw,
    /// Cut in-flight data to 4 packets to measure the minimum RTT.
    ProbeRtt,
}

/// The sender's loss state as BBR sees it (Linux `icsk_ca_state`, the states BBR reacts to).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaState {
    Open,
    Recovery,
    /// After a retransmission timeout, until everything outstanding then is delivered.
    Loss,
}

/// Kathleen Nichols' windowed running maximum (Linux `lib/win_minmax.c`): the best, second
/// best and third best samples of the window, so that the maximum over the last `win` rounds is
/// known in constant space.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct WindowedMax {
    /// (time in rounds, value).
    s: [(u64, f64); 3],
}

impl WindowedMax {
    fn get(&self) -> f64 {
        self.s[0].1
    }

    fn reset(&mut self, t: u64, v: f64) -> f64 {
        self.s = [(t, v); 3];
        v
    }

    /// minmax_running_max: adds sample `v` at time `t`, window `win`; returns the maximum.
    fn running_max(&mut self, win: u64, t: u64, v: f64) -> f64 {
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[2] = (t, v);
            self.s[1] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        self.subwin_update(win, t, v)
    }

    /// minmax_subwin_update: ages the kept samples out of the window in quarters.
    fn subwin_update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let dt = t - self.s[0].0;
        if dt > win {
            // The best sample left the window: promote the others.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = (t, v);
            if t - self.s[0].0 > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = (t, v);
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            // A quarter of the window passed without a second choice: take one.
            self.s[2] = (t, v);
            self.s[1] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            // Half the window passed without a third choice: take one.
            self.s[2] = (t, v);
        }
        self.s[0].1
    }
}

/// BBR v1's model and state machine (boxed in [`Bbr`] so that idle flows stay small).
#[derive(Clone, Debug)]
pub struct BbrModel {
    mss: u32,
    /// Congestion window, packets (Linux snd_cwnd).
    cwnd_pkts: u64,
    /// Set when entering DRAIN (Linux sets snd_ssthresh there); otherwise unlimited.
    ssthresh_bytes: u64,
    mode: BbrMode,
    ca_state: CaState,
    /// Windowed max of delivery rates, bytes/s, over BW_RTTS rounds.
    bw: WindowedMax,
    /// Round trips counted so far (rtt_cnt) and the delivered count that ends this one.
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    /// This sample started a new round.
    round_start: bool,
    /// Bytes delivered on the connection so far (C.delivered).
    delivered_bytes: u64,
    /// Minimum RTT in the window, ps (SimTime::MAX before the first sample), and when it was
    /// taken.
    min_rtt_ps: SimTime,
    min_rtt_stamp: SimTime,
    /// End of PROBE_RTT's 200 ms (None until in-flight has fallen to 4 packets).
    probe_rtt_done_stamp: Option<SimTime>,
    /// A round has passed since in-flight reached 4 packets in PROBE_RTT.
    probe_rtt_round_done: bool,
    /// cwnd before recovery or PROBE_RTT, restored after them, packets.
    prior_cwnd_pkts: u64,
    /// In the first round of recovery: cwnd = in flight + acknowledged (packet conservation).
    packet_conservation: bool,
    /// STARTUP's full-pipe detection: the bandwidth at the last 25% growth, and rounds since.
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    /// PROBE_BW phase and when it began.
    cycle_idx: usize,
    cycle_stamp: SimTime,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Pacing rate in force, bit/s.
    pacing_rate_bps: f64,
    /// The pacing rate was initialised from a measured RTT.
    has_seen_rtt: bool,
    /// After a timeout: the delivered count at which the Loss state ends (everything then
    /// outstanding delivered); None until the first sample after the timeout.
    loss_end_delivered: Option<u64>,
    /// The last sample's time, in-flight and newly acknowledged packets (recovery entry uses
    /// them when it comes on the same acknowledgement).
    last_sample: Option<(SimTime, u64, u64)>,
    /// ACK aggregation (bbr_update_ack_aggregation): the two windowed maxima of packets
    /// acknowledged beyond what the bandwidth estimate predicts, packets; which one is current;
    /// rounds the current one has run.
    extra_acked_pkts: [u64; 2],
    extra_acked_win_idx: usize,
    extra_acked_win_rtts: u32,
    /// Start of the current aggregation epoch and the packets acknowledged since.
    ack_epoch_stamp: SimTime,
    ack_epoch_acked_pkts: u64,
    rng: SimRng,
}

impl BbrModel {
    /// Builds BBR in STARTUP (tcp_bbr.c bbr_init).
    pub fn new(_cfg: &BbrConfig, init: CcInit) -> Self {
        let mut b = BbrModel {
            mss: init.mss,
            cwnd_pkts: init.init_cwnd_pkts as u64,
            ssthresh_bytes: u64::MAX / 4,
            mode: BbrMode::Startup,
            ca_state: CaState::Open,
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            delivered_bytes: 0,
            min_rtt_ps: SimTime::MAX,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            prior_cwnd_pkts: 0,
            packet_conservation: false,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate_bps: 0.0,
            has_seen_rtt: false,
            loss_end_delivered: None,
            last_sample: None,
            extra_acked_pkts: [0; 2],
            extra_acked_win_idx: 0,
            extra_acked_win_rtts: 0,
            ack_epoch_stamp: 0,
            ack_epoch_acked_pkts: 0,
            // Replaced by the flow's own stream (`set_rng`) when built from a scenario.
            rng: rng::stream(0, "cc:bbr"),
        };
        b.init_pacing_rate_from_rtt(None);
        b
    }

    /// The state machine's mode.
    pub fn mode(&self) -> BbrMode {
        self.mode
    }
    /// The bottleneck bandwidth estimate (max filter), bytes/s.
    pub fn max_bw_bytes_per_s(&self) -> f64 {
        self.bw.get()
    }
    /// The minimum RTT estimate, ps (SimTime::MAX before a sample).
    pub fn min_rtt_ps(&self) -> SimTime {
        self.min_rtt_ps
    }
    /// The pacing gain in force.
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    /// The PROBE_BW phase index (0 is the 5/4 probing phase).
    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }
    /// STARTUP found the pipe full.
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }
    /// The ACK-aggregation estimate (bbr_extra_acked), packets.
    pub fn extra_acked_pkts(&self) -> u64 {
        self.extra_acked_pkts[0].max(self.extra_acked_pkts[1])
    }

    fn pkts(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.mss as u64)
    }

    /// bbr_bw_to_pacing_rate: bw x gain, 1% below, in bit/s.
    fn bw_to_pacing_rate(bw_bytes_per_s: f64, gain: f64) -> f64 {
        bw_bytes_per_s * gain * (100.0 - PACING_MARGIN_PERCENT) / 100.0 * 8.0
    }

    /// bbr_init_pacing_rate_from_rtt: high_gain x cwnd / RTT (1 ms before a sample).
    fn init_pacing_rate_from_rtt(&mut self, rtt_ps: Option<SimTime>) {
        let rtt = match rtt_ps {
            Some(r) if r > 0 => {
                self.has_seen_rtt = true;
                r
            }
            _ => PS_PER_MS,
        };
        let bw = (self.cwnd_pkts * self.mss as u64) as f64 / (rtt as f64 / PS_PER_S as f64);
        self.pacing_rate_bps = Self::bw_to_pacing_rate(bw, HIGH_GAIN);
    }

    /// bbr_tso_segs_goal: the send quantum, packets: ~1 ms at the pacing rate, at least 1
    /// below 1.2 Mbit/s and 2 above, at most 127 and one GSO packet.
    fn tso_segs_goal(&self) -> u64 {
        let bytes = (self.pacing_rate_bps / 8.0 / (1u64 << PACING_SHIFT) as f64).min(MAX_GSO_BYTES);
        let min_segs = if self.pacing_rate_bps < MIN_TSO_RATE_BPS { 1 } else { 2 };
        ((bytes / self.mss as f64) as u64).max(min_segs).min(MAX_TSO_SEGS)
    }

    /// bbr_quantization_budget: room for 3 send quanta (the pacer, the NIC's TSO and the
    /// receiver's delayed or stretched ACKs each hold one), rounded up to an even number, and
    /// 2 more packets in the probing phase so that it does reach 5/4 x BDP.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut c = cwnd + 3 * self.tso_segs_goal();
        c = (c + 1) & !1;
        if self.mode == BbrMode::ProbeBw && self.cycle_idx == 0 {
            c += 2;
        }
        c
    }

    /// bbr_bdp: ceil(bw x min_rtt x gain) in packets; TCP_INIT_CWND before an RTT sample.
    fn bdp(&self, bw_bytes_per_s: f64, gain: f64) -> u64 {
        if self.min_rtt_ps == SimTime::MAX {
            return TCP_INIT_CWND_PKTS;
        }
        let w = bw_bytes_per_s * (self.min_rtt_ps as f64 / PS_PER_S as f64) / self.mss as f64;
        (w * gain).ceil() as u64
    }

    /// bbr_inflight: the in-flight target for a gain, with the quantization budget.
    fn inflight(&self, bw_bytes_per_s: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp(bw_bytes_per_s, gain))
    }

    /// bbr_save_cwnd: remember the window to return to after recovery or PROBE_RTT.
    fn save_cwnd(&mut self) {
        if self.ca_state == CaState::Open && self.mode != BbrMode::ProbeRtt {
            self.prior_cwnd_pkts = self.cwnd_pkts;
        } else {
            // Already reduced: keep the larger of the two.
            self.prior_cwnd_pkts = self.prior_cwnd_pkts.max(self.cwnd_pkts);
        }
    }

    /// bbr_update_bw: count rounds and feed the max filter.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        if rs.interval_ps == 0 || rs.delivered_bytes == 0 {
            return; // not a valid observation
        }
        // A round ends when a packet sent after the round began is delivered.
        if rs.prior_delivered_bytes >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered_bytes;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let bw = rs.delivered_bytes as f64 / (rs.interval_ps as f64 / PS_PER_S as f64);
        // An application-limited sample only counts if it raises the estimate (draft s3.4).
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.running_max(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// bbr_update_ack_aggregation: how far acknowledgements run ahead of the bandwidth estimate.
    /// An epoch starts when the packets acknowledged since the last one fall to what the
    /// estimate says should have been delivered meanwhile; the excess over that (at most cwnd)
    /// feeds a max filter of two 5-round windows. Aggregated ACKs (delayed, stretched or
    /// bunched on the way back) deliver in bursts, and the excess is the data the sender must
    /// have in flight to keep sending between bursts.
    fn update_ack_aggregation(&mut self, rs: &RateSample, acked_pkts: u64) {
        // Linux returns for acked_sacked <= 0, delivered < 0 or interval_us <= 0 (no rate).
        if acked_pkts == 0 || rs.interval_ps == 0 || rs.delivered_bytes == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked_pkts[self.extra_acked_win_idx] = 0;
            }
        }
        // Packets the estimate expects delivered over the epoch (Linux: bw x epoch_us, whole
        // packets; the epoch runs to tp->delivered_mstamp, this acknowledgement's time).
        let epoch_s = (rs.now - self.ack_epoch_stamp) as f64 / PS_PER_S as f64;
        let mut expected_pkts = (self.bw.get() * epoch_s / self.mss as f64) as u64;
        if self.ack_epoch_acked_pkts <= expected_pkts || self.ack_epoch_acked_pkts + acked_pkts >= ACK_EPOCH_ACKED_RESET_THRESH {
            self.ack_epoch_acked_pkts = 0;
            self.ack_epoch_stamp = rs.now;
            expected_pkts = 0;
        }
        self.ack_epoch_acked_pkts = (self.ack_epoch_acked_pkts + acked_pkts).min(ACK_EPOCH_ACKED_MAX);
        let extra = self.ack_epoch_acked_pkts.saturating_sub(expected_pkts).min(self.cwnd_pkts);
        let cur = &mut self.extra_acked_pkts[self.extra_acked_win_idx];
        *cur = (*cur).max(extra);
    }

    /// bbr_ack_aggregation_cwnd: the window's allowance for aggregation once the pipe is full,
    /// at most 100 ms at the estimated bandwidth, packets.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let max_aggr_pkts = (self.bw.get() * (EXTRA_ACKED_MAX_PS as f64 / PS_PER_S as f64) / self.mss as f64) as u64;
        self.extra_acked_pkts().min(max_aggr_pkts)
    }

    /// bbr_advance_cycle_phase.
    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = now;
    }

    /// bbr_is_next_cycle_phase: each phase lasts one min_rtt; the probing phase longer, until
    /// in-flight reaches 5/4 BDP; the draining phase shorter, once in-flight is down to a BDP.
    fn is_next_cycle_phase(&self, now: SimTime, prior_in_flight_pkts: u64, lost_pkts: u64) -> bool {
        let is_full_length = now - self.cycle_stamp > self.min_rtt_ps;
        if self.pacing_gain == 1.0 {
            return is_full_length;
        }
        let bw = self.bw.get();
        if self.pacing_gain > 1.0 {
            // A loss also ends the probe: 5/4 BDP may not fit (Linux, model revision 7).
            return is_full_length && (lost_pkts > 0 || prior_in_flight_pkts >= self.inflight(bw, self.pacing_gain));
        }
        is_full_length || prior_in_flight_pkts <= self.inflight(bw, 1.0)
    }

    /// bbr_reset_probe_bw_mode: enter PROBE_BW at a random phase other than the 3/4 one.
    fn reset_probe_bw_mode(&mut self, now: SimTime) {
        self.mode = BbrMode::ProbeBw;
        let r = ((rng::uniform(&mut self.rng) * CYCLE_RAND as f64) as usize).min(CYCLE_RAND as usize - 1);
        self.cycle_idx = CYCLE_LEN - 1 - r;
        self.advance_cycle_phase(now);
    }

    /// bbr_reset_mode: back from PROBE_RTT.
    fn reset_mode(&mut self, now: SimTime) {
        if !self.full_bw_reached {
            self.mode = BbrMode::Startup;
        } else {
            self.reset_probe_bw_mode(now);
        }
    }

    /// bbr_check_full_bw_reached: the pipe is full when three rounds in a row (not
    /// application-limited) failed to raise the bandwidth by 25%.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let max_bw = self.bw.get();
        if max_bw >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = max_bw;
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// bbr_check_drain.
    fn check_drain(&mut self, now: SimTime, in_flight_pkts: u64) {
        if self.mode == BbrMode::Startup && self.full_bw_reached {
            self.mode = BbrMode::Drain;
            self.ssthresh_bytes = self.inflight(self.bw.get(), 1.0) * self.mss as u64;
        }
        if self.mode == BbrMode::Drain && in_flight_pkts <= self.inflight(self.bw.get(), 1.0) {
            self.reset_probe_bw_mode(now);
        }
    }

    /// bbr_update_min_rtt: the min-RTT filter and PROBE_RTT.
    fn update_min_rtt(&mut self, rs: &RateSample, in_flight_pkts: u64) {
        let now = rs.now;
        let filter_expired = now > self.min_rtt_stamp + MIN_RTT_WIN_PS;
        if rs.rtt_ps > 0 && (rs.rtt_ps < self.min_rtt_ps || filter_expired) {
            self.min_rtt_ps = rs.rtt_ps;
            self.min_rtt_stamp = now;
        }
        if filter_expired && self.mode != BbrMode::ProbeRtt {
            self.mode = BbrMode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == BbrMode::ProbeRtt {
            match self.probe_rtt_done_stamp {
                None if in_flight_pkts <= CWND_MIN_TARGET_PKTS => {
                    // In-flight is down to 4 packets: stay 200 ms and at least one round.
                    self.probe_rtt_done_stamp = Some(now + PROBE_RTT_MODE_PS);
                    self.probe_rtt_round_done = false;
                    self.next_rtt_delivered = self.delivered_bytes;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && now > done {
                        // bbr_check_probe_rtt_done.
                        self.min_rtt_stamp = now;
                        self.cwnd_pkts = self.cwnd_pkts.max(self.prior_cwnd_pkts);
                        self.reset_mode(now);
                    }
                }
                None => {}
            }
        }
    }

    /// bbr_update_gains.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            BbrMode::Startup => (HIGH_GAIN, HIGH_GAIN),
            BbrMode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            BbrMode::ProbeBw => (PACING_GAIN[self.cycle_idx], CWND_GAIN),
            BbrMode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// bbr_set_pacing_rate: before the pipe is full the rate only rises.
    fn set_pacing_rate(&mut self, rtt_ps: SimTime) {
        if !self.has_seen_rtt && rtt_ps > 0 {
            self.init_pacing_rate_from_rtt(Some(rtt_ps));
        }
        let rate = Self::bw_to_pacing_rate(self.bw.get(), self.pacing_gain);
        if self.full_bw_reached || rate > self.pacing_rate_bps {
            self.pacing_rate_bps = rate;
        }
    }

    /// bbr_set_cwnd: grow towards cwnd_gain x BDP + the aggregation allowance + quanta; packet conservation in the first
    /// round of recovery; 4 packets in PROBE_RTT.
    fn set_cwnd(&mut self, acked_pkts: u64, in_flight_pkts: u64, lost_pkts: u64) {
        let mut cwnd = self.cwnd_pkts;
        if acked_pkts > 0 {
            // bbr_set_cwnd_to_recover_or_restore: an ACK for P packets should release at most
            // 2P, so the packets it found lost come off first (model revision 7).
            if lost_pkts > 0 {
                cwnd = cwnd.saturating_sub(lost_pkts).max(1);
            }
            if self.packet_conservation {
                cwnd = cwnd.max(in_flight_pkts + acked_pkts);
            } else {
                // Linux >= 4.19: the aggregation allowance goes in before the quantization budget.
                let target = self.quantization_budget(self.bdp(self.bw.get(), self.cwnd_gain) + self.ack_aggregation_cwnd());
                if self.full_bw_reached {
                    cwnd = (cwnd + acked_pkts).min(target);
                } else if cwnd < target || self.delivered_bytes < TCP_INIT_CWND_PKTS * self.mss as u64 {
                    cwnd += acked_pkts;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET_PKTS);
            }
        }
        if self.mode == BbrMode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_TARGET_PKTS);
        }
        self.cwnd_pkts = cwnd.max(1);
    }

    /// Leaves the Recovery or Loss state: back to the window before it.
    fn restore_after_loss_state(&mut self) {
        self.cwnd_pkts = self.cwnd_pkts.max(self.prior_cwnd_pkts);
        self.packet_conservation = false;
        self.ca_state = CaState::Open;
    }
}

impl CongestionControl for BbrModel {
    fn cwnd_bytes(&self) -> u64 {
        self.cwnd_pkts * self.mss as u64
    }
    fn ssthresh_bytes(&self) -> u64 {
        self.ssthresh_bytes
    }
    /// Everything happens on rate samples.
    fn on_ack(&mut self, _ack: &AckSample) {}

    /// tcp_bbr.c bbr_main: update the model, then the pacing rate and the window.
    fn on_rate_sample(&mut self, rs: &RateSample) {
        self.delivered_bytes = rs.total_delivered_bytes;
        let in_flight = self.pkts(rs.in_flight_bytes);
        let acked = self.pkts(rs.newly_delivered_bytes);
        // Linux counts lost packets (`rs->losses`); the sender reports bytes.
        let lost = self.pkts(rs.newly_lost_bytes);
        self.last_sample = Some((rs.now, in_flight, acked));
        if self.ca_state == CaState::Loss {
            let end = *self.loss_end_delivered.get_or_insert(rs.total_delivered_bytes + rs.in_flight_bytes);
            if rs.total_delivered_bytes >= end {
                self.restore_after_loss_state();
            }
        }
        // bbr_update_model.
        self.update_bw(rs);
        self.update_ack_aggregation(rs, acked);
        if self.mode == BbrMode::ProbeBw && self.is_next_cycle_phase(rs.now, in_flight + acked, lost) {
            self.advance_cycle_phase(rs.now);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(rs.now, in_flight);
        self.update_min_rtt(rs, in_flight);
        self.update_gains();
        self.set_pacing_rate(rs.rtt_ps);
        self.set_cwnd(acked, in_flight, lost);
    }

    /// Recovery begins (Linux: bbr_ssthresh saves cwnd; the next cong_control call sees
    /// TCP_CA_Recovery): cwnd = in flight + acknowledged, packet conservation for one round.
    fn on_loss(&mut self, in_flight_bytes: u64, _mss: u32, now: SimTime) {
        self.save_cwnd();
        let (in_flight, acked) = match self.last_sample {
            Some((t, f, a)) if t == now => (f, a),
            _ => (self.pkts(in_flight_bytes), 0),
        };
        self.ca_state = CaState::Recovery;
        self.packet_conservation = true;
        self.next_rtt_delivered = self.delivered_bytes;
        self.cwnd_pkts = (in_flight + acked).max(1);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        if self.ca_state == CaState::Recovery {
            self.restore_after_loss_state();
        }
    }

    /// Linux tcp_enter_loss: cwnd = 1 packet (everything is deemed lost); bbr_set_state
    /// (TCP_CA_Loss) restarts full-bandwidth detection's reference.
    fn on_timeout(&mut self, _in_flight_bytes: u64, mss: u32, now: SimTime) {
        self.save_cwnd();
        self.on_repeated_timeout(mss, now);
    }

    /// Linux's `tcp_enter_loss` on a repeated timeout skips `bbr_ssthresh`, which is where
    /// `bbr_save_cwnd` runs; `bbr_set_state(TCP_CA_Loss)` and the one-packet window remain.
    fn on_repeated_timeout(&mut self, _mss: u32, _now: SimTime) {
        self.ca_state = CaState::Loss;
        self.loss_end_delivered = None;
        self.full_bw = 0.0;
        self.round_start = true;
        self.cwnd_pkts = 1;
    }

    /// BBR v1 does not respond to ECN (Linux enters CWR, but `cong_control` sets the window).
    fn on_ecn(&mut self, _in_flight_bytes: u64, _mss: u32, _now: SimTime) {}

    /// Never called (see [`Bbr`]'s).
    fn on_idle_restart(&mut self, _r: &super::IdleRestart) {}

    /// Linux `bbr_undo_cwnd`: the slow-down was spurious, so full-bandwidth detection starts
    /// over (`full_bw`, `full_bw_cnt`); the window is BBR's own and stays as it is (Linux returns
    /// `snd_cwnd`; the prior ssthresh it then restores is not read by BBR).
    fn on_undo(&mut self, _u: &super::super::undo::UndoWindow) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        // An undone timeout returns Linux to CA_Open at once (`tcp_try_undo_loss`), and
        // `bbr_set_cwnd_to_recover_or_restore` then restores the window saved at the timeout.
        if self.ca_state == CaState::Loss {
            self.restore_after_loss_state();
        }
    }

    fn pacing_rate_bps(&self) -> Option<f64> {
        Some(self.pacing_rate_bps)
    }

    fn sets_recovery_window(&self) -> bool {
        true
    }

    fn set_rng(&mut self, rng: SimRng) {
        self.rng = rng;
    }
}

/// BBR v1 (the controller the registry builds).
#[derive(Clone, Debug)]
pub struct Bbr(Box<BbrModel>);

impl Bbr {
    /// Builds BBR in STARTUP.
    pub fn new(cfg: &BbrConfig, init: CcInit) -> Self {
        Bbr(Box::new(BbrModel::new(cfg, init)))
    }
}

impl std::ops::Deref for Bbr {
    type Target = BbrModel;
    fn deref(&self) -> &BbrModel {
        &self.0
    }
}

impl std::ops::DerefMut for Bbr {
    fn deref_mut(&mut self) -> &mut BbrModel {
        &mut self.0
    }
}

impl CongestionControl for Bbr {
    fn cwnd_bytes(&self) -> u64 {
        self.0.cwnd_bytes()
    }
    fn ssthresh_bytes(&self) -> u64 {
        self.0.ssthresh_bytes()
    }
    fn on_ack(&mut self, ack: &AckSample) {
        self.0.on_ack(ack)
    }
    fn on_rate_sample(&mut self, rs: &RateSample) {
        self.0.on_rate_sample(rs)
    }
    fn on_loss(&mut self, in_flight_bytes: u64, mss: u32, now: SimTime) {
        self.0.on_loss(in_flight_bytes, mss, now)
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        self.0.on_recovery_exit(now)
    }
    fn on_timeout(&mut self, in_flight_bytes: u64, mss: u32, now: SimTime) {
        self.0.on_timeout(in_flight_bytes, mss, now)
    }
    fn on_repeated_timeout(&mut self, mss: u32, now: SimTime) {
        self.0.on_repeated_timeout(mss, now)
    }
    fn on_ecn(&mut self, in_flight_bytes: u64, mss: u32, now: SimTime) {
        self.0.on_ecn(in_flight_bytes, mss, now)
    }
    fn pacing_rate_bps(&self) -> Option<f64> {
        self.0.pacing_rate_bps()
    }
    fn sets_recovery_window(&self) -> bool {
        true
    }
    /// Never called: Linux skips the window restart for a controller with its own
    /// `cong_control` (`tcp_slow_start_after_idle_check`), as BBR is, and validation refuses
    /// `tcp.slow_start_after_idle` with cc = "bbr".
    fn on_idle_restart(&mut self, _r: &super::IdleRestart) {}
    fn on_undo(&mut self, u: &super::super::undo::UndoWindow) {
        self.0.on_undo(u)
    }
    fn set_rng(&mut self, rng: SimRng) {
        self.0.set_rng(rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MSS: u32 = 1000;
    const MS: SimTime = PS_PER_MS;

    fn bbr() -> Bbr {
        Bbr::new(&BbrConfig::default(), CcInit { mss: MSS, init_cwnd_pkts: 10 })
    }

    /// A path of `bw` bytes/s and `rtt` that BBR's samples describe: one sample per call, with
    /// `in_flight` packets after it.
    struct Path {
        now: SimTime,
        delivered: u64,
        rtt: SimTime,
        /// Packets the next samples report lost.
        lost: u64,
    }

    impl Path {
        /// One acknowledgement of `acked` packets at rate `bw_pkts_per_s`, `dt` after the last,
        /// the sample measured over one RTT from the packet sent one RTT ago.
        fn ack(&mut self, b: &mut Bbr, dt: SimTime, acked: u64, bw_pkts_per_s: f64, in_flight: u64) {
            // The packet acknowledged was sent when 300 fewer had been delivered: within the
            // current round.
            let prior = self.delivered.saturating_sub(300 * MSS as u64);
            self.ack_from(b, dt, acked, bw_pkts_per_s, in_flight, prior);
        }
        fn ack_from(&mut self, b: &mut Bbr, dt: SimTime, acked: u64, bw_pkts_per_s: f64, in_flight: u64, prior: u64) {
            self.now += dt;
            self.delivered += acked * MSS as u64;
            let interval = self.rtt;
            let over = (bw_pkts_per_s * MSS as f64 * interval as f64 / PS_PER_S as f64) as u64;
            b.on_rate_sample(&RateSample {
                now: self.now,
                delivered_bytes: over,
                newly_delivered_bytes: acked * MSS as u64,
                interval_ps: interval,
                delivery_rate_bps: over as f64 * 8.0 / (interval as f64 / PS_PER_S as f64),
                prior_delivered_bytes: prior,
                total_delivered_bytes: self.delivered,
                is_app_limited: false,
                rtt_ps: self.rtt,
                in_flight_bytes: in_flight * MSS as u64,
                in_recovery: false,
                newly_lost_bytes: self.lost * MSS as u64,
            });
        }
        /// One sample that ends a round (its packet was sent after the round began).
        fn round(&mut self, b: &mut Bbr, bw_pkts_per_s: f64, in_flight: u64) {
            let prior = b.next_rtt_delivered;
            self.ack_from(b, self.rtt, 1, bw_pkts_per_s, in_flight, prior);
        }
    }

    #[test]
    fn the_windowed_max_keeps_a_peak_for_ten_rounds_then_falls_to_the_best_later_sample() {
        let mut m = WindowedMax::default();
        m.running_max(BW_RTTS, 0, 100.0);
        for t in 1..=10 {
            m.running_max(BW_RTTS, t, 60.0 - t as f64);
            assert_eq!(m.get(), 100.0, "round {t}");
        }
        // Round 11: the peak (round 0) is 11 > 10 rounds old. The filter kept only the
        // sub-window choices: round 3 (the first sample more than a quarter window after the
        // peak) and round 6 (more than half): the maximum becomes 57, not the 59 of round 1.
        m.running_max(BW_RTTS, 11, 40.0);
        assert_eq!(m.s, [(3, 57.0), (6, 54.0), (11, 40.0)]);
        // A new maximum replaces everything.
        m.running_max(BW_RTTS, 12, 200.0);
        assert_eq!(m.s, [(12, 200.0); 3]);
    }

    #[test]
    fn startup_paces_and_grows_at_two_over_ln2_and_leaves_after_three_rounds_without_25_percent_growth() {
        let mut b = bbr();
        // Before any sample: 2.89 x 10 packets / 1 ms, 1% below.
        assert!((b.pacing_rate_bps().unwrap() - 739.0 / 256.0 * 10.0 * 1000.0 * 8.0 / 1e-3 * 0.99).abs() < 1e-3);
        let mut p = Path { now: 0, delivered: 0, rtt: 100 * MS, lost: 0 };
        // Bandwidth doubling per round: 100, 200, 400, 800 packets/s; then flat at 1000.
        let mut modes = Vec::new();
        for (i, bw) in [100.0, 200.0, 400.0, 800.0, 1000.0, 1000.0, 1000.0, 1000.0].iter().enumerate() {
            p.round(&mut b, *bw, 400);
            modes.push((i + 1, b.mode(), b.full_bw_cnt));
            if b.mode() == BbrMode::Startup {
                assert_eq!(b.pacing_gain(), HIGH_GAIN);
                assert_eq!(b.cwnd_gain, HIGH_GAIN);
            }
        }
        // Rounds 1-5 grow by >= 25% (800 -> 1000 is exactly 25%: counts as growth); rounds 6,
        // 7, 8 do not: the pipe is full at round 8, and with 400 packets in flight, above the
        // BDP (100 + quanta), BBR drains.
        assert_eq!(modes[4], (5, BbrMode::Startup, 0));
        assert_eq!(modes[5], (6, BbrMode::Startup, 1));
        assert_eq!(modes[6], (7, BbrMode::Startup, 2));
        assert_eq!(modes[7], (8, BbrMode::Drain, 3));
        assert_eq!(b.pacing_gain(), DRAIN_GAIN);
        // Drain ends on the first acknowledgement that leaves in flight <= BDP + quanta:
        // BDP = 1000 pkt/s x 100 ms = 100; pacing 1000 x 0.344 x 0.99 kB/s -> quantum 2.
        let target = b.inflight(b.max_bw_bytes_per_s(), 1.0);
        assert_eq!(target, 106);
        p.ack(&mut b, MS, 1, 1000.0, target + 1);
        assert_eq!(b.mode(), BbrMode::Drain);
        p.ack(&mut b, MS, 1, 1000.0, target);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
        assert_ne!(b.cycle_idx(), 1, "PROBE_BW never starts in the 3/4 phase");
    }

    /// A BBR in PROBE_BW at 1000 packets/s and 100 ms, at phase `idx`.
    fn in_probe_bw(idx: usize) -> (Bbr, Path) {
        let mut b = bbr();
        let mut p = Path { now: 0, delivered: 0, rtt: 100 * MS, lost: 0 };
        for _ in 0..5 {
            p.round(&mut b, 1000.0, 100);
        }
        assert_eq!(b.mode(), BbrMode::ProbeBw);
        b.cycle_idx = idx;
        b.cycle_stamp = p.now;
        b.update_gains();
        (b, p)
    }

    #[test]
    fn probe_bw_cycles_the_gains_in_linux_order_one_min_rtt_per_phase() {
        let (mut b, mut p) = in_probe_bw(0);
        let bdp = 100;
        let mut gains = vec![b.pacing_gain()];
        for _ in 0..16 {
            // Keep in flight at the level the phase aims for: 5/4 BDP while probing (so the
            // probe ends after one min_rtt), a BDP otherwise.
            let in_flight = if b.pacing_gain() > 1.0 { b.inflight(b.max_bw_bytes_per_s(), 1.25) } else { bdp + 50 };
            // Just under one min_rtt: no phase change; just over: next phase.
            p.ack(&mut b, 100 * MS, 1, 1000.0, in_flight - 1);
            assert_eq!(b.pacing_gain(), *gains.last().unwrap());
            p.ack(&mut b, 1, 1, 1000.0, in_flight - 1);
            gains.push(b.pacing_gain());
        }
        let expect: Vec<f64> = (0..17).map(|i| PACING_GAIN[i % 8]).collect();
        assert_eq!(gains, expect);
    }

    #[test]
    fn the_probing_phase_lasts_until_in_flight_reaches_five_quarters_bdp_and_the_draining_phase_ends_at_one_bdp() {
        let (mut b, mut p) = in_probe_bw(0);
        let probe_target = b.inflight(b.max_bw_bytes_per_s(), 1.25);
        // 5/4 x 100 = 125, + 3 quanta of 2 packets (1 ms at the pacing rate is below 2 MSS:
        // Linux's minimum of 2 above 1.2 Mbit/s), rounded up to even, + 2 in the probing phase.
        assert_eq!(probe_target, 125 + 6 + 1 + 2);
        // Two min_rtts pass, in flight stays below the target: still probing.
        p.ack(&mut b, 250 * MS, 1, 1000.0, probe_target - 2);
        assert_eq!(b.cycle_idx(), 0);
        p.ack(&mut b, MS, 1, 1000.0, probe_target - 1);
        assert_eq!(b.cycle_idx(), 1);
        // The 3/4 phase ends as soon as in flight is at most BDP + quanta, before a min_rtt.
        // (In flight before the acknowledgement: after it plus the packet it acknowledged.)
        let one = b.inflight(b.max_bw_bytes_per_s(), 1.0);
        p.ack(&mut b, MS, 1, 1000.0, one);
        assert_eq!(b.cycle_idx(), 1);
        p.ack(&mut b, MS, 1, 1000.0, one - 1);
        assert_eq!(b.cycle_idx(), 2);
    }

    #[test]
    fn probe_bw_starts_at_every_phase_but_the_draining_one_and_the_draw_follows_the_seed() {
        let mut seen = [0u32; 8];
        for seed in 0..200 {
            let mut b = bbr();
            b.set_rng(rng::stream(seed, "cc:f"));
            b.reset_probe_bw_mode(0);
            seen[b.cycle_idx()] += 1;
            let mut again = bbr();
            again.set_rng(rng::stream(seed, "cc:f"));
            again.reset_probe_bw_mode(0);
            assert_eq!(again.cycle_idx(), b.cycle_idx());
        }
        assert_eq!(seen[1], 0);
        assert!(seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 10), "{seen:?}");
    }

    #[test]
    fn cwnd_in_probe_bw_is_twice_the_bdp_plus_three_quanta() {
        let (mut b, mut p) = in_probe_bw(2);
        for _ in 0..300 {
            p.ack(&mut b, MS, 1, 1000.0, 150);
        }
        // 2 x 100 + 1 + 3 x 2, rounded up to even (pacing 1000 kB/s x 0.99 / 1024 = 966 B <
        // 1 MSS: the minimum quantum of 2). The 1 is the aggregation allowance of an ACK
        // stream at exactly the estimated rate: each acknowledgement finds the epoch's count
        // no larger than expected, restarts the epoch and counts its own packet as excess, as
        // Linux's bbr_update_ack_aggregation does.
        assert_eq!(b.extra_acked_pkts(), 1);
        assert_eq!(b.cwnd_bytes(), 208 * MSS as u64);
        assert!((b.pacing_rate_bps().unwrap() - 1000.0 * 1000.0 * 8.0 * 0.99).abs() < 1e-6);
    }

    #[test]
    fn bunched_acknowledgements_raise_the_window_by_the_excess_for_two_five_round_windows_capped_at_100_ms() {
        let (mut b, mut p) = in_probe_bw(2);
        for _ in 0..300 {
            p.ack(&mut b, MS, 1, 1000.0, 150);
        }
        assert_eq!(b.cwnd_pkts, 208);
        // The same average rate, in bursts: one acknowledgement of 20 packets every 20 ms.
        // Each burst arrives when the epoch's 20 are just what the estimate expected (1000
        // packets/s x 20 ms), so it restarts the epoch and all 20 of its packets are excess.
        for _ in 0..20 {
            p.ack(&mut b, 20 * MS, 20, 1000.0, 150);
        }
        assert_eq!(b.extra_acked_pkts(), 20);
        // 2 BDP + 20 + 3 quanta of 2 = 226 (even; 2 more in the probing phase, which the 400 ms
        // of bursts may have reached); the window grows by what each ACK delivers.
        assert_eq!(b.cwnd_pkts, b.quantization_budget(200 + 20));
        assert!(b.cwnd_pkts >= 226);
        // Smooth again: the estimate of the bursts holds while its 5-round window and the next
        // one run (rounds counted from here: the window index swaps every 5 rounds).
        let mut rounds_held = 0;
        for _ in 0..12 {
            p.round(&mut b, 1000.0, 150);
            for _ in 0..5 {
                p.ack(&mut b, MS, 1, 1000.0, 150);
            }
            if b.extra_acked_pkts() == 20 {
                rounds_held += 1;
            }
        }
        assert!((5..=10).contains(&rounds_held), "held {rounds_held} rounds");
        assert_eq!(b.extra_acked_pkts(), 1);
        assert_eq!(b.cwnd_pkts, b.quantization_budget(200 + 1), "back to the smooth stream's window");
        // Bursts larger than 100 ms at the estimated rate: the allowance stops at 100 packets.
        for _ in 0..5 {
            p.ack(&mut b, 150 * MS, 150, 1000.0, 150);
        }
        assert_eq!(b.extra_acked_pkts(), 150);
        assert_eq!(b.cwnd_pkts, b.quantization_budget(2 * 100 + 100));
    }

    #[test]
    fn losses_come_off_the_window_and_end_the_probing_phase() {
        let (mut b, mut p) = in_probe_bw(2);
        for _ in 0..300 {
            p.ack(&mut b, MS, 1, 1000.0, 150);
        }
        let full = b.cwnd_pkts;
        // bbr_set_cwnd_to_recover_or_restore: an ACK of 1 packet that finds 3 lost takes the
        // window to full - 3 + 1 (growth by the packet acknowledged, below the target).
        p.lost = 3;
        p.ack(&mut b, MS, 1, 1000.0, 150);
        assert_eq!(b.cwnd_pkts, full - 2);
        // The 5/4 phase: after one min_rtt it lasts until in flight reaches its target, or a
        // loss (bbr_is_next_cycle_phase).
        let (mut b, mut p) = in_probe_bw(0);
        p.ack(&mut b, 150 * MS, 1, 1000.0, 120);
        assert_eq!(b.cycle_idx(), 0, "in flight below 5/4 BDP: still probing");
        p.lost = 1;
        p.ack(&mut b, MS, 1, 1000.0, 120);
        assert_eq!(b.cycle_idx(), 1, "a loss ends the probe");
    }

    #[test]
    fn startup_has_no_aggregation_allowance() {
        let mut b = bbr();
        let mut p = Path { now: 0, delivered: 0, rtt: 100 * MS, lost: 0 };
        p.round(&mut b, 1000.0, 10);
        for _ in 0..5 {
            p.ack(&mut b, 50 * MS, 50, 1000.0, 10);
        }
        assert_eq!(b.mode(), BbrMode::Startup);
        assert!(b.extra_acked_pkts() >= 50);
        assert_eq!(b.ack_aggregation_cwnd(), 0);
    }

    #[test]
    fn probe_rtt_starts_ten_seconds_after_the_last_min_rtt_and_lasts_200_ms_and_a_round_at_four_packets() {
        let (mut b, mut p) = in_probe_bw(2);
        let stamp = b.min_rtt_stamp;
        // RTTs above the minimum never refresh it.
        p.rtt = 120 * MS;
        while p.now + 10 * MS <= stamp + MIN_RTT_WIN_PS {
            p.ack(&mut b, 10 * MS, 1, 1000.0, 150);
            assert_ne!(b.mode(), BbrMode::ProbeRtt);
        }
        let cwnd_before = b.cwnd_pkts;
        p.ack(&mut b, 10 * MS, 1, 1000.0, 150);
        assert_eq!(b.mode(), BbrMode::ProbeRtt);
        assert_eq!(b.cwnd_bytes(), 4 * MSS as u64);
        assert_eq!(b.pacing_gain(), 1.0);
        // The expired filter took the current sample.
        assert_eq!(b.min_rtt_ps(), 120 * MS);
        // In flight falls to 4 at t0: PROBE_RTT holds until t0 + 200 ms and a round.
        p.ack(&mut b, 10 * MS, 1, 1000.0, 4);
        let t0 = p.now;
        assert_eq!(b.probe_rtt_done_stamp, Some(t0 + 200 * MS));
        p.round(&mut b, 1000.0, 4); // a round passes at t0 + 120 ms
        p.ack(&mut b, 80 * MS, 1, 1000.0, 4); // t0 + 200 ms: not after it yet
        assert_eq!(b.mode(), BbrMode::ProbeRtt);
        p.ack(&mut b, 1, 1, 1000.0, 4);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
        assert_eq!(b.min_rtt_stamp, p.now);
        // The window returns to what it was (then the usual cap applies).
        assert!(b.cwnd_pkts >= cwnd_before.min(b.inflight(b.max_bw_bytes_per_s(), 2.0)), "{} {}", b.cwnd_pkts, cwnd_before);
    }

    #[test]
    fn probe_rtt_waits_for_a_round_even_after_200_ms() {
        let (mut b, mut p) = in_probe_bw(2);
        b.min_rtt_stamp = 0;
        p.now = MIN_RTT_WIN_PS;
        p.rtt = 300 * MS;
        p.ack(&mut b, 1, 1, 1000.0, 4);
        assert_eq!(b.mode(), BbrMode::ProbeRtt);
        let done = b.probe_rtt_done_stamp.unwrap();
        // 250 ms later, no round has ended (the 300 ms RTT): stay.
        p.delivered = 0;
        let next = b.next_rtt_delivered;
        p.ack(&mut b, 250 * MS, 0, 1000.0, 4);
        assert!(p.now > done && b.next_rtt_delivered == next);
        assert_eq!(b.mode(), BbrMode::ProbeRtt);
        p.round(&mut b, 1000.0, 4);
        assert_eq!(b.mode(), BbrMode::ProbeBw);
    }

    #[test]
    fn recovery_conserves_packets_for_a_round_then_restores_the_window() {
        let (mut b, mut p) = in_probe_bw(2);
        for _ in 0..300 {
            p.ack(&mut b, MS, 1, 1000.0, 150);
        }
        let before = b.cwnd_pkts;
        // The acknowledgement that starts recovery left 120 packets in flight and delivered 1.
        p.ack(&mut b, MS, 1, 1000.0, 120);
        b.on_loss(150 * MSS as u64, MSS, p.now);
        assert_eq!(b.cwnd_pkts, 121);
        // Packet conservation: cwnd = max(cwnd, in flight + acked), never grows beyond.
        p.ack(&mut b, MS, 2, 1000.0, 110);
        assert_eq!(b.cwnd_pkts, 121);
        p.ack(&mut b, MS, 2, 1000.0, 125);
        assert_eq!(b.cwnd_pkts, 127);
        // After a round it grows towards the target by what is acknowledged.
        p.round(&mut b, 1000.0, 100);
        assert!(!b.packet_conservation);
        assert_eq!(b.cwnd_pkts, 128);
        b.on_recovery_exit(p.now);
        assert_eq!(b.cwnd_pkts, before);
    }
}
