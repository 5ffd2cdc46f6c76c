"""The parking lot of seed 003 (Barham, MSR-TR-2001-100, s4.A.4) as scenario data, and the 7x7
grid of link rates and end-to-end delays run through :func:`pinchpoint.sweep.sweep`.

Topology: routers r0..r7 in a line; a reference source ``src`` on r0 and destination ``dst`` on
r7; at each routed hop n = 0..6 a source ``s<n>`` on r<n> and a destination ``d<n+1>`` on
r<n+1>. Five horizontal flows ``h1..h5`` run src -> dst through all eight routers; five vertical
flows ``v<n>_1..v<n>_5`` run s<n> -> d<n+1> across one hop. Every router-to-router link
therefore carries ten flows. All links have the same rate; horizontal links (src-r0, r<i>-r<i+1>,
r7-dst) have 1/9 and vertical links (s<n>-r<n>, r<n+1>-d<n+1>) 4/9 of the end-to-end delay, so
every flow has the same propagation delay. Buffers hold 20 packets per Mbit/s (a constant
maximum queueing delay, 20 x 1040 B at 1 Mbit/s = 166 ms).

Variants: ``tcp`` (drop-tail), ``ecn`` (RED, thresholds 25%/75% of the buffer, TCP
ECN-capable; ECN marking on the router ports that carry data, the ack-only ports RED without it),
``eca`` (drop-tail queues, the ``eca_load`` hook on router ports, WTP shapers
with weights 1..5 in each set; target utilisation 0.9) and ``eca80`` (the same at 0.8: the seed
says 90% in s4.A.2 and "the target 80% point" in s4.B.1).

Choices the seed leaves open (GAPS.md seed 003; the scenario files repeat them):
- TCP as ns-2 of 2001: 1000-byte segments + 40 bytes of headers, 40-byte acks, initial window 2,
  initial RTO 6 s, no SACK (NewReno), no delayed acks; the receive window is unlimited ("TCP
  maximum window sizes were also set such that each TCP flow is capable of saturating any
  link"). Minimum RTO 200 ms (ns-2's ``minrto_`` of the time was a tick bound; 200 ms is ours).
- RED: ns-2 2001 defaults w_q 0.002, max_p 0.1, gentle, packet mode, mean packet 1040 B.
- Flows start in [0, 1) s (``start_jitter``), which breaks the lock-step of forty identical
  starts; the seed gives no start times.
- Shares and utilisation are measured after a warm-up of 10% of the run (ECA's load estimate
  needs about 7 s to climb from its floor, ``docs/algorithms/eca_load.md``).
"""

from __future__ import annotations

from typing import Any

N_ROUTERS = 8
N_HOPS = N_ROUTERS - 1
WEIGHTS = [1, 2, 3, 4, 5]
#: Seven log-spaced values from 1 to 100 (10^(k/3), k = 0..6), for rates (Mbit/s) and delays (ms).
GRID_VALUES = [round(10 ** (k / 3), 3) for k in range(7)]  # 1, 2.154, 4.642, 10, 21.544, 46.416, 100
PKTS_PER_MBPS = 20  # s4.A.4: 20 packets of buffering per output port at 1 Mbit/s
PAYLOAD_BYTES = 1000
HEADER_BYTES = 40
WIRE_BYTES = PAYLOAD_BYTES + HEADER_BYTES
TCP_2001 = {"mss": PAYLOAD_BYTES, "header_bytes": HEADER_BYTES, "ack_bytes": 40, "init_cwnd_pkts": 2,
            "initial_rto": "6s", "min_rto": "200ms", "sack": False, "delayed_ack": False}
VARIANTS = ["tcp", "ecn", "eca", "eca80"]
TARGET = {"eca": 0.9, "eca80": 0.8}
ROUTER_LINKS = [f"r{i}->r{i + 1}" for i in range(N_HOPS)]
HOST_PORTS = ["src->r0"] + [f"s{n}->r{n}" for n in range(N_HOPS)]
RETX_FLAG = 1 << 3  # net::packet::flags::RETX


