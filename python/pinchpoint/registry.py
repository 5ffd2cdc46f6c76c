"""The names each algorithm family accepts, read from the engine's registry (through the JSON
schema it generates), so that no list of names is written twice: the CLI's ``pinchpoint kinds``,
the fuzz test's controllers and loss recoveries, and the check that every algorithm has its page all come from here.

Whether a part of a scenario draws random numbers depends on its settings, not only its kind
(``on_off`` with fixed periods draws nothing); the engine answers per scenario
(:func:`pinchpoint.api.random_parts`)."""

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
    "recovery": ("Recovery", None),
}

#: Where the families without a page per name are described (what `pinchpoint kinds` prints).
PAGES_ELSEWHERE: dict[str, str] = {
    "receiver": "docs/algorithms/fixed.md, docs/algorithms/atn_credit.md",
    "loss": "docs/algorithms/link_loss.md",
    "arrival": "docs/traffic/arrivals.md",
    "recovery": "docs/algorithms/tcp.md",
}


def _names(node: Any) -> list[str]:
    """The `kind` names a config's schema accepts: a bare-name enum or `kind` constants."""
    out: list[str] = []

    def walk(n: Any) -> None:
        if not isinstance(n, dict):
            return
        if n.get("type") == "string" and "enum" in n:
            out.extend(n["enum"])
        if n.get("type") == "string" and "const" in n:  # one documented name (`tcp.recovery`)
            out.append(n["const"])
        kind = n.get("properties", {}).get("kind")
        if isinstance(kind, dict):
            out.extend([kind["const"]] if "const" in kind else kind.get("enum", []))
        for key in ("anyOf", "oneOf", "allOf"):
            for x in n.get(key, []):
                walk(x)

    walk(node)
    return sorted(set(out))


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


def doc_page(family: str, name: str, root: Path) -> Path | None:
    """Where the page of algorithm `name` of `family` is (whether or not it exists); None for a
    family without one page per name."""
    folder = FAMILIES[family][1]
    return None if folder is None else root / "docs" / folder / f"{name}.md"
