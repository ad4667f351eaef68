"""The best-response search of ``deepsim respond``: is a faction weak, or is its bot?

For each faction F of a scenario (DEEPFALL: a company; Atlantis: a side; any ruleset: a
value of its ``faction_column``):

1. **Games where F plays.** The scenario is played as it is from game 0 of the search seed,
   in blocks of games, until every faction of the field sits in at least ``games`` of them
   (whichever were asked for: the pass, and so each faction's result, is the same with
   ``--all`` as alone). F's search games are the first ``games`` game indices it sits in;
   the field's styles are compared on the whole pass.
2. **Search.** Every seat of F plays one style (``faction_bots``: the scenario's other
   seats are unchanged): the start style (``--style``; else the style the scenario's own
   ``faction_bots`` gives F; else the field's strongest non-baseline style: the highest
   win share over fair share on the search pass), with each searchable knob
   of the ruleset's bot data drawn within its bounds by optuna's TPE sampler (seeded: the
   same trials every time). Trial 0 is the start style itself; every trial plays F's same
   search games (common random numbers); a trial's value is F's win share over fair share
   (``win_ratio[faction=F]``, baseline bots left out as in the report).
3. **Confirmation.** The start style and the best trial's knobs are played on F's first
   ``confirm_games`` games of an independent seed (default the search seed + 1), the same
   games for both: their ratios with 95% intervals, and the paired gain with its interval
   (:mod:`deepsim.measure`'s paired difference), corrected over the factions of the run
   (:mod:`deepsim.respond.verdict`), and the verdict.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from deepsim.botdata import split_baseline
from deepsim.errors import InputError
from deepsim.factionbots import match_name, norm_name
from deepsim.measure import METRICS, Instance, Selection, estimate_obs, measure, paired
from deepsim.respond.play import Field
from deepsim.respond.verdict import coop_verdict, family_gains, verdict
from deepsim.stats import resolved_seats

__all__ = ["PASS_BLOCK", "Confirmed", "Settings", "faction_games", "field_ratio",
           "resolve_factions", "run_search", "slug", "start_style"]

#: games per block (at most) of the passes that find the games each faction sits in
PASS_BLOCK = 10_000
#: a pass stops after this many times ``games`` games even if a faction asked for is short
PASS_CAP = 400

#: (done, total, what) -> None
ProgressFn = Callable[[int, int, str], None]


@dataclass
class Settings:
    """The budget and thresholds of a search (the CLI's options)."""

    trials: int = 30
    games: int = 4000
    confirm_games: int | None = None
    confirm_seed: int | None = None
    sampler_seed: int = 0
    style: str | None = None
    alpha: float = 0.05
    min_ratio: float = 0.8      # the report's viability.min_ratio / max_ratio
    max_ratio: float = 1.25     # (deepsim.report.viability.DEFAULT)
    coop_band: float = 0.05     # a co-operative game's band around its target, a share
                                # (the report's coop.band / 100)

    def check(self) -> None:
        """Raise InputError for a count or threshold out of range (before any game)."""
        def count(value, key, minimum):
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise InputError(f"expected a whole number >= {minimum}, got {value!r}",
                                 key=key)
        count(self.trials, "--trials", 1)
        count(self.games, "--games", 1)
        if self.confirm_games is not None:
            count(self.confirm_games, "--confirm-games", 1)
        if self.confirm_seed is not None:
            count(self.confirm_seed, "--confirm-seed", 0)
        count(self.sampler_seed, "--sampler-seed", 0)
        if not 0 < self.alpha < 1:
            raise InputError(f"expected a level in (0, 1), got {self.alpha}", key="--alpha")
        if not 0 < self.min_ratio < self.max_ratio:
            raise InputError(f"expected 0 < --min-ratio < --max-ratio, got {self.min_ratio} "
                             f"and {self.max_ratio}", key="--max-ratio")
        if not 0 < self.coop_band < 1:
            raise InputError(f"expected a band in (0, 100) points, got "
                             f"{100 * self.coop_band:g}", key="--coop-band")


def slug(name: str) -> str:
    """A faction's name as a style name: ``Golem-born Hierophant`` -> ``golem_born_hierophant``."""
    s = re.sub(r"[^A-Za-z0-9]+", "_", str(name)).strip("_").lower()
    return s if s and s[0].isalpha() else f"f_{s}"


def resolve_factions(field: Field, names: list[str] | None, every: bool) -> list[str]:
    """The factions asked for, spelled as the ruleset spells them.

    ``--all``: every faction of the ruleset that is not a baseline style (where factions
    are bot styles, Abyss); the pass then keeps only those that sit in the field.

    Raises
    ------
    InputError
        Neither or both of ``--faction`` and ``--all``; an unknown name (with the nearest).
    """
    if every and names:
        raise InputError("give --faction NAME ... or --all, not both", key="--all")
    if not every and not names:
        raise InputError(f"name a {field.ruleset.faction_label} with --faction NAME "
                         f"(repeatable) or give --all", key="--faction")
    if every:
        base = {norm_name(b) for b in field.bot_data.baseline_styles}
        return [f for f in field.factions if norm_name(f) not in base]
    out = []
    for n in names or []:
        f = match_name(n, field.factions, what=field.ruleset.faction_label, key="--faction")
        if f not in out:
            out.append(f)
    return out


@dataclass
class Pass:
    """What a pass over the scenario as it is found."""

    seed: int
    played: int
    games: dict[str, np.ndarray]         # faction asked for -> its first `per` game indices
    counts: dict[str, int]               # faction -> games it sits in (all played)
    seats: pd.DataFrame | None = None    # the pass's seats (when kept)


def faction_games(field: Field, seed: int, factions: list[str], per: int, *,
                  keep: bool = False, progress: ProgressFn | None = None,
                  label: str = "") -> Pass:
    """Play the scenario as it is from game 0 of ``seed``, in blocks of
    ``min(PASS_BLOCK, per)`` games, until every faction seen sits in ``per`` of them;
    return each asked-for faction's first ``per`` game indices.

    The stopping rule looks at every faction of the field, not only those asked for, so a
    faction's games (and the pass) do not depend on which others were asked for.

    Raises
    ------
    InputError
        A faction asked for still short after ``PASS_CAP x per`` games (it does not sit
        in this scenario's field, or too rarely), or absent from every game played so far
        when its 95% upper bound share (exact, zero successes) times the cap is below
        ``per``.
    """
    variant = field.variant(seed=seed)
    col = field.column
    found: dict[str, list[np.ndarray]] = {f: [] for f in factions}
    counts: dict[str, int] = {}
    kept: list[pd.DataFrame] = []
    block = min(PASS_BLOCK, per)
    start = 0
    cap = PASS_CAP * per
    while True:
        idx = np.arange(start, start + block, dtype=np.int64)
        _, seats = field.play(variant, idx, seats_columns={col, "bot", "win", "fair"},
                              games_columns=set())
        if keep:
            kept.append(seats)
        fac = seats[col].astype(str).to_numpy()
        game = seats["game"].to_numpy()
        for f in np.unique(fac):
            g = np.unique(game[fac == f])
            counts[str(f)] = counts.get(str(f), 0) + int(g.size)
            if str(f) in found:
                found[str(f)].append(g)
        start += block
        short = [f for f in dict.fromkeys([*factions, *counts]) if counts.get(f, 0) < per]
        if progress is not None:
            have = min(counts.get(f, 0) for f in dict.fromkeys([*factions, *counts]))
            progress(start, start + (block if short else 0),
                     f"{label}: fewest {min(have, per):,}/{per:,}")
        if not short:
            break
        # A faction absent from every game so far: with 95% confidence it sits in a share
        # of games below 1 - 0.05**(1/start) (the exact one-sided bound for zero successes;
        # "rule of three"); when even that share would not give it `per` games within the
        # cap, say so now instead of playing the cap out.
        absent = [f for f in factions if counts.get(f, 0) == 0]
        if absent and (1.0 - 0.05 ** (1.0 / start)) * cap < per:
            shown = ", ".join(absent[:5])
            raise InputError(f"{shown}: never seated in the first {start:,} games of seed "
                             f"{seed} (so, with 95% confidence, in too few games to reach "
                             f"{per:,} within {cap:,}); a faction the scenario's field never "
                             f"or rarely seats cannot be searched here", key="--faction")
        if start >= cap:
            missing = [f for f in factions if counts.get(f, 0) < per]
            if not missing:
                break
            shown = ", ".join(f"{f} ({counts.get(f, 0):,})" for f in missing[:5])
            raise InputError(f"after {start:,} games of seed {seed}, these sit in fewer "
                             f"than {per:,}: {shown}; a faction the scenario's field never "
                             f"or rarely seats cannot be searched here", key="--faction")
    games = {f: np.concatenate(found[f])[:per] if found[f] else np.zeros(0, np.int64)
             for f in factions}
    seats = pd.concat(kept, ignore_index=True) if kept else None
    return Pass(seed, start, games, counts, seats)


def _instance(column: str, faction: str) -> Instance:
    return Instance(position=0, selection=Selection(metric="win_ratio"),
                    metric=METRICS["win_ratio"], by=column, groups=(faction,))


def _ratio_obs(field: Field, faction: str, games: pd.DataFrame, seats: pd.DataFrame):
    """The faction's win-over-fair observations, baseline bots left out (as the report)."""
    kept, _ = split_baseline(seats, field.baseline)
    return measure(_instance(field.column, faction), games, kept)


def strongest_style(field: Field, seats: pd.DataFrame, alpha: float) -> tuple[str, pd.DataFrame]:
    """The non-baseline style of the ruleset's bots with the highest win share over fair
    share among the field's seats (baseline bots left out); and the table of every style.

    Raises
    ------
    InputError
        No non-baseline style of the ruleset's bots plays in the field.
    """
    kept, _ = split_baseline(seats, field.baseline)
    kept = resolved_seats(kept)              # unresolved games: neither won nor lost
    rows = []
    for style, s in field.bot_data.styles.items():
        if s.baseline:
            continue
        mask = kept["bot"].astype(str) == style
        if not mask.any():
            continue
        wins, fair = float(kept.loc[mask, "win"].sum()), float(kept.loc[mask, "fair"].sum())
        rows.append({"style": style, "seat_games": int(mask.sum()),
                     "ratio": wins / fair if fair > 0 else math.nan})
    table = pd.DataFrame(rows, columns=["style", "seat_games", "ratio"])
    if table.empty:
        named = [n for n, s in field.bot_data.styles.items() if not s.baseline]
        raise InputError(f"no style of the ruleset's bots but baselines plays in this field; "
                         f"name one with --style ({', '.join(named)})", key="--style")
    best = table.sort_values(["ratio", "style"], ascending=[False, True]).iloc[0]
    return str(best["style"]), table


def strongest_by_faction(field: Field, seats: pd.DataFrame, overall: str,
                         min_seat_games: int = 50) -> tuple[dict[str, str], pd.DataFrame]:
    """Per faction, its strongest heuristic in the field: of the non-baseline styles of
    the ruleset's bots that do not search (no ``rollouts`` knob above 0), the one with the
    highest win share over fair share among that faction's seats (baseline bots left out);
    ``overall`` (the field's strongest style) for a faction none of whose styles has
    ``min_seat_games`` seat-games there. Returns ``{faction: style}`` and the table of
    every (faction, style): seat-games and win over fair.
    """
    kept, _ = split_baseline(seats, field.baseline)
    heur = [n for n, s in field.bot_data.styles.items()
            if not s.baseline and s.knobs.get("rollouts", 0) <= 0]
    col = field.column
    k = kept[kept["bot"].astype(str).isin(heur)]
    g = k.groupby([k[col].astype(str), k["bot"].astype(str)])
    table = pd.DataFrame({"seat_games": g.size(), "wins": g["win"].sum(),
                          "fair": g["fair"].sum()}).reset_index()
    table.columns = ["faction", "style", "seat_games", "wins", "fair"]
    table["ratio"] = table["wins"] / table["fair"].where(table["fair"] > 0)
    out = {}
    for f in field.factions:
        t = table[(table["faction"] == str(f)) & (table["seat_games"] >= min_seat_games)]
        t = t.dropna(subset=["ratio"])
        out[str(f)] = (str(t.sort_values(["ratio", "style"], ascending=[False, True])
                           .iloc[0]["style"]) if len(t) else overall)
    return out, table[["faction", "style", "seat_games", "ratio"]]


@dataclass
class Confirmed:
    """One faction's result."""

    faction: str
    start: str                   # the start style's name
    start_knobs: dict[str, float]
    best_knobs: dict[str, float]
    best_trial: int
    search_value: float          # the best trial's value on the search games
    default: tuple[float, float, float]     # the start style's default knobs: value, low,
    #                                         high (x fair), on the confirmation games
    best: tuple[float, float, float]
    gain: float
    gain_se: float
    games: int                   # confirmation games (F sits in each)
    field_ratio: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    extra: dict = field(default_factory=dict)


def _knob_params(knobs: dict[str, float], searchable) -> dict:
    """A style's knob values as optuna parameters of the searchable knobs."""
    out = {}
    for k in searchable:
        v = float(knobs[k.name])
        out[k.name] = round(v) if k.type in ("int", "bool") else v
    return out


def search_faction(field: Field, faction: str, games: np.ndarray, start: tuple[str, dict],
                   settings: Settings, *, seed: int, progress: ProgressFn | None = None,
                   done: int = 0, total: int = 0, name: str | None = None
                   ) -> tuple[list[dict], dict[str, float], int]:
    """optuna trials for one faction on its search games (common random numbers).

    ``name`` is the new style's name (default ``<faction>_br``).

    Returns (one row per trial, the best trial's knobs, its number).
    """
    import optuna

    searchable = field.bot_data.searchable()
    dists = {k.name: k.distribution() for k in searchable}
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.TPESampler(seed=settings.sampler_seed))
    start_name, start_knobs = start
    study.enqueue_trial(_knob_params(start_knobs, searchable))
    name = name or f"{slug(faction)}_br"
    rows = []
    for t in range(settings.trials):
        t0 = time.perf_counter()
        trial = study.ask(dists)
        knobs = dict(start_knobs)
        knobs.update({k: float(v) for k, v in trial.params.items()})
        is_start = t == 0
        style = (start_name, start_knobs) if is_start else (name, knobs)
        variant = field.variant({faction: style}, seed=seed)

        def tick(count: int, t=t) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, total, f"{faction}: trial {t + 1}/{settings.trials}")

        g, s = field.play(variant, games, seats_columns={field.column, "bot", "win", "fair"},
                          games_columns=set(), progress=tick)
        est = estimate_obs(_ratio_obs(field, faction, g, s), settings.alpha)
        value = float(est.value)
        study.tell(trial, value if math.isfinite(value) else float("-inf"))
        row = {"faction": faction, "trial": t, "start": is_start,
               "style": start_name if is_start else name, "value": value,
               "low": float(est.low), "high": float(est.high), "games": int(games.size),
               "seconds": round(time.perf_counter() - t0, 3)}
        row.update({k: float(knobs[k]) for k in field.bot_data.knobs})
        rows.append(row)
    frame = pd.DataFrame(rows)
    best = frame.sort_values(["value", "trial"], ascending=[False, True],
                             kind="stable").iloc[0]
    best_knobs = {k: float(best[k]) for k in field.bot_data.knobs}
    return rows, best_knobs, int(best["trial"])


