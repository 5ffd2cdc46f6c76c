"""The names each algorithm family accepts, read from the engine's registry (through the JSON
schema it generates), so that no list of names is written twice: the CLI's ``pinchpoint kinds``,
the fuzz test's controllers, the check that every algorithm has its page and the sweep's list of
random components all come from here.

Whether an algorithm draws random numbers is declared once, beside its config in its own Rust
file (``#[schemars(extend("x-draws-random" = true))]``), and reaches Python as the schema keyword
:data:`RANDOM_KEY` on that kind's table."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from . import _native

#: Family -> (the schema definition of its config, the folder under docs/ where each algorithm
#: has the page `<name>.md`, or None where pages are not one per name: `atn` is described in
#: `atn_credit.md`, both loss models in `link_loss.md`, the arrival processes in
#: `docs/traffic/arrivals.md`).
FAMILIES: dict[str, tuple[str, str | None]] = {
    "cc": ("CcConfig", "algorithms"),
    "queue": ("QueueConfig", "algorithms"),
    "hook": ("HookConfig", "algorithms"),
    "workload": ("WorkloadConfig", "traffic"),
    "receiver": ("ReceiverConfig", None),
    "loss": ("LossConfig", None),
    "arrival": ("ProcessConfig", None),
}


def _names(node: Any) -> list[str]:
    """The `kind` names a config's schema accepts: a bare-name enum or `kind` constants."""
    out: list[str] = []

    def walk(n: Any) -> None:
        if not isinstance(n, dict):
            return
        if n.get("type") == "string" and "enum" in n:
            out.extend(n["enum"])
        kind = n.get("properties", {}).get("kind")
        if isinstance(kind, dict):
            out.extend([kind["const"]] if "const" in kind else kind.get("enum", []))
        for key in ("anyOf", "oneOf", "allOf"):
            for x in n.get(key, []):
                walk(x)

    walk(node)
    return sorted(set(out))


#: Schema keyword on a kind's table: the algorithm draws from its random stream, so the seed
#: changes what it does.
RANDOM_KEY = "x-draws-random"


@cache
def _schema() -> dict[str, Any]:
    return json.loads(_native.json_schema())


@cache
def kinds() -> dict[str, list[str]]:
    """{family: sorted names} for every family in :data:`FAMILIES`."""
    defs = _schema()["$defs"]
    return {fam: _names(defs[name]) for fam, (name, _) in FAMILIES.items()}


def _alternatives(node: Any, defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The schemas a value at ``node`` may match: references followed, ``anyOf``/``oneOf`` flattened."""
    if not isinstance(node, dict):
        return []
    while "$ref" in node and len(node) <= 2:  # a bare reference (and maybe its description)
        node = defs[node["$ref"].rsplit("/", 1)[-1]]
    if "$ref" in node:
        node = {**defs[node["$ref"].rsplit("/", 1)[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
    subs = [x for key in ("anyOf", "oneOf") for x in node.get(key, [])]
    if not subs:
        return [node]
    return [a for x in subs for a in _alternatives(x, defs)]


def _kind_of(alt: dict[str, Any]) -> str | None:
    k = alt.get("properties", {}).get("kind")
    return k.get("const") if isinstance(k, dict) else None


def kind_fields(family: str, kind: str) -> set[str] | None:
    """The field names of `kind`'s table in `family` (``kind`` included); None if the build
    has no such kind."""
    defs = _schema()["$defs"]
    for a in _alternatives(defs[FAMILIES[family][0]], defs):
        if _kind_of(a) == kind:
            return set(a["properties"])
    return None


@cache
def random_kinds() -> dict[str, list[str]]:
    """{family: sorted names of the kinds that draw random numbers} for every family in
    :data:`FAMILIES`."""
    defs = _schema()["$defs"]
    return {fam: sorted({_kind_of(a) for a in _alternatives(defs[name], defs) if a.get(RANDOM_KEY)} - {None})
            for fam, (name, _) in FAMILIES.items()}


def random_components(data: dict[str, Any]) -> list[str]:
    """Where a scenario (as a dict, the scenario file's structure) uses a kind that draws random
    numbers, as sorted labels ``links.r1->r2.queue=red``, ``flows.f1.workload=poisson``,
    ``arrivals.web.process=webtraf``: the scenario is walked along its schema, so every family,
    at every place the format allows it, is covered without a list of names here. List items
    are named by their ``name`` (links by ``a->b``), else by index."""
    schema = _schema()
    defs = schema["$defs"]
    found: set[str] = set()

    def walk(value: Any, node: Any, path: str) -> None:
        alts = _alternatives(node, defs)
        if isinstance(value, str):
            if any(_kind_of(a) == value and a.get(RANDOM_KEY) for a in alts):
                found.add(f"{path}={value}")
        elif isinstance(value, dict):
            tables = [a for a in alts if "properties" in a]
            kind = value.get("kind")
            if isinstance(kind, str):
                tables = [a for a in tables if _kind_of(a) == kind] or tables
                if any(_kind_of(a) == kind and a.get(RANDOM_KEY) for a in tables):
                    found.add(f"{path}={kind}")
            props: dict[str, Any] = {}
            for a in tables:
                props.update(a["properties"])
            for key, v in value.items():
                if key in props:
                    walk(v, props[key], f"{path}.{key}" if path else key)
        elif isinstance(value, list):
            items = [a["items"] for a in alts if isinstance(a.get("items"), dict)]
            for i, v in enumerate(value):
                label = str(i)
                if isinstance(v, dict) and isinstance(v.get("name"), str):
                    label = v["name"]
                elif isinstance(v, dict) and "a" in v and "b" in v:
                    label = f"{v['a']}->{v['b']}"
                for it in items[:1]:
                    walk(v, it, f"{path}.{label}")

    walk(data, schema, "")
    return sorted(found)


def doc_page(family: str, name: str, root: Path) -> Path | None:
    """Where the page of algorithm `name` of `family` is (whether or not it exists); None for a
    family without one page per name."""
    folder = FAMILIES[family][1]
    return None if folder is None else root / "docs" / folder / f"{name}.md"
