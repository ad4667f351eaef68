"""deepsim ladder (issue 21): rungs, settled verdicts, the head-to-head interval's coverage
and the luck measure on synthetic games; one small ladder end to end."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from deepsim.botdata import load_bot_data
from deepsim.errors import InputError
from deepsim.ladder import (
    default_rungs,
    head_to_head_ratio,
    luck_share,
    parse_rungs,
    settled,
)
from deepsim.rulesets.deepfall import BOTS_FILE
from deepsim.rulesets.deepfall.layout import KNOBS


@pytest.fixture(scope="module")
def bots():
    return load_bot_data(BOTS_FILE, KNOBS)


def test_rungs_parse_and_refuse(bots, tmp_path):
    meta = tmp_path / "m.yaml"
    meta.write_text("styles: {}\nfactions: {}\n")
    r = parse_rungs(f"random,strongest,meta:{meta},search-8", bots, base=tmp_path)
    assert [x.kind for x in r] == ["style", "strongest", "meta", "search"]
    assert r[3].rollouts == 8
    for bad, msg in [("random", "at least two"), ("random,nope", "unknown rung 'nope'"),
                     ("random,search-0", "K >= 1"), ("random,random", "named twice"),
                     ("random,meta:/no/such.yaml", "no such meta bot file")]:
        with pytest.raises(InputError, match=msg):
            parse_rungs(bad, bots, base=tmp_path)
    assert default_rungs(bots, None) == "random,strongest,search-8,search-32"
    assert default_rungs(bots, "x.yaml") == "random,strongest,meta:x.yaml,search-8,search-32"


def test_a_verdict_that_changes_between_the_two_strongest_rungs_is_not_settled():
    t = pd.DataFrame({"faction": ["a"] * 3 + ["b"] * 3 + ["c"] * 3,
                      "rung": ["r1", "r2", "r3"] * 3,
                      "verdict": ["viable", "viable", "too strong",      # flips at the top
                                  "not viable", "viable", "viable",      # settled
                                  "viable", "inconclusive", "viable"]})  # inconclusive
    assert settled(t, ["r1", "r2", "r3"]) == {"a": False, "b": True, "c": False}


def test_luck_share_ends_on_synthetic_games():
    rng = np.random.default_rng(1)
    # pure chance: the upper rung wins a 2-player game half the time
    chance = np.where(rng.random(20_000) < 0.5, 0.5, -0.5)
    assert luck_share(chance) == pytest.approx(1.0, abs=0.01)
    # pure skill: it always wins
    assert luck_share(np.full(500, 0.5)) == 0.0
    # in between: winning with chance p gives 1 - (2p - 1)^2
    p = 0.7
    mid = np.where(rng.random(50_000) < p, 0.5, -0.5)
    assert luck_share(mid) == pytest.approx(1 - (2 * p - 1) ** 2, abs=0.02)
    # monotone: more skill, less luck
    vals = [luck_share(np.where(rng.random(20_000) < q, 0.5, -0.5)) for q in (0.5, 0.7, 0.9)]
    assert vals[0] > vals[1] > vals[2]


def test_head_to_head_interval_covers_at_its_level():
    """Synthetic 4-player deals: a random number of upper seats per play (both halves
    swapped over two plays), each seat winning with a known chance; the 95% interval of
    the ratio estimator covers the true ratio in 95% +- 2.5% of 1,000 repetitions."""
    rng = np.random.default_rng(7)
    p_up, p_low = 0.33, 0.25 * (4 - 2 * 0.33) / 2 / 1.0
    cover = 0
    reps = 1000
    for _ in range(reps):
        deals = 150
        n_up = rng.integers(0, 5, deals)            # upper seats in play 1; 4 - n_up in 2
        wins = np.zeros(deals)
        fair = np.zeros(deals)
        for k in (n_up, 4 - n_up):
            # each play: one winner drawn with weights p_up per upper seat, p_low per other
            w_up = k * p_up
            w = w_up + (4 - k) * p_low
            wins += (rng.random(deals) < w_up / w).astype(float)
            fair += k / 4
        # the true ratio: expected upper wins over fair wins, across the deal mix
        ks = np.arange(5)
        prob = np.full(5, 1 / 5)
        e_w = sum(prob[i] * (ks[i] * p_up / (ks[i] * p_up + (4 - ks[i]) * p_low)
                             + (4 - ks[i]) * p_up / ((4 - ks[i]) * p_up + ks[i] * p_low))
                  for i in range(5))
        true = e_w / 1.0
        _r, lo, hi = head_to_head_ratio(wins, fair)
        cover += lo <= true <= hi
    assert 0.925 <= cover / reps <= 0.975, cover / reps


@pytest.mark.slow
def test_a_small_ladder_end_to_end(tmp_path):
    from deepsim.ladder.run import run_ladder

    res = run_ladder("scenarios/deepfall-2p.yaml", rungs="random,greedy,search-2", games=40,
                     depth_games=20, threads=1, out=tmp_path / "lad")
    assert {"ladder.md", "ladder.png", "verdicts.csv", "depth.csv", "ladder.json"} <= {
        p.name for p in (tmp_path / "lad").iterdir()}
    md = (tmp_path / "lad" / "ladder.md").read_text()
    assert "## Does it depend on skill?" in md
    assert len(res.depth) == 2 and res.depth["ratio"].iloc[0] > 1.0
    info = json.loads((tmp_path / "lad" / "ladder.json").read_text())
    assert info["rungs"] == ["random", "greedy", "search-2"]


def test_bad_rungs_exit_2_with_one_error_line(tmp_path):
    from typer.testing import CliRunner

    from deepsim.cli import app

    res = CliRunner().invoke(app, ["ladder", "scenarios/deepfall-2p.yaml", "--rungs",
                                   "random,nope", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2
    assert "error:" in res.output and "unknown rung 'nope'" in res.output
    assert not (tmp_path / "x").exists()
    res = CliRunner().invoke(app, ["ladder", "scenarios/atlantis.yaml", "--rungs",
                                   "random,search-8"])
    assert res.exit_code == 2 and "no search" in res.output
