"""reports/FINDINGS.md reproduces: its figures from the runs it lists, at the Makefile's
budgets.

``make findings`` writes every figure of the claims table, the company (Lineage, Calling)
table and both tables of the Maw's pace to ``reports/findings/figures.json``. Here the
same scenarios, seeds and rule readings are played at a small budget (the first games of
each run: a seed gives the same games whatever the budget) and every committed figure must
lie inside the small run's interval, at 1 - 0.05 / K for the K figures checked (Bonferroni).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import deepsim
from deepsim.reporting import load_run

ROOT = Path(__file__).resolve().parents[3]
FINDINGS = ROOT / "reports" / "FINDINGS.md"
FIGURES = ROOT / "reports" / "findings" / "figures.json"
MAKEFILE = ROOT / "Makefile"
SMALL = 20_000

#: the runs of `make findings` that FINDINGS' figures come from: folder, scenario, --set
RUNS = [
    ("mixed", "scenarios/deepfall-mixed.yaml", []),
    ("2p", "scenarios/deepfall-2p.yaml", []),
    ("mixed-spf1", "scenarios/deepfall-mixed.yaml", ["maw.steps_per_floor=1"]),
    ("mixed-a20", "scenarios/deepfall-mixed.yaml",
     ["callings.wardancer.worthy_end_multiplier=0.88"]),
    *[(f"b5-{arm}", f"scenarios/claims/b5-{arm}.yaml", [])
      for arm in ("exits-a", "exits-b", "aggression-a", "aggression-b")],
]


def _make_vars() -> dict[str, str]:
    out = {}
    for line in MAKEFILE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Z_]+)\s*\?=\s*(\S+)\s*$", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def test_the_makefile_plays_the_runs_the_test_replays():
    text = MAKEFILE.read_text(encoding="utf-8")
    recipe = text[text.index("\nfindings:"):]
    for name, scenario, sets in RUNS:
        if name.startswith("b5-"):
            assert "scenarios/claims/b5-$$arm.yaml" in recipe and name[3:] in recipe
            continue
        assert scenario in recipe and f"$(FINDINGS_RUNS)/{name}" in recipe, name
        for s in sets:
            assert f"--set {s}" in recipe, s


@pytest.fixture(scope="module")
def small_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("findings-small")
    runs = []
    for name, scenario, sets in RUNS:
        deepsim.simulate(ROOT / scenario, games=SMALL, overrides=sets, out=root / name)
        runs.append(load_run(root / name))
    return runs


def test_committed_figures_lie_in_a_small_runs_intervals(small_runs):
    from deepsim.rulesets.deepfall.figures import figures

    doc = json.loads(FIGURES.read_text(encoding="utf-8"))
    committed = doc["figures"]
    k = len(committed)
    assert k > 100
    got = figures(small_runs, alpha=0.05 / k)
    assert not set(committed) - set(got), sorted(set(committed) - set(got))[:5]
    outside = []
    for key, fig in committed.items():
        value, (_, low, high) = fig["value"], got[key]
        tol = 1e-9 * max(1.0, abs(value))
        if not low - tol <= value <= high + tol:
            outside.append(f"{key}: committed {value:.4g}, small run [{low:.4g}, {high:.4g}]")
    assert not outside, "\n".join(outside[:10])


def test_findings_prints_the_makefiles_budgets():
    v = _make_vars()
    text = FINDINGS.read_text(encoding="utf-8")
    n = {k: int(v[k]) for k in ("FINDINGS_GAMES", "FINDINGS_VARIANT_GAMES",
                                "FINDINGS_PAIRED_GAMES", "FINDINGS_META_GAMES",
                                "CALIBRATION_GAMES", "FINDINGS_LADDER_GAMES",
                                "RECONSTRUCT_TRIALS", "RECONSTRUCT_GAMES",
                                "RECONSTRUCT_SPACE_TRIALS", "RECONSTRUCT_SPACE_GAMES",
                                "RECONSTRUCT_ROUNDING_TRIALS",
                                "RECONSTRUCT_RESPOND_TRIALS", "RECONSTRUCT_RESPOND_GAMES")}
    expect = [
        f"deepfall-mixed, seed 7, {n['FINDINGS_GAMES']:,} games",
        f"deepfall-mixed, seed 7, {n['FINDINGS_VARIANT_GAMES']:,} games, params",
        "deepfall-2p, seed 11, 200,000 games",          # the scenario's own budget
        f"deepfall-mixed-meta, seed 7, {n['FINDINGS_META_GAMES']:,} games",
        *[f"claims-b5-{arm}, seed {seed}, {n['FINDINGS_PAIRED_GAMES']:,} games"
          for arm, seed in (("exits-a", 21), ("exits-b", 21), ("aggression-a", 22),
                            ("aggression-b", 22))],
        f"claims-cal-mirror, seed 1001, {n['CALIBRATION_GAMES']:,} games",
        f"--games {n['FINDINGS_LADDER_GAMES']}",
        f"{n['RECONSTRUCT_TRIALS']} trials of {n['RECONSTRUCT_GAMES']:,} games",
        f"{n['RECONSTRUCT_SPACE_TRIALS']} trials of {n['RECONSTRUCT_SPACE_GAMES']:,} games",
        (f"({n['RECONSTRUCT_RESPOND_TRIALS']} optuna trials x "
         f"{n['RECONSTRUCT_RESPOND_GAMES']:,} games"),
    ]
    missing = [e for e in expect if e not in text]
    assert not missing, missing
    # every claims tune FINDINGS reports is one the Makefile makes
    tunes = re.findall(r"^### `--space ([^`]+)`", text, flags=re.MULTILINE)
    assert sorted(tunes) == sorted(["readings", "rounding", "placeholders",
                                    "readings,rounding"]), tunes
    # the claims tunes' budgets (the balance section states its own search's trials)
    budgets = re.findall(r"--objective claims`: (\d+) trials of ([\d,]+) games", text)
    assert len(budgets) >= len(tunes)
    allowed = {(str(n["RECONSTRUCT_TRIALS"]), f"{n['RECONSTRUCT_GAMES']:,}"),
               (str(n["RECONSTRUCT_SPACE_TRIALS"]), f"{n['RECONSTRUCT_SPACE_GAMES']:,}"),
               (str(n["RECONSTRUCT_ROUNDING_TRIALS"]), f"{n['RECONSTRUCT_SPACE_GAMES']:,}")}
    assert set(budgets) <= allowed, set(budgets) - allowed
    respond = set(re.findall(r"\((\d+) optuna trials x ([\d,]+) games", text))
    assert respond <= {(str(n["RECONSTRUCT_RESPOND_TRIALS"]),
                        f"{n['RECONSTRUCT_RESPOND_GAMES']:,}")}, respond
