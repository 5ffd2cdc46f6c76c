"""What the CLI does around the event loop (issue 13, "linear build"): the run key made from the
scenario in memory, result tables handed over as Arrow buffers."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import pinchpoint as pp
from pinchpoint import _native
from pinchpoint.store import canonical_scenario, key_of_canonical, run_key

ROOT = Path(__file__).resolve().parent.parent


def odd():
    """A scenario with what the canonical form must write exactly as Python's json does:
    non-ASCII and escaped characters in names, small and large floats, a description."""
    s = pp.Scenario("odd \"name\" é😀", duration="1s", description="dropped from the key")
    s.host("a\\b").host("b\té").router("r")
    s.link("a\\b", "r", rate="100Mbps", delay="1ms", loss=pp.bernoulli_loss(1e-05))
    s.link("r", "b\té", rate="5Mbps", delay="10ms", queue={"kind": "red", "min_th_pkts": 5, "max_th_pkts": 15,
                                                         "max_p": 0.1, "w_q": 0.002, "limit_pkts": 100})
    s.flow("f€", "a\\b", "b\té", cc="cubic", start="0.1s")
    return s


def test_the_key_made_in_memory_equals_the_key_of_the_resolved_text_for_every_bundled_scenario():
    files = sorted((ROOT / "scenarios").rglob("*.toml"))
    assert len(files) > 10
    for f in files:
        sim = _native.Simulation(f.read_text(), str(f), "toml")
        assert sim.canonical_scenario().decode() == canonical_scenario(sim.resolved_toml), f


def test_the_key_made_in_memory_equals_the_text_key_for_escapes_non_ascii_and_odd_floats():
    sim = pp.load(odd(), seed=7)
    canonical = sim.canonical_scenario()
    assert canonical.decode() == canonical_scenario(sim.resolved_toml)
    assert b"dropped from the key" not in canonical and b"\\u00e9" in canonical and b"1e-05" in canonical
    assert key_of_canonical(canonical, 7) == run_key(sim.resolved_toml, 7)


def test_the_key_hashed_natively_while_building_equals_pythons_hash_of_the_canonical_form():
    files = sorted((ROOT / "scenarios").rglob("*.toml"))
    for f in files[::5]:
        sim = _native.Simulation(f.read_text(), str(f), "toml", 12)
        for seed in (0, 12, 2**63 - 1):
            assert sim.run_key(seed) == key_of_canonical(sim.canonical_scenario(), seed), f
    sim = pp.load(odd(), seed=7)
    for revision in (1, 2, _native.MODEL_REVISION):
        assert sim.run_key(7, revision) == key_of_canonical(sim.canonical_scenario(), 7, revision)
    assert sim.run_key(7) == run_key(sim.resolved_toml, 7)


def test_a_run_carries_the_key_of_its_resolved_text_and_writes_it(tmp_path):
    r = pp.run(odd(), seed=3)
    assert r.key == run_key(r.scenario_toml, 3)
    out = r.write(tmp_path / "res")
    assert json.loads((out / "meta.json").read_text())["run"] == r.key
    assert pp.Results.read(out).key == r.key


def test_string_columns_arrive_as_arrow_strings_with_every_name():
    r = pp.run(odd())
    assert str(r.tables["flows"].schema.field("flow").type) == "string"
    assert list(r.flows["flow"]) == ["f€"]
    assert sorted(r.ports["port"]) == sorted(["a\\b->r", "r->a\\b", "r->b\té", "b\té->r"])
    assert str(r.flows["sent_pkts"].dtype) == "int64"


@pytest.mark.parametrize("module", ["pinchpoint", "pinchpoint.api"])
def test_importing_the_package_loads_no_plotting_table_or_cli_library(module):
    code = (f"import sys, {module}\n"
            "print(sorted(m for m in ('pandas', 'pyarrow', 'numpy', 'matplotlib', 'duckdb', 'dask', 'rich', "
            "'typer') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_sweep_point_is_keyed_from_memory_as_from_its_resolved_text():
    # sweep.py keys pending points with api.run_key instead of run_key(api.validate(...)).
    files = sorted((ROOT / "scenarios").rglob("*.toml"))
    for f in files:
        assert pp.api.run_key(f, 5) == run_key(pp.validate(f), 5), f
    assert pp.api.run_key(odd(), 11) == run_key(pp.validate(odd()), 11)
    with pytest.raises(_native.ScenarioError, match="no such scenario file"):
        pp.api.run_key(ROOT / "missing.toml", 1)


def test_result_columns_are_handed_over_without_a_copy_read_only_and_outlive_the_simulation():
    import gc

    from pinchpoint.results import Results

    sim = pp.load(odd(), seed=3)
    sim.run_until(sim.end_s)
    raw = sim.results()
    name, dtype, data = next(c for c in raw["flows"] if c[0] == "sent_pkts")
    view = memoryview(data)
    assert view.readonly and view.nbytes == len(data) == 8
    with pytest.raises(TypeError):
        view[0] = 1
    view.release()
    expected = pp.run(odd(), seed=3).flows
    r = Results(raw, sim.resolved_toml)
    del sim, raw, data
    gc.collect()
    assert r.flows.equals(expected)


def test_a_run_keeps_the_resolved_text_as_native_utf8_decodes_it_once_and_writes_and_pickles_it(tmp_path):
    import pickle

    r = pp.run(odd(), seed=3)
    text = pp.load(odd(), seed=3).resolved_toml
    assert "_scenario_utf8" in r.__dict__
    assert pickle.loads(pickle.dumps(r)).scenario_toml == text  # pickles as the string
    out = r.write(tmp_path / "res")
    assert (out / "scenario.toml").read_bytes() == text.encode()
    assert r.scenario_toml == text and r.scenario_toml is r.scenario_toml
    r.scenario_toml = "replaced"
    assert r.scenario_toml == "replaced" and "_scenario_utf8" not in r.__dict__


def test_a_results_pickled_before_scenario_toml_was_a_property_still_reads(tmp_path):
    import pickle

    from pinchpoint.results import Results

    r = pp.run(odd(), seed=3)
    old_state = {k: v for k, v in r.__getstate__().items() if k != "_scenario_toml"}
    old_state["scenario_toml"] = "old text"
    back = Results.__new__(Results)
    back.__setstate__(old_state)
    assert back.scenario_toml == "old text"
    assert pickle.loads(pickle.dumps(back)).scenario_toml == "old text"


def test_a_fork_while_the_resolved_text_is_being_written_leaves_the_child_a_whole_text():
    # The texts' thread does not exist in a child process: a fork waits for it (pthread_atfork),
    # so the child reads the texts instead of waiting for that thread forever. The fork wakes the
    # moment the writer stops counting as running; before the writer stored the texts itself, a
    # child forked then found no result in the thread's handle (one fork in six or so), hence
    # several forks.
    code = (
        "import os\n"
        "from pinchpoint import _native\n"
        "for _ in range(6):\n"
        "    sim = _native.Simulation(_native.preset_dumbbell(20000, 1.0), '<d>', 'json')\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os._exit(0 if len(sim.resolved_toml) > 1_000_000 and sim.run_key(1) else 3)\n"
        "    _, status = os.waitpid(pid, 0)\n"
        "    print(os.waitstatus_to_exitcode(status), len(sim.resolved_toml) > 1_000_000)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "True"] * 6, out.stderr
