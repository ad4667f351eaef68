"""The Rivals ruleset behind the runner contract (deepsim.rulesets.base.Ruleset).

``prepare`` validates a scenario, the designer's data files, a fixed map and the data with
its overrides, builds the run's map pool (maps.py) and the kernel arrays (compile.py);
``run_chunk``/``run_games`` play games (kernel.py); ``_frames`` turns the kernel's outputs
into the games and seats tables; ``trace`` replays one game as a log (trace.py). The
faction column is a *build* (a team list under the budget, RV-S1/S6): until real rosters
exist the factions are placeholders, so their names are the builds'.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from deepsim.botdata import BotData, load_bot_data
from deepsim.errors import InputError
from deepsim.factionbots import resolve_faction_bots
from deepsim.params import load_yaml, nearest, params_hash, validate
from deepsim.rulesets import common
from deepsim.rulesets.base import Prepared, Ruleset
from deepsim.rulesets.rivals import layout as L
from deepsim.safeload import read_text
from deepsim.scenario import LINES

HERE = Path(__file__).parent
DATA_FILE = HERE / "rivals.yaml"
BOTS_FILE = HERE / "bots.yaml"

#: Rulebook rules the engine does not play (also in docs/RULES.md, every banner and run.json)
SKIPPED_RULES: list[str] = [
    ("RV-S6 Starter cards (Abilities, Items, Weapons): their 44 texts are not in the "
     "rulebook; the budget buys characters only"),
    ("RV-C4 named abilities (Cut the Rations, Shield Line, Adrenaline Musk, Crumbling Aura, "
     "Warcry, Paralyze, Coral Wall, Curative Coral): names only in the text; one generic "
     "PLACEHOLDER ability, Focus, stands for all"),
    ("RV-K1..K5 status effects (Stun, Poison, Paralyze, Control) and RV-X1 Recover: nothing "
     "in the text inflicts them without the card and ability texts"),
    "RV-P1 Lurker abilities and RV-P6 Controlled Lurkers: the card texts are missing",
    ("RV-M4 Share: loot is equipped to its finder at once (RV-I1); the text never says how "
     "the Loot Supply's items are equipped, so nothing is shared"),
    ("RV-E1 Event deck: its 25 cards are not in the text; the deck is empty unless a "
     "designer supplies one (scenario key data:)"),
]


def _model():
    from deepsim.rulesets.rivals.schema import RivalsData
    return RivalsData


#: the data file read against its model (defaults, dotted paths, overrides)
DATA = common.DataFile(DATA_FILE, _model)
#: the groups a designer's data file (scenario key ``data:``) may give
DESIGNER_GROUPS = ("colours", "roster", "lurkers", "loot", "events", "abilities")


@lru_cache(maxsize=1)
def bot_data() -> BotData:
    """The bots' knobs (type, bounds, searchable) and styles from bots.yaml."""
    return load_bot_data(BOTS_FILE, L.KNOBS)


def placeholders(d, fixed_map: bool) -> list[str]:
    """Parameter paths whose data is invented while their ``placeholder`` flag is set."""
    out = [f"colours.{c}.faces" for c, spec in d.colours.items() if spec.placeholder]
    if d.roster.placeholder:
        out += ["roster.units", "roster.builds"]
    if d.abilities.placeholder:
        out.append("abilities.focus")
    if d.lurkers.placeholder and d.lurkers.enabled:
        out.append("lurkers.deck")
    if d.loot.placeholder:
        out.append("loot.deck")
    if d.events.placeholder and d.events.deck:
        out.append("events.deck")
    if d.map.placeholder and not fixed_map:
        out += ["map.mix", "map.generator"]
    return out


def skipped_rules(d) -> list[str]:
    """SKIPPED_RULES, without the Event deck's line when a designer supplied cards."""
    return [r for r in SKIPPED_RULES if not (r.startswith("RV-E1") and d.events.deck)]


