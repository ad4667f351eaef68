"""`deepsim meta`: iterated best response, and the faction bots files it writes.

Covers: the fictitious-play mixture of a round's field (weights = rounds a style was
played / rounds), a tiny meta run that changes a crippled company's style and then plays
the mixture, the same files on one thread and two, the scenario it writes runs and plays
the styles of its bots file, stopping when no change is confirmed; a faction bots file with
bad content answered with exit 2 naming the file and key; bad meta options exit 2 before
any game.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.meta import run_meta
from deepsim.meta.rounds import mixture_spec
from deepsim.respond import Settings

cli = CliRunner()

CRIPPLED = {"base": "greedy", "press_max": 0, "recruit_max": 0, "target_depth": 1,
            "cash_loot": 0, "cash_depth": 0, "contest": 0, "last_stand": 0}
FACTIONS = ["Wisp Warden", "Dvergar Reaver"]
#: 8 trials: with the shipped styles as they are, 4 trials of 80 games found no confirmed
#: change for the crippled company (every trial's few games won none)
TINY = Settings(trials=8, games=80, confirm_games=400)


def scenario(tmp_path: Path, **extra) -> Path:
    body = {"name": "t", "ruleset": "deepfall", "players": 4, "games": 200, "seed": 3,
            "chunk_size": 200, "bots": ["balanced", "greedy", "martyr"], **extra}
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(body, sort_keys=False))
    return p


def crippled(tmp_path: Path) -> Path:
    return scenario(tmp_path, faction_bots={"styles": {"bad": CRIPPLED},
                                            "factions": {"Wisp Warden": "bad"}})


def test_the_mixture_weights_each_round_once():
    styles = {"a_r0": {"k": 1.0}, "a_r2": {"k": 2.0}}
    spec = mixture_spec({"styles": {"own": {"k": 0.0}}, "factions": {"B": [["own", 1.0]]}},
                        {"A": ["greedy", "a_r0", "a_r0", "a_r2"]}, styles, {"greedy"})
    assert spec["factions"]["A"] == {"greedy": 0.25, "a_r0": 0.5, "a_r2": 0.25}
    assert spec["factions"]["B"] == {"own": 1.0}            # the scenario's own, kept
    assert set(spec["styles"]) == {"own", "a_r0", "a_r2"}   # bots.yaml styles are named
    last = mixture_spec(None, {"A": ["greedy", "a_r0"]}, styles, {"greedy"}, last_only=True)
    assert last == {"styles": {"a_r0": {"k": 1.0}}, "factions": {"A": "a_r0"}}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A 2-round meta run on one thread: Wisp Warden starts crippled."""
    tmp = tmp_path_factory.mktemp("meta")
    path = crippled(tmp)
    res = run_meta(path, rounds=2, factions=FACTIONS, settings=TINY, threads=1,
                   out=tmp / "one", plots=False)
    return tmp, path, res


def test_a_crippled_company_changes_and_the_next_round_plays_the_mixture(tiny):
    _tmp, _path, res = tiny
    rounds = pd.read_parquet(res.out_dir / "rounds.parquet")
    r0 = rounds[(rounds["round"] == 0)].set_index("faction")
    assert r0.loc["Wisp Warden", "start"] == "bad"
    assert r0.loc["Wisp Warden", "style"] == "wisp_warden_r0"
    assert r0.loc["Wisp Warden", "changed"]                 # confirmed: interval above 0
    assert r0.loc["Wisp Warden", "change_low"] > 0
    assert len(res.run.rounds) == 2                          # a change: no early stop
    r1 = rounds[(rounds["round"] == 1)].set_index("faction")
    assert r1.loc["Wisp Warden", "start"] == "wisp_warden_r0"   # warm start
    bots = yaml.safe_load((res.out_dir / "meta-bots.yaml").read_text())
    ww = bots["factions"]["Wisp Warden"]
    hist = res.run.history["Wisp Warden"]
    want = {s: hist.count(s) / len(hist) for s in hist}
    assert (ww if isinstance(ww, dict) else {ww: 1.0}) == pytest.approx(want)
    # the fields of rounds are the rounds' best responses: the crippled start is not one
    assert hist[0] == "wisp_warden_r0" and "bad" not in want and len(hist) == 2
    last = yaml.safe_load((res.out_dir / "last-bots.yaml").read_text())
    assert last["factions"]["Wisp Warden"] == hist[-1]
    spread = pd.read_parquet(res.out_dir / "spread.parquet")
    assert list(spread["label"]) == ["scenario", "round 0", "rounds 0-1"]
    # the crippled company gains from the scenario's field to the meta field
    first = res.run.rounds[0].field_table.set_index("faction")
    final = res.run.final_table.set_index("faction")
    assert final.loc["Wisp Warden", "ratio"] > first.loc["Wisp Warden", "high"]
    for name in ("meta.md", "meta.json", "trials.parquet", "scenario.yaml"):
        assert (res.out_dir / name).is_file()


