"""Bank, the co-operative proof ruleset (deepsim/rulesets/bank/rules.md): the simulated
party win rate against the exact dynamic programme, the rules on set-up states, and bad
co-operative data refused with exit 2."""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from deepsim import rulesets
from deepsim.cli import app
from deepsim.rulesets.bank.data import bot_data
from deepsim.rulesets.bank.exact import (
    Dice,
    SeatSpec,
    party_from_data,
    turn_outcomes,
    win_probability,
)

RS = rulesets.get("bank")

#: three settings: (seats (class, bot), overrides)
SETTINGS = [
    ([("banker", "steady"), ("gambler", "careful"), ("warden", "bold")], []),
    ([("gambler", "random"), ("warden", "steady")], ["goal.total=50"]),
    ([("banker", "careful"), ("banker", "bold"), ("gambler", "steady"), ("warden", "steady")],
     ["clock.limit=9", "clock.faces=[5,6]", "goal.total=90"]),
]


def _scenario(seats, **extra) -> dict:
    return {"ruleset": "bank", "name": "t", "players": len(seats), "rotate": False,
            "seats": [{"class": c, "bot": b} for c, b in seats], **extra}


def _exact_and_sim(seats, overrides, games):
    p = RS.prepare(_scenario(seats), overrides=overrides)
    values = bot_data().values()
    exact = win_probability(*party_from_data(p.params, [(c, values[b]) for c, b in seats]))
    g, _ = RS.run_chunk(p, 0, games)
    return exact, float(g["won"].mean())


def _within(exact, sim, games, k=4.0):
    se = math.sqrt(exact * (1 - exact) / games)
    assert abs(sim - exact) <= k * se, (exact, sim, (sim - exact) / se)


@pytest.mark.parametrize("seats,overrides", SETTINGS)
def test_win_rate_matches_exact_quick(seats, overrides):
    exact, sim = _exact_and_sim(seats, overrides, 20_000)
    assert 0.05 < exact < 0.95          # a setting where the test has power both ways
    _within(exact, sim, 20_000)


@pytest.mark.slow
@pytest.mark.parametrize("seats,overrides", SETTINGS)
def test_win_rate_matches_exact_200k(seats, overrides):
    exact, sim = _exact_and_sim(seats, overrides, 200_000)
    _within(exact, sim, 200_000)


def test_exact_detects_a_wrong_rule():
    """The comparison has power: a changed clock limit moves the exact value by far more
    than 4 standard errors at 20,000 games."""
    seats, _ = SETTINGS[0]
    a, _ = _exact_and_sim(seats, [], 1)
    b, _ = _exact_and_sim(seats, ["clock.limit=7"], 1)
    assert abs(a - b) > 4 * math.sqrt(a * (1 - a) / 20_000)


def test_turn_outcomes_sum_to_one():
    dice = Dice(6, 1, frozenset({6}))
    for seat in (SeatSpec(), SeatSpec(rerolls=1), SeatSpec(shields=1, hold_near=2),
                 SeatSpec(random=True, hold_p=0.3)):
        lost, ends = turn_outcomes(dice, seat, 40, 3)
        assert lost + sum(p for _, _, p in ends) == pytest.approx(1.0, abs=1e-12)


# --- the rules on set-up states -----------------------------------------------------------------

def _play(overrides, seats=(("banker", "steady"), ("banker", "steady")), games=300):
    p = RS.prepare(_scenario(list(seats)), overrides=overrides)
    return RS.run_chunk(p, 0, games)


def test_b3_clock_on_every_face_loses_at_once():
    g, s = _play(["clock.faces=[1,2,3,4,5,6]", "clock.limit=1"])
    assert (g["outcome"] == "clock").all() and not g["won"].any()
    assert (g["turns"] == 1).all() and (s["win"] == 0).all()


def test_b7_shield_stops_the_first_clock_step():
    g, s = _play(["clock.faces=[1,2,3,4,5,6]", "clock.limit=1", "die.bust_face=1"],
                 seats=(("warden", "steady"), ("banker", "steady")))
    # the warden's first roll is shielded (B7), so seat 1 never loses on its first roll
    first = s[s["seat"] == 1]
    assert (first["shields"] == 1).all()
    assert (g["outcome"] == "clock").all()
    # a first roll that busts ends seat 1's turn (B4) and seat 2 loses on its first roll;
    # else seat 1's second roll stops the clock
    ended_in_turn = np.where(first["rolls"].to_numpy() == 1, 2, 1)
    assert np.array_equal(g.sort_values("game")["turns"].to_numpy(), ended_in_turn)


def test_b4_bust_face_every_roll_runs_out_of_time():
    g, _ = _play(["die.faces=2", "die.bust_face=1", "clock.faces=[2]", "clock.limit=1000",
                  "goal.total=10000", "goal.rounds=2"])
    assert (g["outcome"] == "out_of_time").all() and (g["rounds"] == 2).all()
    assert (g["pool"] == 0).all() or (g["pool"] % 2 == 0).all()


