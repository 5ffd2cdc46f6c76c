"""ECA on a shared 10 Mbit/s Ethernet (seed 003, Barham MSR-TR-2001-100 s5.D, figure 14).

The seed's home-LAN prototype: one machine monitors the load on a shared 10 Mbit/s Ethernet and
broadcasts it (RLOAD) every interval; every machine shapes its flows with WTP. Three experiments:

- a) no ECA: a CBR flow needing half the network and two best-effort TCP flows;
- b) ECA: the CBR flow is unmanaged ("assigned high priority"), the two TCP flows are shaped with
  weights "in various proportions"; the text notes "the differing speed responses to increases
  and decreases in total load";
- c) two CBR flows and, on top, a variable-rate "DVD-quality" media stream, also unmanaged; with
  ECA the best-effort flows make room and the stream is protected, without ECA it breaks up.

How the shared medium is modelled here (choices the seed leaves open, each ours):

- The medium is one 10 Mbit/s link ``tx -> rx`` that every packet of every machine crosses,
  acknowledgements included (on a shared Ethernet the acks take medium time too). Each machine
  has a 10 Mbit/s link to ``tx`` and one from ``rx``; explicit routes send everything through the
  medium. Delays: 0.1 ms per host link and 0.1 ms for the medium.
- The medium's queue is one drop-tail FIFO of 50 packets. CSMA/CD, its per-station sharing and the
  capture effect the seed describes for a) are not modelled: without ECA the machines share the
  medium as a FIFO shares a link (so a)'s "1/n per machine" is not reproduced; our a) shows the
  CBR flow losing packets to TCP's queue instead).
- The monitor: the ``eca_load`` estimator on the medium (target 90%, 100 ms intervals, as the
  simulations), stamping LOAD into data packets; receivers reflect it on their acks, or in a 40 B
  report after 100 ms of reverse silence (``docs/algorithms/wtp.md``). The seed's monitor
  broadcasts one RLOAD to every machine each interval; reflection delivers the same estimate to
  every shaped source within one interval plus a LAN round trip.
- Rates and timing: CBR 5 Mbit/s ("requiring 50% of the network") on from 30 s to 90 s in a) and
  b), so both a rise and a fall of the load happen; weights 1:1, 1:2 and 1:4 for b) ("various
  proportions"); in c) two CBR flows of 1 Mbit/s for the whole run and the media stream from
  40 s as exponential on/off at 6 Mbit/s with mean 250 ms on and off (mean 3 Mbit/s, peak 6: a
  DVD-quality variable-rate stream of the time; the seed gives no rate). 1000-byte UDP datagrams
  and TCP segments, TCP as the parking lot's (``parking_lot.TCP_2001``).
"""

from __future__ import annotations

from typing import Any

from . import parking_lot as pl

RATE_MBPS = 10.0
HOST_DELAY = "0.1ms"
MEDIUM_DELAY = "0.1ms"
MEDIUM_LIMIT_PKTS = 50
TARGET = 0.9
DURATION_S = 120.0
CBR_ON_S, CBR_OFF_S = 30.0, 90.0
VIDEO_FROM_S = 40.0
WEIGHT_SETS = [(1.0, 1.0), (1.0, 2.0), (1.0, 4.0)]
#: Experiments: (name, eca on, best-effort weights or None, media experiment c)
EXPERIMENTS = [("a", False, None, False)] + [(f"b{int(w2)}", True, (w1, w2), False) for w1, w2 in WEIGHT_SETS] + [
    ("c_noeca", False, None, True), ("c_eca", True, (1.0, 2.0), True)]


