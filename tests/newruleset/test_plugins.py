"""Rulesets as plugins (issue 29): `deepsim new-ruleset` writes a package that passes the
conformance suite, deepsim finds it through its entry point, and a broken plugin is listed
with its error while every other ruleset keeps working.

No pip here: a package is "installed" by putting its ``src/`` and a ``*.dist-info`` folder
(METADATA and entry_points.txt, what pip would write) on ``sys.path``, which
``importlib.metadata`` reads as it reads site-packages. The scaffold's kernel is tiny (one
numba compile per machine, then numba's cache); the fixtures are module-scoped.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepsim import rulesets
from deepsim.cli import app
from deepsim.testing.conformance import CHECKS, Conformance

NAME = "pigtest"


def _cli(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "80"})


def fake_install(site: Path, dist: str, version: str, entry_points: dict[str, str]) -> None:
    """Write what pip writes for a package declaring ``entry_points`` (``{name: value}``
    of the group ``deepsim.rulesets``) into ``site``, a folder on ``sys.path``."""
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(
        "[deepsim.rulesets]\n" + "".join(f"{k} = {v}\n" for k, v in entry_points.items()))


class _OnPath:
    """Folders put on ``sys.path`` (and the registry refreshed) until :meth:`close`."""

    def __init__(self, *paths: Path, modules: tuple[str, ...] = ()):
        self.paths = [str(p) for p in paths]
        self.modules = modules
        sys.path[:0] = self.paths
        rulesets.refresh()

    def close(self) -> None:
        for p in self.paths:
            sys.path.remove(p)
        for m in list(sys.modules):
            if m.split(".")[0] in self.modules:
                del sys.modules[m]
        rulesets.refresh()


@pytest.fixture(scope="module")
def scaffold_site(tmp_path_factory) -> Path:
    """The folder the scaffold's ``*.dist-info`` is written to (on ``sys.path`` while the
    scaffold is installed)."""
    return tmp_path_factory.mktemp("site")


@pytest.fixture(scope="module")
def scaffold(scaffold_root, scaffold_site):
    """The scaffold's package written by ``write_ruleset`` (at a stable path: conftest's
    ``scaffold_root``) and installed by path."""
    sc = scaffold_root(NAME)
    site = scaffold_site
    fake_install(site, sc.dist, "0.1.0", {NAME: f"{sc.package}:RULESET"})
    on = _OnPath(sc.root / "src", site, modules=(sc.package,))
    yield sc
    on.close()


@pytest.fixture(scope="module")
def suite(scaffold, tmp_path_factory):
    return Conformance(rulesets.get(NAME), tmp_path_factory.mktemp("conformance"), cli=app)


def test_the_scaffold_writes_a_complete_package(scaffold):
    files = set(scaffold.files)
    pkg = f"src/{scaffold.package}"
    for f in ("pyproject.toml", "README.md", "RULES.md", f"scenarios/{NAME}.yaml",
              f"{pkg}/__init__.py", f"{pkg}/kernel.py", f"{pkg}/ruleset.yaml",
              f"{pkg}/schema.py", f"{pkg}/bots.yaml", f"{pkg}/trace.py", f"{pkg}/golden.yaml",
              "tests/test_conformance.py", "tests/test_golden.py", "tests/test_rules.py",
              "tests/golden.json", "tests/conftest.py"):
        assert f in files, f
    text = "\n".join((scaffold.root / f).read_text() for f in files)
    assert "{{" not in text                           # every token replaced
    pyproject = (scaffold.root / "pyproject.toml").read_text()
    assert f'[project.entry-points."deepsim.rulesets"]\n{NAME} = "deepsim_{NAME}:RULESET"' \
        in pyproject


def test_the_plugin_is_found_through_its_entry_point(scaffold):
    entry = next(e for e in rulesets.entries() if e.name == NAME)
    assert (entry.source, entry.package, entry.version) == ("plugin", scaffold.dist, "0.1.0")
    assert NAME in rulesets.playable()
    assert rulesets.get(NAME).title == "Pigtest"


@pytest.mark.slow
@pytest.mark.parametrize("check", CHECKS)
def test_the_scaffold_passes_the_conformance_suite(suite, check):
    suite.run(check)


def test_the_scaffolds_golden_digests_are_current(scaffold):
    """The digests the scaffold ships (tests/golden.json) are what its kernel plays: a
    change to deepsim's RNG or to the template must refresh them (the message says how)."""
    from deepsim.testing.golden import check_case
    rs = rulesets.get(NAME)
    for case in rs.golden_cases():
        msg = check_case(rs, case, scaffold.root / "tests" / "golden.json")
        assert msg is None, (f"{msg}\n(the template's digests: regenerate a scaffold, run that "
                             "command in it, copy tests/golden.json to deepsim/newruleset/"
                             "template/tests/golden.json.tmpl with the name as {{NAME}})")


