"""Balance report (deepsim.report): statistics against known values, claims' verdict rules,
and a report built from small real DEEPFALL runs (every section, valid self-contained HTML,
the CLI)."""

from __future__ import annotations

import base64
import json
import math
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from deepsim import runner
from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.report import ReportConfig, build_report
from deepsim.report import metrics as M
from deepsim.report.load import RunData
from deepsim.report.render import compress_paths, to_html, to_markdown
from deepsim.report.verdicts import combine, region_verdict
from deepsim.reporting import load_run, report_runs
from deepsim.rulesets.deepfall import REPORT_OPTIONS
from deepsim.rulesets.deepfall.claims import CLAIMS

cli = CliRunner(env={"COLUMNS": "200"})

SECTION_TITLES = [
    "Claims B1-B8", "Win share per company, Lineage and Calling", "Seat advantage",
    "Game length", "Margins", "Exits and the feel-bad rate", "Bot styles", "Swing",
    "Contention", "The Maw's pace", "Matchups (2-player games) and Bradley-Terry strength",
    "Rules exercised", "One rule reading at a time", "Method",
]
FIGURES = ["win_share_heatmap.png", "win_share_companies.png", "seat_advantage.png",
           "game_length.png", "margins.png", "exits.png"]


# --- statistics against known values --------------------------------------------------------

def test_wilson_textbook_value():
    # 81 successes in 263 trials: the Wilson 95% interval is (0.2553, 0.3662)
    # (Newcombe 1998, Statistics in Medicine 17:857, example; also Agresti & Coull 1998).
    low, high = M.wilson(81, 263)
    assert low == pytest.approx(0.2553, abs=1e-4)
    assert high == pytest.approx(0.3662, abs=1e-4)
    # 0 of 10 -> (0, 0.2775)
    low, high = M.wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)


def test_bradley_terry_recovers_known_strengths():
    # Expected win counts from known strengths are a dataset whose maximum-likelihood fit
    # is exactly those strengths (mean-centred).
    theta = np.array([1.2, 0.4, 0.0, -0.3, -1.3])
    theta = theta - theta.mean()
    n = 1000.0
    k = theta.size
    wins = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            if i != j:
                wins[i, j] = n / (1.0 + np.exp(theta[j] - theta[i]))
    names = [f"c{i}" for i in range(k)]
    bt = M.bradley_terry(pd.DataFrame(wins, index=names, columns=names))
    got = bt.set_index("item")["strength"].reindex(names).to_numpy()
    np.testing.assert_allclose(got, theta, atol=1e-4)
    assert list(bt["item"]) == names  # sorted by strength, strongest first
    assert bt["p_vs_average"].iloc[0] == pytest.approx(1 / (1 + np.exp(-theta[0])), abs=1e-4)


def test_bradley_terry_two_items_simple_odds():
    # 30 wins to 10: strength difference log(3), centred: +-log(3)/2.
    wins = pd.DataFrame([[0, 30], [10, 0]], index=["a", "b"], columns=["a", "b"], dtype=float)
    bt = M.bradley_terry(wins).set_index("item")["strength"]
    assert bt["a"] - bt["b"] == pytest.approx(math.log(3), abs=1e-5)
    assert bt["a"] == pytest.approx(math.log(3) / 2, abs=1e-5)


