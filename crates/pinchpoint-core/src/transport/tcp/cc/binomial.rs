//! Binomial congestion control (Bansal & Balakrishnan, "Binomial Congestion Control
//! Algorithms", INFOCOM 2001, s2): with the window w in segments, congestion avoidance adds
//! a / w^k segments per round trip and a loss takes w to w - b w^l. k = 0, l = 1 is AIMD; the
//! algorithms with k + l = 1 are TCP-compatible (s3), among them IIAD (k = 1, l = 0) and SQRT
//! (k = l = 1/2). In ns-2 this is `windowOption_ 6` with `k_parameter_`, `l_parameter_`,
//! `increase_num_ = a` and `decrease_num_ = 1 - b`. The default a = 3b/2 and the
//! differences from ns-2 are explained in `docs/algorithms/binomial.md`.

use super::aimd::{FractionalControl, FractionalWindow};
use super::{CcInit, CcNew, CcProblem, CcSettings, TcpFacts};
use serde::{Deserialize, Serialize};

/// Binomial parameters; the defaults are SQRT(1/2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BinomialConfig {
    /// Increase exponent: a / w^k segments per RTT. IIAD 1, SQRT 0.5 (default), TCP 0.
    pub k: f64,
    /// Decrease exponent: w - b w^l segments after a loss. IIAD 0, SQRT 0.5 (default), TCP 1.
    pub l: f64,
    /// Increase constant, segments^(1+k) per RTT. Default (absent): 3b/2, which makes any
    /// k + l = 1 algorithm's throughput sqrt(3/(2p)) segments per RTT at loss rate p, TCP's.
    pub a: Option<f64>,
    /// Decrease constant (the seed's "SQRT(1/2)" is b = 1/2), 0 < b <= 1. Default 1/2.
    pub b: f64,
}

impl Default for BinomialConfig {
    fn default() -> Self {
        BinomialConfig { k: 0.5, l: 0.5, a: None, b: 0.5 }
    }
}

impl BinomialConfig {
    /// The increase constant in use.
    pub fn increase(&self) -> f64 {
        // Binomial s3 (deterministic loss every 1/p packets, window large against b w^l): a
        // cycle lasts b w^(k+l) / a RTTs and carries b w^(k+l+1) / a = 1/p packets, so for
        // k + l = 1 the rate is sqrt(a / (b p)); TCP's is sqrt(3 / (2p)), hence a = 3b/2.
        self.a.unwrap_or(1.5 * self.b)
    }
}

impl CcSettings for BinomialConfig {
    fn validate(&self, _tcp: &TcpFacts) -> Result<(), CcProblem> {
        // Binomial s3 proves convergence to fairness for k, l >= 0 with k + l > 0; k + l != 1 is
        // allowed (it is not TCP-compatible, but the paper studies such algorithms too).
        super::check_range("k", self.k, 0.0, true, 4.0, true)?;
        super::check_range("l", self.l, 0.0, true, 1.0, true)?;
        if self.k + self.l <= 0.0 {
            return Err(CcProblem::param("l", "expected k + l > 0 (k = l = 0 never converges to fairness)"));
        }
        super::check_range("b", self.b, 0.0, false, 1.0, true)?;
        if let Some(a) = self.a {
            super::check_range("a", a, 0.0, false, 1000.0, true)?;
        }
        Ok(())
    }
}

/// Binomial(k, l).
#[derive(Clone, Debug)]
pub struct Binomial {
    w: FractionalWindow,
    k: f64,
    l: f64,
    a: f64,
    b: f64,
}

impl CcNew for Binomial {
    type Config = BinomialConfig;
    /// Builds a binomial controller (settings validated).
    fn new(cfg: &BinomialConfig, init: CcInit) -> Self {
        Binomial { w: FractionalWindow::new(init), k: cfg.k, l: cfg.l, a: cfg.increase(), b: cfg.b }
    }
}

