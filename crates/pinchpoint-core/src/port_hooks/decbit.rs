//! DECbit / ATN congestion-experienced marking: set the CE bit on every packet that arrives while
//! the port's *average* queue length is at least `alpha` packets.
//!
//! Rule sources:
//! - ATN WP/267 s5.1: the intermediate system sets Congestion Experienced with α = 1 (the draft
//!   SARPs paragraph 6.2.4.2 that defines the average is not available to us, see docs/sources.md s2.2).
//! - Ramakrishnan & Jain's DECbit router (docs/sources.md s2.1): the queue length
//!   counts the packet being transmitted, and is averaged over the last busy+idle *regeneration
//!   cycle* plus the busy part of the current cycle. A cycle begins when a packet arrives at an
//!   empty, idle port.
//!
//! Why average at all, and why over regeneration cycles: the receiver reacts to the *fraction* of
//! marked packets over a window (ATN WP/267 s5.4), so a mark should say "this port is persistently
//! loaded", not "a burst happened to be queued when this packet arrived". An instantaneous test
//! marks every packet of a burst, even at light average load, and leaves long standing queues
//! unmarked between bursts. A fixed-constant exponential average (RED style) needs a time
//! constant that must suit every link speed; the regeneration cycle adapts by itself, because it
//! is as long as the port's own busy/idle rhythm, while still forgetting everything older than one
//! full cycle. The other two rules are offered for comparison (`averaging = "instantaneous"` or
//! `"ewma"`), not because the seed uses them.
//!
//! Queue lengths are in packets (NPDUs), as docs/sources.md s2.1 infers; `alpha` is compared with `>=`
//! (the IRATI reference implementation's choice; the Wikipedia wording says "exceeds").

use super::{PortHook, PortView};
use crate::net::packet::{Ecn, Packet};
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};

/// How the queue length is averaged before it is compared with `alpha`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Averaging {
    /// Time average over the previous busy+idle cycle plus the current busy period (DECbit).
    #[default]
    DecbitCycle,
    /// No averaging: the length (waiting + in service) the arriving packet finds.
    Instantaneous,
    /// Exponentially weighted moving average of the length sampled at each arrival,
    /// `avg <- (1 - w) avg + w q`, with `w = ewma_weight`.
    Ewma,
}

fn default_alpha() -> f64 {
    // ATN WP/267 s5.1: alpha = 1.
    1.0
}
fn default_ewma_weight() -> f64 {
    0.125
}

/// Scenario configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecbitConfig {
    /// Mark arrivals while the average queue length (packets, the one in service included) is at
    /// least this. ATN WP/267 s5.1: 1.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Averaging rule (default: DECbit regeneration cycles).
    #[serde(default)]
    pub averaging: Averaging,
    /// Weight of the newest sample for `averaging = "ewma"`, in (0, 1]; ignored otherwise.
    #[serde(default = "default_ewma_weight")]
    pub ewma_weight: f64,
}

impl Default for DecbitConfig {
    fn default() -> Self {
        DecbitConfig { alpha: default_alpha(), averaging: Averaging::default(), ewma_weight: default_ewma_weight() }
    }
}

/// The hook.
#[derive(Debug, Clone)]
pub struct Decbit {
    cfg: DecbitConfig,
    /// Start of the previous regeneration cycle, ps.
    prev_start: SimTime,
    /// Area under the length curve over the whole previous cycle, packet x ps.
    prev_area: u128,
    /// Start of the current cycle, ps.
    cur_start: SimTime,
    /// Area under the length curve from `cur_start` to `last_t`, packet x ps.
    cur_area: u128,
    /// Length (waiting + in service) since `last_t`, packets.
    len: u32,
    /// Time of the last length change, ps.
    last_t: SimTime,
    /// When the port last became empty and idle, if it is so now, ps.
    idle_since: Option<SimTime>,
    /// EWMA state, packets.
    ewma: f64,
    /// Packets seen arriving so far.
    pub arrivals: u64,
}

impl Decbit {
    /// Builds the hook.
    pub fn new(cfg: &DecbitConfig, _rate_bps: u64) -> Self {
        debug_assert!(crate::registry::Validate::validate(cfg).is_ok(), "decbit: built from an unvalidated config");
        Decbit { cfg: *cfg, prev_start: 0, prev_area: 0, cur_start: 0, cur_area: 0, len: 0, last_t: 0, idle_since: Some(0), ewma: 0.0, arrivals: 0 }
    }

    /// Integrates the current length up to `now`.
    fn advance(&mut self, now: SimTime) {
        if now > self.last_t {
            self.cur_area += self.len as u128 * (now - self.last_t) as u128;
            self.last_t = now;
        }
    }

