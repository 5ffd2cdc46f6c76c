//! Small statistics accumulators: moments, a log-bucketed histogram for percentiles, and a
//! time-weighted tracker for queue occupancy.

use crate::sim::SimTime;

/// Count, mean, standard deviation, min and max of a stream of values (Welford's update, so the
/// variance stays accurate over long runs).
#[derive(Clone, Copy, Debug)]
pub struct Moments {
    /// Number of values.
    pub count: u64,
    mean: f64,
    m2: f64,
    /// Smallest value (+inf when empty).
    pub min: f64,
    /// Largest value (-inf when empty).
    pub max: f64,
}

impl Default for Moments {
    fn default() -> Self {
        Moments { count: 0, mean: 0.0, m2: 0.0, min: f64::INFINITY, max: f64::NEG_INFINITY }
    }
}

impl Moments {
    /// Adds one value.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.count += 1;
        let d = x - self.mean;
        self.mean += d / u63_to_f64(self.count);
        self.m2 += d * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }
    /// Mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        if self.count == 0 { f64::NAN } else { self.mean }
    }
    /// Population standard deviation (NaN when empty).
    pub fn std(&self) -> f64 {
        if self.count == 0 { f64::NAN } else { (self.m2 / self.count as f64).sqrt() }
    }
    /// Minimum or NaN.
    pub fn min_or_nan(&self) -> f64 {
        if self.count == 0 { f64::NAN } else { self.min }
    }
    /// Maximum or NaN.
    pub fn max_or_nan(&self) -> f64 {
        if self.count == 0 { f64::NAN } else { self.max }
    }
}

/// Sub-bucket bits: values below 2^SUB_BITS are exact, larger ones fall in buckets 1/64 wide
/// relative to their value (under 1.6% error).
const SUB_BITS: u32 = 7;
const HALF: u64 = 1 << (SUB_BITS - 1);

/// A histogram over u64 values with logarithmic buckets and positive u64 weights.
///
/// Two layouts, chosen by the buckets in use, answering exactly the same (every bucket's weight is
/// an exact integer sum, whatever the layout):
/// - dense: one word per bucket over the range from the lowest to the highest bucket used, while
///   that range stays within [`DENSE_SPAN`] buckets or more than [`SPARSE_MAX`] buckets are used;
/// - sparse: up to [`SPARSE_MAX`] (bucket, weight) pairs in a small open-addressed table, in
///   the same vector, for few buckets far apart. A queue's byte occupancy is the case: a first window of
///   ten segments puts 0, 1,500, ..., 13,500 bytes in an access port's queue, ten buckets spread
///   over 554, which densely is 4.4 KB zeroed per port (issue 13: the largest cost of a hop at
///   100,000 flows) and sparsely 128 bytes.
/// The table shares the dense layout's vector, and the struct stays 40 bytes: an `Occupancy` box
/// (two trackers) is three cache lines, written whole when a port's queue first holds a packet.
#[derive(Clone, Debug, Default)]
pub struct LogHistogram {
    /// The dense range's first bucket, or [`SPARSE`].
    first: usize,
    /// Dense: one weight per bucket from `first`. Sparse: [`SPARSE_SLOTS`] words, each
    /// `bucket << WEIGHT_BITS | weight` or [`EMPTY_PAIR`] (open addressing, linear probing).
    counts: Vec<u64>,
    /// Pairs in use in the sparse table.
    sparse_len: usize,
}

/// `first` in the sparse layout: so far above any bucket that the dense fast path's index
/// (`bucket - first`, wrapping) is past the table's end and falls through to the probe.
const SPARSE: usize = 1 << 62;

/// The widest dense range kept for few buckets (words); beyond it, up to [`SPARSE_MAX`] buckets
/// are kept sparse. Packet counts (exact buckets below 128) and delays of one path stay dense.
const DENSE_SPAN: usize = 32;
/// Words reserved when a histogram first turns dense.
const DENSE_FIRST_CAPACITY: usize = 16;
/// Slots of the sparse table; a power of two for the probe's mask.
const SPARSE_SLOTS: usize = 16;
/// The most buckets kept sparse (three quarters of the slots keep probes short); one more turns
/// the histogram dense.
const SPARSE_MAX: usize = 12;
/// A sparse pair holds its weight in the low 52 bits and its bucket (below 3,776) above them.
const WEIGHT_BITS: u32 = 52;
/// An unused slot: bucket 4,095, which no value maps to.
const EMPTY_PAIR: u64 = u64::MAX;

