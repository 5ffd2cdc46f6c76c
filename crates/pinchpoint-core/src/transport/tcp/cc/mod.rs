//! Congestion controllers for the reliable window transport: the `CongestionControl` trait and
//! a one-line registry. Each controller is one file.
//!
//! The sender owns loss detection and recovery (RFC 5681, RFC 6582, RFC 6675 with RFC 6937,
//! chosen by `tcp.recovery`, as in Linux and ns-3); a controller only decides the window: how it grows per acknowledged byte, and what it becomes after a loss, a timeout or
//! an ECN echo. Windows are in bytes and grow by acknowledged bytes (RFC 3465 byte counting, as
//! Linux does), so delayed acknowledgements do not slow growth.

use crate::sim::SimTime;


pub mod aimd;
pub mod bbr;
pub mod binomial;
pub mod cubic;
pub mod dctcp;
pub mod newreno;
pub mod none;
pub mod reno;
pub mod scalable;
pub mod vegas;

/// What an acknowledgement of new data tells the controller.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckSample {
    /// Time of the acknowledgement.
    pub now: SimTime,
    /// Bytes newly acknowledged by it.
    pub bytes_acked: u64,
    /// RTT sample it carried (timestamp echo), if any.
    pub rtt_ps: Option<SimTime>,
    /// The sender's smoothed RTT (RFC 6298 SRTT) after that sample, ps.
    pub srtt_ps: SimTime,
    /// Bytes in flight before it arrived.
    pub in_flight_bytes: u64,
    /// Sender maximum segment size.
    pub mss: u32,
    /// Oldest unacknowledged byte after it (the cumulative acknowledgement): with `snd_max`,
    /// lets a controller count rounds (one round ends when `snd_una` passes the `snd_max` seen
    /// when it began), as Vegas, HyStart++ and DCTCP do.
    pub snd_una: u64,
    /// Highest byte sent plus one, when it arrived.
    pub snd_max: u64,
    /// It carried an ECN echo (ECE). DCTCP counts the bytes such acknowledgements cover.
    pub ece: bool,
}

/// What a controller's settings are checked against: the flow's TCP settings.
#[derive(Clone, Copy, Debug)]
pub struct TcpFacts {
    /// `tcp.ecn`.
    pub ecn: bool,
    /// `tcp.mss`, bytes.
    pub mss: u32,
    /// `tcp.slow_start_after_idle`: a controller whose window cannot be restarted refuses it.
    pub slow_start_after_idle: bool,
    /// `tcp.init_cwnd_pkts`: a controller without a window refuses a value other than the default.
    pub init_cwnd_pkts: u32,
    /// `tcp.pacing`.
    pub pacing: bool,
    /// `tcp.prr` as written (None: left to the recovery's default).
    pub prr: Option<bool>,
}

/// A controller setting that is out of range: the field path below the flow (`cc.beta`,
/// `tcp.ecn`) and what was expected.
#[derive(Clone, Debug, PartialEq)]
pub struct CcProblem {
    /// Field path relative to the flow table.
    pub field: String,
    /// What was expected.
    pub message: String,
}

impl CcProblem {
    /// A problem with the controller's own parameter `name`.
    pub fn param(name: &str, message: impl Into<String>) -> Self {
        CcProblem { field: format!("cc.{name}"), message: message.into() }
    }
    /// A problem with the flow's TCP setting `name` under this controller.
    pub fn tcp(name: &str, message: impl Into<String>) -> Self {
        CcProblem { field: format!("tcp.{name}"), message: message.into() }
    }
}

/// Checks a finite number lies in [lo, hi] (inclusive flags say whether each end is allowed).
pub fn check_range(name: &str, v: f64, lo: f64, lo_incl: bool, hi: f64, hi_incl: bool) -> Result<(), CcProblem> {
    let above = if lo_incl { v >= lo } else { v > lo };
    let below = if hi_incl { v <= hi } else { v < hi };
    if v.is_finite() && above && below {
        return Ok(());
    }
    let (l, r) = (if lo_incl { "[" } else { "(" }, if hi_incl { "]" } else { ")" });
    Err(CcProblem::param(name, format!("expected a number in {l}{lo}, {hi}{r}, got {v}")))
}

