//! WebTraf: HTTP-like traffic in the style of ns-2's WebTraf (`tcl/ex/web-traffic.tcl`), the
//! workload of seed 003 s4.B.3. `sessions` sessions each pick a server (from `src`) and a client
//! (from `dst`) and fetch `pages_per_session` pages; consecutive pages are an exponential think
//! time apart (mean `inter_page_mean`, ns-2 example 1 s); each page has `objects_per_page`
//! objects (ns-2 example 1) an exponential gap apart (mean `inter_object_mean`, 0.01 s), the
//! first at the page's time; each object is one transfer from the server to the client, its size
//! drawn from `object_size` (ns-2: ParetoII, mean 10 packets, shape 1.2). The request from the
//! client is not modelled: an object's transfer starts at its time. See
//! `docs/traffic/arrivals.md` for the choices ns-2 leaves to its script (session start times).

use super::{check_rate_per_s, gap, pick, size_at, ArrivalProcess, ProcessInit, Transfer, TransferSize, TransferSizeConfig};
use crate::registry::{FieldError, Validate};
use crate::scenario::units::Duration;
use crate::sim::{rng, SimRng, SimTime, PS_PER_MS, PS_PER_S};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

fn one() -> u32 {
    1
}
fn one_second() -> Duration {
    Duration(PS_PER_S)
}
fn ten_ms() -> Duration {
    Duration(10 * PS_PER_MS)
}
fn ns2_object_size() -> TransferSizeConfig {
    TransferSizeConfig::ParetoIi { mean_bytes: None, mean_pkts: Some(10.0), shape: 1.2 }
}

/// Parameters of `kind = "webtraf"`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebTrafConfig {
    /// Number of sessions.
    pub sessions: u32,
    /// Pages each session fetches.
    pub pages_per_session: u32,
    /// Objects per page (ns-2 example: 1).
    #[serde(default = "one")]
    pub objects_per_page: u32,
    /// Earliest session start.
    #[serde(default)]
    pub start: Duration,
    /// Sessions start uniformly in [start, start + session_spread) (default 1 s, one mean think
    /// time: ns-2 leaves start times to the script; spreading them keeps sessions out of lock step).
    #[serde(default = "one_second")]
    pub session_spread: Duration,
    /// Mean think time between the pages of a session, exponential (ns-2 example: 1 s).
    #[serde(default = "one_second")]
    pub inter_page_mean: Duration,
    /// Mean gap between the objects of a page, exponential (ns-2 example: 0.01 s).
    #[serde(default = "ten_ms")]
    pub inter_object_mean: Duration,
    /// Object size (default: ns-2's ParetoII with mean 10 packets and shape 1.2).
    #[serde(default = "ns2_object_size")]
    pub object_size: TransferSizeConfig,
}

impl Validate for WebTrafConfig {
    fn validate(&self) -> Result<(), FieldError> {
        crate::registry::check_int("sessions", self.sessions, 1, 1_000_000)?;
        crate::registry::check_int("pages_per_session", self.pages_per_session, 1, 1_000_000_000)?;
        crate::registry::check_int("objects_per_page", self.objects_per_page, 1, 1_000_000)?;
        for (d, field) in [(self.inter_page_mean, "inter_page_mean"), (self.inter_object_mean, "inter_object_mean")] {
            if d.0 == 0 {
                return Err(FieldError::new(field, "expected a positive mean"));
            }
            check_rate_per_s(field, PS_PER_S as f64 / d.0 as f64)?;
        }
        // With one object per page the next object is the next page's first: the gap drawn
        // after an object is never used. The default passes (the resolved scenario writes it).
        if self.objects_per_page == 1 && self.inter_object_mean != ten_ms() {
            return Err(FieldError::new("inter_object_mean", "has no effect with objects_per_page = 1 (a page's only object starts with the page): expected objects_per_page above 1, or no inter_object_mean"));
        }
        size_at("object_size", &self.object_size)
    }
    /// Session starts, page and object gaps and sizes are drawn.
    fn draws_random(&self) -> bool {
        true
    }
}

/// One session's progress.
#[derive(Clone, Copy, Debug)]
struct Session {
    server: u32,
    client: u32,
    pages_left: u32,
    objects_left: u32,
    next_object_at: SimTime,
    next_page_at: SimTime,
}

impl Session {
    /// Time of its next event: an object of the current page, else the next page.
    fn next_at(&self) -> Option<SimTime> {
        if self.objects_left > 0 {
            Some(self.next_object_at)
        } else if self.pages_left > 0 {
            Some(self.next_page_at)
        } else {
            None
        }
    }
}

/// The running process: sessions ordered by their next event (ties by session index).
#[derive(Clone, Debug)]
pub struct WebTraf {
    c: WebTrafConfig,
    size: TransferSize,
    init: ProcessInit,
    sessions: Vec<Session>,
    due: BinaryHeap<Reverse<(SimTime, u32)>>,
    started: bool,
}

