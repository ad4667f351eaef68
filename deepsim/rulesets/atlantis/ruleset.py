"""Atlantis behind the ruleset contract: a scenario's map, forces and sides resolved into
kernel inputs, its trace, report hooks and bench scenario (the playing and the tables are
the base's)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from deepsim.botdata import BotData
from deepsim.errors import InputError
from deepsim.factionbots import resolve_faction_bots
from deepsim.params import nearest, params_hash, validate
from deepsim.rulesets import common
from deepsim.rulesets.atlantis import layout as L
from deepsim.rulesets.atlantis.data import (
    DATA,
    GAMES_COLUMNS,
    MAP_KEYS,
    SEATS_COLUMNS,
    SKIPPED_RULES,
    bot_data,
    bot_styles,
    current_rows,
    load_data,
    side_title,
    terrain_codes,
)
from deepsim.rulesets.base import KernelRuleset, KernelTables, Prepared
from deepsim.safeload import read_text
from deepsim.scenario import LINES

__all__ = ["AtlantisRuleset"]


class AtlantisRuleset(KernelRuleset):
    """Atlantis behind the ruleset contract (:class:`deepsim.rulesets.base.KernelRuleset`):
    what is Atlantis's own (its map, forces, sides, trace and report)."""

    name = "atlantis"
    title = "Atlantis: Sea King vs Sea Witch"
    faction_column = "faction"
    faction_label = "faction"
    group_columns = ("faction", "bot", "seat")
    #: sweep metrics when none are named: side balance, games the safety cap stopped,
    #: first-move edge, and length in rounds (two player-turns; "turns" would be the seats
    #: column, each side's own turns); tune minimises the side balance
    default_metrics = ("faction_spread", "unresolved", "seat_advantage", "rounds")
    default_objective = "faction_spread"
    #: the rulebook states no game length
    target_rounds = None
    games_columns = GAMES_COLUMNS
    seats_columns = SEATS_COLUMNS
    data = DATA
    #: two seats a game, seat 0 moves first (no players column)
    tables = KernelTables(L.GAME_INT, L.GAME_FLT, L.SEAT_INT, L.SEAT_FLT,
                          coded=("side", "bot"), players=2)
    seat_order = "seat 1 moves first"
    score_label = None
    #: AMB-T23: the rules have no turn limit (a game ends when a leader dies, AT-V1); the
    #: engine's cap stops a game the bots cannot finish (unresolved, or adjudicated by
    #: material with end.at_cap)
    safety_caps: ClassVar[dict[str, str]] = {"end.max_turns": "player-turn"}
    #: what its report sections read (report.py)
    report_games_columns = (
        "turns", "rounds", "winner_side", "first_side", "end_cause", "truncated",
        "adjudicated", "killer_type", "killer", "end", "winner", "first", "material_witch", "material_king",
        "material_margin", "units_left_witch", "units_left_king")
    report_seats_columns = ("faction", "bot", "side", "win", "fair", "outcome", "first",
                            "players")

    # ---- prepare ------------------------------------------------------------------------

    def placeholder_paths(self) -> list[str]:
        """The generated map's size and generator (a scenario's fixed map replaces them)."""
        return ["map.generator", "map.width", "map.height"]

    def prepare(self, scenario: dict, *, source: str = "<scenario>",
                overrides: list[str] | None = None) -> Prepared:
        """Validate a scenario and the ruleset data with its overrides; build kernel arrays.

        Scenario ``overrides:`` apply first, then ``--set`` ``overrides`` (later wins); a
        fixed map then sets ``map.source``/``map.width``/``map.height``.

        Raises
        ------
        InputError
            For any invalid scenario key, side, bot, knob, force, map or parameter.
        """
        from deepsim.rulesets.atlantis import compile as comp
        from deepsim.rulesets.atlantis import maps
        from deepsim.rulesets.atlantis.scenario import AtlantisScenario

        lines = LINES.get(source, {})
        sc = validate(AtlantisScenario, scenario, source=source, lines=lines)
        ov = common.merge_overrides(sc.overrides, overrides, source=source, lines=lines)
        merged, src, ov_lines = ov.merged, ov.src, ov.lines
        data = DATA.load_merged(ov)

        # ---- the map: fixed (file or inline grid) or generated
        fixed = None
        if sc.map.file is not None or sc.map.grid is not None:
            taken = [k for k in merged if k in MAP_KEYS or k == "map"]
            if taken:
                raise InputError(f"the scenario's fixed map decides {', '.join(MAP_KEYS)}; "
                                 f"do not also set {', '.join(taken)}", file=src,
                                 key=taken[0], line=ov_lines.get(taken[0]))
            codes, cur = terrain_codes(data), current_rows(data)
            if sc.map.file is not None:
                base = (Path(source).parent if not source.startswith("<")
                        else Path.cwd())
                path = base / sc.map.file
                try:  # read_text: at most safeload.MAX_INPUT_BYTES (a device or pipe too)
                    text = read_text(path, what="map file")
                except InputError as exc:
                    if exc.message == "no such file":
                        raise InputError("no such map file", file=str(path)) from None
                    raise
                fixed = maps.parse_grid(text, codes, cur, source=str(path))
            else:
                first = lines.get("map.grid")
                fixed = maps.parse_grid(sc.map.grid, codes, cur, source=source,
                                        first_line=(first + 1) if first else 1)
            merged = {**merged, "map.source": "fixed", "map.width": fixed.width,
                      "map.height": fixed.height}
            try:
                data = load_data(merged, source=fixed.source, lines={})
            except InputError as exc:
                raise InputError(f"with this map ({fixed.width}x{fixed.height}): "
                                 f"{exc.message}", file=fixed.source, key=exc.key) from None
        elif data.map.source == "fixed":
            raise InputError("map.source fixed needs a map in the scenario: "
                             "`map: {file: PATH}` or `map: {grid: ...}`", file=src,
                             key="map.source", line=ov_lines.get("map.source"))

        # ---- forces
        counts = self._forces(sc, data, source, lines)
        self._check_room(data, counts, fixed, source, lines)

        # ---- bots: the named styles, then one profile per side with knob overrides
        styles = bot_styles()
        names = list(styles)
        common.check_bot_pool(sc.bots, names, source=source, lines=lines)
        profiles = [dict(styles[n]) for n in names]
        labels = list(names)
        side_bot = [-1, -1]
        for s, side in enumerate(L.SIDES):
            spec = getattr(sc.sides, side)
            if spec.bot == "any":
                if spec.knobs:
                    raise common.knobs_need_a_bot("side", source=source,
                                                  key=f"sides.{side}.knobs", lines=lines)
                continue
            common.check_bot(spec.bot, names, source=source, key=f"sides.{side}.bot",
                             lines=lines)
            if spec.knobs:
                prof = dict(styles[spec.bot])
                prof.update(bot_data().check(spec.knobs, file=source,
                                             key=f"sides.{side}.knobs", lines=lines))
                profiles.append(prof)
                labels.append(f"{spec.bot}*")
                side_bot[s] = len(profiles) - 1
            else:
                side_bot[s] = names.index(spec.bot)
        # every seat of a side with bots of its own (faction_bots) plays them
        fbots = resolve_faction_bots(sc.faction_bots, factions=list(L.SIDE_TITLES),
                                     bot_data=bot_data(), source=source, lines=lines)
        fmix = (fbots.attach(list(L.SIDE_TITLES), profiles, labels,
                             {n: i for i, n in enumerate(names)}) if fbots else None)
        knobs = np.array([[p[k] for k in L.KNOBS] for p in profiles], np.float64)
        arrays = comp.build(data, forces={s: dict(v) for s, v in sc.forces.items()},
                            map_spec=fixed, knobs=knobs,
                            side_bot=side_bot, bot_pool=[names.index(b) for b in sc.bots],
                            fmix=fmix)

        params = data.model_dump()
        if fixed is not None:
            # the grid itself is part of the ruleset variant (a changed file changes the hash)
            params["map"]["grid"] = fixed.text
        # a scenario without rotate_seats resolves exactly as before (same scenario hash)
        resolved = sc.model_dump(exclude=set() if sc.rotate_seats else {"rotate_seats"})
        rotations = None
        if sc.rotate_seats:
            # rotation 1: the other side moves first, on the same map, bots and dice stream
            import dataclasses
            rules = arrays.rules.copy()
            rules[L.R_FIRST_SIDE] = 1.0 - rules[L.R_FIRST_SIDE]
            rotations = [arrays, dataclasses.replace(arrays, rules=rules)]
            resolved.update({"games": sc.games * 2, "deals": sc.games, "rotations": 2})
        resolved["resolved_overrides"] = merged
        resolved["resolved_forces"] = counts
        if fbots is not None:
            resolved["faction_bots"] = fbots.resolved()
        placeholders = [] if fixed is not None else ["map.generator", "map.width",
                                                     "map.height"]
        return Prepared(ruleset=self.name, scenario=resolved, params=params,
                        params_hash=params_hash(params), placeholders=placeholders,
                        skipped_rules=list(SKIPPED_RULES),
                        baseline_bots=list(bot_data().baseline_styles),
                        compiled={"arrays": arrays, "bot_labels": labels, "seed": sc.seed,
                                  "unit_titles": [self._unit_title(data, u)
                                                  for u in data.unit_names()],
                                  "unit_names": data.unit_names(),
                                  "terrain_titles": [t.title for t in data.terrain.values()],
                                  "terrain_codes": [t.code for t in data.terrain.values()],
                                  "spell_titles": [s.title for s in data.spell_list.values()],
                                  "fixed_map": fixed, "rotations": rotations})

    @staticmethod
    def _unit_title(data, name: str) -> str:
        for g in ("sea_king", "sea_witch", "neutral"):
            table = getattr(data.units, g)
            if name in table:
                return table[name].title
        return name

    @staticmethod
    def _forces(sc, data, source: str, lines: dict) -> dict[str, dict[str, int]]:
        """Both forces after the scenario's ``forces:`` (checked; see compile.force_counts)."""
        from deepsim.rulesets.atlantis import compile as comp
        known = data.unit_names()
        leaders = {side: next(u for u, x in getattr(data.units, side).items() if x.leader)
                   for side in L.SIDES}
        for side, units in sc.forces.items():
            for u, n in units.items():
                key = f"forces.{side}.{u}"
                line = lines.get(key) or lines.get(f"forces.{side}")
                if u not in known:
                    raise InputError(f"unknown unit '{u}'{nearest(u, known)}; units are "
                                     f"the names of ruleset.yaml's units tables (deepsim "
                                     f"params atlantis --match units.)", file=source,
                                     key=key, line=line)
                if u == leaders[side] and n != 1:
                    raise InputError(f"the {side_title(side)} is the side's leader (AT-V1): "
                                     f"its count stays 1, got {n}", file=source, key=key,
                                     line=line)
                other = L.SIDES[1 - L.SIDES.index(side)]
                if u == leaders[other] and n > 0:
                    raise InputError(f"the {side_title(other)} leads the other side (AT-V1) "
                                     f"and cannot join the {side_title(side)}'s force",
                                     file=source, key=key, line=line)
        return comp.force_counts(data, {s: dict(v) for s, v in sc.forces.items()})

    @staticmethod
    def _check_room(data, counts, fixed, source: str, lines: dict) -> None:
        """Each force fits its deployment rows (Large units on hexes they may enter) and
        both forces plus created units fit the kernel's unit slots."""
        from deepsim.rulesets.atlantis import compile as comp
        from deepsim.rulesets.atlantis import maps
        from deepsim.rulesets.atlantis.schema import CREATED_SLOTS
        w, h, rows = data.map.width, data.map.height, data.setup.deploy_rows
        large = {}
        for side in L.SIDES:
            large[side] = sum(n for u, n in counts[side].items()
                              if AtlantisRuleset._unit(data, u).large)
        if fixed is not None:
            cap = maps.deploy_capacity(comp.terrain_table(data), fixed.terrain, w, h, rows)
            where = fixed.source
        else:
            g = data.map.generator
            in_zone = g.feature_depth < rows
            cap = ((w * rows, w * rows - (g.spawning_beds if in_zone else 0)),
                   (w * rows, w * rows - (g.temples if in_zone else 0)))
            where = source
        for s, side in enumerate(L.SIDES):
            n = sum(counts[side].values())
            free, large_ok = cap[s]
            if n > free or large[side] > large_ok:
                raise InputError(
                    f"the {side_title(side)}'s force of {n} units ({large[side]} Large) does "
                    f"not fit its {rows} deployment rows of this {w}x{h} map: {free} hexes a "
                    f"unit may deploy on, {large_ok} of them open to Large units (AT-M5). "
                    + ("Give the map more passable hexes near its edge, add rows "
                       "(setup.deploy_rows) or shrink the force (forces:)" if fixed is not None
                       else "Widen the map (map.width), add rows (setup.deploy_rows) or "
                       "shrink the force (forces:)"), file=where,
                    key=("forces" if sc_has_forces(counts, data, side)
                         else "map" if fixed is not None else "map.width"),
                    line=lines.get("forces") if fixed is None else None)
        total = sum(sum(c.values()) for c in counts.values())
        neutrals = ((data.setup.brain_coral + data.setup.island_fish)
                    if data.setup.neutrals_in_scenario else 0)
        if total + neutrals + CREATED_SLOTS > L.MAX_UNITS:
            raise InputError(f"both forces hold {total} units; with {neutrals} neutrals and "
                             f"{CREATED_SLOTS} slots for created creatures that exceeds the "
                             f"engine's {L.MAX_UNITS} unit slots", file=source, key="forces",
                             line=lines.get("forces"))

    @staticmethod
    def _unit(data, name: str):
        for g in ("sea_king", "sea_witch", "neutral"):
            table = getattr(data.units, g)
            if name in table:
                return table[name]
        raise KeyError(name)

    # ---- playing ------------------------------------------------------------------------

    #: cold compile, CPU seconds measured on a 2-core machine (docs/performance.md, "Compile
    #: time"); the first-run status announces it until this machine has timed its own
    compile_estimate_s: ClassVar[dict[str, float]] = {"run": 110.0, "all": 120.0}

    def warm_up(self, prepared: Prepared | None = None, *, trace: bool = False) -> None:
        """Compile (or load from numba's cache) the kernel entry points; plays no batch game.

        ``run_chunk``'s (``play_block`` called for zero games) for the argument types of
        ``prepared`` (default: the default game; every Atlantis scenario has the same
        types), and with ``trace`` also ``trace_game`` (one game, replayed).
        """
        from deepsim.rulesets.atlantis.kernel import play_block, play_games, trace_game
        if prepared is None:
            prepared = self.prepare({"name": "warm-up", "ruleset": self.name, "games": 1,
                                     "seed": 0, "chunk_size": 1}, source="warm-up")
        args = prepared.compiled["arrays"].kernel_args()
        seed, zero = np.int64(prepared.scenario["seed"]), np.int64(0)
        tables = play_games(seed, zero, zero, *args)              # empty tables
        play_block(seed, np.zeros(0, np.int64), zero, zero, *args, *tables)
        if trace:
            trace_game(seed, zero, 1, *args)

    def factions(self, prepared: Prepared | None = None) -> list[str]:
        """The two sides (the faction column's values), in side-code order."""
        return list(L.SIDE_TITLES)

    # ---- the tables: winner, end, first move and killer; side and outcome ----------------

    def games_extra(self, prepared: Prepared, gi, gf) -> dict:
        """Whether an adjudication decided a stopped game (bool), the winning side
        (``unresolved`` when none: the rules have no draw, AT-V1; only a game the safety
        cap stopped has no winner), the end's cause, the side that moved first and the
        killer's unit type, as categoricals."""
        ws = gi[:, L.G_WINNER_SIDE]
        titles = prepared.compiled["unit_titles"]
        return {"adjudicated": gi[:, L.G_ADJUDICATED].astype(bool),
                "winner": pd.Categorical.from_codes(
                    np.where(ws < 0, 2, ws),
                    categories=list(L.SIDE_TITLES) + ["unresolved"]),
                "end": pd.Categorical.from_codes(gi[:, L.G_END_CAUSE],
                                                 categories=list(L.END_CAUSES)),
                "first": pd.Categorical.from_codes(gi[:, L.G_FIRST_SIDE],
                                                   categories=list(L.SIDE_TITLES)),
                "killer": pd.Categorical.from_codes(gi[:, L.G_KILLER_TYPE] + 1,
                                                    categories=[""] + list(titles))}

    def faction_columns(self, prepared: Prepared, s_int) -> dict:
        """The seat's side (the faction)."""
        return {"faction": pd.Categorical.from_codes(s_int[L.S_SIDE],
                                                     categories=list(L.SIDE_TITLES))}

    def seats_extra(self, prepared: Prepared, s_int, s_flt, seat) -> dict:
        """The seat's outcome (win, loss, or unresolved when the safety cap stopped the
        game: the kernel gives both seats no win then) and whether it moved first."""
        win = s_flt[L.SF_WIN]
        # both seats without a win: only a stopped, unadjudicated game (no draw, AT-V1)
        pair = win.reshape(-1, 2).sum(axis=1)
        open_ = np.repeat(pair <= 0.0, 2)
        return {"outcome": pd.Categorical.from_codes(
                    np.where(open_, 2, np.where(win >= 1.0, 0, 1)),
                    categories=["win", "loss", "unresolved"]),
                "first": seat == 0}

    # ---- trace --------------------------------------------------------------------------

    def trace(self, prepared: Prepared, game_index: int) -> list[str]:
        """Replay game ``game_index`` with the kernel's event buffer on; readable lines.

        It is the same kernel code path as the batch (``play_game``), so the trace ends with
        the winner of that game's batch row.
        """
        from deepsim.rulesets.atlantis.trace import format_events
        t = self.traced(prepared, game_index)
        seed, gi, gf, si, ev = t.seed, t.gi, t.gf, t.si, t.events
        labels = prepared.compiled["bot_labels"]
        seat_names = [f"seat {p}: {L.SIDE_TITLES[int(si[0, p, L.S_SIDE])]} "
                      f"({labels[int(si[0, p, L.S_BOT])]})" for p in range(2)]
        a, deal, where = t.arrays, t.deal, t.where
        lines = [(f"Atlantis game {game_index}{where} of seed {seed}: "
                  f"{int(a.rules[L.R_MAP_WIDTH])}x{int(a.rules[L.R_MAP_HEIGHT])} "
                  f"{'fixed' if prepared.compiled['fixed_map'] is not None else 'generated'} "
                  f"map")]
        lines += [f"  {nm}" for nm in seat_names]
        if prepared.placeholders:
            lines.append("  placeholder data: " + ", ".join(prepared.placeholders))
        for rule in prepared.skipped_rules:
            lines.append(f"  skipped rule: {rule}")
        lines += self._map_lines(prepared, seed, deal, ev)
        lines += format_events(ev, prepared,
                               terrain_names=prepared.compiled["terrain_titles"],
                               spell_names=prepared.compiled["spell_titles"])
        lines.append("")
        g = gi[0]
        winner = ("unresolved (stopped by the safety cap end.max_turns)"
                  if g[L.G_WINNER_SIDE] < 0 else L.SIDE_TITLES[int(g[L.G_WINNER_SIDE])]
                  + (" by material (end.at_cap)" if g[L.G_ADJUDICATED] else ""))
        killer = (prepared.compiled["unit_titles"][int(g[L.G_KILLER_TYPE])]
                  if g[L.G_KILLER_TYPE] >= 0 else "-")
        lines.append(f"Result: {winner} after {g[L.G_TURNS]} player-turns "
                     f"({L.END_CAUSES[int(g[L.G_END_CAUSE])]}, killer {killer}); material "
                     f"Sea Witch {gf[0, L.GF_MATERIAL_WITCH]:g}, Sea King "
                     f"{gf[0, L.GF_MATERIAL_KING]:g}")
        return lines

    @staticmethod
    def _map_lines(prepared: Prepared, seed: int, game_index: int, ev) -> list[str]:
        """The game's map as a text grid (docs/atlantis-maps.md) for the trace.

        A generated map is drawn again by ``maps.generate`` from counter 0 of the game's
        stream, which is where the kernel's setup draws it; it is shown only if every
        deployment hex of the trace is passable on it (a guard against a kernel that draws
        something else first).
        """
        from deepsim.rulesets.atlantis import maps
        a = prepared.compiled["arrays"]
        w, h = int(a.rules[L.R_MAP_WIDTH]), int(a.rules[L.R_MAP_HEIGHT])
        if a.rules[L.R_MAP_SOURCE] > 0.5:
            ter, cur = a.fixed_terrain, a.fixed_current
        else:
            ter, cur = maps.generate(a.gen, w, h, seed, game_index)
            cells = ev[ev[:, 2] == L.EV_DEPLOY][:, 5]
            cells = cells[(cells >= 0) & (cells < w * h)]
            if not a.terrain[ter[cells], L.T_PASSABLE].all():
                return ["map: (not shown: it could not be drawn again)"]
        codes = dict(enumerate(prepared.compiled["terrain_codes"]))
        grid = maps.format_grid(ter, cur, w, codes)
        return (["map (row 0: the Sea Witch's edge; codes: docs/atlantis-maps.md):"]
                + ["  " + row for row in grid.splitlines()])

    def bot_data(self) -> BotData:
        """The bots' knobs with their bounds and the styles (``baseline`` marked)."""
        return bot_data()

    def odds(self):
        """Exact dice odds (odds.py: ``deepsim odds atlantis QUESTION``)."""
        from deepsim.rulesets.atlantis.odds import BOOK
        return BOOK

    # ---- report -------------------------------------------------------------------------

    def report_sections(self, ctx) -> list:
        """The shared sections, then Atlantis's (report.py: sides, first move, length,
        endings, material of the games the safety cap stopped, bot styles per side)."""
        from deepsim.report.sections import standard
        from deepsim.rulesets.atlantis import report
        return [*standard(ctx), *report.sections(ctx)]

    # ---- bench --------------------------------------------------------------------------

    def bench_players(self) -> tuple[int, ...]:
        return (2,)

    def bench_scenario(self, players: int | None = None) -> dict:
        """The rules as written on generated maps, both purposeful styles drawn per side
        (scenarios/atlantis.yaml)."""
        return {"players": 2, "sides": {"sea_witch": {"bot": "any"},
                                        "sea_king": {"bot": "any"}},
                "bots": ["aggressive", "defensive"]}


def sc_has_forces(counts, data, side) -> bool:
    """True when ``side``'s force differs from the Basic game's (to blame ``forces``)."""
    basic = {u: x.count for u, x in getattr(data.units, side).items() if x.count}
    return counts[side] != basic
