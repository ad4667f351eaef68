"""Bank behind deepsim's ruleset contract: a co-operative game (the party wins or loses
together), a scenario resolved into the kernel's inputs, and the trace. Playing, listed
games, the trace's replay and the games and seats tables (with the co-operative columns)
are the base's (:class:`deepsim.rulesets.base.KernelRuleset`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from deepsim.botdata import BotData
from deepsim.errors import InputError
from deepsim.factionbots import empty_fmix, resolve_faction_bots
from deepsim.params import nearest, params_hash, validate
from deepsim.report.party import COOP_OPTIONS
from deepsim.rulesets import common
from deepsim.rulesets.bank import kernel as K
from deepsim.rulesets.bank.data import (
    DATA,
    GAMES_COLUMNS,
    OUTCOMES,
    SEATS_COLUMNS,
    SKIPPED_RULES,
    bot_data,
)
from deepsim.rulesets.base import KernelInputs, KernelRuleset, KernelTables, Prepared
from deepsim.scenario import LINES


@dataclass
class Inputs(KernelInputs):
    """The kernel's arguments after ``(seed, start, count)``, in this order."""

    rules: np.ndarray           # int64[N_RULES]
    clock_face: np.ndarray      # int64[MAX_FACES + 1]: 1 for a clock face (B3)
    powers: np.ndarray          # int64[classes, N_POWERS] (B7)
    knobs: np.ndarray           # float64[profiles, len(KNOBS)]
    player_opts: np.ndarray     # int64: the player counts drawn from
    seat_class: np.ndarray      # int64[MAX_P]: a seat's class row, -1 = drawn
    class_pool: np.ndarray      # int64: the class rows a drawn seat picks from
    seat_bot: np.ndarray        # int64[MAX_P]: a seat's profile row, -1 = drawn
    bot_pool: np.ndarray        # int64: the profile rows a drawn seat picks from
    rotate: bool                # seat specs rotate over games
    fmix: np.ndarray            # float64: faction_bots mixtures per class (factionmix)


