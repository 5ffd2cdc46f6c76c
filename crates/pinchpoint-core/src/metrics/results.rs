//! The result tables of a run, built from the simulation's state at the current time. Each
//! table is a list of `column name: type => expression over one row` lines.

use super::table::{ColumnData, Table};
use super::PacketTrace;
use crate::flows::Flow;
use crate::net::Port;
use crate::queue::DROP_REASON_NAMES;
use crate::sim::{ps_to_secs, SimTime};
use crate::simulation::{RunCounters, Simulation};
use crate::transport::{Transport, TransportReport};

/// Everything a run produced.
#[derive(Clone, Debug)]
pub struct Results {
    /// Scenario name.
    pub scenario: String,
    /// Master seed used.
    pub seed: u64,
    /// Simulated time at the end, s.
    pub end_time_s: f64,
    /// Run counters.
    pub counters: RunCounters,
    /// One row per flow.
    pub flows: Table,
    /// One row per output port.
    pub ports: Table,
    /// One row per simplex channel.
    pub links: Table,
    /// Flow time series.
    pub flow_series: Table,
    /// Port time series.
    pub port_series: Table,
    /// Per-packet trace (empty unless enabled).
    pub packets: Table,
    /// Queue-change trace of the traced ports.
    pub queue_trace: Table,
    /// Loss events per flow and interval (RFC 5348 s5.2; empty without a series interval).
    pub loss_events: Table,
    /// Loss events of all flows per interval.
    pub loss_events_total: Table,
    /// Packets transmitted by the captured ports (metrics.capture), header fields.
    pub capture: Table,
    /// One row per transfer of the arrival processes (finished or still running).
    pub transfers: Table,
    /// Aggregates per group label (static flows and transfers).
    pub groups: Table,
    /// Transfers' memory bookkeeping.
    pub transfer_counters: crate::traffic::arrivals::engine::TransferCounters,
    /// Bytes each flow delivered per fixed interval (metrics.rate_interval; empty unless set).
    pub flow_rates: Table,
}

/// Appends one column per line: `"name": Kind => |row| expression`, over the rows `$rows`.
macro_rules! columns {
    ($table:expr, $rows:expr, { $( $name:literal : $kind:ident => |$r:ident| $e:expr ),* $(,)? }) => {
        $( $table.col($name, ColumnData::$kind($rows.iter().map(|$r| $e).collect())); )*
    };
}

fn nan_unless(ok: bool, v: f64) -> f64 {
    if ok { v } else { f64::NAN }
}

/// One flow at the end of the run, with what the columns derive from.
struct FlowRow<'a> {
    f: &'a Flow,
    r: TransportReport,
    src: &'a str,
    dst: &'a str,
    in_network: u64,
    now: SimTime,
}

impl FlowRow<'_> {
    fn goodput_bps(&self) -> f64 {
        let start = self.f.stats.started_at().unwrap_or(self.f.start);
        let end = self.f.stats.completed_at().unwrap_or(self.now);
        let span = ps_to_secs(end.saturating_sub(start));
        if span > 0.0 { self.r.delivered_bytes as f64 * 8.0 / span } else { 0.0 }
    }
    fn fct_s(&self) -> f64 {
        match (self.f.stats.started_at(), self.f.stats.completed_at()) {
            (Some(a), Some(b)) => ps_to_secs(b - a),
            _ => f64::NAN,
        }
    }
    fn efficiency(&self) -> f64 {
        let sent = self.f.stats.data_sent_pkts;
        if sent == 0 { f64::NAN } else { (sent - self.r.retx_pkts.min(sent)) as f64 / sent as f64 }
    }
}

/// (mean, std, min, max, p99) of a time-weighted quantity.
type Summary = (f64, f64, f64, f64, f64);

/// One port at the end of the run.
struct PortRow<'a> {
    p: &'a Port,
    name: String,
    node: &'a str,
    q_pkts: Summary,
    q_bytes: Summary,
}

