"""Which parts of a scenario draw random numbers is decided by each part's settings, in the engine
(``scenario::random_parts``, read through :func:`pinchpoint.random_parts`): the sweep's
replication check and ``pinchpoint validate`` use it.

The answers are checked against behaviour: for every kind in the registry (so a new kind cannot
be forgotten), and for the settings that decide (``on_off``'s periods, a flash crowd's spacing, a
loss probability of 1), a part reported random gives different runs for two seeds in a small
congested network, and a scenario reported deterministic gives identical runs."""

import json
import re
from pathlib import Path

import pytest

import pinchpoint as pp
from pinchpoint import _native
from pinchpoint.registry import kinds
from pinchpoint.sweep import seed_sources

ROOT = Path(__file__).resolve().parents[1]

#: Settings for kinds that cannot run from their bare name (or whose default would hide the
#: randomness the kind may use). A kind added without defaults that run needs a line here.
PARAMS = {
    ("queue", "rda_fp"): {"min_que_pkts": 5, "max_que_pkts": 15},
    ("queue", "rda_vp"): {"min_que_pkts": 5, "max_que_pkts": 15},
    ("queue", "isda"): {"min_que_pkts": 5, "max_que_pkts": 15},
    ("workload", "file"): {"size": "2MB"},
    ("workload", "cbr"): {"rate": "2Mbps", "packet_size": 1000},
    ("workload", "poisson"): {"rate": "2Mbps", "packet_size": 1000},
    ("workload", "on_off"): {"rate": "4Mbps", "packet_size": 1000, "on": "100ms", "off": "100ms",
                             "distribution": "exponential"},
    ("workload", "square_wave"): {"rate": "4Mbps", "packet_size": 1000, "period": "200ms"},
    ("hook", "ce_threshold"): {"threshold_pkts": 5},
    ("loss", "bernoulli"): {"p": 0.01},
    ("loss", "gilbert_elliott"): {"p_gb": 0.01, "p_bg": 0.3},
    ("arrival", "poisson"): pp.poisson_arrivals(20.0, pp.size("fixed", pkts=10)),
    ("arrival", "flash_crowd"): pp.flash_crowd(50, 50.0, "0.5s", pp.size("fixed", pkts=10)),
    ("arrival", "webtraf"): pp.webtraf(4, 3),
}

#: Flow settings a kind needs beside its own table.
FLOW_NEEDS = {("cc", "dctcp"): {"tcp": {"ecn": True}},
              # These hooks only compute what such senders read (without them they are refused).
              ("hook", "eca_load"): {"wtp": {"weight": 1.0}},
              ("hook", "rbcc"): {"transport": "trump", "workload": {"kind": "file", "size": "200KB"}},
              ("hook", "ce_threshold"): {"tcp": {"ecn": True}},
              ("hook", "decbit"): {"tcp": {"ecn": True}},
              ("cc", "none"): {"tcp": {"receiver": {"kind": "fixed", "window_pkts": 10}}}}


def _table(family: str, kind: str) -> dict:
    p = PARAMS.get((family, kind), {})
    return dict(p) if family == "arrival" else {"kind": kind, **p}


def _scenario(family: str, kind: str, seed: int) -> pp.Scenario:
    """Three TCP flows through a 5 Mbit/s bottleneck with the kind under test in its place."""
    s = pp.Scenario("seed-check", duration="2s", seed=seed)
    s.host("a").host("b").router("r")
    bottleneck: dict = {"queue": {"kind": "droptail", "limit_pkts": 30}}
    if family == "queue":
        bottleneck["queue"] = _table(family, kind)
    elif family == "hook":
        bottleneck["hooks"] = [_table(family, kind)]
    elif family == "loss":
        bottleneck["loss"] = _table(family, kind)
    if (family, kind) == ("cc", "dctcp"):
        # DCTCP's ECN needs a port that marks CE (ECN with nothing to pair with is refused).
        bottleneck["hooks"] = [{"kind": "ce_threshold", "threshold_pkts": 20}]
    s.link("a", "r", rate="100Mbps", delay="1ms").link("r", "b", rate="5Mbps", delay="10ms", **bottleneck)
    for i in range(3):
        flow: dict = {"start": f"{i * 0.1}s"}
        if family == "cc":
            flow["cc"] = _table(family, kind)
        elif family == "receiver":
            flow["tcp"] = {"receiver": _table(family, kind)}
            flow["cc"] = "none" if kind == "atn" else None
        elif family == "workload" and i == 0:
            flow["workload"] = _table(family, kind)
            if kind in ("cbr", "poisson", "on_off", "square_wave"):
                flow["transport"] = "udp"
        flow.update(FLOW_NEEDS.get((family, kind), {}))
        s.flow(f"f{i}", "a", "b", **{k: v for k, v in flow.items() if v is not None})
    if family == "arrival":
        s.arrivals("t", "a", "b", _table(family, kind))
    return s


def _fingerprint(s: pp.Scenario) -> str:
    r = pp.run(s)
    flows = r.flows[["flow", "delivered_bytes", "sent_pkts", "lost_pkts"]].to_dict("records")
    ports = r.ports[["port", "tx_pkts", "drops", "marks"]].to_dict("records")
    return json.dumps([flows, ports, int(r.meta["events"])], default=str)


CASES = [(f, k) for f, names in kinds().items() for k in names]