    /// The DECbit average at `now` (after [`Self::advance`]): area over the previous cycle and the
    /// current one so far, divided by the time since the previous cycle began. With no elapsed
    /// time (only at time 0) it falls back to the current length.
    fn cycle_average(&self, now: SimTime) -> f64 {
        let span = now - self.prev_start;
        if span == 0 {
            return self.len as f64;
        }
        (self.prev_area + self.cur_area) as f64 / span as f64
    }

    /// The average queue length the rule would compare with `alpha` at `now`, packets, without
    /// changing state (cycle rule only; for tests and inspection).
    pub fn average_at(&self, now: SimTime) -> f64 {
        let mut c = self.clone();
        c.advance(now);
        c.cycle_average(now)
    }
}

impl PortHook for Decbit {
    fn on_arrival(&mut self, pkt: &mut Packet, port: &PortView, now: SimTime) {
        self.arrivals += 1;
        // Length the arrival finds, the packet in service included (DECbit, docs/sources.md s2.1).
        let found = port.queue_pkts + port.busy as u32;
        let avg = match self.cfg.averaging {
            Averaging::Instantaneous => found as f64,
            Averaging::Ewma => {
                self.ewma += self.cfg.ewma_weight * (found as f64 - self.ewma);
                self.ewma
            }
            Averaging::DecbitCycle => {
                self.advance(now);
                // An arrival at an empty, idle port ends the current busy+idle cycle and starts
                // a new one (DECbit regeneration point). An arrival at the very instant the port
                // went idle finds an idle period of length zero: it continues the busy period.
                // (Ack-clocked packets arrive exactly one transmission time apart; treating the
                // tie as a new cycle would make a port that is idle most of the time report an
                // average of exactly 1 over a one-packet "cycle" and mark.)
                if found == 0 && self.idle_since.is_some_and(|t| t < now) {
                    self.prev_start = self.cur_start;
                    self.prev_area = self.cur_area;
                    self.cur_start = now;
                    self.cur_area = 0;
                }
                self.cycle_average(now)
            }
        };
        // ATN WP/267 s5.1: CE when the average queue length is at least alpha (= 1).
        if avg >= self.cfg.alpha {
            pkt.set_ce();
            if pkt.ecn == Ecn::Ect {
                pkt.ecn = Ecn::Ce;
            }
        }
    }

    fn on_idle(&mut self, port: &PortView, now: SimTime) {
        // The end of a busy period is a length change to zero (the packet in service left).
        self.on_queue_change(port, now);
    }

    fn on_queue_change(&mut self, port: &PortView, now: SimTime) {
        if self.cfg.averaging == Averaging::DecbitCycle {
            self.advance(now);
            self.len = port.queue_pkts + port.busy as u32;
            if self.len == 0 {
                self.idle_since.get_or_insert(now);
            } else {
                self.idle_since = None;
            }
        }
    }
}