def confirm_faction(field: Field, faction: str, games: np.ndarray, start: tuple[str, dict],
                    best_knobs: dict[str, float], best_trial: int, settings: Settings, *,
                    seed: int, progress: ProgressFn | None = None, done: int = 0,
                    total: int = 0, name: str | None = None
                    ) -> tuple[tuple, tuple, float, float]:
    """Play the start style and the best knobs (as the style ``name``, default
    ``<faction>_br``) on the same confirmation games.

    Returns (the start style's (value, low, high), the best's (value, low, high), gain, its
    standard error).
    """
    count = [done]

    def tick(n: int, what: str) -> None:
        count[0] += n
        if progress is not None:
            progress(count[0], total, f"{faction}: confirm {what}")

    cols = {field.column, "bot", "win", "fair"}
    va = field.variant({faction: start}, seed=seed)
    ga, sa = field.play(va, games, seats_columns=cols, games_columns=set(),
                        progress=lambda n: tick(n, start[0]))
    oa = _ratio_obs(field, faction, ga, sa)
    if best_trial == 0:  # the start style is the best found: the same games, no gain
        ob = oa
    else:
        vb = field.variant({faction: (name or f"{slug(faction)}_br", best_knobs)}, seed=seed)
        gb, sb = field.play(vb, games, seats_columns=cols, games_columns=set(),
                            progress=lambda n: tick(n, "best response"))
        ob = _ratio_obs(field, faction, gb, sb)
    ea, eb = estimate_obs(oa, settings.alpha), estimate_obs(ob, settings.alpha)
    if best_trial == 0:
        gain, se = 0.0, 0.0
    else:
        d = paired(oa, ob)
        gain, se = float(d.est), float(d.se)
    return ((float(ea.value), float(ea.low), float(ea.high)),
            (float(eb.value), float(eb.low), float(eb.high)), gain, se)