/// `v as f64` for a value known to be below 2^63 (a count, a queue's bytes, a span of
/// picoseconds shorter than 106 days): through i64, one instruction on x86-64 where an
/// unsigned conversion takes about six. Both give the same f64 below 2^63.
#[inline(always)]
pub fn u63_to_f64(v: u64) -> f64 {
    debug_assert!(v < 1 << 63);
    v as i64 as f64
}

#[inline]
fn bucket_of(v: u64) -> usize {
    if v < (1 << SUB_BITS) {
        v as usize
    } else {
        let msb = 63 - v.leading_zeros();
        let e = msb - (SUB_BITS - 1);
        let m = v >> e; // in [HALF, 2*HALF)
        (e as u64 * HALF + m) as usize
    }
}

#[inline]
fn bucket_range(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < (1 << SUB_BITS) {
        (i, i)
    } else {
        let e = i / HALF - 1;
        let m = i - e * HALF;
        // The top bucket ends at u64::MAX: its (m + 1) << e is 2^64, which wraps to 0.
        (m << e, ((m + 1) << e).wrapping_sub(1))
    }
}

/// The sparse table's first slot for bucket `b` (Fibonacci hashing: buckets of multiples of a
/// packet size are spread over the slots).
#[inline(always)]
fn sparse_home(b: usize) -> usize {
    ((b as u32).wrapping_mul(0x9E37_79B9) >> (32 - SPARSE_SLOTS.trailing_zeros())) as usize
}

/// The slot of the sparse table (linear probing from [`sparse_home`]) that holds bucket `b`, or
/// the empty slot where it would go; `None` if the table is full without it.
#[inline(always)]
fn sparse_slot(table: &[u64], b: usize) -> Option<usize> {
    let mut i = sparse_home(b);
    for _ in 0..SPARSE_SLOTS {
        let pair = table[i];
        if pair == EMPTY_PAIR || (pair >> WEIGHT_BITS) as usize == b {
            return Some(i);
        }
        i = (i + 1) & (SPARSE_SLOTS - 1);
    }
    None
}

impl LogHistogram {
    /// Adds `weight` (positive) at `value`.
    #[inline]
    pub fn add(&mut self, value: u64, weight: u64) {
        debug_assert!(weight > 0);
        let b = bucket_of(value);
        // Fast path: the bucket is already covered.
        if let Some(c) = self.counts.get_mut(b.wrapping_sub(self.first)) {
            *c += weight;
            return;
        }
        self.add_not_dense(b, weight);
    }

    /// [`Self::add`] when the dense range does not hold `b`: the sparse table's probe, or a
    /// change of layout. Marked cold, though sparse histograms come here on every add, so that the
    /// dense fast path inlined into the ports' per-packet code keeps its layout (callgrind: about 8
    /// instructions per hop more at N = 1,000 without it).
    #[cold]
    #[inline(never)]
    fn add_not_dense(&mut self, b: usize, weight: u64) {
        if self.first == SPARSE {
            let table = &mut self.counts[..SPARSE_SLOTS];
            if let Some(i) = sparse_slot(table, b) {
                let pair = table[i];
                if pair != EMPTY_PAIR {
                    // The sum stays in the low bits unless it reaches 2^52 (about 75 minutes
                    // of picoseconds in one bucket); `weight` is below 2^63, so a wrapped sum
                    // ends below 2^63 with other high bits and is caught too.
                    let sum = pair.wrapping_add(weight);
                    if (sum >> WEIGHT_BITS) as usize == b {
                        table[i] = sum;
                        return;
                    }
                } else if self.sparse_len < SPARSE_MAX && weight >> WEIGHT_BITS == 0 {
                    table[i] = (b as u64) << WEIGHT_BITS | weight;
                    self.sparse_len += 1;
                    return;
                }
            }
            // The table is full or the bucket's weight outgrew a pair: dense from now on (more
            // than SPARSE_MAX buckets, or a weight of 2^52, never turn sparse again).
            self.sparse_to_dense();
            self.add_dense(b, weight);
            return;
        }
        self.add_slow(b, weight);
    }

