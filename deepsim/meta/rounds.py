"""The rounds of ``deepsim meta``: iterated best response (fictitious play) over factions.

Round 0 is ``deepsim respond``: every faction searches its best response to the scenario's
field as it is, starting from respond's start style. Round ``r >= 1``: every faction
searches its best response to the field of rounds ``0 .. r-1``, in which a seat of faction
F plays, per game, one of F's styles of those rounds drawn with weight ``1/r`` each (a
style kept in several rounds counts once per round: the empirical mixture of fictitious
play, Brown 1951; Robinson 1951). The draw is the kernel's counter-based faction-style
draw (:mod:`deepsim.factionmix`, keyed on the game's stream key and the faction), so the
same game plays the same styles on any thread count. The search starts from F's style of
round ``r-1`` (optuna's trial 0), so a round can only keep or improve it on the search
games.

Each round is confirmed as ``respond`` confirms: F's previous style and its new best
response on the same fresh games in the round's field, the paired change with an interval
at level ``1 - alpha/m`` over the m factions of the round (Bonferroni; Holm's p beside it,
:mod:`deepsim.respond.verdict`). F adopts the new style when its change is positive; a
best response that does worse than its start on the fresh games (the search's winner's
curse) is rejected and F keeps its style. The rounds stop after ``rounds`` rounds, or
earlier when no faction's interval lies above 0 (no confirmed improvement): if no
faction can improve (the field is an equilibrium of the searched styles), the m intervals
all contain 0 together with probability at least ``1 - alpha``, so the rule stops with
probability at least 95% once there; without the correction, 36 factions at 95% each would
almost never all contain 0 even then. Stopping is a failure to find an improvement at this
budget, not a proof that none exists.

Seeds: round ``r`` searches on seed ``S + 2r`` and confirms on ``S + 2r + 1`` (fresh games
every round, so the styles are not fitted to one set of games); every field (the
scenario's and each round's mixture) is measured on the same games of the evaluation seed
(``S + 1000`` by default), so the per-round spread is compared on common random numbers.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from deepsim.report import viability as V
from deepsim.respond.play import Field
from deepsim.respond.search import (
    SearchResult,
    Settings,
    faction_games,
    field_ratio,
    run_search,
    slug,
)

__all__ = ["EVAL_OFFSET", "MetaRun", "Round", "evaluate_field", "mixture_spec", "play_rounds",
           "round_style", "spread_row"]

#: the evaluation seed is the search seed plus this (every field is measured on its games)
EVAL_OFFSET = 1000

#: (done, total, what) -> None
ProgressFn = Callable[[int, int, str], None]


def round_style(faction: str, r: int) -> str:
    """The name of faction ``faction``'s new style of round ``r``: ``golem_born_hierophant_r2``."""
    return f"{slug(faction)}_r{r}"


@dataclass
class Round:
    """One round: the field it responded to, measured, and what the search found."""

    index: int
    field_table: pd.DataFrame     # per faction: ratio in the round's field (evaluation games)
    search: SearchResult
    styles: dict[str, str]        # faction -> its style of this round (new or kept)
    converged: bool               # no adopted change's interval excludes 0
    seconds: float                # the round's wall time (evaluation, search, confirmation)
    eval_seconds: float
    cpu_seconds: float = 0.0      # the process's CPU time in the round (every thread)
    adopted: dict[str, bool] = field(default_factory=dict)   # faction -> new style taken


@dataclass
class MetaRun:
    """Everything the rounds found (see :func:`play_rounds`)."""

    factions: list[str]
    rounds: list[Round]
    final_table: pd.DataFrame     # per faction: ratio in the final mixture field
    history: dict[str, list[str]]            # faction -> style name per round
    styles: dict[str, dict[str, float]]      # every style played: {name: {knob: value}}
    new_styles: set[str]                     # the styles the rounds made (not bots.yaml)
    spec: dict                                # the final mixture as a faction_bots value
    last_spec: dict                           # the last round's styles as one
    stopped: str                              # why the rounds stopped
    eval_seed: int
    eval_games: int
    games_played: int = 0
    final_eval_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