/// The settings of a controller: checked before anything is built, so that constructors never
/// see values they cannot handle. This is the only trait a controller's config implements (the
/// registry dispatches to it); a controller without parameters writes
/// `impl CcSettings for XConfig {}` and takes the default (no check).
pub trait CcSettings {
    /// Checks ranges (`cc.<name>`) and that the flow's TCP settings suit the controller
    /// (`tcp.<name>`).
    fn validate(&self, _tcp: &TcpFacts) -> Result<(), CcProblem> {
        Ok(())
    }
    /// Whether the controller draws from its random stream (`set_rng`), so that the seed
    /// changes what it does (see [`crate::registry::Validate::draws_random`]).
    fn draws_random(&self) -> bool {
        false
    }
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation s3.3, as Linux's
/// `struct rate_sample`): how much was delivered over the interval that ended with this
/// acknowledgement, measured from the most recently sent packet it newly delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Time of the acknowledgement.
    pub now: SimTime,
    /// Bytes delivered over the interval (C.delivered - P.delivered).
    pub delivered_bytes: u64,
    /// Bytes this acknowledgement newly delivered, cumulatively or by SACK (Linux's
    /// `rs->acked_sacked`).
    pub newly_delivered_bytes: u64,
    /// The interval, max(send_elapsed, ack_elapsed), ps; 0 when it is shorter than the minimum
    /// RTT (Linux's `interval_us = -1`): then the sample carries no rate.
    pub interval_ps: SimTime,
    /// delivered_bytes * 8 / interval, bit/s; 0 when `interval_ps` is 0.
    pub delivery_rate_bps: f64,
    /// C.delivered when the packet was sent (P.delivered): a round trip ends when an ack's
    /// prior_delivered reaches the delivered count at the start of the round.
    pub prior_delivered_bytes: u64,
    /// Total bytes delivered on the connection after this acknowledgement (C.delivered).
    pub total_delivered_bytes: u64,
    /// The packet was sent while the sender was application-limited: the rate may understate
    /// the path's (draft s3.4).
    pub is_app_limited: bool,
    /// RTT measured by this acknowledgement, ps.
    pub rtt_ps: SimTime,
    /// Bytes in flight after this acknowledgement (RFC 6675 pipe when the receiver has SACKed
    /// data, as Linux's `tcp_packets_in_flight`).
    pub in_flight_bytes: u64,
    /// True while the sender is in loss recovery.
    pub in_recovery: bool,
    /// Bytes this acknowledgement made the sender deem lost (Linux `rs->losses`, counted in
    /// bytes; with SACK only: RFC 6675's boundary, `TcpSender::newly_lost_bytes`, or what RACK
    /// marks, `rack_on_ack`).
    pub newly_lost_bytes: u64,
}

/// The sender restarts its window after an idle period (`tcp.slow_start_after_idle`, RFC 5681
/// s4.1 as Linux's `tcp_cwnd_restart`; the rule is in `tcp/idle_restart.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IdleRestart {
    /// Time of the restart: the first data segment after the idle period is about to be sent.
    pub now: SimTime,
    /// Time since the last data segment was sent, ps (more than the RTO).
    pub idle_ps: SimTime,
    /// The window to take, bytes.
    pub cwnd_bytes: u64,
    /// The slow-start threshold to take, bytes.
    pub ssthresh_bytes: u64,
    /// Next byte to send (Linux's `snd_nxt`): where a controller's new round begins.
    pub snd_nxt: u64,
}