/// Ranges: `alpha` 0 to 10^6 packets; `ewma_weight` in (0, 1].
impl crate::registry::Validate for DecbitConfig {
    fn validate(&self) -> Result<(), crate::registry::FieldError> {
        crate::registry::check_f64("alpha", self.alpha, 0.0, 1e6)?;
        crate::registry::check_f64_above("ewma_weight", self.ewma_weight, 0.0, 1.0)?;
        // Read only by the EWMA (a resolved scenario writes the default, which stays accepted).
        if self.averaging != Averaging::Ewma && self.ewma_weight != default_ewma_weight() {
            return Err(crate::registry::FieldError::new("ewma_weight", "has no effect unless averaging = \"ewma\": expected averaging = \"ewma\", or no ewma_weight"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: SimTime = crate::sim::PS_PER_S;

    fn view(q: u32, busy: bool) -> PortView {
        PortView { queue_pkts: q, queue_bytes: 0, busy, rate_bps: 1 }
    }

    /// Replays what the engine does for one arrival: hook sees the port before the enqueue,
    /// then the queue change after it (and the start of transmission if the port was idle).
    fn arrive(h: &mut Decbit, q: u32, busy: bool, now: SimTime) -> bool {
        let mut p = Packet::default();
        h.on_arrival(&mut p, &view(q, busy), now);
        if busy {
            h.on_queue_change(&view(q + 1, true), now);
        } else {
            h.on_queue_change(&view(q + 1, false), now);
            h.on_queue_change(&view(q, true), now);
        }
        p.ce()
    }

    fn cycle() -> Decbit {
        Decbit::new(&DecbitConfig::default(), 64_000)
    }

    #[test]
    fn first_arrival_at_idle_port_is_not_marked() {
        let mut h = cycle();
        assert!(!arrive(&mut h, 0, false, 5 * S));
        // The first cycle is the idle time since t = 0; its area is zero.
        assert_eq!(h.average_at(5 * S), 0.0);
    }

    #[test]
    fn average_spans_previous_cycle_and_current_busy_period() {
        let mut h = cycle();
        // Cycle A: arrival at 0 on an idle port, in service 0..2 s (length 1), idle 2..4 s.
        arrive(&mut h, 0, false, 0);
        h.on_queue_change(&view(0, false), 2 * S);
        // Cycle B starts at 4 s. Average at 4 s = area(A) / 4 s = 2 / 4.
        assert!(!arrive(&mut h, 0, false, 4 * S));
        assert_eq!(h.average_at(4 * S), 0.5);
        // A second packet joins at 5 s: length 2 from 5 s. Average at 6 s over [0, 6):
        // area = 2 (cycle A) + 1 x 1 s (4..5) + 2 x 1 s (5..6) = 5 packet-seconds -> 5/6.
        assert!(!arrive(&mut h, 0, true, 5 * S));
        assert!((h.average_at(6 * S) - 5.0 / 6.0).abs() < 1e-12);
        // At 8 s: area = 2 + 1 + 2 x 3 = 9 over 8 s = 1.125 >= alpha, so an arrival is marked.
        assert!((h.average_at(8 * S) - 9.0 / 8.0).abs() < 1e-12);
        assert!(arrive(&mut h, 1, true, 8 * S));
    }

    #[test]
    fn a_new_cycle_forgets_everything_before_the_previous_one() {
        let mut h = cycle();
        // Cycle A: a long busy period at length 3 for 10 s, then idle.
        arrive(&mut h, 0, false, 0);
        h.on_queue_change(&view(2, true), 0);
        h.on_queue_change(&view(0, false), 10 * S);
        // Cycle B: one packet, 1 s in service, 1 s idle (12 s -> 14 s).
        arrive(&mut h, 0, false, 12 * S);
        h.on_queue_change(&view(0, false), 13 * S);
        // Cycle C begins at 14 s: the average covers only cycle B: 1 / 2 s.
        assert!(!arrive(&mut h, 0, false, 14 * S));
        assert_eq!(h.average_at(14 * S), 0.5);
    }

    #[test]
    fn arrival_at_the_instant_of_going_idle_continues_the_busy_period() {
        let mut h = cycle();
        // A long idle first cycle (0..10 s), then one packet served 10..11 s.
        arrive(&mut h, 0, false, 10 * S);
        h.on_queue_change(&view(0, false), 11 * S);
        // The next packet arrives exactly at 11 s: no new cycle, the average still spans [0, 11 s):
        // area 1 over 11 s.
        assert!(!arrive(&mut h, 0, false, 11 * S));
        assert!((h.average_at(11 * S) - 1.0 / 11.0).abs() < 1e-12);
        // Had it come 1 ps later, the cycle [10 s, 11 s + 1 ps) would have been the previous one.
        let mut g = cycle();
        arrive(&mut g, 0, false, 10 * S);
        g.on_queue_change(&view(0, false), 11 * S);
        arrive(&mut g, 0, false, 11 * S + 1);
        assert!(g.average_at(11 * S + 1) < 1.0 && g.average_at(11 * S + 1) > 0.999);
    }

    #[test]
    fn instantaneous_counts_packet_in_service() {
        let mut h = Decbit::new(&DecbitConfig { averaging: Averaging::Instantaneous, ..Default::default() }, 1);
        assert!(!arrive(&mut h, 0, false, 0));
        assert!(arrive(&mut h, 0, true, 1));
        let mut h2 = Decbit::new(&DecbitConfig { averaging: Averaging::Instantaneous, alpha: 3.0, ..Default::default() }, 1);
        assert!(!arrive(&mut h2, 1, true, 0));
        assert!(arrive(&mut h2, 2, true, 0));
    }

    #[test]
    fn ewma_follows_weight() {
        let mut h = Decbit::new(&DecbitConfig { averaging: Averaging::Ewma, ewma_weight: 0.5, ..Default::default() }, 1);
        // Samples 2, 2: avg 1.0 then 1.5; the first reaches alpha = 1.
        assert!(arrive(&mut h, 1, true, 0));
        assert_eq!(h.ewma, 1.0);
        assert!(arrive(&mut h, 1, true, 1));
        assert_eq!(h.ewma, 1.5);
        // Sample 0: 0.75, below alpha.
        assert!(!arrive(&mut h, 0, false, 2));
        assert_eq!(h.ewma, 0.75);
    }

    #[test]
    fn config_parses_with_defaults() {
        let c: DecbitConfig = toml::from_str("averaging = \"instantaneous\"").unwrap();
        assert_eq!(c.alpha, 1.0);
        assert_eq!(c.averaging, Averaging::Instantaneous);
        assert!(toml::from_str::<DecbitConfig>("alpah = 1").is_err());
    }
}