    /// Moves the sparse pairs into the dense layout (the table is full, or a bucket's weight
    /// outgrew a pair).
    #[cold]
    fn sparse_to_dense(&mut self) {
        let pairs = self.sparse_pairs();
        let (lo, hi) = (pairs[0].0, pairs[pairs.len() - 1].0);
        self.first = lo;
        self.counts = vec![0; hi - lo + 1];
        for (b, w) in pairs {
            self.counts[b - lo] = w;
        }
        self.sparse_len = 0;
    }

    /// The sparse pairs as (bucket, weight), by bucket.
    fn sparse_pairs(&self) -> Vec<(usize, u64)> {
        let mut pairs: Vec<(usize, u64)> = self
            .counts
            .iter()
            .filter(|&&p| p != EMPTY_PAIR)
            .map(|&p| ((p >> WEIGHT_BITS) as usize, p & ((1 << WEIGHT_BITS) - 1)))
            .collect();
        pairs.sort_unstable();
        pairs
    }

    /// Adds at a bucket outside the dense range (the sparse table is empty): grows the range, or
    /// moves to the sparse layout when the range would outgrow [`DENSE_SPAN`] for few buckets.
    #[cold]
    fn add_slow(&mut self, b: usize, weight: u64) {
        // Only a range about to outgrow DENSE_SPAN may turn sparse: one already wider holds more
        // than SPARSE_MAX buckets or a weight too large for a pair, and stays dense.
        if !self.counts.is_empty() && self.counts.len() <= DENSE_SPAN {
            let (lo, hi) = (self.first.min(b), (self.first + self.counts.len() - 1).max(b));
            let used = self.counts.iter().filter(|&&c| c > 0).count();
            let fits_pairs = self.counts.iter().all(|&c| c >> WEIGHT_BITS == 0) && weight >> WEIGHT_BITS == 0;
            if hi - lo + 1 > DENSE_SPAN && used < SPARSE_MAX && fits_pairs {
                self.dense_to_sparse();
                self.add_not_dense(b, weight);
                return;
            }
        }
        self.add_dense(b, weight);
    }

    /// Adds in the dense layout, growing its range to hold `b`.
    fn add_dense(&mut self, b: usize, weight: u64) {
        if self.counts.is_empty() {
            // Room for a small range at once: a queue's packet counts or one path's delays grow
            // their range a bucket at a time, which from one word took five reallocations, each
            // freeing a small block that glibc's malloc later walks when a large block is asked
            // for (issue 13: `malloc_consolidate` at N = 100,000).
            self.first = b;
            self.counts = Vec::with_capacity(DENSE_FIRST_CAPACITY);
            self.counts.push(0);
        } else if b < self.first {
            self.counts.splice(0..0, std::iter::repeat_n(0, self.first - b));
            self.first = b;
        } else if b >= self.first + self.counts.len() {
            self.counts.resize(b - self.first + 1, 0);
        }
        self.counts[b - self.first] += weight;
    }

    /// Moves the dense buckets with weight into the sparse table (few buckets, about to spread).
    #[cold]
    fn dense_to_sparse(&mut self) {
        // At most DENSE_SPAN words, fewer than SPARSE_MAX of them used (see `add_slow`).
        let mut dense = [0u64; DENSE_SPAN];
        let n = self.counts.len();
        dense[..n].copy_from_slice(&self.counts);
        // The table reuses the dense vector's block (16 words reserved at its first bucket).
        self.counts.clear();
        self.counts.resize(SPARSE_SLOTS, EMPTY_PAIR);
        let first = self.first;
        for (b, w) in dense[..n].iter().enumerate().filter(|(_, &w)| w > 0).map(|(k, &w)| (first + k, w)) {
            let i = sparse_slot(&self.counts, b).expect("fewer than SPARSE_MAX buckets fit the table");
            self.counts[i] = (b as u64) << WEIGHT_BITS | w;
            self.sparse_len += 1;
        }
        self.first = SPARSE;
    }