/// A window-based congestion controller. Hooks have no-op defaults where that is meaningful.
pub trait CongestionControl {
    /// Congestion window, bytes.
    fn cwnd_bytes(&self) -> u64;
    /// Slow-start threshold, bytes.
    fn ssthresh_bytes(&self) -> u64;
    /// New data was acknowledged outside a window reduction (loss recovery or an ECN reduction).
    fn on_ack(&mut self, ack: &AckSample);
    /// Loss detected by duplicate acknowledgements; sets the window recovery starts from.
    fn on_loss(&mut self, in_flight_bytes: u64, mss: u32, now: SimTime);
    /// The retransmission timer expired.
    fn on_timeout(&mut self, in_flight_bytes: u64, mss: u32, now: SimTime);
    /// The retransmission timer expired again before the segment it resent last time was
    /// acknowledged. RFC 5681 s3.1 holds ssthresh then ("not yet resent by way of the
    /// retransmission timer" is what lowers it); the window goes back to the loss window.
    /// Linux calls neither the controller's `ssthresh` nor its CA_EVENT_LOSS then, only its
    /// `set_state(TCP_CA_Loss)`. A RACK-TLP sender also calls this for a timeout inside a fast
    /// recovery or an ECN reduction, whose cut stands (Linux `tcp_enter_loss`). The ns-2
    /// controllers (AIMD, binomial) halve again here, as ns-2 does on every timeout.
    fn on_repeated_timeout(&mut self, mss: u32, now: SimTime);
    /// An ECN echo arrived (at most once per window, the sender filters). Default: as a loss.
    fn on_ecn(&mut self, in_flight_bytes: u64, mss: u32, now: SimTime) {
        self.on_loss(in_flight_bytes, mss, now)
    }
    /// An acknowledgement advanced snd_una while the window is being reduced (loss recovery or
    /// an ECN reduction, Linux's CA_Recovery and CA_CWR) or carries the ECN echo that starts a
    /// reduction: the controller may account for it (Linux's `in_ack_event` and `pkts_acked`
    /// run in every state) but must not grow the window (`cong_avoid` does not run then).
    /// Default: nothing.
    fn on_ack_in_reduction(&mut self, _ack: &AckSample) {}
    /// A window reduction ended: loss recovery (everything outstanding at the loss is
    /// acknowledged) or an ECN reduction (Linux's CA_EVENT_COMPLETE_CWR for both).
    fn on_recovery_exit(&mut self, _now: SimTime) {}
    /// True if an ECN echo reduces this controller's window, so that the sender holds the
    /// reduction as a state (no growth for a window; PRR). Default: true.
    fn answers_ecn(&self) -> bool {
        true
    }
    /// The sender restarts the window after an idle period: take `r.cwnd_bytes` and
    /// `r.ssthresh_bytes` (Linux sets `snd_cwnd` and `snd_ssthresh` itself), and reset what the
    /// controller tied to the old window or to time, as its Linux counterpart does on
    /// `CA_EVENT_CWND_RESTART` (and, for the restart's send, `CA_EVENT_TX_START`). No default: each
    /// controller says what an idle restart means to it. Called only with
    /// `tcp.slow_start_after_idle`, which validation refuses for "bbr" and "none".
    fn on_idle_restart(&mut self, r: &IdleRestart);
    /// The last window reduction proved spurious (`tcp.undo`; Linux `tcp_undo_cwnd_reduction`):
    /// restore what `u` holds, the window and ssthresh when the episode began. Linux sets cwnd
    /// to the module's `undo_cwnd` (for Reno, CUBIC, Vegas and Scalable `tcp_reno_undo_cwnd`:
    /// max(cwnd, prior_cwnd)) and raises ssthresh to prior_ssthresh if that is higher. No
    /// default: each controller says what an undo means to it. Called only for RACK-TLP senders,
    /// never after a reduction an ECN echo caused.
    fn on_undo(&mut self, u: &super::undo::UndoWindow);
    /// A data segment is about to leave with nothing in flight, `idle_ps` after the last one
    /// (Linux's `CA_EVENT_TX_START` from `tcp_event_data_sent`, idle time `now - lsndtime`).
    /// Called only when [`Self::wants_tx_start`] says so. Default: nothing.
    fn on_tx_start(&mut self, _now: SimTime, _idle_ps: SimTime) {}
    /// True if the controller uses [`Self::on_tx_start`]; only then does the sender note the
    /// time of every data segment. Default: false.
    fn wants_tx_start(&self) -> bool {
        false
    }
    /// A pacing rate, for rate-aware controllers; none means the sender's default (Linux's
    /// 2x or 1.2x cwnd/srtt when `tcp.pacing` is on, else line rate). A controller that gives
    /// one is always paced, whatever `tcp.pacing` says (Linux: such a controller sets
    /// `sk_pacing_status = SK_PACING_NEEDED`, and TCP then paces internally without fq).
    fn pacing_rate_bps(&self) -> Option<f64> {
        None
    }
    /// A delivery-rate sample, on every acknowledgement that delivers data (also during loss
    /// recovery), before `on_ack`; `interval_ps` 0 when it carries no rate. Default: ignored.
    fn on_rate_sample(&mut self, _rs: &RateSample) {}
    /// True if the controller uses [`Self::on_rate_sample`]; a sender whose controller says
    /// false skips delivery-rate estimation. Default: true (a new controller gets samples).
    fn wants_rate_samples(&self) -> bool {
        true
    }
    /// True if the controller sets the window during loss recovery itself (BBR's packet
    /// conservation, as Linux's `cong_control`); then the sender's recovery window (NewReno
    /// inflation, PRR) is not used. Default: false.
    fn sets_recovery_window(&self) -> bool {
        false
    }
    /// Gives the controller its random stream (seeded per flow from the scenario seed), once,
    /// before the flow starts. Default: ignored.
    fn set_rng(&mut self, _rng: crate::sim::rng::SimRng) {}
}