def mixture_spec(base: dict | None, history: dict[str, list[str]],
                 styles: dict[str, dict[str, float]], named: set[str], *,
                 last_only: bool = False) -> dict:
    """The ``faction_bots`` value of a field of rounds: every faction of ``history`` draws
    its styles of the rounds so far with weight (rounds it played the style) / (rounds);
    ``last_only``: its last round's style alone. Factions and styles of the scenario's own
    ``faction_bots`` (``base``, as its ruleset resolved it) are kept for the factions not
    in ``history``.

    Returns
    -------
    dict
        ``{"styles": {new style: {knob: value}}, "factions": {faction: style or {style:
        weight}}}``; styles of the ruleset's bots.yaml (``named``) are named, not redefined.
    """
    base = base or {}
    out_styles = {n: dict(k) for n, k in base.get("styles", {}).items() if n not in named}
    factions: dict = {f: {s: float(w) for s, w in mix}
                      for f, mix in base.get("factions", {}).items()}
    for f, names in history.items():
        picks = names[-1:] if last_only else names
        count = Counter(picks)
        factions[f] = (picks[0] if len(count) == 1
                       else {s: count[s] / len(picks) for s in dict.fromkeys(picks)})
        for s in count:
            if s not in named:
                out_styles[s] = dict(styles[s])
    used = {s for v in factions.values() for s in ([v] if isinstance(v, str) else v)}
    return {"styles": {n: k for n, k in out_styles.items() if n in used},
            "factions": factions}


def evaluate_field(fld: Field, factions: list[str], seed: int, per: int, alpha: float, *,
                   min_ratio: float = 0.8, max_ratio: float = 1.25,
                   progress: ProgressFn | None = None, label: str = "") -> pd.DataFrame:
    """Each faction's win share over fair share in ``fld`` as it is (baseline bots left out,
    as the report), on the games of ``seed`` until every faction sits in ``per``.

    Returns
    -------
    DataFrame
        One row per faction of ``factions``: ``faction``, ``ratio``, ``low``, ``high`` (95%
        interval, x fair), ``verdict`` (the report's viability rule on the ratio scale:
        :func:`deepsim.report.viability.verdict` with fair share 1, lines
        ``min_ratio`` and ``max_ratio``), ``games``; ``attrs["played"]``: the games
        played.
    """
    p = faction_games(fld, seed, factions, per, keep=True, progress=progress, label=label)
    rows = []
    for f in factions:
        mine = p.seats[p.seats[fld.column].astype(str) == f]["game"].unique()
        seats = p.seats[p.seats["game"].isin(mine)]
        v, lo, hi = field_ratio(fld, f, seats, alpha)
        rows.append({"faction": f, "ratio": v, "low": lo, "high": hi,
                     "games": int(mine.size)})
    out = pd.DataFrame(rows)
    out["verdict"] = V.verdict(out["low"], out["high"], 1.0,
                               V.Lines(alpha=alpha, min_ratio=min_ratio, max_ratio=max_ratio))
    out.attrs["played"] = int(p.played)
    return out


def spread_row(table: pd.DataFrame) -> dict:
    """The spread of a field's faction ratios: min, max, max - min, max / min, standard
    deviation across factions (unweighted) and the count of each verdict."""
    r = table["ratio"].to_numpy(np.float64)
    ok = np.isfinite(r)
    lo, hi = (float(r[ok].min()), float(r[ok].max())) if ok.any() else (math.nan, math.nan)
    counts = table["verdict"].value_counts()
    return {"factions": int(ok.sum()), "min": lo, "max": hi, "spread": hi - lo,
            "max_over_min": hi / lo if lo > 0 else math.inf,
            "sd": float(np.std(r[ok], ddof=1)) if ok.sum() > 1 else math.nan,
            "weakest": str(table.loc[table["ratio"].idxmin(), "faction"]) if ok.any() else "",
            "strongest": str(table.loc[table["ratio"].idxmax(), "faction"]) if ok.any() else "",
            **{k.replace(" ", "_"): int(counts.get(k, 0))
               for k in ("too strong", "not viable", "inconclusive", "viable")}}


