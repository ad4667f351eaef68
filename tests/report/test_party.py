"""The co-operative numbers of deepsim.report.party on synthetic data: the verdict's error
rates at the edge of the band, that 'on target' can be reached, and the presence effect's
interval coverage."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from deepsim.report import party as P


def _verdicts(p: float, n: int, reps: int, target=0.5, band=0.05, seed=0) -> pd.Series:
    from statsmodels.stats.proportion import proportion_confint
    k = np.random.default_rng(seed).binomial(n, p, size=reps)
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return pd.Series([P.verdict(a, b, target, band) for a, b in zip(lo, hi, strict=True)])


def test_a_true_rate_at_the_band_edge_is_called_too_easy_at_most_alpha_over_2():
    v = _verdicts(0.55, 2000, 4000)
    # Wilson's one-sided error is about alpha / 2 = 2.5%; 4,000 draws: 3 SE is ~0.75 pts
    assert (v == "too easy").mean() <= 0.025 + 0.0075
    assert (v == "too hard").mean() == 0


def test_on_target_is_reachable():
    v = _verdicts(0.5, 20_000, 500)
    assert (v == "on target").mean() > 0.99


def test_far_from_target_is_called():
    assert (_verdicts(0.70, 2000, 200) == "too easy").all()
    assert (_verdicts(0.30, 2000, 200) == "too hard").all()


def test_verdict_words():
    assert P.verdict(0.56, 0.60, 0.5, 0.05) == "too easy"
    assert P.verdict(0.40, 0.44, 0.5, 0.05) == "too hard"
    assert P.verdict(0.46, 0.54, 0.5, 0.05) == "on target"
    assert P.verdict(0.50, 0.58, 0.5, 0.05) == "unclear"


def _deal(rng, n_games, effect):
    """Three player counts, classes a/b/c dealt at random per seat; class a adds
    ``effect`` to the party's win chance."""
    players = rng.choice([2, 3, 4], size=n_games)
    cls = rng.choice(np.array(["a", "b", "c"]), size=(n_games, 4))
    sat = np.arange(4)[None, :] < players[:, None]
    has_a = ((cls == "a") & sat).any(axis=1)
    won = rng.random(n_games) < 0.2 + 0.1 * players + effect * has_a
    games = pd.DataFrame({"game": np.arange(n_games), "players": players, "won": won,
                          "target": 0.5})
    g, k = np.nonzero(sat)
    seats = pd.DataFrame({"game": g, "class": cls[g, k]})
    return games, seats


def test_presence_effect_covers_the_true_effect():
    rng = np.random.default_rng(3)
    hits = 0
    reps = 200
    for _ in range(reps):
        games, seats = _deal(rng, 1500, 0.08)
        eff = P.class_effects(games, seats, "class")
        row = eff[(eff["member"] == "a") & (eff["stratum"] == "all")].iloc[0]
        hits += row["low"] <= 0.08 <= row["high"]
    # 95% intervals: 200 draws, at least ~91% (3 SE below 95%)
    assert hits / reps >= 0.91


def test_presence_effect_of_a_class_in_every_game_is_not_estimated():
    games = pd.DataFrame({"game": [0, 1], "players": [2, 2], "won": [True, False],
                          "target": 0.5})
    seats = pd.DataFrame({"game": [0, 0, 1, 1], "class": ["a", "b", "a", "a"]})
    eff = P.class_effects(games, seats, "class")
    a = eff[eff["member"] == "a"].iloc[0]
    assert np.isnan(a["effect"]) and a["note"] == "in every game"


def test_party_rates_rows():
    games = pd.DataFrame({"game": range(6), "players": [2, 2, 2, 3, 3, 3],
                          "won": [1, 0, 1, 1, 1, 0], "target": 0.5}).astype({"won": bool})
    r = P.party_rates(games)
    assert list(r["group"]) == ["2 players", "3 players", "all"]
    assert r["rate"].tolist() == pytest.approx([2 / 3, 2 / 3, 4 / 6])
