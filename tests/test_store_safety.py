"""Store and results: int64 counters, identity columns, a store shared by a notebook and writers,
crash-safe result directories and sweeps (issues 14 class 7 and 16)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import pinchpoint as pp
from pinchpoint import atomic
from pinchpoint.store import Store, canonical_scenario
from scenario_helpers import tiny

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def test_counters_are_int64_so_differences_go_negative(tmp_path):
    r = pp.run(tiny())
    assert str(r.flows["sent_pkts"].dtype) == "int64"
    assert (r.flows["retx_pkts"] - r.flows["sent_pkts"] < 0).all()
    st = Store(tmp_path / "s.duckdb")
    st.put(r)
    d = st.query("SELECT retx_pkts - sent_pkts AS d FROM flows")["d"]
    assert (d < 0).all()


def test_parquet_tables_carry_run_scenario_seed_and_meta_the_version(tmp_path):
    r = pp.run(tiny(), seed=4)
    out = r.write(tmp_path / "res")
    t = pq.read_table(out / "flows.parquet")
    assert t.column_names[:3] == ["run", "scenario", "seed"]
    assert t.column("seed")[0].as_py() == 4 and t.column("run")[0].as_py() == r.key
    meta = json.loads((out / "meta.json").read_text())
    assert meta["pinchpoint_version"] == pp.__version__ and meta["run"] == r.key
    assert r.flows is r.flows  # cached


def test_cli_prints_its_version():
    out = subprocess.run([PY, "-m", "pinchpoint.cli", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"pinchpoint {pp.__version__}"


def test_run_key_ignores_formatting_comments_key_order_and_description(tmp_path):
    a = pp.Scenario("k", duration="1s")
    a.host("a").host("b").link("a", "b", rate="10Mbps", delay="1ms").flow("f", "a", "b")
    f1 = tmp_path / "a.toml"
    a.save(f1)
    text = f1.read_text()
    # Same scenario: a comment, a description, blank lines, and the top-level tables reordered.
    f2 = tmp_path / "b.toml"
    f2.write_text('# reformatted\ndescription = "words"\n\n' + text.replace("\n", "\n\n"))
    k1 = Store.key_of(None, pp.run(f1))
    k2 = Store.key_of(None, pp.run(f2))
    assert k1 == k2
    assert canonical_scenario(pp.validate(f1)) == canonical_scenario(pp.validate(f2))


HOLD = """
import duckdb, sys, time
con = duckdb.connect(sys.argv[1])
con.execute("CREATE TABLE IF NOT EXISTS hold (x INT)")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
con.close()
"""


def _hold(db: Path, seconds: float) -> subprocess.Popen:
    p = subprocess.Popen([PY, "-c", HOLD, str(db), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def test_a_writer_waits_for_another_process_holding_the_store(tmp_path):
    db = tmp_path / "s.duckdb"
    r = pp.run(tiny())
    holder = _hold(db, 1.5)
    t0 = time.monotonic()
    key = Store(db, timeout_s=30).put(r)
    assert time.monotonic() - t0 > 0.5  # it waited
    holder.wait()
    assert Store(db).has(key) and len(Store(db).runs()) == 1


def test_a_store_locked_too_long_keeps_the_finished_run_in_the_spool(tmp_path):
    db = tmp_path / "s.duckdb"
    r = pp.run(tiny())
    holder = _hold(db, 3)
    with pytest.warns(UserWarning, match="stay in"):
        key = Store(db, timeout_s=0.3).put(r)
    assert (Path(str(db) + ".spool") / key / "flows.parquet").exists()
    holder.wait()
    assert Store(db).merge() == 1
    assert list(Store(db).runs()["key"]) == [key]


def test_a_notebook_store_does_not_stop_the_cli_from_storing(tmp_path):
    db = tmp_path / "s.duckdb"
    nb = Store(db)
    nb.put(pp.run(tiny()))
    assert len(nb.runs()) == 1  # the notebook has queried the store and keeps its Store object
    scen = tiny().save(tmp_path / "tiny.toml")
    out = subprocess.run([PY, "-m", "pinchpoint.cli", "run", str(scen), "-q", "--seed", "2", "--store", str(db)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert len(nb.runs()) == 2


KILL_DURING_WRITE = """
import sys, time
from pathlib import Path
from pinchpoint import atomic
def fill(d):
    (d / "part.bin").write_bytes(b"x" * 1000)
    print("writing", flush=True)
    time.sleep(60)
