"""The helpers the reproductions share (issue 9, Python): one Jain's index and one time-weighted
mean (pinchpoint.stats), one table writer (pinchpoint.report.rows_table) and one job loop
(pinchpoint.reproduce.jobs)."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from pinchpoint.report import rows_table
from pinchpoint.reproduce.jobs import Job, run_jobs
from pinchpoint.stats import binned_time_means, jain, running_time_mean, time_weighted_mean

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "pinchpoint"

# Patterns of a hand-written Jain's index ((sum x)^2 / (n sum x^2)) or time-weighted mean
# (durations from np.diff of the change times, then a weighted sum).
COPIES = [re.compile(p) for p in (
    r"\*\*\s*2\s*\)?\s*/\s*\(\s*(len\(|n\b|n_)",  # (sum x) ** 2 / (len(x) ...
    r"\(\s*total\s*\*\s*total\s*\)\s*/",  # (total * total) / (n * sq)
    r"np\.diff\(\s*np\.append\(",  # step durations up to the end time
    r"weights\s*=\s*w\s*\*",  # a histogram weighted by durations
)]


def test_no_second_jain_index_or_time_weighted_mean_in_the_package():
    # Every module, the ns-3 translator included, uses pinchpoint.stats.
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel == Path("stats.py"):
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if any(p.search(line) for p in COPIES):
                found.append(f"{rel}:{i}: {line.strip()}")
    assert not found, "use pinchpoint.stats instead of:\n" + "\n".join(found)


def test_jain_is_one_for_equal_shares_and_one_over_n_for_a_monopoly():
    assert jain([3.0, 3.0, 3.0]) == pytest.approx(1.0)
    assert jain([5.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert jain([1.0, 2.0]) == pytest.approx(9 / 10)
    assert math.isnan(jain([])) and math.isnan(jain([0.0, 0.0]))


def test_time_weighted_mean_weights_each_value_by_how_long_it_held():
    t = np.array([0.0, 1.0, 4.0])
    v = np.array([2.0, 6.0, 0.0])
    # 2 for 1 s, 6 for 3 s, 0 for 1 s over [0, 5).
    assert time_weighted_mean(t, v, 0.0, 5.0) == pytest.approx((2 + 18) / 5)
    # A window starting inside a step takes the value in force: 6 on [2, 4), 0 on [4, 4.5).
    assert time_weighted_mean(t, v, 2.0, 4.5) == pytest.approx(12 / 2.5)
    # Before the first change the function is 0.
    assert time_weighted_mean(t + 1.0, v, 0.0, 2.0) == pytest.approx(1.0)


def test_binned_means_are_the_window_means_of_each_bin():
    rng = np.random.default_rng(1)
    t = np.sort(rng.uniform(0, 10, 200))
    v = rng.integers(0, 50, 200).astype(float)
    edges = np.arange(0.0, 10.5, 0.5)
    got = binned_time_means(t, v, edges)
    for k in range(len(edges) - 1):
        a, b = edges[k], edges[k + 1]
        # By hand: integrate the step function over [a, b).
        pts = np.concatenate([[a], t[(t > a) & (t < b)], [b]])
        vals = [v[np.searchsorted(t, x, side="right") - 1] if x >= t[0] else 0.0 for x in pts[:-1]]
        assert got[k] == pytest.approx(float(np.dot(np.diff(pts), vals)) / (b - a), rel=1e-12)


def test_running_mean_at_each_step_end_is_the_mean_so_far():
    ends, means = running_time_mean(np.array([0.0, 1.0, 4.0]), np.array([2.0, 6.0, 0.0]), 5.0)
    assert list(ends) == [1.0, 4.0, 5.0]
    assert list(means) == pytest.approx([2.0, 20 / 4, 20 / 5])


def test_rows_table_fills_templates_from_records_and_calls_functions():
    rows = [{"name": "a", "x": 1.23456, "n": 3}, {"name": "b", "x": math.inf, "n": 0}]
    assert rows_table([("name", "{name}"), ("x", "{x:.2f}"), ("n pkts", lambda r: str(r["n"] * 2))], rows) == [
        "| name | x | n pkts |", "|---|---|---|", "| a | 1.23 | 6 |", "| b | inf | 0 |"]
    assert rows_table([("claim", "{0}"), ("verdict", "{1}")], [("c", "holds")]) == [
        "| claim | verdict |", "|---|---|", "| c | holds |"]


def test_job_loop_reports_progress_before_each_job_and_records_expected_errors():
    seen = []

    def fail():
        raise KeyError("no such kind")

    out = run_jobs([Job("a", lambda: 1), Job("b", fail), Job("c", lambda: 3)],
                   progress=lambda label, f: seen.append((label, f)), span=(0.5, 0.8), expected=(KeyError,))
    assert seen == [("a", 0.5), ("b", pytest.approx(0.6)), ("c", pytest.approx(0.7))]
    assert [o.value for o in out] == [1, None, 3] and [o.ok for o in out] == [True, False, True]
    assert isinstance(out[1].error, KeyError) and all(o.wall_s >= 0 for o in out)
    with pytest.raises(ValueError):
        run_jobs([Job("d", lambda: int("x"))], expected=(KeyError,))
