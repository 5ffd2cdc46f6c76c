//! pinchpoint-core: a packet-level discrete-event network simulator for congestion-control
//! research. See `DESIGN.md` at the repository root for the architecture.
#![warn(missing_docs)]

pub mod flows;
pub mod metrics;
pub mod net;
pub mod port_hooks;
pub mod queue;
mod registry;
pub mod scenario;
pub mod shaper;
pub mod sim;
pub mod simulation;
pub mod traffic;
pub mod transport;

pub use scenario::{build::build, Scenario, ScenarioError};

/// Revision of the simulation model: what a run of a given scenario and seed produces. Bumped
/// whenever a change moves results where the scenario did not change; it is part of every
/// run key (`pinchpoint.store`), so a sweep never reuses a run stored by an older model.
/// - 1: every run before revisions were recorded (stored runs without one are revision 1).
/// - 2: the same-picosecond rule (DESIGN.md, "Event order"): at one picosecond a port's
///   transmit completions come before any arrival to it (all `TxDone` events first, by port),
///   then packets reaching the end of a wire by port index, then every other event in
///   scheduling order. Revision 1 ordered every event at a picosecond by when it was pushed.
/// - 3: TCP, FQ-CoDel and a metric brought to the RFCs, Linux and ns-3: after a fast recovery
///   a SACK sender may start a new one at once (RFC 6675 s5; it waited for an ack beyond the
///   old snd_max, so losing the first segment sent after a recovery began cost a timeout); CUBIC's first
///   congestion avoidance after a timeout starts with K = 0 at its own window (RFC 9438 s4.8);
///   FQ-CoDel's "too little queued to drop" test reads the whole qdisc's backlog (Linux); the
///   flows' `ce_pkts` and the packet trace's `ce` also count the IP ECN codepoint CE.
/// - 4: an ECN TCP sender sends retransmissions Not-ECT (RFC 3168 s6.1.5, Linux, ns-3; DCTCP
///   keeps ECT on them as Linux does), so a marking queue drops a retransmission it would have
///   marked. Found by the ns-3 cross-check of RED with ECN (docs/crossval.md). CUBIC moves its
///   epoch start by the idle time when data leaves with nothing in flight (RFC 9438 s5.8, Linux
///   `CA_EVENT_TX_START`), so an application pause no longer advances its curve.
/// - 5: an ECN echo starts a window reduction held as a state until the window it answers is
///   acknowledged (Linux's CA_CWR, ns-3's `EnterCwr`): the window does not grow meanwhile, and
///   with SACK recovery and PRR it comes down by PRR (RFC 6937) rather than at once; a loss
///   found during it recovers without a second cut (Linux). DCTCP counts the acknowledgements
///   of a window being reduced in alpha (Linux `in_ack_event`).
/// - 6: a retransmission timeout of the segment the previous timeout resent (no acknowledgement
///   has advanced since) holds ssthresh (RFC 5681 s3.1, Linux `tcp_enter_loss`): it was lowered
///   again from the one-segment window, to 2 segments, so a flow left two timeouts in a row in
///   congestion avoidance from 2 segments. ns-3 3.44 still lowers it (its test for a repeat is
///   always false; docs/crossval.md). AIMD and binomial controls keep ns-2's rule (every timeout
///   halves the window it has). Found while cross-checking two NewReno flows with different RTTs
///   against ns-3.
/// - 7: BBR gains two rules of Linux's `tcp_bbr.c` that ns-3's `TcpBbr` also has
///   (docs/algorithms/bbr.md): the ACK-aggregation allowance in the window target
///   (`bbr_update_ack_aggregation`: the packets acknowledged beyond what the bandwidth estimate
///   predicts, a 5-to-10-round maximum, at most 100 ms at that bandwidth, once the pipe is
///   full), and the packets each acknowledgement finds lost (`rs->losses`, from RFC 6675's loss
///   boundary with SACK), which come off the window before it grows and end the 5/4 phase. Only
///   runs with `cc = "bbr"` move.
/// - 8: a RACK-TLP sender (`recovery = "rack_tlp"`) takes an acknowledgement's rate sample after
///   RACK has marked that acknowledgement's losses, as Linux's `tcp_ack` runs `tcp_rate_gen`
///   after `tcp_fastretrans_alert`: the sample carries the bytes marked lost (`rs->losses`) and
///   its in-flight count leaves them out; before, the sample came first and carried none. And
///   D-SACK (RFC 2883, `tcp.dsack`, on by default with RACK-TLP as Linux's `tcp_dsack`): the
///   receiver reports duplicate segments and RACK widens its reordering window on them (RFC 8985
///   s6.2 step 4, `reo_wnd_steps`), where before it stayed min_RTT / 4. Only runs with
///   `recovery = "rack_tlp"` move.
/// - 9: a RACK-TLP sender undoes window reductions that prove spurious, as Linux always does
///   (`tcp.undo`, on by default with RACK-TLP; `transport/tcp/undo.rs`): by D-SACKs of every
///   retransmission, or by an acknowledgement that echoes a timestamp from before the first
///   retransmission (Eifel, RFC 3522), a fast recovery or a timeout gives the window and
///   ssthresh back, and after a timeout the go-back-N stops. D-SACKs widen the reordering window
///   only once reordering has been seen and not for the probe's duplicate, and more duplicates
///   than retransmissions are disregarded (Linux >= 5.11 `tcp_dsack_seen`); before, every
///   D-SACK widened it. A RACK-TLP timeout inside a fast recovery or an ECN reduction keeps
///   that reduction's ssthresh (Linux `tcp_enter_loss`), where it was lowered again. Only runs
///   with `recovery = "rack_tlp"` move.
/// - 10: a RACK-TLP sender with undo runs F-RTO after a timeout, as Linux's `tcp_frto = 2`
///   (`tcp.frto`, RFC 5682 s3; `transport/tcp/frto.rs`): the first acknowledgement that advances
///   sends new data instead of resends, and an acknowledgement or SACK of data never resent
///   undoes the timeout. Before, the go-back-N resent at once and only the timestamp and D-SACK
///   undos applied. Only runs with `recovery = "rack_tlp"` that have timeouts move.
/// - 11: after a timeout a SACK sender compares its window with what is in flight as Linux
///   (`tcp_timeout_mark_lost`, `tcp_packets_in_flight`) and ns-3 (`SetSentListLost`,
///   `BytesInFlight`) do: every un-SACKed byte outstanding at the timeout counts as lost, so in
///   flight is what was resent since and is not SACKed, plus data sent above the recovery
///   point. Before, the go-back-N counted the window from snd_una, so SACKed ranges between
///   snd_una and the go-back point took up window and the holes went out more slowly. F-RTO's
///   new data counts in flight and is not resent by the go-back-N. The rate sample's in-flight
///   count after a timeout is the same count (it was RFC 6675's pipe, which left resends out).
///   No ECN reduction starts during that episode (Linux enters CWR only from Open or
///   Disorder), and limited transmit gives way to the in-flight count there. And the rate
///   sample's RTT follows Karn's rule as Linux's `rs->rtt_us` does: the most recently sent
///   segment SACKed that was never retransmitted, else the one cumulatively acknowledged unless
///   that acknowledgement also covers a resent segment, else the timestamp of an
///   acknowledgement that advances; before, a retransmission whose original was acknowledged
///   gave an RTT from the resend (BBR took a sub-millisecond minimum RTT from one). Runs with
///   timeouts (SACK, or ECN) move, and BBR runs with retransmissions.
/// - 12: the rate sample's application-limited mark follows Linux's
///   `tcp_rate_check_app_limited`: less than a segment of what the application has written so
///   far is unsent (it was the whole workload, so a sender fed by a `cbr`, `on_off` or Poisson
///   application was never marked), the window is compared with the in-flight count (it was
///   everything outstanding, SACKed bytes included), and no lost segment awaits its resend;
///   and a connection starts marked (Linux `tp->app_limited = ~0U`), so the first flight's
///   samples are application-limited. Only runs whose controller reads rate samples (BBR) can
///   move: those with such applications, finite transfers at their end, and any whose first
///   round's sample mattered (the BBR network tests' figures did not move).
pub const MODEL_REVISION: u32 = 12;
pub use simulation::{Results, Simulation};

/// Parses, validates and builds a TOML scenario in one step.
pub fn load_toml(text: &str, origin: &str, seed: Option<u64>) -> Result<Simulation, ScenarioError> {
    let sc = scenario::from_toml_str(text, origin)?;
    build(&sc, seed, origin)
}