def test_holm_known_values():
    # Holm: sorted p 0.01, 0.03, 0.04 -> 0.03, 0.06, 0.06 (monotone), back in input order.
    np.testing.assert_allclose(M.holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    out = M.holm([0.2, np.nan])
    assert out[0] == pytest.approx(0.2) and np.isnan(out[1])


def test_ratio_of_sums_and_mean_ci():
    y = np.array([1.0, 2.0, 0.0, 3.0, 4.0, 2.0])
    x = np.array([2.0, 4.0, 0.0, 5.0, 8.0, 3.0])
    est, lo, hi = M.ratio_of_sums(y, x)
    assert est == pytest.approx(12 / 22)
    assert lo < est < hi
    m, lo, hi = M.mean_ci([1.0, 2.0, 3.0])
    # t interval: 2 +- t(0.975, 2) * 1 / sqrt(3) = 2 +- 2.4841
    assert m == 2.0 and lo == pytest.approx(2 - 2.4841, abs=1e-3)
    assert math.isnan(M.ratio_of_sums([1.0], [0.0])[0])


def test_proportion_ratio_ci():
    est, lo, hi = M.proportion_ratio_ci(50, 100, 25, 100)
    assert est == pytest.approx(2.0)
    assert lo < 2.0 < hi and lo > 1.0


def test_viability_rule():
    fair = np.array([0.25, 0.25, 0.25, 0.25])
    lo = np.array([0.20, 0.10, 0.14, 0.19])
    hi = np.array([0.22, 0.40, 0.19, 0.205])
    v = M.viability_verdict(lo, hi, fair, min_ratio=0.8, max_rel_width=0.1)
    # 0.22 >= 0.2 and width 0.02 <= 0.025: viable; wide: inconclusive; 0.19 < 0.2: not
    # viable (even though narrow); 0.205 >= 0.2 with width 0.015: viable
    assert list(v) == ["viable", "inconclusive", "not viable", "viable"]


def test_viability_rule_has_a_too_strong_end():
    fair = np.full(4, 0.25)
    lo = np.array([0.33, 0.32, 0.10, 0.26])
    hi = np.array([0.35, 0.50, 0.15, 0.27])
    v = M.viability_verdict(lo, hi, fair, min_ratio=0.8, max_rel_width=0.1, max_ratio=1.25)
    # above 1.25 x fair: too strong, even when the interval is wide (0.32-0.50); below
    # 0.8 x fair: not viable; between: the viability rule as before
    assert list(v) == ["too strong", "too strong", "not viable", "viable"]
    # the same lines by default as every surface (deepsim.report.viability.DEFAULT)
    assert list(M.viability_verdict(lo, hi, fair)) == list(v)
    assert list(M.viability_verdict(lo, hi, fair, max_ratio=None)) == [
        "viable", "inconclusive", "not viable", "viable"]            # no top end asked for


def test_win_share_table_fair_share_in_mixed_counts_and_holm():
    rows = []
    g = 0
    rng = np.random.default_rng(0)
    for _ in range(3000):  # A always wins 2-player games, B never; C and D 4-player, fair
        rows += [(g, 0, 2, "A", 1.0), (g, 1, 2, "B", 0.0)]
        g += 1
        w = rng.integers(0, 4)
        rows += [(g, s, 4, name, float(s == w)) for s, name in enumerate("CDEF")]
        g += 1
    seats = pd.DataFrame(rows, columns=["game", "seat", "players", "company", "win"])
    seats["fair"] = 1.0 / seats["players"]
    ws = M.win_share_table(seats, "company").set_index("company")
    assert ws.loc["A", "fair_share"] == pytest.approx(0.5)
    assert ws.loc["C", "fair_wins"] == pytest.approx(3000 * 0.25)
    assert ws.loc["A", "test"] == "over" and ws.loc["B", "test"] == "under"
    # A wins every game at a fair share of 1/2: too strong by the shared lines
    assert ws.loc["B", "verdict"] == "not viable" and ws.loc["A", "verdict"] == "too strong"
    assert set(ws.loc[list("CDEF"), "test"]) == {"fair"}


def test_region_verdict_and_combine():
    assert region_verdict(1.05, 1.10, 1.0, 1.2, lo_open=True) == "holds"
    assert region_verdict(0.90, 0.99, 1.0, 1.2, lo_open=True) == "fails"
    assert region_verdict(1.25, 1.30, 1.0, 1.2, lo_open=True) == "fails"
    assert region_verdict(0.98, 1.03, 1.0, 1.2, lo_open=True) == "inconclusive"
    assert region_verdict(float("nan"), 1.0, 0.0, 1.0) == "inconclusive"
    assert combine(["holds", "holds"]) == "holds"
    assert combine(["holds", "inconclusive"]) == "inconclusive"
    assert combine(["inconclusive", "fails"]) == "fails"


def test_config_options():
    c = ReportConfig.for_ruleset(REPORT_OPTIONS).with_options(
        ["viability.min_ratio=0.9", "claims.almost_never=0.01"])
    assert c.min_ratio == 0.9 and c.almost_never == 0.01
    assert c.touch_max == 0.2                      # a ruleset setting left at its default
    # the claims' settings are DEEPFALL's: another ruleset's report refuses them
    with pytest.raises(InputError, match="valid keys"):
        ReportConfig().with_options(["claims.almost_never=0.01"])
    with pytest.raises(AttributeError):
        _ = ReportConfig().almost_never
    with pytest.raises(InputError, match="valid keys"):
        ReportConfig.for_ruleset(REPORT_OPTIONS).with_options(["viability.nope=1"])
    with pytest.raises(InputError, match="number"):
        ReportConfig.for_ruleset(REPORT_OPTIONS).with_options(["alpha=x"])
    with pytest.raises(InputError):
        ReportConfig.for_ruleset(REPORT_OPTIONS).with_options(["alpha=2"])


def test_compress_paths():
    assert compress_paths(["lineages.a.start_bag", "lineages.b.start_bag",
                           "dungeon.floor_weights"]) == [
        "lineages.*.start_bag (a, b)", "dungeon.floor_weights"]


# --- a report built from small real runs ----------------------------------------------------

@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("report-runs")
    # the field with the baseline styles (scenarios/deepfall-mixed.yaml has none since
    # issue 18), so the baseline handling is exercised
    mixed = runner.run("tests/report/scenarios/mixed-ladder.yaml", games=2000, chunk_size=1000,
                       out=root / "mixed").out_dir
    two = runner.run("scenarios/deepfall-2p.yaml", games=2000, chunk_size=1000,
                     out=root / "2p").out_dir
    spf1 = runner.run("scenarios/deepfall-mixed.yaml", games=600, chunk_size=600,
                      out=root / "spf1", overrides=["maw.steps_per_floor=1"]).out_dir
    a20 = runner.run("scenarios/deepfall-mixed.yaml", games=600, chunk_size=600,
                     out=root / "a20",
                     overrides=["callings.wardancer.worthy_end_multiplier=0.88"]).out_dir
    return {"mixed": mixed, "2p": two, "spf1": spf1, "a20": a20, "root": root}


class _Checker(HTMLParser):
    VOID: ClassVar[set[str]] = {"meta", "img", "br", "hr", "link", "input", "col", "source", "wbr", "area",
                                "base", "embed", "param", "track"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.images: list[str] = []
        self.doctype = False
        self.ids: list[str] = []

    def handle_decl(self, decl):
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "img":
            self.images.append(a.get("src", ""))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}>, open: {self.stack[-3:]}")
            return
        self.stack.pop()


def _check_html(text: str) -> _Checker:
    p = _Checker()
    p.feed(text)
    p.close()
    assert p.doctype, "no <!DOCTYPE html>"
    assert not p.errors, p.errors[:5]
    assert not p.stack, f"unclosed tags: {p.stack}"
    assert len(p.ids) == len(set(p.ids)), "duplicate ids"
    return p


@pytest.mark.slow
def test_report_from_a_small_run_has_every_section(runs):
    rep, paths = report_runs([runs["mixed"]])
    out = Path(runs["mixed"]) / "report"
    names = {p.name for p in paths}
    assert {"report.md", "report.html", "report.json", *FIGURES} <= names
    md = (out / "report.md").read_text()
    for title in SECTION_TITLES:
        assert f"## {title}" in md, title
    for cid in CLAIMS:
        assert f"| {cid}: " in md, cid
    # every output names seed, game count, rules hash and the placeholder data
    info = json.loads((Path(runs["mixed"]) / "run.json").read_text())
    for text in (md, (out / "report.html").read_text()):
        assert f"seed <strong>{info['seed']}</strong>" in text or \
            f"seed **{info['seed']}**" in text
        assert "2,000" in text and info["params_hash"] in text
        assert "lineages.*.start_bag" in text and "dungeon.floor_weights" in text
    # sections computed, not skipped (the matchups need 2-player games: the mixed run has some)
    assert all(s.missing is None for s in rep.sections), [(s.key, s.missing)
                                                         for s in rep.sections if s.missing]
    assert "Bradley-Terry strength" in md
    # 36 companies in the win-share table, each with a verdict; a small sample never passes
    ws = M.win_share_table(rep.primary.seats, "company")
    assert len(ws) == 36
    assert "viable" not in set(ws["verdict"])
    summary = json.loads((out / "report.json").read_text())
    assert summary["run"]["games"] == 2000 and summary["run"]["placeholders"]
    assert [c["id"] for c in summary["claims"]] == list(CLAIMS)
    b1 = next(c for c in summary["claims"] if c["id"] == "B1")
    assert any(p["verdict"] == "not measured" and "maw.steps_per_floor=1" in p["note"]
               for p in b1["parts"])
    b2 = next(c for c in summary["claims"] if c["id"] == "B2")
    assert b2["verdict"] in ("fails", "inconclusive")  # 2,000 games can never show viability
    for f in FIGURES:  # small PNGs
        data = (out / f).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) < 250_000