/// Facts a controller is built with.
#[derive(Clone, Copy, Debug)]
pub struct CcInit {
    /// Maximum segment size, bytes.
    pub mss: u32,
    /// Initial window, segments.
    pub init_cwnd_pkts: u32,
}

macro_rules! cc_dispatch {
    ($Any:ident, $($variant:ident),*) => {
        impl CongestionControl for $Any {
            #[inline] fn cwnd_bytes(&self) -> u64 { match self { $( $Any::$variant(c) => c.cwnd_bytes(), )* } }
            #[inline] fn ssthresh_bytes(&self) -> u64 { match self { $( $Any::$variant(c) => c.ssthresh_bytes(), )* } }
            #[inline] fn on_ack(&mut self, a: &AckSample) { match self { $( $Any::$variant(c) => c.on_ack(a), )* } }
            #[inline] fn on_loss(&mut self, f: u64, m: u32, n: SimTime) { match self { $( $Any::$variant(c) => c.on_loss(f, m, n), )* } }
            #[inline] fn on_timeout(&mut self, f: u64, m: u32, n: SimTime) { match self { $( $Any::$variant(c) => c.on_timeout(f, m, n), )* } }
            #[inline] fn on_repeated_timeout(&mut self, m: u32, n: SimTime) { match self { $( $Any::$variant(c) => c.on_repeated_timeout(m, n), )* } }
            #[inline] fn on_ecn(&mut self, f: u64, m: u32, n: SimTime) { match self { $( $Any::$variant(c) => c.on_ecn(f, m, n), )* } }
            #[inline] fn on_recovery_exit(&mut self, n: SimTime) { match self { $( $Any::$variant(c) => c.on_recovery_exit(n), )* } }
            #[inline] fn on_ack_in_reduction(&mut self, a: &AckSample) { match self { $( $Any::$variant(c) => c.on_ack_in_reduction(a), )* } }
            #[inline] fn answers_ecn(&self) -> bool { match self { $( $Any::$variant(c) => c.answers_ecn(), )* } }
            fn on_idle_restart(&mut self, r: &IdleRestart) { match self { $( $Any::$variant(c) => c.on_idle_restart(r), )* } }
            fn on_undo(&mut self, u: &super::undo::UndoWindow) { match self { $( $Any::$variant(c) => c.on_undo(u), )* } }
            fn on_tx_start(&mut self, n: SimTime, i: SimTime) { match self { $( $Any::$variant(c) => c.on_tx_start(n, i), )* } }
            #[inline] fn wants_tx_start(&self) -> bool { match self { $( $Any::$variant(c) => c.wants_tx_start(), )* } }
            #[inline] fn on_rate_sample(&mut self, rs: &RateSample) { match self { $( $Any::$variant(c) => c.on_rate_sample(rs), )* } }
            #[inline] fn pacing_rate_bps(&self) -> Option<f64> { match self { $( $Any::$variant(c) => c.pacing_rate_bps(), )* } }
            fn wants_rate_samples(&self) -> bool { match self { $( $Any::$variant(c) => c.wants_rate_samples(), )* } }
            #[inline] fn sets_recovery_window(&self) -> bool { match self { $( $Any::$variant(c) => c.sets_recovery_window(), )* } }
            fn set_rng(&mut self, r: crate::sim::rng::SimRng) { match self { $( $Any::$variant(c) => c.set_rng(r), )* } }
        }
        impl CcConfig {
            /// Checks the settings against the flow's TCP settings (see [`CcSettings`]).
            pub fn validate(&self, tcp: &TcpFacts) -> Result<(), CcProblem> {
                match self { $( CcConfig::$variant(c) => CcSettings::validate(c, tcp), )* }
            }
            /// Whether the controller, as configured, draws random numbers (its
            /// [`CcSettings::draws_random`]).
            pub fn draws_random(&self) -> bool {
                match self { $( CcConfig::$variant(c) => CcSettings::draws_random(c), )* }
            }
        }
    };
}

/// A controller built from its config: what [`Boxed`] calls. A boxed controller implements it in
/// its own file (in place of an inherent `new`), so its registry line is all the registry needs.
pub trait CcNew {
    /// The controller's config.
    type Config;
    /// Builds the controller.
    fn new(cfg: &Self::Config, init: CcInit) -> Self;
}

