"""Gates without copying: a scenario may extend another (``extends:``), ``deepsim check
--init`` writes an ``expect:`` block from today's measured values, every member test of an
expectation carries its name, and ``check --set`` says whether a failed bound fails at
the scenario's own rules too. All from the command line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepsim import runner
from deepsim.cli import app

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
cli = CliRunner(env={"COLUMNS": "80"})


@pytest.fixture()
def base(tmp_path: Path) -> Path:
    shutil.copy(SCENARIOS / "deepfall-4p.yaml", tmp_path / "base.yaml")
    return tmp_path / "base.yaml"


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_extends_adds_and_overrides_keys(base, tmp_path):
    child = _write(tmp_path / "child.yaml", "extends: base.yaml\ngames: 500\nseed: 9\n"
                   "overrides:\n  maw.steps_per_floor: 1\ncompanies: {unique: false}\n")
    flat = _write(tmp_path / "flat.yaml", base.read_text().replace("games: 100000",
                                                                   "games: 500"))
    _, scen, prep = runner.resolve(child)
    assert scen["name"] == "child"                   # its own name, never inherited
    assert scen["games"] == 500 and scen["seed"] == 9
    assert scen["overrides"] == {"maw.steps_per_floor": 1}
    assert scen["companies"] == {"unique": False}
    assert scen["bots"] == ["balanced", "greedy", "martyr"]          # from the base
    assert "extends" not in scen
    # the same keys written out in one file: the same scenario (and hash)
    text = flat.read_text().replace("name: deepfall-4p", "name: child").replace(
        "seed: 1\n", "seed: 9\n") + "overrides:\n  maw.steps_per_floor: 1\n"
    text = text.replace("companies: {unique: true}", "companies: {unique: false}")
    _write(flat, text)
    _, _, prep_flat = runner.resolve(flat)
    assert runner.hash_json(prep.scenario) == runner.hash_json(prep_flat.scenario)
    # a chain: grandchild extends child extends base
    _write(tmp_path / "grand.yaml", "extends: child.yaml\ngames: 300\n")
    _, g, _ = runner.resolve(tmp_path / "grand.yaml")
    assert g["games"] == 300 and g["seed"] == 9 and g["name"] == "grand"
    # run and trace it from the command line
    res = cli.invoke(app, ["run", str(tmp_path / "grand.yaml"), "--out",
                           str(tmp_path / "r"), "-q", "--no-report"])
    assert res.exit_code == 0, res.output
    res = cli.invoke(app, ["scenarios", str(tmp_path)])
    assert res.exit_code == 0 and "grand" in res.output


@pytest.mark.parametrize("text, words", [
    ("extends: nothere.yaml\n", ["no such scenario file 'nothere.yaml'"]),
    ("extends: loop.yaml\n", ["cycle", "loop.yaml -> loop.yaml"]),
    ("extends: 3\n", ["expected the path of a scenario file"]),
    ("extends: atl.yaml\nruleset: deepfall\n", ["'atlantis' ruleset", "'deepfall'"]),
])
def test_bad_extends_exits_2_with_a_clear_message(tmp_path, text, words):
    shutil.copy(SCENARIOS / "atlantis.yaml", tmp_path / "atl.yaml")
    bad = _write(tmp_path / "loop.yaml", text)
    for cmd in (["run", str(bad), "--games", "10", "--out", str(tmp_path / "o")],
                ["check", str(bad)], ["trace", str(bad), "--game", "0"]):
        res = cli.invoke(app, cmd)
        out = " ".join(res.output.split())
        assert res.exit_code == 2, (cmd, res.output)
        assert "error:" in out and "key 'extends'" in out and "Traceback" not in out
        for w in words:
            assert w in out, (w, out)
    assert not (tmp_path / "o").exists()                 # nothing written


def test_a_cycle_through_two_files(tmp_path):
    _write(tmp_path / "a.yaml", "extends: b.yaml\n")
    _write(tmp_path / "b.yaml", "extends: a.yaml\n")
    res = cli.invoke(app, ["check", str(tmp_path / "a.yaml")])
    assert res.exit_code == 2 and "a.yaml -> b.yaml -> a.yaml" in " ".join(res.output.split())


def test_a_bad_key_inherited_names_the_file_and_line_it_was_written_at(tmp_path):
    """A typo in the scenario a file extends is reported at that scenario's file and line
    (through a chain of two), not at the extending file; a bad key of the extending file
    itself names the extending file."""
    _write(tmp_path / "base.yaml", "name: base\nruleset: deepfall\nplayers: 4\n"
           "bots: [greedy, martyr]\ngmaes: 2000\n")
    _write(tmp_path / "child.yaml", "extends: base.yaml\nseed: 3\n")
    _write(tmp_path / "grand.yaml", "extends: child.yaml\nname: g\n")
    for f in ("child.yaml", "grand.yaml"):
        res = cli.invoke(app, ["run", str(tmp_path / f), "--games", "10", "--out",
                               str(tmp_path / "o")])
        out = " ".join(res.output.split())
        assert res.exit_code == 2, out
        assert "base.yaml:5, key 'gmaes': unknown key" in out, out
        assert "child.yaml," not in out and "grand.yaml," not in out, out
    _write(tmp_path / "base.yaml", "name: base\nruleset: deepfall\nplayers: 4\n")
    _write(tmp_path / "child.yaml", "extends: base.yaml\nseed: 3\nbotz: [greedy]\n")
    res = cli.invoke(app, ["run", str(tmp_path / "child.yaml"), "--games", "10", "--out",
                           str(tmp_path / "o")])
    out = " ".join(res.output.split())
    assert res.exit_code == 2 and "child.yaml:3, key 'botz'" in out, out
    # an error another check finds in an inherited key names the extending file, never
    # with a line of the other file
    _write(tmp_path / "base.yaml", "name: base\nruleset: deepfall\nplayers: 4\n"
           "bots: [greedy, martyr]\nseats:\n  - {bot: gredy}\n  - {}\n  - {}\n  - {}\n")
    _write(tmp_path / "child.yaml", "extends: base.yaml\nseed: 3\n")
    res = cli.invoke(app, ["run", str(tmp_path / "child.yaml"), "--games", "10", "--out",
                           str(tmp_path / "o")])
    out = " ".join(res.output.split())
    assert res.exit_code == 2 and "gredy" in out, out
    assert "child.yaml:6" not in out and "child.yaml:5" not in out, out
    assert not (tmp_path / "o").exists()


def test_check_init_writes_a_gate_that_passes_today_and_names_every_member(base, tmp_path):
    gate = tmp_path / "gates" / "gate.yaml"
    gate.parent.mkdir()
    res = cli.invoke(app, ["check", str(base), "--init", "--games", "1500", "--out",
                           str(gate)])
    assert res.exit_code == 0, res.output
    text = gate.read_text()
    assert "extends: ../base.yaml" in text and "games: 1500" in text
    comments = " ".join(ln[2:] for ln in text.splitlines() if ln.startswith("# "))
    assert "widened by the tolerance: 0.1 x fair for win ratios" in comments
    # 36 companies, 6 Lineages, 6 Callings, rounds and the first seat at 4 players
    assert text.count("  - name:") == 50
    assert text.count("metric: \"win_ratio[company=") == 36
    # --out exists: refused without --force; the scenario itself is never replaced
    res = cli.invoke(app, ["check", str(base), "--init", "--out", str(gate)])
    assert res.exit_code == 2 and "--force" in res.output
    res = cli.invoke(app, ["check", str(base), "--init", "--out", str(base), "--force"])
    assert res.exit_code == 2 and "would replace" in " ".join(res.output.split())
    # today's gate passes on its own games; every member line carries its name
    res = cli.invoke(app, ["check", str(gate)])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    members = [ln for ln in lines if ln.startswith("pass ") and " #" in ln]
    assert len(members) == 50 and all("as measured:" in ln for ln in members)
    # a change that moves the Wardancers fails, and the check says the bound held
    # at the scenario's own rules (the change moved it)
    res = cli.invoke(app, ["check", str(gate), "-q", "--set",
                           "callings.wardancer.worthy_end_multiplier=1.0"])
    assert res.exit_code == 1, res.output
    out = " ".join(res.output.split())
    assert "fail #45" in out and "win_ratio[calling=Wardancer]" in out
    assert "passes at the scenario's own rules (without --set, same 1,500 games): the " \
           "change moves it" in out


def test_check_warns_when_a_bound_fails_at_the_scenarios_own_rules(base, tmp_path):
    gate = _write(tmp_path / "g.yaml", "extends: base.yaml\ngames: 1500\nexpect:\n"
                  "  - name: Wardancer is fair\n    metric: win_ratio[calling=Wardancer]\n"
                  "    within: [0.8, 1.25]\n"
                  "  - name: rounds\n    metric: rounds\n    below: 40\n"
                  "  - name: every Calling in range\n    metric: win_ratio[calling]\n"
                  "    within: [0.05, 5]\n")
    res = cli.invoke(app, ["check", str(gate), "--set", "maw.steps_per_floor=1"])
    assert res.exit_code == 1
    out = " ".join(res.output.split())
    assert ("warning: #1 Wardancer is fair (win_ratio[calling=Wardancer]) fails at the "
            "scenario's own rules too (without --set, same 1,500 games): its bound fails "
            "today, not because of the change") in out
    assert "#2 rounds" not in out.split("warning:")[-1]       # it passed: no line
    # every member of an expectation that expands carries its name
    for k in range(1, 7):
        assert f"every Calling in range ({k} of 6)" in out
    # JUnit cases carry the expectation's name
    junit = tmp_path / "c.xml"
    cli.invoke(app, ["check", str(gate), "--junit", str(junit)])
    assert 'name="001 Wardancer is fair: win_ratio[calling=Wardancer]' in junit.read_text()


def test_init_options_are_checked(base, tmp_path):
    for args, word in ((["--init", "--sequential"], "--sequential"),
                       (["--out", str(tmp_path / "x.yaml")], "--init"),
                       (["--init", "--metric", "win_ratio[company=Nobody]"], "Nobody"),
                       (["--init", "--tolerance", "-1"], "--tolerance")):
        res = cli.invoke(app, ["check", str(base), *args, "--games", "100"])
        assert res.exit_code == 2 and word in res.output, (args, res.output)
