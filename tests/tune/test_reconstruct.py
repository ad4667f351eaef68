"""Claims as tune objectives and the declared search spaces (issue 22).

- every claim part's distance is 0 exactly when its verdict holds and > 0 when it fails, on
  fabricated run data (a small real run whose frames are bent toward and away from each
  claim) and on random regions and intervals;
- bag compositions are always valid bags of the fixed size, the defaults are recovered and
  tuned bags stay flagged placeholder;
- a planted reading that makes a claim hold is found on a tiny budget;
- bad ``--objective`` / ``--space`` input exits 2 with one clear line.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.report.verdicts import FAILS, HOLDS, MIN_FAIL_DISTANCE, Region
from deepsim.tune.claimsobj import (
    ClaimScore,
    claim_scores,
    parse_claims_objective,
    uses_claims,
)
from deepsim.tune.play import Player
from deepsim.tune.spaces import (
    bag_counts,
    build_spaces,
    merge_overrides,
    parse_space_option,
    rounding_interval,
)

cli = CliRunner()
SCENARIO = "scenarios/deepfall-mixed.yaml"


# --- distances --------------------------------------------------------------------------

def test_region_distance_is_zero_exactly_when_the_verdict_holds():
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(4000):
        lo, width = rng.normal(), rng.exponential()
        reg = Region(lo, lo + width if rng.random() < 0.8 else math.inf,
                     lo_open=bool(rng.random() < 0.5), scale=float(rng.uniform(0.05, 2)))
        point = rng.normal() * 2
        half = rng.exponential() * 0.5
        low, high = point - half, point + half
        if rng.random() < 0.05:  # a point exactly on the border
            point = low = high = reg.lo
        verdict, dist = reg.part(point, low, high)
        seen.add(verdict)
        if verdict == HOLDS:
            assert dist == 0.0
        elif verdict == FAILS:
            assert dist >= MIN_FAIL_DISTANCE
        assert dist >= 0
    assert {HOLDS, FAILS} <= seen
    # scale: one tolerance outside is distance 1
    assert Region(10.0, 12.0, scale=1.0).raw_distance(13.0) == pytest.approx(1.0)
    assert Region(1.0, 1.2, lo_open=True, scale=0.2).raw_distance(0.9) == pytest.approx(0.5)


@pytest.fixture(scope="module")
def played():
    player = Player(SCENARIO, games=300, seed=3)
    point = player.prepare({})
    g, s = player.play(point)
    return player, point, g, s


def _check_parts(player, point, g, s) -> dict:
    from deepsim.tune.claimsobj import trial_context

    ctx = trial_context(player.ruleset, point.prepared, g, s)
    verdicts = {}
    for res in player.ruleset.report_claims(ctx):
        for p in res.parts:
            if p.verdict == "not measured":
                assert p.distance is None
                continue
            assert p.distance is not None and p.distance >= 0, (res.claim.id, p)
            if p.verdict == HOLDS:
                assert p.distance == 0.0, (res.claim.id, p.label)
            if p.verdict == FAILS:
                assert p.distance > 0.0, (res.claim.id, p.label)
            verdicts[(res.claim.id, p.label)] = p.verdict
    return verdicts


@pytest.mark.slow
def test_every_claim_part_distance_matches_its_verdict_on_fabricated_runs(played):
    player, point, g, s = played
    seen = {}
    rng = np.random.default_rng(0)
    fabrications = []
    # bent toward each claim ...
    g1 = g.copy()
    g1["rounds"] = 11
    g1["margin_rel"] = 0.0
    fabrications.append((g1, s))
    # ... and away from it
    g2 = g.copy()
    g2["rounds"] = 30
    g2["margin_rel"] = 0.9
    fabrications.append((g2, s))
    for _ in range(2):  # wins reshuffled within each game: win shares move
        s3 = s.copy()
        s3["win"] = s3.groupby("game")["win"].transform(
            lambda w: w.sample(frac=1.0, random_state=int(rng.integers(1 << 30))).to_numpy())
        fabrications.append((g, s3))
    for gg, ss in fabrications:
        for key, v in _check_parts(player, point, gg, ss).items():
            seen.setdefault(key[0], set()).add(v)
    assert HOLDS in seen["B1"] and FAILS in seen["B1"]
    assert HOLDS in seen["B6"] and FAILS in seen["B6"]
    sc = claim_scores(player.ruleset, point.prepared, g1, s)
    assert sc["B1"].distance == 0.0 and sc["B6"].distance == 0.0
    sc = claim_scores(player.ruleset, point.prepared, g2, s)
    # 30 rounds against 11 +- 1: 18 tolerances off; 0.9 margins: share 0 vs > 0.5 -> 5
    assert sc["B1"].distance == pytest.approx(18.0)
    assert sc["B6"].distance == pytest.approx(5.0)
    # the part needing another reading's run is left out and named
    assert len(sc["B1"].left_out) == 1 and "maw.steps_per_floor=1" in sc["B1"].left_out[0]


# --- objective and space parsing -------------------------------------------------------

def test_parse_claims_objective():
    o = parse_claims_objective("claims")
    assert o.all_weight == 1 and o.selected(["B1", "B2"]) == ["B1", "B2"]
    o = parse_claims_objective("claims[B1,B2,B6]")
    assert o.selected(["B1", "B2", "B3", "B6"]) == ["B1", "B2", "B6"]
    o = parse_claims_objective("2*claims[B1]+claims[B6]+0.5*seat_advantage")
    assert o.weight("B1") == 2 and o.weight("B6") == 1
    assert o.metric_text == "0.5*seat_advantage"
    assert uses_claims("faction_spread+claims[B1]") and not uses_claims("company_spread")
    for bad in ("claims[]", "claims[B1,B1]", "claims+claims", "claims[B1"):
        with pytest.raises(InputError):
            parse_claims_objective(bad)
    with pytest.raises(InputError, match="B9"):
        parse_claims_objective("claims[B9]").check(["B1", "B2"])
    assert parse_space_option(["readings,rounding", "placeholders"]) == [
        "readings", "rounding", "placeholders"]
    with pytest.raises(InputError, match="unknown search space 'reading'"):
        parse_space_option(["reading"])


def test_rounding_intervals_and_reading_scaling():
    assert rounding_interval("2.5") == pytest.approx((2.45, 2.55))
    assert rounding_interval("1.25") == pytest.approx((1.245, 1.255))
    assert rounding_interval("3") == pytest.approx((2.5, 3.5))
    from deepsim.rulesets.deepfall import RULESET
    from deepsim.tune.grid import parameter_table

    table = parameter_table(RULESET)
    dims = build_spaces(RULESET.search_spaces(), ["readings", "rounding"], table)
    vals = {}
    for d in dims:
        vals.update(d.default)
    # defaults: no change at all from the ruleset's own values
    ov = merge_overrides(dims, vals, table)
    assert all(table[k]["default"] == v for k, v in ov.items()), ov
    # "instead" reading (0.88 = 2.2 / 2.5) scaled by the continuous 2.2
    vals["A20"] = "Wardancer x2.2 instead of x2.5 (0.88)"
    vals["callings.wardancer.worthy_end_multiplier"] = 2.22
    ov = merge_overrides(dims, vals, table)
    assert ov["callings.wardancer.worthy_end_multiplier"] == pytest.approx(0.88 * 2.22 / 2.2)


# --- bags --------------------------------------------------------------------------------

def test_bag_compositions_are_always_valid_bags():
    rng = np.random.default_rng(5)
    dice = ["recruit", "warrior", "scholar", "priest", "rogue"]
    for _ in range(3000):
        w = rng.random(5) * (rng.random(5) < 0.7)
        size = int(rng.integers(1, 15))
        bag = bag_counts(list(w), dice, size)
        assert sum(bag.values()) == size and min(bag.values()) >= 0
    assert bag_counts([0.5, 0.375, 0, 0.125, 0], dice, 8) == {
        "recruit": 4, "warrior": 3, "scholar": 0, "priest": 1, "rogue": 0}
    assert sum(bag_counts([0, 0, 0, 0, 0], dice, 8).values()) == 8


def test_tuned_bags_are_accepted_and_stay_placeholder():
    player = Player(SCENARIO, games=10)
    dims = build_spaces(player.ruleset.search_spaces(), ["placeholders"], player.table)
    rng = np.random.default_rng(2)
    for _ in range(3):
        vals = {}
        for d in dims:
            for pn, kind, spec in d.params:
                vals[pn] = float(rng.uniform(spec[0], spec[1]))
                if kind == "int":
                    vals[pn] = int(rng.integers(spec[0], spec[1] + 1))
                elif spec[2]:
                    vals[pn] = round(vals[pn] / spec[2]) * spec[2]
        pp = player.prepare(merge_overrides(dims, vals, player.table))
        ph = set(pp.prepared.placeholders)
        assert any("start_bag" in p for p in ph) and any("floor_weights" in p for p in ph)
        for d in dims:
            if d.kind == "bag":
                name = d.name.split()[1]
                bag = pp.prepared.params["lineages"][name]["start_bag"]
                assert sum(bag.values()) == vals[f"bag.{name}.size"]


def test_b1_and_b8_are_judged_at_any_maw_pace():
    """A trial at 3 steps a floor (or a fine-step pace) is the reading 'pace' of B1 and
    B8: measured on its own games, not 'not measured' (only spf2 and spf1, which need
    runs of their own, are left out)."""
    player = Player(SCENARIO, games=200)
    for ov in ({"maw.steps_per_floor": 3},
               {"maw.steps_per_floor": 20, "maw.steps_per_round": 6,
                "maw.dread_full_steps": 10}):
        pp = player.prepare(ov)
        g, s = player.play(pp)
        sc = claim_scores(player.ruleset, pp.prepared, g, s)
        assert math.isfinite(sc["B1"].distance), sc["B1"]
        assert sc["B8"].distance == 0.0, sc["B8"]
        assert not any("pace" in x or "steps_per_round" in x for x in sc["B1"].left_out)
        assert any("steps_per_floor=2" in x for x in sc["B1"].left_out)


def test_bag_size_is_searched_beside_the_mix_and_defaults_to_8():
    player = Player(SCENARIO, games=10)
    dims = build_spaces(player.ruleset.search_spaces(), ["placeholders"], player.table)
    bag = next(d for d in dims if d.name == "bag wisp")
    assert ("bag.wisp.size", "int", (5, 12, 1)) in bag.params
    assert bag.default["bag.wisp.size"] == 8
    vals = dict(bag.default)
    assert sum(bag.value(vals).values()) == 8 and bag.is_default(vals)
    vals["bag.wisp.size"] = 12
    counts = bag.value(vals)
    assert sum(counts.values()) == 12 and not bag.is_default(vals)


def test_maw_pace_dims_scale_the_readings_step_counts():
    """The rounding space's Maw paces ('rises 1 floor', '+1 more'): at their printed value
    no override at all; off it, the reading's step counts at 10 fine steps per step, the
    paced counts scaled by value / printed."""
    player = Player(SCENARIO, games=10)
    dims = build_spaces(player.ruleset.search_spaces(), ["readings", "rounding"],
                        player.table)
    pace = [d for d in dims if d.kind == "pace"]
    assert [d.data["path"] for d in pace] == ["maw.steps_per_round", "maw.dread_full_steps"]
    assert all(d.params[0][2][:2] == pytest.approx((0.5, 1.5)) for d in pace)
    vals = {}
    for d in dims:
        vals.update(d.default)
    ov = merge_overrides(dims, vals, player.table)
    assert "maw.steps_per_round" not in ov and "maw.dread_full_steps" not in ov
    vals["maw.steps_per_round (pace)"] = 0.55
    ov = merge_overrides(dims, vals, player.table)
    assert (ov["maw.steps_per_floor"], ov["maw.steps_per_round"],
            ov["maw.dread_full_steps"]) == (20, 6, 10)
    vals["A1"] = "1 step per floor (literal: a floor a round)"
    vals["maw.dread_full_steps (pace)"] = 1.26
    ov = merge_overrides(dims, vals, player.table)
    assert (ov["maw.steps_per_floor"], ov["maw.steps_per_round"],
            ov["maw.dread_full_steps"]) == (10, 6, 13)
    vals["A1"] = "3 steps per floor, a full Dread track adds a whole floor (3 steps)"
    ov = merge_overrides(dims, vals, player.table)
    assert (ov["maw.steps_per_floor"], ov["maw.steps_per_round"],
            ov["maw.dread_full_steps"]) == (30, 6, 38)
    player.prepare(ov)   # the schema accepts the fine step counts


# --- search ------------------------------------------------------------------------------

def test_a_planted_reading_is_found_on_a_tiny_budget(monkeypatch, tmp_path):
    """B6 is made to hold only under A12's per-turn reading and A20's "instead" reading
    (distance 1 per reading missed; the real games are played, the claims are planted):
    the search on 12 trials of 20 games finds it, the findings name it, and the front's
    overrides carry both."""
    import deepsim.tune.reconstruct as rec

    def planted(ruleset, prepared, g, s):
        p = prepared.params
        miss = (p["turn"]["dread_per_uncanceled"] != 0) + (
            p["callings"]["wardancer"]["worthy_end_multiplier"] > 1.0)
        return {"B1": ClaimScore("B1", FAILS, 1.0, []),
                "B6": ClaimScore("B6", HOLDS if miss == 0 else FAILS, float(miss), [])}

    monkeypatch.setattr(rec, "claim_scores", planted)
    res = rec.run_claims_tune(SCENARIO, objective="claims[B6]", spaces=["readings"],
                              trials=12, games=20, sampler_seed=0, confirm_games=0,
                              make_plots=False, out=tmp_path / "t")
    t = res.trials
    hit = t[t["v_B6"] == HOLDS]
    assert len(hit), t[["trial", "A12", "A20", "d_B6"]]
    assert (hit["A12"] == "one Dread step per turn with any").all()
    assert "B6 | " in res.findings and "A12: one Dread step per turn with any" in \
        res.findings
    front = (tmp_path / "t" / "front.yaml").read_text()
    assert "turn.dread_per_uncanceled: 0" in front and "0.88" in front
    assert (tmp_path / "t" / "trials.parquet").is_file()
    # the findings are written again from the folder's files alone, the same
    written = (tmp_path / "t" / "findings.md").read_text()
    assert rec.refresh_findings(tmp_path / "t") == written == res.findings


@pytest.mark.parametrize("args,message", [
    (["--objective", "claims", "--space", "bogus"], "unknown search space 'bogus'"),
    (["--objective", "claims[B9]", "--space", "readings"], "unknown claim 'B9'"),
    (["--objective", "claims[]", "--space", "readings"], "names no claim"),
    (["--objective", "claims"], "nothing to search"),
    (["--objective", "claims", "--space", "readings", "--respond-trials", "-1"],
     "expected a whole number >= 1"),
    (["--param", "maw.rise_fraction=0.4:0.6", "--respond-trials", "2"],
     "checks the points"),
])
def test_bad_objective_or_space_exits_2(args, message, tmp_path):
    res = cli.invoke(app, ["tune", SCENARIO, "--games", "10", "--trials", "1",
                           "--out", str(tmp_path / "o"), *args])
    assert res.exit_code == 2, res.output
    assert "error:" in res.output and message in res.output
    assert "Traceback" not in res.output


# --- several tunes in one section; best responses -------------------------------------------

def _fake_tune(folder, spaces, dims, rows, claims=("B1", "B2", "B3")):
    """A finished claims tune folder with the given trial rows (fabricated)."""
    import json

    import pandas as pd

    folder.mkdir(parents=True)
    full = []
    for i, (vals, held) in enumerate(rows):
        r = {"trial": i, "state": "COMPLETE", "baseline": i == 0, **vals}
        for c in claims:
            r[f"v_{c}"] = HOLDS if c in held else FAILS
            r[f"d_{c}"] = 0.0 if c in held else 1.0 + i
        r["holds"] = len(held)
        r["value"] = sum(r[f"d_{c}"] for c in claims)
        r["changes"] = sum(vals[k] != rows[0][0][k] for k in vals)
        full.append(r)
    pd.DataFrame(full).to_parquet(folder / "trials.parquet")
    (folder / "findings.md").write_text("## Readings under which the claims hold\n\nbody "
                                        f"{spaces}\n")
    info = {"kind": "tune-claims", "status": "complete", "scenario_name": "s",
            "claims_scored": list(claims), "spaces": spaces, "params": [], "trials": len(rows),
            "games": 100, "wall_time_s": 60.0, "cpu_time_s": 90.0,
            "dims": {k: {"space": spaces[0], "default": str(rows[0][0][k])}
                     for k in rows[0][0]},
            "integers_kept": [{"path": "a.b", "printed": "5", "section": "§9 track"}]}
    (folder / "tune.json").write_text(json.dumps(info))
    return folder


def test_summary_over_several_tunes_finds_conflicts_and_continuous_values(tmp_path):
    """B1 holds only in the readings tune, B2 only in the rounding tune, never together:
    a conflict; B3 never holds; B1 alone at 1 change is the smallest change; the rounding
    number's value at the best point and its range are reported."""
    from deepsim.tune.claimsummary import summary_md

    a = _fake_tune(tmp_path / "r", ["readings"], {}, [
        ({"A1": "x"}, []), ({"A1": "y"}, ["B1"]), ({"A1": "x"}, [])])
    b = _fake_tune(tmp_path / "n", ["rounding"], {}, [
        ({"m": "2.5000 (printed 2.5)"}, []), ({"m": "2.4700 (printed 2.5)"}, ["B2"]),
        ({"m": "2.5400 (printed 2.5)"}, ["B2"])])
    md = summary_md([a, b])
    assert "**Claims that conflict** (each holds at some searched point, never both at " \
        "one): B1-B2." in md
    assert "Never held at any searched point: B3." in md
    assert "at most 1 of 3 claims hold at one point" in md
    assert "| B1 | readings | 1 | 0 | holds | A1: y |" in md
    assert "| rounding | m | 2.5 | 2.4700 | 2.4700 - 2.5400 (2 points) |" in md
    assert "§9 track" in md and "### `--space rounding`" in md and "body ['rounding']" in md
    # a tune of another scenario is refused
    import json
    info = json.loads((b / "tune.json").read_text())
    info["scenario_name"] = "other"
    (b / "tune.json").write_text(json.dumps(info))
    with pytest.raises(InputError, match="the others are of s"):
        summary_md([a, b])
    with pytest.raises(InputError, match="not a finished claims tune"):
        summary_md([tmp_path])