impl Results {
    /// Builds the result tables of `sim` at its current time.
    pub fn collect(sim: &Simulation) -> Results {
        let now = sim.now;
        let dur_s = ps_to_secs(now).max(1e-12);
        let in_net = sim.in_network_per_flow();
        // The scenario's flows; transfers of arrival processes have their own table.
        let n_static = sim.arrivals.first_flow as usize;
        let rows: Vec<FlowRow> = sim.flows[..n_static]
            .iter()
            .zip(&in_net)
            .map(|(f, &in_network)| FlowRow {
                f,
                r: f.transport.report(),
                src: &sim.nodes[f.src as usize].name,
                dst: &sim.nodes[f.dst as usize].name,
                in_network,
                now,
            })
            .collect();
        let mut flows = Table::default();
        columns!(flows, rows, {
            "flow": Str => |x| x.f.name.clone(),
            "src": Str => |x| x.src.to_string(),
            "dst": Str => |x| x.dst.to_string(),
            "start_s": F64 => |x| ps_to_secs(x.f.start),
            "goodput_bps": F64 => |x| x.goodput_bps(),
            "fct_s": F64 => |x| x.fct_s(),
            "delivered_bytes": U64 => |x| x.r.delivered_bytes,
            "sent_pkts": U64 => |x| x.f.stats.data_sent_pkts,
            "sent_bytes": U64 => |x| x.f.stats.data_sent_bytes,
            "retx_pkts": U64 => |x| x.r.retx_pkts,
            "lost_pkts": U64 => |x| x.f.stats.data_dropped_pkts,
            "loss_events": U64 => |x| x.f.stats.loss_events.get().events,
            "delivered_pkts": U64 => |x| x.f.stats.data_delivered_pkts,
            "ce_pkts": U64 => |x| x.f.stats.data_ce_pkts,
            "ack_pkts": U64 => |x| x.f.stats.rev_sent_pkts,
            "ack_lost_pkts": U64 => |x| x.f.stats.rev_dropped_pkts,
            "in_network_pkts": U64 => |x| x.in_network,
            "shaper_held_pkts": U64 => |x| x.f.shaper_held_pkts(),
            "efficiency": F64 => |x| x.efficiency(),
            "timeouts": U64 => |x| x.r.timeouts,
            "fast_retx": U64 => |x| x.r.fast_retx,
            "delay_mean_s": F64 => |x| x.f.stats.delay_or_nan(|d| d.secs.mean()),
            "delay_min_s": F64 => |x| x.f.stats.delay_or_nan(|d| d.secs.min_or_nan()),
            "delay_max_s": F64 => |x| x.f.stats.delay_or_nan(|d| d.secs.max_or_nan()),
            "delay_std_s": F64 => |x| x.f.stats.delay_or_nan(|d| d.secs.std()),
            // Clamped to the exact extremes (the histogram's bucket midpoint may lie beyond them).
            "delay_p99_s": F64 => |x| x.f.stats.delay_or_nan(|d| (d.hist_ns.quantile(0.99) * 1e-9).min(d.secs.max_or_nan()).max(d.secs.min_or_nan())),
            "rtt_mean_s": F64 => |x| nan_unless(x.r.rtt_samples > 0, x.r.rtt_sum_ps / x.r.rtt_samples as f64 * 1e-12),
            "rtt_min_s": F64 => |x| nan_unless(x.r.rtt_samples > 0, ps_to_secs(x.r.rtt_min_ps)),
            "rtt_max_s": F64 => |x| nan_unless(x.r.rtt_samples > 0, ps_to_secs(x.r.rtt_max_ps)),
            // Seed 002's per-source tables (thesis ch. 9): round-trip deviation beside the mean.
            "rtt_std_s": F64 => |x| nan_unless(x.r.rtt_samples > 0, x.r.rtt_std_ps * 1e-12),
            "completed": Bool => |x| x.f.stats.completed_at().is_some(),
        });
        let group_of = |i: usize| match sim.arrivals.static_groups[i] {
            u32::MAX => String::new(),
            g => sim.arrivals.groups[g as usize].clone(),
        };
        flows.col("group", ColumnData::Str((0..rows.len()).map(group_of).collect()));
        let static_delivered: Vec<u64> = rows.iter().map(|x| x.r.delivered_bytes).collect();
        let (transfers, groups) = sim.transfer_tables(&static_delivered);
        // Connection set-up (`tcp.handshake`): columns only when some flow runs one, so every
        // other flows table is unchanged.
        if rows.iter().any(|x| x.r.handshake.is_some()) {
            let hs = |x: &FlowRow| x.r.handshake.unwrap_or_default();
            columns!(flows, rows, {
                "handshake_s": F64 => |x| hs(x).established_after_ps.map_or(f64::NAN, ps_to_secs),
                "syn_retransmits": U64 => |x| hs(x).syn_retransmits,
                "handshake_failed": Bool => |x| hs(x).failed,
            });
        }

        // RACK-TLP (`tcp.recovery = "rack_tlp"`): its counters only when some flow uses it, so
        // every other flows table is unchanged; zeros for the flows that do not.
        if rows.iter().any(|x| x.r.rack.is_some()) {
            let rk = |x: &FlowRow| x.r.rack.unwrap_or_default();
            columns!(flows, rows, {
                "tlp_probes": U64 => |x| rk(x).probes,
                "tlp_recoveries": U64 => |x| rk(x).probe_recoveries,
                "rack_marked_lost_segs": U64 => |x| rk(x).marked_lost_segs,
                "dsacks_received": U64 => |x| rk(x).dsacks,
                "recoveries_undone": U64 => |x| rk(x).recoveries_undone,
                "timeouts_undone": U64 => |x| rk(x).timeouts_undone,
                "frto_spurious_rtos": U64 => |x| rk(x).frto_spurious_rtos,
            });
        }

        // Interval rates (`metrics.rate_interval`): the CoV column only when they are recorded.
        // The table has its columns (and no rows) when they are not, so that it concatenates
        // with the tables of runs that recorded them.
        let no_rates = crate::metrics::rates::IntervalRates::default();
        let ir = match &sim.rates {
            Some(ir) => {
                flows.col("rate_cov", ColumnData::F64(ir.cov_per_flow(&sim.flows[..n_static], now)));
                ir
            }
            None => &no_rates,
        };
        let iv_s = ps_to_secs(ir.interval_ps);
        let mut flow_rates = Table::default();
        flow_rates
            .col("flow", ColumnData::Str(ir.flow.iter().map(|&i| sim.flows[i as usize].name.clone()).collect()))
            .col("interval_start_s", ColumnData::F64(ir.start_ps.iter().map(|&t| ps_to_secs(t)).collect()))
            .col("bytes", ColumnData::U64(ir.bytes.clone()))
            .col("rate_bps", ColumnData::F64(ir.bytes.iter().map(|&b| b as f64 * 8.0 / iv_s).collect()));

        let prows: Vec<PortRow> = sim
            .ports
            .iter()
            .map(|p| {
                let (q_pkts, q_bytes) = p.stats.occupancy_summaries(now);
                // Appended rather than `format!`ed: 400,000 ports at 100,000 flows.
                let (from, to) = (&sim.nodes[p.from_node as usize].name, &sim.nodes[p.to_node as usize].name);
                let mut name = String::with_capacity(from.len() + 2 + to.len());
                name.push_str(from);
                name.push_str("->");
                name.push_str(to);
                PortRow { p, name, node: &sim.nodes[p.from_node as usize].name, q_pkts, q_bytes }
            })
            .collect();
        let mut ports = Table::default();
        columns!(ports, prows, {
            "port": Str => |x| x.name.clone(),
            "node": Str => |x| x.node.to_string(),
            "arrivals_pkts": U64 => |x| x.p.stats.arrivals_pkts,
            "tx_pkts": U64 => |x| x.p.stats.tx_pkts,
            "tx_bytes": U64 => |x| x.p.stats.tx_bytes,
            "drops": U64 => |x| x.p.stats.total_drops(),
        });
        for (k, name) in DROP_REASON_NAMES.iter().enumerate() {
            ports.col(&format!("drops_{name}"), ColumnData::U64(prows.iter().map(|x| x.p.stats.drops()[k]).collect()));
        }
        columns!(ports, prows, {
            "link_losses_pkts": U64 => |x| x.p.stats.link_losses_pkts(),
            "marks": U64 => |x| x.p.stats.marks(),
            "queue_pkts_mean": F64 => |x| x.q_pkts.0,
            "queue_pkts_std": F64 => |x| x.q_pkts.1,
            "queue_pkts_min": F64 => |x| x.q_pkts.2,
            "queue_pkts_max": F64 => |x| x.q_pkts.3,
            "queue_pkts_p99": F64 => |x| x.q_pkts.4,
            "queue_bytes_mean": F64 => |x| x.q_bytes.0,
            "queue_bytes_std": F64 => |x| x.q_bytes.1,
            "queue_bytes_min": F64 => |x| x.q_bytes.2,
            "queue_bytes_max": F64 => |x| x.q_bytes.3,
            "queue_bytes_p99": F64 => |x| x.q_bytes.4,
            "queue_pkts_now": U64 => |x| x.p.waiting_pkts as u64,
        });

        // A link is credited only with what it has serialised by `now`: the packet in service
        // counts toward neither bytes nor busy time until its last bit is out, so throughput and
        // utilisation can never exceed the rate.
        let mut links = Table::default();
        columns!(links, prows, {
            "link": Str => |x| x.name.clone(),
        });
        columns!(links, sim.ports, {
            "rate_bps": F64 => |p| p.rate_bps as f64,
            "delay_s": F64 => |p| ps_to_secs(p.delay_ps),
            "tx_bytes": U64 => |p| p.serialised_bytes_at(now),
            "throughput_bps": F64 => |p| p.serialised_bytes_at(now) as f64 * 8.0 / dur_s,
            "utilisation": F64 => |p| p.busy_ps_at(now) as f64 / now.max(1) as f64,
        });

        let flow_name = |i: &u32| sim.flows[*i as usize].name.clone();
        let port_name = |i: &u32| prows[*i as usize].name.clone();
        let s = &sim.series;
        let mut flow_series = Table::default();
        flow_series
            .col("t_s", ColumnData::F64(s.flow_t.clone()))
            .col("flow", ColumnData::Str(s.flow_id.iter().map(flow_name).collect()))
            .col("delivered_bytes", ColumnData::U64(s.flow_delivered_bytes.clone()))
            .col("acked_bytes", ColumnData::U64(s.flow_acked_bytes.clone()))
            .col("cwnd_bytes", ColumnData::U64(s.flow_cwnd_bytes.clone()))
            .col("rwnd_bytes", ColumnData::U64(s.flow_rwnd_bytes.clone()))
            .col("srtt_s", ColumnData::F64(s.flow_srtt_s.clone()))
            .col("rate_bps", ColumnData::F64(s.flow_rate_bps.clone()));
        let mut port_series = Table::default();
        port_series
            .col("t_s", ColumnData::F64(s.port_t.clone()))
            .col("port", ColumnData::Str(s.port_id.iter().map(port_name).collect()))
            .col("queue_pkts", ColumnData::U64(s.port_queue_pkts.iter().map(|&x| x as u64).collect()))
            .col("queue_bytes", ColumnData::U64(s.port_queue_bytes.clone()))
            .col("tx_bytes", ColumnData::U64(s.port_tx_bytes.clone()))
            .col("drops", ColumnData::U64(s.port_drops.clone()));
        // Without `metrics.packet_trace`, the same columns and no rows (as for `flow_rates`).
        let no_trace = PacketTrace::default();
        let p = sim.packet_trace.as_ref().unwrap_or(&no_trace);
        let mut packets = Table::default();
        packets
            .col("t_s", ColumnData::F64(p.t.clone()))
            .col("flow", ColumnData::Str(p.flow.iter().map(flow_name).collect()))
            .col("delay_s", ColumnData::F64(p.delay_s.clone()))
            .col("size_bytes", ColumnData::U64(p.size_bytes.iter().map(|&x| x as u64).collect()))
            .col("seq", ColumnData::U64(p.seq.clone()))
            .col("ce", ColumnData::Bool(p.ce.clone()))
            .col("retx", ColumnData::Bool(p.retx.clone()));
        let q = &sim.queue_trace;
        let mut queue_trace = Table::default();
        queue_trace
            .col("t_s", ColumnData::F64(q.t.clone()))
            .col("port", ColumnData::Str(q.port.iter().map(port_name).collect()))
            .col("queue_pkts", ColumnData::U64(q.queue_pkts.iter().map(|&x| x as u64).collect()))
            .col("queue_bytes", ColumnData::U64(q.queue_bytes.clone()));

        Results {
            scenario: sim.scenario_name.clone(),
            seed: sim.seed,
            end_time_s: ps_to_secs(now),
            counters: sim.counters(),
            flows,
            ports,
            links,
            flow_series,
            port_series,
            packets,
            queue_trace,
            loss_events: s.loss_events.flow_table(flow_name),
            loss_events_total: s.loss_events.total_table(),
            capture: capture_table(sim),
            transfers,
            groups,
            transfer_counters: sim.transfer_counters(),
            flow_rates,
        }
    }
}