@pytest.mark.slow
def test_report_opens_with_a_headline_naming_too_strong_factions(runs):
    rep = build_report([load_run(runs["mixed"])])
    assert [s.key for s in rep.sections[:3]] == ["headline", "win-share", "claims"]
    md = to_markdown(rep)
    head = md.split("## Headline")[1].split("\n## ")[0]
    # Wardancer companies are far above fair in the default rules (FINDINGS): too strong
    assert "too strong" in head and "Wardancer" in head
    for noun in ("Company (", "Lineage (", "Calling ("):
        assert noun in head, noun
    assert "strongest" in head and "weakest" in head and "Field:" in head
    assert "left out" in head                                   # baselines counted
    assert md.index("## Headline") < md.index("win_share_heatmap.png") < md.index("## Claims")
    opt = build_report([load_run(runs["mixed"])],
                       ReportConfig.for_ruleset(REPORT_OPTIONS).with_options(
                           ["viability.max_ratio=9"]))
    assert "too strong" not in set(opt.sections[0].tables[0].frame["Verdict"])


@pytest.mark.slow
def test_baseline_bots_are_left_out_of_the_balance_headlines(runs):
    """bots.yaml marks random and cautious as baselines: the company, Lineage, Calling and
    seat tables (and B2, B3, B5) read only the other seats, with the fair share
    renormalised to their mean win per player count, and say how many seat-games were left
    out; the bot-style table keeps every style for reference."""
    rep = build_report([load_run(runs["mixed"])])
    run = rep.primary
    assert run.baseline_bots == ("random", "cautious")
    kept, n_out = run.balance_seats()
    base = run.seats["bot"].astype(str).isin(["random", "cautious"])
    assert n_out == int(base.sum()) > 0 and len(kept) == int((~base).sum())
    for n, grp in kept.groupby("players"):
        assert grp["fair"].sum() == pytest.approx(grp["win"].sum())
    md = to_markdown(rep)
    note = f"aseline bots (random, cautious) left out: {n_out:,} seat-games"
    win = md.split("## Win share per company")[1].split("\n## ")[0]
    seats_sec = md.split("## Seat advantage")[1].split("\n## ")[0]
    assert note in win and note in seats_sec
    b2 = next(c for c in rep.claims if c.claim.id == "B2")
    assert note in b2.parts[0].note
    ws = M.win_share_table(kept, "company")
    assert ws["games"].sum() == len(kept)
    bots_sec = next(s for s in rep.sections if s.key == "bots")
    assert {"random", "cautious"} <= set(bots_sec.tables[0].frame["Bot"])


