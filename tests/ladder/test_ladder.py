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
    assert r[2].label == f"meta:{meta}"  # outside the working folder: as given
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


def test_luck_share_is_taken_within_table_make_ups():
    """4-player plays where the upper rung holds 1, 2 or 3 seats: always winning scores
    1/k - 1/4 (different per make-up), which is pure skill (0) within strata, not luck;
    pure chance (every seat wins 1 in 4) stays near 1."""
    rng = np.random.default_rng(3)
    k = rng.integers(1, 4, 30_000)
    strata = k * 100 + 4
    always = 1 / k - 1 / 4
    assert luck_share(always, strata) == pytest.approx(0.0, abs=1e-12)
    assert luck_share(always) > 0.1                 # pooled, the make-up looked like luck
    wins = rng.random(30_000) < k / 4               # the upper rung's chance: its seats' share
    chance = (wins - k / 4) / k
    assert luck_share(chance, strata) == pytest.approx(1.0, abs=0.01)
    # one stratum: the same as without strata
    mid = np.where(rng.random(5_000) < 0.7, 0.5, -0.5)
    assert luck_share(mid, np.full(5_000, 202)) == pytest.approx(luck_share(mid))


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
    # the search check: every faction against every plain heuristic, on its own base
    heur = [n for n, st in load_bot_data(BOTS_FILE, KNOBS).styles.items()
            if not st.baseline and st.knobs.get("rollouts", 0) <= 0]
    check = pd.read_csv(tmp_path / "lad" / "search_check.csv")
    factions = set(check["faction"])          # every faction of the field
    assert set(res.verdicts["faction"]) <= factions
    assert set(check["heuristic"]) == set(heur) and len(check) == len(factions) * len(heur)
    assert set(check["verdict"]) <= {"beats", "weaker", "not shown"}
    assert set(info["search_bases"]) == factions
    assert set(info["search_bases"].values()) <= set(heur)
    assert "Does the search rung beat every plain heuristic?" in md


def _seats(rows):
    return pd.DataFrame(rows, columns=["game", "company", "win"])