/// Header fields of every captured packet (metrics.capture), in transmission order per port.
fn capture_table(sim: &Simulation) -> Table {
    let c = &sim.capture;
    let mut t = Table::default();
    let sack = |k: usize, end: bool| -> ColumnData {
        ColumnData::U64(
            c.iter()
                .map(|(_, _, p)| {
                    if k < p.sack.wire_len() {
                        let (a, b) = p.sack.wire_block(k, p.ack);
                        if end { b } else { a }
                    } else {
                        0
                    }
                })
                .collect(),
        )
    };
    t.col("t_ps", ColumnData::U64(c.iter().map(|x| x.0).collect()))
        .col("port", ColumnData::Str(c.iter().map(|x| sim.port_name(x.1)).collect()))
        .col("flow", ColumnData::Str(c.iter().map(|x| sim.flows[x.2.flow as usize].name.clone()).collect()))
        .col("kind", ColumnData::U64(c.iter().map(|x| x.2.kind as u64).collect()))
        .col("seq", ColumnData::U64(c.iter().map(|x| x.2.seq).collect()))
        .col("ack", ColumnData::U64(c.iter().map(|x| x.2.ack).collect()))
        .col("size_bytes", ColumnData::U64(c.iter().map(|x| x.2.size_bytes as u64).collect()))
        .col("payload_bytes", ColumnData::U64(c.iter().map(|x| x.2.payload_bytes as u64).collect()))
        .col("window_bytes", ColumnData::U64(c.iter().map(|x| x.2.window_bytes as u64).collect()))
        .col("ecn", ColumnData::U64(c.iter().map(|x| x.2.ecn as u64).collect()))
        .col("flags", ColumnData::U64(c.iter().map(|x| x.2.flags as u64).collect()))
        .col("ts_echo_ps", ColumnData::U64(c.iter().map(|x| x.2.ts_echo).collect()))
        .col("sent_at_ps", ColumnData::U64(c.iter().map(|x| x.2.sent_at).collect()))
        .col("sack_blocks", ColumnData::U64(c.iter().map(|x| x.2.sack.wire_len() as u64).collect()));
    for k in 0..crate::transport::tcp::sack::MAX_SACK_BLOCKS {
        t.col(&format!("sack{k}_start"), sack(k, false)).col(&format!("sack{k}_end"), sack(k, true));
    }
    t
}