def test_summary_names_what_separates_a_conflicting_pair(tmp_path):
    """Within one readings tune B1 holds only under A1 'slow' and B2 only under A1 'fast'
    (A2 takes both values on both sides): the pair conflicts, A1 separates it and A2 does
    not; the other claim's best distance at each side's points is printed; B3, never
    held, gets its closest point."""
    from deepsim.tune.claimsummary import summary_md

    a = _fake_tune(tmp_path / "r", ["readings"], {}, [
        ({"A1": "slow", "A2": "p"}, []), ({"A1": "slow", "A2": "q"}, ["B1"]),
        ({"A1": "slow", "A2": "p"}, ["B1"]), ({"A1": "fast", "A2": "p"}, ["B2"]),
        ({"A1": "fast", "A2": "q"}, ["B2"])])
    md = summary_md([a])
    assert "never both at one): B1-B2." in md
    row = next(line for line in md.splitlines() if line.startswith("| B1-B2 |"))
    assert "B1 2, B2 2" in row
    assert "B2 at B1's: 2; B1 at B2's: 4" in row
    assert "A1: B1 at slow; B2 at fast" in row and "A2" not in row
    never = [line for line in md.splitlines() if line.startswith("| B3 |")][-1]
    assert never.startswith("| B3 | 5 | 1 | fails |"), never


