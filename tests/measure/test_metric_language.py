"""One metric language for every command: each metric evaluated by each command's own code
on one shared tiny run (the same games: same scenario, seed and game indices), and one CLI
call per command.

For every metric (each registered name, a spread per group, a seats and a games column's
mean), the number ``check`` judges, ``compare`` reports for a run against itself, ``sweep``
tabulates at its baseline point and ``tune`` scores as an objective term is the same, in
the same unit, as the metric language computes on the run's own files.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from deepsim import runner
from deepsim.cli import app
from deepsim.gate.check import check_prepared
from deepsim.gate.compare import compare_runs
from deepsim.gate.expect import parse_expect
from deepsim.measure.names import METRICS
from deepsim.measure.spec import expand, parse_metric_spec
from deepsim.measure.values import estimate_obs, measure
from deepsim.output import read_run
from deepsim.tune.objectives import parse_objective, probe_universe
from deepsim.tune.settings import Settings
from deepsim.tune.sweep import run_sweep

cli = CliRunner(env={"COLUMNS": "120"})
GAMES = 600
SCENARIO = f"""\
name: language
ruleset: deepfall
games: {GAMES}
seed: 5
chunk_size: 250
players: [3, 4]
companies: {{unique: true}}
bots: [random, cautious, balanced, greedy, martyr]
"""

#: one number per registered metric (the grouped ones for one member), a grouped
#: metric, the spreads, and a seats and a games column's mean
SPECS = [
    "win_share[calling=Wardancer]", "win_ratio[lineage=Wisp]", "win_edge[seat=1, players=4]",
    "glory[bot=greedy]", "feel_bad", "feel_bad_mid[bot=greedy+martyr]",
    "feel_bad_crew[players=3]", "feel_bad_crew_mid", "cash_outs", "last_stands[bot=martyr]",
    "worthy_ends", "crews", "faction_spread", "company_spread", "lineage_spread",
    "calling_spread[players=4]", "bot_spread", "seat_advantage", "rounds[players=3]",
    "length_error", "truncated", "unresolved", "margin", "margin_rel", "draw_share",
    "tie_share",
    "contested_share", "markers_per_contested", "cap_binds", "taken_if_warned",
    "turns[calling=Reaver]", "maw_steps",
]


#: the co-operative metrics, measured on Bank runs (tests/rulesets/bank/test_bank.py)
COOP_SPECS = ["victory[players=3]", "victory_edge", "victory_error",
              "outcome_share[outcome=clock]"]


def test_every_registered_metric_is_in_the_list():
    named = {parse_metric_spec(s).metric for s in SPECS + COOP_SPECS}
    assert set(METRICS) <= named, set(METRICS) - named


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("language")
    path = root / "language.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    run_dir = runner.run(path, out=root / "run").out_dir
    games, seats = read_run(run_dir)
    rs, _, prep = runner.resolve(path)
    uni = probe_universe(rs, prep)
    truth = {}
    for spec in SPECS:
        (inst,) = expand([parse_metric_spec(spec)], uni, key="--metric",
                         target_rounds=11.0)
        truth[spec] = estimate_obs(measure(inst, games, seats), 0.05)
    return {"path": path, "run": run_dir, "games": games, "seats": seats, "truth": truth,
            "ruleset": rs, "prepared": prep, "root": root}


def _bound(spec: str) -> dict:
    m = METRICS.get(parse_metric_spec(spec).metric)
    lo = m.limits[0] if m is not None and math.isfinite(m.limits[0]) else -1e9
    hi = m.limits[1] if m is not None and math.isfinite(m.limits[1]) else 1e9
    fmt = (lambda x: f"{x:g}%") if m is not None and m.share_like else (lambda x: x)
    return {"within": [fmt(lo), fmt(hi)]}


def test_check_judges_every_metric(tiny):
    exps = parse_expect({"expect": [{"metric": s, **_bound(s)} for s in SPECS]},
                        source="x.yaml")
    res = check_prepared(tiny["ruleset"], tiny["prepared"], exps, source="x.yaml", lines={},
                         looks=[GAMES], alphas=[0.05], alpha=0.05, sequential=False,
                         spending="pocock", overrides=[])
    assert len(res.rows) == len(SPECS)
    for spec, row in zip(SPECS, res.rows, strict=True):
        assert row.estimate.value == pytest.approx(tiny["truth"][spec].value), spec
        assert row.verdict == "pass", (spec, row.estimate)


def test_compare_reports_every_metric(tiny):
    for spec in SPECS:
        res = compare_runs(tiny["run"], tiny["run"], metric=spec)
        assert res.paired and res.games == GAMES
        assert res.diff.value_a == pytest.approx(tiny["truth"][spec].value), spec
        assert res.diff.est == 0.0
    # and the before/after table of the factions: every company that played, the spread
    assert len(res.factions) == 37 and res.factions[-1].metric == "faction_spread"


def test_sweep_tabulates_every_metric(tiny):
    out = run_sweep(tiny["path"], ["end.max_rounds=60"], metrics=SPECS,
                    settings=Settings(out=tiny["root"] / "sweep", make_plots=False,
                                      target_rounds=11.0))
    base = out.frame[out.frame["baseline"]].set_index("label")
    uni = probe_universe(tiny["ruleset"], tiny["prepared"])
    for spec in SPECS:
        (inst,) = expand([parse_metric_spec(spec)], uni, target_rounds=11.0)
        row = base.loc[inst.spec]
        assert row["value"] == pytest.approx(tiny["truth"][spec].value), spec
        assert (row["low"], row["high"]) == pytest.approx(
            (tiny["truth"][spec].low, tiny["truth"][spec].high)), spec
        assert row["delta"] == 0.0 and row["unit"] == inst.metric.unit


def test_tune_scores_every_metric(tiny):
    obj = parse_objective("+".join(SPECS), target_rounds=11.0)
    obj.bind(probe_universe(tiny["ruleset"], tiny["prepared"]))
    total, parts = obj.evaluate(tiny["games"], tiny["seats"])
    for spec, label in zip(SPECS, [t[1] for t in obj.terms], strict=True):
        assert parts[label].value == pytest.approx(tiny["truth"][spec].value), spec
    assert total.value == pytest.approx(sum(tiny["truth"][s].value for s in SPECS))


# --- one CLI call per command -----------------------------------------------------------------

def test_cli_check(tiny):
    path = Path(tiny["root"]) / "check.yaml"
    path.write_text(SCENARIO + """\