def start_style(field: Field, faction: str, settings: Settings, strongest: str | None
                ) -> tuple[str, dict[str, float]]:
    """The style the search starts from (see the module docstring).

    Raises
    ------
    InputError
        An unknown or baseline ``--style`` (with the nearest names).
    """
    bd = field.bot_data
    if settings.style is not None:
        name = match_name(settings.style, list(bd.styles), what="style", key="--style")
        if bd.styles[name].baseline:
            raise InputError(f"'{name}' is a baseline style (a yardstick, not a player); "
                             "name another", key="--style")
        return name, dict(bd.styles[name].knobs)
    own = (field.resolved_bots or {}).get("factions", {}).get(faction)
    if own and len(own) == 1:
        name = own[0][0]
        return name, dict(field.resolved_bots["styles"][name])
    # where the factions are bot styles (Abyss), a faction starts from its own style
    if faction in bd.styles and not bd.styles[faction].baseline:
        return faction, dict(bd.styles[faction].knobs)
    assert strongest is not None
    return strongest, dict(bd.styles[strongest].knobs)


@dataclass
class SearchResult:
    """Everything a search found (see :func:`run_search`)."""

    factions: list[str]
    trials: pd.DataFrame
    confirmed: list[Confirmed]
    table: pd.DataFrame           # one row per faction: the confirmation and the verdict
    styles_table: pd.DataFrame    # the field's styles on the search pass
    strongest: str | None
    search_pass: Pass
    confirm_pass: Pass
    seconds: dict[str, float]