class BankRuleset(KernelRuleset):
    """Bank (``rules.md``): a co-operative push-your-luck dice game with an exact answer."""

    name = "bank"
    title = "Bank"
    cooperative = True
    outcomes: ClassVar[dict[str, str]] = OUTCOMES
    target_path = "party.target_win_rate"
    #: what a seat plays is its class (B7)
    faction_column = "class"
    faction_label = "class"
    group_columns = ("class", "bot", "seat")
    default_metrics = ("victory", "victory_error", "faction_spread", "rounds")
    default_objective = "victory_error"
    #: rules.md states a round limit (B6), not a game length to aim at
    target_rounds = None
    games_columns = GAMES_COLUMNS
    seats_columns = SEATS_COLUMNS
    seat_order = "seat 1 plays first"
    score_label = "points"
    report_games_columns = ("rounds", "turns", "pool", "clock", "outcome", "won", "target")
    #: the shared co-operative report options (coop.band)
    report_options = COOP_OPTIONS
    report_seats_columns = ("class", "banked", "busts", "ticks", "rerolls", "shields")
    #: seconds of a cold compile on a 2-core machine ("run": play_listed; "all": + trace)
    compile_estimate_s: ClassVar[dict[str, float]] = {"run": 10.0, "all": 15.0}
    data = DATA
    tables = KernelTables(K.GAME_INT, K.GAME_FLT, K.SEAT_INT, K.SEAT_FLT,
                          coded=("bot", "class"))
    max_trace_events = 100_000

    # ---- prepare ----------------------------------------------------------------------

    def prepare(self, scenario: dict, *, source: str = "<scenario>",
                overrides: list[str] | None = None) -> Prepared:
        """Validate a scenario and the data with its overrides; build the kernel arrays.

        Scenario ``overrides:`` apply first, then ``overrides`` (``--set``; later wins).

        Raises
        ------
        InputError
            Any invalid scenario key, seat, class, bot, knob or parameter (file, key,
            line), a target win rate outside (0, 1).
        """
        from deepsim.rulesets.bank.scenario import BankScenario

        lines = LINES.get(source, {})
        sc = validate(BankScenario, scenario, source=source, lines=lines)
        ov = common.merge_overrides(sc.overrides, overrides, source=source, lines=lines)
        data = DATA.load_merged(ov)
        counts = common.player_counts(sc.players)
        common.check_players(self.title, counts, data.players.min, data.players.max,
                             source=source, lines=lines)
        classes = list(data.classes)
        pool = sc.classes if sc.classes is not None else classes
        for i, c in enumerate(pool):
            if c not in classes:
                raise InputError(f"unknown class '{c}'{nearest(c, classes)}; known: "
                                 f"{', '.join(classes)}", file=source, key=f"classes.{i}",
                                 line=lines.get(f"classes.{i}"))
        bd = bot_data()
        names = list(bd.styles)
        common.check_bot_pool(sc.bots, names, source=source, lines=lines)
        values = bd.values()
        profiles = [dict(values[n]) for n in names]
        labels = list(names)
        seat_bot = np.full(K.MAX_P, -1, np.int64)
        seat_class = np.full(K.MAX_P, -1, np.int64)
        for i, seat in enumerate(sc.seats):
            if seat.cls != "any":
                if seat.cls not in classes:
                    key = f"seats.{i}.class"
                    raise InputError(f"unknown class '{seat.cls}'{nearest(seat.cls, classes)}"
                                     f"; known: any, {', '.join(classes)}", file=source,
                                     key=key, line=lines.get(key))
                seat_class[i] = classes.index(seat.cls)
            key = f"seats.{i}.bot"
            if seat.bot == "any":
                if seat.knobs:
                    raise common.knobs_need_a_bot("seat", source=source,
                                                  key=f"seats.{i}.knobs", lines=lines)
                continue
            common.check_bot(seat.bot, names, source=source, key=key, lines=lines)
            if not seat.knobs:
                seat_bot[i] = names.index(seat.bot)
                continue
            given = bd.check(seat.knobs, file=source, key=f"seats.{i}.knobs", lines=lines)
            # knobs joined by spaces: a label stays one group name in a metric spec
            label = f"{seat.bot}[" + " ".join(f"{k}={v:g}" for k, v in given.items()) + "]"
            if label not in labels:
                profiles.append({**values[seat.bot], **given})
                labels.append(label)
            seat_bot[i] = labels.index(label)
        # every seat of a class with bots of its own (faction_bots, deepsim respond) plays
        # them: the class is the faction
        fbots = resolve_faction_bots(sc.faction_bots, factions=classes, bot_data=bd,
                                     source=source, lines=lines)
        fmix = (fbots.attach(classes, profiles, labels, {n: i for i, n in enumerate(names)})
                if fbots else empty_fmix(len(classes)))
        rules = np.zeros(K.N_RULES, np.int64)
        rules[K.R_FACES] = data.die.faces                # B2
        rules[K.R_BUST] = data.die.bust_face             # B4
        rules[K.R_LIMIT] = data.clock.limit              # B3
        rules[K.R_GOAL] = data.goal.total                # B5
        rules[K.R_ROUNDS] = data.goal.rounds             # B6
        clock_face = np.zeros(K.MAX_FACES + 1, np.int64)
        clock_face[list(data.clock.faces)] = 1
        powers = np.array([[p.rerolls, p.shields] for p in data.classes.values()], np.int64)
        arrays = Inputs(rules, clock_face, powers,
                        np.array([[p[k] for k in K.KNOBS] for p in profiles], np.float64),
                        np.array(counts, np.int64), seat_class,
                        np.array([classes.index(c) for c in pool], np.int64), seat_bot,
                        np.array([names.index(b) for b in sc.bots], np.int64),
                        bool(sc.rotate), np.ascontiguousarray(fmix))
        params = data.model_dump()
        # a plugin's schema may forget the bounds: the contract's check, naming the file
        self.target_win_rate(params, source=ov.src if ov.merged else None)
        resolved = sc.model_dump(by_alias=True)
        resolved["resolved_overrides"] = ov.merged
        if fbots is not None:
            resolved["faction_bots"] = fbots.resolved()
        return Prepared(ruleset=self.name, scenario=resolved, params=params,
                        params_hash=params_hash(params), skipped_rules=list(SKIPPED_RULES),
                        baseline_bots=list(bd.baseline_styles),
                        compiled={"arrays": arrays, "bot_labels": labels,
                                  "classes": classes})

    def factions(self, prepared: Prepared | None = None) -> list[str]:
        """The classes a seat may play (the faction column's values), in data order."""
        if prepared is None:
            return list(DATA.default_data()["classes"])
        return list(prepared.compiled["classes"])

    def faction_columns(self, prepared: Prepared, s_int: np.ndarray) -> dict:
        """``class``: each seat's class (B7) as a categorical of the data's classes."""
        classes = prepared.compiled["classes"]
        import pandas as pd
        return {"class": pd.Categorical.from_codes(
            s_int[self.tables.seat_int.index("class")], categories=classes)}

    # ---- trace ------------------------------------------------------------------------

    def trace(self, prepared: Prepared, game_index: int) -> list[str]:
        """Replay game ``game_index`` with the kernel's event log on: readable lines, each
        citing its rule, ending with the batch's result of that game."""
        from deepsim.rulesets.bank.trace import format_game
        t = self.traced(prepared, game_index)
        return format_game(prepared.compiled["bot_labels"], prepared.compiled["classes"],
                           game_index, t.gi[0], t.si[0], t.events)

    # ---- data -------------------------------------------------------------------------

    def bot_data(self) -> BotData:
        """The bots' knobs with their bounds, and their styles (bots.yaml)."""
        return bot_data()

    def bench_players(self) -> tuple[int, ...]:
        return (2, 4)

    def bench_scenario(self, players: int | None = None) -> dict:
        """Every class and the two threshold styles drawn per seat."""
        return {"players": players or 3, "bots": ["steady", "careful"]}
