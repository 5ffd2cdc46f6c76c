"""Quantities with units, parsed as the scenario format does (``crates/pinchpoint-core/src/sim/units.rs``).

Used to give sweep parameters typed columns: ``links.r1->r2.rate = "15Mbps"`` gets a numeric
``links.r1->r2.rate_bps = 15e6`` beside it, so that ``15Mbps`` sorts after ``5Mbps``.
"""

from __future__ import annotations

import re

from . import _native

#: unit -> (kind, multiplier to the base unit). Kinds: rate (bit/s), duration (s), size (bytes).
#: Read from the native parser's own tables, so a unit the scenario format accepts is typed here
#: and nothing else is ("mbps" and "gbps", which it refuses as ambiguous, are not).
UNITS: dict[str, tuple[str, float]] = {unit: (kind, mult) for unit, kind, mult in _native.unit_table()}

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
