"""Rivals bots are competent and the kernel has no seat or build-index bias (slow tests:
``make test-slow``; the numbers are also measured in reports/rivals/README.md).

- the best heuristic style beats the ``random`` baseline in at least 90% of 2-player games
  (a game stopped at the round cap counts as not beaten);
- four copies of one build under different names (scenarios/rivals-mirror.yaml), seats
  rotating: each copy's win share lies within its Holm-corrected Wilson interval around
  1/4 over 20,000 games;
- a build given +1 heart on every unit (``roster.builds.<b>.hearts_bonus``) gains win share
  on 20,000 paired 2-player games (the same seeds, so the same maps and dice streams):
  the 95% interval of the paired difference lies above 0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from deepsim.report.metrics import wilson
from deepsim.rulesets.rivals import RULESET
from deepsim.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[3]
MIRROR = ROOT / "scenarios" / "rivals-mirror.yaml"

pytestmark = pytest.mark.slow


def _play(scenario: dict, games: int, overrides=(), source="<competence>"):
    p = RULESET.prepare({**scenario, "games": games}, source=source,
                        overrides=list(overrides))
    return RULESET.run_chunk(p, 0, games)


def heuristic_vs_random(style: str, games: int = 2000) -> tuple[float, int]:
    """Share of 2-player games the style wins outright against ``random``, seats
    rotating; and the number of games."""
    _g, s = _play({"name": "vs-random", "ruleset": "rivals", "players": 2, "seed": 5,
                  "rotate": True, "seats": [{"bot": style}, {"bot": "random"}]}, games)
    h = s[s["bot"].astype(str) == style]
    return float((h["win"] >= 1.0).mean()), len(h)


def test_best_heuristic_beats_random_in_90_percent_of_2p_games():
    shares = {st: heuristic_vs_random(st) for st in ("brawler", "sniper", "looter")}
    best = max(shares, key=lambda k: shares[k][0])
    share, n = shares[best]
    lo, _ = wilson(share * n, n, 0.05)
    print(f"vs random: {shares}")
    assert share >= 0.90, shares
    assert lo >= 0.88, (best, share, lo)


def test_four_copies_of_one_build_win_alike():
    sc = load_scenario(MIRROR)
    _g, s = _play(sc, 20_000, source=str(MIRROR))
    groups = s.groupby("build", observed=True)["win"].agg(["sum", "count"])
    assert len(groups) == 4
    # Holm over the four copies: each copy's two-sided test of win share = 1/4 (normal
    # approximation, the Wilson score test's statistic), family-wise 5%
    k = groups["sum"].to_numpy()
    n = groups["count"].to_numpy()
    z = (k / n - 0.25) / np.sqrt(0.25 * 0.75 / n)
    from scipy.stats import norm
    pvals = 2 * norm.sf(np.abs(z))
    reject, _, _, _ = multipletests(pvals, alpha=0.05, method="holm")
    print(f"mirror: {dict(zip(groups.index.astype(str), k / n, strict=True))}, Holm p "
          f"{multipletests(pvals, method='holm')[1]}")
    assert not reject.any(), dict(zip(groups.index.astype(str), k / n, strict=True))


def test_one_more_heart_gains_on_paired_games(tmp_path):
    data = (ROOT / "scenarios" / "rivals-data" / "mirror-roster.yaml").read_text()
    (tmp_path / "roster.yaml").write_text(data)
    scen = {"name": "hearts", "ruleset": "rivals", "players": 2, "seed": 9,
            "data": str(tmp_path / "roster.yaml"), "rotate": True, "bots": ["brawler"],
            "seats": [{"build": "balanced_a", "bot": "brawler"},
                      {"build": "balanced_b", "bot": "brawler"}]}
    _, base = _play(scen, 20_000, source=str(tmp_path / "s.yaml"))
    _, plus = _play(scen, 20_000, ["roster.builds.balanced_b.hearts_bonus=1"],
                    source=str(tmp_path / "s.yaml"))
    wb = base[base["build"].astype(str) == "balanced_b"].set_index("game")["win"]
    wp = plus[plus["build"].astype(str) == "balanced_b"].set_index("game")["win"]
    d = (wp - wb.reindex(wp.index)).to_numpy()
    # a game the round cap stopped has no result (win NaN) in that arm: the pairs resolved
    # in both arms are compared (the contract leaves unresolved games out of every share)
    both = ~np.isnan(d)
    assert both.mean() > 0.98, f"{(~both).sum()} of {d.size} pairs unresolved in an arm"
    d = d[both]
    mean = d.mean()
    half = 1.96 * d.std(ddof=1) / np.sqrt(d.size)
    print(f"+1 heart: paired difference {mean:+.4f} +- {half:.4f} over {d.size} games")
    assert mean - half > 0, (mean, half)