impl super::Series {
    /// Takes one sample of every flow and port at `now`.
    pub fn sample(&mut self, now: SimTime, flows: &[Flow], ports: &[Port]) {
        let t = ps_to_secs(now);
        for (i, f) in flows.iter().enumerate() {
            let r = f.transport.report();
            self.flow_t.push(t);
            self.flow_id.push(i as u32);
            self.flow_delivered_bytes.push(r.delivered_bytes);
            self.flow_acked_bytes.push(r.acked_bytes);
            self.flow_cwnd_bytes.push(r.cwnd_bytes);
            self.flow_rwnd_bytes.push(r.rwnd_bytes);
            self.flow_srtt_s.push(ps_to_secs(r.srtt_ps));
            self.flow_rate_bps.push(r.rate_bps);
        }
        self.loss_events.sample(now, flows.iter().map(|f| (f.stats.data_sent_pkts, f.stats.loss_events.get())));
        for (i, p) in ports.iter().enumerate() {
            self.port_t.push(t);
            self.port_id.push(i as u32);
            self.port_queue_pkts.push(p.waiting_pkts);
            self.port_queue_bytes.push(p.waiting_bytes);
            self.port_tx_bytes.push(p.stats.tx_bytes);
            self.port_drops.push(p.stats.total_drops());
        }
    }
}
