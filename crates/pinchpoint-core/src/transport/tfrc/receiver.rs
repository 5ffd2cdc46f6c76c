//! The TFRC receiver (RFC 5348 s5-6): detects losses, groups them into loss events, keeps the
//! last k loss intervals, computes the loss-event rate p and reports once per round-trip time.

use super::{interval_weights, loss_rate_for_throughput, Feedback, TfrcConfig};
use crate::net::packet::Packet;
use crate::sim::{SimTime, PS_PER_S};
use crate::transport::{Direction, TransportCtx, TIMER_DELACK};

/// The loss-interval history of RFC 5348 s5.3-5.5 (kept apart from the packet handling so that
/// it can be tested with exact numbers).
#[derive(Debug, Clone)]
pub struct LossHistory {
    /// w_1..w_k.
    weights: Vec<f64>,
    /// Closed loss intervals I_1..I_n (n <= k), most recent first, in packets.
    closed: Vec<u64>,
    /// Packet number of the first lost packet of the most recent loss event (start of I_0).
    event_start_seq: Option<u64>,
    /// Sender timestamp (interpolated) of that packet, ps.
    event_start_ps: SimTime,
    /// Apply RFC 5348 s5.5 history discounting.
    discounting: bool,
    /// Loss events seen.
    events: u64,
}

impl LossHistory {
    /// An empty history of `k` intervals.
    pub fn new(k: usize, discounting: bool) -> Self {
        LossHistory {
            weights: interval_weights(k),
            closed: Vec::with_capacity(k),
            event_start_seq: None,
            event_start_ps: 0,
            discounting,
            events: 0,
        }
    }

    /// Number of loss events so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// True once a loss has been seen.
    pub fn has_loss(&self) -> bool {
        self.event_start_seq.is_some()
    }

    /// Closed intervals, most recent first.
    pub fn closed(&self) -> &[u64] {
        &self.closed
    }

    /// Seeds the history before the first loss event with one synthetic interval
    /// (RFC 5348 s6.3.1).
    pub fn seed_first_interval(&mut self, packets: u64) {
        debug_assert!(self.closed.is_empty());
        self.closed.push(packets.max(1));
    }

    /// Packet `seq`, sent (by interpolation) at `sent_ps`, was lost; `rtt_ps` is the sender's
    /// RTT estimate. Returns true if it starts a new loss event. RFC 5348 s5.2: a loss more than
    /// one RTT after the start of the current loss event starts a new one; losses within one
    /// RTT belong to the same event.
    pub fn on_loss(&mut self, seq: u64, sent_ps: SimTime, rtt_ps: SimTime) -> bool {
        match self.event_start_seq {
            Some(_) if sent_ps <= self.event_start_ps.saturating_add(rtt_ps) => false,
            Some(start) => {
                // Close I_0: the packets from the previous event's first loss up to this one.
                if self.closed.len() == self.weights.len() {
                    self.closed.pop();
                }
                self.closed.insert(0, seq - start);
                self.event_start_seq = Some(seq);
                self.event_start_ps = sent_ps;
                self.events += 1;
                true
            }
            None => {
                self.event_start_seq = Some(seq);
                self.event_start_ps = sent_ps;
                self.events += 1;
                true
            }
        }
    }

    /// The open interval I_0 when the highest packet number received is `highest_seq`.
    pub fn open_interval(&self, highest_seq: u64) -> u64 {
        self.event_start_seq.map_or(0, |s| highest_seq.saturating_sub(s) + 1)
    }