def buffer_pkts(rate_mbps: float) -> int:
    return max(1, round(PKTS_PER_MBPS * rate_mbps))


def queue(variant: str, rate_mbps: float, limit_pkts: int | None = None,
          red_thresholds: str = "fraction", data: bool = True) -> dict[str, Any]:
    """The router output queue of a variant. ``red_thresholds``: ``fraction`` (25%/75% of the
    buffer, s4.A.4) or ``packets`` (50/150 packets, s4.B.3's reading). ``data``: the port carries
    the flows' data; a port that carries only acknowledgements (not ECN-capable) gets RED without
    ECN, which treats them exactly as RED with it would (and the validator refuses an ECN
    setting no ECN-capable packet can meet)."""
    limit = limit_pkts if limit_pkts is not None else buffer_pkts(rate_mbps)
    if variant == "ecn":
        q: dict[str, Any] = {"kind": "red", "limit_pkts": limit, "ecn": data, "w_q": 0.002, "max_p": 0.1,
                             "gentle": True, "mean_pkt_bytes": WIRE_BYTES}
        if red_thresholds == "packets":
            q.update(min_th_pkts=50.0, max_th_pkts=150.0)
        else:
            q.update(min_th_fraction=0.25, max_th_fraction=0.75)
        return q
    return {"kind": "droptail", "limit_pkts": limit}


def hooks(variant: str) -> list[dict[str, Any]]:
    if variant in TARGET:
        return [{"kind": "eca_load", "target_utilisation": TARGET[variant]}]
    return []


def flow_names() -> list[str]:
    return [f"h{w}" for w in WEIGHTS] + [f"v{n}_{w}" for n in range(N_HOPS) for w in WEIGHTS]