def scenario(eca: bool, weights: tuple[float, float] | None, media: bool, duration_s: float = DURATION_S,
             name: str = "lan") -> dict[str, Any]:
    """One home-LAN experiment as scenario data (see the module docstring)."""
    rate = f"{RATE_MBPS}Mbps"
    if media:
        flows_spec = [("cbr1", "udp"), ("cbr2", "udp"), ("video", "udp"), ("be1", "tcp"), ("be2", "tcp")]
    else:
        flows_spec = [("cbr", "udp"), ("be1", "tcp"), ("be2", "tcp")]
    hosts = [f"{f}_src" for f, _ in flows_spec] + [f"{f}_dst" for f, _ in flows_spec]
    nodes = [{"name": "tx", "kind": "router"}, {"name": "rx", "kind": "router"}] + [{"name": h} for h in hosts]
    medium: dict[str, Any] = {"a": "tx", "b": "rx", "rate": rate, "delay": MEDIUM_DELAY,
                              "queue_ab": {"kind": "droptail", "limit_pkts": MEDIUM_LIMIT_PKTS}}
    if eca:
        medium["hooks_ab"] = [{"kind": "eca_load", "target_utilisation": TARGET}]
    links: list[dict[str, Any]] = [medium]
    routes: list[dict[str, Any]] = []
    for h in hosts:
        links.append({"a": h, "b": "tx", "rate": rate, "delay": HOST_DELAY})
        links.append({"a": "rx", "b": h, "rate": rate, "delay": HOST_DELAY})
    # Everything crosses the medium: each host sends every destination to tx, tx sends to rx.
    for d in hosts:
        routes.append({"node": "tx", "dst": d, "next_hop": "rx"})
        for s in hosts:
            if s != d:
                routes.append({"node": s, "dst": d, "next_hop": "tx"})
    flows: list[dict[str, Any]] = []
    tcp = dict(pl.TCP_2001)
    be = 0
    for f, transport in flows_spec:
        fl: dict[str, Any] = {"name": f, "src": f"{f}_src", "dst": f"{f}_dst", "transport": transport}
        if f == "cbr":
            fl["start"] = f"{CBR_ON_S}s"
            fl["workload"] = {"kind": "cbr", "rate": "5Mbps", "packet_size": pl.WIRE_BYTES,
                              "duration": f"{CBR_OFF_S - CBR_ON_S}s"}
        elif f.startswith("cbr"):
            fl["workload"] = {"kind": "cbr", "rate": "1Mbps", "packet_size": pl.WIRE_BYTES}
        elif f == "video":
            fl["start"] = f"{VIDEO_FROM_S}s"
            fl["workload"] = {"kind": "on_off", "rate": "6Mbps", "packet_size": pl.WIRE_BYTES,
                              "on": "250ms", "off": "250ms", "distribution": "exponential"}
        else:
            fl["workload"] = {"kind": "bulk"}
            fl["tcp"] = tcp
            fl["start_jitter"] = "100ms"
            if eca and weights is not None:
                fl["wtp"] = {"weight": weights[be]}
            be += 1
        flows.append(fl)
    return {
        "name": f"eca-lan-{name}",
        "description": ("Seed 003 s5.D home LAN (figure 14): a shared 10 Mbit/s medium; generated by "
                        "python/pinchpoint/reproduce/eca/lan.py"),
        "simulation": {"duration": f"{duration_s}s", "seed": 1, "stop_when_done": False},
        # The packet trace gives the UDP flows' losses inside a measurement window (sequence gaps).
        "metrics": {"series_interval": "100ms", "packet_trace": True},
        "nodes": nodes,
        "links": links,
        "routes": routes,
        "flows": flows,
    }


def run_experiment(name: str, duration_s: float = DURATION_S) -> tuple[Any, dict[str, Any]]:
    """Runs one named experiment of :data:`EXPERIMENTS` and measures it."""
    from ...api import run
    from ...scenario import Scenario

    spec = {e[0]: e for e in EXPERIMENTS}[name]
    _, eca, weights, media = spec
    s = Scenario.from_dict(scenario(eca, weights, media, duration_s, name), origin=f"eca-lan-{name}")
    res = run(s)
    return res, measure(res, eca, weights, media, duration_s)


def rates_per_second(res: Any) -> Any:
    """Delivered rate of each flow in 1 s bins (Mbit/s), from the 100 ms series."""
    fs = res.flow_series.to_pandas() if hasattr(res.flow_series, "to_pandas") else res.flow_series
    wide = fs.pivot(index="t_s", columns="flow", values="delivered_bytes").sort_index()
    wide = wide[(wide.index.values * 10).round() % 10 == 0]  # whole seconds
    return (wide.diff().iloc[1:] * 8.0 / 1e6).clip(lower=0)