def run_search(field: Field, factions: list[str], settings: Settings, *,
               progress: ProgressFn | None = None,
               on_faction: Callable[[pd.DataFrame], None] | None = None,
               starts: dict[str, tuple[str, dict[str, float]]] | None = None,
               search_seed: int | None = None, confirm_seed: int | None = None,
               style_name: Callable[[str], str] | None = None) -> SearchResult:
    """Search and confirm a best response for each faction (see the module docstring).

    ``on_faction(trials)`` is called with every trial so far after each faction's search
    (to write them as they come). ``starts`` (``{faction: (style name, {knob: value})}``)
    gives factions their start style instead of :func:`start_style` (``deepsim meta``
    starts each round from the previous round's style); ``search_seed`` (default the
    field's seed) and ``confirm_seed`` (default ``settings.confirm_seed``, else the search
    seed + 1) replace the seeds; ``style_name(faction)`` names a best response's new style
    (default ``<faction>_br``).

    Raises
    ------
    InputError
        A bad setting, a faction that does not sit in the field, an unknown ``--style``.
    """
    settings.check()
    t0 = time.perf_counter()
    per = settings.games
    confirm_per = settings.confirm_games or 10 * per
    search_seed = field.seed if search_seed is None else int(search_seed)
    if confirm_seed is None:
        confirm_seed = (settings.confirm_seed if settings.confirm_seed is not None
                        else search_seed + 1)
    starts = dict(starts or {})
    if confirm_seed == search_seed:
        raise InputError("the confirmation seed must differ from the search seed (fresh "
                         "games)", key="--confirm-seed")
    if settings.style is not None:
        start_style(field, factions[0], settings, None)   # an unknown --style fails now
    sp = faction_games(field, search_seed, factions, per, keep=True, progress=progress,
                       label=f"search pass, seed {search_seed}")
    strongest, styles_table = None, pd.DataFrame(columns=["style", "seat_games", "ratio"])
    if sp.seats is not None:
        try:
            strongest, styles_table = strongest_style(field, sp.seats, settings.alpha)
        except InputError:
            if settings.style is None and any(
                    start_style_needs_strongest(field, f) for f in factions
                    if f not in starts):
                raise
    t_pass = time.perf_counter()
    cp = faction_games(field, confirm_seed, factions, confirm_per, progress=progress,
                       label=f"confirm pass, seed {confirm_seed}")
    t_cpass = time.perf_counter()
    all_rows: list[dict] = []
    confirmed: list[Confirmed] = []
    total = len(factions) * (settings.trials * per + 2 * confirm_per)
    done = 0
    for f in factions:
        start = starts[f] if f in starts else start_style(field, f, settings, strongest)
        name = style_name(f) if style_name is not None else f"{slug(f)}_br"
        rows, best_knobs, best_trial = search_faction(
            field, f, sp.games[f], start, settings, seed=search_seed, progress=progress,
            done=done, total=total, name=name)
        done += settings.trials * per
        all_rows += rows
        if on_faction is not None:
            on_faction(pd.DataFrame(all_rows))
        default, best, gain, se = confirm_faction(
            field, f, cp.games[f], start, best_knobs, best_trial, settings,
            seed=confirm_seed, progress=progress, done=done, total=total, name=name)
        done += 2 * confirm_per
        ctx = field_ratio(field, f, sp.seats, settings.alpha)
        confirmed.append(Confirmed(f, start[0], start[1], best_knobs, best_trial,
                                   float(rows[best_trial]["value"]), default, best, gain, se,
                                   int(cp.games[f].size), ctx))
    t_search = time.perf_counter()
    target = (field.ruleset.target_win_rate(field.prepared.params, source=field.source)
              if field.ruleset.cooperative else None)
    table = result_table(confirmed, settings, target=target)
    trials = pd.DataFrame(all_rows)
    return SearchResult(factions, trials, confirmed, table, styles_table, strongest, sp, cp,
                        {"search_pass": round(t_pass - t0, 2),
                         "confirm_pass": round(t_cpass - t_pass, 2),
                         "trials_and_confirmation": round(t_search - t_cpass, 2),
                         "total": round(t_search - t0, 2)})