impl WebTraf {
    /// Builds the process (validated config).
    pub fn new(c: &WebTrafConfig, init: ProcessInit) -> Self {
        WebTraf { c: *c, size: c.object_size.build(init.packet_bytes).expect("validated size"), init, sessions: Vec::new(), due: BinaryHeap::new(), started: false }
    }

    fn start_sessions(&mut self, r: &mut SimRng) {
        for k in 0..self.c.sessions {
            let at = self.c.start.0.saturating_add((rng::uniform(r) * self.c.session_spread.0 as f64) as SimTime);
            let s = Session { server: pick(r, self.init.n_src), client: pick(r, self.init.n_dst), pages_left: self.c.pages_per_session, objects_left: 0, next_object_at: 0, next_page_at: at };
            self.sessions.push(s);
            self.due.push(Reverse((at, k)));
        }
        self.started = true;
    }
}

impl ArrivalProcess for WebTraf {
    fn next_transfer(&mut self, r: &mut SimRng) -> Option<Transfer> {
        if !self.started {
            self.start_sessions(r);
        }
        loop {
            let Reverse((t, k)) = self.due.pop()?;
            let (page_gap, object_gap) = (self.c.inter_page_mean.0 as f64, self.c.inter_object_mean.0 as f64);
            let s = &mut self.sessions[k as usize];
            let mut object = None;
            if s.objects_left == 0 {
                // A page starts at t (its think time ended, or the previous page's last object
                // went out after it); the next page is one think time after this one.
                s.pages_left -= 1;
                s.objects_left = self.c.objects_per_page;
                s.next_object_at = t;
                s.next_page_at = t.saturating_add(gap(rng::exponential(r, page_gap)));
            }
            if s.next_object_at == t {
                s.objects_left -= 1;
                object = Some((s.server, s.client));
                s.next_object_at = t.saturating_add(gap(rng::exponential(r, object_gap)));
                if s.objects_left == 0 && s.pages_left > 0 {
                    s.next_page_at = s.next_page_at.max(t);
                }
            }
            if let Some(next) = s.next_at() {
                self.due.push(Reverse((next, k)));
            }
            if let Some((src, dst)) = object {
                return Some(Transfer { at: t, size_bytes: self.size.sample(r), src, dst });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::ProcessConfig;
    use super::*;

    fn config(sessions: u32, pages: u32, objects: u32) -> WebTrafConfig {
        WebTrafConfig {
            sessions,
            pages_per_session: pages,
            objects_per_page: objects,
            start: Duration(0),
            session_spread: one_second(),
            inter_page_mean: one_second(),
            inter_object_mean: ten_ms(),
            object_size: ns2_object_size(),
        }
    }

    #[test]
    fn webtraf_yields_every_object_of_every_page_of_every_session_in_time_order() {
        let ts = drain(ProcessConfig::WebTraf(config(20, 30, 3)), 3, 5, 11);
        assert_eq!(ts.len(), 20 * 30 * 3);
        assert!(ts.windows(2).all(|w| w[0].at <= w[1].at));
        // Each session keeps one server and one client: 90 objects per (server, client) session.
        let mut pairs = std::collections::BTreeMap::new();
        for t in &ts {
            *pairs.entry((t.src, t.dst)).or_insert(0u32) += 1;
        }
        assert!(pairs.values().all(|&n| n % 90 == 0), "{pairs:?}");
    }

    #[test]
    fn webtraf_object_sizes_follow_ns2s_pareto_ii_and_pages_come_one_think_time_apart() {
        // One object per page: the gaps between a session's objects are its think times.
        let ts = drain(ProcessConfig::WebTraf(config(1, 20_000, 1)), 1, 1, 12);
        let gaps = gaps_s(ts[0].at, &ts[1..]);
        assert_mean_within_ci(&gaps, 1.0, 1.0, "think time");
        let d = ks_statistic(&gaps, |x| 1.0 - (-x).exp());
        assert!(d * (gaps.len() as f64).sqrt() < 1.63, "KS D = {d}");
        // Sizes in whole packets of 1000 B; P(N > n) = (1 + n / 2)^-1.2 for integer n.
        let n = ts.len() as f64;
        for k in [1u64, 5, 50] {
            let p = (1.0 + k as f64 / 2.0).powf(-1.2);
            let got = ts.iter().filter(|t| t.size_bytes > k * 1000).count() as f64 / n;
            assert!((got - p).abs() < 3.0 * (p * (1.0 - p) / n).sqrt() + 1e-6, "P(N > {k}) = {got}, expected {p}");
        }
    }

    #[test]
    fn objects_of_a_page_are_one_inter_object_gap_apart() {
        let ts = drain(ProcessConfig::WebTraf(config(1, 1, 10_000)), 1, 1, 13);
        let gaps = gaps_s(ts[0].at, &ts[1..]);
        assert_mean_within_ci(&gaps, 0.01, 0.01, "object gap");
    }
}