atomic.write_dir(Path(sys.argv[1]), fill)
"""


def test_a_write_killed_midway_leaves_a_temporary_directory_that_the_next_write_removes(tmp_path):
    out = tmp_path / "res"
    p = subprocess.Popen([PY, "-c", KILL_DURING_WRITE, str(out)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "writing"
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert [x.name.split("-")[0] for x in tmp_path.iterdir()] == [".res.tmp"] and not out.exists()
    atomic.write_dir(out, lambda d: (d / "a.txt").write_text("new"))
    assert sorted(x.name for x in tmp_path.iterdir()) == ["res"]
    assert (out / "a.txt").read_text() == "new"


def _dead_pid() -> int:
    p = subprocess.Popen([PY, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_kill_between_the_renames_is_recovered_old_or_new(tmp_path):
    out = tmp_path / "res"
    pid = _dead_pid()
    # Killed after moving the previous results aside: they come back.
    old = tmp_path / f".res.old-{pid}-aa"
    old.mkdir()
    (old / "a.txt").write_text("previous")
    assert (atomic.recover(out) / "a.txt").read_text() == "previous"
    # Killed after the new results were complete: they win, and nothing is left over.
    ready = tmp_path / f".res.ready-{pid}-bb"
    ready.mkdir()
    (ready / "a.txt").write_text("newer")
    assert (atomic.recover(out) / "a.txt").read_text() == "newer"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["res"]


def test_result_directories_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        out = pp.run(tiny()).write(tmp_path / "res")
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o755
    assert (out / "flows.parquet").stat().st_mode & 0o777 == 0o644


SWEEP = """
import sys
import pinchpoint as pp
from pinchpoint.sweep import sweep
s = pp.Scenario("long", duration="300s")
s.host("a").host("b").router("r")
s.link("a", "r", rate="1Gbps", delay="1ms").link("r", "b", rate="1Gbps", delay="1ms")
s.flow("f", "a", "b", cc="newreno")
sweep(s, {"links.r->b.delay": ["1ms", "2ms"]}, store=sys.argv[1], workers=2)
"""


def _children(pid: int) -> set[int]:
    out = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        out |= {int(x) for x in text}
    return out


def _alive(pid: int) -> bool:
    try:
        st = Path(f"/proc/{pid}/stat").read_text().split()
    except FileNotFoundError:
        return False
    return st[2] != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_sweep_workers_end_when_the_sweep_is_killed(tmp_path):
    p = subprocess.Popen([PY, "-c", SWEEP, str(tmp_path / "s.duckdb")])
    deadline = time.monotonic() + 60
    kids: set[int] = set()
    while time.monotonic() < deadline and len(kids) < 2:
        time.sleep(0.2)
        kids = _children(p.pid)
    assert len(kids) >= 2, "workers did not start"
    time.sleep(0.5)
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(k) for k in kids):
        time.sleep(0.1)
    assert not any(_alive(k) for k in kids)


def test_a_store_written_by_an_earlier_version_takes_new_runs(tmp_path):
    import duckdb

    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE runs (key VARCHAR PRIMARY KEY, scenario VARCHAR, seed UBIGINT, end_time_s DOUBLE, "
                "wall_s DOUBLE, events UBIGINT, packet_hops UBIGINT, stored_at DOUBLE, tags JSON, scenario_toml VARCHAR)")
    con.execute("CREATE TABLE flows (run VARCHAR, flow VARCHAR, goodput_bps DOUBLE, sent_pkts UBIGINT)")
    con.close()
    key = Store(db).put(pp.run(tiny()))
    got = Store(db).query("SELECT r.version, f.seed, f.retx_pkts FROM runs r JOIN flows f ON f.run = r.key")
    assert list(got["version"]) == [pp.__version__] and list(got["seed"]) == [1]
    assert Store(db).has(key)


def test_importing_pinchpoint_leaves_the_heavy_modules_unloaded():
    code = ("import sys, pinchpoint, pinchpoint.sweep, pinchpoint.store, pinchpoint.plan\n"
            "print(sorted(m for m in ('pandas', 'pyarrow', 'matplotlib', 'duckdb', 'dask', 'numpy') if m in sys.modules))")
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
