"""Reports: number formatting, Markdown tables from DataFrames, and one HTML page per report
rendered from the same Markdown (figures embedded), plus an index page for several reports.

The reproductions write ``report.md``; :func:`write_html` turns it into ``report.html`` beside
it (tables, headings, lists, emphasis, code, images embedded as data URIs), so both show the
same data. Tables are best made with :func:`markdown_table` from a DataFrame, whose cells go
through :func:`fmt`: counts print as integers (``12``, not ``12.00``), other numbers with a
fixed number of significant digits, NaN as ``-``.
"""

from __future__ import annotations

import base64
import html
import math
import mimetypes
import numbers
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import atomic


def verdict(agrees: bool | None) -> str:
    """The verdict word of a claims table: ``agrees``, ``differs``, or ``n/a`` when the claim
    could not be measured."""
    return "n/a" if agrees is None else ("agrees" if agrees else "differs")


@dataclass
class Claim:
    """One row of a reproduction's claims table: the paper's claim, its value, ours, the
    tolerance used and whether ours agrees."""

    key: str
    claim: str
    paper: str
    ours: str
    tolerance: str
    agrees: bool

    @property
    def verdict(self) -> str:
        return verdict(self.agrees)


def claims_table(claims: list[Claim], source: str = "paper") -> list[str]:
    """The claims as Markdown table lines; ``source`` names the document in the first header."""
    lines = [f"| claim ({source}) | paper | ours | tolerance | verdict |", "|---|---|---|---|---|"]
    lines += [f"| {c.claim} | {c.paper} | {c.ours} | {c.tolerance} | {c.verdict} |" for c in claims]
    return lines


def write_report(out_dir: Path, lines: Sequence[str], figures: Sequence[str] = (),
                 progress: Callable[[str, float], None] | None = None, final_newline: bool = True) -> Path:
    """Write a reproduction's ``report.md`` into ``out_dir`` (figures, if given, listed under a
    "Figures" heading at the end), tell ``progress`` the job is done, and return the path. Every
    reproduction finishes through here, so the file is laid out the same way for all of them."""
    lines = list(lines)
    if figures:
        lines += ["", "## Figures", ""] + [f"![{n}]({n})" for n in figures]
    report = Path(out_dir) / "report.md"
    atomic.write_text(report, "\n".join(lines) + ("\n" if final_newline else ""))
    if progress:
        progress("done", 1.0)
    return report


def fmt(x: Any, digits: int = 3) -> str:
    """One table cell: integers (and integral counts stored as floats are still shown as
    what they are only when ``x`` is an int type) as integers, floats with ``digits``
    significant digits, NaN and None as ``-``, anything else as text."""
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, numbers.Integral):
        return str(int(x))
    if isinstance(x, numbers.Real):
        v = float(x)
        if math.isnan(v):
            return "-"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:.{digits}g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.{digits}e}"
    return str(x)