def test_summary_replaces_only_its_own_section(tmp_path):
    """claims_summary --replace swaps the section of its title and keeps the sections
    before and after it (other studies write those)."""
    from deepsim.studies.claims_summary import main

    a = _fake_tune(tmp_path / "r", ["readings"], {}, [({"A1": "x"}, []), ({"A1": "y"}, ["B1"])])
    f = tmp_path / "FINDINGS.md"
    f.write_text("# F\n\n## Before\n\nkeep 1\n\n## Readings under which the claims hold\n\n"
                 "old text\n\n### sub\n\nold sub\n\n## Balance\n\nkeep 2\n")
    assert main([str(a), "--replace", str(f)]) == 0
    text = f.read_text()
    assert "old text" not in text and "old sub" not in text
    assert "keep 1" in text and text.rstrip().endswith("## Balance\n\nkeep 2")
    assert text.count("## Readings under which the claims hold") == 1
    assert text.index("## Before") < text.index("## Readings") < text.index("## Balance")


def test_summary_takes_a_later_check_of_the_best_point(tmp_path):
    """A tune that did not confirm its best point: a respond_check run of it fills the
    table's confirmation and best-response cells; a check of another folder is refused."""
    import pandas as pd

    from deepsim.tune.claimsummary import summary_md

    a = _fake_tune(tmp_path / "r", ["readings"], {}, [({"A1": "x"}, []), ({"A1": "y"}, ["B1"])])
    row = next(line for line in summary_md([a]).splitlines() if line.startswith("| readings"))
    assert row.endswith("| - | - |")
    ck = tmp_path / "check"
    ck.mkdir()
    pd.DataFrame([{"point": "baseline", "games": 60, "holds_shipped": 0, "holds_br": 0,
                   "changed": "none"},
                  {"point": "trial 1", "games": 60, "holds_shipped": 1, "holds_br": 0,
                   "changed": "B1 holds -> fails"}]).to_parquet(ck / "respond_claims.parquet")
    row = next(line for line in summary_md([a], checks={a: ck}).splitlines()
               if line.startswith("| readings"))
    assert "| 1 of 3 (60 games, a later check) | 0 (shipped 1); changed: B1 holds -> fails |" \
        in row
    with pytest.raises(InputError, match="not one of the tunes"):
        summary_md([a], checks={tmp_path / "other": ck})