def test_the_scaffolds_rule_tests_pass(scaffold):
    """The scaffold's own rule tests (tests/test_rules.py), run here as plain functions."""
    path = scaffold.root / "tests" / "test_rules.py"
    spec = importlib.util.spec_from_file_location("scaffold_test_rules", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    tests = [getattr(mod, n) for n in dir(mod) if n.startswith("test_")]
    assert len(tests) >= 5
    for t in tests:
        t()


@pytest.mark.slow
def test_the_suite_collects_and_passes_with_the_plugin_installed(scaffold, scaffold_site):
    """A user who installed a ruleset plugin can run deepsim's own tests: the suite is
    collected with the plugin registered, and the tests that walk every registered ruleset
    (strict types over each scenario schema) pass for the plugin too."""
    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(scaffold.root / "src"), str(scaffold_site),
         *filter(None, [os.environ.get("PYTHONPATH")])]))
    # one pytest process: it collects the whole suite (a collection error fails the run)
    # and runs the hostile-input tests of the plugin (two processes cost 22 s, one 12)
    run = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                          "tests", "-k", f"test_hostile_input and {NAME}"], cwd=repo,
                         env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    ran = [ln for ln in run.stdout.splitlines() if " PASSED" in ln]
    assert ran and all(NAME in ln for ln in ran), run.stdout[-3000:]
    assert " failed" not in run.stdout and " error" not in run.stdout, run.stdout[-3000:]


def test_rulesets_lists_the_plugin_with_version_and_source(scaffold):
    res = _cli("rulesets")
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if x.startswith(f"│ {NAME} "))
    assert "Pigtest" in line and "0.1.0" in line and "plugin" in line, res.output
    assert "built-in" in res.output


def test_a_scenario_names_the_plugin_like_any_ruleset(scaffold, tmp_path):
    scen = scaffold.root / "scenarios" / f"{NAME}.yaml"
    res = _cli("run", scen, "--games", "300", "--out", tmp_path / "run", "--quiet",
               "--no-report")
    assert res.exit_code == 0, res.output
    import json
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["ruleset"] == NAME
    assert info["ruleset_package"] == {"source": "plugin", "package": scaffold.dist,
                                       "version": "0.1.0"}
    res = _cli("trace", tmp_path / "run", "--game", "2")
    assert res.exit_code == 0 and "(P2)" in res.output and "result:" in res.output
    res = _cli("trace", tmp_path / "run", "--game", "2", "--format", "json")
    recs = [json.loads(x) for x in res.output.splitlines()]
    assert res.exit_code == 0 and recs[0]["type"] == "header" and recs[-1]["type"] == "result"
    assert {r["rule"] for r in recs if r["type"] == "event"} >= {"P1", "P2", "P4"}
    res = _cli("params", NAME)
    assert res.exit_code == 0 and "end.target" in res.output and "P4" in res.output


# --- broken plugins ----------------------------------------------------------------------------

@pytest.fixture
def broken(tmp_path):
    """Four installed plugins that cannot be used, and one good built-in beside them."""
    src = tmp_path / "src"
    (src / "bad_import").mkdir(parents=True)
    (src / "bad_import" / "__init__.py").write_text("import no_such_module_anywhere\n")
    (src / "bad_contract.py").write_text("RULESET = 'not a ruleset'\n")
    (src / "renamed.py").write_text(
        "from deepsim.rulesets import get\nRULESET = get('rove')\n")
    site = tmp_path / "site"
    fake_install(site, "bad-import", "1.0", {"badimport": "bad_import:RULESET"})
    fake_install(site, "bad-contract", "2.0", {"badcontract": "bad_contract:RULESET"})
    fake_install(site, "renamed", "0.3", {"renamed": "renamed:RULESET"})
    fake_install(site, "clash", "0.1", {"abyss": "bad_contract:RULESET"})
    fake_install(site, "twin-a", "1.0", {"twin": "bad_contract:RULESET"})
    fake_install(site, "twin-b", "1.0", {"twin": "renamed:RULESET"})
    on = _OnPath(src, site, modules=("bad_import", "bad_contract", "renamed"))
    yield
    on.close()


def test_a_broken_plugin_is_listed_with_its_error(broken):
    res = _cli("rulesets")
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "badimport (plugin bad-import 1.0, bad_import:RULESET): cannot import" in out
    assert "No module named 'no_such_module_anywhere'" in out
    assert "badcontract (plugin bad-contract 2.0" in out and "not a deepsim" in out
    assert "RULESET.name is 'rove' but the ruleset is registered as 'renamed'" in out
    assert "the name 'abyss' is a built-in ruleset's; the built-in is used" in out
    assert "declared by several installed packages (twin-a 1.0, twin-b 1.0)" in out
    # the good rulesets are listed as usual
    assert "Abyss" in out and "plays games" in out


def test_a_broken_plugin_never_breaks_the_other_rulesets(broken):
    assert {"badimport", "badcontract", "renamed", "twin"} <= set(rulesets.available())
    playable = rulesets.playable()
    assert "abyss" in playable and not {"badimport", "badcontract", "twin"} & set(playable)
    assert type(rulesets.get("abyss")).__module__.startswith("deepsim.rulesets.abyss.")
    res = _cli("params", "abyss", "--match", "players")
    assert res.exit_code == 0 and "players.max" in res.output
    res = _cli("odds", "--help")
    assert res.exit_code == 0 and "rove" in res.output