def scenario(variant: str, rate_mbps: float = 10.0, delay_ms: float = 10.0, duration_s: float = 100.0,
             series_interval: str | None = "100ms", limit_pkts: int | None = None,
             red_thresholds: str = "fraction", packet_trace: bool = False,
             ect_reverse: bool = False) -> dict[str, Any]:
    """The parking lot as scenario data (see the module docstring). ``ect_reverse``: ECN-capable
    packets travel the reverse ports too (SYN-ACKs with ``ect_on_syn``), so RED marks there as well."""
    if variant not in VARIANTS:
        raise ValueError(f"variant {variant!r}: expected one of {VARIANTS}")
    rate = f"{rate_mbps}Mbps"
    h_delay = f"{delay_ms / 9.0}ms"
    v_delay = f"{4.0 * delay_ms / 9.0}ms"
    q = queue(variant, rate_mbps, limit_pkts, red_thresholds)
    # Every link is declared in the direction of its data (src -> r0 -> ... -> dst, s<n> -> r<n>
    # -> d<n+1>): its b->a port carries acknowledgements only.
    q_acks = queue(variant, rate_mbps, limit_pkts, red_thresholds, data=ect_reverse)
    hk = hooks(variant)
    nodes = [{"name": f"r{i}", "kind": "router"} for i in range(N_ROUTERS)]
    nodes += [{"name": "src"}, {"name": "dst"}]
    nodes += [{"name": f"s{n}"} for n in range(N_HOPS)] + [{"name": f"d{n + 1}"} for n in range(N_HOPS)]
    links: list[dict[str, Any]] = []

    def link(a: str, b: str, delay: str, router_a: bool, router_b: bool) -> None:
        lk: dict[str, Any] = {"a": a, "b": b, "rate": rate, "delay": delay}
        # Router output ports get the variant's queue (and hook); host NICs a buffer as large
        # as the routers' (the source's own queue is not where the seed measures).
        if router_a:
            lk["queue_ab"] = q
            if hk:
                lk["hooks_ab"] = hk
        else:
            lk["queue_ab"] = queue("tcp", rate_mbps, limit_pkts)
        if router_b:
            lk["queue_ba"] = q_acks
            if hk:
                lk["hooks_ba"] = hk
        else:
            lk["queue_ba"] = queue("tcp", rate_mbps, limit_pkts)
        links.append(lk)

    link("src", "r0", h_delay, False, True)
    for i in range(N_HOPS):
        link(f"r{i}", f"r{i + 1}", h_delay, True, True)
    link("r7", "dst", h_delay, True, False)
    for n in range(N_HOPS):
        link(f"s{n}", f"r{n}", v_delay, False, True)
        link(f"r{n + 1}", f"d{n + 1}", v_delay, True, False)

    flows: list[dict[str, Any]] = []
    tcp = dict(TCP_2001, ecn=variant == "ecn")

    def flow(name: str, src: str, dst: str, w: int) -> None:
        f: dict[str, Any] = {"name": name, "src": src, "dst": dst, "start_jitter": "1s",
                             "workload": {"kind": "bulk"}, "tcp": tcp}
        if variant in TARGET:
            f["wtp"] = {"weight": float(w)}
        flows.append(f)

    for w in WEIGHTS:
        flow(f"h{w}", "src", "dst", w)
    for n in range(N_HOPS):
        for w in WEIGHTS:
            flow(f"v{n}_{w}", f"s{n}", f"d{n + 1}", w)

    data: dict[str, Any] = {
        "name": f"eca-parking-lot-{variant}",
        "description": (f"Seed 003 parking lot (MSR-TR-2001-100 s4.A.4), {variant}: {rate_mbps} Mbit/s links, "
                        f"{delay_ms} ms end-to-end; generated by python/pinchpoint/reproduce/eca/parking_lot.py"),
        "simulation": {"duration": f"{duration_s}s", "seed": 1, "stop_when_done": False},
        "nodes": nodes,
        "links": links,
        "flows": flows,
    }
    metrics: dict[str, Any] = {}
    if series_interval:
        metrics["series_interval"] = series_interval
        # The same 100 ms intervals as the delivery rates of figure 6 (the flow_rates table).
        metrics["rate_interval"] = series_interval
    if packet_trace:
        # Deliveries, and the moment each data packet starts onto the wire at its host's NIC:
        # the network delay starts there, after the WTP shaper (see network_delays).
        metrics["packet_trace"] = True
        metrics["capture"] = HOST_PORTS
    if metrics:
        data["metrics"] = metrics
    return data


def grid_zip(variant: str, rates_mbps: list[float], delays_ms: list[float]) -> list[dict[str, list[Any]]]:
    """Two zip groups (crossed by the plan): every link's rate and queues with the rate, every
    link's delay with the delay."""
    base = scenario(variant)
    rate_group: dict[str, list[Any]] = {}
    delay_group: dict[str, list[Any]] = {}
    for lk in base["links"]:
        name = f"links.{lk['a']}->{lk['b']}"
        rate_group[f"{name}.rate"] = [f"{r}Mbps" for r in rates_mbps]
        for side in ("queue_ab", "queue_ba"):
            kind_variant = variant if lk[side]["kind"] == "red" else "tcp"
            rate_group[f"{name}.{side}"] = [queue(kind_variant, r, data=side == "queue_ab") for r in rates_mbps]
        vertical = lk["a"].startswith(("s", "d")) or lk["b"].startswith(("s", "d"))
        share = 4.0 / 9.0 if vertical and lk["a"] != "src" and lk["b"] != "dst" else 1.0 / 9.0
        delay_group[f"{name}.delay"] = [f"{d * share}ms" for d in delays_ms]
    return [rate_group, delay_group]


