"""Random topologies and workloads for large sweeps, in the style of Toomey's thesis ch. 10
("Simulating Random Scenarios"): a random connected router graph with low-speed links of mixed
capacities and latencies, hosts hung off random routers, and flows between random hosts.

:func:`random_scenario` returns a :class:`pinchpoint.Scenario` (TRUMP sources, RBCC on every
port by default); :func:`compare_with_optimum` runs one and sets each flow's steady rate (the
median of the rates RBCC returned over the second half of the run) beside the max-min optimum.
Every draw comes from ``random.Random(seed)``, so a seed names a scenario.
"""

from __future__ import annotations

import random
from typing import Any

from .scenario import Scenario, file

#: Link capacities to draw from, bit/s (the thesis's scenarios mix 64 kbit/s to 1 Mbit/s).
RATES_BPS = (64_000, 128_000, 256_000, 512_000, 1_000_000)


def random_scenario(seed: int, routers: int = 6, flows: int = 8, duration_s: float = 200.0,
                    extra_links: int = 2, desired_fraction: float = 0.25, rbcc: bool = True) -> Scenario:
    """A random scenario: ``routers`` routers joined by a random spanning tree plus
    ``extra_links`` random chords, every router link of a random capacity in :data:`RATES_BPS`
    and latency uniform in [10 ms, 500 ms]; ``flows`` TRUMP flows, each from its own host to its
    own host on two distinct random routers, starting uniformly in [0, 10 s), a quarter of them
    with a desired rate below the slowest link. Files are large enough to outlast the run."""
    rnd = random.Random(seed)
    s = Scenario(f"random-{seed}", duration=f"{duration_s}s", seed=seed)
    names = [f"r{i}" for i in range(routers)]
    for r in names:
        s.router(r)
    q = {"kind": "droptail", "limit_bytes": "15000B"}
    hooks = [{"kind": "rbcc"}] if rbcc else []
    edges: set[tuple[int, int]] = set()
    for i in range(1, routers):
        edges.add((rnd.randrange(i), i))
    tries = 0
    while len(edges) < routers - 1 + extra_links and tries < 100:
        tries += 1
        a, b = sorted(rnd.sample(range(routers), 2))
        edges.add((a, b))
    for a, b in sorted(edges):
        opts: dict[str, Any] = {"queue": q}
        if hooks:
            opts["hooks"] = hooks
        s.link(names[a], names[b], rate=f"{rnd.choice(RATES_BPS)}bps", delay=f"{rnd.randint(10, 500)}ms", **opts)
    for k in range(flows):
        a, b = rnd.sample(range(routers), 2)
        src, dst = f"h{k}s", f"h{k}d"
        s.host(src)
        s.host(dst)
        for h, r in ((src, a), (dst, b)):
            opts = {"queue": q}
            if hooks:
                opts["hooks"] = hooks
            s.link(h, names[r], rate="10Mbps", delay="1us", **opts)
        trump: dict[str, Any] = {}
        if rnd.random() < desired_fraction:
            trump["desired_rate"] = f"{rnd.randint(8, 60) * 1000}bps"
        start = round(rnd.uniform(0.0, 10.0), 3)
        s.flow(f"f{k}", src, dst, workload=file(f"{1500 * 100_000}B"), transport="trump" if rbcc else "tcp",
               start=f"{start}s")
        if trump:
            s.set(f"flows.{k}.trump", trump)
    s.metrics(series_interval="500ms")
    return s


def compare_with_optimum(seed: int, **kw: Any) -> list[dict[str, Any]]:
    """Runs :func:`random_scenario` and returns, per flow, the steady rate RBCC returned (median
    of the samples in the second half of the run), the max-min optimum at the end and the
    relative gap."""
    from .api import run
    from .optimum import maxmin

    sc = random_scenario(seed, **kw)
    res = run(sc)
    fs = res.flow_series.to_pandas()
    end = float(res.meta["end_time_s"])
    opt = maxmin(sc, at=end).rates_bps
    out = []
    for name, want in opt.items():
        got = float(fs[(fs.flow == name) & (fs.t_s >= end / 2)].rate_bps.median())
        out.append({"seed": seed, "flow": name, "measured_bps": got, "optimum_bps": want,
                    "rel_gap": abs(got - want) / want})
    return out