def _window_rate(r: Any, flow: str, a: float, b: float) -> float:
    x = r[(r.index > a) & (r.index <= b)][flow]
    return float(x.mean()) if len(x) else float("nan")


def window_loss(res: Any, flow: str, a: float, b: float) -> float:
    """Fraction of a UDP flow's datagrams lost among those sent in (a, b]: sequence numbers count
    bytes, so the datagrams sent are the span of the sequence numbers delivered in the window."""
    pk = res.packets.to_pandas() if hasattr(res.packets, "to_pandas") else res.packets
    x = pk[(pk["flow"] == flow) & (pk["t_s"] > a) & (pk["t_s"] <= b)]
    if len(x) < 2:
        return float("nan")
    size = float(x["size_bytes"].iloc[0])
    sent = (float(x["seq"].max()) - float(x["seq"].min())) / size + 1.0
    return max(0.0, 1.0 - len(x) / sent)


def _settle_s(series: Any, t0: float, target: float, tol: float) -> float:
    """Seconds after ``t0`` until ``series`` (1 s bins) first comes within ``tol`` (relative) of
    ``target`` and stays there for 3 s."""
    x = series[series.index > t0]
    ok = (abs(x - target) <= tol * target).to_numpy()
    for i in range(len(ok) - 2):
        if ok[i] and ok[i + 1] and ok[i + 2]:
            return float(x.index[i] - t0)
    return float("inf")


def measure(res: Any, eca: bool, weights: tuple[float, float] | None, media: bool, duration_s: float) -> dict[str, Any]:
    """Rates, losses and, for b), the response times to the load's rise and fall."""
    r = rates_per_second(res)
    fl = res.flows.to_pandas() if hasattr(res.flows, "to_pandas") else res.flows
    fl = fl.set_index("flow")
    loss = {f: (float(fl.loc[f, "lost_pkts"]) / max(float(fl.loc[f, "sent_pkts"]), 1.0)) for f in fl.index}
    out: dict[str, Any] = {"rates": r, "loss": loss, "eca": eca, "weights": weights, "media": media}
    if not media:
        on_a, on_b = CBR_ON_S + 10.0, CBR_OFF_S  # CBR on, after 10 s of settling
        off_a, off_b = CBR_OFF_S + 15.0, duration_s
        out["cbr_rate"] = _window_rate(r, "cbr", on_a, on_b)
        out["cbr_loss_steady"] = window_loss(res, "cbr", on_a, on_b)
        out["be_on"] = (_window_rate(r, "be1", on_a, on_b), _window_rate(r, "be2", on_a, on_b))
        out["be_off"] = (_window_rate(r, "be1", off_a, off_b), _window_rate(r, "be2", off_a, off_b))
        agg = r["be1"] + r["be2"]
        before = float(agg[(agg.index > CBR_ON_S - 10.0) & (agg.index <= CBR_ON_S)].mean())
        during = float(agg[(agg.index > on_a) & (agg.index <= on_b)].mean())
        after = float(agg[(agg.index > off_a) & (agg.index <= off_b)].mean())
        out["be_before"], out["be_during"], out["be_after"] = before, during, after
        # Response to the rise (CBR on) and to the fall (CBR off) of the load, 10% bands.
        out["rise_response_s"] = _settle_s(agg, CBR_ON_S, during, 0.1)
        out["fall_response_s"] = _settle_s(agg, CBR_OFF_S, after, 0.1)
    else:
        a, b = VIDEO_FROM_S + 10.0, duration_s
        out["video_rate"] = _window_rate(r, "video", a, b)
        out["video_loss_steady"] = window_loss(res, "video", a, b)
        out["be"] = (_window_rate(r, "be1", a, b), _window_rate(r, "be2", a, b))
        out["cbr"] = (_window_rate(r, "cbr1", a, b), _window_rate(r, "cbr2", a, b))
    return out