def test_the_search_check_pairs_a_faction_on_games_against_the_heuristic_only():
    """deepsim.ladder.check.paired_faction_gain: the faction's seats on the same games,
    search minus heuristic; a game where another seat is from the searching half is left
    out; the verdict follows the interval."""
    from deepsim.ladder.check import paired_faction_gain

    games = 40
    base = _seats([r for g in range(games) for r in ((g, "A", g % 2), (g, "B", 1 - g % 2))]
                  + [(games, "A", 0.0), (games, "C", 1.0)])
    tried = _seats([r for g in range(games) for r in ((g, "A", 1.0), (g, "B", 0.0))]
                   + [(games, "A", 1.0), (games, "C", 0.0)])
    out = paired_faction_gain(base, tried, "company", "A", {"B"})
    assert out["games"] == games and out["seat_games"] == games     # game 40 (vs C) left out
    assert out["search_share"] == 1.0 and out["heuristic_share"] == 0.5
    assert out["diff"] == pytest.approx(0.5) and out["verdict"] == "beats"
    worse = paired_faction_gain(tried, base, "company", "A", {"B"})
    assert worse["verdict"] == "weaker" and worse["diff"] == pytest.approx(-0.5)
    same = paired_faction_gain(base, base, "company", "A", {"B"})
    assert same["verdict"] == "not shown" and same["diff"] == 0.0
    none = paired_faction_gain(base, tried, "company", "A", set())
    assert none["games"] == 0 and none["verdict"] == "not shown"


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
    res = CliRunner().invoke(app, ["ladder", "scenarios/deepfall-2p.yaml", "--rungs", "",
                                   "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "--rungs is empty" in res.output
    (tmp_path / "f").write_text("a file")
    for opt in ("--out", "--runs"):
        res = CliRunner().invoke(app, ["ladder", "scenarios/deepfall-2p.yaml", "--rungs",
                                       "random,greedy", opt, str(tmp_path / "f")])
        assert res.exit_code == 2 and "not a directory" in res.output, res.output


def _synthetic_result(tmp_path):
    """A 3-rung ladder result with made-up verdicts (no games played)."""
    from deepsim.ladder import LadderResult, Rung, verdict_table

    def tab(rows):
        return pd.DataFrame([{"company": f, "games": 100, "ratio": r, "ratio_low": r - .1,
                              "ratio_high": r + .1, "verdict": v} for f, r, v in rows])
    per = {"random": tab([("Aa Bb", 1.0, "viable"), ("Cc Dd", 0.5, "not viable")]),
           "greedy": tab([("Aa Bb", 1.6, "too strong"), ("Cc Dd", 0.9, "inconclusive")]),
           "search-8": tab([("Aa Bb", 1.7, "too strong"), ("Cc Dd", 0.6, "not viable")])}
    info = {"scenario": "x.yaml", "seed": 1, "games": 100, "depth_games": 50,
            "rungs": list(per), "strongest": "greedy", "faction_column": "company",
            "faction_label": "company", "games_played": 400, "wall_time_s": 3.0,
            "cpu_time_s": 2.0, "threads": 1, "min_ratio": 0.8, "max_ratio": 1.25,
            "max_rel_width": 0.1, "games_per_s_by_rung": {k: 10.0 for k in per}}
    depth = pd.DataFrame([{"rung": "greedy", "below": "random", "deals": 50, "ratio": 1.5,
                           "ratio_low": 1.2, "ratio_high": 1.8, "luck": 0.7},
                          {"rung": "search-8", "below": "greedy", "deals": 50,
                           "ratio": 1.1, "ratio_low": 0.9, "ratio_high": 1.3, "luck": 0.99}])
    rungs = [Rung(k, "style") for k in per]
    return LadderResult(rungs, "greedy", verdict_table(per, "company"), depth, info,
                        tmp_path / "lad")


def test_the_ladders_report_through_the_shared_renderers(tmp_path):
    from deepsim.cli.ladder import summary_table
    from deepsim.ladder.report import verdict_cells
    from deepsim.ladder.run import write

    res = _synthetic_result(tmp_path)
    write(res)
    d = tmp_path / "lad"
    md = (d / "ladder.md").read_text()
    html = (d / "ladder.html").read_text()
    # one flip between definite verdicts (Aa Bb viable -> too strong); Cc Dd is
    # inconclusive at the second strongest rung: no flip, but not settled
    assert "## Does it depend on skill?" in md
    assert "1 of 2 company verdicts change between definite verdicts" in md
    assert "(Aa Bb)" in md and "*not settled by this ladder* (Cc Dd)" in md
    assert "![Each company's verdict along the ladder" in md and (d / "ladder.png").is_file()
    assert '<section id="skill">' in html and "data:image/png;base64," in html
    # each cell: x fair and the verdict in the words of every balance table
    cells = verdict_cells(res)
    assert cells.to_dict("records")[0] == {"company": "Aa Bb", "R1": "1.00 viable",
                                           "R2": "1.60 too strong", "R3": "1.70 too strong",
                                           "settled": "yes"}
    assert "| Aa Bb | 1.00 viable | 1.60 too strong | 1.70 too strong | yes |" in md
    # the terminal's table (two lines a cell) stays inside 80 columns
    import io

    from rich.console import Console
    buf = io.StringIO()
    Console(file=buf, width=80).print(summary_table(res))
    out = buf.getvalue()
    assert max(len(x) for x in out.splitlines()) <= 80
    assert "too strong" in out and "not viable" in out and "STRONG" not in out


def test_deepsim_report_renders_a_ladders_folder_again(tmp_path):
    from typer.testing import CliRunner

    from deepsim.cli import app
    from deepsim.ladder.run import write

    write(_synthetic_result(tmp_path))
    d = tmp_path / "lad"
    (d / "ladder.md").unlink()
    (d / "ladder.html").unlink()
    res = CliRunner().invoke(app, ["report", str(d)], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert max(len(x) for x in res.output.splitlines()) <= 80
    assert "Aa Bb" in res.output and "* Cc Dd" in res.output
    assert "## Does it depend on skill?" in (d / "ladder.md").read_text()
    assert (d / "ladder.html").is_file()
    # a ladder's folder is reported alone, and a broken one is an input error
    res = CliRunner().invoke(app, ["report", str(d), "--option", "viability.min_ratio=0.9"])
    assert res.exit_code == 2 and "error:" in res.output
    (d / "depth.csv").write_text("rung,below\nx,y\n")     # damaged: columns missing
    res = CliRunner().invoke(app, ["report", str(d)])
    assert res.exit_code == 2 and "lacks the column(s) deals" in " ".join(res.output.split())
    (d / "verdicts.csv").unlink()
    res = CliRunner().invoke(app, ["report", str(d)])
    assert res.exit_code == 2 and "error:" in res.output


def test_claim_flags_along_the_ladder():
    from deepsim.ladder import NOT_SETTLED
    from deepsim.ladder.claims import FLIP, flags

    assert flags(["fails", "fails", "fails"]) == []
    assert flags(["holds", "fails", "fails"]) == [FLIP]
    assert flags(["fails", "fails", "holds (part not measured)"]) == [FLIP, NOT_SETTLED]
    assert flags(["fails", "fails", "inconclusive"]) == [NOT_SETTLED]
    # a rung that cannot measure the claim is left out, not a disagreement
    assert flags(["not measured", "not measured", "fails"]) == []
    assert flags(["not measured", "inconclusive", "not measured"]) == [NOT_SETTLED]
    assert flags(["holds", "not measured", "not measured"]) == []
    # inconclusive along the way is no flip
    assert flags(["holds", "inconclusive", "holds", "holds"]) == []


def test_kept_rung_runs_give_the_ladders_verdicts_and_the_claims_per_rung(tmp_path):
    from deepsim.ladder.run import run_ladder
    from deepsim.reporting import load_run

    kw = {"rungs": "random,greedy", "games": 40, "depth_games": 0, "threads": 1}
    a = run_ladder("scenarios/deepfall-2p.yaml", out=tmp_path / "a", **kw)
    b = run_ladder("scenarios/deepfall-2p.yaml", out=tmp_path / "b", runs=tmp_path / "r",
                   **kw)
    # the same games: the kept runs give the verdicts the listed games gave
    pd.testing.assert_frame_equal(a.verdicts, b.verdicts)
    assert b.depth.empty
    run = load_run(tmp_path / "r" / "R2-greedy")
    assert run.n_games == 40 and set(run.seats["bot"].astype(str)) == {"greedy"}
    md = (tmp_path / "b" / "ladder.md").read_text()
    assert "## Claims per rung" in md and "| B2 |" in md
    assert "## Claims per rung" not in (tmp_path / "a" / "ladder.md").read_text()
    with pytest.raises(InputError, match="runs folder"):
        run_ladder("scenarios/deepfall-2p.yaml", out=tmp_path / "c", runs=tmp_path / "r",
                   **kw)
    # FINDINGS.md gets the claims per rung in place (make findings-ladder), once
    from deepsim.studies.deepfall_findings import LADDER_HEADING, main

    (tmp_path / "f").mkdir()
    md = tmp_path / "f" / "FINDINGS.md"
    md.write_text("# F\n\n## Shipped\n\nx\n\n## Claims table\n\n| a |\n")
    for _ in range(2):
        assert main(["--ladder", str(tmp_path / "b"), "--ladder-only", "--out",
                     str(tmp_path / "f")]) == 0
    text = md.read_text()
    assert text.count(LADDER_HEADING) == 1 and text.index("## Shipped") < text.index(
        LADDER_HEADING) < text.index("## Claims table")
    assert "| B2 |" in text and (tmp_path / "f" / "findings" / "ladder.png").is_file()
    assert main(["--ladder", str(tmp_path / "a"), "--ladder-only", "--out",
                 str(tmp_path / "f")]) == 2  # a ladder without kept runs
    # before and after: a ladder of fewer games is the first games of the larger one's
    from deepsim.ladder.compare import compare_section, flips_and_unsettled, verdicts_at

    small = run_ladder("scenarios/deepfall-2p.yaml", out=tmp_path / "s",
                       runs=tmp_path / "rs", **(kw | {"games": 20}))
    pd.testing.assert_frame_equal(verdicts_at(b, 20), small.verdicts)
    pd.testing.assert_frame_equal(verdicts_at(b, 40), b.verdicts)
    with pytest.raises(InputError, match="fewer than"):
        verdicts_at(b, 41)
    with pytest.raises(InputError, match="kept no rung runs"):
        verdicts_at(a, 20)
    sec = compare_section(small, b, before_label="X", after_label="Y")
    cols = list(sec.tables[0].frame.columns)
    assert cols[1:] == ["before (20 games)", "after, its first 20 games", "after (40 games)"]
    flips, unsettled = flips_and_unsettled(small.verdicts, ["random", "greedy"])
    assert sec.tables[0].frame.iloc[1, 1] == str(len(unsettled))
    assert sec.tables[0].frame.iloc[0, 1] == str(len(flips))
    # the paired column is the before column when only the budget differs
    assert (sec.tables[0].frame.iloc[:, 1] == sec.tables[0].frame.iloc[:, 2]).all()
    # the before ladder's claims as FINDINGS printed them, side by side with the after's
    from deepsim.ladder.claims import claims_by_rung, claims_frame, short_frame

    kept = short_frame(claims_frame(claims_by_rung(small)))
    assert list(kept.columns) == ["claim", "R1", "R2", "flag"] and "B2" in set(kept["claim"])
    kept.to_csv(tmp_path / "s" / "claims.csv", index=False)
    assert main(["--ladder", str(tmp_path / "b"), "--ladder-before", str(tmp_path / "s"),
                 "--ladder-only", "--out", str(tmp_path / "f")]) == 0
    text = md.read_text()
    assert text.count(LADDER_HEADING) == 1 and "### Before and after" in text
    assert "Claim verdicts per rung, before and after" in text
    assert "| claim | before (20 games): R1 R2 | flag before | after (40 games): R1 R2 |" in text
    assert text.index("### Before and after") < text.index("## Claims table")
    other = run_ladder("scenarios/deepfall-2p.yaml", out=tmp_path / "o", seed=5,
                       **(kw | {"games": 20}))
    with pytest.raises(InputError, match="differ in seed"):
        compare_section(other, b, before_label="X", after_label="Y")
    # the rung runs removed: the report renders again, the claims section says why not
    import shutil

    from deepsim.ladder.report import report_ladder

    shutil.rmtree(tmp_path / "r")
    report_ladder(tmp_path / "b")
    md = (tmp_path / "b" / "ladder.md").read_text()
    assert "## Claims per rung" in md and "are gone" in md