#: The settings that decide whether a kind draws, beside its table in PARAMS: (family, kind,
#: label, settings replacing PARAMS', whether the part then draws).
SETTINGS = [
    ("workload", "on_off", "fixed periods", {"rate": "4Mbps", "packet_size": 1000, "on": "100ms", "off": "100ms",
                                             "distribution": "fixed"}, False),
    ("arrival", "flash_crowd", "even spacing, fixed sizes",
     pp.flash_crowd(50, 50.0, "0.5s", pp.size("fixed", pkts=10), spacing="even"), False),
    ("arrival", "flash_crowd", "even spacing, exponential sizes",
     pp.flash_crowd(50, 50.0, "0.5s", pp.size("exponential", mean_pkts=10), spacing="even"), True),
    ("loss", "bernoulli", "p = 1", {"p": 1.0}, False),
    ("queue", "rda_fp", "pa = 1", {"min_que_pkts": 5, "max_que_pkts": 15, "pa": 1.0}, False),
]


def _check(s1: pp.Scenario, s2: pp.Scenario, family: str, kind: str) -> bool:
    """Asserts that the engine's answer matches the runs; returns whether the part draws."""
    parts = pp.random_parts(s1)
    assert all(kind in p for p in parts), f"{family} `{kind}`: the base scenario should draw nothing, got {parts}"
    a, b = _fingerprint(s1), _fingerprint(s2)
    assert (a != b) == bool(parts), (f"{family} `{kind}`: runs {'differ' if a != b else 'are identical'} across "
                                     f"seeds but random_parts says {parts or 'nothing draws'}")
    return bool(parts)


@pytest.mark.parametrize("family, kind", CASES, ids=[f"{f}-{k}" for f, k in CASES])
def test_a_kind_is_reported_random_exactly_when_the_seed_changes_its_runs(family, kind):
    _check(_scenario(family, kind, 1), _scenario(family, kind, 2), family, kind)


@pytest.mark.parametrize("family, kind, label, params, draws", SETTINGS, ids=[f"{c[1]}-{c[2]}" for c in SETTINGS])
def test_the_settings_decide_whether_a_kind_draws(family, kind, label, params, draws, monkeypatch):
    monkeypatch.setitem(PARAMS, (family, kind), params)
    assert _check(_scenario(family, kind, 1), _scenario(family, kind, 2), family, kind) == draws, label


def test_the_known_random_kinds_are_reported_and_the_deterministic_ones_are_not():
    def parts(family: str, kind: str) -> list[str]:
        return pp.random_parts(_scenario(family, kind, 1))

    assert all(parts("queue", k) for k in ("red", "pie", "rda_fp", "rda_vp", "isda"))
    assert not any(parts("queue", k) for k in ("droptail", "codel", "fq_codel", "rda", "sda"))
    assert parts("cc", "bbr") == [f"flows.f{i}.cc=bbr" for i in range(3)] and parts("cc", "cubic") == []
    assert parts("workload", "on_off") == ["flows.f0.workload=on_off"]  # exponential periods in PARAMS


def test_the_replication_check_finds_random_parts_in_every_place_the_format_allows():
    s = pp.Scenario("places", duration="1s")
    s.host("a").host("b").host("c").router("r")
    s.link("a", "r", rate="100Mbps", delay="1ms", queue_ba={"kind": "pie"}, loss={"kind": "bernoulli", "p": 0.01})
    s.link("c", "r", rate="100Mbps", delay="1ms")
    s.link("r", "b", rate="5Mbps", delay="10ms", queue="red", hooks=[{"kind": "ce_threshold", "threshold_pkts": 5}])
    s.flow("f1", "a", "b", cc="bbr", start_jitter="10ms")
    s.flow("f2", "a", "b", transport="udp", workload={"kind": "poisson", "rate": "1Mbps", "packet_size": 500})
    s.flow("f3", "a", "b", cc={"kind": "cubic"})
    s.flow("f4", "a", "b", transport="udp", workload=pp.on_off("1Mbps", 500, "50ms", "50ms"))
    s.arrivals("web", "a", "b", pp.webtraf(2, 2))
    s.arrivals("crowd", ["a", "c"], "b", pp.flash_crowd(5, 10.0, "0.1s", pp.size("fixed", pkts=3), spacing="even"))
    assert seed_sources(s.to_dict()) == [
        "flows.f1.start_jitter", "flows.f1.cc=bbr", "flows.f2.workload=poisson", "links.a->r.queue_ba=pie",
        "links.a->r.loss=bernoulli", "links.r->b.queue=red", "arrivals.web.process=webtraf", "arrivals.crowd.src"]


def test_an_invalid_scenario_gets_the_validators_error_not_an_answer():
    s = pp.Scenario("bad", duration="1s")
    s.host("a").host("b")
    s.link("a", "b", rate="10Mbps", delay="1ms", loss={"kind": "bernoulli", "p": 2.0})
    with pytest.raises(pp.ScenarioError, match="loss.p"):
        pp.random_parts(s)


def test_every_kind_named_in_the_readme_and_docs_exists():
    accepted = set(re.findall(r'"const":\s*"([a-z_0-9]+)"', _native.json_schema()))
    accepted |= {n for names in kinds().values() for n in names}
    stale = []
    for path in [ROOT / "README.md", ROOT / "DESIGN.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for m in re.finditer(r'kind\s*=\s*"([a-z_0-9]+)"|"kind":\s*"([a-z_0-9]+)"', path.read_text()):
            name = m.group(1) or m.group(2)
            if name not in accepted:
                stale.append(f"{path.relative_to(ROOT)}: {name}")
    assert not stale, stale
