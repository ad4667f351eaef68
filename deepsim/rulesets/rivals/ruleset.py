"""Rivals behind the ruleset contract: a scenario, its designer's data files and its map
resolved into kernel inputs, its trace, report hooks and bench scenario (the playing and
the tables are the base's: :class:`deepsim.rulesets.base.KernelRuleset`). The faction
column is a *build* (a team list under the budget, RV-S1/S6): until real rosters exist the
factions are placeholders, so their names are the builds'."""

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
from deepsim.rulesets.base import KernelRuleset, KernelTables, Prepared
from deepsim.rulesets.rivals import layout as L
from deepsim.rulesets.rivals.data import (
    DATA,
    GAMES_COLUMNS,
    HERE,
    SEATS_COLUMNS,
    bot_data,
    designer_overrides,
    load_with_files,
    placeholders,
    skipped_rules,
)
from deepsim.safeload import read_text
from deepsim.scenario import LINES

__all__ = ["RivalsRuleset"]


class RivalsRuleset(KernelRuleset):
    """Rivals: Masters of the Deep behind the ruleset contract
    (:class:`deepsim.rulesets.base.KernelRuleset`): what is Rivals's own (its scenario's
    builds, data files and map, the trace, report and bench); the playing and the tables
    are the base's."""

    name = "rivals"
    title = "Rivals: Masters of the Deep"
    #: until real rosters exist a seat plays a build (a team list), not a faction
    faction_column = "build"
    faction_label = "build"
    group_columns = ("build", "bot", "seat")
    default_metrics = ("seat_advantage", "faction_spread", "rounds")
    default_objective = "faction_spread"
    #: the rulebook states no game length
    target_rounds = None
    games_columns = GAMES_COLUMNS
    seats_columns = SEATS_COLUMNS
    data = DATA
    tables = KernelTables(L.GAME_INT, (), L.SEAT_INT, L.SEAT_FLT, coded=("bot", "build"))
    seat_order = "seat 1 moves first; turns go clockwise; seats rotate over games"
    score_label = None
    #: AMB-26: the rules have no round limit; the engine's cap stops a game the bots cannot
    #: finish (unresolved, or adjudicated by the cost standing with end.cap_result=cost_left)
    safety_caps: ClassVar[dict[str, str]] = {"end.max_rounds": "round"}
    report_games_columns = tuple(c for c in GAMES_COLUMNS if c not in ("game", "seed"))
    report_seats_columns = tuple(c for c in SEATS_COLUMNS if c not in ("game",))
    #: cold compile, CPU seconds on a 2-core machine (docs/performance.md, "Rivals"; the
    #: trace entry point adds ~11 s to "all")
    compile_estimate_s: ClassVar[dict[str, float]] = {"run": 125.0, "all": 135.0}

    # ---- prepare ------------------------------------------------------------------------

    def placeholder_paths(self) -> list[str]:
        """The shipped data's invented numbers while flagged (a generated map)."""
        return placeholders(DATA.load(), False)

    def prepare(self, scenario: dict, *, source: str = "<scenario>",
                overrides: list[str] | None = None) -> Prepared:
        """Validate a scenario, its data files and map and the ruleset data with overrides;
        build the map pool and the kernel arrays.

        Scenario ``overrides:`` apply first, then ``--set`` ``overrides`` (later wins); the
        designer's ``data:`` files then replace the groups they give (their content is part
        of the parameters and their hash; their paths are not).

        Raises
        ------
        InputError
            For any invalid scenario key, build, bot, knob, data file, map or parameter.
        """
        from deepsim.rulesets.rivals import compile as comp
        from deepsim.rulesets.rivals import maps
        from deepsim.rulesets.rivals.scenario import MapSpec, RivalsScenario

        lines = LINES.get(source, {})
        sc = validate(RivalsScenario, scenario, source=source, lines=lines)
        ov = common.merge_overrides(sc.overrides, overrides, source=source, lines=lines)
        base = Path(source).parent if not source.startswith("<") else Path.cwd()
        files: list[str] = []
        if sc.data is not None:
            paths = [sc.data] if isinstance(sc.data, str) else list(sc.data)
            extra, files, where = designer_overrides(paths, base, source=source, lines=lines)
            data = load_with_files(extra, where, ov)
        else:
            data = DATA.load_merged(ov)

        counts = common.player_counts(sc.players)
        common.check_players("Rivals", counts, data.players.min, data.players.max,
                             source=source, lines=lines)

        # ---- the map: fixed (file or grid) or the generated pool
        fixed = None
        if sc.map is not None:
            spec = sc.map if isinstance(sc.map, MapSpec) else MapSpec(file=sc.map)
            if spec.file is not None:
                path = base / spec.file
                try:
                    text = read_text(path, what="map file")
                except InputError as exc:
                    if exc.message == "no such file":
                        raise InputError("no such map file (the path is relative to the "
                                         "scenario file)", file=str(path)) from None
                    raise
                fixed = maps.parse_grid(text, source=str(path))
            else:
                first = lines.get("map.grid")
                fixed = maps.parse_grid(spec.grid, source=source,
                                        first_line=(first + 1) if first else 1)
            wrong = [c for c in counts if c != fixed.players]
            if wrong:
                raise InputError(f"the map has spawns of {fixed.players} players, but the "
                                 f"scenario plays {', '.join(map(str, counts))}",
                                 file=source, key="players", line=lines.get("players"))
            pool = maps.fixed_pool(fixed, los_adjacent=data.los.adjacent_always)
        elif data.map.source == "file":
            raise InputError("map.source file needs a map in the scenario: `map: PATH` or "
                             "`map: {grid: ...}`", file=ov.src, key="map.source",
                             line=ov.lines.get("map.source"))
        else:
            pool = maps.build_pool(data.map, counts, sc.seed,
                                   los_adjacent=data.los.adjacent_always)

        # ---- builds: the pool and each seat's, each with a team at every player count
        names = list(data.roster.builds)
        pool_names = sc.builds if sc.builds is not None else names
        for i, b in enumerate(pool_names):
            if b not in names:
                raise InputError(f"unknown build '{b}'{nearest(b, names)}; builds: "
                                 f"{', '.join(names)}", file=source, key=f"builds.{i}",
                                 line=lines.get(f"builds.{i}"))
        seat_build = []
        for i, seat in enumerate(sc.seats):
            if seat.build == "any":
                seat_build.append(-1)
                continue
            if seat.build not in names:
                key = f"seats.{i}.build"
                raise InputError(f"unknown build '{seat.build}'{nearest(seat.build, names)}"
                                 f"; builds: any, {', '.join(names)}", file=source, key=key,
                                 line=lines.get(key))
            seat_build.append(names.index(seat.build))
        used = set(pool_names) | {s.build for s in sc.seats if s.build != "any"}
        for b in sorted(used):
            missing = [n for n in counts if n not in data.roster.builds[b].teams]
            if missing:
                raise InputError(f"build '{b}' has no team for {', '.join(map(str, missing))} "
                                 f"players (roster.builds.{b}.teams)", file=source,
                                 key="players", line=lines.get("players"))

        # ---- bots: the named styles, then one profile per knobbed seat
        bd = bot_data()
        styles = bd.values()
        snames = list(styles)
        profiles, labels, seat_bot = common.seat_profiles(
            sc.seats, styles, sc.bots,
            lambda i, seat: bd.check(seat.knobs, file=source, key=f"seats.{i}.knobs",
                                     lines=lines),
            source=source, lines=lines)
        # every seat of a build with bots of its own (faction_bots) plays them
        fbots = resolve_faction_bots(sc.faction_bots, factions=names, bot_data=bd,
                                     source=source, lines=lines)
        fmix = (fbots.attach(names, profiles, labels, {n: i for i, n in enumerate(snames)})
                if fbots else None)
        knobs = np.array([[p[k] for k in L.KNOBS] for p in profiles], np.float64)
        arrays = comp.build(data, pool, knobs=knobs, seat_build=seat_build,
                            build_pool=[names.index(b) for b in pool_names],
                            seat_bot=seat_bot, bot_pool=[snames.index(b) for b in sc.bots],
                            players=counts, rotate=sc.rotate, fmix=fmix)
        params = data.model_dump()
        if fixed is not None:
            # the grid is part of the ruleset variant (a changed file changes the hash)
            params["map"]["grid"] = fixed.text
            params["map"]["source"] = "file"
        resolved = sc.model_dump(exclude={"map", "data"})
        resolved["resolved_overrides"] = ov.merged
        if fbots is not None:
            resolved["faction_bots"] = fbots.resolved()
        return Prepared(ruleset=self.name, scenario=resolved, params=params,
                        params_hash=params_hash(params),
                        placeholders=placeholders(data, fixed is not None),
                        skipped_rules=skipped_rules(data),
                        baseline_bots=list(bd.baseline_styles),
                        compiled={"arrays": arrays, "bot_labels": labels,
                                  "builds": names, "units": list(data.roster.units),
                                  "colours": list(data.degrade_order),
                                  "lurkers": [c.name for c in data.lurkers.deck],
                                  "loot": [c.name for c in data.loot.deck
                                           for _ in range(c.count)],
                                  "events": [c.effect for c in data.events.deck
                                             for _ in range(c.count)],
                                  "geometry": pool.geometry.coords,
                                  "fixed_map": fixed is not None, "data_files": files,
                                  "seed": sc.seed})

    # ---- playing ------------------------------------------------------------------------

    def default_prepared(self) -> Prepared:
        """The shipped rules on a small map pool (warm-up and tests)."""
        return self.prepare({"name": "warm-up", "ruleset": self.name, "games": 1,
                             "seed": 0, "chunk_size": 1, "players": [2, 3, 4]},
                            source="warm-up", overrides=["map.pool=2"])

    def warm_up(self, prepared: Prepared | None = None, *, trace: bool = False) -> None:
        """Compile (or load from numba's cache) the kernel entry points; plays no batch game.

        ``run_chunk``'s (``play_block`` called for zero games) for the argument types of
        ``prepared`` (every Rivals scenario has the same types), and with ``trace`` also
        ``trace_game`` (one game, replayed).
        """
        from deepsim.rulesets.rivals.kernel import play_block, play_games, trace_game
        prepared = prepared or self.default_prepared()
        args = prepared.compiled["arrays"].kernel_args()
        seed, zero = np.int64(prepared.scenario["seed"]), np.int64(0)
        gi, _, si, sf = play_games(seed, zero, zero, *args)    # empty tables
        play_block(seed, np.zeros(0, np.int64), zero, zero, zero, *args, gi, si, sf,
                   np.zeros(0, np.int64))
        if trace:
            trace_game(seed, zero, np.int64(1), *args)

    def factions(self, prepared: Prepared | None = None) -> list[str]:
        """The builds (the faction column's values) in the kernel's build-code order."""
        if prepared is None:
            return list(DATA.load().roster.builds)
        return list(prepared.compiled["builds"])

    # ---- the tables: the build column, how the game ended, who played first ----------

    def faction_columns(self, prepared: Prepared, s_int: np.ndarray) -> dict:
        """The seats' ``build`` (the faction column) from its code."""
        return {"build": pd.Categorical.from_codes(
            s_int[L.SEAT_INT.index("build")], categories=list(prepared.compiled["builds"]))}

    def games_extra(self, prepared: Prepared, gi: np.ndarray, gf: np.ndarray) -> dict:
        """How the game ended (``layout.END_CAUSES``) as a categorical, and whether the
        opt-in adjudication at the round cap (AMB-26 ``end.cap_result=cost_left``) decided
        a stopped game."""
        by_cost = prepared.params["end"]["cap_result"] == "cost_left"
        return {"end": pd.Categorical.from_codes(gi[:, L.G_END_CAUSE],
                                                 categories=list(L.END_CAUSES)),
                "adjudicated": (gi[:, L.G_TRUNCATED] > 0) & by_cost}

    def seats_extra(self, prepared: Prepared, s_int: np.ndarray, s_flt: np.ndarray,
                    seat: np.ndarray) -> dict:
        """Whether the seat played first, and ``eliminated_by`` as users read it: the seat
        number whose attack took the last model, 0 a Lurker, -2 an event, -1 none."""
        by = s_int[L.S_ELIM_BY]
        return {"first": seat == 0,
                "eliminated_by": np.where(by >= 0, by + 1,
                                          np.where(by == L.BY_LURKER, 0,
                                                   np.where(by == L.BY_EVENT, -2, -1)))}

    # ---- trace --------------------------------------------------------------------------

    def trace(self, prepared: Prepared, game_index: int) -> list[str]:
        """Replay game ``game_index`` with the kernel's event buffer on; readable lines.

        The same kernel code path as the batch (``play_game``), so the trace ends with that
        game's batch result.
        """
        from deepsim.rulesets.rivals.trace import format_game
        t = self.traced(prepared, game_index)
        return format_game(prepared, t.seed, game_index, t.gi, t.si, t.sf, t.events)

    def trace_records(self, prepared: Prepared, game_index: int) -> list[dict]:
        """The replay as records (``deepsim trace --format json``)."""
        from deepsim.rulesets.rivals.trace import records
        t = self.traced(prepared, game_index)
        return records(prepared, t.seed, game_index, t.gi, t.si, t.sf, t.events)

    def bot_data(self) -> BotData:
        """The bots' knobs with their bounds and the styles (``baseline`` marked)."""
        return bot_data()

    def odds(self):
        """Exact dice odds (odds.py: ``deepsim odds rivals QUESTION``), from the same data
        and readings the kernel rolls."""
        from deepsim.rulesets.rivals.odds import BOOK
        return BOOK

    def search_spaces(self) -> dict:
        """``search.yaml``: each ambiguity's readings (``deepsim tune --space readings``)."""
        import yaml
        with open(HERE / "search.yaml", encoding="utf-8") as fh:
            return yaml.safe_load(fh) or {}

    # ---- report -------------------------------------------------------------------------

    def report_sections(self, ctx) -> list:
        """The shared sections, then Rivals's (report.py: the designer's questions)."""
        from deepsim.report.sections import standard
        from deepsim.rulesets.rivals import report
        return [*standard(ctx), *report.sections(ctx)]

    # ---- bench --------------------------------------------------------------------------

    def bench_players(self) -> tuple[int, ...]:
        return (2, 3, 4)

    def bench_scenario(self, players: int | None = None) -> dict:
        """The three heuristic styles drawn per seat, every build (scenarios/rivals.yaml)."""
        return {"players": players or 2, "bots": ["brawler", "sniper", "looter"]}

