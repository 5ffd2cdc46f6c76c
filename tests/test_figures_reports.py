"""Figures for papers and HTML reports (issue 16)."""

import math
import subprocess
import sys

import pandas as pd
import pytest

import pinchpoint as pp
from pinchpoint import report
from pinchpoint.plots import mean_ci, t95


def run_tiny(packet_trace=False):
    s = pp.Scenario("tiny", duration="1s")
    s.host("a").host("b").router("r")
    s.link("a", "r", rate="100Mbps", delay="1ms").link("r", "b", rate="5Mbps", delay="10ms")
    s.flow("f", "a", "b", cc="newreno")
    s.metrics(series_interval="50ms", packet_trace=packet_trace)
    return pp.run(s)


def test_plotting_never_changes_the_users_backend():
    code = (
        "import matplotlib; matplotlib.use('svg'); import pinchpoint as pp\n"
        "s = pp.Scenario('t', duration='0.5s'); s.host('a').host('b')\n"
        "s.link('a', 'b', rate='10Mbps', delay='1ms').flow('f', 'a', 'b')\n"
        "s.metrics(series_interval='50ms'); r = pp.run(s)\n"
        "import tempfile; r.plot.queue(); r.plot.save_all(tempfile.mkdtemp())\n"
        "print(matplotlib.get_backend())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().lower() == "svg"


def test_save_all_writes_vector_formats_and_says_why_it_skips_the_delay_cdf(tmp_path):
    r = run_tiny()
    with pytest.warns(UserWarning, match="packet_trace = true"):
        paths = r.plot.save_all(tmp_path, formats=["svg", "pdf"])
    names = sorted(p.name for p in paths)
    assert names == ["goodput.pdf", "goodput.svg", "queue.pdf", "queue.svg", "window.pdf", "window.svg"]
    assert (tmp_path / "queue.pdf").read_bytes()[:4] == b"%PDF"
    svg = (tmp_path / "queue.svg").read_text()
    assert "<svg" in svg and "queue at" not in svg  # paper style: no title inside the axes
    assert r.plot.queue().get_title().startswith("queue at")  # interactive figures keep their titles


def test_mean_ci_uses_students_t_over_seeds():
    t = pd.DataFrame({"x": [1, 1, 1, 2], "y": [1.0, 2.0, 3.0, 5.0]})
    m = mean_ci(t, "x", "y")
    row = m[m["x"] == 1].iloc[0]
    assert row["mean"] == 2.0 and row["n"] == 3
    assert row["ci95"] == pytest.approx(4.302653 * 1.0 / math.sqrt(3))
    assert math.isnan(m[m["x"] == 2].iloc[0]["ci95"])
    for bad in (("z", "y"), ("x", "goodput")):  # a misspelt x or y is named, with the columns there are
        with pytest.raises(KeyError, match=f"'{bad[0] if bad[0] != 'x' else bad[1]}': no such column"):
            mean_ci(t, *bad)



def test_mean_ci_is_over_seeds_only_and_names_a_parameter_that_varies_too(tmp_path):
    # Grouped by (by, x) alone, the rows of both queues were pooled as if they were seeds: n = 4
    # seeds' worth from 2 seeds, and the queue's effect taken for seed noise.
    from pinchpoint.plots import sweep_plot
    from pinchpoint.sweep import sweep

    s = pp.Scenario("tiny", duration="0.3s")
    s.host("a").host("b").router("r")
    s.link("a", "r", rate="100Mbps", delay="1ms").link("r", "b", rate="5Mbps", delay="10ms")
    s.flow("f", "a", "b", cc="newreno", start_jitter="20ms")
    table = sweep(s, {"flows.f.cc": ["reno", "newreno"],
                      "links.r->b.queue": [{"kind": "droptail", "limit_pkts": 5}, {"kind": "droptail", "limit_pkts": 50}]},
                  zip={"links.r->b.rate": ["5Mbps", "10Mbps"], "links.r->b.delay": ["10ms", "20ms"]},
                  seeds=[1, 2], store=tmp_path / "s.duckdb", workers=1)
    table["goodput_mbps"] = table["goodput_bps"] / 1e6  # a column derived after the results: not a parameter
    for call in (mean_ci, sweep_plot):
        with pytest.raises(ValueError) as e:
            call(table, x="links.r->b.rate_bps", y="goodput_bps", by="flows.f.cc")
        msg = str(e.value)
        assert "'links.r->b.queue', 'links.r->b.queue.limit_pkts' also vary" in msg, msg
        assert "table[table['links.r->b.queue.limit_pkts'] == 5]" in msg and "by='links.r->b.queue.limit_pkts'" in msg
        # x's own columns (rate, rate_bps), the zipped delay and the derived column are not named.
        assert "rate'" not in msg and "delay" not in msg and "goodput_mbps" not in msg
    with pytest.raises(ValueError, match=r"'flows.f.cc', 'links.r->b.queue', .* Keep one value of each"):
        mean_ci(table, x="links.r->b.rate_bps", y="goodput_bps")
    one_queue = table[table["links.r->b.queue.limit_pkts"] == 5]
    m = mean_ci(one_queue, x="links.r->b.rate_bps", y="goodput_bps", by="flows.f.cc")
    assert len(m) == 4 and list(m["n"]) == [2, 2, 2, 2]
    assert mean_ci(one_queue, x="links.r->b.rate", y="goodput_mbps", by="flows.f.cc")["n"].tolist() == [2] * 4
    by_queue = mean_ci(table[table["flows.f.cc"] == "reno"], x="links.r->b.delay_s", y="goodput_bps",
                       by="links.r->b.queue")
    assert len(by_queue) == 4 and set(by_queue["n"]) == {2}
    assert len(sweep_plot(one_queue, x="links.r->b.rate_bps", y="goodput_bps", by="flows.f.cc").lines) == 6
    # Duplicate rows of one run are not seeds either.
    with pytest.raises(ValueError, match=r"seed\(s\) 1, 2 appear more than once at .*drop_duplicates\('run'\)"):
        mean_ci(pd.concat([one_queue, one_queue]), x="links.r->b.rate_bps", y="goodput_bps", by="flows.f.cc")
    with pytest.raises(KeyError, match="'links.r->b.rate_kbps': no such column"):
        mean_ci(table, x="links.r->b.rate_kbps", y="goodput_bps")


# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom, as printed in tables.
T95_TABLE = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
             2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
             2.045, 2.042)