    /// RFC 5348 s5.4: the average loss interval, the larger of the weighted averages with and
    /// without the open interval I_0 (0 before the first loss event).
    pub fn mean_interval(&self, highest_seq: u64) -> f64 {
        let n = self.closed.len();
        if !self.has_loss() || n == 0 {
            return 0.0;
        }
        let w = &self.weights[..n];
        let w_tot: f64 = w.iter().sum();
        let i_tot1: f64 = self.closed.iter().zip(w).map(|(&i, &wi)| i as f64 * wi).sum();
        let i0 = self.open_interval(highest_seq) as f64;
        let mean1 = i_tot1 / w_tot;
        // I_tot0 = w_1 I_0 + sum_{i=2..n} w_i I_{i-1}.
        let older: f64 = self.closed[..n - 1].iter().zip(&w[1..]).map(|(&i, &wi)| i as f64 * wi).sum();
        let w_older: f64 = w[1..].iter().sum();
        // RFC 5348 s5.5 (simplified, see docs/algorithms/tfrc.md): when the open interval is
        // more than twice the average, the older intervals are discounted by
        // DF = max(0.5, 2 I_mean / I_0) in the average that includes I_0.
        let df = if self.discounting && i0 > 2.0 * mean1 { (2.0 * mean1 / i0).max(0.5) } else { 1.0 };
        let mean0 = (w[0] * i0 + df * older) / (w[0] + df * w_older);
        mean0.max(mean1)
    }

    /// The loss-event rate p = 1 / I_mean (0 before the first loss event).
    pub fn loss_event_rate(&self, highest_seq: u64) -> f64 {
        let m = self.mean_interval(highest_seq);
        if m > 0.0 { 1.0 / m } else { 0.0 }
    }
}

/// The receiving end of a TFRC flow.
#[derive(Debug)]
pub struct TfrcReceiver {
    history: LossHistory,
    feedback_bytes: u32,
    s_bytes: f64,
    b: f64,
    /// Highest packet number received, and its sender timestamp.
    highest: Option<(u64, SimTime)>,
    /// The sender's RTT estimate from the last data packet (0: not known yet), ps.
    rtt_ps: SimTime,
    /// Arrival time and sender timestamp of the last data packet.
    last_arrival_ps: SimTime,
    last_sent_at_ps: SimTime,
    /// Time of the last feedback and payload bytes / losses since then.
    last_feedback_ps: SimTime,
    bytes_since_feedback: u64,
    losses_since_feedback: u32,
    /// Data arrived since the last feedback.
    data_since_feedback: bool,
    feedback_armed: bool,
    delivered_bytes: u64,
    received_pkts: u64,
    lost_pkts: u64,
    p: f64,
}

impl TfrcReceiver {
    /// A receiver with settings `cfg` (validated).
    pub fn new(cfg: &TfrcConfig) -> Self {
        TfrcReceiver {
            history: LossHistory::new(cfg.loss_intervals as usize, cfg.history_discounting),
            feedback_bytes: cfg.feedback_bytes,
            s_bytes: cfg.packet_size.0 as f64,
            b: cfg.b,
            highest: None,
            rtt_ps: 0,
            last_arrival_ps: 0,
            last_sent_at_ps: 0,
            last_feedback_ps: 0,
            bytes_since_feedback: 0,
            losses_since_feedback: 0,
            data_since_feedback: false,
            feedback_armed: false,
            delivered_bytes: 0,
            received_pkts: 0,
            lost_pkts: 0,
            p: 0.0,
        }
    }

    /// Payload bytes received.
    pub fn delivered_bytes(&self) -> u64 {
        self.delivered_bytes
    }
    /// Data packets received.
    pub fn received_pkts(&self) -> u64 {
        self.received_pkts
    }
    /// Data packets found missing.
    pub fn lost_pkts(&self) -> u64 {
        self.lost_pkts
    }
    /// The current loss-event rate p.
    pub fn loss_event_rate(&self) -> f64 {
        self.p
    }
    /// The loss history.
    pub fn history(&self) -> &LossHistory {
        &self.history
    }

    fn x_recv_bytes_per_s(&self, now: SimTime) -> f64 {
        let dt = now.saturating_sub(self.last_feedback_ps);
        if self.last_feedback_ps == 0 || dt == 0 {
            return 0.0;
        }
        self.bytes_since_feedback as f64 * PS_PER_S as f64 / dt as f64
    }