@pytest.mark.slow
def test_html_is_valid_and_self_contained(runs):
    rep, paths = report_runs([runs["mixed"]], formats=("html",),
                             out_dir=Path(runs["root"]) / "html-only")
    assert not any(p.name == "report.md" for p in paths)
    text = next(p for p in paths if p.name == "report.html").read_text()
    p = _check_html(text)
    assert len(p.images) == len(rep.figures) >= len(FIGURES)
    for src in p.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG")
    assert "src=\"http" not in text and "<link" not in text  # nothing fetched


@pytest.mark.slow
def test_several_runs_fill_b1_b8_and_the_matchups(runs):
    rep, _ = report_runs([runs["mixed"], runs["2p"], runs["spf1"]],
                         out_dir=Path(runs["root"]) / "multi")
    claims = {c.claim.id: c for c in rep.claims}
    b1 = {p.readings[0]: p for p in claims["B1"].parts}
    assert set(b1) == {"spf2", "spf1"}
    assert all(p.verdict != "not measured" for p in b1.values())
    assert "spf1" in b1["spf1"].run or "steps_per_floor=1" in b1["spf1"].run
    b8 = {p.label: p for p in claims["B8"].parts}
    assert len(b8) == 4 and all(p.verdict == "holds" for p in b8.values())
    # the runs' roles are stated
    assert rep.roles[0].startswith("matchups") and "B1 and B8" in rep.roles[1]
    assert "one-gap variation maw.steps_per_floor=1" in rep.roles[1]
    mu = next(s for s in rep.sections if s.key == "matchups")
    assert any(t.caption.startswith("Matchup matrix") for t in mu.tables)
    assert any(f.name == "bradley_terry.png" for f in mu.figures)
    _check_html(to_html(rep))


