"""Do a claims tune's points survive a best response? (``deepsim tune --respond-trials``)

The competent bot styles were tuned under the ruleset's default rules. A point of a claims
tune changes the rules (a reading, a rounded number, placeholder data), so a claim that
holds or fails there may only reflect styles that no longer fit the rules. For each point
(the defaults and the confirmed Pareto points):

1. **Best responses.** Every faction of the ruleset (baseline styles left out) gets a best
   response under the point's rules: ``deepsim respond``'s search
   (:func:`deepsim.respond.search.search_faction`: optuna TPE over the knobs of one bot
   style within the bot data's bounds, trial 0 the start style; the start style is the
   field's strongest non-baseline style on the search pass unless the scenario's
   ``faction_bots`` gives the faction one), ``trials`` trials on the faction's first
   ``games`` games of the tune's seed (common random numbers within the faction).
2. **The claims in the best-response field.** The point's confirmation games (the tune's
   confirmation seed, games ``0 .. confirm_games-1``: the same deals, dice and opponents'
   seats as the shipped field's confirmation) are replayed with every faction playing its
   best response (a faction whose best trial is its start style keeps that style), and
   every claim is judged there by the same code as the verdict.

The result per point: each claim's verdict and distance with the shipped styles and with
the best responses on the same games (paired), the claims whose verdict changed, and each
faction's search value (win share over fair share) before and after. A claim about one
bot style (DEEPFALL B5: greedy seats) has no such seats left when every faction plays its
own best response: its verdict there says what could be measured.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from deepsim.errors import InputError
from deepsim.tune.claimsobj import ClaimScore, claim_scores, holds
from deepsim.tune.grid import point_overrides

__all__ = ["RespondBudget", "best_responses", "read_front", "respond_check"]

#: games per chunk of the replay
REPLAY_CHUNK = 10_000


@dataclass
class RespondBudget:
    """Budget of the best-response search per point: ``trials`` optuna trials per faction
    on ``games`` games it sits in; ``alpha`` of the win-share intervals (two-sided)."""

    trials: int = 8
    games: int = 1000
    alpha: float = 0.05

    def check(self) -> None:
        """Raise InputError for a count below 1 (before any game)."""
        for key, v in (("--respond-trials", self.trials), ("--respond-games", self.games)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise InputError(f"expected a whole number >= 1, got {v!r}", key=key)


def best_responses(scenario_path: Path | str, sets: list[str], seed: int,
                   budget: RespondBudget, *, threads: int | None = None, progress=None):
    """Every faction's best response under the rules ``sets`` (``path=value`` overrides).

    Returns ``(field, starts, styles, table)``: the :class:`~deepsim.respond.play.Field`,
    each faction's start style and its best response as ``{faction: (style name, {knob:
    value})}`` (the start style where its trial 0 was best), and a frame with one row per faction: ``faction``, ``start``, ``best_trial``,
    ``start_value`` and ``best_value`` (win share over fair share on the search games,
    float64), ``games``.

    Raises
    ------
    InputError
        The ruleset has no factions or bot data, or the overrides are refused.
    """
    from deepsim.respond.play import Field
    from deepsim.respond.search import (
        Settings,
        faction_games,
        resolve_factions,
        search_faction,
        slug,
        start_style,
        strongest_style,
    )

    fld = Field(scenario_path, seed=seed, sets=sets, threads=threads)
    names = resolve_factions(fld, None, True)
    settings = Settings(trials=budget.trials, games=budget.games, alpha=budget.alpha)
    sp = faction_games(fld, seed, names, budget.games, keep=True)
    strongest, _ = strongest_style(fld, sp.seats, budget.alpha)
    starts, styles, rows = {}, {}, []
    for i, f in enumerate(names):
        if progress is not None:
            progress(i, len(names), f"best response of {f}")
        start = start_style(fld, f, settings, strongest)
        starts[f] = start
        trial_rows, knobs, best = search_faction(fld, f, sp.games[f], start, settings,
                                                 seed=seed)
        styles[f] = start if best == 0 else (f"{slug(f)}_br", knobs)
        rows.append({"faction": f, "start": start[0], "best_trial": best,
                     "start_value": float(trial_rows[0]["value"]),
                     "best_value": float(trial_rows[best]["value"]),
                     "games": int(sp.games[f].size)})
    return fld, starts, styles, pd.DataFrame(rows)


def replay(fld, styles: dict, games: int, seed: int) -> tuple[object, pd.DataFrame,
                                                               pd.DataFrame]:
    """Games ``0 .. games-1`` of ``seed`` with ``styles`` played (each faction's style, as
    :func:`best_responses` returns them; empty: the field as shipped): ``(prepared, games,
    seats)``, played in chunks of :data:`REPLAY_CHUNK` games."""
    from deepsim.respond.play import with_faction_styles

    scenario = (with_faction_styles(fld.scenario, fld.resolved_bots, fld.bot_data, styles)
                if styles else dict(fld.scenario))     # none: the field as shipped
    scenario["seed"] = int(seed)
    scenario["games"] = int(games)
    prepared = fld.ruleset.prepare(scenario, source=fld.source, overrides=list(fld.sets))
    gp, sp = [], []
    for start in range(0, games, REPLAY_CHUNK):
        g, s = fld.ruleset.run_chunk(prepared, start, min(REPLAY_CHUNK, games - start))
        gp.append(g)
        sp.append(s)
    return prepared, pd.concat(gp, ignore_index=True), pd.concat(sp, ignore_index=True)


def respond_check(player, points: list[tuple[str, dict]], *, scored: list[str],
                  weight, penalty: float, budget: RespondBudget, confirm_games: int,
                  confirm_seed: int, shipped: dict[str, dict[str, ClaimScore]] | None = None,
                  progress=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The claims at each point with the shipped styles and with every faction's best
    response (see the module docstring).

    Parameters
    ----------
    player : deepsim.tune.play.Player
        The tune's scenario, seed (the search games) and ``--set`` overrides.
    points : list of (name, {path: value})
        The points (``"baseline"`` and ``"trial N"``) and their overrides.
    scored : list of str
        The claim ids of the objective; ``weight(id)`` their weights, ``penalty`` the
        distance of an unmeasured claim.
    shipped : dict, optional
        ``{point name: {claim id: ClaimScore}}`` already judged on the same confirmation
        games (the tune's confirm step); a point missing here is played.

    Returns
    -------
    (claims, factions) : DataFrame, DataFrame
        ``claims``: one row per point: ``point``, ``games``, ``seed``, ``holds_shipped``,
        ``holds_br`` (int64), ``total_shipped``, ``total_br``, ``change`` (float64, paired:
        the same games), ``changed`` (claims whose verdict changed, str), per claim
        ``v_<id>``/``d_<id>`` (shipped) and ``vbr_<id>``/``dbr_<id>`` (best responses),
        ``holds_start``/``total_start``/``vst_<id>``/``dst_<id>`` (every faction playing
        its start style: the field without the search), ``measured`` (the claims in the
        totals: measured in all three fields), ``seconds``. ``factions``: :func:`best_responses`'s table per point (``point``
        column added).

    Raises
    ------
    InputError
        A bad budget; a ruleset without factions or bot data.
    """
    budget.check()
    shipped = dict(shipped or {})
    rows, tables = [], []
    for k, (name, overrides) in enumerate(points):
        t0 = time.perf_counter()
        sets = list(player.sets) + point_overrides(overrides)
        if progress is not None:
            progress(k, len(points), f"respond {name}: best responses")
        fld, starts, styles, table = best_responses(player.scenario_path, sets, player.seed,
                                                    budget, threads=player.threads)
        tables.append(table.assign(point=name))
        if name not in shipped:
            pp = player.prepare(overrides, games=confirm_games, seed=confirm_seed)
            g, s = player.play(pp, games=confirm_games)
            shipped[name] = claim_scores(player.ruleset, pp.prepared, g, s)
        if progress is not None:
            progress(k, len(points), f"respond {name}: {confirm_games:,} games replayed")
        prepared, g, s = replay(fld, starts, confirm_games, confirm_seed)
        st = claim_scores(player.ruleset, prepared, g, s)
        prepared, g, s = replay(fld, styles, confirm_games, confirm_seed)
        br = claim_scores(player.ruleset, prepared, g, s)
        a = shipped[name]
        # totals over the claims measured in all three fields (a claim about one style may
        # have no seats of it once every faction plays one style)
        both = [c for c in scored
                if not any(math.isnan(x[c].distance) for x in (a, st, br))]

        def tot(sc, both=both):
            return sum(weight(c) * sc[c].distance for c in both)

        row = {"point": name, "games": confirm_games, "seed": confirm_seed,
               "holds_shipped": sum(holds(a[c]) for c in scored),
               "holds_start": sum(holds(st[c]) for c in scored),
               "holds_br": sum(holds(br[c]) for c in scored),
               "total_shipped": tot(a), "total_start": tot(st), "total_br": tot(br),
               "measured": ", ".join(both)}
        row["change"] = row["total_br"] - row["total_shipped"]
        row["changed"] = ", ".join(f"{c} {_short(a[c].verdict)} -> {_short(br[c].verdict)}"
                                   for c in scored if holds(a[c]) != holds(br[c])) or "none"
        for c in scored:
            row[f"v_{c}"], row[f"d_{c}"] = a[c].verdict, a[c].distance
            row[f"vst_{c}"], row[f"dst_{c}"] = st[c].verdict, st[c].distance
            row[f"vbr_{c}"], row[f"dbr_{c}"] = br[c].verdict, br[c].distance
        row["seconds"] = round(time.perf_counter() - t0, 2)
        rows.append(row)
    factions = (pd.concat(tables, ignore_index=True) if tables else pd.DataFrame())
    return pd.DataFrame(rows), factions