def test_a_tunes_fewest_changes_do_not_count_rounded_numbers():
    """A tune's own findings: a point that moves only a printed number within its rounding
    interval is 0 changes from the literal rulebook (the number is named beside it)."""
    import pandas as pd

    from deepsim.tune.reconstruct import findings_md
    from deepsim.tune.spaces import Dim

    dims = [Dim("A1", "readings", "", [("A1", "cat", ("x", "y"))], {"A1": "x"}, "reading",
                {"alternatives": {"x": {}, "y": {"a.b": 1}}}),
            Dim("m", "rounding", "", [("m", "float", (2.45, 2.55, None))], {"m": 2.5},
                "rounding", {"path": "m", "printed": "2.5"})]
    rows = [(0, "x", "2.5000 (printed 2.5)", FAILS), (1, "y", "2.5000 (printed 2.5)", HOLDS),
            (2, "x", "2.5300 (printed 2.5)", HOLDS)]
    frame = pd.DataFrame([{"trial": t, "state": "COMPLETE", "baseline": t == 0, "A1": a,
                           "m": m, "v_B1": v, "d_B1": 0.0 if v == HOLDS else 1.0,
                           "holds": int(v == HOLDS), "value": 0.5 if t == 2 else 0.0,
                           "changes": int(a != "x") + int(t == 2)}
                          for t, a, m, v in rows])
    md = findings_md(frame, dims, ["B1"], player="s", games=10, seed=1, trials=3,
                     objective="claims")
    assert ("**Fewest changes** from the defaults for 1 claims holding (a rounded number's "
            "continuous value is not a change): 0 (trial 2): none; with the printed numbers "
            "read as m = 2.5300 (printed 2.5).") in md