@pytest.mark.parametrize("name,message", [
    ("badimport", "cannot import bad_import:RULESET: ModuleNotFoundError"),
    ("badcontract", "breaks the ruleset contract: RULESET is a str"),
    ("twin", "declared by several installed packages"),
])
def test_naming_a_broken_plugin_is_an_input_error(broken, tmp_path, name, message):
    scen = tmp_path / "s.yaml"
    scen.write_text(f"name: s\nruleset: {name}\ngames: 10\n")
    res = _cli("run", scen, "--out", tmp_path / "run", "--quiet")
    assert res.exit_code == 2, res.output
    assert "error:" in res.output and message in " ".join(res.output.split())
    assert not (tmp_path / "run").exists()


# --- new-ruleset input -------------------------------------------------------------------------

@pytest.mark.parametrize("name,message", [
    ("Pig", "lower-case letters"), ("1pig", "lower-case letters"),
    ("pig-dice", "lower-case letters"), ("class", "Python keyword"),
    ("deepfall", "built-in ruleset's name"),
])
def test_new_ruleset_refuses_a_bad_name(tmp_path, name, message):
    res = _cli("new-ruleset", name, "--dir", tmp_path / "x")
    assert res.exit_code == 2 and message in " ".join(res.output.split())
    assert not (tmp_path / "x").exists()


def test_new_ruleset_never_writes_into_a_folder_with_files(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    res = _cli("new-ruleset", "dice", "--dir", tmp_path)
    assert res.exit_code == 2 and "is not empty" in " ".join(res.output.split())
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    res = _cli("new-ruleset", "dice", "--dir", empty)
    assert res.exit_code == 0, res.output
    assert (empty / "src" / "deepsim_dice" / "kernel.py").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # no temp folder


def test_a_plugins_digests_are_refreshed_by_the_golden_command(scaffold, tmp_path):
    """``deepsim golden --digests FILE [--update] NAME``: a changed digest is named (exit
    1), --update stores the played one, and then nothing differs."""
    import json

    digests = tmp_path / "golden.json"
    doc = json.loads((scaffold.root / "tests" / "golden.json").read_text())
    doc["cases"][f"{NAME}/seats"]["seats"]["sha256"] = "0" * 64
    digests.write_text(json.dumps(doc))
    res = _cli("golden", NAME, "--digests", digests)
    assert res.exit_code == 1, res.output
    assert f"{NAME}/seats: CHANGED" in res.output and f"{NAME}/mixed: same" in res.output
    assert _cli("golden", f"{NAME}/seats", "--digests", digests, "--update").exit_code == 0
    assert _cli("golden", NAME, "--digests", digests).exit_code == 0
    assert _cli("golden", "nosuchruleset", "--digests", digests).exit_code == 2


def test_the_conformance_command_runs_the_suite(scaffold):
    """``deepsim conformance NAME CHECK...``: one line per check, exit 0 when all hold; an
    unknown check is bad input (exit 2)."""
    res = _cli("conformance", NAME, "contract", "columns")
    assert res.exit_code == 0, res.output
    assert "contract" in res.output and "columns" in res.output and "ok" in res.output
    assert _cli("conformance", NAME, "nosuchcheck").exit_code == 2


# --- a plugin module imported lazily -----------------------------------------------------------

def test_a_lazily_imported_plugin_module_that_fails_is_an_error_line(tmp_path, monkeypatch,
                                                                      capsys):
    """A plugin's schema or kernel module is imported on first use (a run), after the
    registry listed the plugin as loadable: its syntax or import error is one ``error:``
    line naming file and line, exit 2; the same failure inside deepsim keeps its
    traceback (our bug)."""
    import importlib

    import deepsim.cli as cli_mod
    (tmp_path / "lazy_syntax.py").write_text("x = 1\ndef broken(:\n")
    (tmp_path / "lazy_import.py").write_text("\nimport no_such_module_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "argv", ["deepsim", "run", "x.yaml"])
    for mod, where, kind in (("lazy_syntax", "lazy_syntax.py:2", "SyntaxError"),
                             ("lazy_import", "lazy_import.py:2", "ModuleNotFoundError")):
        monkeypatch.setattr(cli_mod, "app", lambda m=mod: importlib.import_module(m))
        with pytest.raises(SystemExit) as e:
            cli_mod.entry()
        assert e.value.code == 2
        err = " ".join(capsys.readouterr().err.split())
        # the message is wrapped at the terminal's width, inside the (temporary) path
        # when it is long, as under a pytest-xdist worker: look for the file without spaces
        assert err.startswith("error:") and where in err.replace(" ", "") and kind in err, err

    monkeypatch.setattr(cli_mod, "app",
                        lambda: rulesets._import_target("no_such_module_of_ours:RULESET"))
    with pytest.raises(ImportError, match="no_such_module_of_ours"):
        cli_mod.entry()