def fmt_count(x: Any) -> str:
    """A count: always an integer (``0``, not ``0.00``), NaN as ``-``."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return str(int(round(float(x))))


def fmt_fixed(x: Any, decimals: int = 2) -> str:
    """A measured quantity with a fixed number of decimals; integers (counts) stay integers."""
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return str(int(x))
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{float(x):.{decimals}f}"


def markdown_table(df, digits: int = 3, counts: Iterable[str] = (), index: bool = False) -> list[str]:
    """A DataFrame as Markdown table lines. Integer columns print as integers; columns named
    in ``counts`` (or ending in ``_pkts``, ``drops``, ``marks``) as integers even when stored
    as floats; other numbers with ``digits`` significant digits."""
    counts = set(counts)
    if index:
        df = df.reset_index()
    cols = [str(c) for c in df.columns]

    def is_count(c: str) -> bool:
        return c in counts or c.endswith("_pkts") or c in ("drops", "marks") or c.endswith("_count")

    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        cells = [fmt_count(v) if is_count(c) and isinstance(v, numbers.Real) and not isinstance(v, bool)
                 else fmt(v, digits) for c, v in zip(cols, row)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


Column = tuple[str, "str | Callable[[Any], str]"]


def rows_table(columns: Sequence[Column], rows: Iterable[Any]) -> list[str]:
    """Markdown table lines from records (dicts or tuples) and a column spec: each column is
    (header, cell), where ``cell`` is a template filled from the record (``"{end_s:.1f}"``;
    ``"{0}"`` for a tuple's first item) or a function of the record returning the cell text.
    One writer for every hand-formatted table, so that a table is data, not a copied block."""
    lines = ["| " + " | ".join(h for h, _ in columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for r in rows:
        cells = []
        for _, cell in columns:
            if callable(cell):
                cells.append(cell(r))
            elif isinstance(r, Mapping):
                cells.append(cell.format_map(r))
            else:
                cells.append(cell.format(*r))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


# -- Markdown to HTML (the subset the reports use) -------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.45; color: #222; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; } code { background: #f3f3f3; padding: 0 0.2rem; }
"""


def _inline(text: str, base: Path | None) -> str:
    out = html.escape(text, quote=False)

    def img(m: re.Match) -> str:
        alt, src = m.group(1), m.group(2)
        return f'<img alt="{html.escape(alt)}" src="{_data_uri(src, base)}">'

    out = re.sub(r"!\[([^\]]*)\]\(([^)\s]+)\)", img, out)
    out = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', out)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"<em>\1</em>", out)
    return out


def _data_uri(src: str, base: Path | None) -> str:
    p = Path(html.unescape(src))
    if base is not None and not p.is_absolute():
        p = base / p
    if not p.is_file():
        return html.escape(src)
    mime = mimetypes.guess_type(p.name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(p.read_bytes()).decode()}"


def markdown_to_html(md: str, title: str = "report", base: Path | None = None) -> str:
    """An HTML page from Markdown: headings, paragraphs, pipe tables, bullet and numbered
    lists, code blocks, emphasis, links and images (files under ``base`` embedded)."""
    lines = md.splitlines()
    body: list[str] = []
    i = 0
    para: list[str] = []

    def flush() -> None:
        if para:
            body.append(f"<p>{_inline(' '.join(para), base)}</p>")
            para.clear()

    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if s.startswith("```"):
            flush()
            j = i + 1
            code = []
            while j < len(lines) and not lines[j].strip().startswith("```"):
                code.append(lines[j])
                j += 1
            body.append(f"<pre><code>{html.escape(chr(10).join(code))}</code></pre>")
            i = j + 1
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", s)
        if m:
            flush()
            n = len(m.group(1))
            body.append(f"<h{n}>{_inline(m.group(2), base)}</h{n}>")
            i += 1
            continue
        if s.startswith("|") and i + 1 < len(lines) and re.match(r"^\|?\s*:?-{2,}", lines[i + 1].strip()):
            flush()
            head = [c.strip() for c in s.strip("|").split("|")]
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].strip().startswith("|"):
                rows.append([c.strip() for c in lines[j].strip().strip("|").split("|")])
                j += 1
            t = ["<table>", "<tr>" + "".join(f"<th>{_inline(c, base)}</th>" for c in head) + "</tr>"]
            t += ["<tr>" + "".join(f"<td>{_inline(c, base)}</td>" for c in r) + "</tr>" for r in rows]
            body.append("\n".join(t + ["</table>"]))
            i = j
            continue
        if re.match(r"^([-*]|\d+\.)\s+", s):
            flush()
            ordered = bool(re.match(r"^\d+\.", s))
            items = []
            j = i
            while j < len(lines) and re.match(r"^([-*]|\d+\.)\s+", lines[j].strip()):
                item = re.sub(r"^([-*]|\d+\.)\s+", "", lines[j].strip())
                j += 1
                while j < len(lines) and lines[j].startswith("  ") and lines[j].strip() and \
                        not re.match(r"^([-*]|\d+\.)\s+", lines[j].strip()):
                    item += " " + lines[j].strip()
                    j += 1
                items.append(f"<li>{_inline(item, base)}</li>")
            tag = "ol" if ordered else "ul"
            body.append(f"<{tag}>" + "".join(items) + f"</{tag}>")
            i = j
            continue
        if not s:
            flush()
        else:
            para.append(s)
        i += 1
    flush()
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_html(md_path: str | Path, title: str | None = None) -> Path:
    """Writes ``report.html`` beside ``report.md`` (same content, figures embedded)."""
    md_path = Path(md_path)
    text = md_path.read_text()
    m = re.search(r"^#\s+(.*)$", text, re.M)
    page = markdown_to_html(text, title or (m.group(1) if m else md_path.stem), base=md_path.parent)
    out = md_path.with_suffix(".html")
    atomic.write_text(out, page)
    return out


def write_index(out_dir: str | Path, reports: dict[str, Path], descriptions: dict[str, str] | None = None) -> Path:
    """An ``index.html`` in ``out_dir`` linking each report (name -> its report.html)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, path in sorted(reports.items()):
        rel = Path(path).resolve().relative_to(out_dir.resolve()) if Path(path).resolve().is_relative_to(
            out_dir.resolve()) else Path(path).resolve()
        desc = (descriptions or {}).get(name, "")
        rows.append(f"| [{name}]({rel.as_posix()}) | {desc} |")
    md = "\n".join(["# pinchpoint reproductions", "", "| reproduction | document |", "|---|---|", *rows, ""])
    page = markdown_to_html(md, "pinchpoint reproductions", base=out_dir)
    return atomic.write_text(out_dir / "index.html", page)