def designer_overrides(paths: list[str], base: Path, *, source: str, lines: dict
                       ) -> tuple[dict, list[str], dict]:
    """The scenario's ``data:`` files as overrides: each group a file gives replaces the
    ruleset's keys it names, and its ``placeholder`` flag becomes the file's (default false:
    a designer's data is taken as transcribed). Colours are replaced one by one.

    Returns (overrides, the files read, {path: file}).

    Raises
    ------
    InputError
        A missing or malformed file, or a group or key the data does not have (naming the
        file, key and line).
    """
    out: dict = {}
    where: dict = {}
    shown = []
    for i, rel in enumerate(paths):
        path = base / rel
        key = "data" if len(paths) == 1 else f"data.{i}"
        if not path.is_file():
            raise InputError(f"no such data file {path} (the path is relative to the "
                             f"scenario file)", file=source, key=key, line=lines.get(key))
        raw, flines = load_yaml(path)
        if not isinstance(raw, dict) or not raw:
            raise InputError("expected a mapping of data groups (any of "
                             f"{', '.join(DESIGNER_GROUPS)})", file=str(path))
        for group, body in raw.items():
            if group not in DESIGNER_GROUPS:
                raise InputError(f"unknown data group{nearest(group, DESIGNER_GROUPS)}; a "
                                 f"designer's file gives any of {', '.join(DESIGNER_GROUPS)}",
                                 file=str(path), key=group, line=flines.get(group))
            if not isinstance(body, dict):
                raise InputError(f"expected a mapping under {group}", file=str(path),
                                 key=group, line=flines.get(group))
            if group == "colours":
                for colour, spec in body.items():
                    if not isinstance(spec, dict):
                        raise InputError("expected a mapping (placeholder, rank, faces)",
                                         file=str(path), key=f"colours.{colour}",
                                         line=flines.get(f"colours.{colour}"))
                    for k, v in spec.items():
                        out[f"colours.{colour}.{k}"] = v
                        where[f"colours.{colour}.{k}"] = str(path)
                    if "placeholder" not in spec:
                        out[f"colours.{colour}.placeholder"] = False
                continue
            for k, v in body.items():
                out[f"{group}.{k}"] = v
                where[f"{group}.{k}"] = str(path)
            if "placeholder" not in body:
                out[f"{group}.placeholder"] = False
        shown.append(str(path))
    return out, shown, where


def load_with_files(extra: dict, where: dict, ov: common.Overrides):
    """The data with the designer's files (``extra``: their group overrides, ``where``:
    path -> file), then the scenario's ``overrides:`` and ``--set`` (``ov``), which may set
    paths the files added (a unit or build of the designer's roster).

    Raises
    ------
    InputError
        A bad path or value, naming the data file it came from, else the scenario or
        ``--set``.
    """
    from deepsim.params import apply_overrides, leaf_paths, validate
    base = DATA.load().model_dump()
    first = next(iter(where.values()), "<data>")

    def owner(key: str | None) -> str | None:
        key = key or ""
        return next((f for k, f in where.items() if key == k or key.startswith(k + ".")),
                    None)

    try:
        staged = apply_overrides(base, extra, valid_paths=DATA.parameter_paths(),
                                 source=first)
        data = validate(DATA.model, staged, source=first)
    except InputError as exc:
        f = owner(exc.key) or first
        raise InputError(f"with the data file {f}: {exc.message}", file=f, key=exc.key,
                         line=None) from None
    if not ov.merged:
        return data
    paths = leaf_paths(data.model_dump())
    try:
        final = apply_overrides(data.model_dump(), ov.merged, valid_paths=paths,
                                source=ov.src, lines=ov.lines)
    except InputError as exc:
        if exc.line is None or ov.src == ov.source:
            raise
        raise InputError(exc.message, file=ov.source, key=exc.key, line=exc.line) from None
    return validate(DATA.model, final, source=ov.src, lines=ov.lines)


_GAMES_COLUMNS = {"game": "int64", "seed": "int64",
                  **{c: "int64" for c in L.GAME_INT if c not in ("truncated", "end_cause")},
                  "truncated": "bool", "end": "category"}