def _short(verdict: str) -> str:
    from deepsim.report.verdicts import short_verdict
    return short_verdict(verdict)


def respond_md(claims: pd.DataFrame, factions: pd.DataFrame, scored: list[str],
               budget: RespondBudget) -> str:
    """The "best responses" markdown block of a claims tune's findings."""
    if claims.empty:
        return ""
    g, seed = int(claims["games"].iloc[0]), int(claims["seed"].iloc[0])
    lines = ["### Do the points survive a best response?", "",
             (f"Every faction's best response under each point's rules ({budget.trials} "
             f"optuna trials x {budget.games:,} games it sits in, `deepsim respond`'s "
             f"search), then the same {g:,} confirmation games (seed {seed}) replayed with "
             "every faction playing it: the claims with the shipped field, with every "
             "faction on its start style (the search's trial 0) and with the best "
             "responses, paired. Totals: distances summed over the claims measured in all "
             "three fields."), "",
             ("| point | hold: shipped / start / best resp. | total: shipped / best resp. | "
             "verdicts changed (shipped -> best resp.) | factions improved |"),
             "|---|---|---|---|---|"]
    for _, r in claims.iterrows():
        ft = factions[factions["point"] == r["point"]] if not factions.empty else factions
        better = int((ft["best_trial"] > 0).sum()) if len(ft) else 0
        lines.append(f"| {r['point']} | {int(r['holds_shipped'])} / {int(r['holds_start'])}"
                     f" / {int(r['holds_br'])} | {r['total_shipped']:.3g} / "
                     f"{r['total_br']:.3g} | {r['changed']} | {better} of {len(ft)} |")
    lines += ["", ("\\* on the parts measurable under the point's own reading and field "
              "(a claim about one bot style has no such seats when every faction plays its "
              "best response)."), ""]
    return "\n".join(lines)


_HEAD = re.compile(r"^# trial (\d+):", re.MULTILINE)


def read_front(path: Path | str) -> list[tuple[str, dict]]:
    """The points of a claims tune's ``front.yaml``, in its order: ``[("trial N",
    {path: value}), ...]``.

    Raises
    ------
    InputError
        No ``# trial N:`` block, or a block that is not an ``overrides:`` mapping.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("no such front file (give the front.yaml a claims tune wrote"
                         + (", inside this folder)" if path.is_dir() else ")"), file=str(path))
    text = path.read_text()
    heads = list(_HEAD.finditer(text))
    if not heads:
        raise InputError("no '# trial N:' block; expected a front.yaml of "
                         "deepsim tune --objective claims", file=str(path))
    out = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        block = yaml.safe_load(text[m.end():end].split("\n", 1)[1]) or {}
        ov = block.get("overrides") if isinstance(block, dict) else None
        if not isinstance(ov, dict):
            line = text[:m.start()].count("\n") + 1
            raise InputError(f"the block of trial {m.group(1)} has no overrides: mapping",
                             file=str(path), line=line, key="overrides")
        out.append((f"trial {m.group(1)}", dict(ov)))
    return out
