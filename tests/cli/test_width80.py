"""Every command's tables read at 80 columns (a pipe, a CI log): no cell is cut with an
ellipsis and no line is wider than the console (issue 26). Small game counts; the kernels
come from the per-user cache the other tests fill."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepsim.cli import app

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 80
cli = CliRunner(env={"COLUMNS": str(WIDTH), "NO_COLOR": "1"})


def _readable(args: list[str], ok=(0,)) -> str:
    res = cli.invoke(app, args)
    assert res.exit_code in ok, res.output
    out = res.stdout
    assert "Traceback" not in out
    wide = [line for line in out.splitlines() if len(line) > WIDTH]
    assert not wide, f"{len(wide)} lines wider than {WIDTH}: {wide[:3]}"
    cut = [line for line in out.splitlines() if "…" in line]
    assert not cut, f"cells cut: {cut[:3]}"
    return out


@pytest.mark.parametrize("args", [
    ["params", "deepfall"], ["params", "deepfall", "--match", "wardancer"],
    ["params", "atlantis"], ["params", "abyss"], ["rulesets"],
    ["scenarios", str(ROOT / "scenarios")],
    ["odds", "deepfall", "symbols", "--lineage", "wisp"],
    ["odds", "deepfall", "setback", "--lineage", "wisp", "--max-press", "2"],
    ["odds", "deepfall", "claim", "--lineage", "dvergar", "--room", "forge"],
    ["odds", "atlantis", "destroy", "--ad", "3", "--dr", "2"],
], ids=lambda a: "-".join(a[:3]).replace("/", "_")[-40:])
def test_listings_and_odds_fit_80_columns(args):
    _readable(args)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("w80") / "run"
    text = _readable(["run", str(ROOT / "scenarios" / "deepfall-4p.yaml"), "--games", "600",
                      "--out", str(out), "--no-report"])
    return out, text


def test_run_summary_fits_80_columns_and_says_too_strong(run_dir):
    _, text = run_dir
    assert "Headline" in text and "too strong" in text


@pytest.mark.slow
def test_report_fits_80_columns(run_dir):
    _readable(["report", str(run_dir[0])])


def test_check_fits_80_columns():
    out = _readable(["check", str(ROOT / "scenarios" / "ci-balance.yaml"), "--games", "600"],
                    ok=(0, 1, 3))
    assert "measured" in out


@pytest.mark.slow
def test_sweep_and_compare_fit_80_columns(tmp_path):
    scen = str(ROOT / "scenarios" / "deepfall-4p.yaml")
    _readable(["sweep", scen, "--param", "callings.wardancer.worthy_end_multiplier=1.8,2.2",
               "--games", "300", "--out", str(tmp_path / "sweep")])
    _readable(["compare", scen, "--set-b", "callings.wardancer.worthy_end_multiplier=1.8",
               "--games", "300"])