    /// A data packet arrived.
    pub fn on_data(&mut self, pkt: &Packet, ctx: &mut TransportCtx) {
        let now = ctx.now;
        if pkt.ts_echo > 0 {
            self.rtt_ps = pkt.ts_echo;
        }
        let seq = pkt.seq;
        let mut new_event = false;
        match self.highest {
            Some((hi, _)) if seq <= hi => {} // duplicate or reordered: no new information
            Some((hi, hi_sent)) => {
                // RFC 5348 s5.1-5.2: every packet between the highest received and this one is
                // lost (paths here do not reorder); its send time is interpolated between its
                // neighbours' timestamps.
                let gap = seq - hi;
                for lost in hi + 1..seq {
                    let frac = (lost - hi) as f64 / gap as f64;
                    let t = hi_sent + ((pkt.sent_at.saturating_sub(hi_sent)) as f64 * frac) as SimTime;
                    if !self.history.has_loss() {
                        // RFC 5348 s6.3.1: the first loss interval is the one that, through
                        // the equation, would give the receive rate seen so far.
                        let x = self.x_recv_bytes_per_s(now).max(self.s_bytes / 1.0);
                        let rtt_s = self.rtt_ps.max(1) as f64 / PS_PER_S as f64;
                        let p = loss_rate_for_throughput(self.s_bytes, rtt_s, x, self.b);
                        self.history.seed_first_interval((1.0 / p).round() as u64);
                    }
                    new_event |= self.history.on_loss(lost, t, self.rtt_ps);
                    self.lost_pkts += 1;
                    self.losses_since_feedback += 1;
                }
                self.highest = Some((seq, pkt.sent_at));
            }
            None => self.highest = Some((seq, pkt.sent_at)),
        }
        self.received_pkts += 1;
        self.delivered_bytes += pkt.payload_bytes as u64;
        self.bytes_since_feedback += pkt.payload_bytes as u64;
        self.last_arrival_ps = now;
        self.last_sent_at_ps = pkt.sent_at;
        self.data_since_feedback = true;
        let hi = self.highest.map_or(0, |h| h.0);
        let p_old = self.p;
        self.p = self.history.loss_event_rate(hi);
        // RFC 5348 s6.1: feedback at once for the first packet, when a new loss event raises
        // p, and while the sender has no RTT estimate; otherwise once per RTT.
        if !self.feedback_armed || self.rtt_ps == 0 || (new_event && self.p > p_old) {
            self.send_feedback(ctx);
        }
    }

    /// The feedback timer fired (once per RTT).
    pub fn on_feedback_timer(&mut self, ctx: &mut TransportCtx) {
        self.feedback_armed = false;
        if self.data_since_feedback {
            self.send_feedback(ctx);
        }
        // RFC 5348 s6.2: no data since the last report, no report; the next packet restarts it.
    }