def test_b5_goal_reached_wins_at_once():
    # a goal of 1: the first roll that does not bust (and does not stop the clock) wins
    g, s = _play(["goal.total=1"])
    won = g[g["won"]]
    assert (won["outcome"] == "banked").all() and (won["pool"] >= 1).all()
    assert set(g["outcome"].astype(str)) <= {"banked", "out_of_time", "clock"}
    assert (s.groupby("game")["win"].nunique() == 1).all()


def test_b7_gambler_rerolls_a_bust():
    _, s = _play([], seats=(("gambler", "bold"), ("banker", "bold")), games=2000)
    g1 = s[s["seat"] == 1]
    assert g1["rerolls"].sum() > 0 and (g1["rerolls"] <= g1["turns"]).all()
    assert s[s["seat"] == 2]["rerolls"].sum() == 0


def test_coop_columns():
    g, s = _play([])
    assert g["target"].eq(0.5).all() and s["fair"].eq(0.5).all()
    per = g.set_index("game")["won"].astype(float)
    assert np.array_equal(s["win"].to_numpy(), per.reindex(s["game"]).to_numpy())


# --- bad co-operative data -----------------------------------------------------------------------

@pytest.fixture
def scenario_file(tmp_path):
    f = tmp_path / "bank.yaml"
    f.write_text(yaml.safe_dump(_scenario(SETTINGS[0][0], games=20)), encoding="utf-8")
    return f


@pytest.mark.parametrize("value", ["1.5", "0", "1", "-0.2"])
def test_target_outside_0_1_exits_2(scenario_file, tmp_path, value):
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["run", str(scenario_file), "--out", str(out), "--quiet",
                                   "--no-report", "--set", f"party.target_win_rate={value}"])
    assert res.exit_code == 2, res.output
    assert "party.target_win_rate" in res.output and "error:" in res.output
    assert not out.exists()


def test_target_in_scenario_overrides_names_the_file(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump({**_scenario(SETTINGS[0][0], games=20),
                                 "overrides": {"party.target_win_rate": 2}}), encoding="utf-8")
    res = CliRunner().invoke(app, ["run", str(f), "--out", str(tmp_path / "r"), "--quiet",
                                   "--no-report"])
    assert res.exit_code == 2 and "bad.yaml" in res.output
    assert "party.target_win_rate" in res.output


def test_unknown_outcome_code_exits_2(scenario_file, tmp_path):
    sc = yaml.safe_load(scenario_file.read_text())
    sc["expect"] = [{"metric": "outcome_share[outcome=eaten]", "below": "50%"}]
    f = tmp_path / "gate.yaml"
    f.write_text(yaml.safe_dump(sc), encoding="utf-8")
    res = CliRunner().invoke(app, ["check", str(f), "--games", "50"])
    assert res.exit_code == 2, res.output
    assert "eaten" in res.output and "banked" in res.output and "gate.yaml" in res.output


def test_outcome_share_and_victory_metrics(tmp_path):
    """The metric language's co-op numbers equal the tables' own counts."""
    from deepsim.measure import parse_metric_spec
    from deepsim.measure.spec import expand, universe_from_frames
    from deepsim.measure.values import estimate_obs, measure

    g, s = _play([], games=500)
    uni = universe_from_frames(g, s, [2], RS.group_columns, RS.faction_column)
    for spec, want in (("victory", 100 * g["won"].mean()),
                       ("outcome_share[outcome=clock]", 100 * (g["outcome"] == "clock").mean()),
                       ("victory_error", 100 * abs(g["won"].mean() - 0.5)),
                       ("victory_edge", 100 * (g["won"].mean() - 0.5))):
        inst = expand([parse_metric_spec(spec)], uni, key="--metric")[0]
        est = estimate_obs(measure(inst, g, s), 0.05)
        assert est.value == pytest.approx(want), spec


def _exact_best(seats, values, target=0.5):
    vals = bot_data().values()
    out = {}
    for v in values:
        p = RS.prepare(_scenario(seats), overrides=[f"goal.total={v}"])
        out[v] = win_probability(*party_from_data(p.params, [(c, vals[b]) for c, b in seats]))
    return min(out, key=lambda v: abs(out[v] - target)), out


@pytest.mark.parametrize("span,trials,games", [
    ("80:120:20", 6, 2000),
    pytest.param("60:140:10", 12, 4000, marks=pytest.mark.slow),
])
def test_tune_toward_the_target_finds_the_exact_setting(tmp_path, span, trials, games):
    """``deepsim tune --objective victory_error`` over goal.total lands on the value whose
    exact win probability is nearest the target (the values' exact rates are far apart
    compared with a trial's standard error)."""
    from deepsim.tune.settings import Settings
    from deepsim.tune.tune import run_tune

    seats = SETTINGS[0][0]
    lo, hi, step = map(int, span.split(":"))
    best, exact = _exact_best(seats, range(lo, hi + 1, step))
    ranked = sorted(abs(p - 0.5) for p in exact.values())
    assert ranked[1] - ranked[0] > 6 * math.sqrt(0.25 / games)   # the test can decide
    f = tmp_path / "tune.yaml"
    f.write_text(yaml.safe_dump(_scenario(seats)), encoding="utf-8")
    tn = run_tune(f, [f"goal.total={span}"], objective="victory_error", trials=trials,
                  confirm_games=0, report=False,
                  settings=Settings(games=games, out=tmp_path / "out", force=True,
                                    make_plots=False))
    assert int(tn.best["goal.total"]) == best, (tn.best, exact)


