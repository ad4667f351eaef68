"""Rove behind deepsim's ruleset contract: a co-operative game (the party of Rovers wins or
loses an encounter together against the adversary AI), a scenario resolved into the
kernel's inputs (the encounter compiled from the action grammar), the trace and the odds.
Playing, listed games, the trace's replay and the tables (with the co-operative columns)
are the base's (:class:`deepsim.rulesets.base.KernelRuleset`)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from deepsim.botdata import BotData
from deepsim.errors import InputError
from deepsim.factionbots import empty_fmix, resolve_faction_bots
from deepsim.params import nearest, params_hash, validate
from deepsim.report.party import COOP_OPTIONS
from deepsim.rulesets import common
from deepsim.rulesets.base import KernelInputs, KernelRuleset, KernelTables, Prepared
from deepsim.rulesets.rove import layout as L
from deepsim.rulesets.rove.data import (
    DATA,
    GAMES_COLUMNS,
    OUTCOMES,
    SEATS_COLUMNS,
    SKIPPED_RULES,
    bot_data,
)
from deepsim.scenario import LINES

if TYPE_CHECKING:
    from deepsim.rulesets.rove.compile import Compiled


@dataclass
class Inputs(KernelInputs):
    """The kernel's arguments after ``(seed, start, count)``: the encounter's content arrays
    (:class:`deepsim.rulesets.rove.compile.Compiled`'s, in their declaration order), then
    the fields below, in this order."""

    content: Compiled
    knobs: np.ndarray           # float64[profiles, len(KNOBS)]
    rover_opts: np.ndarray      # int64: the Rover counts drawn from
    seat_class: np.ndarray      # int64[MAX_R]: a seat's class row, -1 = drawn
    class_pool: np.ndarray      # int64: the class rows a drawn seat picks from
    seat_bot: np.ndarray        # int64[MAX_R]: a seat's profile row, -1 = the party's
    bot_pool: np.ndarray        # int64: the profile rows the party's style is drawn from
    rotate: bool
    fmix: np.ndarray            # float64: faction_bots mixtures per class (factionmix)

    def kernel_args(self) -> tuple:
        """The content's arrays (its names and map left out), then the other fields."""
        c = self.content
        return (*(getattr(c, f.name) for f in fields(c)
                  if isinstance(getattr(c, f.name), np.ndarray)),
                *(getattr(self, f.name) for f in fields(self) if f.name != "content"))


class RoveRuleset(KernelRuleset):
    """Rove (core rulebook): an encounter of Rovers against the adversary AI."""

    name = "rove"
    title = "Rove"
    data = DATA
    tables = KernelTables(L.GAME_INT, L.GAME_FLT, L.SEAT_INT, L.SEAT_FLT,
                          coded=("bot", "class"))
    games_columns = GAMES_COLUMNS
    seats_columns = SEATS_COLUMNS
    #: the party wins or loses an encounter together (Winning / Losing an Encounter)
    cooperative = True
    outcomes: ClassVar[dict[str, str]] = OUTCOMES
    target_path = "party.target_win_rate"
    #: what a seat plays is its class (Classes)
    faction_column = faction_label = "class"
    group_columns = ("class", "bot", "seat")
    default_metrics = ("victory", "victory_error", "rounds", "downs")
    default_objective = "victory_error"
    #: an encounter states a round limit, not a length to aim at
    target_rounds = None
    seat_order = ("seats are the Rovers (players = R); the party's bot orders the turns "
                  "each round (Rover Phase)")
    score_label = None
    report_games_columns = ("rovers", "rounds", "round_limit", "objective_round", "outcome",
                            "won", "downs", "revives", "slain", "placed", "rover_damage",
                            "adversary_damage", "zero_attacks", "pushes", "impact_damage",
                            "falls", "traps", "dangerous", "ether_generated", "ether_wasted",
                            "raves", "rallies", "augments_met", "augments_missed",
                            "items_used", "ai_ties", "ai_tie_choices", "target",
                            *(c for c in L.GAME_INT if c.startswith(("adv", "blk"))))
    report_options = COOP_OPTIONS
    report_seats_columns = ("class", "damage_dealt", "damage_taken", "kills", "downs",
                            "raves", "rallies", "augments_met")
    compile_estimate_s: ClassVar[dict[str, float]] = {"run": 50.0, "all": 65.0}
    max_trace_events = 100_000

    def placeholder_paths(self) -> list[str]:
        """Invented data: the ability die, every shipped class, item, adversary and
        encounter flagged ``placeholder: true`` (the content books are not available)."""
        d = DATA.default_data()
        out = ["ability_die"]
        for group in ("classes", "items", "adversaries", "encounters"):
            out += [f"{group}.{k}" for k, v in d[group].items() if v.get("placeholder", True)]
        return out

    # ---- prepare ----------------------------------------------------------------------

    def prepare(self, scenario: dict, *, source: str = "<scenario>",
                overrides: list[str] | None = None) -> Prepared:
        """Validate a scenario, the data with its overrides and a designer's content file;
        compile the encounter into the kernel's arrays.

        Raises
        ------
        InputError
            Any invalid scenario key, seat, class, bot, knob, encounter, content or
            parameter (file, key, line), a target win rate outside (0, 1).
        """
        from deepsim.rulesets.rove.compile import compile_data, load_content, merge_content
        from deepsim.rulesets.rove.scenario import RoveScenario

        lines = LINES.get(source, {})
        sc = validate(RoveScenario, scenario, source=source, lines=lines)
        ov = common.merge_overrides(sc.overrides, overrides, source=source, lines=lines)
        data = DATA.load_merged(ov)
        counts = common.player_counts(sc.players)
        common.check_players(self.title, counts, data.rovers.min, data.rovers.max,
                             source=source, lines=lines)
        extra = None
        csrc = source
        if sc.content is not None:
            path = Path(sc.content)
            if not path.is_absolute() and source not in ("<scenario>", "warm-up"):
                path = Path(source).parent / path
            extra = load_content(path)
            csrc = str(path)
        merged = merge_content(data, extra)
        comp = compile_data(merged, sc.encounter, source=csrc if extra else source,
                            lines=None if extra else lines)
        classes = comp.classes
        pool = sc.classes if sc.classes is not None else classes
        for i, c in enumerate(pool):
            if c not in classes:
                raise InputError(f"unknown class '{c}'{nearest(c, classes)}; known: "
                                 f"{', '.join(classes)}", file=source, key=f"classes.{i}",
                                 line=lines.get(f"classes.{i}"))
        seat_class = np.full(L.MAX_R, -1, np.int64)
        for i, seat in enumerate(sc.seats):
            if seat.cls != "any":
                if seat.cls not in classes:
                    key = f"seats.{i}.class"
                    raise InputError(f"unknown class '{seat.cls}'{nearest(seat.cls, classes)}"
                                     f"; known: any, {', '.join(classes)}", file=source,
                                     key=key, line=lines.get(key))
                seat_class[i] = classes.index(seat.cls)
        # bots: the named styles, then one profile per knobbed seat
        bd = bot_data()
        names = list(bd.styles)
        profiles, labels, seat_bots = common.seat_profiles(
            sc.seats, bd.values(), sc.bots,
            lambda i, seat: bd.check(seat.knobs, file=source, key=f"seats.{i}.knobs",
                                     lines=lines),
            source=source, lines=lines)
        seat_bot = np.full(L.MAX_R, -1, np.int64)
        seat_bot[:len(seat_bots)] = seat_bots
        fbots = resolve_faction_bots(sc.faction_bots, factions=classes, bot_data=bd,
                                     source=source, lines=lines)
        fmix = (fbots.attach(classes, profiles, labels, {n: i for i, n in enumerate(names)})
                if fbots else empty_fmix(len(classes)))
        arrays = Inputs(
            comp,
            np.array([[p[k] for k in L.KNOBS] for p in profiles], np.float64),
            np.array(counts, np.int64), seat_class,
            np.array([classes.index(c) for c in pool], np.int64), seat_bot,
            np.array([names.index(b) for b in sc.bots], np.int64), bool(sc.rotate),
            np.ascontiguousarray(fmix))
        params = data.model_dump()
        if extra is not None:
            params["content"] = extra.model_dump()
        self.target_win_rate(params, source=ov.src if ov.merged else None)
        resolved = sc.model_dump(by_alias=True)
        resolved["resolved_overrides"] = ov.merged
        if fbots is not None:
            resolved["faction_bots"] = fbots.resolved()
        return Prepared(ruleset=self.name, scenario=resolved, params=params,
                        params_hash=params_hash(params),
                        skipped_rules=list(SKIPPED_RULES) + comp.skipped,
                        placeholders=list(comp.placeholders),
                        baseline_bots=list(bd.baseline_styles),
                        compiled={"arrays": arrays, "bot_labels": labels,
                                  "classes": classes, "content": comp,
                                  "encounter": sc.encounter})

    def factions(self, prepared: Prepared | None = None) -> list[str]:
        """The classes a seat may play, in data order."""
        if prepared is None:
            return list(DATA.default_data()["classes"])
        return list(prepared.compiled["classes"])

    def faction_columns(self, prepared: Prepared, s_int: np.ndarray) -> dict:
        """``class``: each seat's class as a categorical of the data's classes."""
        import pandas as pd
        return {"class": pd.Categorical.from_codes(
            s_int[self.tables.seat_int.index("class")],
            categories=prepared.compiled["classes"])}

    def games_extra(self, prepared: Prepared, gi: np.ndarray, gf: np.ndarray) -> dict:
        """``encounter``: the encounter played (one per scenario)."""
        import pandas as pd
        name = prepared.compiled["encounter"]
        return {"encounter": pd.Categorical.from_codes(np.zeros(gi.shape[0], np.int64),
                                                       categories=[name])}

    # ---- trace ------------------------------------------------------------------------

    def trace(self, prepared: Prepared, game_index: int) -> list[str]:
        """Replay game ``game_index`` with the event log on: each Rover step, each AI
        choice with its reason, each damage line, ending with the batch's result."""
        from deepsim.rulesets.rove.trace import format_game
        t = self.traced(prepared, game_index)
        return format_game(prepared, game_index, t.gi[0], t.si[0], t.events)

    # ---- report -----------------------------------------------------------------------

    def report_sections(self, ctx) -> list:
        """The shared co-operative sections, then Rove's (report.py: the encounter by Rover
        count, the AI's ties, ether, damage and positioning)."""
        from deepsim.report.partysections import standard
        from deepsim.rulesets.rove import report
        return [*standard(ctx), *report.sections(ctx)]

    # ---- data -------------------------------------------------------------------------

    def bot_data(self) -> BotData:
        """The party bots' knobs with their bounds, and their styles (bots.yaml)."""
        return bot_data()

    def odds(self):
        """Exact dice odds (odds.py: ``deepsim odds rove QUESTION``) from ``rove.yaml``."""
        from deepsim.rulesets.rove.odds import BOOK
        return BOOK

    def bench_players(self) -> tuple[int, ...]:
        return (2, 4)

    def bench_scenario(self, players: int | None = None) -> dict:
        """The skirmish with the striker party, every class drawn."""
        return {"players": players or 3, "bots": ["striker"]}
