"""A typed builder for scenarios: the same structure as a scenario file.

Everything the builder makes is a plain dict that serialises to the file format (TOML) or to
JSON for the native side, so a scenario built in Python and the same scenario written as a file
run identically.
"""

from __future__ import annotations

import functools
import json
import tomllib
from pathlib import Path
from typing import Any


class ParameterError(ValueError):
    """A dotted parameter path (``flows.f1.cc``, ``links.r1->r2.queue``) that does not name a
    field of the scenario."""


@functools.cache
def schema() -> dict[str, Any]:
    """The scenario format's JSON Schema (the same as ``docs/scenario.schema.json``)."""
    from . import _native

    return json.loads(_native.json_schema())


def schema_fields(definition: str) -> dict[str, Any]:
    """The properties of one object definition of the schema (``FlowConfig``, ``LinkConfig``...)."""
    return schema()["$defs"][definition].get("properties", {})


def _check_fields(where: str, definition: str, fields: dict[str, Any]) -> None:
    from ._native import ScenarioError

    known = schema_fields(definition)
    for k in fields:
        if k not in known:
            raise ScenarioError(f"{where}: unknown field '{k}'; expected one of {', '.join(sorted(known))}")


def _element_label(elem: Any) -> str:
    if isinstance(elem, dict):
        if "name" in elem:
            return str(elem["name"])
        if "a" in elem and "b" in elem:
            return f"{elem['a']}->{elem['b']}"
    return "?"


def _find(lst: list[Any], part: str, section: str, dotted: str) -> int:
    """Index in ``lst`` of the element that ``part`` names: an index, a ``name``, or ``a->b``."""
    if part.lstrip("-").isdigit():
        i = int(part)
        if not 0 <= i < len(lst):
            raise ParameterError(f"parameter {dotted!r}: index {i} is out of range, {section} has "
                                 f"{len(lst)} element(s) (0..{len(lst) - 1})" if lst else
                                 f"parameter {dotted!r}: {section} is empty")
        return i
    if "->" in part:
        a, b = (x.strip() for x in part.split("->", 1))
        for i, e in enumerate(lst):
            if isinstance(e, dict) and e.get("a") == a and e.get("b") == b:
                return i
        rev = any(isinstance(e, dict) and e.get("a") == b and e.get("b") == a for e in lst)
        hint = (f" (the link is written {b}->{a}: address it so, and use the *_ba fields for the {a}->{b} "
                f"direction)" if rev else "")
        raise ParameterError(f"parameter {dotted!r}: no link {a}->{b} in {section}{hint}; links are "
                             f"{', '.join(_element_label(e) for e in lst) or 'none'}")
    for i, e in enumerate(lst):
        if isinstance(e, dict) and e.get("name") == part:
            return i
    raise ParameterError(f"parameter {dotted!r}: no element named {part!r} in {section}; "
                         f"{section} are {', '.join(_element_label(e) for e in lst) or 'none'}")


def set_path(data: dict[str, Any], dotted: str, value: Any) -> None:
    """Sets the field at a dotted path in scenario data. List elements are addressed by index
    (``flows.0``), by ``name`` (``flows.f1``, ``nodes.r1``) or, for links, by ``a->b``
    (``links.r1->r2``). Missing table keys are created (the native validation names unknown
    fields); a list element that does not exist raises :class:`ParameterError`."""
    parts = dotted.split(".")
    if not dotted or any(p == "" for p in parts):
        raise ParameterError(f"parameter {dotted!r}: empty path component")
    node: Any = data
    where = ""
    k = 0
    while k < len(parts):
        p = parts[k]
        if isinstance(node, list):
            # A name may hold dots itself (a host called 10.0.0.1, a link 10.0.0.1->10.0.0.2):
            # the longest run of components that names an element wins.
            i, used = _find_dotted(node, parts, k, where or "the scenario", dotted)
            if i is None:
                i, used = _find(node, p, where or "the scenario", dotted), 1
            where = ".".join(parts[k:k + used])
            k += used
            if k == len(parts):
                node[i] = value
                return
            node = node[i]
            continue
        last = k == len(parts) - 1
        if isinstance(node, dict):
            if last:
                node[p] = value
                return
            if p not in node or node[p] is None:
                node[p] = {}
            elif not isinstance(node[p], (dict, list)):
                raise ParameterError(f"parameter {dotted!r}: {'.'.join(parts[:k + 1])} is a value "
                                     f"({node[p]!r}), not a table")
            node = node[p]
        else:
            raise ParameterError(f"parameter {dotted!r}: {where} is a value, not a table or list")
        where = p
        k += 1
    raise AssertionError("unreachable")


_REMOVED = object()