def test_read_front_blocks(tmp_path):
    from deepsim.tune.respondcheck import read_front

    p = tmp_path / "front.yaml"
    p.write_text("# header\n\n# trial 7: 2 of 8 claims hold\noverrides:\n  a.b: 1\n  c: true\n"
                 "\n# trial 3: 1 of 8\noverrides: {}\n")
    assert read_front(p) == [("trial 7", {"a.b": 1, "c": True}), ("trial 3", {})]
    p.write_text("# trial 1: x\nnot: overrides\n")
    with pytest.raises(InputError, match="trial 1 has no overrides"):
        read_front(p)


def test_respondcheck_refuses_bad_input_before_playing(tmp_path, capsys):
    from deepsim.studies.respond_check import main

    front = tmp_path / "front.yaml"
    front.write_text("# trial 1: 2 of 8 claims hold\noverrides: {}\n")
    args = ["scenarios/deepfall-mixed.yaml"]
    (tmp_path / "done").mkdir()
    for extra, message in (([str(tmp_path / "nope.yaml")], "no such front file"),
                           ([str(tmp_path)], "inside this folder"),
                           ([str(front), "--points", "0"], "--points must be >= 1"),
                           ([str(front)], "already exists"),
                           ([str(tmp_path), "--trial", "3"], "not a finished claims tune")):
        out = tmp_path / "done" if message == "already exists" else tmp_path / "o"
        assert main([*args, *extra, "--out", str(out)]) == 2
        assert message in capsys.readouterr().out
        assert not (tmp_path / "o").exists()