/// A controller kept on the heap. The controller enum is as large as its largest variant and
/// every TCP flow holds one, so controllers with more state than Reno's window are boxed: the
/// enum stays 32 bytes instead of CUBIC's 120 (one pointer step per call for those controllers).
#[derive(Clone, Debug)]
pub struct Boxed<T>(pub Box<T>);

impl<T: CcNew> Boxed<T> {
    /// Builds the controller on the heap.
    pub fn new(cfg: &T::Config, init: CcInit) -> Self {
        Boxed(Box::new(T::new(cfg, init)))
    }
}

impl<T> std::ops::Deref for Boxed<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: CongestionControl> CongestionControl for Boxed<T> {
    #[inline] fn cwnd_bytes(&self) -> u64 { self.0.cwnd_bytes() }
    #[inline] fn ssthresh_bytes(&self) -> u64 { self.0.ssthresh_bytes() }
    #[inline] fn on_ack(&mut self, a: &AckSample) { self.0.on_ack(a) }
    #[inline] fn on_loss(&mut self, f: u64, m: u32, n: SimTime) { self.0.on_loss(f, m, n) }
    #[inline] fn on_timeout(&mut self, f: u64, m: u32, n: SimTime) { self.0.on_timeout(f, m, n) }
    #[inline] fn on_repeated_timeout(&mut self, m: u32, n: SimTime) { self.0.on_repeated_timeout(m, n) }
    #[inline] fn on_ecn(&mut self, f: u64, m: u32, n: SimTime) { self.0.on_ecn(f, m, n) }
    #[inline] fn on_recovery_exit(&mut self, n: SimTime) { self.0.on_recovery_exit(n) }
    #[inline] fn on_ack_in_reduction(&mut self, a: &AckSample) { self.0.on_ack_in_reduction(a) }
    #[inline] fn answers_ecn(&self) -> bool { self.0.answers_ecn() }
    fn on_idle_restart(&mut self, r: &IdleRestart) { self.0.on_idle_restart(r) }
    fn on_undo(&mut self, u: &super::undo::UndoWindow) { self.0.on_undo(u) }
    fn on_tx_start(&mut self, n: SimTime, i: SimTime) { self.0.on_tx_start(n, i) }
    #[inline] fn wants_tx_start(&self) -> bool { self.0.wants_tx_start() }
    #[inline] fn pacing_rate_bps(&self) -> Option<f64> { self.0.pacing_rate_bps() }
    #[inline] fn on_rate_sample(&mut self, rs: &RateSample) { self.0.on_rate_sample(rs) }
    fn wants_rate_samples(&self) -> bool { self.0.wants_rate_samples() }
    #[inline] fn sets_recovery_window(&self) -> bool { self.0.sets_recovery_window() }
    fn set_rng(&mut self, r: crate::sim::rng::SimRng) { self.0.set_rng(r) }
}

crate::algorithm_registry! {
    /// A congestion controller as written in a scenario: a name (`cc = "newreno"`) or a table
    /// with `kind` and parameters.
    config CcConfig;
    /// A built controller.
    #[derive(Debug, Clone)]
    runtime AnyCc;
    /// Names accepted for `cc`.
    kinds CC_KINDS;
    init CcInit;
    dispatch cc_dispatch;
    validated_by_dispatch;

    "newreno" => NewReno(newreno::NewReno, newreno::NewRenoConfig),
    "reno" => Reno(reno::Reno, reno::RenoConfig),
    "none" => NoCc(none::NoCc, none::NoneConfig),
    "cubic" => Cubic(Boxed<cubic::Cubic>, cubic::CubicConfig),
    "dctcp" => Dctcp(Boxed<dctcp::Dctcp>, dctcp::DctcpConfig),
    "vegas" => Vegas(Boxed<vegas::Vegas>, vegas::VegasConfig),
    "aimd" => Aimd(Boxed<aimd::Aimd>, aimd::AimdConfig),
    "binomial" => Binomial(Boxed<binomial::Binomial>, binomial::BinomialConfig),
    "scalable" => Scalable(Boxed<scalable::Scalable>, scalable::ScalableConfig),
    "bbr" => Bbr(bbr::Bbr, bbr::BbrConfig),
}


impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::NewReno(newreno::NewRenoConfig::default())
    }
}

