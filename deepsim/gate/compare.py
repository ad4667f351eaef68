"""``deepsim compare A [B]``: does a rules change move a metric, and by how much?

Two variants (two scenario files, or one scenario with two sets of ``--set`` overrides)
play *paired* games: the same seed and the same game indices, so the dice, the companies
and the bots drawn are the same wherever the change does not reach (common random numbers)
and the difference of a metric has far less noise than two independent samples.

- With ``--sprt H0 H1``: batches of paired games are added until the GSPRT of
  :mod:`deepsim.gate.sprt` accepts H0 or H1 (after ``min_games``), or ``max_games`` is
  reached (inconclusive). The metric must name one number.
- Without: a fixed number of paired games (``--games``), and for the metric (any number of
  numbers: ``win_share[company]`` gives one per company) each variant's value and the
  paired difference ``B - A`` with its 95% interval; plus the before/after table of the
  ruleset's factions: each faction's win share in A and B and its paired change, and the
  change of the faction spread.

Two finished run directories are compared the same way with a fixed-sample test: paired
when both runs share the seed (their common game indices), otherwise two independent
samples.

Every difference's interval is the delta-method (linearised) one over paired games or
deals (:func:`deepsim.measure.values.paired`): normal, fixed-sample.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm

from deepsim import runner
from deepsim.errors import InputError
from deepsim.gate import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_PASS
from deepsim.gate.sprt import H0, H1, Paired, SequentialTest, glr_llr, paired_difference
from deepsim.measure.names import Metric
from deepsim.measure.spec import (
    Instance,
    expand,
    parse_amount,
    parse_metric_spec,
    player_counts,
    target_of,
    universe_from_frames,
)
from deepsim.measure.values import Codes, Obs, columns_needed, concat, measure, paired
from deepsim.output import read_manifest, read_run, read_run_json
from deepsim.report.load import schema_names
from deepsim.reporting import run_ruleset

__all__ = ["CompareResult", "DeltaRow", "SprtPlan", "compare_runs", "run_compare",
           "sequential_test"]

ProgressFn = Callable[[int, int], None]
#: how the LLR is computed (:mod:`deepsim.gate.sprt`)
MODEL = "normal GSPRT, variance from the pairs"
#: z of the two-sided 95% interval of every difference
_Z95 = float(norm.isf(0.025))


@dataclass
class DeltaRow:
    """One number of both variants and its paired change (in the metric's unit)."""

    label: str                 # the number's spelling, e.g. win_share[company=Wisp Reaver]
    member: str                # what varies within its metric (a company), or ""
    metric: str
    unit: str
    value_a: float
    value_b: float
    est: float
    low: float
    high: float
    n: int
    #: clusters (games or deals) whose value differs between A and B, of ``n`` paired ones;
    #: None when not counted (unpaired runs, a spread)
    changed: int | None = None
    #: when no game changed: an exact 95% bound on |B - A| (shares: in pp; other metrics:
    #: NaN, and ``bound_share`` bounds the share of games that change)
    bound: float = math.nan
    bound_share: float = math.nan
    #: x fair (win share / fair share, baseline bots left out) with its 95% interval and
    #: the viability verdict (deepsim.report.viability) in A and in B: the faction table
    ratio_a: tuple[float, float, float] | None = None
    ratio_b: tuple[float, float, float] | None = None
    verdict_a: str = ""
    verdict_b: str = ""

    @property
    def unchanged(self) -> bool:
        """No game's value of this number changed between A and B (paired games)."""
        return self.changed == 0 and self.n > 0

    @property
    def verdict_changed(self) -> bool:
        return bool(self.verdict_a and self.verdict_b and self.verdict_a != self.verdict_b)


@dataclass
class CompareResult:
    """What ``deepsim compare`` prints."""

    metric: str
    unit: str
    label_a: str
    label_b: str
    mode: str                   # "sprt" or "fixed"
    theta0: float | None
    theta1: float | None
    alpha: float
    beta: float
    paired: bool
    games: int
    diff: Paired | None
    llr: float = math.nan
    lower: float = math.nan
    upper: float = math.nan
    model: str = ""
    decision: str = ""          # "H0", "H1" or "" (inconclusive / no hypotheses)
    p_value: float = math.nan
    history: list[tuple[int, float]] = field(default_factory=list)
    seeds: tuple[int, int] = (0, 0)
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: the metric's numbers when it names several (fixed mode)
    rows: list[DeltaRow] = field(default_factory=list)
    #: each faction's win share and the faction spread, before and after (fixed mode)
    factions: list[DeltaRow] = field(default_factory=list)
    faction_label: str = "faction"
    #: the runs are of a co-operative game: the table is the party's win rate per player
    #: count, its verdicts the party's (too easy, on target, unclear, too hard)
    cooperative: bool = False

    @property
    def diff_unit(self) -> str:
        return "pp" if self.unit == "%" else self.unit

    @property
    def exit_code(self) -> int:
        if self.theta0 is None:
            return EXIT_PASS
        return {"H0": EXIT_PASS, "H1": EXIT_FAIL}.get(self.decision, EXIT_INCONCLUSIVE)


# --- the numbers a spec names ----------------------------------------------------------------

def _instances(spec: str, ruleset, prepared, *, key: str = "--metric") -> list[Instance]:
    """Every number a ``--metric`` spec names in a prepared scenario (one probe game)."""
    cols = ruleset.group_columns
    sel = parse_metric_spec(spec, group_columns=cols, key=key)
    g, s = ruleset.run_chunk(prepared, 0, 1)
    uni = universe_from_frames(g, s, player_counts(prepared.scenario, s), cols,
                               ruleset.faction_column)
    out = expand([sel], uni, key_prefix="", target_rounds=target_of(ruleset), key=key)
    for inst in out:
        inst.extra["notes"] = list(sel.notes)
    return out


def _one(insts: list[Instance], spec: str) -> Instance:
    if len(insts) != 1:
        example = next((f"'{i.metric.name}[{i.by}={i.groups[0]}]'" for i in insts
                        if i.by and i.groups), "'win_share[company=Dvergar Reaver]'")
        raise InputError(f"{spec!r} names {len(insts)} numbers; the SPRT tests one: name one "
                         f"member (e.g. {example}) or one player count, or drop --sprt for "
                         "the table of all", key="--metric")
    return insts[0]


def _theta(value, metric: Metric, name: str) -> float:
    try:
        return parse_amount(value, metric, name, difference=True, name=metric.name)
    except ValueError as exc:
        raise InputError(str(exc), key="--sprt") from None


def _table_specs(ruleset) -> tuple[str, str]:
    """The "is it balanced now?" table's two numbers: each faction's win share and the
    faction spread; for a co-operative game the party's win rate per player count and
    over all games."""
    if ruleset.cooperative:
        return "victory[players]", "victory"
    return f"win_share[{ruleset.faction_column}]", "faction_spread"


def _table_label(ruleset) -> str:
    return "player count" if ruleset.cooperative else ruleset.faction_label


def _faction_instances(ruleset, prepared) -> tuple[list[Instance], str]:
    each, overall = _table_specs(ruleset)
    insts = _instances(each, ruleset, prepared)
    insts += _instances(overall, ruleset, prepared)
    return insts, _table_label(ruleset)


@dataclass
class _Variant:
    label: str
    ruleset: object
    prepared: object


def _variant(path: Path, label: str, seed: int | None, overrides: list[str],
             games: int | None = None) -> _Variant:
    rs, _, prep = runner.resolve(path, seed=seed, overrides=overrides, games=games)
    return _Variant(label, rs, prep)


def _label(path: Path, overrides: list[str], seed: int) -> str:
    bits = [path.name] + [f"--set {o}" for o in overrides]
    return " ".join(bits) + f" (seed {seed})"


def _player(v: _Variant, insts: list[Instance], fac: list[Instance] | None = None,
            keep: list[str] | None = None) -> Callable[[int, int], list[Obs]]:
    """``play(start, count)``: each number of ``insts`` on those games; then (``fac``) each
    of the faction table's, on the seats of non-baseline bots; ``play.kept`` collects the
    ``keep`` columns of the seats played."""
    g_cols, s_cols = columns_needed(insts + list(fac or []))
    s_cols = set(s_cols) | set(keep or ()) | ({"bot"} if fac else set())
    baseline = list(v.prepared.baseline_bots or ())

    def play(start: int, count: int) -> list[Obs]:
        gdf, sdf = v.ruleset.run_chunk(v.prepared, start, count)
        gdf = gdf[[c for c in g_cols if c in gdf.columns]]
        sdf = sdf[[c for c in s_cols if c in sdf.columns]]
        if keep:
            play.kept.append(sdf[[c for c in keep if c in sdf.columns]])
        codes = Codes(sdf)
        out = [measure(i, gdf, sdf, codes) for i in insts]
        if fac:
            bal = _without_baseline(sdf, baseline)
            bcodes = Codes(bal) if bal is not sdf else codes
            out += [measure(i, gdf, bal, bcodes) for i in fac]
        return out

    play.kept = []
    return play


def _changed(a: Obs, b: Obs) -> tuple[int, int, float] | None:
    """(clusters whose numerator or denominator differ between A and B, clusters in
    either, max/mean of the denominator per cluster) of one number on paired games; None
    for a spread (its clusters hold several members)."""
    if a.is_spread or b.is_spread:
        return None
    ids = np.union1d(a.ids, b.ids)
    if ids.size == 0:
        return 0, 0, 1.0

    def spread_out(o: Obs) -> tuple[np.ndarray, np.ndarray]:
        y, d = np.zeros(ids.size), np.zeros(ids.size)
        k = np.searchsorted(ids, o.ids)
        y[k], d[k] = o.y, o.d
        return y, d

    (ya, da), (yb, db) = spread_out(a), spread_out(b)
    changed = int(np.count_nonzero((ya != yb) | (da != db)))
    dd = np.maximum(da, db)
    scale = float(dd.max() / dd.mean()) if dd.mean() > 0 else 1.0
    return changed, int(ids.size), scale


def no_change_bound(n: int, alpha: float = 0.05) -> float:
    """Exact (Clopper-Pearson) upper bound on the chance that a game changes when none of
    ``n`` paired games did: ``1 - (alpha/2) ** (1/n)`` (two-sided level ``1 - alpha``; about
    3.7 / n). A share moves by at most one win per changed seat-game, so it bounds |B - A|
    of a share too."""
    return 1.0 - (alpha / 2.0) ** (1.0 / n) if n > 0 else 1.0


def _row(inst: Instance, a: Obs, b: Obs, is_paired: bool) -> DeltaRow:
    p = paired(a, b, is_paired=is_paired)
    row = DeltaRow(inst.spec, inst.member, inst.metric.name, inst.metric.unit, p.value_a,
                   p.value_b, p.est, p.est - _Z95 * p.se, p.est + _Z95 * p.se, p.n)
    got = _changed(a, b) if is_paired else None
    if got is not None:
        row.changed, n, scale = got
        if row.changed == 0 and n > 0:
            row.n = n
            u = no_change_bound(n)
            row.bound_share = 100.0 * u
            if inst.metric.unit == "%":
                row.bound = min(100.0, 100.0 * u * scale)
    return row


def _seat_cols(ruleset) -> list[str]:
    """The seats columns the faction table's verdicts read."""
    return ["game", "seat", "players", ruleset.faction_column, "bot", "win", "fair"]


def _add_party_verdicts(rows: list[DeltaRow], seats_a: pd.DataFrame, seats_b: pd.DataFrame,
                        baseline_a, baseline_b) -> None:
    """A co-operative game's rows (the party's win rate per player count): the rate over
    the target with its Wilson interval and the party verdict (too easy, on target,
    unclear, too hard: :mod:`deepsim.report.party`, band 5 pts) in A and in B. The party's
    result is every seat's ``win`` and the target every seat's ``fair``."""
    from deepsim.report import party as P

    for side, seats, base in (("a", seats_a, baseline_a), ("b", seats_b, baseline_b)):
        if seats is None or seats.empty:
            return
        first = seats[seats["seat"] == 1]
        win = first["win"].to_numpy(dtype=np.float64)
        games = pd.DataFrame({"game": first["game"].to_numpy(),
                              "players": first["players"].to_numpy(), "won": win == 1.0,
                              "target": first["fair"].to_numpy(dtype=np.float64),
                              "truncated": np.isnan(win)})
        judged, _, _ = P.party_games(games, seats, tuple(base or ()))
        by = {r.group.replace(" players", "p"): r
              for r in P.party_rates(judged).itertuples(index=False)}
        for row in rows:
            r = by.get(row.member or "all")
            if r is None or not r.target > 0:
                continue
            setattr(row, f"ratio_{side}", (r.rate / r.target, r.low / r.target,
                                           r.high / r.target))
            setattr(row, f"verdict_{side}", r.verdict)


def _add_verdicts(factions: list[DeltaRow], column: str, seats_a: pd.DataFrame,
                  seats_b: pd.DataFrame, baseline_a, baseline_b,
                  cooperative: bool = False) -> None:
    """Each faction row's x fair, interval and viability verdict in A and in B (baseline
    bots left out, as in the balance report: :mod:`deepsim.report.viability`); a
    co-operative game's rows: :func:`_add_party_verdicts`."""
    from deepsim.report import viability as V

    if cooperative:
        _add_party_verdicts(factions, seats_a, seats_b, baseline_a, baseline_b)
        return
    tabs = []
    for seats, base in ((seats_a, baseline_a), (seats_b, baseline_b)):
        if seats is None or seats.empty or column not in seats.columns:
            return
        kept, _ = V.balance_seats(seats, tuple(base or ()))
        t = V.table(kept, column)
        tabs.append({str(r[column]): r for _, r in t.iterrows()})
    ta, tb = tabs
    for row in factions:
        ra, rb = ta.get(row.member), tb.get(row.member)
        if ra is not None:
            row.ratio_a = (float(ra["ratio"]), float(ra["ratio_low"]), float(ra["ratio_high"]))
            row.verdict_a = str(ra["verdict"])
        if rb is not None:
            row.ratio_b = (float(rb["ratio"]), float(rb["ratio_low"]), float(rb["ratio_high"]))
            row.verdict_b = str(rb["verdict"])


def _without_baseline(seats: pd.DataFrame, baseline) -> pd.DataFrame:
    """The seats of non-baseline bots (the faction table's win shares, as the report's)."""
    if not baseline or "bot" not in seats.columns:
        return seats
    return seats[~seats["bot"].astype(str).isin([str(b) for b in baseline])]


# --- the SPRT ---------------------------------------------------------------------------------

def sequential_test(test: SequentialTest,
                    play: Callable[[int, int], tuple[np.ndarray, ...] | tuple[Obs, Obs]], *,
                    batch: int, scale: float = 1.0, paired_games: bool = True,
                    progress: ProgressFn | None = None
                    ) -> tuple[str, Paired, float, list[tuple[int, float]], int]:
    """Run ``test`` on paired games fed by ``play`` until it decides or reaches its cap.

    Parameters
    ----------
    test : SequentialTest
        Hypotheses, error rates, ``min_n`` (games before any decision) and ``max_n`` (cap).
    play : callable(start, count)
        Games ``start .. start+count-1`` of both variants: either ``(ya, wa, yb, wb)``, each
        variant's per-game numerator and denominator (float64 arrays of length ``count``;
        :func:`deepsim.gate.sprt.paired_difference`, in units times ``scale``), or
        ``(obs_a, obs_b)``, two :class:`~deepsim.measure.values.Obs`.
    batch : int
        Games between two looks at the LLR (the first look is at ``test.min_n``).
    paired_games : bool
        Index ``i`` is the same game in both variants.

    Returns
    -------
    decision, diff, llr, history, games
        ``decision`` "H0", "H1" or "" (the cap was reached first); ``history`` holds
        ``(games, llr)`` at every look.
    """
    parts: list[tuple] = []
    done = 0
    history: list[tuple[int, float]] = []
    decision, llr, diff = "", 0.0, None
    if progress is not None:
        progress(0, test.max_n)
    while done < test.max_n:
        count = min(batch, test.max_n - done)
        if done < test.min_n:
            count = min(max(count, test.min_n - done), test.max_n - done)
        parts.append(tuple(play(done, count)))
        done += count
        if progress is not None:
            progress(done, test.max_n)
        if isinstance(parts[0][0], Obs):
            merged = (concat([p[0] for p in parts]), concat([p[1] for p in parts]))
            diff = paired(*merged, is_paired=paired_games)
        else:
            merged = tuple(np.concatenate([np.asarray(p[i], dtype=np.float64) for p in parts])
                           for i in range(4))
            diff = paired_difference(*merged, scale=scale, paired=paired_games)
        parts = [merged]
        llr = test.llr(diff.est, diff.se, diff.n)
        history.append((done, llr))
        decision = test.decide(llr, done)
        if decision in (H0, H1):
            break
    assert diff is not None
    return decision, diff, llr, history, done


@dataclass(frozen=True)
class SprtPlan:
    """The sequential test of ``deepsim compare --sprt H0 H1`` (its flags ``--alpha``,
    ``--beta``, ``--min-games``, ``--max-games``, ``--batch`` in one object).

    Attributes
    ----------
    theta0, theta1 : float or str or None
        H0 and H1 in the metric's unit of a difference (percentage points for shares:
        ``2``, ``'2pp'``, ``'2%'``); both None: no sequential test (a fixed-sample
        comparison; the game counts are still checked).
    alpha, beta : float
        Error rates: P(accept H1 | H0), P(accept H0 | H1).
    min_games, max_games : int
        Paired games before the first decision, and the budget (then inconclusive).
    batch : int or None
        Games between two looks at the LLR (None: the scenario's chunk size, at most
        ``max(min_games, 1000)``).
    """

    theta0: float | str | None
    theta1: float | str | None
    alpha: float = 0.05
    beta: float = 0.05
    min_games: int = 2000
    max_games: int = 200_000
    batch: int | None = None


def run_compare(a: Path | str, b: Path | str | None = None, *, metric: str | None,
                sets: list[str] | None = None, sets_a: list[str] | None = None,
                sets_b: list[str] | None = None, seed: int | None = None,
                seed_b: int | None = None, plan: SprtPlan | None = None,
                games: int | None = None, threads: int | None = None,
                progress: ProgressFn | None = None) -> CompareResult:
    """Compare two variants on paired games: the SPRT of H0 ``B - A == theta0`` against H1
    ``B - A == theta1`` when both are given, else a fixed-sample comparison of ``games``
    paired games (see the module docstring).

    Parameters
    ----------
    a, b : Path
        Scenario files; ``b`` defaults to ``a`` (then the variants differ by ``sets_a`` /
        ``sets_b``).
    metric : str, optional
        A spec of the metric language; with the SPRT it must name one number, e.g.
        ``'win_share[company=Dvergar Reaver]'``. Optional without the SPRT (the faction
        table alone).
    sets, sets_a, sets_b : list of str
        ``--set`` overrides for both variants, for A only, for B only.
    seed : int, optional
        Seed of both variants (default: A's scenario seed).
    seed_b : int, optional
        A different seed for B: unpaired games (an A/A test of the machinery).
    plan : SprtPlan, optional
        The SPRT's hypotheses, error rates and games; None (or no hypotheses): a
        fixed-sample comparison.
    games : int, optional
        Fixed mode: paired games (default: the scenario's; deals when seats rotate).

    Returns
    -------
    CompareResult
        SPRT: ``decision`` "H0"/"H1", or "" when ``max_games`` was reached first.

    Raises
    ------
    InputError
        Bad scenario, override, metric, hypothesis or count (before any game but a probe).
    """
    t0 = time.perf_counter()
    plan = plan or SprtPlan(None, None)
    theta0, theta1, alpha, beta = plan.theta0, plan.theta1, plan.alpha, plan.beta
    min_games, max_games, batch = plan.min_games, plan.max_games, plan.batch
    sprt = theta0 is not None or theta1 is not None
    if sprt and (theta0 is None or theta1 is None):
        raise InputError("give both hypotheses: --sprt H0 H1", key="--sprt")
    if sprt and not metric:
        raise InputError("name the metric to test, e.g. --metric 'win_share[company=Dvergar "
                         "Reaver]'", key="--metric")
    for name, v in (("--min-games", min_games), ("--max-games", max_games)):
        runner.check_count(v, name, 1)
    if min_games > max_games:
        raise InputError(f"--min-games {min_games} is above --max-games {max_games}",
                         key="--min-games")
    if games is not None:
        runner.check_count(games, "--games", 1)
    runner.set_threads(threads)
    a = Path(a)
    b = Path(b) if b is not None else a
    base = list(sets or [])
    ov_a, ov_b = base + list(sets_a or []), base + list(sets_b or [])
    if seed is None:
        seed = int(runner.load_scenario(a).get("seed", 0))
    seed_b_eff = seed if seed_b is None else seed_b
    va = _variant(a, "A", seed, ov_a, games)
    vb = _variant(b, "B", seed_b_eff, ov_b, games)
    rot_a, rot_b = (v.prepared.scenario.get("rotations") for v in (va, vb))
    if rot_a != rot_b:
        raise InputError(f"A plays {rot_a or 1} and B {rot_b or 1} seat rotation(s) per game "
                         "index: their games cannot be paired (give both the same "
                         "rotate_seats)", file=str(b))
    notes = []
    if a == b and ov_a == ov_b and seed_b is None:
        notes.append("A and B are the same variant on the same games: every paired "
                     "difference is 0 (use --seed-b for an A/A test on other games)")
    is_paired = seed_b is None or seed_b == seed
    insts_a = _instances(metric, va.ruleset, va.prepared) if metric else []
    insts_b = _instances(metric, vb.ruleset, vb.prepared) if metric else []
    if [i.spec for i in insts_a] != [i.spec for i in insts_b]:
        raise InputError(f"A and B resolve {metric!r} to different numbers "
                         f"({len(insts_a)} vs {len(insts_b)})", key="--metric")
    for n in (insts_a[0].extra.get("notes", []) if insts_a else []):
        notes.append(f"--metric: {n}")
    labels = (_label(a, ov_a, seed), _label(b, ov_b, seed_b_eff))
    if sprt:
        inst_a, inst_b = _one(insts_a, metric), _one(insts_b, metric)
        th0, th1 = (_theta(x, inst_a.metric, n) for x, n in ((theta0, "H0"), (theta1, "H1")))
        if th0 == th1:
            raise InputError("H0 and H1 must differ", key="--sprt")
        try:
            test = SequentialTest(th0, th1, alpha, beta, min_games, max_games)
        except ValueError as exc:
            raise InputError(str(exc), key="--alpha") from None
        if batch is None:
            batch = int(min(va.prepared.scenario.get("chunk_size") or 50_000,
                            max(min_games, 1000)))
        runner.check_count(batch, "--batch", 1)
        pa, pb = _player(va, [inst_a]), _player(vb, [inst_b])

        def play(start: int, count: int) -> tuple[Obs, Obs]:
            return pa(start, count)[0], pb(start, count)[0]

        decision, diff, llr, history, done = sequential_test(
            test, play, batch=batch, paired_games=is_paired, progress=progress)
        lower, upper = test.bounds
        return CompareResult(
            metric=inst_a.spec, unit=inst_a.metric.unit, label_a=labels[0],
            label_b=labels[1], mode="sprt", theta0=th0, theta1=th1, alpha=alpha, beta=beta,
            paired=is_paired, games=done, diff=diff, llr=llr, lower=lower, upper=upper,
            model=MODEL, decision=decision, history=history, seeds=(seed, seed_b_eff),
            elapsed_s=time.perf_counter() - t0, notes=notes)
    # fixed mode: the metric's numbers and the faction table on `games` paired games
    fac_a, fac_label = _faction_instances(va.ruleset, va.prepared)
    fac_b, _ = _faction_instances(vb.ruleset, vb.prepared)
    fac_specs_b = {i.spec: k for k, i in enumerate(fac_b)}
    # the prepared count: with rotate_seats, each of `games` deals in every rotation
    total = int(va.prepared.scenario.get("games", 0) or 0)
    chunk = int(min(va.prepared.scenario.get("chunk_size") or 10_000, 10_000))
    all_a, all_b = insts_a + fac_a, insts_b + fac_b
    cols = _seat_cols(va.ruleset)
    pa = _player(va, insts_a, fac_a, keep=cols)
    pb = _player(vb, insts_b, fac_b, keep=cols)
    obs_a: list[list[Obs]] = [[] for _ in all_a]
    obs_b: list[list[Obs]] = [[] for _ in all_b]
    done = 0
    if progress is not None:
        progress(0, total)
    while done < total:
        count = min(chunk, total - done)
        for store, got in ((obs_a, pa(done, count)), (obs_b, pb(done, count))):
            for k, o in enumerate(got):
                store[k].append(o)
        done += count
        if progress is not None:
            progress(done, total)
    ca = [concat(x) for x in obs_a]
    cb = [concat(x) for x in obs_b]
    rows = [_row(i, ca[k], cb[k], is_paired) for k, i in enumerate(insts_a)]
    factions = []
    for k, inst in enumerate(fac_a, start=len(insts_a)):
        j = fac_specs_b.get(inst.spec)
        if j is None:
            continue
        oa, ob = ca[k], cb[len(insts_b) + j]
        if oa.ids.size == 0 and ob.ids.size == 0:
            continue  # a faction neither variant played
        factions.append(_row(inst, oa, ob, is_paired))
    seats_a = pd.concat(pa.kept, ignore_index=True) if pa.kept else None
    seats_b = pd.concat(pb.kept, ignore_index=True) if pb.kept else None
    _add_verdicts([f for f in factions if f.member or va.ruleset.cooperative],
                  va.ruleset.faction_column, seats_a,
                  seats_b, va.prepared.baseline_bots, vb.prepared.baseline_bots,
                  cooperative=va.ruleset.cooperative)
    res = _fixed_result(metric, rows, labels, is_paired, done, (seed, seed_b_eff), notes,
                        factions, fac_label, ca[0] if rows else None,
                        cb[0] if rows else None)
    res.cooperative = bool(va.ruleset.cooperative)
    res.elapsed_s = time.perf_counter() - t0
    return res


def _fixed_result(metric, rows, labels, is_paired, games, seeds, notes, factions, fac_label,
                  oa, ob) -> CompareResult:
    first = rows[0] if rows else None
    diff = paired(oa, ob, is_paired=is_paired) if len(rows) == 1 else None
    unit = first.unit if first else ""
    res = CompareResult(metric=(first.label if len(rows) == 1 else metric or ""), unit=unit,
                        label_a=labels[0], label_b=labels[1], mode="fixed", theta0=None,
                        theta1=None, alpha=0.05, beta=0.05, paired=is_paired, games=games,
                        diff=diff, seeds=seeds, notes=notes,
                        rows=rows if len(rows) > 1 else [], factions=factions,
                        faction_label=fac_label)
    if diff is not None and diff.se > 0:
        res.p_value = float(2.0 * norm.sf(abs(diff.est) / diff.se))
    return res


# --- two finished runs ------------------------------------------------------------------------

@dataclass
class _Run:
    """A finished run's frames and what its metric specs resolve to."""

    games: pd.DataFrame
    seats: pd.DataFrame
    seed: int
    label: str
    rs: object
    universe: object
    baseline: tuple[str, ...] = ()

    def instances(self, spec: str, key: str = "--metric") -> list[Instance]:
        sel = parse_metric_spec(spec, group_columns=self.rs.group_columns, key=key)
        out = expand([sel], self.universe, key_prefix="", target_rounds=target_of(self.rs),
                     key=key)
        for inst in out:
            inst.extra["notes"] = list(sel.notes)
        return out


def _load_run(run_dir: Path) -> _Run:

    info = read_run_json(run_dir)
    manifest = read_manifest(run_dir)
    rs = run_ruleset(info.get("ruleset") or manifest.get("ruleset"), str(run_dir))
    g_have = schema_names(Path(run_dir), manifest, "games")
    s_have = schema_names(Path(run_dir), manifest, "seats")
    games, seats = read_run(run_dir, games_columns=sorted(g_have) if g_have else None,
                            seats_columns=sorted(s_have) if s_have else None)
    scen = info.get("scenario") or {}
    if scen.get("players") is None and "players" in games.columns:
        scen = {**scen, "players": sorted(set(games["players"].astype(int)))}
    uni = universe_from_frames(games, seats, player_counts(scen, seats), rs.group_columns,
                               rs.faction_column)
    seed = int(info.get("seed", -1))
    label = f"{run_dir} ({info.get('scenario_name', '?')}, seed {seed}, {len(games):,} games)"
    return _Run(games, seats, seed, label, rs, uni,
                tuple(str(b) for b in info.get("baseline_bots") or ()))


def _restrict(games: pd.DataFrame, seats: pd.DataFrame, keep: np.ndarray):
    g = games[games["game"].isin(keep)].reset_index(drop=True)
    s = seats[seats["game"].isin(keep)].reset_index(drop=True)
    return g, s


def compare_runs(dir_a: Path | str, dir_b: Path | str, *, metric: str | None,
                 theta0=None, theta1=None, alpha: float = 0.05,
                 beta: float = 0.05) -> CompareResult:
    """Fixed-sample comparison of two finished runs: the metric's numbers and the faction
    table.

    Paired on the common game indices when both runs have the same seed, else unpaired.
    Without hypotheses: the difference, its 95% interval and the two-sided p-value of no
    difference (exit 0). With H0 and H1 (the metric must name one number): H1 is accepted
    when a one-sided level-alpha test rejects H0 towards H1, H0 when a level-beta test
    rejects H1 towards H0, else inconclusive.
    """
    t0 = time.perf_counter()
    if (theta0 is None) != (theta1 is None):
        raise InputError("give both hypotheses: --sprt H0 H1", key="--sprt")
    ra = _load_run(Path(dir_a))
    # a run against itself (a baseline's own noise, every metric's zero change): read once
    rb = ra if Path(dir_b).resolve() == Path(dir_a).resolve() else _load_run(Path(dir_b))
    m_a = ra.instances(metric) if metric else []
    m_b = rb.instances(metric) if metric else []
    if [i.spec for i in m_a] != [i.spec for i in m_b]:
        raise InputError(f"the runs resolve {metric!r} differently "
                         f"({', '.join(i.spec for i in m_a[:3])} vs "
                         f"{', '.join(i.spec for i in m_b[:3])})", key="--metric")
    is_paired = ra.seed == rb.seed
    notes = []
    ga, sa_, gb, sb_ = ra.games, ra.seats, rb.games, rb.seats
    if is_paired:
        common = np.intersect1d(ga["game"].to_numpy(), gb["game"].to_numpy())
        if common.size < 2:
            raise InputError("the runs share the seed but fewer than 2 game indices",
                             file=str(dir_b))
        ga, sa_ = _restrict(ga, sa_, common)
        gb, sb_ = _restrict(gb, sb_, common)
        notes.append(f"paired on {common.size:,} common games (same seed {ra.seed})")
        games = int(common.size)
    else:
        notes.append(f"different seeds ({ra.seed}, {rb.seed}): two independent samples")
        games = len(ga) + len(gb)
    for n in (m_a[0].extra.get("notes", []) if m_a else []):
        notes.append(f"--metric: {n}")
    oa = [measure(i, ga, sa_) for i in m_a]
    ob = [measure(i, gb, sb_) for i in m_b]
    rows = [_row(i, oa[k], ob[k], is_paired) for k, i in enumerate(m_a)]
    factions = []
    each, overall = _table_specs(ra.rs)
    fa = ra.instances(each, "faction table") + ra.instances(overall, "faction table")
    fb = {i.spec: i for i in rb.instances(_table_specs(rb.rs)[0], "faction table")}
    spread_b = rb.instances(_table_specs(rb.rs)[1], "faction table")[0]
    ka, kb = _without_baseline(sa_, ra.baseline), _without_baseline(sb_, rb.baseline)
    for inst in fa:
        other = spread_b if inst.spec == spread_b.spec else fb.get(inst.spec)
        if other is None:
            continue
        x, y = measure(inst, ga, ka), measure(other, gb, kb)
        if x.ids.size == 0 and y.ids.size == 0:
            continue
        factions.append(_row(inst, x, y, is_paired))
    _add_verdicts([f for f in factions if f.member or ra.rs.cooperative],
                  ra.rs.faction_column, sa_, sb_,
                  ra.baseline, rb.baseline, cooperative=ra.rs.cooperative)
    la, lb, seed_a, seed_b, rs_a = ra.label, rb.label, ra.seed, rb.seed, ra.rs
    res = _fixed_result(metric, rows, (la, lb), is_paired, games, (seed_a, seed_b), notes,
                        factions, _table_label(rs_a), oa[0] if rows else None,
                        ob[0] if rows else None)
    res.alpha, res.beta = alpha, beta
    res.cooperative = bool(rs_a.cooperative)
    if theta0 is not None:
        if len(m_a) != 1:
            _one(m_a, metric or "")
        th0, th1 = (_theta(x, m_a[0].metric, n) for x, n in ((theta0, "H0"), (theta1, "H1")))
        if th0 == th1:
            raise InputError("H0 and H1 must differ", key="--sprt")
        res.theta0, res.theta1 = th0, th1
        diff = res.diff
        sign = 1.0 if th1 > th0 else -1.0
        if diff.se > 0:
            z0 = sign * (diff.est - th0) / diff.se   # evidence against H0, towards H1
            z1 = sign * (th1 - diff.est) / diff.se   # evidence against H1, towards H0
            if z0 > norm.isf(alpha):
                res.decision = "H1"
            elif z1 > norm.isf(beta):
                res.decision = "H0"
            res.llr = glr_llr(diff.est, diff.se, diff.n, th0, th1)
            res.p_value = float(2.0 * norm.sf(abs(diff.est - th0) / diff.se))
        res.model = "normal (fixed sample)"
    res.elapsed_s = time.perf_counter() - t0
    return res