def test_same_files_on_two_threads(tiny):
    tmp, path, res = tiny
    two = run_meta(path, rounds=2, factions=FACTIONS, settings=TINY, threads=2,
                   out=tmp / "two", plots=False)
    for name in ("meta-bots.yaml", "last-bots.yaml", "scenario.yaml"):
        assert (res.out_dir / name).read_text() == (two.out_dir / name).read_text()
    for name in ("rounds.parquet", "trials.parquet", "spread.parquet"):
        a = pd.read_parquet(res.out_dir / name)
        b = pd.read_parquet(two.out_dir / name)
        drop = [c for c in a.columns if "seconds" in c]
        pd.testing.assert_frame_equal(a.drop(columns=drop), b.drop(columns=drop))


def test_the_meta_scenario_runs_and_plays_its_bots_file(tiny, tmp_path):
    _tmp, _path, res = tiny
    out = tmp_path / "run"
    r = cli.invoke(app, ["run", str(res.out_dir / "scenario.yaml"), "--games", "300",
                         "--out", str(out), "--quiet", "--no-report"])
    assert r.exit_code == 0, r.output
    seats = pd.read_parquet(out / "seats")
    bots = yaml.safe_load((res.out_dir / "meta-bots.yaml").read_text())
    for f in FACTIONS:
        want = bots["factions"][f]
        want = {want} if isinstance(want, str) else set(want)
        got = set(seats.loc[seats["company"] == f, "bot"].astype(str))
        assert got and got <= want, (f, got, want)


def test_no_confirmed_change_stops_after_the_round(tmp_path):
    # one trial: the search plays only its start style, so no change can be found
    res = run_meta(scenario(tmp_path), rounds=3, factions=["Gnoll Warden"],
                   settings=Settings(trials=1, games=60, confirm_games=200), threads=1,
                   out=tmp_path / "o", plots=False)
    assert len(res.run.rounds) == 1 and res.run.rounds[0].converged
    assert "after round 0" in res.info["stopped"]
    # the history holds only the start style (the shipped style the company plays best)
    r0 = pd.read_parquet(res.out_dir / "rounds.parquet").set_index("faction")
    assert res.run.history == {"Gnoll Warden": [r0.loc["Gnoll Warden", "start"]]}
    assert r0.loc["Gnoll Warden", "start"] in {"balanced", "greedy", "martyr"}


@pytest.mark.parametrize("edit, needle", [
    (lambda t: t + "\n  : [\n", "meta-bots.yaml"),
    (lambda t: t.replace("Wisp Warden:", "Wisp Wardn:"), "did you mean 'Wisp Warden'"),
    # a style the file does not define (the company's line names a mixture or one style)
    (lambda t: re.sub(r"(?m)^(  Dvergar Reaver: \{?)", r"\1gredy_", t), "unknown style"),
    (lambda t: t.replace("    press_max:", "    presss_max:", 1), "unknown knob"),
])
def test_a_bad_bots_file_exits_2_naming_file_and_key(tiny, tmp_path, edit, needle):
    _tmp, _path, res = tiny
    shutil.copy(res.out_dir / "scenario.yaml", tmp_path / "scenario.yaml")
    text = (res.out_dir / "meta-bots.yaml").read_text()
    (tmp_path / "meta-bots.yaml").write_text(edit(text))
    r = cli.invoke(app, ["run", str(tmp_path / "scenario.yaml"), "--games", "5", "--out",
                         str(tmp_path / "o")])
    out = " ".join(r.output.split())
    assert r.exit_code == 2, out
    assert needle in out and "meta-bots.yaml" in out and "Traceback" not in out, out
    assert not (tmp_path / "o").exists()


def test_a_missing_bots_file_names_the_scenario_key(tiny, tmp_path):
    _tmp, _path, res = tiny
    shutil.copy(res.out_dir / "scenario.yaml", tmp_path / "scenario.yaml")
    r = cli.invoke(app, ["run", str(tmp_path / "scenario.yaml"), "--games", "5"])
    out = " ".join(r.output.split())
    assert r.exit_code == 2 and "faction_bots" in out and "no such faction bots file" in out


@pytest.mark.parametrize("args, needle", [
    (["--rounds", "0"], "--rounds"),
    (["--rounds", "2", "--faction", "Wisp Wardn"], "did you mean"),
    (["--rounds", "2", "--trials", "0"], "--trials"),
    (["--rounds", "2", "--all", "--faction", "Wisp Warden"], "not both"),
])
def test_bad_meta_input_exits_2_before_any_game(tmp_path, args, needle):
    r = cli.invoke(app, ["meta", str(scenario(tmp_path)), *args, "--out",
                         str(tmp_path / "o")])
    out = " ".join(r.output.split())
    assert r.exit_code == 2, out
    assert needle in out and "Traceback" not in out, out
    assert not (tmp_path / "o").exists()


