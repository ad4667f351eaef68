"""``deepsim compare`` on DEEPFALL games (issue 16): the cases the empirical-likelihood
GSPRT got wrong, on a scenario frozen under tests/scenarios/ so later changes of the shipped
scenarios do not move them.

- The Wardancer nerf (Worthy End multiplier 2.2 -> 1.8) moves the Wisp Wardancer's win
  share by about -1.8 points: ``--sprt 0 -20`` must never accept H1 (exit 0 or 3; the old
  test printed "H1 accepted" with LLR +inf), ``--sprt 0 -1`` must accept H1 (exit 1)
  within ``--max-games 40000``.
- A/A tests (identical rules, B on another seed stream) on 3 seeds never accept H1.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.gate import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_PASS

cli = CliRunner(env={"COLUMNS": "120"})
FROZEN = Path(__file__).resolve().parent / "scenarios" / "compare-4p.yaml"
NERF = ["--metric", "win_share[company=Wisp Wardancer]", "--set-b",
        "callings.wardancer.worthy_end_multiplier=1.8"]


def _compare(*args: str):
    res = cli.invoke(app, ["compare", str(FROZEN), *args, "-q"])
    assert res.exit_code in (EXIT_PASS, EXIT_FAIL, EXIT_INCONCLUSIVE), res.output
    assert "Traceback" not in res.output
    return res


def test_nerf_never_accepts_a_far_h1():
    res = _compare(*NERF, "--sprt", "0", "-20", "--max-games", "40000")
    assert res.exit_code in (EXIT_PASS, EXIT_INCONCLUSIVE), res.output
    assert "H1 accepted" not in res.output and "inf" not in res.output
    assert "H0 accepted" in res.output          # decided at the first look (2,000 games)


def test_nerf_accepts_the_h1_it_reaches():
    res = _compare(*NERF, "--sprt", "0", "-1", "--max-games", "40000")
    assert res.exit_code == EXIT_FAIL, res.output
    text = " ".join(res.output.replace("│", " ").split())
    # a decision about the hypotheses, with the measured change beside it
    assert "H1 accepted (exit 1): the data favour B - A = -1 pp over B - A = 0 pp" in text
    assert "measured B - A = -" in text


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_a_never_accepts_h1(seed):
    res = _compare("--metric", "win_share[seat=1]", "--seed", str(seed), "--seed-b",
                   str(seed + 100), "--sprt", "0", "3", "--max-games", "20000")
    assert res.exit_code != EXIT_FAIL, res.output
    assert "unpaired (different seeds)" in res.output


def test_is_it_balanced_now_x_fair_verdicts_and_changed_markers():
    """Without --sprt the faction table answers "is it balanced now?": x fair and verdict
    in A and B (the report's, baseline bots left out), every changed verdict marked and
    listed, and "no game changed (0 of N)" with an exact bound where no game changed."""
    from deepsim.gate.compare import run_compare

    r = run_compare(FROZEN, metric=None, sets_b=["callings.wardancer.worthy_end_multiplier=1.8"],
                    games=3000)
    rows = {f.member: f for f in r.factions if f.member}
    assert len(rows) == 36
    for f in rows.values():
        assert f.verdict_a in ("too strong", "viable", "not viable", "inconclusive")
        assert f.verdict_b in ("too strong", "viable", "not viable", "inconclusive")
        assert f.ratio_a[1] <= f.ratio_a[0] <= f.ratio_a[2]
    unchanged = [f for f in rows.values() if f.unchanged]
    changed = [f for f in rows.values() if f.changed]
    assert unchanged and changed           # the nerf reaches some companies' games only
    for f in unchanged:
        assert f.value_a == f.value_b and f.est == 0
        # exact Clopper-Pearson bound on a share of games: 1 - 0.025 ** (1/n)
        assert f.bound == pytest.approx(100 * (1 - 0.025 ** (1 / f.n)))
        assert 0 < f.bound < 5
    # A's x fair and verdict are the balance report's: the same table of the same games
    import deepsim
    from deepsim.report import viability as V
    sim = deepsim.simulate(FROZEN, games=3000)
    kept, _ = V.balance_seats(sim.seats, ("random", "cautious"))
    t = V.table(kept, "company").set_index("company")
    for name, f in rows.items():
        assert f.verdict_a == t.loc[name, "verdict"]
        assert f.ratio_a[0] == pytest.approx(t.loc[name, "ratio"])
        assert f.value_a == pytest.approx(100 * t.loc[name, "win_share"])
    # the terminal: a marker on each changed verdict, the count line, no zero-width interval
    res = cli.invoke(app, ["compare", str(FROZEN), "--set-b",
                           "callings.wardancer.worthy_end_multiplier=1.8", "--games", "3000",
                           "-q"])
    assert res.exit_code == EXIT_PASS, res.output
    out = res.output
    assert "Is it balanced now?" in out
    assert "no game changed" in out and "[+0, +0]" not in out and "+0 pp" not in out
    moved = [f for f in rows.values() if f.verdict_changed]
    first = {ln.split("  ")[0].strip(): ln for ln in out.splitlines()
             if ln.split("  ")[0].strip() in rows}
    for name, f in rows.items():           # the marker sits on the row's first line
        assert first[name].rstrip().endswith(" *") == f.verdict_changed, first[name]
    line = " ".join(out.split())
    if moved:
        assert f"{len(moved)} company verdict(s) changed:" in line
        for f in moved:
            assert f"{f.member} {f.verdict_a} -> {f.verdict_b}" in line
    else:
        assert "no company verdict changed" in line


def test_finished_runs_compare_with_the_same_verdicts(tmp_path):
    """Two run directories: the same faction table, from the runs' own seats."""
    a, b = tmp_path / "a", tmp_path / "b"
    for d, extra in ((a, []), (b, ["--set", "callings.wardancer.worthy_end_multiplier=1.8"])):
        res = cli.invoke(app, ["run", str(FROZEN), "--games", "2000", "--out", str(d), "-q",
                               "--no-report", *extra])
        assert res.exit_code == 0, res.output
    res = cli.invoke(app, ["compare", str(a), str(b)])
    assert res.exit_code == EXIT_PASS, res.output
    line = " ".join(res.output.split())
    assert "Is it balanced now?" in line and "A: " in line and "B: " in line
    assert "no game changed" in line
