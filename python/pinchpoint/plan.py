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
    "flows.f2.cc" = { choices = ["reno", "cubic"] }          # a parameter appears in one part only

Points are the product grid x zip group 1 x zip group 2 x ... x draws. Draws map a point u in
[0, 1)^d to values: ``min + u (max - min)`` (log-uniform with ``log = true``), integers as
``floor(min + u (max - min + 1))``, choices as ``choices[floor(u n)]``.

A value given twice in a grid, a pair given twice in a zip group or a seed given twice is refused
(the same runs twice). Draws may repeat a point by chance (choices and small integer ranges
especially); a repeat is dropped, keeping the first draw and the order of the others, with a
warning (:class:`DrawWarning`) saying how many draws gave how many distinct points, so that a
sweep runs each point once per seed and its table has no duplicate rows posing as
replications. ``n`` is thus the number of draws, at most the number of points drawn.

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
import warnings
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


class DrawWarning(UserWarning):
    """Random or Sobol draws that repeated a point: the repeats are dropped."""


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


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _map_draw(path: str, spec: Any, u: float) -> Any:
    if isinstance(spec, dict) and "choices" in spec:
        ch = spec["choices"]
        if not isinstance(ch, list):
            raise PlanError(f"{path}: choices: expected a list of values, got {ch!r}")
        if not ch:
            raise PlanError(f"{path}: choices is empty")
        extra = set(spec) - {"choices"}
        if extra:
            raise PlanError(f"{path}: unknown key(s) {', '.join(sorted(extra))} beside choices")
        return ch[min(int(u * len(ch)), len(ch) - 1)]
    if not (isinstance(spec, dict) and "min" in spec and "max" in spec):
        raise PlanError(f"{path}: expected {{ min = ..., max = ... }} or {{ choices = [...] }}, got {spec!r}")
    lo, hi, log = spec["min"], spec["max"], spec.get("log", False)
    extra = set(spec) - {"min", "max", "log"}
    if extra:
        raise PlanError(f"{path}: unknown key(s) {', '.join(sorted(extra))}; expected min, max, log")
    # bool("false") is True: a string here would silently turn log scale on.
    if not isinstance(log, bool):
        raise PlanError(f"{path}: log: expected true or false, got {log!r}")
    if isinstance(lo, str) or isinstance(hi, str):
        a, b = units.parse(str(lo)), units.parse(str(hi))
        if a is None or b is None or a[0] != b[0]:
            raise PlanError(f"{path}: min and max must be quantities of one kind with units "
                            f"(like '5ms' and '50ms'), got {lo!r} and {hi!r}")
        kind, lo_v, hi_v = a[0], a[1], b[1]
    elif _number(lo) and _number(hi):
        kind, lo_v, hi_v = None, float(lo), float(hi)
    else:
        raise PlanError(f"{path}: min and max must be numbers or quantities with units, got {lo!r} and {hi!r}")
    if not (math.isfinite(lo_v) and math.isfinite(hi_v)):
        raise PlanError(f"{path}: min and max must be finite, got {lo!r} and {hi!r}")
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
    if isinstance(lo, int) and isinstance(hi, int):
        return min(int(lo + math.floor(u * (hi - lo + 1))), hi) if not log else int(round(x))
    return x