# --- verdicts side by side (make findings) -------------------------------------------------

def _claim(cid, verdict):
    from types import SimpleNamespace
    return SimpleNamespace(claim=SimpleNamespace(id=cid, text=f"claim {cid}"), verdict=verdict)


def test_a_flip_is_two_definite_verdicts_that_differ():
    from deepsim.meta.sidebyside import claims_frame

    shipped = [_claim("B1", "holds"), _claim("B2", "fails"), _claim("B3", "holds"),
               _claim("B4", "fails (part not measured)"), _claim("B5", "inconclusive")]
    meta = [_claim("B1", "fails"), _claim("B2", "fails"), _claim("B3", "inconclusive"),
            _claim("B4", "holds"), _claim("B5", "holds")]
    f = claims_frame(shipped, meta).set_index("claim")["flip"]
    assert f.to_dict() == {"B1": True, "B2": False, "B3": False, "B4": True, "B5": False}


def test_factions_side_by_side_on_real_runs(tiny, tmp_path):
    from deepsim import runner
    from deepsim.meta.sidebyside import FLIP, factions_frame, markdown
    from deepsim.report.config import ReportConfig
    from deepsim.reporting import load_run

    _tmp, path, res = tiny
    a = load_run(runner.run(str(path), games=400, out=tmp_path / "a").out_dir)
    b = load_run(runner.run(str(res.out_dir / "scenario.yaml"), games=400,
                            out=tmp_path / "b").out_dir)
    cfg = ReportConfig.for_ruleset(a.rs.report_options)
    fr = factions_frame(a, b, cfg)
    assert len(fr) == 36 and set(fr["faction"]) >= set(FACTIONS)
    definite = fr["verdict_shipped"].isin(["too strong", "viable", "not viable"]) & \
        fr["verdict_meta"].isin(["too strong", "viable", "not viable"])
    assert (fr["flip"] == (definite & (fr["verdict_shipped"] != fr["verdict_meta"]))).all()
    text = "\n".join(markdown(claims_frame_empty(), fr, shipped=a, meta=b, label="company"))
    assert "Wisp Warden" in text and "meta field" in text
    assert (FLIP in text.split("here.")[1]) == bool(fr["flip"].any())


def claims_frame_empty():
    from deepsim.meta.sidebyside import claims_frame
    return claims_frame([], [])


def test_a_best_response_confirmed_worse_is_rejected(tmp_path, monkeypatch):
    """The adoption and stop rules on a scripted search (no games): a change whose
    confirmed value is below 0 keeps the start style and changes nothing (the rounds stop);
    one above 0 is adopted under the round's name."""
    from types import SimpleNamespace

    from deepsim.meta import rounds as R
    from deepsim.respond.play import Field

    fld = Field(scenario(tmp_path))
    knobs = dict(fld.bot_data.styles["greedy"].knobs)
    gains: list[float] = []

    def fake_eval(*_a, **_k):
        return pd.DataFrame({"faction": ["Wisp Warden"], "ratio": [1.0], "low": [0.9],
                             "high": [1.1], "games": [10], "verdict": ["viable"]})

    def fake_search(_field, _factions, _settings, **kw):
        g = gains.pop(0)
        start = (kw["starts"] or {}).get("Wisp Warden", ("greedy", knobs))
        c = SimpleNamespace(faction="Wisp Warden", best_trial=2, start=start[0],
                            start_knobs=start[1], best_knobs={**knobs, "press_max": 1.0},
                            games=10)
        table = pd.DataFrame({"faction": ["Wisp Warden"], "gain": [g],
                              "gain_low": [g - 0.01], "gain_high": [g + 0.01]})
        none = SimpleNamespace(played=0)
        return SimpleNamespace(confirmed=[c], table=table, search_pass=none,
                               confirm_pass=none)

    monkeypatch.setattr(R, "evaluate_field", fake_eval)
    monkeypatch.setattr(R, "run_search", fake_search)
    gains[:] = [-0.05]
    run = R.play_rounds(fld, ["Wisp Warden"], Settings(trials=2, games=10), 3)
    assert run.history == {"Wisp Warden": ["greedy"]}           # rejected: start kept
    assert run.rounds[0].adopted == {"Wisp Warden": False} and run.rounds[0].converged
    assert len(run.rounds) == 1 and "after round 0" in run.stopped
    gains[:] = [0.04, 0.0]
    run = R.play_rounds(fld, ["Wisp Warden"], Settings(trials=2, games=10), 3)
    assert run.history["Wisp Warden"][0] == "wisp_warden_r0"    # adopted
    assert not run.rounds[0].converged and run.rounds[1].converged
    # round 1: a change of 0 is not taken either: the round-0 style plays both rounds
    assert run.history["Wisp Warden"] == ["wisp_warden_r0", "wisp_warden_r0"]
    assert run.spec["factions"]["Wisp Warden"] == "wisp_warden_r0"
