"""DEEPFALL behind the ruleset contract: its scenario resolved into kernel inputs, its
trace, report hooks and bench scenario (the playing and the tables are the base's)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd

from deepsim.botdata import BotData
from deepsim.errors import InputError
from deepsim.factionbots import resolve_faction_bots
from deepsim.params import params_hash, validate
from deepsim.rulesets import common
from deepsim.rulesets.base import KernelRuleset, KernelTables, Prepared
from deepsim.rulesets.deepfall import layout as L
from deepsim.rulesets.deepfall.data import (
    DATA,
    GAMES_COLUMNS,
    HERE,
    REPORT_OPTIONS,
    SEATS_COLUMNS,
    SKIPPED_RULES,
    bot_data,
    bot_styles,
    companies,
    dealt_lineages,
    placeholders,
)
from deepsim.rulesets.deepfall.scenario import DeepfallScenario
from deepsim.rulesets.deepfall.schema import CALLINGS, LINEAGES, display_name
from deepsim.scenario import LINES

__all__ = ["DeepfallRuleset"]


def _numbered(event: dict) -> dict:
    """A decoded kernel event (seats indexed from 0, a ``score`` event's ``winners`` a bit
    mask over seat indices) with seats numbered from 1 for tools (``trace --format json``)."""
    out = dict(event)
    if out["seat"] >= 0:
        out["seat"] += 1
    if out["event"] == "score":     # §6B.2: the winners of a room's claim (bit mask)
        out["winners"] = [q + 1 for q in range(L.MAX_SEATS) if int(out["winners"]) >> q & 1]
    return out


class DeepfallRuleset(KernelRuleset):
    """DEEPFALL behind the ruleset contract (:class:`deepsim.rulesets.base.KernelRuleset`):
    what is DEEPFALL's own (its scenario, companies, trace and report)."""

    name = "deepfall"
    title = "DEEPFALL"
    #: the seats column naming what a player picks (Lineage + Calling), and its noun
    faction_column = "company"
    faction_label = "company"
    #: seats columns a win share can be grouped by (gate, sweep, tune, report)
    group_columns = ("company", "lineage", "calling", "bot", "seat")
    #: sweep metrics when none are given; tune's objective when none is given
    default_metrics = ("company_spread", "lineage_spread", "calling_spread", "seat_advantage",
                       "rounds")
    default_objective = "company_spread"
    #: §9: "games last ~11 rounds"
    target_rounds = 11.0
    games_columns = GAMES_COLUMNS
    seats_columns = SEATS_COLUMNS
    data = DATA
    tables = KernelTables(L.GAME_INT, L.GAME_FLT, L.SEAT_INT, L.SEAT_FLT,
                          coded=("lineage", "calling", "bot"))
    trace_formats = ("text", "json")
    seat_order = ("seat 1 plays first in round 1; the first-player marker then passes "
                  "clockwise")
    score_label = "Glory"
    #: A39: the round cap is an engine limit, not a rule (a game it stops is unresolved)
    safety_caps: ClassVar[dict[str, str]] = {"end.max_rounds": "round"}
    report_options = REPORT_OPTIONS
    claims_title = "Claims B1-B8"
    #: what its report sections and claims read (report.py)
    report_games_columns = (
        "players", "rounds", "truncated", "n_winners", "margin", "margin_rel", "rooms_scored",
        "rooms_contested", "contested_markers", "deferred_steps", "warned",
        "taken_after_warning", "taken_moved_in", "taken_mustered", "taken_blindsided",
        "floors_collapsed", "deal", "rotation")
    report_seats_columns = (
        "seat", "players", "lineage", "calling", "company", "bot", "place", "win", "fair",
        "glory",
        "glory_cash_out", "glory_worthy_end", "cash_outs", "last_stands", "worthy_ends",
        "taken_no_stand", "taken_no_stand_final", "taken_unplayed", "crews", "lineage_ability",
        "calling_ability", "rotation")
    report_seats_prefixes = ("claims_",)

    def placeholder_paths(self) -> list[str]:
        """The shipped data's placeholders: every Lineage's flagged starting bag (A3) and
        the floor weights (A21)."""
        return placeholders(DATA.load())

    def prepare(self, scenario: dict, *, source: str = "<scenario>",
                overrides: list[str] | None = None) -> Prepared:
        """Validate a scenario and the ruleset data with its overrides; build kernel arrays.

        Scenario ``overrides:`` apply first, then ``--set`` ``overrides`` (later wins).

        Raises
        ------
        InputError
            For any invalid scenario key, seat, bot, knob or parameter.
        """
        lines = LINES.get(source, {})
        sc = validate(DeepfallScenario, scenario, source=source, lines=lines)
        ov = common.merge_overrides(sc.overrides, overrides, source=source, lines=lines)
        data = DATA.load_merged(ov)
        counts = common.player_counts(sc.players)
        common.check_players("DEEPFALL", counts, data.players.min, data.players.max,
                             source=source, lines=lines)
        styles = bot_styles()
        names = list(styles)
        common.check_bot_pool(sc.bots, names, source=source, lines=lines)
        # bot profiles: the named styles, then one per seat with knob overrides
        profiles = [dict(styles[n]) for n in names]
        spec = -np.ones((L.MAX_SEATS, 3), np.int64)
        seat_bots = []
        for i, seat in enumerate(sc.seats):
            if seat.lineage != "random":
                spec[i, 0] = LINEAGES.index(seat.lineage)
            if seat.calling != "random":
                spec[i, 1] = CALLINGS.index(seat.calling)
            if seat.bot != "any":
                common.check_bot(seat.bot, names, source=source, key=f"seats.{i}.bot",
                                 lines=lines)
                prof = dict(styles[seat.bot])
                prof.update(bot_data().check(seat.knobs, file=source,
                                             key=f"seats.{i}.knobs", lines=lines))
                if seat.knobs:
                    profiles.append(prof)
                    spec[i, 2] = len(profiles) - 1
                else:
                    spec[i, 2] = names.index(seat.bot)
            elif seat.knobs:
                raise common.knobs_need_a_bot("seat", source=source, key=f"seats.{i}.knobs",
                                              lines=lines)
            seat_bots.append(seat.bot)
        if sc.companies.mirror and any(s != sc.seats[0] for s in sc.seats[1:]):
            i = next(i for i, s in enumerate(sc.seats) if s != sc.seats[0])
            raise InputError("companies.mirror plays seat 1's company and bot at every "
                             "seat: list the other seats as seat 1 (or leave 'seats:' out)",
                             file=source, key=f"seats.{i}", line=lines.get(f"seats.{i}"))
        if sc.companies.unique:
            for half, label in ((0, "lineage"), (1, "calling")):
                fixed = [v for v in spec[:, half] if v >= 0]
                if len(fixed) != len(set(fixed)):
                    raise InputError(f"two seats share a {label} while companies.unique is "
                                     f"true; set companies.unique: false for mirror games",
                                     file=source, key="companies.unique")
        bot_labels = names + [f"{seat_bots[i]}*" for i in range(len(sc.seats))
                              if spec[i, 2] >= len(names)]
        # every seat of a company with bots of its own (faction_bots) plays them
        fbots = resolve_faction_bots(sc.faction_bots, factions=companies(),
                                     bot_data=bot_data(), source=source, lines=lines)
        fmix = (fbots.attach(companies(), profiles, bot_labels,
                             {n: i for i, n in enumerate(names)}) if fbots else None)
        knobs = np.array([[p[k] for k in L.KNOBS] for p in profiles], np.float64)
        # the kernel's arrays (numba) load when a scenario is prepared, not when the ruleset
        # is looked up (deepsim odds deepfall --help)
        from deepsim.rulesets.deepfall import compile as comp
        arrays = comp.build(data, players=counts, seat_spec=spec,
                            bot_pool=[names.index(b) for b in sc.bots],
                            unique=2 if sc.companies.mirror else int(sc.companies.unique),
                            knobs=knobs, fmix=fmix)
        params = data.model_dump()
        # a scenario without rotate_seats resolves exactly as before (same scenario hash)
        resolved = sc.model_dump(exclude=set() if sc.rotate_seats else {"rotate_seats"})
        rotations = None
        if sc.rotate_seats:
            rotations = self._rotations(arrays, spec, sc, counts, source, lines)
            resolved.update({"games": sc.games * len(rotations), "deals": sc.games,
                             "rotations": len(rotations)})
        resolved["resolved_overrides"] = ov.merged
        if fbots is not None:
            resolved["faction_bots"] = fbots.resolved()
        return Prepared(ruleset=self.name, scenario=resolved, params=params,
                        params_hash=params_hash(params), placeholders=placeholders(
                            data, dealt_lineages(sc, counts)),
                        skipped_rules=list(SKIPPED_RULES),
                        baseline_bots=list(bot_data().baseline_styles),
                        compiled={"arrays": arrays, "bot_labels": bot_labels,
                                  "seed": sc.seed, "rotations": rotations})

    @staticmethod
    def _rotations(arrays, spec: np.ndarray, sc, counts: list[int], source: str,
                   lines: dict) -> list:
        """One kernel-input variant per rotation of the seat order (``rotate_seats``): in
        rotation k seat p plays seat (p + k) mod n's company and bot."""
        import dataclasses

        where = {"file": source, "key": "rotate_seats", "line": lines.get("rotate_seats")}
        if not sc.seats:
            raise InputError("rotate_seats rotates fixed seats: list them under 'seats:' "
                             "(one entry per seat)", **where)
        if len(counts) != 1:
            raise InputError(f"rotate_seats needs one player count (a rotation is a "
                             f"permutation of the n seats), got players "
                             f"{', '.join(map(str, counts))}", **where)
        n = counts[0]
        out = []
        for k in range(n):
            rolled = spec.copy()
            rolled[:n] = np.roll(spec[:n], -k, axis=0)      # seat p <- seat (p + k) mod n
            out.append(dataclasses.replace(arrays, seat_spec=np.ascontiguousarray(rolled)))
        return out

    #: cold compile, CPU seconds measured on a 2-core machine (docs/performance.md, "Trace
    #: and search compiled only where used"): "run" a heuristic scenario's batch kernel (a
    #: scenario with a search bot takes ~2x), "all" with the trace (``deepsim trace``;
    #: ``deepsim warmup``, which compiles every version, takes ~2x); the first-run status
    #: announces it until this machine has timed its own; "part:run" and "part:trace"
    #: ``deepsim warmup``'s two parts (both versions of each), measured with an empty
    #: cache on 5 December: 131 s and 208 s; on 6 December (after the trace rows became a
    #: called function) "run" 58-63 s and the traced kernels 103 s + 81-90 s
    compile_estimate_s: ClassVar[dict[str, float]] = {"run": 60.0, "all": 165.0,
                                                      "part:run": 130.0, "part:trace": 185.0}

    #: batch games and traced games share no compiled turn (a quiet state and a traceable
    #: one are different numba types): ``deepsim warmup`` compiles them in parallel
    warm_parts: ClassVar[dict[str, str]] = {"run": "batch games", "trace": "traced games"}

    def warm_up(self, prepared: Prepared | None = None, *, trace: bool = False,
                part: str | None = None) -> None:
        """Compile (or load from numba's cache) the kernel entry points; plays no batch game.

        ``run_chunk``'s (``play_block`` called for zero games, ``seat_columns``) for the
        argument types of ``prepared`` (every DEEPFALL scenario has the same types), the
        search bot's code only when the scenario's bots search (``kernel.searches``), and
        with ``trace`` also ``trace_game`` (one game, replayed). Without ``prepared`` and
        with ``trace`` (``deepsim warmup``: everything) both the heuristic and the search
        versions of each. ``part`` (``warm_parts``) compiles only the batch (``"run"``) or
        only the traced (``"trace"``) entry points, both versions without ``prepared``.
        """
        from deepsim.rulesets.deepfall.board import Tables, new_quiet_state, new_state
        from deepsim.rulesets.deepfall.kernel import (
            play_block,
            play_games,
            searches,
            seat_columns,
        )
        everything = prepared is None and (trace or part is not None)
        batch = part in (None, "run")
        traced = part == "trace" or (part is None and trace)
        if prepared is None:
            prepared = self.prepare({"name": "warm-up", "ruleset": self.name, "players": 4,
                                     "games": 1, "seed": 0, "chunk_size": 1},
                                    source="warm-up")
        args = prepared.compiled["arrays"].kernel_args()
        seed, zero = np.int64(prepared.scenario["seed"]), np.int64(0)
        tab = Tables(*play_games(seed, zero, zero, *args))        # empty tables
        # the search bot is compiled only for a scenario whose bots search (kernel.searches)
        for search in ((False, True) if everything else (searches(args[0]),)):
            scr = new_quiet_state() if search else None
            if batch:
                play_block(seed, np.zeros(0, np.int64), zero, zero, *args, tab,
                           new_quiet_state(), scr)
            if traced:
                # trace_game's: the batch's entry point for a state that can be traced
                play_block(seed, np.zeros(0, np.int64), zero, zero, *args, tab, new_state(),
                           scr)
        if batch:
            seat_columns(tab.gi, tab.si, tab.sf)

    def factions(self, prepared: Prepared | None = None) -> list[str]:
        """Every company (the faction column's values), in company-code order."""
        return companies()

    # ---- the tables: the kernel's own row extraction; Lineage, Calling and company ------

    def seat_rows(self, gi, si, sf):
        """One contiguous row per column, straight from the kernel's tables
        (``kernel.seat_columns``, compiled: building the seats table was a third of a
        chunk)."""
        from deepsim.rulesets.deepfall.kernel import seat_columns
        return seat_columns(gi, si, sf)

    def faction_columns(self, prepared: Prepared, s_int) -> dict:
        """Lineage, Calling and company as categoricals built from their codes (from
        strings they cost a third of a chunk)."""
        lin = s_int[L.S_LINEAGE]
        cal = s_int[L.S_CALLING]
        lin_names = [display_name(n) for n in LINEAGES]
        cal_names = [display_name(n) for n in CALLINGS]
        return {"lineage": pd.Categorical.from_codes(lin, categories=lin_names),
                "calling": pd.Categorical.from_codes(cal, categories=cal_names),
                "company": pd.Categorical.from_codes(lin * len(cal_names) + cal,
                                                     categories=companies())}

    def _traced(self, prepared: Prepared, game_index: int):
        """Play game ``game_index`` with the event buffer on: (gi, si, sf, events, seat
        names, where, seed) of that game (row 0 of its tables)."""
        from deepsim.rulesets.deepfall.trace import seat_label
        t = self.traced(prepared, game_index)
        gi, si = t.gi, t.si
        n = int(gi[0, L.G_PLAYERS])
        labels = prepared.compiled["bot_labels"]
        names = [seat_label(p, int(si[0, p, L.S_LINEAGE]), int(si[0, p, L.S_CALLING]),
                            labels[int(si[0, p, L.S_BOT])]) for p in range(n)]
        return gi, si, t.sf, t.events, names, t.where, t.seed

    #: ``trace`` and ``trace_records`` take a ``view`` (deepsim.tracefilter.TraceFilter)
    trace_filters = True

    def trace(self, prepared: Prepared, game_index: int, view=None) -> list[str]:
        """Replay game ``game_index`` with the kernel's event buffer on; readable lines.

        It is the same kernel code path as the batch (``play_block``), so the trace ends
        with the Glory and winner of that game's batch row. Each line cites the rulebook
        section it applies, or ``[bot]`` with the reason for a bot's decision (trace.py);
        each round ends with the seats' Glory so far. ``view``
        (:class:`deepsim.tracefilter.TraceFilter`) keeps only some seats, rounds or kinds
        of line.
        """
        from deepsim.rulesets.deepfall.trace import format_events
        gi, si, sf, ev, names, where, seed = self._traced(prepared, game_index)
        n = len(names)
        lines = [(f"DEEPFALL game {game_index}{where} of seed {seed}: {n} players, "
                  f"{gi[0, L.G_ROOMS_PER_FLOOR]} rooms per floor, Dread track "
                  f"{gi[0, L.G_DREAD_LEN]}")]
        lines += [f"  {nm}" for nm in names]
        if prepared.placeholders:
            lines.append("  placeholder data: " + ", ".join(prepared.placeholders))
        for rule in prepared.skipped_rules:
            lines.append(f"  skipped rule: {rule}")
        lines += format_events(ev, names, view=view)
        lines.append("")
        lines.append("Final Glory:")
        for p in range(n):
            lines.append(f"  {names[p]}: {sf[0, p, L.SF_GLORY]:g} Glory (rooms "
                         f"{sf[0, p, L.SF_ROOMS]:g}, cash-outs {sf[0, p, L.SF_CASH]:g}, "
                         f"worthy ends {sf[0, p, L.SF_WORTHY]:g}), place "
                         f"{si[0, p, L.S_PLACE]}")
        return lines

    def trace_records(self, prepared: Prepared, game_index: int, view=None) -> list[dict]:
        """The trace of game ``game_index`` as records for tools (``trace --format json``).

        First a ``header`` record (game, seed, players, rooms per floor, Dread track, the
        seats with Lineage, Calling and bot), then one ``event`` record per kernel event
        (:func:`deepsim.rulesets.deepfall.trace.decode`: round, seat, event, rule and its
        named values), last a ``result`` record (each seat's Glory by source, place, win).
        Seats are numbered from 1 as in every table (``seat`` -1 = the table); a room's
        ``winners`` is the list of their seat numbers; each code of a die, face or room
        theme has its name beside it (``die_name``, ``face_name``, ``room_name``; a
        setup's ``rooms``). ``view`` (:class:`deepsim.tracefilter.TraceFilter`) keeps only
        the events of some seats, rounds or kinds.
        """
        from deepsim.rulesets.deepfall.trace import decode, named
        gi, si, sf, ev, names, where, seed = self._traced(prepared, game_index)
        labels = prepared.compiled["bot_labels"]
        seats = [{"seat": p + 1, "label": names[p],
                  "lineage": display_name(LINEAGES[int(si[0, p, L.S_LINEAGE])]),
                  "calling": display_name(CALLINGS[int(si[0, p, L.S_CALLING])]),
                  "bot": labels[int(si[0, p, L.S_BOT])]} for p in range(len(names))]
        header = {"type": "header", "ruleset": self.name, "game": game_index,
                  "seed": seed, "deal": where.strip() or None,
                  "players": len(names),
                  "rooms_per_floor": int(gi[0, L.G_ROOMS_PER_FLOOR]),
                  "dread_track": int(gi[0, L.G_DREAD_LEN]), "seats": seats,
                  "placeholders": list(prepared.placeholders),
                  "skipped_rules": list(prepared.skipped_rules)}
        result = {"type": "result", "rounds": int(gi[0, L.G_ROUNDS]),
                  "truncated": bool(gi[0, L.G_TRUNCATED]),
                  "seats": [{"seat": p + 1, "glory": float(sf[0, p, L.SF_GLORY]),
                             "glory_rooms": float(sf[0, p, L.SF_ROOMS]),
                             "glory_cash_out": float(sf[0, p, L.SF_CASH]),
                             "glory_worthy_end": float(sf[0, p, L.SF_WORTHY]),
                             "place": int(si[0, p, L.S_PLACE]),
                             "win": float(sf[0, p, L.SF_WIN])}
                            for p in range(len(names))]}
        events = [{"type": "event", **named(_numbered(e))} for e in decode(ev)]
        if view is not None:
            events = [e for e in events if view.keeps(e)]
        return [header] + events + [result]

    def bot_data(self) -> BotData:
        """The bots' knobs with their bounds and the styles (``baseline`` marked)."""
        return bot_data()

    def odds(self):
        """Exact dice odds (odds.py: ``deepsim odds deepfall QUESTION``)."""
        from deepsim.rulesets.deepfall.odds import BOOK
        return BOOK

    # ---- report (report.py, claims.py) --------------------------------------------------

    def report_sections(self, ctx) -> list:
        """DEEPFALL's sections: per company, Lineage and Calling, length, margins, exits,
        bot styles, swing, contention, the Maw, matchups, rules exercised, variations."""
        from deepsim.rulesets.deepfall import report
        return report.sections(ctx)

    def report_claims(self, ctx) -> list:
        """The rulebook's claims B1-B8 (claims.py)."""
        from deepsim.rulesets.deepfall.claims import evaluate_claims
        return evaluate_claims(ctx)

    def search_spaces(self) -> dict:
        """``search.yaml``: readings of the gaps, printed numbers, placeholder data."""
        import yaml

        with open(HERE / "search.yaml", encoding="utf-8") as fh:
            return yaml.safe_load(fh) or {}

    def report_roles(self, ctx) -> list[str]:
        """B1/B8 at another maw.steps_per_floor, matchups, one-gap variations."""
        from deepsim.rulesets.deepfall import report
        return report.roles(ctx)

    def method_text(self, ctx) -> str:
        from deepsim.rulesets.deepfall import report
        return report.METHOD

    def language_rows(self, ctx, shared: list[tuple[str, str]]) -> list[tuple[str, str]]:
        from deepsim.rulesets.deepfall import report
        return report.language_rows(shared)

    # ---- bench --------------------------------------------------------------------------

    def bench_players(self) -> tuple[int, ...]:
        return (2, 4, 6)

    def bench_scenario(self, players: int | None = None) -> dict:
        """Pinned here, apart from the default scenario (which other work changes): random
        companies (each Lineage and Calling at most once) and the shipped heuristic bot
        styles (every style but the uniform ``random`` baseline) drawn per seat (the
        100,000 games/s target of docs/performance.md is at 4 players with these bots)."""
        return {"players": players or 4, "companies": {"unique": True},
                "bots": ["cautious", "balanced", "greedy", "martyr"]}
