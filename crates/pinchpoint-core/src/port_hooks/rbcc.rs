//! RBCC, Rate-Based Congestion Control (Toomey 1998, thesis ch. 5-9; seminar version 1996): a
//! router output port keeps an Allocated Bandwidth Table (ABT) of the flows crossing it, computes
//! the port's max-min fair share on every data packet and lowers the packet's Rate field to it.
//! The destination reflects Rate as Return_Rate and the TRUMP source paces itself at it.
//!
//! What the surviving text does not fix is filled as `../shared/seeds/GAPS.md` s4-s7 describes
//! (see docs/algorithms/rbcc.md for every choice):
//! * one ABT per output port (per direction); data entries hold the rate the source currently
//!   sends at and the id of the port that set it (its bottleneck); ack entries hold the load of
//!   the flow's acknowledgement stream through this port (thesis footnote: every packet updates
//!   a data and an ack table);
//! * share = (capacity - ack load - rates of flows bottlenecked elsewhere) / flows bottlenecked
//!   here; a flow counted "elsewhere" whose rate is above the share is moved back (max-min);
//! * entries not refreshed for `flow_timeout` (5 s, thesis s8.4 / scenario 8) leave the table;
//! * threshold congestion avoidance: while more than `threshold_pkts` packets wait, the shares
//!   written are multiplied by `scale` (0.75, thesis ch. 9 scenario 9).

use super::{HookCtx, PortHook, PortView};
use crate::queue::Verdict;
use crate::net::packet::{flags, Packet, PacketKind};
use crate::scenario::units::Duration;
use crate::sim::{SimTime, PS_PER_S};
use serde::{Deserialize, Serialize};

/// Scenario configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RbccConfig {
    /// Congestion-avoidance threshold: shares are scaled while more than this many packets wait
    /// (GAPS.md s5: 2 packets, inferred; the thesis counts packets, not bytes).
    #[serde(default = "default_threshold")]
    pub threshold_pkts: u32,
    /// Factor applied to the shares while the queue is above the threshold (thesis: 0.75).
    #[serde(default = "default_scale")]
    pub scale: f64,
    /// An ABT entry not refreshed for this long is removed (thesis s8.4: 5 s).
    #[serde(default = "default_timeout")]
    pub flow_timeout: Duration,
    /// Rate Quench: when this port lowers a flow's Rate below the rate the source currently
    /// uses, also send the new rate straight back to the source (thesis s9.12).
    #[serde(default)]
    pub rate_quench: bool,
}

/// A Rate Quench the engine is asked to send: to the source of `flow`, carrying `rate_bps`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quench {
    /// Flow whose source is to be told.
    pub flow: u32,
    /// The new rate, bit/s.
    pub rate_bps: f32,
    /// Id of the port that set it.
    pub by: u32,
}

fn default_threshold() -> u32 {
    2
}
fn default_scale() -> f64 {
    0.75
}
fn default_timeout() -> Duration {
    Duration(5 * PS_PER_S)
}

/// One ABT row.
#[derive(Clone, Copy, Debug)]
struct Entry {
    flow: u32,
    ack: bool,
    /// Data: the source's current rate; ack: the ack stream's load. bit/s.
    rate_bps: f64,
    /// Data: id of the port that set the source's current rate.
    by: u32,
    last_seen: SimTime,
    /// Data: the Rate the flow's last packet brought (desired rate, upstream ports), bit/s.
    upstream_bps: f64,
    /// Scratch of the share computation: counted among the flows sharing this port.
    here: bool,
    /// Scratch of the share computation: the flow's limit elsewhere.
    limit_bps: f64,
    /// Rate last sent to the source in a Rate Quench (infinity: none pending).
    quenched_bps: f64,
}

/// The hook.
#[derive(Debug)]
pub struct Rbcc {
    id: u32,
    capacity_bps: f64,
    threshold_pkts: u32,
    scale: f64,
    timeout: SimTime,
    table: Vec<Entry>,
    /// Last share computed (unscaled), bit/s, for inspection.
    pub last_share_bps: f64,
    /// Data packets whose Rate this port lowered.
    pub lowered: u64,
    /// Packets that arrived while the queue was above the threshold (shares scaled).
    pub scaled: u64,
    rate_quench: bool,
    pending_quench: Option<Quench>,
    /// Rate Quenches sent.
    pub quenches: u64,
}

