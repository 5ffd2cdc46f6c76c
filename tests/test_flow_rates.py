"""Interval rates (metrics.rate_interval) and the TCP handshake columns through the Python API:
the Results accessor, writing and reading, and the DuckDB store."""

import math

import pinchpoint as pp
from pinchpoint.results import Results
from pinchpoint.store import Store


def cbr(rate_interval="100ms", handshake=False):
    s = pp.Scenario("rates", duration="2s", seed=1)
    s.host("a").host("b")
    s.link("a", "b", rate="10Mbps", delay="5ms")
    s.flow("u", "a", "b", transport="udp", workload=pp.cbr("1Mbps", "1250B"), start="3ms")
    # The TCP flow runs the other way, so it does not queue the CBR datagrams.
    s.flow("t", "b", "a", workload=pp.bulk(), tcp={"handshake": handshake})
    if rate_interval:
        s.metrics(rate_interval=rate_interval)
    return s


def test_flow_rates_has_one_row_per_flow_and_interval_and_adds_up_to_delivered_bytes():
    r = pp.run(cbr())
    fr = r.flow_rates.to_pandas()
    assert list(fr.columns) == ["flow", "interval_start_s", "bytes", "rate_bps"]
    assert len(fr) == 2 * 20
    for name, g in fr.groupby("flow"):
        assert g["bytes"].sum() == r.flows.set_index("flow").loc[name, "delivered_bytes"]
    u = fr[fr["flow"] == "u"]
    assert (u["rate_bps"].iloc[1:] == u["rate_bps"].iloc[1]).all()
    assert r.flows.set_index("flow").loc["u", "rate_cov"] == 0.0


def test_without_rate_interval_the_table_is_empty_and_there_is_no_cov_column():
    r = pp.run(cbr(rate_interval=None))
    assert r.flow_rates.num_rows == 0
    assert "rate_cov" not in r.flows.columns
    assert "handshake_s" not in r.flows.columns


def test_tables_that_were_not_recorded_have_their_columns_and_concatenate_with_recorded_ones(tmp_path):
    # packets.parquet and flow_rates.parquet of a run without packet_trace / rate_interval had
    # only the run, scenario and seed columns, and pyarrow.concat_tables refused them.
    import pyarrow as pa
    import pyarrow.parquet as pq

    on = cbr()
    on.metrics(packet_trace=True)
    full = pp.run(on).write(tmp_path / "full")
    empty = pp.run(cbr(rate_interval=None)).write(tmp_path / "empty")
    for name, cols in (("flow_rates", ["flow", "interval_start_s", "bytes", "rate_bps"]),
                       ("packets", ["t_s", "flow", "delay_s", "size_bytes", "seq", "ce", "retx"])):
        a, b = pq.read_table(full / f"{name}.parquet"), pq.read_table(empty / f"{name}.parquet")
        assert b.num_rows == 0 and b.column_names == ["run", "scenario", "seed"] + cols
        assert a.num_rows > 0 and a.schema == b.schema
        both = pa.concat_tables([a, b])
        assert both.num_rows == a.num_rows and both.column_names == a.column_names


def test_flow_rates_survive_write_and_read_and_go_into_the_store(tmp_path):
    r = pp.run(cbr())
    back = Results.read(r.write(tmp_path / "out"))
    assert back.flow_rates.equals(r.flow_rates)
    st = Store(tmp_path / "s.duckdb")
    st.put(r)
    st.put(pp.run(cbr(rate_interval=None)))
    q = st.query("SELECT flow, count(*) AS n, sum(bytes) AS b FROM flow_rates GROUP BY flow ORDER BY flow")
    assert list(q["flow"]) == ["t", "u"] and list(q["n"]) == [20, 20]


def test_a_handshake_delays_data_by_one_round_trip_and_is_reported():
    r = pp.run(cbr(rate_interval=None, handshake=True)).flows.set_index("flow")
    # SYN and SYN-ACK of 52 bytes over 10 Mbit/s and 5 ms each way.
    assert math.isclose(r.loc["t", "handshake_s"], 2 * (0.005 + 52 * 8 / 10e6), rel_tol=1e-9)
    assert r.loc["t", "syn_retransmits"] == 0 and not r.loc["t", "handshake_failed"]
    assert math.isnan(r.loc["u", "handshake_s"])


def test_a_sweep_stores_flow_rates_as_a_single_run_does(tmp_path):
    # The sweep's workers once sent back only the summary tables, so the store had no interval
    # rates for sweep runs (and a later sweep could not add them: stored keys are skipped).
    from pinchpoint.sweep import sweep

    db = tmp_path / "s.duckdb"
    t = sweep(cbr(), {"flows.t.cc": ["reno", "cubic"]}, seeds=[1], store=db, workers=1)
    with Store(db) as st:
        q = st.query("SELECT run, count(*) AS n FROM flow_rates GROUP BY run ORDER BY run")
    assert sorted(q["run"]) == sorted(t["run"]) and list(q["n"]) == [40, 40]
