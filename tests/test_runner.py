"""Runner, output format and CLI, driven by a tiny fake ruleset (numpy only, no numba).

The fake satisfies the contract of deepsim/rulesets/base.py: ``prepare`` / ``run_chunk`` /
``trace``, with results that depend only on (seed, game index).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from deepsim import runner
from deepsim.atomic import atomic_write_json
from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.output import hash_json, read_manifest, read_run, read_run_json
from deepsim.rulesets.base import Prepared, Ruleset, check_ruleset

COMPANIES = [("Dvergar", "Reaver"), ("Dvergar", "Warden"), ("Elf", "Reaver"), ("Elf", "Warden")]
BOTS = ["random", "cautious", "greedy"]


class FakeRuleset(Ruleset):
    """A contract-conforming ruleset: games of 2-4 players with random Glory."""

    name = "fake"
    title = "Fake game (tests only)"
    faction_column = "company"
    faction_label = "company"
    group_columns = ("company", "bot", "seat")
    default_metrics = ("company_spread", "seat_advantage", "mean_rounds")
    default_objective = "company_spread"
    target_rounds = 10.0
    games_columns: ClassVar = {"game": "int64", "seed": "int64", "truncated": "bool",
                     "players": "int64", "rounds": "int64", "margin": "int64"}
    seats_columns: ClassVar = {"game": "int64", "seat": "int64", "players": "int64", "win": "float64",
                     "fair": "float64", "bot": "category", "company": "category",
                     "lineage": "category", "calling": "category", "glory": "int64"}
    seat_order = "seat 1 plays first"
    score_label = "Glory"

    def __init__(self, interrupt_at_chunk: int | None = None):
        self.interrupt_at_chunk = interrupt_at_chunk
        self.calls = 0

    def prepare(self, scenario, *, source="<scenario>", overrides=None):
        params = {"glory_max": 20, "rounds_base": 8}
        for item in overrides or []:
            path, sep, value = item.partition("=")
            if not sep or path not in params:
                raise InputError(f"unknown parameter {path!r}; valid: {sorted(params)}",
                                 file=source, key=path)
            try:
                params[path] = int(value)
            except ValueError:
                raise InputError(f"expected an integer, got {value!r}", file=source,
                                 key=path) from None
        players = scenario.get("players", [2, 4])
        return Prepared(ruleset="fake", scenario=dict(scenario), params=params,
                        params_hash=hash_json(params), placeholders=["bags.starting"],
                        skipped_rules=[], compiled={"players": players})

    def _game(self, prepared, g):
        seed = int(prepared.scenario["seed"])
        rng = np.random.default_rng([seed, g])
        lo, hi = prepared.compiled["players"]
        n = int(rng.integers(lo, hi + 1))
        glory = rng.integers(0, prepared.params["glory_max"] + 1, size=n)
        companies = [COMPANIES[i] for i in rng.integers(0, len(COMPANIES), size=n)]
        bots = [BOTS[i] for i in rng.integers(0, len(BOTS), size=n)]
        rounds = int(prepared.params["rounds_base"] + rng.integers(0, 5))
        return n, glory, companies, bots, rounds

    def run_chunk(self, prepared, start, count):
        self.calls += 1
        if self.interrupt_at_chunk is not None and self.calls > self.interrupt_at_chunk:
            raise KeyboardInterrupt
        grows, srows = [], []
        seed = int(prepared.scenario["seed"])
        for g in range(start, start + count):
            n, glory, companies, bots, rounds = self._game(prepared, g)
            top = glory.max()
            leaders = np.flatnonzero(glory == top)
            order = np.sort(glory)[::-1]
            margin = int(order[0] - order[1])
            grows.append({
                "game": g, "seed": seed, "players": n, "rounds": rounds, "truncated": False,
                "n_winners": len(leaders), "winner_seat": int(leaders[0]) + 1, "margin": margin,
                "margin_rel": margin / max(int(top), 1), "maw_steps": rounds,
                "floors_collapsed": 5, "dread_fills": 1, "deferred_steps": 0, "press_ons": 3,
                "setbacks": 1, "rooms_scored": 10, "rooms_contested": 2,
                "contested_markers": 1, "rooms_unclaimed": 3, "rooms_consumed": 1,
                "taken_after_warning": 0, "top_glory": int(top),
            })
            for s in range(n):
                place = 1 + int((glory > glory[s]).sum())
                srows.append({
                    "game": g, "seat": s + 1, "players": n, "lineage": companies[s][0],
                    "calling": companies[s][1], "company": " ".join(companies[s]),
                    "bot": bots[s], "glory": int(glory[s]), "glory_rooms": int(glory[s]),
                    "glory_cash_out": 0, "glory_worthy_end": 0, "place": place,
                    "win": (1.0 / len(leaders)) if glory[s] == top else 0.0,
                    "fair": 1.0 / n, "cash_outs": 1, "last_stands": 0, "worthy_ends": 0,
                    "taken_no_stand": 0, "taken_no_stand_final": 0, "rooms_claimed": 2,
                    "vaults_claimed": 0, "thrones_claimed": 0, "dice_recruited": 1,
                    "setbacks": 0, "dice_lost": 0, "press_ons": 1, "deepest": 3,
                    "turns": rounds, "loot_lost": 0, "lineage_ability": 1,
                    "calling_ability": 1,
                })
        games = pd.DataFrame(grows)
        seats = pd.DataFrame(srows)
        for col in ("lineage", "calling", "company", "bot"):
            seats[col] = seats[col].astype("category")
        return games, seats

    def trace(self, prepared, game_index):
        n, glory, companies, bots, _rounds = self._game(prepared, game_index)
        lines = [f"game {game_index} seed {prepared.scenario['seed']}: {n} players"]
        lines += [f"seat {s} {' '.join(companies[s])} ({bots[s]}): glory {int(glory[s])}"
                  for s in range(n)]
        return lines

    def trace_result(self, prepared, game_index):
        return self.run_chunk(prepared, game_index, 1)

    def parameters(self):
        return [{"path": "glory_max", "default": 20, "type": "int", "bounds": "", "section": ""},
                {"path": "rounds_base", "default": 8, "type": "int", "bounds": "",
                 "section": ""}]

    def bot_data(self):
        return {b: {} for b in BOTS}

    def golden_cases(self):
        return []


def _fake_load_scenario(path):
    path = Path(path)
    if not path.is_file():
        raise InputError("scenario file not found", file=str(path))
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML: {exc}", file=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("expected a mapping", file=str(path))
    data.setdefault("chunk_size", 100)
    return data


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """Route the runner to the fake ruleset and work inside a temporary directory."""
    holder = {"ruleset": FakeRuleset()}

    def get_ruleset(name):
        if name != "fake":
            raise InputError(f"unknown ruleset {name!r}; available: fake", key="ruleset")
        return holder["ruleset"]

    from deepsim import rulesets

    assert check_ruleset(holder["ruleset"]) == []    # the fake keeps the contract
    monkeypatch.setattr(runner, "load_scenario", _fake_load_scenario)
    monkeypatch.setattr(runner, "get_ruleset", get_ruleset)
    monkeypatch.setattr(rulesets, "get", get_ruleset)
    monkeypatch.setattr(runner, "available_rulesets", lambda: ["fake"])
    # `deepsim rulesets` lists the registry's entries: the fake as a registered ruleset
    monkeypatch.setattr(rulesets, "_REGISTERED", {})
    rulesets.register("fake", holder["ruleset"], package="tests", version="0")
    monkeypatch.setattr(rulesets, "_ENTRIES", None)     # undone: discovered again after
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scenarios").mkdir()
    scen = tmp_path / "scenarios" / "fake.yaml"
    scen.write_text("name: fake-small\nruleset: fake\ngames: 250\nseed: 3\nchunk_size: 60\n"
                    "players: [2, 4]\n")
    holder["scenario"] = scen
    return holder


def _run(scen, out, **kw):
    return runner.run(scen, out=out, threads=1, **kw)


def test_run_writes_parts_manifest_and_run_json(fake, tmp_path):
    out = tmp_path / "out"
    result = _run(fake["scenario"], out)
    assert result.out_dir == out
    parts = sorted(p.name for p in (out / "games").iterdir())
    assert parts == [f"part-{i:05d}.parquet" for i in range(5)]  # 250 games / 60 per chunk
    assert sorted(p.name for p in (out / "seats").iterdir()) == parts
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name]
    manifest = read_manifest(out)
    assert manifest["status"] == "complete"
    assert manifest["games"] == 250 and manifest["chunk_size"] == 60 and manifest["seed"] == 3
    assert [(c["start"], c["count"]) for c in manifest["chunks"]] == [
        (0, 60), (60, 60), (120, 60), (180, 60), (240, 10)]
    info = read_run_json(out)
    for key in ("scenario", "params", "params_hash", "placeholders", "skipped_rules", "seed",
                "games", "chunk_size", "threads", "versions", "started_utc", "finished_utc",
                "wall_time_s", "games_per_s", "overrides", "scenario_hash"):
        assert key in info, key
    assert info["placeholders"] == ["bags.starting"]
    assert set(info["versions"]) >= {"deepsim", "numpy", "numba", "pandas", "pyarrow",
                                     "python"}
    assert info["scenario_hash"] == manifest["scenario_hash"]


def test_read_run_returns_all_rows_sorted(fake, tmp_path):
    out = tmp_path / "out"
    _run(fake["scenario"], out)
    games, seats = read_run(out)
    assert len(games) == 250
    assert list(games["game"]) == list(range(250))
    assert len(seats) == int(games["players"].sum())
    assert seats["game"].is_monotonic_increasing
    assert isinstance(seats["company"].dtype, pd.CategoricalDtype)
    # Same content as one big chunk played directly.
    prepared = fake["ruleset"].prepare(_fake_load_scenario(fake["scenario"]))
    g_ref, s_ref = FakeRuleset().run_chunk(prepared, 0, 250)
    pd.testing.assert_frame_equal(games, g_ref, check_dtype=False)
    pd.testing.assert_frame_equal(seats.astype({c: str for c in ("lineage", "calling",
                                                                 "company", "bot")}),
                                  s_ref.astype({c: str for c in ("lineage", "calling",
                                                                 "company", "bot")}),
                                  check_dtype=False)
    # Column selection keeps the sort keys.
    g2, s2 = read_run(out, games_columns=["rounds"], seats_columns=["win"])
    assert list(g2.columns) == ["game", "rounds"]
    assert list(s2.columns) == ["game", "seat", "win"]


def test_chunk_size_does_not_change_results(fake, tmp_path):
    _run(fake["scenario"], tmp_path / "a", chunk_size=7)
    _run(fake["scenario"], tmp_path / "b", chunk_size=1000)
    ga, sa = read_run(tmp_path / "a")
    gb, sb = read_run(tmp_path / "b")
    pd.testing.assert_frame_equal(ga, gb)
    pd.testing.assert_frame_equal(sa.astype(str), sb.astype(str))
    assert len(read_manifest(tmp_path / "a")["chunks"]) == 36


def test_missing_part_is_reported(fake, tmp_path):
    out = tmp_path / "out"
    _run(fake["scenario"], out)
    (out / "seats" / "part-00002.parquet").unlink()
    with pytest.raises(InputError, match="missing"):
        read_run(out)


def test_unlisted_part_is_reported(fake, tmp_path):
    out = tmp_path / "out"
    _run(fake["scenario"], out)
    shutil.copy(out / "games" / "part-00000.parquet", out / "games" / "part-00009.parquet")
    with pytest.raises(InputError, match="not listed"):
        read_run(out)


def test_row_count_mismatch_is_reported(fake, tmp_path):
    out = tmp_path / "out"
    _run(fake["scenario"], out)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["chunks"][1]["games_rows"] += 1
    atomic_write_json(out / "manifest.json", manifest)
    with pytest.raises(InputError, match="rows"):
        read_run(out)


def test_foreign_part_is_reported(fake, tmp_path):
    _run(fake["scenario"], tmp_path / "a")
    _run(fake["scenario"], tmp_path / "b", seed=4)
    shutil.copy(tmp_path / "b" / "games" / "part-00001.parquet",
                tmp_path / "a" / "games" / "part-00001.parquet")
    with pytest.raises(InputError, match="does not belong"):
        read_run(tmp_path / "a")


def test_incomplete_manifest_claiming_complete_is_reported(fake, tmp_path):
    out = tmp_path / "out"
    _run(fake["scenario"], out)
    manifest = json.loads((out / "manifest.json").read_text())
    dropped = manifest["chunks"].pop()
    atomic_write_json(out / "manifest.json", manifest)
    (out / "games" / Path(dropped["games_part"]).name).unlink()
    (out / "seats" / Path(dropped["seats_part"]).name).unlink()
    with pytest.raises(InputError, match="complete"):
        read_run(out)


def test_existing_out_refused_without_force(fake, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(InputError, match="--force"):
        _run(fake["scenario"], out)
    assert not (out / "games").exists()
    _run(fake["scenario"], out, games=30, force=True)
    before = read_manifest(out)
    _run(fake["scenario"], out, games=20, chunk_size=5, force=True)
    after = read_manifest(out)
    assert before["games"] == 30 and after["games"] == 20
    assert len(list((out / "games").iterdir())) == 4
    assert (out / "keep.txt").read_text() == "mine"
    games, _ = read_run(out)
    assert len(games) == 20


def test_default_out_dirs_are_unique(fake, tmp_path):
    a = runner.run(fake["scenario"], games=10, threads=1).out_dir
    b = runner.run(fake["scenario"], games=10, threads=1).out_dir
    assert a != b
    assert a.parent == Path("reports") / "runs"
    assert a.name.startswith("fake-small-")


def test_interrupt_keeps_finished_chunks(fake, tmp_path):
    fake["ruleset"] = FakeRuleset(interrupt_at_chunk=2)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        _run(fake["scenario"], out)
    manifest = read_manifest(out)
    assert manifest["status"] == "running"
    assert len(manifest["chunks"]) == 2
    games, _seats = read_run(out)
    assert list(games["game"]) == list(range(120))
    with pytest.raises(InputError, match="incomplete"):
        read_run(out, require_complete=True)


@pytest.mark.parametrize("kw", [{"games": 0}, {"games": -5}, {"chunk_size": 0}, {"seed": -1},
                                {"threads": 0}, {"threads": 10_000}])
def test_bad_values_are_input_errors(fake, tmp_path, kw):
    with pytest.raises(InputError):
        runner.run(fake["scenario"], out=tmp_path / "out", **{"threads": 1, **kw})
    assert not (tmp_path / "out").exists()


# --- CLI --------------------------------------------------------------------------------------

cli = CliRunner(env={"COLUMNS": "200"})


def test_cli_run_prints_summary(fake, tmp_path):
    res = cli.invoke(app, ["run", str(fake["scenario"]), "--games", "200", "--seed", "5",
                           "--threads", "1", "--out", "o", "--set", "glory_max=30"])
    assert res.exit_code == 0, res.output
    assert "Win share" in res.output
    assert "Dvergar Reaver" in res.output
    assert "Rounds per game" in res.output
    assert "bags.starting" in res.output  # placeholder banner
    info = read_run_json(tmp_path / "o")
    assert info["overrides"] == ["glory_max=30"] and info["seed"] == 5
    assert info["params"]["glory_max"] == 30


def test_cli_out_exists_exit_2(fake, tmp_path):
    (tmp_path / "o").mkdir()
    res = cli.invoke(app, ["run", str(fake["scenario"]), "--out", "o", "--threads", "1"])
    assert res.exit_code == 2
    assert "--force" in res.output and "Traceback" not in res.output
    res = cli.invoke(app, ["run", str(fake["scenario"]), "--out", "o", "--threads", "1",
                           "--force", "--games", "10", "-q"])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("args", [
    ["run", "nope.yaml"],
    ["run", "{scen}", "--games", "0"],
    ["run", "{scen}", "--set", "bogus=1"],
    ["run", "{scen}", "--set", "glory_max=abc"],
    ["run", "{bad}"],
    ["run", "{wrong_ruleset}"],
    ["trace", "nope", "--game", "1"],
])
def test_cli_input_errors_exit_2_without_traceback(fake, tmp_path, args):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("name: w\nruleset: chess\ngames: 1\nseed: 1\n")
    args = [a.format(scen=fake["scenario"], bad=bad, wrong_ruleset=wrong) for a in args]
    res = cli.invoke(app, args + (["--threads", "1"] if args[0] == "run" else []))
    assert res.exit_code == 2, res.output
    assert "error" in res.output
    assert "Traceback" not in res.output


def test_cli_interrupt_exit_130(fake, tmp_path):
    fake["ruleset"] = FakeRuleset(interrupt_at_chunk=1)
    res = cli.invoke(app, ["run", str(fake["scenario"]), "--out", "o", "--threads", "1"])
    assert res.exit_code == 130
    assert read_manifest(tmp_path / "o")["status"] == "running"


def test_cli_trace_run_dir_and_scenario(fake, tmp_path):
    res = cli.invoke(app, ["run", str(fake["scenario"]), "--out", "o", "--threads", "1",
                           "--seed", "9", "--set", "glory_max=7", "-q"])
    assert res.exit_code == 0, res.output
    res = cli.invoke(app, ["trace", "o", "--game", "17"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("game 17 seed 9:")
    _, seats = read_run(tmp_path / "o")
    row = seats[seats["game"] == 17].reset_index(drop=True)
    for s in range(len(row)):
        assert f"seat {s} {row.loc[s, 'company']} ({row.loc[s, 'bot']}): " \
               f"glory {row.loc[s, 'glory']}" in res.output
    same = cli.invoke(app, ["trace", str(fake["scenario"]), "--game", "17", "--seed", "9",
                            "--set", "glory_max=7"])
    assert same.exit_code == 0 and same.output == res.output
    bad = cli.invoke(app, ["trace", "o", "--game", "250"])
    assert bad.exit_code == 2 and "0 .. 249" in bad.output
    bad = cli.invoke(app, ["trace", "o", "--game", "1", "--seed", "3"])
    assert bad.exit_code == 2


def test_cli_rulesets_and_scenarios(fake, tmp_path):
    res = cli.invoke(app, ["rulesets"])
    assert res.exit_code == 0 and "fake" in res.output and "Fake game" in res.output
    (tmp_path / "scenarios" / "broken.yaml").write_text("games: [\n")
    res = cli.invoke(app, ["scenarios"])
    assert res.exit_code == 0, res.output
    assert "fake-small" in res.output and "2, 4" in res.output and "250" in res.output
    assert "broken.yaml" in res.output and "malformed" in res.output


class SchemaOneRuleset(FakeRuleset):
    """The fake as deepsim wrote it before parquet schema 2: seats numbered from 0."""

    def run_chunk(self, prepared, start, count):
        games, seats = super().run_chunk(prepared, start, count)
        games["winner_seat"] -= 1
        seats["seat"] -= 1
        return games, seats


def test_a_schema_one_run_reads_with_seats_from_1(fake, tmp_path, monkeypatch):
    """Issue 26: one seat numbering. A run written with schema 1 (seats from 0) reads back
    renumbered, equal to the same run written today; resuming it is refused (its new parts
    would number seats differently from its old ones)."""
    from deepsim import output

    _run(fake["scenario"], tmp_path / "new")
    fake["ruleset"] = SchemaOneRuleset()
    with monkeypatch.context() as m:
        m.setattr(output, "MANIFEST_SCHEMA_VERSION", 1)
        _run(fake["scenario"], tmp_path / "old")
    assert read_manifest(tmp_path / "old")["schema_version"] == 1
    assert read_manifest(tmp_path / "new")["schema_version"] == output.MANIFEST_SCHEMA_VERSION
    g_old, s_old = read_run(tmp_path / "old")
    g_new, s_new = read_run(tmp_path / "new")
    assert s_new["seat"].min() == 1
    pd.testing.assert_frame_equal(g_old, g_new)
    pd.testing.assert_frame_equal(s_old, s_new)

    fake["ruleset"] = SchemaOneRuleset(interrupt_at_chunk=2)
    with monkeypatch.context() as m:
        m.setattr(output, "MANIFEST_SCHEMA_VERSION", 1)
        with pytest.raises(KeyboardInterrupt):
            _run(fake["scenario"], tmp_path / "cut")
    fake["ruleset"] = FakeRuleset()
    with pytest.raises(InputError, match="older deepsim .*cannot be resumed"):
        runner.resume(tmp_path / "cut", threads=1)
    assert len(read_manifest(tmp_path / "cut")["chunks"]) == 2     # kept as it was
