"""The JSON Schema of the scenario format: current, and in agreement with the validator."""

import json
import tomllib
from pathlib import Path

import pytest

from pinchpoint import _native

jsonschema = pytest.importorskip("jsonschema")
ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "docs" / "scenario.schema.json"


def test_committed_schema_is_current():
    assert json.loads(SCHEMA.read_text()) == json.loads(_native.json_schema()), \
        "regenerate with: pinchpoint schema --out docs/scenario.schema.json"


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").rglob("*.toml")), ids=lambda p: p.stem)
def test_every_bundled_scenario_satisfies_the_schema(path):
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    data = tomllib.loads(path.read_text())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]
    assert not errors, errors


def test_schema_rejects_what_the_validator_rejects():
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    base = tomllib.loads((ROOT / "scenarios/examples/two_flows_newreno.toml").read_text())
    bad_field = json.loads(json.dumps(base))
    bad_field["links"][0]["colour"] = "red"
    bad_unit = json.loads(json.dumps(base))
    bad_unit["links"][0]["rate"] = "10 parsecs"
    bad_cc = json.loads(json.dumps(base))
    bad_cc["flows"][0]["cc"] = "no-such-controller"
    for d in (bad_field, bad_unit, bad_cc):
        assert list(validator.iter_errors(d)), d
