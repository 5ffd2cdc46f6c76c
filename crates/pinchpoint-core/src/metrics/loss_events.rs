//! Loss events as TFRC and ns-2 count them (RFC 5348 s5.2): the first lost packet of a flow
//! starts a loss event, and every later loss of a packet sent within one round-trip time of
//! the first loss's packet belongs to the same event. The loss-event rate of an interval is the
//! number of events that started in it over the data packets sent in it (RFC 5348 s5.4 turns
//! the inverse of this into the loss intervals TFRC averages).
//!
//! The engine counts them for every flow, whatever its transport, from the sender's side: the
//! time that places a loss is the dropped packet's send time (`Packet::sent_at`, which the
//! sender stamps on each transmission) and the round-trip time is the sender's smoothed RTT when
//! the drop happens. RFC 5348 s5.2 places losses by their (interpolated) arrival times at the
//! receiver; on a path whose queueing delay changes little within one RTT the two orders agree,
//! and the send time needs neither the receiver nor interpolation, so TCP variants, TFRC and
//! UDP are counted alike. A flow without an RTT sample (UDP, or a TCP flow whose first packets
//! are lost) has a zero RTT: each of its losses is an event of its own.

use crate::sim::{ps_to_secs, SimTime};

use super::table::{ColumnData, Table};

/// Loss-event state of one flow. Held in the flow's stats (`FlowStats`), in the cache line
/// after the drop counter: a flow that drops touches it on every lost data packet, and at 100,000
/// flows the box it used to live in (allocated at the first loss) was one more cold line per
/// drop (issue 13); it fits in what was padding of the flow (`flows::Flow`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossEvents {
    /// Send time of the first lost packet of the current loss event (meaningful once `events`
    /// is above 0).
    event_start_sent_at: SimTime,
    /// Round-trip time that closes the current event, ps (the sender's at its first loss).
    event_rtt_ps: SimTime,
    /// Data packets lost so far.
    pub lost_pkts: u64,
    /// Loss events so far.
    pub events: u64,
}

impl LossEvents {
    /// The state so far (a copy).
    #[inline]
    pub fn get(&self) -> LossEvents {
        *self
    }

    /// A data packet sent at `sent_at` was lost; `rtt_ps` is the sender's smoothed RTT now.
    /// Returns true if the loss starts a new event.
    pub fn on_loss(&mut self, sent_at: SimTime, rtt_ps: SimTime) -> bool {
        self.lost_pkts += 1;
        if self.events > 0 {
            let start = self.event_start_sent_at;
            // RFC 5348 s5.2: a loss sent no more than one RTT after the first loss of the event
            // is part of it. A loss sent before that first one (drops on two ports, or on the
            // wire after a later packet's queue drop) is part of it too.
            if sent_at <= start.saturating_add(self.event_rtt_ps) {
                return false;
            }
        }
        self.event_start_sent_at = sent_at;
        self.event_rtt_ps = rtt_ps;
        self.events += 1;
        true
    }
}

/// Per-interval loss-event counts: one row per flow that sent or lost data packets in the
/// interval, and one row per interval for all flows together. Intervals end at the samples of
/// `metrics.series_interval`; a row at time t covers (previous sample, t].
#[derive(Clone, Debug, Default)]
pub struct LossEventSeries {
    /// (sent packets, lost packets, events) of each flow at the previous sample.
    last: Vec<(u64, u64, u64)>,
    /// Per flow: end of the interval, s.
    pub t: Vec<f64>,
    /// Per flow: flow index.
    pub flow: Vec<u32>,
    /// Per flow: data packets sent in the interval.
    pub sent_pkts: Vec<u64>,
    /// Per flow: data packets lost in the interval.
    pub lost_pkts: Vec<u64>,
    /// Per flow: loss events that started in the interval.
    pub events: Vec<u64>,
    /// All flows: end of the interval, s.
    pub total_t: Vec<f64>,
    /// All flows: packets sent.
    pub total_sent_pkts: Vec<u64>,
    /// All flows: packets lost.
    pub total_lost_pkts: Vec<u64>,
    /// All flows: loss events.
    pub total_events: Vec<u64>,
    /// All flows: flows that sent or lost data packets in the interval.
    pub total_flows: Vec<u64>,
}

impl LossEventSeries {
    /// Closes the interval ending at `now`; `counts` yields each flow's cumulative (data packets
    /// sent, loss-event state), in flow order.
    pub fn sample(&mut self, now: SimTime, counts: impl Iterator<Item = (u64, LossEvents)>) {
        let t = ps_to_secs(now);
        let (mut sent_all, mut lost_all, mut events_all, mut flows) = (0, 0, 0, 0);
        for (i, (sent, ev)) in counts.enumerate() {
            if self.last.len() <= i {
                self.last.push((0, 0, 0));
            }
            let (s0, l0, e0) = self.last[i];
            let (ds, dl, de) = (sent - s0, ev.lost_pkts - l0, ev.events - e0);
            self.last[i] = (sent, ev.lost_pkts, ev.events);
            if ds == 0 && dl == 0 {
                continue;
            }
            self.t.push(t);
            self.flow.push(i as u32);
            self.sent_pkts.push(ds);
            self.lost_pkts.push(dl);
            self.events.push(de);
            sent_all += ds;
            lost_all += dl;
            events_all += de;
            flows += 1;
        }
        self.total_t.push(t);
        self.total_sent_pkts.push(sent_all);
        self.total_lost_pkts.push(lost_all);
        self.total_events.push(events_all);
        self.total_flows.push(flows);
    }