def test_run_summary_and_report_as_a_user(tmp_path):
    """`deepsim run` prints the party's headline and the presence effects in 80 columns,
    and the report (markdown and HTML) has the co-operative sections."""
    f = tmp_path / "bank.yaml"
    f.write_text(yaml.safe_dump({"ruleset": "bank", "name": "party", "players": [2, 3, 4],
                                 "games": 3000}), encoding="utf-8")
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["run", str(f), "--out", str(out)], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    text = res.output
    assert "Party wins" in text and "2 players:" in text and "target 50%" in text
    assert any(w in text for w in ("too easy", "too hard", "on target", "unclear"))
    assert "Presence effect of each class" in text and "gambler" in text
    # the presence effect says what it is (unpaired, observational) and how to pair it
    flat = " ".join(text.split())
    assert "Unpaired and observational" in flat and "`deepsim compare` of two runs" in flat
    assert max(len(line) for line in text.splitlines()) <= 80
    md = (out / "report" / "report.md").read_text()
    for title in ("## Headline", "## Party win rate", "## Presence effect per class",
                  "## How games end", "coop.band"):
        assert title in md
    assert "Win share per" not in md             # no competitive win-share section
    assert "unpaired, observational estimate" in md and "deepsim compare A B" in md
    assert (out / "report" / "report.html").exists()
    assert (out / "report" / "party_win_rate.png").exists()


def test_respond_searches_one_class_for_the_party(tmp_path):
    """`respond --faction gambler` plays the gambler's seats with searched knobs (the
    class's faction_bots), the other seats fixed, maximising the party's win rate in its
    games; the JSON says the game is co-operative, and every verdict (terminal table,
    respond.json, respond.md) is in the party's words against the target and band."""
    import json

    from deepsim.report.party import VERDICTS as PARTY
    from deepsim.respond.verdict import COOP_VERDICTS

    f = tmp_path / "bank.yaml"
    f.write_text(yaml.safe_dump(_scenario(SETTINGS[0][0], games=500)), encoding="utf-8")
    out = tmp_path / "respond"
    res = CliRunner().invoke(app, ["respond", str(f), "--faction", "gambler", "--trials", "2",
                                   "--games", "300", "--confirm-games", "300",
                                   "--coop-band", "4", "--out", str(out), "--no-plots"],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    info = json.loads((out / "respond.json").read_text())
    assert info["cooperative"] is True
    assert info["target"] == pytest.approx(0.5) and info["coop_band"] == pytest.approx(0.04)
    [row] = info["results"]
    assert row["faction"] == "gambler"
    assert row["target"] == pytest.approx(0.5) and row["band"] == pytest.approx(0.04)
    for col in ("field_verdict", "default_verdict", "best_verdict"):
        assert row[col] in PARTY, row[col]
    assert row["verdict"] in COOP_VERDICTS
    text = res.output
    assert "party win rate / target" in text and "win share / fair share" not in text
    assert row["verdict"].split()[0] in text and "--coop-band" in text
    competitive = ("too strong", "not viable", "viable under", "inconclusive")
    assert not any(w in text for w in competitive), text
    md = (out / "respond.md").read_text()
    assert "party's win rate" in md and "target 50% +- 4 pts" in md
    assert not any(w in md for w in competitive)


def test_coop_respond_verdict_words():
    """The respond verdict of a class, from its two intervals (x target) against target
    0.5 +- 0.05: the party's words, the competitive rule's shape."""
    from deepsim.respond.verdict import coop_verdict

    def v(a, b):
        return coop_verdict(a, b, target=0.5, band=0.05)[0]

    assert v((0.5, 0.7), (0.6, 0.8)) == "too hard under any play"       # both < 0.45
    assert v((0.5, 0.7), (0.92, 1.1)) == "too hard only with its default knobs"
    assert v((1.2, 1.3), (1.25, 1.4)) == "too easy under any play"      # both > 0.55
    assert v((0.95, 1.05), (1.2, 1.3)) == "too easy under best response"
    assert v((0.95, 1.05), (0.92, 1.08)) == "on target under any play"
    assert v((0.8, 1.2), (0.9, 1.3)) == "unclear"
    word, width = coop_verdict((0.8, 1.2), (0.9, 1.5), target=0.5, band=0.05)
    assert word == "unclear" and width == pytest.approx(0.6)
    assert coop_verdict((math.nan, 1.0), (0.9, 1.1), target=0.5, band=0.05)[0] == "unclear"
