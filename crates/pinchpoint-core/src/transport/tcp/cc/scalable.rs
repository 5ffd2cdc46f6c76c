//! Scalable TCP (T. Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area
//! Networks", ACM SIGCOMM CCR 33(2), 2003) as Linux runs it (`net/ipv4/tcp_scalable.c`): slow
//! start as Reno; in congestion avoidance one segment per `min(cwnd, 100)` acknowledged
//! segments, so a window above 100 segments grows by 1% per round trip (Kelly's a = 0.01) and a
//! smaller one by one segment per round trip (Reno's rule: Kelly's "legacy" region); a loss
//! leaves `cwnd - cwnd/8` segments (Kelly's b = 0.125, Linux `cwnd - (cwnd >> 3)`, at least two).
//! Both decreases and increases are proportional to the window, so the time to recover from a
//! loss does not depend on the window. Equations, parameters and the differences from Linux and
//! ns-3 are in `docs/algorithms/scalable.md`.

use super::reno::RenoWindow;
use super::{check_range, AckSample, CcInit, CcNew, CcProblem, CcSettings, CongestionControl, TcpFacts};
use crate::sim::SimTime;
use serde::{Deserialize, Serialize};

/// Scalable TCP parameters; the defaults are Linux's constants.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ScalableConfig {
    /// Segments acknowledged per one-segment increase once the window is larger (below it the
    /// window grows one segment per window, as Reno). Default 100: Linux `TCP_SCALABLE_AI_CNT`,
    /// Kelly's a = 1/100. (Linux 3.x used 50 and counted acknowledgements, not segments, to
    /// allow for delayed ACKs.)
    pub ai_count_pkts: u32,
    /// Fraction of the window kept after a loss, 0 < beta < 1. Default 0.875: Kelly's b = 1/8,
    /// Linux `TCP_SCALABLE_MD_SCALE` = 3.
    pub beta: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig { ai_count_pkts: 100, beta: 0.875 }
    }
}

impl CcSettings for ScalableConfig {
    fn validate(&self, _tcp: &TcpFacts) -> Result<(), CcProblem> {
        // Above 10^6 segments the controller would never leave Reno's region.
        if !(1..=1_000_000).contains(&self.ai_count_pkts) {
            return Err(CcProblem::param("ai_count_pkts", format!("expected an integer from 1 to 1000000, got {}", self.ai_count_pkts)));
        }
        check_range("beta", self.beta, 0.0, false, 1.0, false)
    }
}

/// Scalable TCP.
#[derive(Clone, Debug)]
pub struct Scalable {
    w: RenoWindow,
    ai_count_pkts: u64,
    beta: f64,
}

impl CcNew for Scalable {
    type Config = ScalableConfig;
    /// Builds Scalable TCP (settings validated).
    fn new(cfg: &ScalableConfig, init: CcInit) -> Self {
        Scalable { w: RenoWindow::new(init), ai_count_pkts: cfg.ai_count_pkts as u64, beta: cfg.beta }
    }
}

impl Scalable {
    /// `tcp_scalable_ssthresh`: the window in whole segments less (1 - beta) of it rounded down
    /// (`cwnd >> 3` for beta = 7/8, exactly), at least two segments, in bytes.
    fn ssthresh_after_loss(&self, mss: u32) -> u64 {
        let cwnd_pkts = self.w.cwnd / mss as u64;
        let cut_pkts = (cwnd_pkts as f64 * (1.0 - self.beta)).floor() as u64;
        (cwnd_pkts - cut_pkts).max(2) * mss as u64
    }
}

