"""Quantities with units, parsed as the scenario format does (``crates/pinchpoint-core/src/scenario/units.rs``).

Used to give sweep parameters typed columns: ``links.r1->r2.rate = "15Mbps"`` gets a numeric
``links.r1->r2.rate_bps = 15e6`` beside it, so that ``15Mbps`` sorts after ``5Mbps``.
"""

from __future__ import annotations

import re

#: unit -> (kind, multiplier to the base unit). Kinds: rate (bit/s), duration (s), size (bytes).
UNITS: dict[str, tuple[str, float]] = {}
for _u in ("bps", "bit/s", "b/s"):
    UNITS[_u] = ("rate", 1.0)
for _u in ("kbps", "Kbps", "kbit/s", "Kbit/s", "kb/s"):
    UNITS[_u] = ("rate", 1e3)
for _u in ("Mbps", "Mbit/s", "Mb/s"):  # not "mbps": tc reads it as bytes per second
    UNITS[_u] = ("rate", 1e6)
for _u in ("Gbps", "Gbit/s", "Gb/s"):
    UNITS[_u] = ("rate", 1e9)
for _u in ("Tbps", "Tbit/s"):
    UNITS[_u] = ("rate", 1e12)
for _u, _m in (("Bps", 8.0), ("B/s", 8.0), ("kBps", 8e3), ("KBps", 8e3), ("kB/s", 8e3), ("KB/s", 8e3),
               ("MBps", 8e6), ("MB/s", 8e6), ("GBps", 8e9), ("GB/s", 8e9)):
    UNITS[_u] = ("rate", _m)
for _u, _m in (("s", 1.0), ("sec", 1.0), ("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6), ("ns", 1e-9), ("ps", 1e-12),
               ("min", 60.0), ("h", 3600.0)):
    UNITS[_u] = ("duration", _m)
for _u, _m in (("B", 1.0), ("bytes", 1.0), ("KB", 1e3), ("kB", 1e3), ("MB", 1e6), ("GB", 1e9), ("KiB", 1024.0),
               ("MiB", 1024.0**2), ("GiB", 1024.0**3), ("bit", 0.125), ("bits", 0.125), ("kbit", 125.0),
               ("Kbit", 125.0), ("Mbit", 125e3)):
    UNITS[_u] = ("size", _m)

#: Suffix of the typed column per kind.
SUFFIX = {"rate": "_bps", "duration": "_s", "size": "_bytes"}

_NUM = re.compile(r"^\s*([0-9.eE+_-]+)\s*(\S*)\s*$")


def parse(text: str) -> tuple[str, float] | None:
    """``(kind, value in base units)`` of a quantity with an explicit unit, else None
    (bare numbers and other strings)."""
    if not isinstance(text, str):
        return None
    m = _NUM.match(text)
    if not m or not m.group(2) or m.group(2) not in UNITS:
        return None
    try:
        v = float(m.group(1).replace("_", ""))
    except ValueError:
        return None
    kind, mult = UNITS[m.group(2)]
    return kind, v * mult


def format_value(kind: str, value: float) -> str:
    """A quantity in base units written back with its base unit (sizes as whole bytes)."""
    if kind == "size":
        return f"{round(value)}B"
    return f"{value:.12g}{'bps' if kind == 'rate' else 's'}"