    /// The per-flow table (`loss_events`), with flow names from `flow_name`.
    pub fn flow_table(&self, flow_name: impl Fn(&u32) -> String) -> Table {
        let mut t = Table::default();
        t.col("t_s", ColumnData::F64(self.t.clone()))
            .col("flow", ColumnData::Str(self.flow.iter().map(flow_name).collect()))
            .col("sent_pkts", ColumnData::U64(self.sent_pkts.clone()))
            .col("lost_pkts", ColumnData::U64(self.lost_pkts.clone()))
            .col("loss_events", ColumnData::U64(self.events.clone()))
            .col("loss_event_rate", ColumnData::F64(rates(&self.events, &self.sent_pkts)));
        t
    }

    /// The all-flows table (`loss_events_total`).
    pub fn total_table(&self) -> Table {
        let mut t = Table::default();
        t.col("t_s", ColumnData::F64(self.total_t.clone()))
            .col("flows", ColumnData::U64(self.total_flows.clone()))
            .col("sent_pkts", ColumnData::U64(self.total_sent_pkts.clone()))
            .col("lost_pkts", ColumnData::U64(self.total_lost_pkts.clone()))
            .col("loss_events", ColumnData::U64(self.total_events.clone()))
            .col("loss_rate", ColumnData::F64(rates(&self.total_lost_pkts, &self.total_sent_pkts)))
            .col("loss_event_rate", ColumnData::F64(rates(&self.total_events, &self.total_sent_pkts)));
        t
    }
}

/// num / den element-wise; NaN where nothing was sent.
fn rates(num: &[u64], den: &[u64]) -> Vec<f64> {
    num.iter().zip(den).map(|(&n, &d)| if d > 0 { n as f64 / d as f64 } else { f64::NAN }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = 1_000_000_000;

    #[test]
    fn losses_within_one_rtt_of_an_events_first_loss_are_one_event() {
        // RTT 100 ms. Losses of packets sent at 0, 30, 100 ms: one event (100 is exactly one RTT
        // after 0, RFC 5348 s5.2 "more than one RTT" starts a new one). 101 ms: a second event,
        // which lasts until 201 ms: 150 and 201 belong to it, 202 starts a third.
        let mut e = LossEvents::default();
        let starts: Vec<bool> = [0, 30, 100, 101, 150, 201, 202].iter().map(|&ms| e.on_loss(ms * MS, 100 * MS)).collect();
        assert_eq!(starts, [true, false, false, true, false, false, true]);
        assert_eq!((e.lost_pkts, e.events), (7, 3));
    }

    #[test]
    fn the_rtt_at_an_events_first_loss_closes_it_and_late_reports_join_it() {
        let mut e = LossEvents::default();
        assert!(e.on_loss(1000 * MS, 50 * MS));
        // A later smaller RTT does not shorten the open event; an earlier-sent loss joins it.
        assert!(!e.on_loss(1040 * MS, 10 * MS));
        assert!(!e.on_loss(990 * MS, 10 * MS));
        assert!(e.on_loss(1051 * MS, 10 * MS));
        assert_eq!(e.events, 2);
    }

    #[test]
    fn without_an_rtt_every_loss_is_an_event() {
        let mut e = LossEvents::default();
        for ms in [5, 6, 7] {
            assert!(e.on_loss(ms * MS, 0));
        }
        assert!(!e.on_loss(7 * MS, 0), "a second loss of a packet sent at the same instant joins the event");
        assert_eq!((e.lost_pkts, e.events), (4, 3));
    }

    #[test]
    fn intervals_hold_the_differences_and_skip_idle_flows() {
        let mut s = LossEventSeries::default();
        let mut a = LossEvents::default();
        let b = LossEvents::default();
        a.on_loss(0, 100 * MS);
        a.on_loss(10 * MS, 100 * MS);
        s.sample(100 * MS, [(50, a), (0, b)].into_iter());
        a.on_loss(300 * MS, 100 * MS);
        s.sample(200 * MS, [(150, a), (20, b)].into_iter());
        s.sample(300 * MS, [(150, a), (20, b)].into_iter());
        assert_eq!(s.flow, [0, 0, 1]);
        assert_eq!(s.sent_pkts, [50, 100, 20]);
        assert_eq!(s.lost_pkts, [2, 1, 0]);
        assert_eq!(s.events, [1, 1, 0]);
        assert_eq!(s.total_sent_pkts, [50, 120, 0]);
        assert_eq!(s.total_events, [1, 1, 0]);
        assert_eq!(s.total_flows, [1, 2, 0]);
        let t = s.total_table();
        let r = t.f64s("loss_event_rate");
        assert_eq!(r[0], 0.02);
        assert_eq!(r[1], 1.0 / 120.0);
        assert!(r[2].is_nan());
    }
}
