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
    assert "H1 accepted: B - A = -1 pp (exit 1)" in res.output


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_a_never_accepts_h1(seed):
    res = _compare("--metric", "win_share[seat=1]", "--seed", str(seed), "--seed-b",
                   str(seed + 100), "--sprt", "0", "3", "--max-games", "20000")
    assert res.exit_code != EXIT_FAIL, res.output
    assert "unpaired (different seeds)" in res.output