    /// The buckets with weight, lowest first, as (bucket, weight).
    fn buckets(&self) -> Vec<(usize, u64)> {
        if self.first == SPARSE {
            self.sparse_pairs()
        } else {
            let first = self.first;
            self.counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(k, &c)| (first + k, c)).collect()
        }
    }

    /// Total weight.
    pub fn total(&self) -> u128 {
        self.buckets().iter().map(|&(_, c)| c as u128).sum()
    }

    /// The value below which a fraction `q` of the weight lies (bucket midpoint; exact below 128,
    /// above it within half a bucket, 1/128 of the value). Callers that know the extremes clamp
    /// to them: the midpoint of the top bucket may exceed the largest value added.
    pub fn quantile(&self, q: f64) -> f64 {
        let buckets = self.buckets();
        let total: u128 = buckets.iter().map(|&(_, c)| c as u128).sum();
        if total == 0 {
            return f64::NAN;
        }
        let target = (q * total as f64).ceil().max(1.0) as u128;
        let mut acc: u128 = 0;
        for &(b, c) in &buckets {
            acc += c as u128;
            if acc >= target {
                let (lo, hi) = bucket_range(b);
                return (lo as f64 + hi as f64) / 2.0;
            }
        }
        // `q * total` rounded above the total (totals beyond 2^53): the highest bucket, which
        // the dense range ends at since every weight added is positive.
        let (lo, hi) = bucket_range(buckets[buckets.len() - 1].0);
        (lo as f64 + hi as f64) / 2.0
    }

    /// The lowest bucket's lower bound, if any weight was added.
    pub fn min_value(&self) -> Option<u64> {
        self.buckets().first().map(|&(b, _)| bucket_range(b).0)
    }
}

/// Time-weighted statistics of a piecewise-constant quantity (a queue length): mean, std, min,
/// max and percentiles over time.
#[derive(Clone, Debug, Default)]
pub struct TimeWeighted {
    last_change: SimTime,
    current: u64,
    start: SimTime,
    integral: f64,
    integral_sq: f64,
    /// Smallest value held.
    pub min: u64,
    /// Largest value held.
    pub max: u64,
    hist: LogHistogram,
}

impl TimeWeighted {
    /// Starts tracking at `t0` with value 0.
    pub fn new(t0: SimTime) -> Self {
        TimeWeighted { last_change: t0, start: t0, ..Default::default() }
    }

    /// The value changes to `v` at `now`.
    #[inline]
    pub fn set(&mut self, now: SimTime, v: u64) {
        if v == self.current {
            return;
        }
        self.close(now);
        self.current = v;
        if v > self.max {
            self.max = v;
        }
    }

    /// Two trackers that change at the same instants (a queue's packets and bytes): the same
    /// as `a.set(now, va); b.set(now, vb)`, with the elapsed time found and converted once when
    /// both values change and both last changed at the same instant (the usual case). Each
    /// tracker's sums take the same operations in the same order as with `set`.
    /// Inlined into the ports' per-packet path (a call cost about 15 instructions of register
    /// saves per queue change under callgrind); the uncommon cases are out of line.
    #[inline(always)]
    pub fn set_pair(a: &mut TimeWeighted, b: &mut TimeWeighted, now: SimTime, va: u64, vb: u64) {
        if va == a.current || vb == b.current || a.last_change != b.last_change {
            Self::set_each(a, b, now, va, vb);
            return;
        }
        let dt = now - a.last_change;
        if dt > 0 {
            let w = u63_to_f64(dt);
            a.accumulate(dt, w);
            b.accumulate(dt, w);
            a.last_change = now;
            b.last_change = now;
        }
        for (t, v) in [(a, va), (b, vb)] {
            t.current = v;
            if v > t.max {
                t.max = v;
            }
        }
    }

    /// [`Self::set_pair`] when a value is unchanged or the two last changed apart.
    #[inline(never)]
    fn set_each(a: &mut TimeWeighted, b: &mut TimeWeighted, now: SimTime, va: u64, vb: u64) {
        a.set(now, va);
        b.set(now, vb);
    }

    #[inline]
    fn close(&mut self, now: SimTime) {
        let dt = now - self.last_change;
        if dt > 0 {
            self.accumulate(dt, u63_to_f64(dt));
            self.last_change = now;
        }
    }

    /// Adds the current value held for `dt` (`w`: `dt` as f64) to the sums.
    #[inline(always)]
    fn accumulate(&mut self, dt: SimTime, w: f64) {
        let x = u63_to_f64(self.current);
        self.integral += x * w;
        self.integral_sq += x * x * w;
        self.hist.add(self.current, dt);
    }

    /// Current value.
    pub fn current(&self) -> u64 {
        self.current
    }

