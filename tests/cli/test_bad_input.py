"""Bad input to ``deepsim run`` on the real DEEPFALL ruleset: a clear error, exit 2, no traceback.

Every case names what a designer needs to fix it: the file (and line when the YAML loader
knows it), the key path, the value and what was expected; unknown names come with the
nearest valid ones. No game runs and no output directory is created.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepsim.cli import app

cli = CliRunner(env={"COLUMNS": "400"})

OK = "name: x\nruleset: deepfall\ngames: 10\nseed: 1\n"

# id: (scenario file text, or None for the valid OK scenario; extra CLI args; fragments the
# message must contain; "{f}" is the scenario file's path)
CASES: dict[str, tuple[str | bytes | None, list[str], list[str]]] = {
    "malformed_yaml": ("name: x\nruleset: deepfall\ngames: [unclosed\n", [],
                       ["{f}:4", "malformed YAML", "expected ',' or ']'"]),
    "not_utf8": (b"\xff\xfe\x00bad", [], ["{f}", "not a UTF-8 text file"]),
    "empty_file": ("", [], ["{f}", "the file is empty"]),
    "top_level_list": ("- a\n- b\n", [], ["{f}", "expected a mapping", "got a list"]),
    "wrong_type_games": (OK.replace("games: 10", "games: lots"), [],
                         ["{f}:3", "key 'games'", "valid integer", "(got 'lots')"]),
    "wrong_type_bool": (OK + "companies: {unique: maybe}\n", [],
                        ["{f}:5", "key 'companies.unique'", "valid boolean", "(got 'maybe')"]),
    "wrong_type_players": (OK + "players: four\n", [],
                           ["{f}:5", "key 'players'", "player count (an integer)",
                            "got 'four'"]),
    "wrong_type_seats": (OK + "seats: 5\n", [],
                         ["{f}:5", "key 'seats'", "valid list", "(got 5)"]),
    "zero_games": (OK.replace("games: 10", "games: 0"), [],
                   ["{f}:3", "key 'games'", "greater than or equal to 1", "(got 0)"]),
    "negative_games": (OK.replace("games: 10", "games: -5"), [],
                       ["{f}:3", "key 'games'", "greater than or equal to 1", "(got -5)"]),
    "zero_games_option": (None, ["--games", "0"],
                          ["key '--games'", "expected an integer 1 .. 10000000000, got 0"]),
    "negative_games_option": (None, ["--games", "-3"],
                              ["key '--games'", "expected an integer 1 .. 10000000000, got -3"]),
    "zero_chunk_size_option": (None, ["--chunk-size", "0"],
                               ["key '--chunk-size'", "expected an integer 1 .. 10000000, got 0"]),
    "seed_out_of_range_option": (None, ["--seed", str(2**64)],
                                 ["key '--seed'", "0 .. 9223372036854775807",
                                  f"got {2**64}"]),
    "threads_zero": (None, ["--threads", "0"], ["key '--threads'", "got 0"]),
    "players_above_range": (OK + "players: 7\n", [],
                            ["{f}:5", "key 'players'", "DEEPFALL plays 2-6 players, got 7"]),
    "players_below_range_in_list": (OK + "players: [1, 4]\n", [],
                                    ["{f}:5", "key 'players'", "2-6 players, got 1"]),
    "players_empty_list": (OK + "players: []\n", [],
                           ["{f}:5", "key 'players'", "non-empty list", "got []"]),
    "players_outside_ruleset_range_after_set": (None, ["--set", "players.min=5"],
                                                ["{f}", "key 'players'", "5-6 players",
                                                 "got 4"]),
    "seats_length_mismatch": (OK + "players: 3\nseats:\n  - {lineage: dvergar}\n"
                              "  - {lineage: wisp}\n", [],
                              ["{f}:6", "key 'seats'", "lists 2 seats",
                               "largest player count is 3"]),
    "unknown_lineage": (OK + "players: 2\nseats:\n  - {lineage: dvergr}\n  - {}\n", [],
                        ["{f}:7", "key 'seats.0.lineage'", "(got 'dvergr')",
                         "did you mean 'dvergar'"]),
    "unknown_calling": (OK + "players: 2\nseats:\n  - {calling: reavr}\n  - {}\n", [],
                        ["{f}:7", "key 'seats.0.calling'", "(got 'reavr')",
                         "did you mean 'reaver'"]),
    "unknown_seat_bot": (OK + "players: 2\nseats:\n  - {bot: greedyy}\n  - {}\n", [],
                         ["{f}:7", "key 'seats.0.bot'", "unknown bot 'greedyy'",
                          "did you mean 'greedy'", "known: any, random"]),
    "unknown_pool_bot": (OK + "bots: [random, cautios]\n", [],
                         ["{f}:5", "key 'bots.1'", "unknown bot 'cautios'",
                          "did you mean 'cautious'"]),
    "unknown_knob": (OK + "players: 2\nseats:\n  - {bot: greedy, knobs: {dread_stp: 1}}\n"
                     "  - {}\n", [],
                     ["{f}:7", "key 'seats.0.knobs.dread_stp'", "unknown name",
                      "did you mean 'dread_stop'"]),
    "knob_out_of_bounds": (OK + "players: 2\nseats:\n  - {bot: greedy, knobs: {press_max: 12}}"
                           "\n  - {}\n", [],
                           ["{f}:7", "key 'seats.0.knobs.press_max'",
                            "press_max 12 is outside its bounds [0, 8] (int knob",
                            "deepfall/bots.yaml"]),
    "knob_not_whole": (OK + "players: 2\nseats:\n  - {bot: greedy, knobs: {last_stand: 1.5}}"
                       "\n  - {}\n", [],
                       ["{f}:7", "key 'seats.0.knobs.last_stand'",
                        "last_stand is an int knob: expected a whole number, got 1.5"]),
    "unknown_key": (OK + "playerz: 4\n", [],
                    ["{f}:5", "key 'playerz'", "unknown key", "did you mean 'players'"]),
    "duplicate_key": (OK + "seed: 2\n", [],
                      ["{f}:5", "duplicate key 'seed'", "first at line 4"]),
    "negative_cost": (None, ["--set", "recruit.cost=-1"],
                      ["{f} / --set", "key 'recruit.cost'", "greater than or equal to 0",
                       "(got -1)"]),
    "die_faces_not_six": (None, ["--set", "dice.warrior.faces.steel=4"],
                          ["key 'dice.warrior'", "a die has six faces",
                           "face counts sum to 7"]),
    "die_face_negative": (None, ["--set", "dice.warrior.faces.steel=-1"],
                          ["key 'dice.warrior'", "face counts must be >= 0"]),
    "never_ending_game_set": (None, ["--set", "maw.steps_per_round=0"],
                              ["key 'maw.steps_per_round'", "(got 0)",
                               "must be >= 1 or a game never ends"]),
    "never_ending_game_scenario": (OK + "overrides: {maw.steps_per_round: 0}\n", [],
                                   ["{f}:5", "key 'maw.steps_per_round'", "(got 0)",
                                    "a game never ends"]),
    "scenario_override_unknown_path": (OK + "overrides:\n  recruit.cost: 3\n"
                                       "  maw.step_per_round: 1\n", [],
                                       ["{f}:7", "key 'maw.step_per_round'",
                                        "unknown parameter path",
                                        "did you mean 'maw.steps_per_round'"]),
    "scenario_override_die_faces": (OK + "overrides:\n  dice.priest.faces.faith: 3\n", [],
                                    ["{f}:6", "key 'dice.priest'", "face counts sum to 7"]),
    "min_cost_above_cost": (None, ["--set", "recruit.min_cost=5"],
                            ["{f} / --set", "key 'recruit'",
                             "recruit.min_cost must be <= recruit.cost",
                             "got min_cost 5 and cost 2"]),
    "set_below_a_replaced_value": (None, ["--set", "maw=5", "--set", "maw.steps_per_round=1"],
                                   ["key 'maw.steps_per_round'",
                                    "an earlier override set 'maw' to 5"]),
    "floor_weights_nan": (None, ["--set", "dungeon.floor_weights.1=[.nan,1,1,1,1,1,1,1,1,1]"],
                          ["key 'dungeon'", "floor_weights.1 must be finite numbers"]),
    "knob_nan": (OK + "players: 2\nseats:\n  - {bot: greedy, knobs: {press_max: .nan}}\n"
                 "  - {}\n", [], ["{f}:7", "key 'seats.0.knobs'", "press_max is not a number"]),
    "set_wrong_type": (None, ["--set", "maw.steps_per_round=abc"],
                       ["key 'maw.steps_per_round'", "valid integer", "(got 'abc')"]),
    "set_unknown_path": (None, ["--set", "maw.step_per_round=1"],
                         ["key 'maw.step_per_round'", "unknown parameter path",
                          "did you mean 'maw.steps_per_round'"]),
    "set_not_path_value": (None, ["--set", "nonsense"],
                           ["key '--set'", "'nonsense' must look like path=value"]),
    "unknown_ruleset": (OK.replace("ruleset: deepfall", "ruleset: deepfal"), [],
                        ["{f}:2", "key 'ruleset'", "unknown ruleset 'deepfal'",
                         "did you mean 'deepfall'"]),
    "missing_ruleset": ("name: x\ngames: 10\n", [],
                        ["{f}", "key 'ruleset'", "required key is missing"]),
    "missing_file": ("<missing>", [], ["{f}", "no such file"]),
    "scenario_is_folder": ("<folder>", [], ["{f}", "is a folder"]),
    "output_exists": (None, ["--out", "{exists}"],
                      ["{exists}", "output directory already exists",
                       "pass --force to overwrite it"]),
}


def _scenario(tmp_path: Path, text: str | bytes | None) -> Path:
    path = tmp_path / "scenario.yaml"
    if text == "<missing>":
        return tmp_path / "nope.yaml"
    if text == "<folder>":
        path.mkdir()
        return path
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(OK if text is None else text)
    return path


def _invoke(tmp_path: Path, text, extra: list[str]):
    scen = _scenario(tmp_path, text)
    exists = tmp_path / "exists"
    exists.mkdir()
    (exists / "keep.txt").write_text("mine")
    fill = {"f": str(scen), "exists": str(exists)}
    args = [a.format(**fill) for a in extra]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "out")]
    if "--threads" not in args:
        args += ["--threads", "1"]
    res = cli.invoke(app, ["run", str(scen), *args, "-q"])
    return res, fill, exists


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_exit_2_with_a_clear_message(tmp_path, case):
    text, extra, fragments = CASES[case]
    res, fill, exists = _invoke(tmp_path, text, extra)
    output = " ".join(res.output.split())  # undo any wrapping
    assert res.exit_code == 2, res.output
    assert output.startswith("error:"), res.output
    assert "Traceback" not in res.output and "Error" not in res.output.split(":", 1)[1], \
        res.output
    for fragment in fragments:
        assert fragment.format(**fill) in output, (fragment, res.output)
    # refused before any game ran or any output was written
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in exists.iterdir()) == ["keep.txt"]


def test_valid_scenario_still_runs(tmp_path):
    res, _, _ = _invoke(tmp_path, None, [])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out" / "manifest.json").is_file()


def test_scenarios_lists_each_file_that_run_would_refuse_with_its_error(tmp_path):
    """`deepsim scenarios` checks every file as `run` would (issue 26): typos in keys, seat
    keys, bot names and knobs are flagged with run's own message."""
    from typer.testing import CliRunner

    from deepsim.cli import app
    files = {
        "a.yaml": "name: a\nruleset: deepfall\nsed: 3\nplayers: 4\n",
        "b.yaml": ("name: b\nruleset: deepfall\nplayers: 2\nseats:\n"
                   "  - {lineage: wisp, caling: wardancer}\n  - {lineage: gnoll}\n"),
        "c.yaml": "name: c\nruleset: deepfall\nplayers: 2\nbots: [balnced]\n",
        "d.yaml": ("name: d\nruleset: deepfall\nplayers: 2\nseats:\n"
                   "  - {bot: greedy, knobs: {press_mx: 3}}\n  - {bot: martyr}\n"),
        "e.yaml": "name: fine\nruleset: deepfall\nplayers: 2\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    res = CliRunner().invoke(app, ["scenarios", str(tmp_path)], env={"COLUMNS": "200"})
    assert res.exit_code == 2, res.output        # a lint for CI: bad input is exit 2
    out = res.output
    assert "key 'sed'" in out and "did you mean 'seed'" in out
    assert "seats.0.caling" in out
    assert "unknown bot 'balnced'" in out and "balanced" in out
    assert "press_mx" in out and "press_max" in out
    assert "4 of 5 scenario files do not load" in out and "fine" in out


def test_a_space_instead_of_equals_after_set_gets_a_hint(monkeypatch, capsys):
    from deepsim import cli
    assert cli._pair_hint(["run", "s.yaml", "--set", "a.b", "1.8"]).startswith(
        "--set takes PATH=VALUE as one word: write --set a.b=1.8")
    assert "--set-b x.y=VALUE" in cli._pair_hint(["compare", "--set-b", "x.y", "s.yaml"])
    assert cli._pair_hint(["run", "s.yaml", "--set", "a.b=1.8", "--games", "3"]) is None
    monkeypatch.setattr("sys.argv", ["deepsim", "run", "scenarios/deepfall-4p.yaml",
                                     "--set", "maw.steps_per_floor", "1"])
    with pytest.raises(SystemExit) as exc:
        cli.entry()
    assert exc.value.code == 2
    assert "write --set maw.steps_per_floor=1" in capsys.readouterr().err.replace("\n", " ")


def test_a_bad_value_in_a_rulesets_own_data_file_names_file_key_and_line(tmp_path):
    """A designer edits the ruleset's data file (their own game's ruleset.yaml): a bad value
    is an InputError with the file, key and line, not a pydantic traceback."""
    from pydantic import Field

    from deepsim.errors import InputError
    from deepsim.rulesets.common import DataFile, StrictModel

    class End(StrictModel):
        target: int = Field(ge=1)

    class Data(StrictModel):
        faces: int = Field(ge=2)
        end: End

    path = tmp_path / "ruleset.yaml"
    path.write_text("faces: 6\nend:\n  target: 0\n")
    with pytest.raises(InputError) as exc:
        DataFile(path, lambda: Data).load()
    e = exc.value
    assert (e.file, e.key, e.line) == (str(path), "end.target", 3)
    assert "greater than or equal to 1" in str(e) and "(got 0)" in str(e)
    path.write_text("faces: 6\nend:\n  tarjet: 100\n")
    with pytest.raises(InputError, match="tarjet"):
        DataFile(path, lambda: Data).parameter_paths()


@pytest.mark.parametrize("command", ["run", "check", "compare"])
def test_the_error_is_the_first_line_on_stderr(tmp_path, command):
    """A command that fails before its first game prints no blank line (a progress bar
    that never started) before its ``error:`` line, in a subprocess as in a CI log."""
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-c", "from deepsim.cli import entry; entry()",
                          command, str(tmp_path / "missing.yaml")],
                         check=False, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert res.stderr.startswith("error: "), repr(res.stderr[:80])