def run_grid(variant: str, rates_mbps: list[float], delays_ms: list[float], duration_s: float, store: str,
             scheduler: str | None = None, workers: int | None = None, progress=None):
    """Runs the grid for one variant through :func:`pinchpoint.sweep.sweep` (local processes, or
    Dask when ``scheduler`` is given); each run keeps its series. Returns the sweep table with
    columns ``rate_mbps`` and ``delay_ms`` added."""
    from ...plan import Plan
    from ...scenario import Scenario
    from ...sweep import sweep

    base = Scenario.from_dict(scenario(variant, duration_s=duration_s), origin=f"eca-parking-lot-{variant}")
    groups = grid_zip(variant, rates_mbps, delays_ms)
    plan = Plan(zip=groups, seeds=[1])
    table = sweep(base, plan=plan, store=store, scheduler=scheduler, workers=workers, keep={"series"},
                  progress=progress)
    table = table.copy()
    table["rate_mbps"] = table["links.r0->r1.rate_bps"] / 1e6
    table["delay_ms"] = table["links.r0->r1.delay_s"] * 9e3
    table["variant"] = variant
    return table


# ---- measurements ------------------------------------------------------------------------------

#: Fraction of each run discarded before shares, utilisation and CoV are measured. At large
#: bandwidth-delay products the forty slow starts overflow the buffers before ECA's estimate has
#: climbed from its floor (about 7 s), and NewReno without SACK then repairs the losses one per
#: round trip; half the run keeps that start-up out of every variant's numbers alike.
WARMUP_FRACTION = 0.5


def measure(res: Any, rate_mbps: float, warmup_fraction: float = WARMUP_FRACTION) -> dict[str, Any]:
    """Per-flow shares of the link rate, utilisation of the router links and the CoV of 100 ms
    rates, over the part of the run after the warm-up. Needs the series (100 ms samples)."""
    import numpy as np

    fs = res.flow_series.to_pandas() if hasattr(res.flow_series, "to_pandas") else res.flow_series
    ps = res.port_series.to_pandas() if hasattr(res.port_series, "to_pandas") else res.port_series
    wide = fs.pivot(index="t_s", columns="flow", values="delivered_bytes").sort_index()
    end = float(wide.index[-1])
    t0 = end * warmup_fraction
    win = wide.loc[wide.index >= t0 - 1e-9]
    span = float(win.index[-1] - win.index[0])
    link_bps = rate_mbps * 1e6
    # Share: goodput (payload bits) over the link rate.
    rates = (win.iloc[-1] - win.iloc[0]) * 8.0 / span
    shares = (rates / link_bps).to_dict()
    # CoV of the 100 ms delivery rates of each flow (population std over mean), averaged over
    # flows, over the intervals that start after the warm-up: from the flow_rates table
    # (metrics.rate_interval) when the run recorded it, else from the series' differences (the
    # same bytes over the same intervals).
    covs = []
    for x in _interval_bytes(res, win, t0, end):
        if x.mean() > 0:
            covs.append(float(x.std() / x.mean()))
    pw = ps[ps["port"].isin(ROUTER_LINKS)].pivot(index="t_s", columns="port", values="tx_bytes").sort_index()
    pw = pw.loc[pw.index >= t0 - 1e-9]
    util = ((pw.iloc[-1] - pw.iloc[0]) * 8.0 / (float(pw.index[-1] - pw.index[0]) * link_bps)).to_dict()
    h = [shares[f"h{w}"] for w in WEIGHTS]
    v_by_hop = [[shares[f"v{n}_{w}"] for w in WEIGHTS] for n in range(N_HOPS)]
    v_mean = [float(np.mean([v_by_hop[n][k] for n in range(N_HOPS)])) for k in range(len(WEIGHTS))]
    return {
        "shares": shares,
        "h_shares": h,
        "v_shares": v_mean,
        "v_by_hop": v_by_hop,
        "h_total": float(sum(h)),
        "v_total": float(np.mean([sum(v) for v in v_by_hop])),
        "utilisation": float(np.mean(list(util.values()))),
        "utilisation_by_link": util,
        "cov": float(np.mean(covs)) if covs else float("nan"),
        "window_s": (t0, end),
    }