    /// Summary up to `now`: (mean, std, min, max, p99).
    pub fn summary(&self, now: SimTime) -> (f64, f64, f64, f64, f64) {
        let mut c = self.clone();
        c.close(now);
        let span = (now - c.start) as f64;
        if span <= 0.0 {
            return (c.current as f64, 0.0, c.current as f64, c.current as f64, c.current as f64);
        }
        let mean = c.integral / span;
        let var = (c.integral_sq / span - mean * mean).max(0.0);
        // The minimum over time: zero if the value ever sat at zero for a positive time.
        let min = c.min_held();
        // A bucket's midpoint may lie beyond the extremes held (the top bucket holding only the
        // maximum): a p99 above the max it summarises is wrong, whatever the bucket's width.
        let p99 = c.hist.quantile(0.99).min(c.max as f64).max(min);
        (mean, var.sqrt(), min, c.max as f64, p99)
    }

    fn min_held(&self) -> f64 {
        // The lowest bucket that has weight.
        self.hist.min_value().map_or(self.current as f64, |v| v as f64)
    }}

/// Jain's fairness index of a set of allocations: (sum x)^2 / (n * sum x^2); 1 is perfectly fair.
pub fn jain_index(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        return f64::NAN;
    }
    s * s / (xs.len() as f64 * s2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `set_pair` is a shortcut for two `set` calls: every sum, extreme and histogram
        /// weight comes out bit for bit the same, whether the two values change together, one
        /// at a time, or at the same instant more than once.
        #[test]
        fn setting_a_pair_gives_the_same_trackers_as_setting_each(steps in proptest::collection::vec((0u64..3, 0u64..4, 0u64..5), 1..60)) {
            let (mut a1, mut b1) = (TimeWeighted::new(0), TimeWeighted::new(0));
            let (mut a2, mut b2) = (TimeWeighted::new(0), TimeWeighted::new(0));
            let mut now = 0;
            for (dt, va, vb) in steps {
                now += dt * 1_000_003;
                a1.set(now, va);
                b1.set(now, vb * 1500);
                TimeWeighted::set_pair(&mut a2, &mut b2, now, va, vb * 1500);
            }
            for (x, y) in [(&a1, &a2), (&b1, &b2)] {
                prop_assert_eq!((x.last_change, x.current, x.min, x.max), (y.last_change, y.current, y.min, y.max));
                prop_assert_eq!((x.integral.to_bits(), x.integral_sq.to_bits()), (y.integral.to_bits(), y.integral_sq.to_bits()));
                prop_assert_eq!(x.hist.buckets(), y.hist.buckets());
                let (sx, sy) = (x.summary(now + 7), y.summary(now + 7));
                prop_assert_eq!(format!("{sx:?}"), format!("{sy:?}"));
            }
        }
    }

    #[test]
    fn moments_match_direct_formulas() {
        let mut m = Moments::default();
        for x in [1.0, 2.0, 3.0, 4.0] {
            m.add(x);
        }
        assert_eq!(m.mean(), 2.5);
        assert!((m.std() - 1.118_033_988_7).abs() < 1e-9);
        assert_eq!((m.min, m.max), (1.0, 4.0));
    }

    proptest::proptest! {
        /// Whatever layouts it passes through (dense, sparse, back to dense when full or when a
        /// bucket's weight passes 2^52), the histogram holds every bucket's exact sum and answers
        /// as a plain map of buckets does.
        #[test]
        fn histogram_layouts_answer_as_a_map_of_buckets(
            adds in proptest::collection::vec(
                (proptest::prop_oneof![0u64..20, (0u64..16).prop_map(|k| k * 1500), 0u64..5_000_000, proptest::num::u64::ANY.prop_map(|v| v >> 1)],
                 proptest::prop_oneof![1u64..1_000_000_000, (1u64 << 50)..(1u64 << 53)]),
                1..120)
        ) {
            let mut h = LogHistogram::default();
            let mut reference = std::collections::BTreeMap::<usize, u128>::new();
            for (v, w) in adds {
                h.add(v, w);
                *reference.entry(bucket_of(v)).or_default() += w as u128;
                let got: Vec<(usize, u128)> = h.buckets().into_iter().map(|(b, w)| (b, w as u128)).collect();
                let want: Vec<(usize, u128)> = reference.iter().map(|(&b, &w)| (b, w)).collect();
                proptest::prop_assert_eq!(got, want);
            }
            let total: u128 = reference.values().sum();
            proptest::prop_assert_eq!(h.total(), total);
            proptest::prop_assert_eq!(h.min_value(), reference.keys().next().map(|&b| bucket_range(b).0));
            for q in [0.0, 0.1, 0.5, 0.9, 0.99, 1.0] {
                let target = (q * total as f64).ceil().max(1.0) as u128;
                let mut acc = 0u128;
                let b = reference.iter().find(|(_, &w)| { acc += w; acc >= target }).map_or(*reference.keys().last().unwrap(), |(&b, _)| b);
                let (lo, hi) = bucket_range(b);
                proptest::prop_assert_eq!(h.quantile(q).to_bits(), ((lo as f64 + hi as f64) / 2.0).to_bits());
            }
        }
    }

    #[test]
    fn a_queues_byte_occupancy_over_a_first_window_stays_sparse() {
        // 0, 1,500, ..., 13,500 bytes: ten buckets over a range of 554.
        let mut h = LogHistogram::default();
        for k in 0..10u64 {
            h.add(k * 1500, 1_000 + k);
        }
        assert_eq!((h.first, h.sparse_len), (SPARSE, 10));
        assert_eq!(h.buckets().len(), 10);
        // Packet counts stay dense.
        let mut p = LogHistogram::default();
        for k in 0..10u64 {
            p.add(k, 1);
        }
        assert_eq!((p.first, p.sparse_len, p.counts.len()), (0, 0, 10));
    }

    #[test]
    fn histogram_is_exact_for_small_values() {
        let mut h = LogHistogram::default();
        for v in 0..100 {
            h.add(v, 1);
        }
        assert_eq!(h.quantile(0.99), 98.0);
        assert_eq!(h.quantile(0.5), 49.0);
    }

    proptest! {
        #[test]
        fn bucket_ranges_contain_their_values(v in any::<u64>()) {
            let (lo, hi) = bucket_range(bucket_of(v));
            prop_assert!(lo <= v && v <= hi);
            prop_assert!((hi - lo) as f64 <= (v as f64) / 60.0 + 1.0);
        }

        #[test]
        fn quantile_is_within_two_percent(vals in proptest::collection::vec(1u64..10_000_000, 1..300)) {
            let mut h = LogHistogram::default();
            for v in &vals { h.add(*v, 1); }
            let mut s = vals.clone();
            s.sort();
            let k = ((0.99 * s.len() as f64).ceil() as usize).max(1) - 1;
            let exact = s[k] as f64;
            prop_assert!((h.quantile(0.99) - exact).abs() <= exact * 0.02 + 1.0);
        }
    }

    #[test]
    fn time_weighted_mean_and_p99() {
        let mut t = TimeWeighted::new(0);
        t.set(0, 10); // 10 for 90 s
        t.set(90, 20); // 20 for 10 s
        let (mean, _std, min, max, p99) = t.summary(100);
        assert!((mean - 11.0).abs() < 1e-12);
        assert_eq!((min, max, p99), (10.0, 20.0, 20.0));
    }

    #[test]
    fn time_weighted_p99_stays_inside_the_extremes_held() {
        // A full 50-packet queue of 1500 B: 75,000 lies in the bucket [73,728, 77,824), whose
        // midpoint (75,776) once came out as a p99 above the maximum.
        let mut t = TimeWeighted::new(0);
        t.set(0, 1500);
        t.set(10, 75_000);
        let (_mean, _std, min, max, p99) = t.summary(1000);
        // The minimum held is its bucket's lower bound (within 1/64 below the value).
        assert!(max == 75_000.0 && min <= 1500.0 && min >= 1500.0 * (1.0 - 1.0 / 64.0), "{min} {max}");
        assert_eq!(p99, 75_000.0);
        // Within half a bucket of the value otherwise (here 74,000 against its bucket's midpoint).
        let mut u = TimeWeighted::new(0);
        u.set(0, 74_000);
        u.set(1000, 80_000);
        let p99 = u.summary(1001).4;
        assert!(p99 <= 80_000.0 && (p99 - 74_000.0).abs() <= 74_000.0 / 128.0, "{p99}");
    }

    #[test]
    fn jain_is_one_for_equal_and_1_over_n_for_one_hog() {
        assert!((jain_index(&[3.0, 3.0, 3.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }
}