expect:
  - metric: win_ratio[calling]
    within: [0.3, 3]
  - metric: company_spread
    below: 60%
  - metric: rounds[players]
    within: [5, 12]
  - metric: truncated
    below: 0.5          # ambiguous: refused
""", encoding="utf-8")
    res = cli.invoke(app, ["check", str(path)])
    assert res.exit_code == 2 and "below: 0.5 is ambiguous" in " ".join(res.output.split())
    path.write_text(path.read_text().replace("below: 0.5 ", "below: 2%"), encoding="utf-8")
    res = cli.invoke(app, ["check", str(path)])
    assert res.exit_code == 0, res.output
    assert "10 pass, 0 fail, 0 inconclusive" in res.output


def test_cli_compare_fixed(tiny):
    res = cli.invoke(app, ["compare", str(tiny["path"]), "--metric", "win_share[calling]",
                           "--set-b", "callings.wardancer.worthy_end_multiplier=1.8",
                           "--games", "400", "-q"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "win_share[calling]: A, B and the paired change B - A" in text
    assert "Is it balanced now? Per company" in text and "faction_spread" in text
    assert "Wardancer" in text


def test_cli_sweep(tiny):
    out = Path(tiny["root"]) / "cli-sweep"
    res = cli.invoke(app, ["sweep", str(tiny["path"]), "--param",
                           "callings.wardancer.worthy_end_multiplier=1.8,2.2", "--metric",
                           "win_share[calling=Wardancer]", "--metric", "calling_spread",
                           "--games", "300", "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "paired change from the baseline point" in text and "2.2 *" in text
    df = pd.read_parquet(out / "sweep.parquet")
    ward = df[(df["metric"] == "win_share[calling=Wardancer]") & (df["point"] == 0)]
    assert ward["delta"].iloc[0] < 0                      # a nerf
    assert (out / "plots" / "win_share-calling-Wardancer.png").is_file()


def test_cli_tune(tiny):
    out = Path(tiny["root"]) / "cli-tune"
    res = cli.invoke(app, ["tune", str(tiny["path"]), "--param",
                           "callings.wardancer.worthy_end_multiplier=1.0:2.2",
                           "--objective", "calling_spread+0.5*win_share[bot=random]",
                           "--trials", "2", "--games", "200", "--confirm-games", "0",
                           "--out", str(out)])
    assert res.exit_code == 0, res.output
    trials = pd.read_parquet(out / "trials.parquet")
    assert {"calling_spread", "win_share[bot=random]"} <= set(trials.columns)
    assert (trials["calling_spread"] > 1).all()          # percentage points


def test_the_reports_spellings_are_the_language(tiny):
    """The report's Method section names its numbers in the metric language: every
    spelling there expands on this run."""
    from types import SimpleNamespace

    from deepsim.report.sections import language_table

    table = language_table(SimpleNamespace(rs=tiny["ruleset"]))
    uni = probe_universe(tiny["ruleset"], tiny["prepared"])
    specs = [x.strip() for cell in table.frame.iloc[:, 1] for x in _split(cell)]
    assert "company_spread" in specs and "win_share[seat, players]" in specs
    for spec in specs:
        assert expand([parse_metric_spec(spec)], uni, key="report", target_rounds=11.0), spec


def _split(cell: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in cell:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [*out, cur]