def unset_path(data: dict[str, Any], dotted: str) -> None:
    """Removes the table field at a dotted path (as :func:`set_path` addresses it); a field that
    is absent stays absent. A list element cannot be removed this way (ParameterError)."""
    import copy

    work = copy.deepcopy(data)  # a list element named by mistake is not lost
    set_path(work, dotted, _REMOVED)  # the same addressing, then the marker is taken out

    def strip(node: Any) -> None:
        if isinstance(node, dict):
            for k in [k for k, v in node.items() if v is _REMOVED]:
                del node[k]
            for v in node.values():
                strip(v)
        elif isinstance(node, list):
            if any(v is _REMOVED for v in node):
                raise ParameterError(f"parameter {dotted!r}: names a list element, not a table field; "
                                     f"expected a field (e.g. {dotted}.FIELD)")
            for v in node:
                strip(v)

    strip(work)
    data.clear()
    data.update(work)


def _find_dotted(lst: list[Any], parts: list[str], k: int, section: str, dotted: str) -> tuple[int | None, int]:
    """(index, components used) of the element of ``lst`` named by two or more of ``parts``
    from ``k`` on (a name or ``a->b`` with dots in it), the longest first; (None, 0) if none.
    A link named the other way round raises ``_find``'s error, which says so."""
    reversed_link = None
    for j in range(len(parts), k + 1, -1):
        candidate = ".".join(parts[k:j])
        for i, e in enumerate(lst):
            if not isinstance(e, dict):
                continue
            if e.get("name") == candidate:
                return i, j - k
            if "->" in candidate and "a" in e and "b" in e:
                a, b = (x.strip() for x in candidate.split("->", 1))
                if e["a"] == a and e["b"] == b:
                    return i, j - k
                if e["a"] == b and e["b"] == a and reversed_link is None:
                    reversed_link = candidate
    if reversed_link is not None:
        _find(lst, reversed_link, section, dotted)
    return None, 0


def bulk() -> dict[str, Any]:
    """An unbounded transfer: as much as the transport will send, for the whole run."""
    return {"kind": "bulk"}


def file(size: str | int) -> dict[str, Any]:
    """One file of ``size`` (for example ``"100KB"``) offered at the flow's start time."""
    return {"kind": "file", "size": size}


def cbr(rate: str | float, packet_size: str | int, duration: str | None = None) -> dict[str, Any]:
    """Constant-bit-rate datagrams (use with ``transport="udp"``)."""
    w: dict[str, Any] = {"kind": "cbr", "rate": rate, "packet_size": packet_size}
    if duration is not None:
        w["duration"] = duration
    return w


def poisson(rate: str | float, packet_size: str | int, duration: str | None = None) -> dict[str, Any]:
    """Datagrams with exponential gaps (use with ``transport="udp"``)."""
    w: dict[str, Any] = {"kind": "poisson", "rate": rate, "packet_size": packet_size}
    if duration is not None:
        w["duration"] = duration
    return w


def on_off(rate: str | float, packet_size: str | int, on: str | float, off: str | float, *,
           distribution: str = "fixed", duration: str | None = None) -> dict[str, Any]:
    """CBR at ``rate`` during on periods, silent during off periods (``distribution``:
    ``"fixed"`` lengths or ``"exponential"`` with the given means)."""
    w: dict[str, Any] = {"kind": "on_off", "rate": rate, "packet_size": packet_size, "on": on,
                         "off": off, "distribution": distribution}
    if duration is not None:
        w["duration"] = duration
    return w


def square_wave(rate: str | float, packet_size: str | int, period: str | float, duty: float = 0.5,
                duration: str | None = None) -> dict[str, Any]:
    """CBR at ``rate`` on for ``duty * period``, off for the rest of each ``period``."""
    w: dict[str, Any] = {"kind": "square_wave", "rate": rate, "packet_size": packet_size,
                         "period": period, "duty": duty}
    if duration is not None:
        w["duration"] = duration
    return w


def size(kind: str, **params: Any) -> dict[str, Any]:
    """A transfer size distribution for arrival processes: ``kind`` is ``"fixed"`` (``bytes`` or
    ``pkts``), ``"exponential"``, ``"pareto"`` or ``"pareto_ii"`` (``mean_bytes`` or
    ``mean_pkts``, and ``shape``). Packets are of the arrival's ``tcp.mss`` payload bytes."""
    return {"kind": kind, **params}


def poisson_arrivals(rate_per_s: float, size: dict[str, Any], *, start: str | float | None = None,
                     stop: str | float | None = None, count: int | None = None) -> dict[str, Any]:
    """Transfers arriving with exponential gaps at ``rate_per_s`` from ``start`` until ``stop``
    or ``count`` transfers."""
    p: dict[str, Any] = {"kind": "poisson", "rate_per_s": rate_per_s, "size": size}
    for k, v in (("start", start), ("stop", stop), ("count", count)):
        if v is not None:
            p[k] = v
    return p