ORDER = ["cbr", "cbr1", "cbr2", "video", "be1", "be2"]
LABEL = {"a": "a) no ECA", "b1": "b) ECA, weights 1:1", "b2": "b) ECA, weights 1:2", "b4": "b) ECA, weights 1:4",
         "c_noeca": "c) media stream, no ECA", "c_eca": "c) media stream, ECA 1:2"}


def plot(results: dict[str, dict[str, Any]], path: Any) -> None:
    """Figure 14: cumulative share of the medium per flow over time (unmanaged flows at the
    bottom, best-effort flows stacked on top), one panel per experiment."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...plots import save_figure

    names = list(results)
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 2.0 * len(names)), sharex=True)
    for ax, n in zip(axes, names):
        r = results[n]["rates"]
        cols = [c for c in ORDER if c in r.columns]
        ax.stackplot(r.index, *[r[c] / RATE_MBPS for c in cols], labels=cols)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("share")
        ax.set_title(LABEL.get(n, n), fontsize=9)
        ax.legend(loc="upper left", fontsize=7, ncol=len(cols))
    axes[-1].set_xlabel("time (s)")
    save_figure(fig, path, dpi=100)


def claims(results: dict[str, dict[str, Any]]) -> list[tuple[str, str, bool]]:
    """The seed's statements about figure 14, each with what we measured and a verdict."""
    out: list[tuple[str, str, bool]] = []
    a = results["a"]
    out.append(("a) without ECA the CBR flow (50% of the network) is disrupted",
                f"CBR loss {100 * a['cbr_loss_steady']:.1f}% while both TCP flows run beside it, "
                f"{a['cbr_rate']:.2f} of 5 Mbit/s delivered", a["cbr_loss_steady"] > 0.01))
    for k in ("b1", "b2", "b4"):
        b = results[k]
        w1, w2 = b["weights"]
        want = w2 / w1
        got_on = b["be_on"][1] / b["be_on"][0] if b["be_on"][0] > 0 else float("inf")
        got_off = b["be_off"][1] / b["be_off"][0] if b["be_off"][0] > 0 else float("inf")
        ok = abs(got_on / want - 1) <= 0.15 and abs(got_off / want - 1) <= 0.15 and b["cbr_loss_steady"] < 0.001
        out.append((f"b) ECA: the unmanaged CBR flow is protected and best-effort flows share in proportion {w1:g}:{w2:g}",
                    f"CBR loss {100 * b['cbr_loss_steady']:.2f}% once ECA settled ({100 * b['loss']['cbr']:.2f}% over the "
                    f"run, lost while the load estimate climbs after the CBR starts), {b['cbr_rate']:.2f} Mbit/s; "
                    f"be2/be1 = {got_on:.2f} with CBR on, {got_off:.2f} after", ok))
    b = results["b2"]
    out.append(("b) ECA responds faster to an increase of the load than to a decrease",
                f"best-effort aggregate within 10% of its new level {b['rise_response_s']:.0f} s after the CBR starts, "
                f"{b['fall_response_s']:.0f} s after it stops", b["rise_response_s"] < b["fall_response_s"]))
    cn, ce = results["c_noeca"], results["c_eca"]
    out.append(("c) with ECA the high-priority media stream is protected; without ECA it breaks up",
                f"media stream loss {100 * ce['video_loss_steady']:.2f}% with ECA once settled "
                f"({100 * ce['loss']['video']:.2f}% over the run), {100 * cn['video_loss_steady']:.2f}% without",
                ce["video_loss_steady"] < 0.001 and cn["video_loss_steady"] > 0.01))
    w = ce["be"][1] / ce["be"][0] if ce["be"][0] > 0 else float("inf")
    out.append(("c) the best-effort flows are throttled to make room and share the rest in proportion (1:2)",
                f"be2/be1 = {w:.2f}; best effort {sum(ce['be']):.2f} Mbit/s beside {ce['video_rate']:.2f} of media "
                f"and {sum(ce['cbr']):.2f} of CBR", abs(w / 2.0 - 1) <= 0.15))
    return out


def run_all(duration_s: float = DURATION_S) -> dict[str, dict[str, Any]]:
    return {name: run_experiment(name, duration_s)[1] for name, *_ in EXPERIMENTS}