impl Rbcc {
    /// Builds the hook for a port of `rate_bps`.
    pub fn new(cfg: &RbccConfig, rate_bps: u64) -> Self {
        Rbcc {
            id: 0,
            capacity_bps: rate_bps as f64,
            threshold_pkts: cfg.threshold_pkts,
            scale: cfg.scale,
            timeout: cfg.flow_timeout.0,
            table: Vec::new(),
            last_share_bps: f64::INFINITY,
            lowered: 0,
            scaled: 0,
            rate_quench: cfg.rate_quench,
            pending_quench: None,
            quenches: 0,
        }
    }

    /// Takes the engine's index of the port this hook sits on. The id written in `rate_by` is
    /// the index + 1: 0 there means "set by the source" (desired rate). Ids come from the
    /// scenario's port order, so every simulation of a scenario numbers its ports alike.
    pub fn set_port_index(&mut self, port_index: u32) {
        self.id = port_index + 1;
    }

    /// The Rate Quench this port wants sent, if any (sent from `on_verdict`).
    pub fn take_quench(&mut self) -> Option<Quench> {
        self.pending_quench.take()
    }

    /// This port's id as written in `rate_by`.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Flows (data entries) in the table.
    pub fn data_entries(&self) -> usize {
        self.table.iter().filter(|e| !e.ack).count()
    }

    fn expire(&mut self, now: SimTime) {
        let timeout = self.timeout;
        // retain keeps the order, so the sums below add in a fixed order (determinism).
        self.table.retain(|e| now.saturating_sub(e.last_seen) <= timeout);
    }

    fn upsert(&mut self, flow: u32, ack: bool, rate_bps: f64, upstream_bps: f64, by: u32, now: SimTime) {
        match self.table.iter_mut().find(|e| e.flow == flow && e.ack == ack) {
            Some(e) => {
                e.rate_bps = rate_bps;
                e.upstream_bps = upstream_bps;
                e.by = by;
                e.last_seen = now;
            }
            None => self.table.push(Entry { flow, ack, rate_bps, upstream_bps, by, last_seen: now, here: false, limit_bps: 0.0, quenched_bps: f64::INFINITY }),
        }
    }