/// Scaffolding shared by the controllers' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::AckSample;

    /// An acknowledgement of `bytes` new bytes at time 0, 1000-byte segments, nothing else set.
    pub fn ack(bytes: u64) -> AckSample {
        AckSample { bytes_acked: bytes, mss: 1000, ..Default::default() }
    }
}

#[cfg(test)]
mod repeated_timeout_tests {
    use super::*;

    /// Every registered controller after a timeout from a 40-segment flight and then a repeated
    /// one: (ssthresh after the first, ssthresh after the repeat, cwnd after the repeat).
    fn after_two_timeouts(kind: &str) -> (u64, u64, u64) {
        let cfg: CcConfig = serde_json::from_value(serde_json::json!(kind)).expect("a bare name is a config");
        let mut cc = AnyCc::build(&cfg, CcInit { mss: 1000, init_cwnd_pkts: 40 });
        cc.on_timeout(40_000, 1000, 0);
        let first = cc.ssthresh_bytes();
        cc.on_repeated_timeout(1000, 1);
        (first, cc.ssthresh_bytes(), cc.cwnd_bytes())
    }

    #[test]
    fn an_undo_gives_every_window_controller_its_window_and_ssthresh_back() {
        // Linux `tcp_undo_cwnd_reduction`: cwnd = max(cwnd, prior_cwnd), ssthresh raised to
        // prior_ssthresh. A 40-segment initial window (ssthresh unbounded), a loss, then the
        // undo of that loss.
        for kind in CC_KINDS {
            let cfg: CcConfig = serde_json::from_value(serde_json::json!(kind)).expect("a bare name is a config");
            let mut cc = AnyCc::build(&cfg, CcInit { mss: 1000, init_cwnd_pkts: 40 });
            let (cwnd, ssthresh) = (cc.cwnd_bytes(), cc.ssthresh_bytes());
            cc.on_loss(40_000, 1000, 0);
            let (cut_cwnd, cut_ssthresh) = (cc.cwnd_bytes(), cc.ssthresh_bytes());
            cc.on_undo(&crate::transport::tcp::undo::UndoWindow { now: 1, prior_cwnd_bytes: cwnd, prior_ssthresh_bytes: ssthresh });
            match *kind {
                // No window; BBR's window is its own (`bbr_undo_cwnd` returns it unchanged).
                "none" => {}
                "bbr" => assert_eq!(cc.cwnd_bytes(), cut_cwnd, "{kind}"),
                _ => {
                    assert!(cut_cwnd < cwnd && cut_ssthresh < ssthresh, "{kind}: the loss cut nothing");
                    assert_eq!((cc.cwnd_bytes(), cc.ssthresh_bytes()), (cwnd, ssthresh), "{kind}");
                }
            }
        }
    }

    #[test]
    fn an_undone_timeout_gives_bbr_the_window_it_saved() {
        // Linux: `tcp_try_undo_loss` returns to CA_Open, and `bbr_set_cwnd_to_recover_or_restore`
        // restores the window saved at the timeout.
        let cfg: CcConfig = serde_json::from_value(serde_json::json!("bbr")).expect("a bare name is a config");
        let mut cc = AnyCc::build(&cfg, CcInit { mss: 1000, init_cwnd_pkts: 40 });
        let before = cc.cwnd_bytes();
        cc.on_timeout(40_000, 1000, 0);
        assert_eq!(cc.cwnd_bytes(), 1000, "one packet after the timeout");
        cc.on_undo(&crate::transport::tcp::undo::UndoWindow { now: 1, prior_cwnd_bytes: before, prior_ssthresh_bytes: 1 });
        assert_eq!(cc.cwnd_bytes(), before);
    }

    #[test]
    fn a_repeated_timeout_holds_ssthresh_except_under_ns2s_rule() {
        for kind in CC_KINDS {
            let (first, repeat, cwnd) = after_two_timeouts(kind);
            match *kind {
                // ns-2's TcpAgent::timeout: the repeat halves the one-segment window, floored
                // at 2 segments.
                "aimd" | "binomial" => assert_eq!((repeat, cwnd), (2000, 1000), "{kind}"),
                // No window, and BBR's window is its own (one packet after a timeout).
                "none" => {}
                "bbr" => assert_eq!(cwnd, 1000, "{kind}"),
                // RFC 5681 s3.1, Linux tcp_enter_loss: held, the loss window again.
                _ => {
                    assert!(first > 2000, "{kind}: the first timeout left {first}");
                    assert_eq!((repeat, cwnd), (first, 1000), "{kind}");
                }
            }
        }
    }
}
