"""One answer on every surface: for one run, `deepsim.win_shares` (Python), the balance
report's table and the run summary's terminal table agree row by row: the same groups in
the same order, the same seat-games, win shares, intervals, fair shares, x fair, Holm
result and verdict, with the baseline bots' seats left out the same way."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

import deepsim
from deepsim.cli import app
from deepsim.report import viability as V

GAMES = 3000


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run of the ladder field (every style, the baselines random and cautious included)
    through `deepsim run` at 80 columns: its terminal output and its folder."""
    out = tmp_path_factory.mktemp("parity") / "run"
    res = CliRunner().invoke(app, ["run", "scenarios/deepfall-ladder.yaml", "--games",
                                   str(GAMES), "--seed", "3", "--out", str(out)],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    return res.output, out


def _terminal_rows(output: str) -> list[tuple]:
    """The summary's win share table: (name, games, win %, low, high, fair, x fair, Holm,
    verdict) per row."""
    rows, inside = [], False
    pat = re.compile(r"^(.+?)\s+([\d,]+)\s+([\d.]+)\s+([\d.]+)-([\d.]+)\s+([\d.]+)\s+"
                     r"([\d.]+)\s+(over|under|fair)\s+(too strong|viable|not viable|"
                     r"inconclusive)\s*$")
    for line in output.splitlines():
        if line.startswith("Company ") and "Holm" in line and "Verdict" in line:
            inside = True
            continue
        if inside:
            m = pat.match(line)
            if m:
                rows.append((m[1].strip(), int(m[2].replace(",", "")), m[3], m[4], m[5], m[6],
                             m[7], m[8], m[9]))
            elif line.strip() and not line.startswith("━"):
                break
    return rows


def _report_rows(md: str, heading: str) -> list[tuple]:
    """A report win share table (markdown) in the same shape as :func:`_terminal_rows`."""
    block = md.split(heading, 1)[1].split("\n\n", 2)[1]
    rows = []
    for line in block.splitlines()[2:]:
        c = [x.strip() for x in line.strip("|").split("|")]
        lo, hi = (x.strip().rstrip("%") for x in c[3].split(" - "))
        rows.append((c[0], int(c[1].replace(",", "")), c[2].rstrip("%"), lo, hi,
                     c[4].rstrip("%"), c[5], c[7], c[8]))
    return rows


def _python_rows(t) -> list[tuple]:
    return [(str(r.iloc[0]), int(r["games"]), f"{r['win_share']:.1f}", f"{r['ci_low']:.1f}",
             f"{r['ci_high']:.1f}", f"{r['fair_share']:.1f}", f"{r['ratio']:.2f}", r["test"],
             r["verdict"]) for _, r in t.iterrows()]


def test_python_report_and_terminal_tables_are_the_same_row_by_row(run):
    output, out = run
    games, seats = deepsim.load(out)
    # the run's baseline styles travel with the frame: Python leaves them out by itself
    assert set(seats.attrs["baseline_bots"]) == {"random", "cautious"}
    py = deepsim.win_shares(seats, by="company")
    assert py.attrs["baseline_left_out"] == int(seats["bot"].isin(["random", "cautious"]).sum())
    assert py.attrs["baseline_left_out"] > 0
    md = (out / "report" / "report.md").read_text()
    term = _terminal_rows(output)
    rep = _report_rows(md, "**Companies (36)**")
    pyr = _python_rows(py)
    assert len(term) == len(rep) == len(pyr) == 36
    for a, b, c in zip(pyr, rep, term, strict=True):
        assert a == b == c
    # shares in percent in Python too, as deepsim.estimate gives them
    est = deepsim.estimate((games, seats), "win_share[company=Wisp Wardancer]",
                           ruleset="deepfall")
    assert 1.0 < py.set_index("company").loc["Wisp Wardancer", "win_share"] <= 100.0
    assert est["unit"].iloc[0] == "%"


def test_every_group_column_and_the_headline_agree(run):
    output, out = run
    _, seats = deepsim.load(out)
    md = (out / "report" / "report.md").read_text()
    for by, heading in (("lineage", "**Lineages**"), ("calling", "**Callings**")):
        assert _python_rows(deepsim.win_shares(seats, by=by)) == _report_rows(md, heading)
    # the headline: strongest and weakest company with the same x fair and verdict
    py = deepsim.win_shares(seats, by="company").sort_values(
        ["ratio", "company"], ascending=[False, True])
    top, bottom = py.iloc[0], py.iloc[-1]
    for r in (top, bottom):
        text = (f"{r['company']} {r['ratio']:.2f}x fair [{r['ratio_low']:.2f}-"
                f"{r['ratio_high']:.2f}] {r['verdict']}")
        assert text in " ".join(output.split())
        assert f"| {r['company']} | {r['ratio']:.2f} |" in md


def test_the_same_lines_by_default_everywhere():
    from deepsim.report.config import ReportConfig
    from deepsim.respond.search import Settings

    c = ReportConfig()
    assert c.lines == V.DEFAULT
    s = Settings()
    assert (s.alpha, s.min_ratio, s.max_ratio) == (V.DEFAULT.alpha, V.DEFAULT.min_ratio,
                                                   V.DEFAULT.max_ratio)
    import inspect
    sig = inspect.signature(deepsim.win_shares).parameters
    assert (sig["alpha"].default, sig["min_ratio"].default, sig["max_ratio"].default,
            sig["max_rel_width"].default) == (V.DEFAULT.alpha, V.DEFAULT.min_ratio,
                                              V.DEFAULT.max_ratio, V.DEFAULT.max_rel_width)


def test_the_commands_default_to_the_same_lines():
    """respond's and meta's --min-ratio/--max-ratio defaults are the shared lines (the
    command line states them as numbers so that --help loads no numerical library)."""
    import inspect

    from deepsim.cli.meta import meta
    from deepsim.cli.respond import respond
    for fn in (respond, meta):
        sig = inspect.signature(fn).parameters
        assert sig["min_ratio"].default == V.DEFAULT.min_ratio, fn.__name__
        assert sig["max_ratio"].default == V.DEFAULT.max_ratio, fn.__name__
