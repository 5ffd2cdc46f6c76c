"""Sweep plans: which parameter values to run, as a grid, paired (zip) lists and random or
Sobol draws, crossed with each other and with the seeds.

A plan file (TOML)::

    seeds = [1, 2, 3]

    [grid]                                   # every combination
    "flows.f1.cc" = ["reno", "newreno"]

    [[zip]]                                  # varied together: equal lengths
    "links.r1->r2.rate" = ["5Mbps", "10Mbps"]
    "links.r1->r2.queue" = [{ kind = "droptail", limit_pkts = 20 }, { kind = "droptail", limit_pkts = 40 }]

    [sobol]                                  # or [random] (then also seed = N)
    n = 8
    "links.r1->r2.delay" = { min = "5ms", max = "50ms" }   # uniform between two quantities
    "links.r1->r2.rate_ba" = { min = "1Mbps", max = "100Mbps", log = true }
    "flows.f1.tcp.mss" = { min = 500, max = 1448 }           # integers stay integers
    "flows.f1.cc" = { choices = ["reno", "newreno"] }

Points are the product grid x zip group 1 x zip group 2 x ... x draws. Draws map a point u in
[0, 1)^d to values: ``min + u (max - min)`` (log-uniform with ``log = true``), integers as
``floor(min + u (max - min + 1))``, choices as ``choices[floor(u n)]``.

Sobol draws use the unscrambled Sobol sequence with the Joe and Kuo direction numbers
(``new-joe-kuo-6.21201``, the first 13 dimensions; S. Joe and F. Y. Kuo, "Constructing Sobol
sequences with better two-dimensional projections", SIAM J. Sci. Comput. 30, 2008), starting at
the point 0, in the Gray-code order of Antonov and Saleev. It is built in (not scipy's
``qmc.Sobol``) because scipy is not a dependency and the same plan must give the same points on
every machine; unscrambled scipy gives the same points. Use a power of two for ``n`` to keep
the sequence's balance properties. ``random`` draws use Python's ``random.Random(seed)``.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import units

# (degree s, coefficients a, initial direction numbers m) for dimensions 2.. (Joe & Kuo 2008).
_JOE_KUO: list[tuple[int, int, tuple[int, ...]]] = [
    (1, 0, (1,)),
    (2, 1, (1, 3)),
    (3, 1, (1, 3, 1)),
    (3, 2, (1, 1, 1)),
    (4, 1, (1, 1, 3, 3)),
    (4, 4, (1, 3, 5, 13)),
    (5, 2, (1, 1, 5, 5, 17)),
    (5, 4, (1, 1, 5, 5, 5)),
    (5, 7, (1, 1, 7, 11, 19)),
    (5, 11, (1, 1, 5, 1, 1)),
    (5, 13, (1, 1, 1, 3, 11)),
    (5, 14, (1, 3, 5, 5, 31)),
]
_BITS = 30
MAX_SOBOL_DIMS = len(_JOE_KUO) + 1


class PlanError(ValueError):
    """A sweep plan that cannot be used (names the file and the entry)."""


def sobol(n: int, d: int) -> list[list[float]]:
    """The first ``n`` points of the unscrambled ``d``-dimensional Sobol sequence."""
    if not 1 <= d <= MAX_SOBOL_DIMS:
        raise PlanError(f"sobol: {d} parameters; at most {MAX_SOBOL_DIMS} are supported")
    v = [[0] * _BITS for _ in range(d)]
    for i in range(_BITS):
        v[0][i] = 1 << (_BITS - 1 - i)
    for j in range(1, d):
        s, a, m = _JOE_KUO[j - 1]
        for i in range(_BITS):
            if i < s:
                v[j][i] = m[i] << (_BITS - 1 - i)
            else:
                x = v[j][i - s] ^ (v[j][i - s] >> s)
                for k in range(1, s):
                    if (a >> (s - 1 - k)) & 1:
                        x ^= v[j][i - k]
                v[j][i] = x
    x = [0] * d
    out = [[0.0] * d] if n > 0 else []
    for i in range(1, n):
        c = _lowest_zero_bit(i - 1)
        for j in range(d):
            x[j] ^= v[j][c]
        out.append([xj / (1 << _BITS) for xj in x])
    return out


def _lowest_zero_bit(i: int) -> int:
    c = 0
    while i & 1:
        i >>= 1
        c += 1
    return c


def _map_draw(path: str, spec: Any, u: float) -> Any:
    if isinstance(spec, dict) and "choices" in spec:
        ch = list(spec["choices"])
        if not ch:
            raise PlanError(f"{path}: choices is empty")
        return ch[min(int(u * len(ch)), len(ch) - 1)]
    if not (isinstance(spec, dict) and "min" in spec and "max" in spec):
        raise PlanError(f"{path}: expected {{ min = ..., max = ... }} or {{ choices = [...] }}, got {spec!r}")
    lo, hi, log = spec["min"], spec["max"], bool(spec.get("log", False))
    extra = set(spec) - {"min", "max", "log"}
    if extra:
        raise PlanError(f"{path}: unknown key(s) {', '.join(sorted(extra))}; expected min, max, log")
    if isinstance(lo, str) or isinstance(hi, str):
        a, b = units.parse(str(lo)), units.parse(str(hi))
        if a is None or b is None or a[0] != b[0]:
            raise PlanError(f"{path}: min and max must be quantities of one kind with units "
                            f"(like '5ms' and '50ms'), got {lo!r} and {hi!r}")
        kind, lo_v, hi_v = a[0], a[1], b[1]
    else:
        kind, lo_v, hi_v = None, float(lo), float(hi)
    if hi_v < lo_v:
        raise PlanError(f"{path}: max {hi!r} is below min {lo!r}")
    if log:
        if lo_v <= 0:
            raise PlanError(f"{path}: log = true needs min > 0")
        x = math.exp(math.log(lo_v) + u * (math.log(hi_v) - math.log(lo_v)))
    else:
        x = lo_v + u * (hi_v - lo_v)
    if kind is not None:
        return units.format_value(kind, x)
    if isinstance(lo, int) and isinstance(hi, int) and not isinstance(lo, bool):
        return min(int(lo + math.floor(u * (hi - lo + 1))), hi) if not log else int(round(x))
    return x


@dataclass
class Plan:
    """What a sweep runs: see the module docstring."""

    grid: dict[str, list[Any]] = field(default_factory=dict)
    zip: list[dict[str, list[Any]]] = field(default_factory=list)
    draw: str | None = None  # "random" or "sobol"
    draw_n: int = 0
    draw_seed: int = 1
    draw_params: dict[str, Any] = field(default_factory=dict)
    seeds: list[int] = field(default_factory=lambda: [1])
    origin: str = "<plan>"

    @classmethod
    def from_dict(cls, d: dict[str, Any], origin: str = "<plan>") -> Plan:
        unknown = set(d) - {"seeds", "grid", "zip", "random", "sobol"}
        if unknown:
            raise PlanError(f"{origin}: unknown key(s) {', '.join(sorted(unknown))}; expected seeds, grid, zip, "
                            f"random or sobol")
        p = cls(origin=origin)
        p.seeds = [int(s) for s in d.get("seeds", [1])]
        p.grid = {k: list(v) if isinstance(v, list) else [v] for k, v in d.get("grid", {}).items()}
        zips = d.get("zip", [])
        p.zip = [dict(z) for z in (zips if isinstance(zips, list) else [zips])]
        if "random" in d and "sobol" in d:
            raise PlanError(f"{origin}: give either [random] or [sobol], not both")
        for method in ("random", "sobol"):
            if method in d:
                t = dict(d[method])
                p.draw = method
                if "n" not in t:
                    raise PlanError(f"{origin}: [{method}] needs n (the number of draws)")
                p.draw_n = int(t.pop("n"))
                p.draw_seed = int(t.pop("seed", 1))
                p.draw_params = t
                if not t:
                    raise PlanError(f"{origin}: [{method}] has no parameters")
        p.check()
        return p

    @classmethod
    def from_file(cls, path: str | Path) -> Plan:
        p = Path(path)
        try:
            with p.open("rb") as fh:
                return cls.from_dict(tomllib.load(fh), origin=str(p))
        except FileNotFoundError:
            raise PlanError(f"{p}: no such plan file") from None
        except tomllib.TOMLDecodeError as e:
            raise PlanError(f"{p}: {e}") from None

    def check(self) -> None:
        seen: set[str] = set()
        groups = [("grid", self.grid)] + [(f"zip[{i}]", z) for i, z in enumerate(self.zip)] + \
                 [(self.draw or "draw", self.draw_params)]
        for where, g in groups:
            for k in g:
                if k in seen:
                    raise PlanError(f"{self.origin}: parameter {k!r} appears twice ({where})")
                seen.add(k)
        for where, g in groups[:1]:
            for k, v in g.items():
                if not v:
                    raise PlanError(f"{self.origin}: {where}: parameter {k!r} has no values")
        for i, z in enumerate(self.zip):
            lengths = {k: len(v) if isinstance(v, list) else -1 for k, v in z.items()}
            if -1 in lengths.values() or len(set(lengths.values())) > 1:
                raise PlanError(f"{self.origin}: zip[{i}]: paired parameters need lists of one length, got "
                                + ", ".join(f"{k} ({n})" for k, n in lengths.items()))
        if self.draw == "sobol" and len(self.draw_params) > MAX_SOBOL_DIMS:
            raise PlanError(f"{self.origin}: [sobol] has {len(self.draw_params)} parameters; at most "
                            f"{MAX_SOBOL_DIMS} are supported")
        if self.draw and self.draw_n < 1:
            raise PlanError(f"{self.origin}: [{self.draw}] n must be at least 1")
        if not self.seeds:
            raise PlanError(f"{self.origin}: seeds is empty")

    @property
    def parameters(self) -> list[str]:
        return list(self.grid) + [k for z in self.zip for k in z] + list(self.draw_params)

    def draws(self) -> list[dict[str, Any]]:
        if not self.draw:
            return [{}]
        keys = list(self.draw_params)
        if self.draw == "sobol":
            us = sobol(self.draw_n, len(keys))
        else:
            rng = random.Random(self.draw_seed)
            us = [[rng.random() for _ in keys] for _ in range(self.draw_n)]
        return [{k: _map_draw(k, self.draw_params[k], u[j]) for j, k in enumerate(keys)} for u in us]

    def points(self) -> list[dict[str, Any]]:
        """Every parameter point of the plan (without seeds), in a stable order."""
        keys = list(self.grid)
        grid = [dict(zip(keys, combo)) for combo in itertools.product(*(self.grid[k] for k in keys))]
        zips = [[{k: z[k][i] for k in z} for i in range(len(next(iter(z.values()))))] for z in self.zip if z]
        out = []
        for combo in itertools.product(grid, *zips, self.draws()):
            pt: dict[str, Any] = {}
            for part in combo:
                pt.update(part)
            out.append(pt)
        return out

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"seeds": self.seeds}
        if self.grid:
            d["grid"] = self.grid
        if self.zip:
            d["zip"] = self.zip
        if self.draw:
            d[self.draw] = {"n": self.draw_n, **({"seed": self.draw_seed} if self.draw == "random" else {}),
                            **self.draw_params}
        return json.loads(json.dumps(d))
