"""Abyss behind the ruleset contract: a scenario and its lord list resolved into kernel
inputs, its trace, report hooks and bench scenario (the playing and the tables are the
base's)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from deepsim.botdata import BotData
from deepsim.errors import InputError
from deepsim.factionbots import resolve_faction_bots
from deepsim.params import nearest, params_hash, validate
from deepsim.rulesets import common
from deepsim.rulesets.abyss import botconf
from deepsim.rulesets.abyss import layout as L
from deepsim.rulesets.abyss.data import (
    DATA,
    GAMES_COLUMNS,
    SEATS_COLUMNS,
    SKIPPED_RULES,
    bot_styles,
    load_lord_file,
    placeholders,
)
from deepsim.rulesets.base import KernelRuleset, KernelTables, Prepared
from deepsim.scenario import LINES

__all__ = ["AbyssRuleset"]


class AbyssRuleset(KernelRuleset):
    """Abyss behind the ruleset contract (:class:`deepsim.rulesets.base.KernelRuleset`):
    what is Abyss's own (its lords, seats, trace and report)."""

    name = "abyss"
    title = "Abyss"
    #: players are alike; what a seat "plays" is its bot style
    faction_column = "bot"
    faction_label = "bot style"
    group_columns = ("bot", "seat")
    #: sweep metrics when none are named: seat fairness first (the tune objective),
    #: then the spread over bot styles and the length in rounds
    default_metrics = ("seat_advantage", "faction_spread", "rounds")
    default_objective = "seat_advantage"
    #: the rulebook states no game length
    target_rounds = None
    games_columns = GAMES_COLUMNS
    seats_columns = SEATS_COLUMNS
    data = DATA
    tables = KernelTables(L.GAME_INT, L.GAME_FLT, L.SEAT_INT, L.SEAT_FLT)
    seat_order = "seat 1 plays first"
    score_label = "VP"
    #: G-A9: an engine limit, not a rule (the rules allow a game nobody can finish); a
    #: game it stops is unresolved
    safety_caps: ClassVar[dict[str, str]] = {"end.max_turns": "player-turn"}
    #: CPU seconds of a cold compile on an idle 2-core machine (``run``: the batch kernel;
    #: ``all``: with the traced one), measured under `make test` on 5-6 December
    compile_estimate_s: ClassVar[dict[str, float]] = {"run": 75.0, "all": 92.0}
    #: what its report sections read (report.py)
    report_games_columns = (*L.GAME_INT, *L.GAME_FLT, "end", "decided_by")
    report_seats_columns = ("bot", *[c for c in L.SEAT_INT if c != "bot"], "win", "fair",
                            "players", "seat", "first")

    # ---- prepare ------------------------------------------------------------------------

    def placeholder_paths(self) -> list[str]:
        """The shipped data's invented numbers (digest section D) while flagged."""
        return placeholders(DATA.load())

    def prepare(self, scenario: dict, *, source: str = "<scenario>",
                overrides: list[str] | None = None) -> Prepared:
        """Validate a scenario, its lord list and the ruleset data with overrides; build the
        kernel arrays.

        Scenario ``overrides:`` apply first, then ``--set`` ``overrides`` (later wins); a
        lord list (``lords: PATH``, relative to the scenario file) then replaces
        ``lords.deck`` and ``lords.placeholder``; its content is part of the parameters
        (and their hash: ``--resume``/``--from`` refuse a changed file).

        Raises
        ------
        InputError
            For any invalid scenario key, bot, knob, lord file or parameter.
        """
        from deepsim.rulesets.abyss import compile as comp
        from deepsim.rulesets.abyss.scenario import AbyssScenario

        lines = LINES.get(source, {})
        sc = validate(AbyssScenario, scenario, source=source, lines=lines)
        ov = common.merge_overrides(sc.overrides, overrides, source=source, lines=lines)
        merged, src, ov_lines = ov.merged, ov.src, ov.lines
        lord_source = None
        given = merged
        if sc.lords is not None:
            taken = [k for k in merged if k == "lords" or k.startswith("lords.")]
            if taken:
                raise InputError(f"the scenario's lord list (lords: {sc.lords}) decides "
                                 f"lords.deck and lords.placeholder; do not also set "
                                 f"{', '.join(taken)}", file=src, key=taken[0],
                                 line=ov_lines.get(taken[0]))
            base = Path(source).parent if not source.startswith("<") else Path.cwd()
            path = base / sc.lords
            shown = str(path)
            if not path.exists():
                raise InputError(f"no such lord file {shown} (the path is relative to the "
                                 f"scenario file)", file=source, key="lords",
                                 line=lines.get("lords"))
            deck, ph = load_lord_file(path, shown)
            given = dict(merged)
            merged = {**merged, "lords.deck": deck, "lords.placeholder": ph}
            lord_source = shown
        try:
            data = DATA.load_merged(dataclasses.replace(ov, merged=merged))
        except InputError as exc:
            if lord_source is not None and ((exc.key or "").startswith(("lords", "court"))
                                            or "lord deck" in exc.message):
                raise InputError(f"with the lord list {lord_source}: {exc.message}",
                                 file=lord_source, key=exc.key) from None
            raise

        counts = common.player_counts(sc.players)
        common.check_players("Abyss", counts, data.players.min, data.players.max,
                             source=source, lines=lines)

        # ---- bots: the named styles, then one profile per seat with knob overrides
        styles = bot_styles()
        names = list(styles)
        specs = botconf.bounds()

        def checked_knobs(i: int, seat) -> dict[str, float]:
            out = {}
            for k, v in seat.knobs.items():
                kkey = f"seats.{i}.knobs.{k}"
                if k not in specs:
                    raise InputError(f"unknown knob{nearest(k, list(specs))}; knobs: "
                                     f"{', '.join(specs)}", file=source, key=kkey,
                                     line=lines.get(kkey) or lines.get(f"seats.{i}.knobs"))
                try:
                    botconf.check_value(k, v, specs[k])
                except ValueError as exc:
                    raise InputError(str(exc), file=source, key=kkey,
                                     line=lines.get(kkey) or lines.get(f"seats.{i}.knobs")
                                     ) from None
                out[k] = float(v)
            return out

        profiles, labels, seat_bot = common.seat_profiles(
            sc.seats, styles, sc.bots, checked_knobs, source=source, lines=lines)
        # every seat of a bot style (the faction here) with bots of its own (faction_bots)
        # plays them, still labelled by that style
        factions = list(labels)
        fbots = resolve_faction_bots(sc.faction_bots, factions=factions,
                                     bot_data=botconf.load(), source=source, lines=lines)
        fmix = (fbots.attach(factions, profiles, labels, {n: i for i, n in enumerate(names)},
                             label_of_faction=True) if fbots else None)
        knobs = np.array([[p[k] for k in L.KNOBS] for p in profiles], np.float64)
        arrays = comp.build(data, knobs=knobs, seat_bot=seat_bot,
                            bot_pool=[names.index(b) for b in sc.bots], players=counts,
                            rotate=sc.rotate, fmix=fmix)
        params = data.model_dump()
        resolved = sc.model_dump()
        resolved["resolved_overrides"] = given
        if fbots is not None:
            resolved["faction_bots"] = fbots.resolved()
        return Prepared(ruleset=self.name, scenario=resolved, params=params,
                        params_hash=params_hash(params), placeholders=placeholders(data),
                        skipped_rules=list(SKIPPED_RULES),
                        compiled={"arrays": arrays, "bot_labels": labels, "seed": sc.seed,
                                  "lord_names": [lord.name for lord in data.lords.deck],
                                  "lord_colours": [lord.colour for lord in data.lords.deck],
                                  "location_vp": list(data.locations.vp),
                                  # where the lord list came from (its content is in the
                                  # parameters; the path is not hashed: a run resumed from
                                  # another folder is the same run)
                                  "lords_file": lord_source,
                                  "baseline": botconf.baseline()})

    # ---- playing ------------------------------------------------------------------------

    def factions(self, prepared: Prepared | None = None) -> list[str]:
        """The bot styles a seat may play (the faction column's values), in profile-row
        order: the styles of bots.yaml, then the scenario's knobbed seats."""
        if prepared is None:
            return list(bot_styles())
        return list(dict.fromkeys(prepared.compiled["bot_labels"]))

    # ---- the tables: the end's cause and tiebreak; who played first --------------------

    def games_extra(self, prepared: Prepared, gi, gf) -> dict:
        """How the game ended and what decided the winner, as categoricals."""
        return {"end": pd.Categorical.from_codes(gi[:, L.G_END_CAUSE],
                                                 categories=list(L.END_CAUSES)),
                "decided_by": pd.Categorical.from_codes(gi[:, L.G_TIEBREAK],
                                                        categories=list(L.TIEBREAKS))}

    def seats_extra(self, prepared: Prepared, s_int, s_flt, seat) -> dict:
        """Whether the seat played first."""
        return {"first": seat == 0}

    # ---- trace --------------------------------------------------------------------------

    def trace(self, prepared: Prepared, game_index: int) -> list[str]:
        """Replay game ``game_index`` with the kernel's event buffer on; readable lines.

        The same kernel code path as the batch (``play_game``), so the trace ends with the
        scores and winner of that game's batch row.
        """
        from deepsim.rulesets.abyss.trace import format_game
        t = self.traced(prepared, game_index)
        return format_game(prepared, t.seed, game_index, t.gi, t.gf, t.si, t.sf, t.events)

    # ---- parameters ---------------------------------------------------------------------

    def bot_data(self) -> BotData:
        """The bots' knobs with their bounds and the styles (``baseline`` marked), from
        bots.yaml (:func:`botconf.bot_data`)."""
        return botconf.bot_data()

    # ---- report -------------------------------------------------------------------------

    def report_sections(self, ctx) -> list:
        """The shared sections, then Abyss's (report.py: the digest's balance questions)."""
        from deepsim.report.sections import standard
        from deepsim.rulesets.abyss import report
        return [*standard(ctx), *report.sections(ctx)]

    # ---- bench --------------------------------------------------------------------------

    def bench_players(self) -> tuple[int, ...]:
        return (2, 3, 4)

    def bench_scenario(self, players: int | None = None) -> dict:
        """The three purposeful styles drawn per seat (scenarios/abyss.yaml)."""
        return {"players": players or 3, "bots": ["courtier", "merchant", "hunter"]}
