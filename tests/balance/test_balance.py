"""deepsim balance on the Duel ruleset (tests/balance/ruleset.py), whose minimal fix is
known: power.C 12 -> 8."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from deepsim.balance import Budget, parse_levers, run_balance
from deepsim.balance.robust import Robustness
from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.tune.grid import parameter_table
from tests.balance.ruleset import DuelRuleset

LEVERS = ["power.A,power.B,power.C"]
FAST = {"games": 6000, "confirm_games": 12000, "respond_trials": 0, "confirm": 3}


def _table():
    return parameter_table(DuelRuleset())


# --- levers -----------------------------------------------------------------------------

def test_levers_glob_bounds_and_printable_grid():
    levers = parse_levers(["power.*"], _table())
    assert [lv.path for lv in levers] == ["power.A", "power.B", "power.C"]
    c = levers[2]
    assert c.kind == "int" and c.grid == tuple(range(1, 21)) and c.default == 12
    assert 12 not in c.changes() and len(c.changes()) == 19
    assert c.size(8) == 4
    spice = parse_levers(["spice:0.25"], _table())[0]
    assert spice.grid == (0.0, 0.25, 0.5, 0.75, 1.0)


@pytest.mark.parametrize("text, words", [
    ("power.D", "unknown parameter path 'power.D'"),
    ("name", "is not a number"),
    ("luck:0.5", "has no bounds"),
    ("spice:0.3", "does not divide"),
    ("power.C:2", "does not divide"),
    ("spice", "no declared step"),
    ("power.A:1.5", "whole number"),
    ("bonus", "placeholder"),
    ("zzz.*", "matches no numeric parameter"),
    ("power.A,power.A", "given twice"),
])
def test_bad_levers_are_input_errors(text, words):
    with pytest.raises(InputError) as err:
        parse_levers([text], _table(), placeholders=["bonus"])
    assert words in str(err.value) and err.value.key == "--levers"


def test_placeholder_lever_with_include_placeholders():
    lv = parse_levers(["bonus"], _table(), placeholders=["bonus"],
                      include_placeholders=True)[0]
    assert lv.placeholder and lv.grid == (0, 1, 2, 3)


# --- the search -------------------------------------------------------------------------

def test_balance_finds_the_known_minimal_fix(duel, tmp_path):
    res = run_balance(duel, LEVERS, budget=Budget(max_changes=2, **FAST),
                      out=tmp_path / "out")
    assert res.state.met_at == 1                     # one number is enough: K = 2 not run
    assert res.state.k_done == [1]
    assert res.chosen is not None and res.chosen.point == {"power.C": 8}
    assert res.chosen.after.confirmed
    # before: C too strong, A and B not viable; after: every faction viable
    t = res.before.table.set_index("name")
    assert t.loc["C", "verdict"] == "too strong" and t.loc["A", "verdict"] == "not viable"
    assert set(res.chosen.after.table["verdict"]) == {"viable"}
    # no lever alone but C meets the target
    trials = pd.read_parquet(res.out_dir / "trials.parquet")
    met = trials[trials["met"]]
    assert set(met["subset"]) == {"power.C"}
    assert set(met["power.C"]) <= {5, 6, 7, 8}
    assert 9 not in set(met["power.C"])
    # the folder
    patch = yaml.safe_load((res.out_dir / "patch.yaml").read_text())
    assert patch == {"overrides": {"power.C": 8}}
    scen = yaml.safe_load((res.out_dir / "duel-balanced.yaml").read_text())
    assert scen["overrides"] == {"power.C": 8} and scen["ruleset"] == "duel"
    ba = pd.read_parquet(res.out_dir / "before_after.parquet")
    assert {"before", "before_low", "after_high", "after_verdict"} <= set(ba.columns)
    # the paired change per faction contains the exact one (3 * power / total):
    # C 1.5 -> 1.2, A and B 0.75 -> 0.9
    exact = {"A": 0.15, "B": 0.15, "C": -0.3}
    for r in ba[ba["candidate"] == 1].itertuples():
        assert r.change_low <= exact[r.name] <= r.change_high, r
        # paired: narrower than the two runs' own intervals side by side
        assert r.change_high - r.change_low < (r.after_high - r.after_low) + (
            r.before_high - r.before_low)
    md = (res.out_dir / "balance.md").read_text()
    assert "power.C 12 -> 8" in md.splitlines()[2]
    assert (res.out_dir / "balance.html").read_text().startswith("<!DOCTYPE html>")


def _optuna_budget():
    # a grid larger than grid_max: optuna searches each subset
    return Budget(max_changes=1, trials=12, grid_max=5, games=3000, confirm_games=6000,
                  respond_trials=0, confirm=2, sampler_seed=3)


# the slow tier (make test-slow, .ci/run): a second whole search each (threads, best
# responses, resume, a required number); the quick tier keeps the known minimal fix, how
# close a failed search came, the CLI and the input errors
@pytest.mark.slow
def test_same_seed_same_patch_on_one_and_two_threads(duel, tmp_path):
    a = run_balance(duel, LEVERS, budget=_optuna_budget(), threads=1, out=tmp_path / "a")
    b = run_balance(duel, LEVERS, budget=_optuna_budget(), threads=2, out=tmp_path / "b")
    ta = pd.read_parquet(a.out_dir / "trials.parquet").drop(columns=["seconds"])
    tb = pd.read_parquet(b.out_dir / "trials.parquet").drop(columns=["seconds"])
    assert (ta["method"] == "optuna").any()
    pd.testing.assert_frame_equal(ta, tb)
    assert a.chosen is not None and a.chosen.point == b.chosen.point


@pytest.mark.slow
def test_a_patch_a_planted_best_response_breaks_is_rejected(duel, tmp_path):
    asked = []

    def planted(scenario, sets, **kw):
        asked.append(list(sets))
        broken = "power.C=8" in sets
        table = pd.DataFrame({"name": ["C"], "value": [1.4 if broken else 1.1],
                              "low": [1.3 if broken else 1.0], "high": [1.5 if broken else 1.2],
                              "verdict": ["too strong" if broken else "viable"]})
        return Robustness(broken, table, note="too strong on a best response: C"
                          if broken else "no best response breaks it")

    res = run_balance(duel, LEVERS, budget=Budget(max_changes=1, **{**FAST,
                                                                    "respond_trials": 2}),
                      responder=planted, out=tmp_path / "out")
    first, second = res.candidates[0], res.candidates[1]
    assert first.point == {"power.C": 8} and first.robust.broken
    assert "broken by a best response" in first.status
    assert res.chosen is second and second.point == {"power.C": 7}
    assert asked == [["power.C=8"], ["power.C=7"]]
    assert "survives best responses" in res.answer
    cand = pd.read_parquet(res.out_dir / "candidates.parquet")
    assert list(cand["broken"][:2]) == [True, False]


def test_no_patch_within_k_says_how_close(duel, tmp_path):
    res = run_balance(duel, ["power.A"], budget=Budget(max_changes=1, **FAST),
                      out=tmp_path / "out")
    assert res.state.met_at is None and res.chosen is None
    assert res.answer.startswith("No patch of at most 1 changes meets the target. Closest:")
    assert "resisting:" in res.answer
    assert not (res.out_dir / "patch.yaml").exists()


@pytest.mark.slow
def test_resume_reuses_finished_trials(duel, tmp_path):
    out = tmp_path / "out"
    a = run_balance(duel, LEVERS, budget=Budget(max_changes=1, **FAST), out=out)
    b = run_balance(resume=out)
    tb = pd.read_parquet(out / "trials.parquet")
    assert tb["cached"].all() and b.state.games_played == 0
    assert b.chosen.point == a.chosen.point


# --- the command ------------------------------------------------------------------------

@pytest.mark.parametrize("levers", ["power.D", "name", "luck", "spice:0.3", "bonus"])
def test_cli_bad_levers_exit_2(duel, tmp_path, levers):
    r = CliRunner().invoke(app, ["balance", str(duel), "--levers", levers,
                                 "--out", str(tmp_path / "o")])
    assert r.exit_code == 2, r.output
    assert "error:" in r.output and "--levers" in r.output
    assert not (tmp_path / "o").exists()


def test_cli_prints_the_answer_first(duel, tmp_path):
    r = CliRunner().invoke(app, ["balance", str(duel), "--levers", "power.C", "-k", "1",
                                 "--games", "6000", "--confirm-games", "12000",
                                 "--respond-trials", "0", "--out", str(tmp_path / "o"),
                                 "--threads", "1"])
    assert r.exit_code == 0, r.output
    first = next(ln for ln in r.stdout.splitlines() if ln.strip())
    assert first.startswith("1 number: power.C 12 -> 8 -> all 3 factions viable")


def test_target_expect_judges_the_block_as_check_does(duel, tmp_path):
    scen = tmp_path / "duel-gate.yaml"
    scen.write_text(duel.read_text() + "expect:\n  - metric: win_share[faction=C]\n"
                    "    below: 40%\n    above: 20%\n")
    res = run_balance(scen, LEVERS, target="expect", budget=Budget(max_changes=1, **FAST),
                      out=tmp_path / "out")
    # C's share is power / (12 + power): 0.5 at 12, 0.4 at 8 (on the line), 0.37 at 7
    assert res.before.table["verdict"].tolist() == ["fail"]
    assert res.chosen is not None and res.chosen.point == {"power.C": 7}
    assert res.chosen.after.table["verdict"].tolist() == ["pass"]


def test_target_expect_needs_a_block(duel, tmp_path):
    with pytest.raises(InputError, match="no expect: block"):
        run_balance(duel, LEVERS, target="expect", budget=Budget(**FAST),
                    out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_ctrl_c_keeps_trials_and_resume_finishes(duel, tmp_path, monkeypatch):
    from tests.balance.ruleset import DuelRuleset

    clean = run_balance(duel, LEVERS, budget=Budget(max_changes=1, **FAST),
                        out=tmp_path / "clean")
    real = DuelRuleset.run_chunk
    calls = {"n": 0}

    def interrupted(self, prepared, start, count):
        calls["n"] += 1
        if calls["n"] > 12:
            raise KeyboardInterrupt
        return real(self, prepared, start, count)

    monkeypatch.setattr(DuelRuleset, "run_chunk", interrupted)
    out = tmp_path / "cut"
    args = ["balance", str(duel), "--levers", LEVERS[0], "-k", "1", "--games", "6000",
            "--confirm-games", "12000", "--respond-trials", "0", "--out", str(out)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 130, r.output
    assert f"--resume {out}" in r.stderr.replace("\n", "")
    kept = pd.read_parquet(out / "trials.parquet")
    assert 0 < len(kept) < len(clean.state.rows)
    monkeypatch.setattr(DuelRuleset, "run_chunk", real)
    r = CliRunner().invoke(app, ["balance", "--resume", str(out)])
    assert r.exit_code == 0, r.output
    done = pd.read_parquet(out / "trials.parquet")
    assert done["cached"].sum() == len(kept)
    cols = ["trial", "subset", "power.C", "violation", "met"]
    pd.testing.assert_frame_equal(done[cols],
                                  pd.read_parquet(clean.out_dir / "trials.parquet")[cols])
    assert yaml.safe_load((out / "patch.yaml").read_text()) == {"overrides": {"power.C": 8}}


@pytest.mark.slow
def test_a_required_number_joins_the_target(duel, tmp_path):
    # C's share is power / (12 + power) (percent): at most 35% needs C <= 6 (33.3%; 7 gives
    # 36.8%), so the smallest fix moves from 8 to 6
    res = run_balance(duel, LEVERS, require=["win_share[faction=C]<=35"],
                      budget=Budget(max_changes=1, **FAST), out=tmp_path / "out")
    assert res.chosen is not None and res.chosen.point == {"power.C": 6}
    row = res.chosen.after.table.iloc[-1]
    assert row["name"] == "win_share[faction=C]<=35" and row["verdict"] == "pass"


@pytest.mark.parametrize("req, words", [("win_share[faction=C]", "SPEC<=X"),
                                        ("win_share[faction=Q]<=3", "win_share")])
def test_bad_requirements_are_input_errors(duel, tmp_path, req, words):
    with pytest.raises(InputError) as err:
        run_balance(duel, LEVERS, require=[req], budget=Budget(**FAST), out=tmp_path / "o")
    assert err.value.key == "--require" and words in str(err.value)
