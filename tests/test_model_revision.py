"""The model revision (issue 13, branch depart): a results-moving change of the model gives every
run a new key, so a sweep never reuses a run an older model stored, and old stores stay readable."""

import hashlib

import duckdb

import pinchpoint as pp
from pinchpoint.store import Store, canonical_scenario, run_key
from scenario_helpers import tiny


def test_the_model_revision_is_hashed_into_the_run_key_and_revision_one_keys_are_unchanged():
    text = pp.validate(tiny("200ms"))
    assert pp.MODEL_REVISION >= 2
    old = hashlib.sha256(canonical_scenario(text).encode() + b"\nseed=5").hexdigest()[:32]
    assert run_key(text, 5, 1) == old, "a store written before revisions keeps matching its keys"
    assert run_key(text, 5) == run_key(text, 5, pp.MODEL_REVISION) != old
    r = pp.run(tiny("200ms"), seed=5)
    assert r.meta["model_revision"] == pp.MODEL_REVISION
    assert r.key == run_key(r.scenario_toml, 5)


def test_a_store_from_before_revisions_stays_readable_and_its_runs_are_not_reused(tmp_path):
    path = tmp_path / "old.duckdb"
    text = pp.validate(tiny("200ms"))
    # A store as written before this change: no model_revision column, a run under the
    # revision-1 key.
    con = duckdb.connect(str(path))
    con.execute("""CREATE TABLE runs (key VARCHAR PRIMARY KEY, scenario VARCHAR, seed BIGINT,
        end_time_s DOUBLE, wall_s DOUBLE, events BIGINT, packet_hops BIGINT, stored_at DOUBLE,
        version VARCHAR, tags JSON, scenario_toml VARCHAR)""")
    con.execute("INSERT INTO runs VALUES (?, 'tiny', 1, 0.2, 0.1, 10, 10, 0, '0.1.0', '{}', ?)",
                [run_key(text, 1, 1), text])
    con.close()
    st = Store(path)
    assert st.query("SELECT count(*) AS n FROM runs")["n"][0] == 1
    assert run_key(text, 1) not in st.keys(), "a sweep would run the scenario again"
    r = pp.run(tiny("200ms"), seed=1)
    key = st.put(r)
    assert key == run_key(r.scenario_toml, 1)
    rows = st.query("SELECT key, model_revision FROM runs ORDER BY stored_at")
    assert list(rows["key"]) == [run_key(text, 1, 1), key]
    assert rows["model_revision"].isna()[0] and rows["model_revision"][1] == pp.MODEL_REVISION