def _interval_bytes(res: Any, win: Any, t0: float, end: float) -> list[Any]:
    """Bytes per 100 ms interval of each flow, intervals starting at or after ``t0`` and ending by
    ``end``: from ``res.flow_rates`` if recorded, else the differences of the series ``win``."""
    rates = getattr(res, "flow_rates", None)
    if rates is not None and rates.num_rows > 0:
        fr = rates.to_pandas()
        iv = float(fr["interval_start_s"].drop_duplicates().sort_values().diff().min())
        fr = fr[(fr["interval_start_s"] >= t0 - 1e-9) & (fr["interval_start_s"] + iv <= end + 1e-9)]
        return [g.sort_values("interval_start_s")["bytes"].to_numpy(dtype=float) for _, g in fr.groupby("flow", sort=True)]
    d = win.diff().iloc[1:]
    return [d[col].to_numpy(dtype=float) for col in d.columns]


def network_delays(res: Any, from_s: float = 0.0) -> Any:
    """Per-packet network delay of first transmissions delivered after ``from_s``: delivery time
    minus the time the packet started onto the wire at its host's NIC. The transport's own
    timestamp would add the time ECA's shaper held the packet, which s4.B.3 counts as queueing
    inside the operating system, not in the network. Columns: ``flow``, ``delay_ms``."""
    pk = res.packets.to_pandas() if hasattr(res.packets, "to_pandas") else res.packets
    cap = res.capture.to_pandas() if hasattr(res.capture, "to_pandas") else res.capture
    pk = pk[(pk["t_s"] >= from_s) & ~pk["retx"]][["t_s", "flow", "seq"]]
    cap = cap[(cap["kind"] == 0) & ((cap["flags"] & RETX_FLAG) == 0)][["t_ps", "flow", "seq"]]
    cap = cap.drop_duplicates(["flow", "seq"])
    j = pk.merge(cap, on=["flow", "seq"], how="inner")
    j["delay_ms"] = (j["t_s"] - j["t_ps"] * 1e-12) * 1e3
    return j[["flow", "delay_ms"]]


def weight_error(set_shares: list[float]) -> float:
    """Largest relative deviation of a set's shares from proportional to weights 1..5."""
    total = sum(set_shares)
    if total <= 0:
        return float("inf")
    want = [w / sum(WEIGHTS) for w in WEIGHTS]
    return max(abs(s / total - x) / x for s, x in zip(set_shares, want))


def run_point(variant: str, rate_mbps: float, delay_ms: float, duration_s: float, **kw: Any) -> tuple[Any, dict[str, Any]]:
    """Runs one parking lot in this process and measures it."""
    from ...api import run
    from ...scenario import Scenario

    s = Scenario.from_dict(scenario(variant, rate_mbps, delay_ms, duration_s, **kw), origin=f"eca-{variant}")
    res = run(s)
    return res, measure(res, rate_mbps)


def scenarios_path() -> Any:
    from .. import scenarios_dir

    return scenarios_dir() / "eca"


def write_scenarios(out_dir: Any = None) -> list[Any]:
    """Writes the parking lot at 10 Mbit/s, 10 ms for every variant (the grid's centre, and the
    setting of the delay histograms) as TOML files under ``scenarios/seeds/eca/``."""
    from pathlib import Path

    import tomli_w

    out = Path(out_dir) if out_dir else scenarios_path()
    out.mkdir(parents=True, exist_ok=True)
    header = "".join("# " + line + "\n" if line else "#\n" for line in (__doc__ or "").strip().splitlines())
    paths = []
    for v in VARIANTS:
        p = out / f"parking_lot_{v}.toml"
        p.write_text(header + "\n" + tomli_w.dumps(scenario(v)))
        paths.append(p)
    return paths


if __name__ == "__main__":
    for p in write_scenarios():
        print(p)