def _first_duplicate(values: list[Any]) -> str | None:
    """The first value that appears twice in ``values`` (as JSON text: values may be tables),
    or None."""
    seen: set[str] = set()
    for v in values:
        text = json.dumps(v, sort_keys=True)
        if text in seen:
            return text
        seen.add(text)
    return None


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
        """A plan from the tables of a plan file; raises :class:`PlanError` naming ``origin``
        and the key for anything of the wrong type (not a traceback, nor a value guessed)."""
        unknown = set(d) - {"seeds", "grid", "zip", "random", "sobol"}
        if unknown:
            raise PlanError(f"{origin}: unknown key(s) {', '.join(sorted(unknown))}; expected seeds, grid, zip, "
                            f"random or sobol")

        def integer(value: Any, key: str) -> int:
            # int(1.5) would truncate and int("abc") raise a bare ValueError: neither names the key.
            if isinstance(value, bool) or not isinstance(value, int):
                raise PlanError(f"{origin}: {key}: expected an integer, got {value!r}")
            return value

        def table(value: Any, key: str, example: str) -> dict[str, Any]:
            if not isinstance(value, dict):
                raise PlanError(f"{origin}: {key}: expected a table ({example}), got {value!r}")
            return value

        p = cls(origin=origin)
        seeds = d.get("seeds", [1])
        if not isinstance(seeds, list):
            raise PlanError(f"{origin}: seeds: expected a list of integers (seeds = [1, 2, 3]), got {seeds!r}")
        p.seeds = [integer(s, f"seeds[{i}]") for i, s in enumerate(seeds)]
        grid = table(d.get("grid", {}), "grid", '[grid] with "PATH" = [values]')
        p.grid = {k: list(v) if isinstance(v, list) else [v] for k, v in grid.items()}
        zips = d.get("zip", [])
        if not isinstance(zips, (list, dict)):
            raise PlanError(f"{origin}: zip: expected [[zip]] tables of \"PATH\" = [values], got {zips!r}")
        zips = zips if isinstance(zips, list) else [zips]
        p.zip = [dict(table(z, f"zip[{i}]", '[[zip]] with "PATH" = [values]')) for i, z in enumerate(zips)]
        if "random" in d and "sobol" in d:
            raise PlanError(f"{origin}: give either [random] or [sobol], not both")
        for method in ("random", "sobol"):
            if method in d:
                t = dict(table(d[method], method, f'[{method}] with n and "PATH" = {{ min = ..., max = ... }}'))
                p.draw = method
                if "n" not in t:
                    raise PlanError(f"{origin}: [{method}] needs n (the number of draws)")
                p.draw_n = integer(t.pop("n"), f"[{method}] n")
                if method == "sobol" and "seed" in t:
                    # The Sobol points are not scrambled: no seed could change them.
                    raise PlanError(f"{origin}: [sobol] seed: has no effect (the Sobol sequence is not scrambled, its "
                                    "points are fixed by n); remove it, or use [random] for seeded draws")
                p.draw_seed = integer(t.pop("seed", 1), f"[{method}] seed")
                p.draw_params = t
                if not t:
                    raise PlanError(f"{origin}: [{method}] has no parameters")
        p.check()
        return p

    @classmethod
    def from_file(cls, path: str | Path) -> Plan:
        p = Path(path)
        if p.is_dir():
            raise PlanError(f"{p}: expected a plan file (TOML), got a directory")
        try:
            with p.open("rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError:
            raise PlanError(f"{p}: no such plan file") from None
        except UnicodeDecodeError:
            raise PlanError(f"{p}: not a text (UTF-8) file") from None
        except tomllib.TOMLDecodeError as e:
            raise PlanError(f"{p}: not valid TOML: {e}") from None
        return cls.from_dict(data, origin=str(p))

    def check(self) -> None:
        """Raises :class:`PlanError` (naming ``origin``) for a plan that cannot be run as meant:
        a parameter given twice, a parameter without values (the sweep would run nothing), a
        value or seed given twice (the same runs twice, duplicate rows), ``simulation.seed``
        as a parameter (the sweep sets each run's seed), a bad draw or bad seeds."""
        seen: set[str] = set()
        groups = [("grid", self.grid)] + [(f"zip[{i}]", z) for i, z in enumerate(self.zip)] + \
                 [(self.draw or "draw", self.draw_params)]
        for where, g in groups:
            for k in g:
                if k in seen:
                    raise PlanError(f"{self.origin}: parameter {k!r} appears twice ({where})")
                seen.add(k)
                if k.strip() == "simulation.seed":
                    raise PlanError(f"{self.origin}: {where}: parameter 'simulation.seed': the sweep sets each "
                                    f"run's seed; give the seeds with --seeds (or seeds = [...] in a plan file)")
        for k, v in self.grid.items():
            if not v:
                raise PlanError(f"{self.origin}: grid: parameter {k!r} has no values")
            dup = _first_duplicate(v)
            if dup is not None:
                raise PlanError(f"{self.origin}: grid: parameter {k!r}: value {dup} appears twice")
        for i, z in enumerate(self.zip):
            lengths = {k: len(v) if isinstance(v, list) else -1 for k, v in z.items()}
            if -1 in lengths.values() or len(set(lengths.values())) > 1:
                raise PlanError(f"{self.origin}: zip[{i}]: paired parameters need lists of one length, got "
                                + ", ".join(f"{k} ({n})" for k, n in lengths.items()))
            for k, n in lengths.items():
                if n == 0:
                    raise PlanError(f"{self.origin}: zip[{i}]: parameter {k!r} has no values")
            # A value may repeat within one parameter (paired with different values of another);
            # a whole pair may not.
            dup = _first_duplicate([dict(zip(z, vals)) for vals in zip(*z.values())])
            if dup is not None:
                raise PlanError(f"{self.origin}: zip[{i}]: the point {dup} appears twice")
        if self.draw == "sobol" and len(self.draw_params) > MAX_SOBOL_DIMS:
            raise PlanError(f"{self.origin}: [sobol] has {len(self.draw_params)} parameters; at most "
                            f"{MAX_SOBOL_DIMS} are supported")
        if self.draw and (isinstance(self.draw_n, bool) or not isinstance(self.draw_n, int) or self.draw_n < 1):
            raise PlanError(f"{self.origin}: [{self.draw}] n must be an integer of at least 1, got {self.draw_n!r}")
        for k, spec in self.draw_params.items():
            try:  # the spec's errors now, naming the plan, not when the points are drawn
                _map_draw(k, spec, 0.0)
            except PlanError as e:
                raise PlanError(f"{self.origin}: [{self.draw}] {e}") from None
        if not self.seeds:
            raise PlanError(f"{self.origin}: seeds is empty")
        for s in self.seeds:
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 2**63:
                raise PlanError(f"{self.origin}: seeds: expected integers from 0 to 2^63 - 1, got {s!r}")
        dup = _first_duplicate(self.seeds)
        if dup is not None:
            raise PlanError(f"{self.origin}: seeds: seed {dup} appears twice")

    @property
    def parameters(self) -> list[str]:
        return list(self.grid) + [k for z in self.zip for k in z] + list(self.draw_params)

    def draws(self) -> list[dict[str, Any]]:
        """The distinct drawn points, in the order drawn (see the module docstring: a repeat
        is dropped with a :class:`DrawWarning`); ``[{}]`` without draws."""
        if not self.draw:
            return [{}]
        keys = list(self.draw_params)
        if self.draw == "sobol":
            us = sobol(self.draw_n, len(keys))
        else:
            rng = random.Random(self.draw_seed)
            us = [[rng.random() for _ in keys] for _ in range(self.draw_n)]
        points, seen = [], set()
        for u in us:
            pt = {k: _map_draw(k, self.draw_params[k], u[j]) for j, k in enumerate(keys)}
            # As JSON text, as _first_duplicate does: values may be tables. The draws have
            # parameters of their own (check refuses one given twice), and grid values and zip
            # pairs are distinct, so a point of the plan repeats exactly when its draw does.
            text = json.dumps(pt, sort_keys=True)
            if text not in seen:
                seen.add(text)
                points.append(pt)
        if len(points) < len(us):
            warnings.warn(f"{self.origin}: [{self.draw}] {len(us)} draws gave {len(points)} distinct points of "
                          f"{', '.join(keys)}; the {len(us) - len(points)} repeated draw(s) are dropped (each "
                          f"would run the same runs again and count as replications)", DrawWarning, stacklevel=3)
        return points

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