@pytest.mark.slow
def test_sections_without_their_columns_are_skipped_not_fatal(runs):
    base = load_run(runs["mixed"])
    games = base.games[["game", "players", "rounds", "margin", "margin_rel"]]
    seats = base.seats[["game", "seat", "players", "company", "win", "fair", "glory",
                        "place"]]
    run = RunData(path=base.path, info=base.info, manifest=base.manifest, games=games,
                  seats=seats, params=base.params, rs=base.rs)
    rep = build_report([run])
    missing = {s.key for s in rep.sections if s.missing}
    assert {"exits", "contention", "bots", "maw"} <= missing
    assert "win-share" not in missing and "length" not in missing
    md = to_markdown(rep)
    assert "Not available for this run" in md
    _check_html(to_html(rep))
    verdicts = {c.claim.id: c.verdict for c in rep.claims}
    assert verdicts["B4"] == "not measured" and verdicts["B7"] == "not measured"


# --- CLI ------------------------------------------------------------------------------------

@pytest.mark.slow
def test_cli_report_command(runs, tmp_path):
    out = tmp_path / "rep"
    res = cli.invoke(app, ["report", str(runs["mixed"]), str(runs["spf1"]), "--out", str(out),
                           "--format", "md", "--option", "viability.min_ratio=0.5"])
    assert res.exit_code == 0, res.output
    assert "B1" in res.output and "B8" in res.output
    assert (out / "report.md").is_file() and not (out / "report.html").exists()
    assert "viability.min_ratio | 0.5" in (out / "report.md").read_text()
    for bad in (["--format", "pdf"], ["--option", "bogus=1"]):
        res = cli.invoke(app, ["report", str(runs["mixed"]), "--out", str(out), *bad])
        assert res.exit_code == 2 and "Traceback" not in res.output
    res = cli.invoke(app, ["report", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "not found" in res.output


@pytest.mark.slow
def test_cli_run_writes_the_report_unless_told_not_to(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    res = cli.invoke(app, ["run", "scenarios/deepfall-4p.yaml", "--games", "200", "--out",
                           str(a)])
    assert res.exit_code == 0, res.output
    assert "Report:" in res.output
    assert (a / "report" / "report.html").is_file() and (a / "report" / "report.md").is_file()
    res = cli.invoke(app, ["run", "scenarios/deepfall-4p.yaml", "--games", "200", "--out",
                           str(b), "--no-report", "-q"])
    assert res.exit_code == 0, res.output
    assert not (b / "report").exists()


@pytest.mark.slow
def test_one_gap_variations_and_findings(runs, tmp_path):
    from deepsim.studies.deepfall_findings import write_findings

    paths = write_findings([runs["mixed"], runs["2p"], runs["spf1"], runs["a20"]],
                           tmp_path / "reports")
    text = paths[0].read_text()
    assert paths[0].name == "FINDINGS.md"
    for cid in CLAIMS:
        assert f"**{cid}**" in text and f"| {cid}: " in text
    assert "## One rule reading at a time" in text
    assert "callings.wardancer.worthy_end_multiplier=0.88" in text
    assert "maw.steps_per_floor=1" in text
    for p in paths[1:]:  # every plot it writes is referenced, and small
        assert f"(findings/{p.name})" in text and p.stat().st_size < 250_000
    assert (Path(runs["mixed"]) / "report" / "report.html").is_file()
    rep, _ = report_runs([runs["mixed"], runs["a20"]], out_dir=tmp_path / "var")
    var = next(s for s in rep.sections if s.key == "variations")
    verdicts = var.tables[0].frame
    assert list(verdicts["Claim"]) == list(CLAIMS)
    assert list(verdicts.columns[1:]) == [
        "primary run", "callings.wardancer.worthy_end_multiplier=0.88 (primary: 2.2)"]


def test_warning_honesty_reads_the_kernels_classes_of_takings():
    """B8's table: the warned crews' Taken share, and per game the Takings the kernel
    classed as moved in, mustered and blindsided (never a difference of two counts, which
    went negative on runs whose Takings were counted another way)."""
    from deepsim.rulesets.deepfall import metrics as DM
    games = pd.DataFrame({"game": [0, 1, 2], "players": [2, 2, 2], "warned": [2, 1, 0],
                          "taken_after_warning": [2, 1, 0], "taken_moved_in": [0, 1, 0],
                          "taken_mustered": [0, 1, 1], "taken_blindsided": [0, 0, 0]})
    w = DM.warning_honesty(games)
    assert w["taken_if_warned"].iloc[0] == pytest.approx(1.0)
    assert w["moved_in_pg"].iloc[0] == pytest.approx(1 / 3)
    assert w["mustered_pg"].iloc[0] == pytest.approx(2 / 3)
    assert w["blindsided_pg"].iloc[0] == 0
    old = DM.warning_honesty(games.drop(columns=list(DM.TAKING_CLASSES.values())))
    assert not set(DM.TAKING_CLASSES) & set(old.columns)


# --- readings, calibration, paired games -------------------------------------------------------

def test_a_claim_read_several_ways_gets_a_verdict_per_reading():
    """Alternative readings are judged apart: a claim holds under the readings named,
    never fails merely because another reading does; conjuncts shared by readings count
    in each; an untestable reading is neither held nor failed."""
    from deepsim.report.verdicts import Claim, ClaimPart, ClaimResult, claim_distance

    c = Claim("X", "§1", "text", "how", ())
    parts = [ClaimPart("a", "", "", "fails", distance=2.0, readings=("r1",)),
             ClaimPart("b", "", "", "holds", distance=0.0, readings=("r2",)),
             ClaimPart("shared", "", "", "holds", distance=0.0)]
    res = ClaimResult(c, parts, readings={"r1": "one", "r2": "two"})
    assert res.reading_verdicts() == {"r1": "fails", "r2": "holds"}
    assert res.verdict == "holds (under 1 of 2 readings)"
    assert claim_distance(res) == (0.0, [])
    res.untestable = {"r2": "failed calibration"}
    assert res.reading_verdicts()["r2"] == "untestable as worded"
    assert res.verdict == "fails (1 untestable as worded)"
    assert claim_distance(res)[0] == 2.0
    res.untestable = {"r1": "x", "r2": "y"}
    assert res.verdict == "untestable as worded"
    one = ClaimResult(c, parts[:1] + [ClaimPart("c", "-", "-", "not measured")])
    assert one.verdict == "fails (part not measured)"


def test_claims_carry_the_claim_tables_readings(runs):
    from deepsim.rulesets.deepfall.claims import CLAIM_TABLE

    rep = build_report([load_run(runs["mixed"]), load_run(runs["spf1"])])
    for res in rep.claims:
        spec = CLAIM_TABLE[res.claim.id]
        assert list(res.readings) == [r.key for r in spec.readings]
        keys = set(res.readings)
        for p in res.parts:
            assert set(p.readings) <= keys, (res.claim.id, p.label)
    b1 = next(c for c in rep.claims if c.claim.id == "B1")
    # the literal Maw can never give ~11 rounds: it fails, and so does the default reading;
    # no run here is at another pace, so that reading is not measured (not a verdict)
    assert b1.reading_verdicts() == {"spf2": "fails", "spf1": "fails",
                                     "pace": "not measured"}
    b5 = next(c for c in rep.claims if c.claim.id == "B5")
    assert b5.verdict == "not measured" and "b5-exits-a.yaml" in b5.parts[0].note


def test_a_reading_whose_instrument_fails_calibration_is_untestable(runs, monkeypatch):
    from deepsim.rulesets.deepfall import claims as C

    cal = {"instruments": {"B7.share": {"passed": False, "figure": "reads 2.0 on constant"}}}
    monkeypatch.setattr(C, "_calibration", lambda: cal)
    rep = build_report([load_run(runs["mixed"])])
    b7 = next(c for c in rep.claims if c.claim.id == "B7")
    assert b7.reading_verdicts()["share"] == "untestable as worded"
    assert "reads 2.0 on constant" in b7.untestable["share"]
    assert b7.reading_verdicts()["markers"] != "untestable as worded"


def test_b5_reads_its_paired_games_and_nothing_else_does(runs, tmp_path):
    """B5 on a crossover: each arm's deals played with the behaviours swapped; the paired
    runs are named for what they are and kept out of the matchups and the Maw's tables."""
    paired = [runner.run(f"scenarios/claims/b5-{arm}.yaml", games=800, chunk_size=800,
                         out=tmp_path / arm).out_dir
              for arm in ("exits-a", "exits-b", "aggression-a", "aggression-b")]
    rep = build_report([load_run(runs["mixed"]), *(load_run(p) for p in paired)])
    b5 = next(c for c in rep.claims if c.claim.id == "B5")
    assert all(p.verdict != "not measured" for p in b5.parts)
    assert "Cash Out" in b5.parts[0].measured and "ratio" in b5.parts[0].measured
    assert "greedy" in b5.parts[1].measured and "balanced" in b5.parts[1].measured
    assert all(r.startswith("B5's paired games") for r in rep.roles)
    maw = next(s for s in rep.sections if s.key == "maw")
    assert not any("b5-" in str(r) for r in maw.tables[0].frame["Run"])
    mu = next(s for s in rep.sections if s.key == "matchups")
    assert "claims-b5" not in " ".join(mu.paragraphs)
    # an arm alone, or arms of different seeds, cannot be paired
    rep1 = build_report([load_run(runs["mixed"]), load_run(paired[0])])
    assert next(c for c in rep1.claims if c.claim.id == "B5").verdict == "not measured"
