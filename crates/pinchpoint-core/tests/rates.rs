//! Interval rates (`metrics.rate_interval`): the `flow_rates` table and the `rate_cov` column.

mod common;

use common::run;

/// One UDP flow over a 10 Mbit/s link, 5 ms one way, recording 100 ms rates.
fn one_flow(workload: &str, duration: &str, start: &str) -> String {
    format!(
        "[simulation]\nduration = \"{duration}\"\n[metrics]\nrate_interval = \"100ms\"\n\
         [[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
         [[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
         [[flows]]\nname = \"u\"\nsrc = \"a\"\ndst = \"b\"\nstart = \"{start}\"\ntransport = \"udp\"\nworkload = {workload}\n"
    )
}

#[test]
fn a_cbr_flow_has_a_constant_interval_rate_equal_to_its_rate_and_a_cov_of_zero() {
    // 1 Mbit/s of 1250-byte packets: one every 10 ms, exactly 10 per 100 ms interval.
    let r = run(&one_flow("{ kind = \"cbr\", rate = \"1Mbps\", packet_size = \"1250B\" }", "10s", "3ms"));
    let rates = r.flow_rates.f64s("rate_bps");
    let starts = r.flow_rates.f64s("interval_start_s");
    // Intervals from [0, 0.1) (the flow starts in it) to [9.9, 10): 100 rows.
    assert_eq!(rates.len(), 100);
    assert!((starts[1] - 0.1).abs() < 1e-12);
    let delivered = r.flows.u64s("delivered_bytes")[0] as f64;
    let payload_bps = delivered * 8.0 / 10.0;
    // Every whole interval after the first carries the same bytes: the flow's rate.
    for &x in &rates[1..] {
        assert!((x - payload_bps).abs() / payload_bps < 0.02, "{x} vs {payload_bps}");
        assert_eq!(x, rates[1]);
    }
    assert_eq!(r.flows.f64s("rate_cov")[0], 0.0);
    // Bytes in the table add up to what was delivered.
    let total: u64 = r.flow_rates.u64s("bytes").iter().sum();
    assert_eq!(total as f64, delivered);
}

#[test]
fn a_square_wave_on_a_quarter_of_the_time_has_the_analytic_cov_sqrt_3() {
    // On 0.5 s of every 2 s: five 100 ms intervals at rate R, fifteen at 0. Mean R/4, standard
    // deviation R sqrt(1/4 * 3/4), so CoV = sqrt((1 - d) / d) = sqrt(3) for duty d = 1/4. The
    // flow starts at 0, so every interval of the 20 s counts (packets arrive 6 ms after sending,
    // inside the interval they were sent in).
    let r = run(&one_flow("{ kind = \"square_wave\", rate = \"1Mbps\", packet_size = \"1250B\", period = \"2s\", duty = 0.25 }", "20s", "0ms"));
    let cov = r.flows.f64s("rate_cov")[0];
    eprintln!("square wave CoV {cov}");
    assert!((cov - 3f64.sqrt()).abs() < 0.01, "CoV {cov}");
}

#[test]
fn a_flow_is_measured_over_its_active_span_only() {
    // Starts at 2.05 s: no rows before the interval it starts in, and the partial first interval
    // stays out of the CoV (which is then exactly 0 for CBR).
    let r = run(&one_flow("{ kind = \"cbr\", rate = \"1Mbps\", packet_size = \"1250B\" }", "5s", "2053ms"));
    let starts = r.flow_rates.f64s("interval_start_s");
    assert!((starts[0] - 2.0).abs() < 1e-12, "{}", starts[0]);
    assert_eq!(r.flows.f64s("rate_cov")[0], 0.0);
}

#[test]
fn without_rate_interval_there_is_no_interval_table_and_no_cov_column() {
    let text = one_flow("{ kind = \"cbr\", rate = \"1Mbps\", packet_size = \"1250B\" }", "1s", "0ms").replace("[metrics]\nrate_interval = \"100ms\"\n", "");
    let r = run(&text);
    assert_eq!(r.flow_rates.rows(), 0);
    assert!(r.flows.get("rate_cov").is_none());
}

#[test]
fn recording_interval_rates_changes_nothing_else_in_the_results() {
    let with = one_flow("{ kind = \"poisson\", rate = \"3Mbps\", packet_size = \"800B\" }", "3s", "0ms");
    let without = with.replace("rate_interval = \"100ms\"\n", "series_interval = \"100ms\"\n");
    let both = with.replace("rate_interval = \"100ms\"\n", "rate_interval = \"30ms\"\nseries_interval = \"100ms\"\n");
    let (a, b, c) = (run(&with), run(&without), run(&both));
    assert_eq!(a.flows.u64s("delivered_bytes"), b.flows.u64s("delivered_bytes"));
    assert_eq!(a.flows.f64s("delay_mean_s"), b.flows.f64s("delay_mean_s"));
    // The series sampled alongside 30 ms rate intervals are the same samples.
    assert_eq!(b.flow_series.f64s("t_s"), c.flow_series.f64s("t_s"));
    assert_eq!(b.flow_series.u64s("delivered_bytes"), c.flow_series.u64s("delivered_bytes"));
    assert_eq!(c.flow_rates.rows(), 100);
}