def start_style_needs_strongest(field: Field, faction: str) -> bool:
    """True when a faction's start style would be the field's strongest (no own style)."""
    own = (field.resolved_bots or {}).get("factions", {}).get(faction)
    if own and len(own) == 1:
        return False
    bd = field.bot_data
    return not (faction in bd.styles and not bd.styles[faction].baseline)


def field_ratio(field: Field, faction: str, seats: pd.DataFrame | None, alpha: float
                 ) -> tuple[float, float, float]:
    """The faction's ratio in the scenario's field as it is (its seats' own bots; baseline
    bots left out), on the search pass: context, not part of the verdict."""
    if seats is None or seats.empty:
        return (math.nan, math.nan, math.nan)
    games = pd.DataFrame({"game": np.unique(seats["game"].to_numpy())})
    est = estimate_obs(_ratio_obs(field, faction, games, seats), alpha)
    return (float(est.value), float(est.low), float(est.high))


def result_table(confirmed: list[Confirmed], settings: Settings, *,
                 target: float | None = None) -> pd.DataFrame:
    """One row per faction: its ratio in the field, the start style's default knobs' and
    the best response's on the confirmation games (x fair, 95% intervals), each with its
    viability verdict (:mod:`deepsim.report.viability`), the family-corrected gain and
    the respond verdict (:func:`deepsim.respond.verdict.verdict`).

    With ``target`` (a co-operative game's target win rate, a share) the ratios are the
    party's win rate over the target and every verdict is in the party's words
    (:func:`deepsim.report.party.verdict`, :func:`deepsim.respond.verdict.coop_verdict`,
    band ``settings.coop_band``); the table gains the columns ``target`` and ``band``
    (shares)."""
    from deepsim.report import party
    from deepsim.report import viability as V

    lines = V.Lines(alpha=settings.alpha, min_ratio=settings.min_ratio,
                    max_ratio=settings.max_ratio)
    band = settings.coop_band

    def word(low: float, high: float) -> str:
        if target is None:
            return V.verdict_of(low, high, 1.0, lines)
        return party.verdict(low * target, high * target, target, band)

    gains = family_gains([c.gain for c in confirmed], [c.gain_se for c in confirmed],
                         alpha=settings.alpha)
    rows = []
    for c, g in zip(confirmed, gains, strict=True):
        if target is None:
            v, width = verdict((c.default[1], c.default[2]), (c.best[1], c.best[2]),
                               min_ratio=settings.min_ratio, max_ratio=settings.max_ratio)
        else:
            v, width = coop_verdict((c.default[1], c.default[2]), (c.best[1], c.best[2]),
                                    target=target, band=band)
        rows.append({
            "faction": c.faction, "style": c.start, "best_trial": c.best_trial,
            "search_best": c.search_value,
            "field": c.field_ratio[0], "field_low": c.field_ratio[1],
            "field_high": c.field_ratio[2],
            "field_verdict": word(c.field_ratio[1], c.field_ratio[2]),
            "default": c.default[0], "default_low": c.default[1],
            "default_high": c.default[2],
            "default_verdict": word(c.default[1], c.default[2]),
            "best": c.best[0], "best_low": c.best[1], "best_high": c.best[2],
            "best_verdict": word(c.best[1], c.best[2]),
            "gain": g.est, "gain_se": g.se, "gain_low": g.low, "gain_high": g.high,
            "gain_level": g.level, "p": g.p, "p_holm": g.p_holm,
            "confirm_games": c.games, "verdict": v, "width": width,
            **({} if target is None else {"target": target, "band": band})})
    return pd.DataFrame(rows)