class _Draw:
    """A stand-in for an optuna trial: uniform draws from a seeded generator."""

    def __init__(self, rng):
        self.rng = rng

    def suggest_categorical(self, name, choices):
        return choices[int(self.rng.integers(len(choices)))]

    def suggest_int(self, name, low, high, step=1):
        return int(self.rng.integers(low, high + 1))

    def suggest_float(self, name, low, high, step=None):
        return float(self.rng.uniform(low, high))


def test_trial_points_reads_a_trial_back_from_trials_parquet(tmp_path):
    """A trial off the front is replayed from its trials.parquet row: readings by name and
    the printed numbers and Maw paces by their 4-decimal values give the trial's own
    overrides (numbers within 1e-4, step counts exact); bags come back as the same counts
    and floor weights as the same list; a missing trial is refused."""
    import json

    import pandas as pd

    import deepsim.tune.reconstruct as rec

    player = Player(SCENARIO, games=10, seed=3)
    dims = rec._dims_of(player, ["readings", "rounding"], [])
    rng = np.random.default_rng(5)
    rows, want = [], {}
    for n in range(12):
        values = {}
        for d in dims:
            values.update(d.suggest(_Draw(rng)))
        rows.append({"trial": n, "state": "COMPLETE", "baseline": n == 0,
                     **{d.name: d.describe(values) for d in dims}})
        want[n] = merge_overrides(dims, values, player.table)
    pd.DataFrame(rows).to_parquet(tmp_path / "trials.parquet")
    (tmp_path / "tune.json").write_text(json.dumps(
        {"kind": "tune-claims", "spaces": ["readings", "rounding"], "params": []}))
    got = dict(rec.trial_points(player, tmp_path, list(range(12))))
    for n in range(12):
        ov = got[f"trial {n}"]
        assert set(ov) == set(want[n])
        for k, v in want[n].items():
            if isinstance(v, float):
                assert ov[k] == pytest.approx(v, rel=1e-4), k
            elif k in ("maw.steps_per_round", "maw.dread_full_steps"):
                assert abs(ov[k] - v) <= 1, k    # a pace within 5e-5 of a rounding edge
            else:
                assert ov[k] == v, k
    with pytest.raises(InputError, match="trial 99 is not a completed trial"):
        rec.trial_points(player, tmp_path, [99])
    for d in build_spaces(player.ruleset.search_spaces(), ["placeholders"], player.table):
        values = d.suggest(_Draw(rng))      # bags by their counts, floor weights exactly
        assert d.value(rec._values_back(d, d.describe(values))) == d.value(values), d.name