impl CongestionControl for Scalable {
    fn cwnd_bytes(&self) -> u64 {
        self.w.cwnd
    }
    fn ssthresh_bytes(&self) -> u64 {
        self.w.ssthresh
    }
    fn on_ack(&mut self, ack: &AckSample) {
        let left = self.w.slow_start(ack.bytes_acked, ack.mss);
        // tcp_scalable_cong_avoid: tcp_cong_avoid_ai(tp, min(cwnd, AI_CNT), acked), in bytes.
        self.w.avoid(left, ack.mss, self.ai_count_pkts * ack.mss as u64);
    }
    fn on_loss(&mut self, _in_flight: u64, mss: u32, _now: SimTime) {
        // Linux computes ssthresh from cwnd (not the flight size) and recovery ends at it.
        let s = self.ssthresh_after_loss(mss);
        self.w.reduce(s, s);
    }
    fn on_timeout(&mut self, _in_flight: u64, mss: u32, _now: SimTime) {
        // tcp_enter_loss: ssthresh from the same rule, one segment, slow start.
        let s = self.ssthresh_after_loss(mss);
        self.w.reduce(s, mss as u64);
    }
    /// tcp_enter_loss on a repeated timeout: ssthresh held, one segment.
    fn on_repeated_timeout(&mut self, mss: u32, _now: SimTime) {
        self.w.collapse_again(mss);
    }
    /// Linux's `tcp_scalable` has no `cwnd_event`: the window is all there is.
    fn on_idle_restart(&mut self, r: &super::IdleRestart) {
        self.w.restart_after_idle(r);
    }
    /// Linux's `tcp_scalable` undoes as Reno (`tcp_reno_undo_cwnd`).
    fn on_undo(&mut self, u: &super::super::undo::UndoWindow) {
        self.w.undo(u);
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::{Reno, RenoConfig};
    use super::super::testing::ack;
    use super::*;

    /// Scalable TCP with a window of `cwnd_pkts` 1000-byte segments, in congestion avoidance.
    fn scalable(cwnd_pkts: u32) -> Scalable {
        let mut c = Scalable::new(&ScalableConfig::default(), CcInit { mss: 1000, init_cwnd_pkts: cwnd_pkts });
        c.w.ssthresh = c.w.cwnd;
        c
    }

    #[test]
    fn above_one_hundred_segments_the_window_grows_one_segment_per_hundred_acknowledged() {
        let mut c = scalable(200);
        for _ in 0..99 {
            c.on_ack(&ack(1000));
        }
        assert_eq!(c.cwnd_bytes(), 200_000);
        c.on_ack(&ack(1000));
        assert_eq!(c.cwnd_bytes(), 201_000);
        for _ in 0..100 {
            c.on_ack(&ack(1000));
        }
        // One window of 200 segments acknowledged: +2 segments, 1% (Kelly's a = 0.01).
        assert_eq!(c.cwnd_bytes(), 202_000);
        // A delayed ACK covering two segments counts both (tcp_cong_avoid_ai counts segments).
        let mut d = scalable(200);
        for _ in 0..50 {
            d.on_ack(&ack(2000));
        }
        assert_eq!(d.cwnd_bytes(), 201_000);
    }

    #[test]
    fn below_one_hundred_segments_the_window_grows_exactly_as_reno() {
        let init = CcInit { mss: 1000, init_cwnd_pkts: 2 };
        let (mut s, mut r) = (Scalable::new(&ScalableConfig::default(), init), Reno::new(&RenoConfig {}, init));
        let mut trace = Vec::new();
        for i in 0..400 {
            if i == 40 {
                // Both leave slow start at 30 segments (Reno halves the flight size, set to 2x).
                s.w.reduce(30_000, 30_000);
                r.on_loss(60_000, 1000, 0);
            } else {
                s.on_ack(&ack(1000));
                r.on_ack(&ack(1000));
            }
            assert_eq!(s.cwnd_bytes(), r.cwnd_bytes(), "step {i}");
            trace.push(s.cwnd_bytes() / 1000);
        }
        // Slow start 2 -> 42 segments in 40 acks, then 30 + one per window: 30, 31 after 30
        // acks, 32 after 31 more, ... 40 after 30 + 31 + ... + 39 = 345 acks.
        assert_eq!(trace[39], 42);
        assert_eq!((trace[40], trace[69], trace[70], trace[100], trace[101]), (30, 30, 31, 31, 32));
        assert_eq!((trace[384], trace[385]), (39, 40));
    }

    #[test]
    fn slow_start_hands_the_rest_of_an_acknowledgement_to_congestion_avoidance() {
        let mut c = Scalable::new(&ScalableConfig::default(), CcInit { mss: 1000, init_cwnd_pkts: 150 });
        c.w.ssthresh = 150_500;
        c.on_ack(&ack(2000)); // 500 B to slow start, 1500 B toward the next segment
        assert_eq!(c.cwnd_bytes(), 150_500);
        for _ in 0..98 {
            c.on_ack(&ack(1000));
        }
        assert_eq!(c.cwnd_bytes(), 150_500, "99 500 B of the 100 000 counted");
        c.on_ack(&ack(1000));
        assert_eq!(c.cwnd_bytes(), 151_500);
    }

    #[test]
    fn a_loss_keeps_seven_eighths_of_the_window_in_whole_segments() {
        let mut c = scalable(200);
        c.on_loss(0, 1000, 0); // the flight size does not matter, the window does
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (175_000, 175_000));
        c.on_ecn(0, 1000, 0); // 175 - 21
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (154_000, 154_000));
        // Linux's cwnd >> 3 is zero below 8 segments: the window does not shrink at all.
        let mut s = scalable(7);
        s.on_loss(7000, 1000, 0);
        assert_eq!(s.cwnd_bytes(), 7000);
        let mut f = scalable(2);
        f.on_loss(2000, 1000, 0);
        assert_eq!(f.cwnd_bytes(), 2000);
    }

    #[test]
    fn a_timeout_restarts_from_one_segment_with_ssthresh_at_seven_eighths() {
        let mut c = scalable(160);
        c.on_timeout(160_000, 1000, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (1000, 140_000));
        c.on_ack(&ack(1000));
        assert_eq!(c.cwnd_bytes(), 2000, "slow start again");
    }

    #[test]
    fn other_parameters_change_the_increase_count_and_the_decrease() {
        let cfg = ScalableConfig { ai_count_pkts: 50, beta: 0.5 };
        let mut c = Scalable::new(&cfg, CcInit { mss: 1000, init_cwnd_pkts: 100 });
        c.w.ssthresh = c.w.cwnd;
        for _ in 0..50 {
            c.on_ack(&ack(1000));
        }
        assert_eq!(c.cwnd_bytes(), 101_000);
        c.on_loss(0, 1000, 0);
        assert_eq!(c.cwnd_bytes(), 51_000, "101 - floor(50.5)");
    }

    #[test]
    fn out_of_range_parameters_are_refused_with_their_field() {
        let tcp = TcpFacts { ecn: false, mss: 1000, slow_start_after_idle: false, init_cwnd_pkts: 10, pacing: false, prr: None };
        let d = ScalableConfig::default();
        assert!(d.validate(&tcp).is_ok());
        assert_eq!(ScalableConfig { ai_count_pkts: 0, ..d }.validate(&tcp).unwrap_err().field, "cc.ai_count_pkts");
        assert_eq!(ScalableConfig { beta: 1.0, ..d }.validate(&tcp).unwrap_err().field, "cc.beta");
        assert_eq!(ScalableConfig { beta: 0.0, ..d }.validate(&tcp).unwrap_err().field, "cc.beta");
        assert!(ScalableConfig { beta: f64::NAN, ..d }.validate(&tcp).is_err());
    }

    /// Mean window, segments, of one flow with controller `cc` alone on a 1 Gbit/s path of
    /// 20 ms RTT whose bottleneck loses each packet with probability `p` (the queue never
    /// fills after slow start: every loss is random), from goodput over `[warmup_s, duration_s]`.
    fn window_under_random_loss(cc: &str, p: f64, duration_s: f64, warmup_s: f64) -> f64 {
        let text = format!(
            "[simulation]\nduration = \"{duration_s}s\"\nseed = 3\n[metrics]\nseries_interval = \"1s\"\n\
             [[nodes]]\nname = \"s\"\n[[nodes]]\nname = \"r1\"\nkind = \"router\"\n[[nodes]]\nname = \"r2\"\nkind = \"router\"\n[[nodes]]\nname = \"d\"\n\
             [[links]]\na = \"s\"\nb = \"r1\"\nrate = \"10Gbps\"\ndelay = \"1ms\"\n\
             [[links]]\na = \"r1\"\nb = \"r2\"\nrate = \"1Gbps\"\ndelay = \"8ms\"\nqueue = {{ kind = \"droptail\", limit_pkts = 20000 }}\n\
             loss = {{ kind = \"bernoulli\", p = {p} }}\n\
             [[links]]\na = \"r2\"\nb = \"d\"\nrate = \"10Gbps\"\ndelay = \"1ms\"\n\
             [[flows]]\nname = \"f\"\nsrc = \"s\"\ndst = \"d\"\nworkload = {{ kind = \"bulk\" }}\ncc = {cc}\ntcp = {{ mss = 1000 }}\n"
        );
        let mut sim = crate::load_toml(&text, "scalable.toml", None).unwrap_or_else(|e| panic!("{e}"));
        sim.run();
        let r = sim.results();
        let (t, d) = (r.flow_series.f64s("t_s"), r.flow_series.u64s("delivered_bytes"));
        let at = |x: f64| d[t.iter().position(|&ti| ti >= x - 1e-9).expect("a sample")] as f64;
        let rate_bytes_per_s = (at(duration_s) - at(warmup_s)) / (duration_s - warmup_s);
        // Window = rate x RTT: 20 ms, the queue stays empty (the windows measured need at most
        // half the link).
        rate_bytes_per_s * 0.020 / 1000.0
    }

    #[test]
    fn under_random_loss_the_window_scales_as_one_over_p_where_newreno_scales_as_one_over_root_p() {
        // Kelly 2003: per acknowledged segment the window gains a = 0.01 segments, per loss it
        // loses b = 1/8 of itself; where they balance, (1 - p) a = p b w, so w = 0.08 (1 - p) / p
        // segments: 800 at p = 1e-4, 200 at p = 4e-4 (both above the 100-segment legacy region).
        // NewReno's window goes as sqrt(3 / 2p) (Mathis et al. 1997): 122 and 61.
        let (p1, p4) = (1e-4, 4e-4);
        let s1 = window_under_random_loss("\"scalable\"", p1, 25.0, 5.0);
        let s4 = window_under_random_loss("\"scalable\"", p4, 25.0, 5.0);
        let r1 = window_under_random_loss("\"newreno\"", p1, 60.0, 5.0);
        let r4 = window_under_random_loss("\"newreno\"", p4, 60.0, 5.0);
        let (model1, model4) = (0.08 * (1.0 - p1) / p1, 0.08 * (1.0 - p4) / p4);
        // Exponents of p: log(w(p) / w(4p)) / log 4.
        let (e_scalable, e_newreno) = ((s1 / s4).ln() / 4f64.ln(), (r1 / r4).ln() / 4f64.ln());
        eprintln!("scalable w {s1:.0} {s4:.0} (model {model1:.0} {model4:.0}), exponent {e_scalable:.3}; newreno w {r1:.0} {r4:.0}, exponent {e_newreno:.3}");
        // Measured (seed 3): 739 and 194 segments, exponent 0.97; NewReno 139 and 74, 0.46.
        assert!((0.9..=1.1).contains(&e_scalable), "Scalable TCP: w ~ p^-{e_scalable:.3}, expected p^-1");
        assert!((0.4..=0.6).contains(&e_newreno), "NewReno: w ~ p^-{e_newreno:.3}, expected p^-1/2");
        // The model leaves out the round trip of each fast recovery, in which the window does
        // not grow: one in 1/(p w) = 12.5 round trips at the balance point, so it overstates the
        // window by up to 8%. Allow that, plus 10% either way for sampling (about 80 losses at
        // p = 1e-4 over 20 s).
        for (w, model) in [(s1, model1), (s4, model4)] {
            assert!(w > 0.82 * model && w < 1.1 * model, "Scalable TCP window {w:.0} segments, model {model:.0}");
        }
    }
}