def flash_crowd(count: int, rate_per_s: float, at: str | float, size: dict[str, Any], *,
                spacing: str = "poisson") -> dict[str, Any]:
    """``count`` transfers at ``rate_per_s`` from time ``at`` (``spacing``: ``"poisson"`` or
    ``"even"``)."""
    return {"kind": "flash_crowd", "count": count, "rate_per_s": rate_per_s, "at": at, "spacing": spacing,
            "size": size}


def webtraf(sessions: int, pages_per_session: int, **knobs: Any) -> dict[str, Any]:
    """ns-2 WebTraf-style HTTP: ``sessions`` sessions of ``pages_per_session`` pages; knobs
    ``objects_per_page``, ``start``, ``session_spread``, ``inter_page_mean``,
    ``inter_object_mean``, ``object_size`` (defaults those of ns-2's example, see
    ``docs/traffic/arrivals.md``)."""
    return {"kind": "webtraf", "sessions": sessions, "pages_per_session": pages_per_session, **knobs}


def bernoulli_loss(p: float) -> dict[str, Any]:
    """Random loss on a link (``s.link(..., loss=bernoulli_loss(0.01))``): each packet lost
    independently with probability ``p``."""
    return {"kind": "bernoulli", "p": p}


def gilbert_elliott_loss(p_gb: float, p_bg: float, loss_good: float = 0.0,
                         loss_bad: float = 1.0) -> dict[str, Any]:
    """Bursty loss on a link: a Good/Bad Markov chain stepped per packet."""
    return {"kind": "gilbert_elliott", "p_gb": p_gb, "p_bg": p_bg, "loss_good": loss_good,
            "loss_bad": loss_bad}


