"""Seed 001 (Song, Joo, Chung): the experiment of s4.1 (Figure 4) and the paper's claims.

The 15 scenario files (traffic mixes tcp, udp, mixed x policies RDA, RDA/FP, RDA/VP, SDA, ISDA)
live under ``scenarios/seeds/isda/`` and are written by ``scenarios/seeds/isda/generate.py``;
their descriptions give every choice the paper leaves open. This module names them, the variants
the report runs beside them, and the paper's numbers.
"""

from __future__ import annotations

import math
from typing import Any

from .. import scenarios_dir

MIXES = ("tcp", "udp", "mixed")
POLICIES = ("rda", "rda_fp", "rda_vp", "sda", "isda")
LABEL = {"rda": "RDA", "rda_fp": "RDA/FP", "rda_vp": "RDA/VP", "sda": "SDA", "isda": "ISDA",
         "isda_drop_all": "ISDA (drop_all)"}
TCP_FLOWS = [f"S{i}" for i in range(1, 10)]
UDP_FLOWS = ["S10", "S11", "S12"]
UDP_RATE_BPS = {"S10": 1e6, "S11": 2e6, "S12": 3e6}
BOTTLENECK = "node1->node2"
LINK_BPS = 10e6
FAIR_SHARE_BPS = LINK_BPS / 12
FULL_S = 400.0
QUICK_S = 30.0
#: The paper's queues settle "after 8 seconds" (s4.2); steady-state figures start here.
PAPER_SETTLE_S = 8.0
WARMUP_S = 10.0
BIN_S = 1.0
SEEDS_FULL = (1, 2, 3, 4, 5)
SEEDS_QUICK = (1, 2)
MIN_QUE_PKTS = 10.0
MAX_QUE_PKTS = 25.0
QUEUE_WEIGHT = 0.002
MEAN_PKT_BYTES = 1000  # the scenario files' mean_pkt_bytes (ages QueAvg over idle periods)
BOTTLENECK_QUEUE = "links.12.queue_ab"  # the node1 -> node2 policy in every scenario file


def p0_readings() -> dict[str, float]:
    """Eq. 2, P0 = 1.225 / (R BW^0.5), under the readings its missing units allow, with R = 48 ms
    (the scenario files' target RTT) on the 10 Mbit/s link of 1000-byte packets (1250 packets/s).
    The last one is the TCP model eq. 2 cites (Floyd and Fall 1999: a flow sending T packets/s
    sees p = (1.22 / (R T))^2), with T the fair share of 12 flows."""
    r = 0.048
    pps = LINK_BPS / 8000
    return {
        "R s, BW packets/s (as printed; main runs)": min(1.0, 1.225 / (r * math.sqrt(pps))),
        "R s, BW bit/s": min(1.0, 1.225 / (r * math.sqrt(LINK_BPS))),
        "R s, BW Mbit/s": min(1.0, 1.225 / (r * math.sqrt(LINK_BPS / 1e6))),
        "TCP model, p = (1.22 / (R T))^2, T = 1250/12 packets/s": min(1.0, (1.22 / (r * pps / 12)) ** 2),
    }


def _p0_given(p0: float) -> dict[str, Any]:
    """Overrides that give P0 directly: ``max_p``, and the files' ``target_rtt`` (eq. 2's R,
    then unused, and refused beside max_p) removed."""
    return {f"{BOTTLENECK_QUEUE}.max_p": p0, f"{BOTTLENECK_QUEUE}.target_rtt": None}


def _sensitivity() -> tuple[tuple[str, str, dict[str, Any]], ...]:
    rows: list[tuple[str, str, dict[str, Any]]] = []
    for label, p0 in list(p0_readings().items())[1:]:
        for pol in ("rda_vp", "isda"):
            rows.append((f"{LABEL[pol]}, eq. 2 read as {label}: P0 = {p0:.4f}", pol, _p0_given(p0)))
    rows += [
        ("RDA/VP, P0 = max_p 0.1 (ns-2 RED) instead of eq. 2", "rda_vp", _p0_given(0.1)),
        ("ISDA, P0 = max_p 0.1 instead of eq. 2", "isda", _p0_given(0.1)),
        ("ISDA, window 0.5 s", "isda", {f"{BOTTLENECK_QUEUE}.window": "500ms"}),
        ("ISDA, window 2 s", "isda", {f"{BOTTLENECK_QUEUE}.window": "2s"}),
        ("ISDA, burst_ratio 2 (below alpha1/alpha2)", "isda", {f"{BOTTLENECK_QUEUE}.burst_ratio": 2.0}),
        ("SDA, window 0.5 s", "sda", {f"{BOTTLENECK_QUEUE}.window": "500ms"}),
        ("RDA, instantaneous queue above MaxQue 25 (the earlier reading)", "rda",
         {f"{BOTTLENECK_QUEUE}.measure": "instantaneous", f"{BOTTLENECK_QUEUE}.threshold_pkts": 25.0}),
    ]
    return tuple(rows)


#: Sensitivity runs (mixed traffic, seed 1): the choices the paper leaves open, varied one at a
#: time. They are reported beside the main runs, never used for them.
SENSITIVITY: tuple[tuple[str, str, dict[str, Any]], ...] = _sensitivity()
#: The named option beside ISDA's RED-PD pre-filter: every flagged arrival dropped while
#: QueAvg > MinQue (the reading before RED-PD). Run for every mix.
DROP_ALL = {f"{BOTTLENECK_QUEUE}.prefilter": "drop_all"}


def scenario_path(mix: str, policy: str):
    """The committed scenario file of ``mix`` under ``policy``."""
    return scenarios_dir() / "isda" / f"{mix}_{policy}.toml"