    fn send_feedback(&mut self, ctx: &mut TransportCtx) {
        let now = ctx.now;
        let fb = Feedback {
            ts_echo: self.last_sent_at_ps + now.saturating_sub(self.last_arrival_ps),
            x_recv_bytes_per_s: self.x_recv_bytes_per_s(now),
            p: self.p,
            losses_since_last: self.losses_since_feedback,
        };
        ctx.send(fb.to_packet(self.feedback_bytes, now), Direction::Reverse);
        self.last_feedback_ps = now;
        self.bytes_since_feedback = 0;
        self.losses_since_feedback = 0;
        self.data_since_feedback = false;
        if self.rtt_ps > 0 {
            ctx.set_timer(TIMER_DELACK, now + self.rtt_ps);
            self.feedback_armed = true;
        } else {
            ctx.cancel_timer(TIMER_DELACK);
            self.feedback_armed = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = crate::sim::PS_PER_MS;

    #[test]
    fn weighted_average_of_eight_intervals_is_the_rfc_sum() {
        let mut h = LossHistory::new(8, false);
        // Loss events at packets 0, 100, 150, 250, 270, 370, 470, 500, 600 (one RTT apart in
        // time): closed intervals, most recent first: 100, 30, 100, 100, 20, 100, 50, 100.
        let starts = [0u64, 100, 150, 250, 270, 370, 470, 500, 600];
        for (j, &s) in starts.iter().enumerate() {
            assert!(h.on_loss(s, j as SimTime * 200 * MS, 100 * MS));
        }
        assert_eq!(h.closed(), &[100, 30, 100, 100, 20, 100, 50, 100]);
        // I_0 with highest packet 609 = 10 packets; I_tot1 = 100+30+100+100 + 0.8*20 + 0.6*100
        // + 0.4*50 + 0.2*100 = 330 + 16 + 60 + 20 + 20 = 446; W_tot = 6; mean1 = 74.333.
        // I_tot0 = 10 + 100+30+100 + 0.8*100 + 0.6*20 + 0.4*100 + 0.2*50 = 240+80+12+40+10 = 382.
        let m = h.mean_interval(609);
        assert!((m - 446.0 / 6.0).abs() < 1e-12, "{m}");
        // A long open interval takes over: I_0 = 400 -> I_tot0 = 400+230+80+12+40+10 = 772.
        let m = h.mean_interval(999);
        assert!((m - 772.0 / 6.0).abs() < 1e-12, "{m}");
        assert!((h.loss_event_rate(999) - 6.0 / 772.0).abs() < 1e-15);
    }

    #[test]
    fn losses_within_one_rtt_count_as_one_event() {
        let mut h = LossHistory::new(8, false);
        assert!(h.on_loss(10, 1000 * MS, 100 * MS));
        assert!(!h.on_loss(11, 1050 * MS, 100 * MS)); // same RTT
        assert!(!h.on_loss(15, 1100 * MS, 100 * MS)); // exactly one RTT later: same event
        assert!(h.on_loss(20, 1101 * MS, 100 * MS)); // later: new event
        assert_eq!(h.events(), 2);
        assert_eq!(h.closed(), &[10]); // from packet 10 to packet 20
    }

    #[test]
    fn only_the_last_k_intervals_are_kept() {
        let mut h = LossHistory::new(2, false);
        for j in 0..5u64 {
            h.on_loss(j * 10 + j, j * 1000 * MS, 10 * MS);
        }
        // Starts 0, 11, 22, 33, 44 -> intervals 11 each, only two kept.
        assert_eq!(h.closed(), &[11, 11]);
    }

    #[test]
    fn discounting_lowers_p_after_a_long_loss_free_period() {
        let mut plain = LossHistory::new(8, false);
        let mut disc = LossHistory::new(8, true);
        for h in [&mut plain, &mut disc] {
            for j in 0..9u64 {
                h.on_loss(j * 10, j * 1000 * MS, 10 * MS);
            }
        }
        // Eight intervals of 10; open interval of 100 packets (> 2 * 10).
        let hi = 80 + 99;
        // Plain: I_tot0 = 100 + 10 * (6 - 1) = 150 -> 25. Discounted: DF = max(0.5, 20/100) = 0.5:
        // (100 + 0.5 * 50) / (1 + 0.5 * 5) = 125 / 3.5.
        assert!((plain.mean_interval(hi) - 25.0).abs() < 1e-12);
        assert!((disc.mean_interval(hi) - 125.0 / 3.5).abs() < 1e-12);
    }

    fn data(seq: u64, sent_ms: u64, rtt_ms: u64) -> Packet {
        Packet { seq, sent_at: sent_ms * MS, ts_echo: rtt_ms * MS, payload_bytes: 1000, size_bytes: 1040, ..Default::default() }
    }

    #[test]
    fn receiver_groups_a_burst_of_drops_into_one_event_and_reports_at_once() {
        let cfg = TfrcConfig::default();
        let mut r = TfrcReceiver::new(&cfg);
        let mut h = crate::transport::testing::Harness::new("t");
        // 100 packets every 10 ms with R = 100 ms, then packets 100-102 lost, 103 arrives.
        for seq in 0..100u64 {
            r.on_data(&data(seq, seq * 10, 100), &mut h.ctx((seq * 10 + 50) * MS));
        }
        h.out.clear();
        r.on_data(&data(103, 1030, 100), &mut h.ctx((103 * 10 + 50) * MS));
        let out = &h.out;
        assert_eq!(r.lost_pkts(), 3);
        assert_eq!(r.history().events(), 1);
        assert!(r.loss_event_rate() > 0.0);
        assert_eq!(out.len(), 1, "a new loss event is reported at once");
        let fb = Feedback::from_packet(&out[0].0);
        assert_eq!(fb.p, r.loss_event_rate());
        assert_eq!(fb.losses_since_last, 3);
    }
}