class Scenario:
    """Builds a scenario step by step.

    >>> s = Scenario("demo", duration="10s", seed=3)
    >>> s.host("a").host("b").router("r")
    >>> s.link("a", "r", rate="100Mbps", delay="1ms").link("r", "b", rate="10Mbps", delay="20ms",
    ...        queue={"kind": "droptail", "limit_pkts": 50})
    >>> s.flow("f1", "a", "b", workload=bulk(), cc="newreno")
    """

    def __init__(self, name: str = "scenario", duration: str | float = "10s", seed: int = 1, *,
                 description: str = "", stop_when_done: bool = True, routing: str = "hops") -> None:
        self.data: dict[str, Any] = {
            "name": name,
            "description": description,
            "simulation": {"duration": duration, "seed": seed, "stop_when_done": stop_when_done,
                           "routing": routing},
            "metrics": {},
            "nodes": [],
            "links": [],
            "routes": [],
            "flows": [],
        }
        self.origin = f"<Scenario {name}>"

    # -- building ---------------------------------------------------------------------------
    def host(self, name: str) -> Scenario:
        """Adds a host (runs transports; its link ports are its NIC queues)."""
        self.data["nodes"].append({"name": name, "kind": "host"})
        return self

    def router(self, name: str) -> Scenario:
        """Adds a router."""
        self.data["nodes"].append({"name": name, "kind": "router"})
        return self

    def link(self, a: str, b: str, *, rate: str | float, delay: str | float, **options: Any) -> Scenario:
        """Adds a full-duplex link. Options: every other field of a ``[[links]]`` table
        (``queue``, ``queue_ab``, ``queue_ba``, ``hooks``, ``hooks_ab``, ``hooks_ba``,
        ``rate_ba``); an unknown one raises ``ScenarioError`` naming it."""
        _check_fields(f"links[{len(self.data['links'])}] ({a}->{b})", "LinkConfig", options)
        self.data["links"].append({"a": a, "b": b, "rate": rate, "delay": delay, **options})
        return self

    def route(self, node: str, dst: str, next_hop: str, at: str | float | None = None) -> Scenario:
        """At ``node``, send traffic for ``dst`` to ``next_hop`` (from time ``at`` on)."""
        r: dict[str, Any] = {"node": node, "dst": dst, "next_hop": next_hop}
        if at is not None:
            r["at"] = at
        self.data["routes"].append(r)
        return self

    def flow(self, name: str, src: str, dst: str, *, workload: dict[str, Any] | None = None,
             transport: str = "tcp", start: str | float = 0, cc: str | dict[str, Any] | None = None,
             tcp: dict[str, Any] | None = None, shaper: dict[str, Any] | None = None,
             priority: int = 0, start_jitter: str | float | None = None, **fields: Any) -> Scenario:
        """Adds a flow from ``src`` to ``dst``. Every field of a ``[[flows]]`` table is a
        keyword (the schema's ``FlowConfig``); an unknown keyword raises ``ScenarioError``
        naming it and the fields there are."""
        where = f"flows[{len(self.data['flows'])}] ({name})"
        _check_fields(where, "FlowConfig", fields)
        if tcp:
            _check_fields(f"{where}.tcp", "TcpConfig", tcp)
        f: dict[str, Any] = {"name": name, "src": src, "dst": dst, "start": start,
                             "workload": workload or bulk(), "transport": transport, "priority": priority}
        if cc is not None:
            f["cc"] = cc
        if tcp:
            f["tcp"] = dict(tcp)
        if shaper:
            f["shaper"] = dict(shaper)
        if start_jitter is not None:
            f["start_jitter"] = start_jitter
        f.update(fields)
        self.data["flows"].append(f)
        return self

    def arrivals(self, name: str, src: str | list[str], dst: str | list[str], process: dict[str, Any], *,
                 group: str | None = None, cc: str | dict[str, Any] | None = None,
                 tcp: dict[str, Any] | None = None, **fields: Any) -> Scenario:
        """Adds an arrival process of transfers (``[[arrivals]]``): each transfer is a TCP flow
        from one of ``src`` to one of ``dst``, created at its arrival and freed when finished.
        ``process`` comes from :func:`poisson_arrivals`, :func:`flash_crowd` or :func:`webtraf`;
        the flow settings (``cc``, ``tcp``, ``priority``, ``transport``) are those of a flow."""
        arrivals = self.data.setdefault("arrivals", [])
        where = f"arrivals[{len(arrivals)}] ({name})"
        _check_fields(where, "ArrivalConfig", fields)
        if tcp:
            _check_fields(f"{where}.tcp", "TcpConfig", tcp)
        a: dict[str, Any] = {"name": name, "src": src, "dst": dst, "process": process}
        if group is not None:
            a["group"] = group
        if cc is not None:
            a["cc"] = cc
        if tcp:
            a["tcp"] = dict(tcp)
        a.update(fields)
        arrivals.append(a)
        return self

    def metrics(self, **options: Any) -> Scenario:
        """Sets what to record: ``series_interval``, ``packet_trace``, ``queue_trace``,
        ``capture``, ``rate_interval`` (per-flow delivery in fixed intervals, docs/metrics.md)."""
        _check_fields("metrics", "MetricsConfig", options)
        self.data["metrics"].update(options)
        return self

    def set(self, dotted: str, value: Any) -> Scenario:
        """Sets any field by dotted path, e.g. ``s.set("simulation.seed", 7)``,
        ``s.set("flows.f1.tcp.mss", 500)`` or ``s.set("links.r1->r2.queue", {...})``. List
        elements are addressed by index, by ``name`` or (links) by ``a->b``; a path naming no
        element raises :class:`ParameterError`."""
        set_path(self.data, dotted, value)
        return self

    def unset(self, dotted: str) -> Scenario:
        """Removes the field at a dotted path (addressed as for :meth:`set`), so that it takes
        its default: e.g. a setting a variant makes meaningless, which would be refused."""
        unset_path(self.data, dotted)
        return self

    # -- conversion ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The scenario as plain data (empty sections dropped)."""
        d = json.loads(json.dumps(self.data))
        for k in ("routes", "description", "arrivals"):
            if not d.get(k):
                d.pop(k, None)
        if not d.get("metrics"):
            d.pop("metrics", None)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def to_toml(self) -> str:
        import tomli_w

        return tomli_w.dumps(self.to_dict())

    def save(self, path: str | Path) -> Path:
        """Writes the scenario as a TOML file."""
        from . import atomic

        return atomic.write_text(Path(path), self.to_toml())

    @classmethod
    def from_dict(cls, d: dict[str, Any], origin: str = "<dict>") -> Scenario:
        if not isinstance(d, dict):
            from ._native import ScenarioError

            raise ScenarioError(f"{origin}: expected a table (dict) of the scenario's sections, got {type(d).__name__}")
        s = cls.__new__(cls)
        s.data = json.loads(json.dumps(d))
        for k in ("metrics",):
            s.data.setdefault(k, {})
        for k in ("nodes", "links", "routes", "flows"):
            s.data.setdefault(k, [])
        s.origin = origin
        return s

    @classmethod
    def from_file(cls, path: str | Path) -> Scenario:
        """Reads a TOML scenario file (validation happens when it is run or validated). A
        missing file, a directory or text that is not TOML raises :class:`ScenarioError`."""
        from . import api

        # The checks of run and validate: a missing file, a directory or a file that is not
        # text raise ScenarioError naming it, not an OSError.
        text, origin, _ = api._text(Path(path))
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            api.validate(Path(path))  # raises the engine's error, with the file, line and column
            raise  # pragma: no cover (the engine accepted what tomllib refused)
        return cls.from_dict(data, origin=origin)

    def __repr__(self) -> str:
        d = self.data
        return (f"Scenario({d['name']!r}: {len(d['nodes'])} nodes, {len(d['links'])} links, "
                f"{len(d['flows'])} flows, {d['simulation']['duration']})")