def test_t95_is_students_t_for_every_degree_of_freedom():
    # Above 30 degrees of freedom it was the normal 1.960 (t for 31 is 2.040: intervals 4 % too narrow).
    from pinchpoint.stats import student_t_quantile, student_t_sf

    for dof, value in enumerate(T95_TABLE, start=1):
        assert round(t95(dof), 3) == value, dof
    assert t95(1) == pytest.approx(math.tan(math.pi * 0.475), abs=1e-9)  # Cauchy
    assert t95(2) == pytest.approx(0.95 * math.sqrt(2 / (4 * 0.975 * 0.025)), abs=1e-9)
    for dof, value in [(31, 2.039513), (40, 2.021075), (60, 2.000298), (120, 1.979930), (999, 1.962341),
                       (1000, 1.962339), (10**6, 1.959966)]:
        assert t95(dof) == pytest.approx(value, abs=1e-6), dof
    assert t95(10**12) == pytest.approx(1.959963985, abs=1e-9)  # the normal quantile
    assert math.isnan(t95(0))
    # The quantile inverts the distribution, on both sides of 1000 degrees of freedom.
    for dof in (3, 30, 999, 1000, 5000):
        for p in (0.6, 0.9, 0.975, 0.9995):
            assert student_t_sf(student_t_quantile(p, dof), dof) == pytest.approx(1 - p, rel=1e-9)
            assert student_t_quantile(1 - p, dof) == -student_t_quantile(p, dof)
    with pytest.raises(ValueError, match="p: expected a probability strictly between 0 and 1, got 1.5"):
        student_t_quantile(1.5, 3)


def test_counts_print_as_integers_and_measurements_with_digits():
    assert report.fmt_count(0.0) == "0" and report.fmt_count(12.0) == "12"
    assert report.fmt_fixed(3) == "3" and report.fmt_fixed(0.5) == "0.50"
    df = pd.DataFrame({"port": ["a->b"], "drops": [0.0], "sent_pkts": [12], "delay_s": [0.01234]})
    lines = report.markdown_table(df)
    assert lines[2] == "| a->b | 0 | 12 | 0.0123 |"


def test_html_report_renders_the_markdown_with_embedded_figures(tmp_path):
    r = run_tiny(packet_trace=True)
    r.plot.save_all(tmp_path, formats=["png"])
    md = tmp_path / "report.md"
    table = report.markdown_table(r.flows[["flow", "sent_pkts", "goodput_bps"]])
    md.write_text("\n".join(["# Tiny report", "", "Some **bold** text.", "", *table, "", "![](queue.png)", "",
                             "- one", "- two", ""]))
    page = report.write_html(md).read_text()
    assert "<title>Tiny report</title>" in page and "<h1>Tiny report</h1>" in page
    assert "<th>sent_pkts</th>" in page and f"<td>{int(r.flows['sent_pkts'][0])}</td>" in page
    assert 'src="data:image/png;base64,' in page and "<li>two</li>" in page
    idx = report.write_index(tmp_path, {"tiny": tmp_path / "report.html"}, {"tiny": "a test"})
    assert 'href="report.html"' in idx.read_text()


def test_save_figure_lays_out_writes_and_closes_a_pyplot_figure(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pinchpoint.plots import save_figure

    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [0, 1])
    out = save_figure(fig, tmp_path / "line.png", dpi=50)
    assert out == tmp_path / "line.png"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # 2 x 1 inches at 50 dpi: the per-call resolution reached the file (IHDR width and height).
    head = out.read_bytes()[16:24]
    assert (int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")) == (100, 50)
    assert not plt.fignum_exists(fig.number), "the figure is still open in pyplot"
    assert [p.name for p in tmp_path.iterdir()] == ["line.png"]


def test_save_figure_leaves_no_partial_file_when_writing_fails_and_keeps_the_old_one(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pinchpoint.plots import save_figure

    target = tmp_path / "fig.png"
    target.write_bytes(b"previous figure")
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [0, 1])

    def fail_midway(*args, **kwargs):
        # Write part of a file under the name savefig was given, then fail, as a full disk would.
        with open(args[0], "wb") as f:
            f.write(b"\x89PNG partial")
        raise OSError("disk full")

    fig.savefig = fail_midway
    with pytest.raises(OSError, match="disk full"):
        save_figure(fig, target)
    assert target.read_bytes() == b"previous figure"
    assert [p.name for p in tmp_path.iterdir()] == ["fig.png"], "a temporary file was left behind"
    assert not plt.fignum_exists(fig.number), "a failed write must still close the figure"