_SEATS_COLUMNS = {"game": "int64", "seat": "int64", "players": "int64", "build": "category",
                  "bot": "category",
                  **{c: "int64" for c in L.SEAT_INT if c not in ("bot", "build")},
                  "win": "float64", "fair": "float64", "first": "bool"}


class RivalsRuleset(Ruleset):
    """Rivals: Masters of the Deep (deepsim.rulesets.base.Ruleset)."""

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
    games_columns = _GAMES_COLUMNS
    seats_columns = _SEATS_COLUMNS
    seat_order = "seat 1 moves first; turns go clockwise; seats rotate over games"
    score_label = None
    report_games_columns = tuple(c for c in _GAMES_COLUMNS if c not in ("game", "seed"))
    report_seats_columns = tuple(c for c in _SEATS_COLUMNS if c not in ("game",))
    #: cold compile, CPU seconds on a 2-core machine (docs/performance.md)
    compile_estimate_s: ClassVar[dict[str, float]] = {"run": 60.0, "all": 75.0}

    # ---- prepare ------------------------------------------------------------------------

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
        common.check_bot_pool(sc.bots, snames, source=source, lines=lines)
        profiles = [dict(styles[n]) for n in snames]
        labels = list(snames)
        seat_bot: list[int] = []
        for i, seat in enumerate(sc.seats):
            if seat.bot == "any":
                if seat.knobs:
                    raise common.knobs_need_a_bot("seat", source=source,
                                                  key=f"seats.{i}.knobs", lines=lines)
                seat_bot.append(-1)
                continue
            common.check_bot(seat.bot, snames, source=source, key=f"seats.{i}.bot",
                             lines=lines)
            if not seat.knobs:
                seat_bot.append(snames.index(seat.bot))
                continue
            prof = dict(styles[seat.bot])
            prof.update(bd.check(seat.knobs, file=source, key=f"seats.{i}.knobs",
                                 lines=lines))
            label = f"{seat.bot}[" + " ".join(f"{k}={v:g}" for k, v in seat.knobs.items()) + "]"
            if label in labels:
                seat_bot.append(labels.index(label))
            else:
                profiles.append(prof)
                labels.append(label)
                seat_bot.append(len(profiles) - 1)
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
        tables = play_games(seed, zero, zero, *args)            # empty tables
        play_block(seed, np.zeros(0, np.int64), zero, zero, zero, *args, *tables,
                   np.zeros(0, np.int64))
        if trace:
            trace_game(seed, zero, np.int64(1), *args)

    def run_chunk(self, prepared: Prepared, start: int, count: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play games ``start .. start+count-1``; one games row per game, one seats row per
        player. The result depends only on (seed, game index)."""
        from deepsim.rulesets.rivals.kernel import play_games
        seed = int(prepared.scenario["seed"])
        gi, si, sf = play_games(np.int64(seed), np.int64(start), np.int64(count),
                                *prepared.compiled["arrays"].kernel_args())
        return self._frames(prepared, seed, start, gi, si, sf)

    def run_games(self, prepared: Prepared, games: np.ndarray
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play the games of index ``games`` (int64, ascending); the rows are those of
        ``run_chunk`` for the same games."""
        from deepsim.rulesets.rivals.kernel import play_listed
        idx = np.ascontiguousarray(games, dtype=np.int64)
        seed = int(prepared.scenario["seed"])
        gi, si, sf = play_listed(np.int64(seed), idx,
                                 *prepared.compiled["arrays"].kernel_args())
        return self._frames(prepared, seed, idx, gi, si, sf)

    def factions(self, prepared: Prepared | None = None) -> list[str]:
        """The builds (the faction column's values) in the kernel's build-code order."""
        if prepared is None:
            return list(DATA.load().roster.builds)
        return list(prepared.compiled["builds"])

    def _frames(self, prepared, seed, start, gi, si, sf):
        """``start``: the first game's index, or the int64 index of every row."""
        count = gi.shape[0]
        index = (np.arange(start, start + count, dtype=np.int64) if np.ndim(start) == 0
                 else np.asarray(start, dtype=np.int64))
        games = {"game": index, "seed": np.full(count, seed, np.int64)}
        for j, c in enumerate(L.GAME_INT):
            if c == "end_cause":
                continue
            games[c] = np.ascontiguousarray(gi[:, j])
        games["truncated"] = games["truncated"].astype(bool)
        games["winner_seat"] = common.seat_number(games["winner_seat"])
        games["end"] = pd.Categorical.from_codes(gi[:, L.G_END_CAUSE],
                                                 categories=list(L.END_CAUSES))
        games_df = pd.DataFrame(games, copy=False)
        players = gi[:, L.G_PLAYERS]
        mask = np.arange(L.MAX_P)[None, :] < players[:, None]
        gidx, seat = np.nonzero(mask)
        s_int = si[gidx, seat, :]
        seats = {"game": index[gidx], "seat": common.seat_number(seat),
                 "players": players[gidx].astype(np.int64)}
        seats["build"] = pd.Categorical.from_codes(s_int[:, L.S_BUILD],
                                                   categories=prepared.compiled["builds"])
        seats["bot"] = common.bot_column(prepared.compiled["bot_labels"], s_int[:, L.S_BOT])
        for j, c in enumerate(L.SEAT_INT):
            if c in ("bot", "build"):
                continue
            seats[c] = np.ascontiguousarray(s_int[:, j])
        by = seats["eliminated_by"]
        seats["eliminated_by"] = np.where(by >= 0, by + 1,
                                          np.where(by == L.BY_LURKER, 0,
                                                   np.where(by == L.BY_EVENT, -2, -1)))
        seats["win"] = np.ascontiguousarray(sf[gidx, seat, L.SF_WIN])
        seats["fair"] = 1.0 / seats["players"]
        seats["first"] = seat == 0
        return games_df, pd.DataFrame(seats, copy=False)

    # ---- trace --------------------------------------------------------------------------

    def _trace_arrays(self, prepared: Prepared, game_index: int, max_events: int = 400_000):
        from deepsim.rulesets.rivals.kernel import trace_game
        seed = int(prepared.scenario["seed"])
        return seed, trace_game(np.int64(seed), np.int64(game_index), max_events,
                                *prepared.compiled["arrays"].kernel_args())

    def trace(self, prepared: Prepared, game_index: int) -> list[str]:
        """Replay game ``game_index`` with the kernel's event buffer on; readable lines.

        The same kernel code path as the batch (``play_game``), so the trace ends with that
        game's batch result.
        """
        from deepsim.rulesets.rivals.trace import format_game
        seed, (gi, si, sf, ev) = self._trace_arrays(prepared, game_index)
        return format_game(prepared, seed, game_index, gi, si, sf, ev)

    def trace_records(self, prepared: Prepared, game_index: int) -> list[dict]:
        """The replay as records (``deepsim trace --format json``)."""
        from deepsim.rulesets.rivals.trace import records
        seed, (gi, si, sf, ev) = self._trace_arrays(prepared, game_index)
        return records(prepared, seed, game_index, gi, si, sf, ev)

    def trace_result(self, prepared: Prepared, game_index: int):
        """(games_df, seats_df) of one traced game, for checking against a batch row."""
        seed, (gi, si, sf, _) = self._trace_arrays(prepared, game_index, 1)
        return self._frames(prepared, seed, game_index, gi, si, sf)

    # ---- data ---------------------------------------------------------------------------

    def golden_cases(self) -> list:
        """The frozen scenarios of ``golden.yaml`` whose result digests the tests pin."""
        from deepsim.testing.golden import load_cases
        return load_cases(HERE / "golden.yaml", self.name)

    def parameters(self) -> list[dict]:
        """Every parameter: dotted path, default, type, bounds and the data file's note
        (the rule id RV-* or ambiguity AMB-* it settles)."""
        return DATA.parameters()

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


RULESET = RivalsRuleset()
__all__ = ["DATA", "RULESET", "SKIPPED_RULES", "RivalsRuleset", "bot_data"]
