"""Runner, output format and CLI, driven by the fake ruleset of tests/conftest.py (the
``fake`` and ``fake_ruleset`` fixtures: numpy only, no numba; results depend only on
(seed, game index))."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from deepsim import runner
from deepsim.atomic import atomic_write_json
from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.output import read_manifest, read_run, read_run_json


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


def test_read_run_returns_all_rows_sorted(fake, fake_ruleset, tmp_path):
    out = tmp_path / "out"
    _run(fake["scenario"], out)
    games, seats = read_run(out)
    assert len(games) == 250
    assert list(games["game"]) == list(range(250))
    assert len(seats) == int(games["players"].sum())
    assert seats["game"].is_monotonic_increasing
    assert isinstance(seats["company"].dtype, pd.CategoricalDtype)
    # Same content as one big chunk played directly.
    prepared = fake["ruleset"].prepare(runner.load_scenario(fake["scenario"]))
    g_ref, s_ref = fake_ruleset().run_chunk(prepared, 0, 250)
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


def test_interrupt_keeps_finished_chunks(fake, fake_ruleset, tmp_path):
    fake["ruleset"] = fake_ruleset(interrupt_at_chunk=2)
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


def test_cli_interrupt_exit_130(fake, fake_ruleset, tmp_path):
    fake["ruleset"] = fake_ruleset(interrupt_at_chunk=1)
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
    assert res.exit_code == 2, res.output     # a file does not load: bad input
    assert "fake-small" in res.output and "2, 4" in res.output and "250" in res.output
    assert "broken.yaml" in res.output and "malformed" in res.output


def test_a_schema_one_run_reads_with_seats_from_1(fake, fake_ruleset, tmp_path, monkeypatch):
    """Issue 26: one seat numbering. A run written with schema 1 (seats from 0) reads back
    renumbered, equal to the same run written today; resuming it is refused (its new parts
    would number seats differently from its old ones)."""
    from deepsim import output

    class SchemaOneRuleset(fake_ruleset):
        """The fake as deepsim wrote it before parquet schema 2: seats numbered from 0."""

        def run_chunk(self, prepared, start, count):
            games, seats = super().run_chunk(prepared, start, count)
            games["winner_seat"] -= 1
            seats["seat"] -= 1
            return games, seats

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
    fake["ruleset"] = fake_ruleset()
    with pytest.raises(InputError, match="older deepsim .*cannot be resumed"):
        runner.resume(tmp_path / "cut", threads=1)
    assert len(read_manifest(tmp_path / "cut")["chunks"]) == 2     # kept as it was
