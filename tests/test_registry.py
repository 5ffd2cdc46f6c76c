"""The registry is the one list of names: every registered controller, queue discipline, port hook
and workload has its page, and the CLI lists what the engine accepts."""

from pathlib import Path

import pytest

from pinchpoint.registry import doc_page, kinds

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("family", ["cc", "queue", "hook", "workload"])
def test_every_registered_algorithm_has_its_doc_page(family):
    names = kinds()[family]
    assert names, f"no {family} names found in the schema"
    pages = [doc_page(family, n, ROOT) for n in names]
    missing = [str(p.relative_to(ROOT)) for p in pages if p is None or not p.exists()]
    assert not missing, f"pages to write: {missing}"


def test_the_registry_names_are_those_the_engine_accepts():
    k = kinds()
    assert {"newreno", "reno", "cubic", "none"} <= set(k["cc"])
    assert {"droptail", "red", "codel"} <= set(k["queue"])
    assert {"bulk", "file", "cbr"} <= set(k["workload"])
    assert k["recovery"] == ["newreno", "rack_tlp", "reno", "sack"]


def test_kinds_command_prints_every_family(capsys):
    from typer.testing import CliRunner

    from pinchpoint.cli import app
    out = CliRunner().invoke(app, ["kinds"]).output
    for family, names in kinds().items():
        assert f"{family} (" in out and names[0] in out