impl FractionalControl for Binomial {
    fn window(&self) -> &FractionalWindow {
        &self.w
    }
    fn window_mut(&mut self) -> &mut FractionalWindow {
        &mut self.w
    }
    /// Binomial s2: a / w^k segments per window of acknowledged bytes (ns-2 adds
    /// increase_num_ / (cwnd * cwnd^k) per acknowledged segment).
    fn increase_per_rtt_pkts(&self, w_pkts: f64) -> f64 {
        self.a / crate::sim::math::pow(w_pkts, self.k)
    }
    /// w - b w^l segments, at least two (the floor of RFC 5681 eq. 4), in bytes.
    fn decreased(&self, mss: u32) -> f64 {
        let w = self.w.cwnd / mss as f64;
        ((w - self.b * crate::sim::math::pow(w, self.l)).max(2.0)) * mss as f64
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::ack;
    use super::super::CongestionControl;
    use super::*;

    fn binomial(k: f64, l: f64, b: f64, cwnd_pkts: u32) -> Binomial {
        let mut c = Binomial::new(&BinomialConfig { k, l, a: None, b }, CcInit { mss: 1000, init_cwnd_pkts: cwnd_pkts });
        c.w.ssthresh = c.w.cwnd;
        c.w.rule.on_loss(0.0, 0.0, 0.0, 0.0); // spend the first decrease
        c
    }

    #[test]
    fn iiad_adds_a_over_w_segments_per_window_and_removes_b_segments() {
        // IIAD(1/2): a = 0.75. w = 10: one 1000 B ack adds 0.75 / 10 * 1000 * 1000 / 10000 = 7.5 B.
        let mut c = binomial(1.0, 0.0, 0.5, 10);
        c.on_ack(&ack(1000));
        assert_eq!(c.w.cwnd, 10_007.5);
        let mut c = binomial(1.0, 0.0, 0.5, 10);
        c.on_loss(0, 1000, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (9500, 9500));
    }

    #[test]
    fn sqrt_adds_a_over_root_w_and_removes_b_root_w() {
        // SQRT(1/2): a = 0.75. w = 16: one ack adds 0.75 / 4 * 1000 * 1000 / 16000 = 11.71875 B;
        // a loss removes 0.5 * 4 = 2 segments.
        let mut c = binomial(0.5, 0.5, 0.5, 16);
        c.on_ack(&ack(1000));
        assert_eq!(c.w.cwnd, 16_011.718_75);
        let mut c = binomial(0.5, 0.5, 0.5, 16);
        c.on_loss(0, 1000, 0);
        assert_eq!(c.cwnd_bytes(), 14_000);
        c.on_timeout(0, 1000, 0);
        // w = 14: 14 - 0.5 sqrt(14) = 12.1292...
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (1000, 12_129));
    }

    #[test]
    fn k_zero_l_one_is_aimd() {
        use super::super::aimd::{Aimd, AimdConfig};
        let init = CcInit { mss: 1000, init_cwnd_pkts: 2 };
        let mut bi = Binomial::new(&BinomialConfig { k: 0.0, l: 1.0, a: Some(0.3125), b: 0.125 }, init);
        let mut ai = Aimd::new(&AimdConfig { a: None, b: 0.125 }, init);
        for i in 0..300u64 {
            if i % 70 == 69 {
                bi.on_loss(0, 1000, 0);
                ai.on_loss(0, 1000, 0);
            } else {
                bi.on_ack(&ack(1000));
                ai.on_ack(&ack(1000));
            }
            assert!((bi.w.cwnd - ai.w.cwnd).abs() < 1e-6, "step {i}: {} vs {}", bi.w.cwnd, ai.w.cwnd);
        }
    }

    #[test]
    fn the_window_never_falls_below_two_segments() {
        let mut c = binomial(0.5, 0.5, 1.0, 2);
        c.on_loss(0, 1000, 0);
        assert_eq!(c.cwnd_bytes(), 2000);
    }

    #[test]
    fn out_of_range_parameters_are_refused_and_incompatible_pairs_allowed() {
        let tcp = TcpFacts { ecn: false, mss: 1000, slow_start_after_idle: false, init_cwnd_pkts: 10, pacing: false, prr: None };
        let d = BinomialConfig::default();
        assert_eq!(BinomialConfig { k: -0.1, ..d }.validate(&tcp).unwrap_err().field, "cc.k");
        assert_eq!(BinomialConfig { l: 1.5, ..d }.validate(&tcp).unwrap_err().field, "cc.l");
        assert_eq!(BinomialConfig { k: 0.0, l: 0.0, ..d }.validate(&tcp).unwrap_err().field, "cc.l");
        assert_eq!(BinomialConfig { b: 0.0, ..d }.validate(&tcp).unwrap_err().field, "cc.b");
        assert_eq!(BinomialConfig { a: Some(-1.0), ..d }.validate(&tcp).unwrap_err().field, "cc.a");
        assert!(BinomialConfig { b: 1.0, ..d }.validate(&tcp).is_ok());
        assert!(BinomialConfig { k: 1.0, l: 1.0, ..d }.validate(&tcp).is_ok(), "k + l = 2 is allowed");
    }

    #[test]
    fn the_first_decrease_halves_as_in_ns2_then_b_w_to_the_l() {
        let mut c = Binomial::new(&BinomialConfig { k: 1.0, l: 0.0, a: None, b: 0.5 }, CcInit { mss: 1000, init_cwnd_pkts: 40 });
        c.on_loss(0, 1000, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (20_000, 20_000));
        c.on_loss(0, 1000, 0);
        assert_eq!((c.cwnd_bytes(), c.ssthresh_bytes()), (19_500, 19_500));
    }
}
