"""The ns-3 translator takes pinchpoint's defaults from the engine (issue: literals in translate.py
copied the Rust defaults and could drift). Each test translates a scenario that leaves settings out
and one that writes them at the engine's defaults, read from the Rust side (the JSON schema's
`default`s and the native ``*_in_effect`` helpers), and wants the same ns-3 configuration: if the
translator ever assumed a default the engine does not have, the two would differ. No ns-3 needed."""

import copy
import json

import pytest

from pinchpoint import _native
from pinchpoint.crossval import translate as x

SCHEMA = json.loads(_native.json_schema())


def base(queue=None, tcp=None, cc=None) -> dict:
    flow = {"name": "f", "src": "a", "dst": "b", "workload": {"kind": "bulk"}}
    if tcp is not None:
        flow["tcp"] = tcp
    if cc is not None:
        flow["cc"] = cc
    bott = {"a": "r", "b": "b", "rate": "10Mbps", "delay": "20ms"}
    if queue is not None:
        bott["queue_ab"] = queue
    return {"simulation": {"duration": "10s"},
            "nodes": [{"name": "a"}, {"name": "r", "kind": "router"}, {"name": "b"}],
            "links": [{"a": "a", "b": "r", "rate": "100Mbps", "delay": "1ms"}, bott],
            "flows": [flow]}


def variant_defaults(union: str, kind: str) -> dict:
    """{field: default} of the table of ``kind`` in the schema's tagged union ``union``."""
    def tables(node):
        if isinstance(node, dict):
            props = node.get("properties", {})
            if props.get("kind", {}).get("const") == kind:
                yield props
            for v in node.values():
                yield from tables(v)
        elif isinstance(node, list):
            for v in node:
                yield from tables(v)

    found = list(tables(SCHEMA["$defs"][union]))
    assert len(found) == 1, f"{union}: no single table with kind {kind!r} in the schema"
    return {k: v["default"] for k, v in found[0].items() if "default" in v}


AQMS = ["red", "codel", "fq_codel", "pie"]


@pytest.mark.parametrize("kind", AQMS)
def test_aqm_left_out_translates_as_written_at_the_engine_defaults(kind):
    explicit = {"kind": kind, **variant_defaults("QueueConfig", kind)}
    # The buffer limit (and RED's thresholds) are no schema defaults: each discipline fills its
    # own when the table gives none. Ask the engine which.
    eff = _native.queue_in_effect(json.dumps({"kind": kind}))
    explicit["limit_pkts"] = eff["limit_pkts"]
    if kind == "red":
        explicit.update(min_th_pkts=eff["min_th"], max_th_pkts=eff["max_th"])
    bare = x.translate(base({"kind": kind}), "bare.toml")["links"][1]["qdisc_ab"]
    full = x.translate(base(explicit), "full.toml")["links"][1]["qdisc_ab"]
    assert bare == full, {k: (bare["attrs"].get(k), full["attrs"].get(k)) for k in full["attrs"]
                          if bare["attrs"].get(k) != full["attrs"].get(k)}
    # Every field the translator maps is covered (so none keeps a default of its own).
    written = set(explicit) | {"ecn", "limit_bytes", "hash_seed"}
    if kind == "red":
        written |= {"min_th_bytes", "max_th_bytes", "min_th_fraction", "max_th_fraction"}
    assert x.QDISC_KEYS[kind] <= written, sorted(x.QDISC_KEYS[kind] - written)


@pytest.mark.parametrize("kind", AQMS)
def test_aqm_attributes_follow_each_engine_default(kind):
    """Field by field: the ns-3 attributes of the bare AQM equal those of the AQM with that one
    field written at the schema's default, naming the field on failure."""
    bare = x.translate(base({"kind": kind}), "t.toml")["links"][1]["qdisc_ab"]
    for field, value in variant_defaults("QueueConfig", kind).items():
        one = x.translate(base({"kind": kind, field: value}), "t.toml")["links"][1]["qdisc_ab"]
        assert one == bare, f"{kind}.{field} = {value!r} (the engine's default) translates differently"