def test_best_trial_is_the_one_the_confirmation_replays_first(tmp_path):
    """Most claims first, then the smallest total distance, fewest changes, earliest; never
    the baseline (which may hold as many)."""
    import pandas as pd

    from deepsim.tune.reconstruct import best_trial

    pd.DataFrame({"trial": [0, 1, 2, 3, 4], "state": ["COMPLETE"] * 4 + ["FAIL"],
                  "baseline": [True, False, False, False, False],
                  "holds": [5, 4, 4, 4, 6], "value": [1.0, 2.0, 1.5, 1.5, 0.0],
                  "changes": [0, 1, 3, 2, 0]}).to_parquet(tmp_path / "trials.parquet")
    assert best_trial(tmp_path) == 3
    with pytest.raises(InputError, match="no trials.parquet"):
        best_trial(tmp_path / "nope")


@pytest.mark.slow
def test_respond_check_replays_the_same_games_with_best_responses():
    """On a tiny budget: every faction gets a start style and a best response, the claims
    are judged in three fields on the same confirmation games, and the shipped scores
    passed in are reused (not replayed)."""
    from deepsim.tune.respondcheck import RespondBudget, respond_check

    player = Player(SCENARIO, games=40, seed=3)
    pp = player.prepare({}, games=60, seed=4)
    g, s = player.play(pp, games=60)
    shipped = claim_scores(player.ruleset, pp.prepared, g, s)
    ids = list(shipped)
    claims, factions = respond_check(
        player, [("baseline", {})], scored=ids, weight=lambda c: 1.0, penalty=10.0,
        budget=RespondBudget(trials=2, games=10), confirm_games=60, confirm_seed=4,
        shipped={"baseline": shipped})
    row = claims.iloc[0]
    assert row["holds_shipped"] == sum(v.verdict.startswith("holds") for v in shipped.values())
    assert all(row[f"v_{c}"] == shipped[c].verdict for c in ids)
    assert 0 <= row["holds_br"] <= len(ids) and 0 <= row["holds_start"] <= len(ids)
    assert len(factions) == 36 and (factions["games"] == 10).all()
    assert set(factions["best_trial"]) <= {0, 1}
    with pytest.raises(InputError, match="--respond-trials"):
        RespondBudget(trials=0).check()