    /// The max-min share of this port, computed for a packet of flow `flow`.
    fn share_for(&mut self, flow: u32) -> f64 {
        let ack_load: f64 = self.table.iter().filter(|e| e.ack).map(|e| e.rate_bps).sum();
        let avail = self.capacity_bps - ack_load;
        // Start: the asking flow and every flow whose current rate this port set share the
        // port, each limited elsewhere only by the Rate its packets bring (desired rate and
        // upstream ports); the rest are limited elsewhere (another port downstream or upstream,
        // their desired rate) at their current rate.
        let id = self.id;
        for e in self.table.iter_mut() {
            e.here = !e.ack && (e.flow == flow || e.by == id);
            e.limit_bps = if e.here { e.upstream_bps } else { e.rate_bps.min(e.upstream_bps) };
        }
        let mut share = avail;
        // Max-min by repeated moves: a flow counted here whose limit is below the share cannot
        // use it (it leaves at its limit); a flow counted elsewhere whose limit is above the
        // share would be lowered here (it joins). Each pass moves at least one flow; the bound
        // only guards against a cycle in degenerate cases.
        for _ in 0..(2 * self.table.len() + 2) {
            let (mut n_here, mut elsewhere) = (0usize, 0.0);
            for e in self.table.iter().filter(|e| !e.ack) {
                if e.here {
                    n_here += 1;
                } else {
                    elsewhere += e.limit_bps;
                }
            }
            share = if n_here == 0 { f64::INFINITY } else { (avail - elsewhere) / n_here as f64 };
            let mut moved = false;
            for e in self.table.iter_mut().filter(|e| !e.ack) {
                if e.here && e.limit_bps < share {
                    e.here = false;
                    moved = true;
                } else if !e.here && e.limit_bps > share {
                    e.here = true;
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        if !share.is_finite() {
            // Every flow is limited below what the port could give: offer what is left.
            share = avail - self.table.iter().filter(|e| !e.ack && e.flow != flow).map(|e| e.limit_bps).sum::<f64>();
        }
        // Never hand out nothing: a zero rate would stall a source for good.
        share.max(self.capacity_bps * 1e-3)
    }
}

impl PortHook for Rbcc {
    fn on_arrival(&mut self, pkt: &mut Packet, port: &PortView, now: SimTime) {
        if pkt.rate_bps <= 0.0 && pkt.return_rate_bps <= 0.0 {
            return; // not a rate-controlled flow (TCP, UDP)
        }
        self.expire(now);
        let forward = pkt.kind == PacketKind::Data || (pkt.kind == PacketKind::Control && pkt.flags & flags::SETUP != 0);
        if pkt.kind == PacketKind::Ack {
            // Ack entry: the ack stream's load = data rate x ack bytes / data bytes acknowledged.
            // TRUMP acks carry the acknowledged data bytes in `window_bytes`.
            let r = pkt.return_rate_bps as f64;
            if pkt.window_bytes > 0 && r.is_finite() && r > 0.0 {
                let load = r * pkt.size_bytes as f64 / pkt.window_bytes as f64;
                self.upsert(pkt.flow, true, load, f64::INFINITY, 0, now);
            }
            return;
        }
        if !forward {
            return;
        }
        let current = if pkt.return_rate_bps > 0.0 { pkt.return_rate_bps as f64 } else { f64::INFINITY };
        let upstream = if pkt.rate_bps > 0.0 { pkt.rate_bps as f64 } else { f64::INFINITY };
        self.upsert(pkt.flow, false, current, upstream, pkt.return_rate_by, now);
        let share = self.share_for(pkt.flow);
        self.last_share_bps = share;
        let mut offer = share;
        if port.queue_pkts > self.threshold_pkts {
            offer *= self.scale;
            self.scaled += 1;
        }
        if (pkt.rate_bps as f64) > offer {
            pkt.rate_bps = offer as f32;
            pkt.rate_by = self.id;
            self.lowered += 1;
            // Rate Quench (GAPS.md s6 inference): tell the source at once when the new rate is
            // below the one it uses, once per lower rate (the entry remembers the last quench).
            if self.rate_quench && pkt.kind == PacketKind::Data && offer < current * (1.0 - 1e-6) {
                let id = self.id;
                if let Some(e) = self.table.iter_mut().find(|e| e.flow == pkt.flow && !e.ack) {
                    if offer < e.quenched_bps * (1.0 - 1e-6) {
                        e.quenched_bps = offer;
                        self.pending_quench = Some(Quench { flow: pkt.flow, rate_bps: offer as f32, by: id });
                        self.quenches += 1;
                    }
                }
            }
        } else if let Some(e) = self.table.iter_mut().find(|e| e.flow == pkt.flow && !e.ack) {
            e.quenched_bps = f64::INFINITY;
        }
    }

    fn on_verdict(&mut self, pkt: &Packet, _verdict: Verdict, ctx: &mut HookCtx) {
        // Rate Quench: a 40-byte control packet from this router straight back to the source
        // (the engine routes it along the flow's reverse route).
        if let Some(q) = self.pending_quench.take() {
            let quench = Packet {
                flags: flags::QUENCH,
                size_bytes: 40,
                return_rate_bps: q.rate_bps,
                return_rate_by: q.by,
                ..Default::default()
            };
            ctx.send_to_source(pkt, quench);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(cap: u64) -> Rbcc {
        let mut h = Rbcc::new(&RbccConfig { threshold_pkts: 2, scale: 0.75, flow_timeout: Duration(5 * PS_PER_S), rate_quench: true }, cap);
        h.set_port_index(6);
        h
    }
    fn view(q: u32) -> PortView {
        PortView { queue_pkts: q, queue_bytes: 0, busy: true, rate_bps: 64_000 }
    }
    fn data(flow: u32, current: f32, by: u32) -> Packet {
        Packet { flow, kind: PacketKind::Data, rate_bps: f32::INFINITY, return_rate_bps: current, return_rate_by: by, size_bytes: 1500, ..Default::default() }
    }

    #[test]
    fn a_lone_flow_gets_the_whole_port() {
        let mut h = hook(64_000);
        let mut p = data(1, f32::INFINITY, 0);
        h.on_arrival(&mut p, &view(0), 0);
        assert_eq!(p.rate_bps, 64_000.0);
        assert_eq!(p.rate_by, h.id());
    }

    #[test]
    fn two_flows_bottlenecked_here_split_the_port_evenly() {
        let mut h = hook(64_000);
        let id = h.id();
        let mut a = data(1, 64_000.0, id);
        h.on_arrival(&mut a, &view(0), 0);
        let mut b = data(2, f32::INFINITY, 0);
        h.on_arrival(&mut b, &view(0), 1);
        assert_eq!(b.rate_bps, 32_000.0);
        let mut a2 = data(1, 64_000.0, id);
        h.on_arrival(&mut a2, &view(0), 2);
        assert_eq!(a2.rate_bps, 32_000.0);
    }

    #[test]
    fn a_flow_limited_elsewhere_keeps_its_rate_and_the_rest_share_the_remainder() {
        let mut h = hook(64_000);
        let mut capped = data(1, 18_000.0, 0); // desired rate 18 kbit/s
        capped.rate_bps = 18_000.0;
        h.on_arrival(&mut capped, &view(0), 0);
        assert_eq!(capped.rate_bps, 18_000.0, "a rate below the share is not touched");
        let mut b = data(2, f32::INFINITY, 0);
        h.on_arrival(&mut b, &view(0), 1);
        assert_eq!(b.rate_bps, 46_000.0);
    }

    #[test]
    fn acknowledgement_load_is_taken_off_the_capacity() {
        let mut h = hook(64_000);
        // 40-byte acks for 1500 bytes of data at 37,500 bit/s: 1000 bit/s of ack load.
        let mut ack = Packet { flow: 9, kind: PacketKind::Ack, return_rate_bps: 37_500.0, size_bytes: 40, window_bytes: 1500, ..Default::default() };
        h.on_arrival(&mut ack, &view(0), 0);
        let mut p = data(1, f32::INFINITY, 0);
        h.on_arrival(&mut p, &view(0), 1);
        assert_eq!(p.rate_bps, 63_000.0);
    }

    #[test]
    fn shares_are_scaled_while_the_queue_is_above_the_threshold() {
        let mut h = hook(64_000);
        let mut p = data(1, f32::INFINITY, 0);
        h.on_arrival(&mut p, &view(3), 0);
        assert_eq!(p.rate_bps, 48_000.0);
        let mut q = data(1, 48_000.0, h.id());
        h.on_arrival(&mut q, &view(2), 1);
        assert_eq!(q.rate_bps, 64_000.0, "at the threshold the share is unscaled");
    }

    #[test]
    fn entries_idle_for_the_timeout_leave_the_table() {
        let mut h = hook(64_000);
        let id = h.id();
        h.on_arrival(&mut data(1, 32_000.0, id), &view(0), 0);
        h.on_arrival(&mut data(2, 32_000.0, id), &view(0), 0);
        let mut p = data(1, 32_000.0, id);
        h.on_arrival(&mut p, &view(0), 5 * PS_PER_S);
        assert_eq!(p.rate_bps, 32_000.0, "still there at exactly 5 s");
        let mut p = data(1, 32_000.0, id);
        h.on_arrival(&mut p, &view(0), 5 * PS_PER_S + 1);
        assert_eq!(p.rate_bps, 64_000.0, "flow 2 timed out");
        assert_eq!(h.data_entries(), 1);
    }

    #[test]
    fn a_quench_is_asked_for_once_when_a_flow_must_slow_down() {
        let mut h = hook(64_000);
        let id = h.id();
        h.on_arrival(&mut data(1, 64_000.0, id), &view(0), 0);
        assert_eq!(h.take_quench(), None, "nothing to slow down");
        h.on_arrival(&mut data(2, f32::INFINITY, 0), &view(0), 1);
        h.take_quench();
        let mut p = data(1, 64_000.0, id);
        h.on_arrival(&mut p, &view(0), 2);
        assert_eq!(h.take_quench(), Some(Quench { flow: 1, rate_bps: 32_000.0, by: id }));
        h.on_arrival(&mut data(1, 64_000.0, id), &view(0), 3);
        assert_eq!(h.take_quench(), None, "the same lower rate is not quenched twice");
    }
}

impl crate::registry::Validate for RbccConfig {
    fn validate(&self) -> Result<(), crate::registry::FieldError> {
        // The scaling lowers returned rates while the queue is above the threshold (thesis
        // s9.4.2): a factor above 1 would raise them, 0 would stop every source.
        crate::registry::check_f64_above("scale", self.scale, 0.0, 1.0)?;
        if self.flow_timeout.0 == 0 {
            return Err(crate::registry::FieldError::new("flow_timeout", "expected a positive duration"));
        }
        Ok(())
    }
}