def play_rounds(fld0: Field, factions: list[str], settings: Settings, rounds: int, *,
                eval_games: int | None = None, eval_seed: int | None = None,
                progress: ProgressFn | None = None,
                on_round: Callable[[MetaRun], None] | None = None) -> MetaRun:
    """Play up to ``rounds`` rounds of iterated best response (see the module docstring).

    Parameters
    ----------
    fld0 : Field
        The scenario's field (round 0 responds to it).
    factions : list of str
        The factions that respond (the others keep the scenario's bots).
    settings : Settings
        respond's budget per round: trials, games, confirmation games, sampler seed (round
        ``r`` samples with ``sampler_seed + r``), alpha, viability lines.
    eval_games : int, optional
        Games per faction measuring each field (default: the confirmation games).
    on_round : callable, optional
        Called with the run so far after each round (to write it as it comes).

    Raises
    ------
    InputError
        A bad setting, a faction that does not sit in the field (before the first trial).
    """
    settings.check()
    seed = fld0.seed
    per_eval = eval_games or settings.confirm_games or 10 * settings.games
    eval_seed = seed + EVAL_OFFSET if eval_seed is None else int(eval_seed)
    named = set(fld0.bot_data.styles)
    base = fld0.resolved_bots
    history: dict[str, list[str]] = {f: [] for f in factions}
    styles: dict[str, dict[str, float]] = {n: dict(s.knobs)
                                           for n, s in fld0.bot_data.styles.items()}
    for n, k in (base or {}).get("styles", {}).items():
        styles.setdefault(n, dict(k))
    new: set[str] = set()
    done: list[Round] = []
    fld = fld0
    stopped = f"at the most rounds asked for (--rounds {rounds})"
    played = 0
    run = None
    for r in range(rounds):
        t0, c0 = time.perf_counter(), time.process_time()
        label = "the scenario's field" if r == 0 else f"the field of rounds 0-{r - 1}"
        ft = evaluate_field(fld, factions, eval_seed, per_eval, settings.alpha,
                            min_ratio=settings.min_ratio, max_ratio=settings.max_ratio,
                            progress=progress, label=f"round {r}: measure {label}")
        t_eval = time.perf_counter() - t0
        starts = (None if r == 0 else
                  {f: (history[f][-1], dict(styles[history[f][-1]])) for f in factions})
        res = run_search(fld, factions, replace(settings, sampler_seed=settings.sampler_seed
                                                + r),
                         progress=progress, starts=starts, search_seed=seed + 2 * r,
                         confirm_seed=seed + 2 * r + 1,
                         style_name=lambda f, r=r: round_style(f, r))
        picked, adopted = {}, {}
        gains = res.table.set_index("faction")
        for c in res.confirmed:
            # the search's winner is adopted unless the fresh games say it is worse than
            # the style it started from (a winner's curse of the search games)
            take = c.best_trial != 0 and float(gains.loc[c.faction, "gain"]) > 0
            if take:
                name = round_style(c.faction, r)
                styles[name] = dict(c.best_knobs)
                new.add(name)
            else:
                name = c.start
                styles.setdefault(name, dict(c.start_knobs))
                if name not in named:
                    new.add(name)
            history[c.faction].append(name)
            picked[c.faction] = name
            adopted[c.faction] = take
        t = res.table
        # a change: adopted, and its interval above 0 (a rejected one changes nothing)
        converged = not bool((t["gain_low"] > 0).any())
        played += (ft.attrs.get("played", 0) + res.search_pass.played + res.confirm_pass.played
                   + len(factions) * settings.trials * settings.games
                   + sum(c.games * (1 if c.best_trial == 0 else 2) for c in res.confirmed))
        done.append(Round(r, ft, res, picked, converged, round(time.perf_counter() - t0, 2),
                          round(t_eval, 2), round(time.process_time() - c0, 2), adopted))
        fld = fld0.with_bots(mixture_spec(base, history, styles, named))
        run = MetaRun(factions, done, pd.DataFrame(), history, styles, new,
                      mixture_spec(base, history, styles, named),
                      mixture_spec(base, history, styles, named, last_only=True), stopped,
                      eval_seed, per_eval, played)
        if converged:
            run.stopped = stopped = (f"after round {r}: no {fld0.ruleset.faction_label}'s "
                                     "change has an interval above 0")
        if on_round is not None:
            on_round(run)
        if converged:
            break
    assert run is not None
    t0 = time.perf_counter()
    run.final_table = evaluate_field(fld, factions, eval_seed, per_eval, settings.alpha,
                                     min_ratio=settings.min_ratio,
                                     max_ratio=settings.max_ratio, progress=progress,
                                     label="measure the final field")
    run.final_eval_seconds = round(time.perf_counter() - t0, 2)
    run.games_played += run.final_table.attrs.get("played", 0)
    return run