def test_port_without_a_queue_gets_the_engine_default_limit():
    eff = _native.queue_in_effect(None)
    plan = x.translate(base(), "t.toml")
    assert plan["links"][1]["queue_ab"] == f"{eff['limit_pkts']}p"
    explicit = x.translate(base({"kind": eff["kind"], "limit_pkts": eff["limit_pkts"]}), "t.toml")
    assert explicit["links"][1] == plan["links"][1]


def test_tcp_left_out_translates_as_written_at_the_engine_defaults():
    explicit = dict(SCHEMA["$defs"]["TcpConfig"]["properties"])
    explicit = {k: v["default"] for k, v in explicit.items() if "default" in v}
    # sack / recovery / prr have no single default (they depend on each other): the engine's rules.
    explicit.update(_native.tcp_in_effect("{}"))
    bare = x.translate(base(), "t.toml")["ns3_defaults"]
    full = x.translate(base(tcp=explicit), "t.toml")["ns3_defaults"]
    assert bare == full, {k: (bare.get(k), full.get(k)) for k in full if bare.get(k) != full.get(k)}
    for field, value in explicit.items():
        one = x.translate(base(tcp={field: value}), "t.toml")["ns3_defaults"]
        assert one == bare, f"tcp.{field} = {value!r} (the engine's default) translates differently"


def test_recovery_follows_the_engine_rules():
    """ns-3's recovery and SACK settings follow what the engine runs, for every combination."""
    checked = 0
    for recovery in (None, "sack", "newreno"):
        for sack in (None, True, False):
            for prr in (None, True, False):
                tcp = {k: v for k, v in (("recovery", recovery), ("sack", sack), ("prr", prr)) if v is not None}
                try:
                    d = x.translate(base(tcp=tcp), "t.toml")["ns3_defaults"]
                except _native.ScenarioError:
                    continue                        # a combination the engine refuses
                eff = _native.tcp_in_effect(json.dumps(tcp))
                assert d["ns3::TcpSocketBase::Sack"] == str(eff["sack"]).lower(), tcp
                assert d["ns3::TcpL4Protocol::RecoveryType"] == (
                    "ns3::TcpPrrRecovery" if eff["prr"] else "ns3::TcpClassicRecovery"), tcp
                checked += 1
    assert checked >= 6, checked


def test_cc_left_out_is_the_engine_default_controller():
    bare = x.translate(base(), "t.toml")["ns3_defaults"]
    full = x.translate(base(cc=json.loads(_native.default_cc())), "t.toml")["ns3_defaults"]
    assert bare == full


def with_cc(kind: str, cc) -> dict:
    """base() with controller ``cc``; DCTCP needs ECN and a marking port (a ce_threshold hook)."""
    if kind != "dctcp":
        return base(cc=cc)
    s = base(cc=cc, tcp={"ecn": True})
    s["links"][1]["hooks_ab"] = [{"kind": "ce_threshold", "threshold_pkts": 20}]
    return s


@pytest.mark.parametrize("kind", ["cubic", "vegas", "scalable", "dctcp"])
def test_controller_parameters_left_out_translate_as_written_at_the_engine_defaults(kind):
    defaults = variant_defaults("CcConfig", kind)
    assert defaults, f"the schema gives {kind}'s defaults"
    bare = x.translate(with_cc(kind, kind), "t.toml")
    full = x.translate(with_cc(kind, {"kind": kind, **defaults}), "t.toml")
    assert bare["ns3_defaults"] == full["ns3_defaults"]
    # Each mapped parameter is pinned on the ns-3 side, so no ns-3 default stands in for ours.
    type_id, names = x.CONTROLLERS[kind]
    assert set(names) == set(defaults), "every parameter of the controller has its ns-3 attribute"
    for p, attr in names.items():
        assert f"{type_id}::{attr}" in bare["ns3_defaults"], p
        one = x.translate(with_cc(kind, {"kind": kind, p: defaults[p]}), "t.toml")
        assert one["ns3_defaults"] == bare["ns3_defaults"], f"{kind}.{p} = {defaults[p]!r} translates differently"


def test_translate_does_not_modify_its_input():
    s = base({"kind": "red"})
    before = copy.deepcopy(s)
    x.translate(s, "t.toml")
    assert s == before
