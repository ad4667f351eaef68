"""DEEPFALL: the first ruleset. Data in ruleset.yaml, rules in kernel.py, bots in bots.py."""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from deepsim.botdata import BotData, load_bot_data
from deepsim.errors import InputError
from deepsim.params import (
    apply_overrides,
    leaf_paths,
    load_yaml,
    nearest,
    override_lines,
    parameter_table,
    params_hash,
    parse_override,
    validate,
)
from deepsim.rulesets.base import Prepared
from deepsim.rulesets.deepfall import compile as comp
from deepsim.rulesets.deepfall import layout as L
from deepsim.rulesets.deepfall.scenario import DeepfallScenario
from deepsim.rulesets.deepfall.schema import (
    CALLINGS,
    DICE,
    LINEAGES,
    DeepfallData,
    display_name,
)
from deepsim.scenario import LINES

HERE = Path(__file__).parent
DATA_FILE = HERE / "ruleset.yaml"
BOTS_FILE = HERE / "bots.yaml"

#: Rulebook rules the engine does not implement (also listed in docs/RULES.md).
SKIPPED_RULES: list[str] = [
    "§2 Denizen rep tracks: listed as a component, but no rule of §3-§9 uses them",
    "§7.2 Library note 'loot-rich': no mechanic beyond the tile's value (A44)",
]


@lru_cache(maxsize=1)
def default_data() -> dict:
    """The shipped ruleset data (a fresh copy is returned by :func:`load_data`)."""
    data, _ = load_yaml(DATA_FILE)
    return data


@lru_cache(maxsize=1)
def _default_lines() -> dict:
    return load_yaml(DATA_FILE)[1]


@lru_cache(maxsize=1)
def parameter_paths() -> dict:
    """Every settable dotted path of the ruleset with its default value."""
    model = DeepfallData.model_validate(default_data())
    paths = leaf_paths(model.model_dump())
    # A3: a starting bag may be changed one die at a time; a die the bag does not hold is
    # there with count 0 (lineages.wisp.start_bag.warrior=2 adds two Warriors)
    out: dict = {}
    for path, value in paths.items():
        bag = path.rpartition(".")[0]
        if bag.startswith("lineages.") and bag.endswith(".start_bag"):
            if f"{bag}.{DICE[0]}" not in out:        # the bag's first key: every die, in order
                out.update({f"{bag}.{die}": paths.get(f"{bag}.{die}", 0) for die in DICE})
            continue
        out[path] = value
    return out


#: placeholder flag -> the data it flags. Supplying the whole of that data (or a mapping
#: that holds it) clears the flag unless the same overrides set the flag itself; a partial
#: change (one die of a bag, one floor's weights) leaves the rest placeholder and the flag on.
_PLACEHOLDER_DATA = {**{f"lineages.{n}.start_bag_placeholder": f"lineages.{n}.start_bag"
                        for n in LINEAGES},
                     "dungeon.placeholder": "dungeon.floor_weights"}


def _clear_supplied_placeholders(data: dict, paths: list[str]) -> None:
    """Clear (in place) each placeholder flag whose data the designer supplied whole.

    ``paths`` are the override paths applied to ``data``. A flag the designer wrote (its
    own path, or its key inside a mapping they supplied) is left as they wrote it.
    """
    def under(path: str) -> bool:        # path itself or a mapping holding it was supplied
        return path in paths or any(path.startswith(p + ".") for p in paths)

    for flag, target in _PLACEHOLDER_DATA.items():
        if not under(target):
            continue
        *parents, leaf = flag.split(".")
        node = data
        for part in parents:
            node = node[part]
        # a supplied mapping replaced the base, so the flag's key is there only if written
        written = flag in paths or (under(flag) and leaf in node)
        if not written:
            node[leaf] = False


def load_data(overrides: dict | list[str] | None = None, *, source: str = "--set",
              lines: dict[str, int] | None = None) -> DeepfallData:
    """Validated ruleset data after dotted-path overrides.

    ``lines`` maps an override path (or a parent of it) to its line in ``source``.

    Raises
    ------
    InputError
        Unknown path (with nearest valid ones) or a value out of its bounds.
    """
    base = copy.deepcopy(DeepfallData.model_validate(default_data()).model_dump())
    data = apply_overrides(base, overrides or {}, valid_paths=parameter_paths(), source=source,
                           lines=lines)
    items = overrides or {}
    _clear_supplied_placeholders(data, [str(k) for k in items] if isinstance(items, dict)
                                 else [parse_override(o)[0] for o in items])
    return validate(DeepfallData, data, source=source if overrides else str(DATA_FILE),
                    lines=(lines or {}) if overrides else _default_lines())




@lru_cache(maxsize=1)
def bot_data() -> BotData:
    """The bots' knobs (type, bounds, searchable) and styles from bots.yaml."""
    return load_bot_data(BOTS_FILE, L.KNOBS)


def bot_styles() -> dict[str, dict[str, float]]:
    """Bot styles from bots.yaml with every knob filled (a knob a style leaves out takes
    the knob's default)."""
    return bot_data().values()


def _placeholders(d: DeepfallData, lineages: set[str] | None = None) -> list[str]:
    """The placeholder data a run rests on: the starting bags of the Lineages it can deal
    (``lineages``; None: every one) that are still flagged, and the floor weights."""
    out = [f"lineages.{n}.start_bag" for n in LINEAGES   # A3: cards not printed
           if d.lineages[n].start_bag_placeholder and (lineages is None or n in lineages)]
    if d.dungeon.placeholder:
        out.append("dungeon.floor_weights")              # A21
    return out




def _dealt_lineages(sc: DeepfallScenario, counts: list[int]) -> set[str] | None:
    """The Lineages a scenario can deal (None: any, when a seat it plays is random)."""
    seats = sc.seats[:max(counts)] if sc.seats else []
    if not seats or len(seats) < max(counts) or any(s.lineage == "random" for s in seats):
        return None
    return {s.lineage for s in seats}


class DeepfallRuleset:
    """The DEEPFALL ruleset behind the runner contract (deepsim.rulesets.base.Ruleset)."""

    name = "deepfall"
    title = "DEEPFALL"
    #: the seats column naming what a player picks (Lineage + Calling), and its noun
    faction_column = "company"
    faction_label = "company"
    #: seats columns a win share can be grouped by (gate, sweep, tune, report)
    group_columns = ("company", "lineage", "calling", "bot", "seat")
    #: sweep/tune metrics when none are given
    default_metrics = ("company_spread", "lineage_spread", "calling_spread", "seat_advantage",
                       "rounds")

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
        merged = dict(sc.overrides)
        sets = []
        for o in overrides or []:
            k, v = parse_override(o)
            merged[k] = v
            sets.append(k)
        src = source if not overrides else f"{source} / --set"
        ov_lines = override_lines(lines, sets)
        try:
            data = load_data(merged, source=src, lines=ov_lines)
        except InputError as exc:
            if exc.line is None or src == source:
                raise
            # the line is in the scenario's overrides: block, not in a --set
            raise InputError(exc.message, file=source, key=exc.key, line=exc.line) from None
        counts = sc.players if isinstance(sc.players, list) else [sc.players]
        lo, hi = data.players.min, data.players.max
        outside = [c for c in counts if not lo <= c <= hi]
        if outside:
            raise InputError(f"DEEPFALL plays {lo}-{hi} players with these parameters "
                             f"(players.min {lo}, players.max {hi}), got "
                             f"{', '.join(map(str, outside))}", file=source, key="players",
                             line=lines.get("players"))
        styles = bot_styles()
        names = list(styles)
        for i, b in enumerate(sc.bots):
            if b not in styles:
                raise InputError(f"unknown bot '{b}'{nearest(b, names)}; known: "
                                 f"{', '.join(names)}", file=source, key=f"bots.{i}",
                                 line=lines.get(f"bots.{i}"))
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
                if seat.bot not in styles:
                    raise InputError(f"unknown bot '{seat.bot}'{nearest(seat.bot, names)}; "
                                     f"known: any, {', '.join(names)}", file=source,
                                     key=f"seats.{i}.bot", line=lines.get(f"seats.{i}.bot"))
                prof = dict(styles[seat.bot])
                prof.update(bot_data().check(seat.knobs, file=source,
                                             key=f"seats.{i}.knobs", lines=lines))
                if seat.knobs:
                    profiles.append(prof)
                    spec[i, 2] = len(profiles) - 1
                else:
                    spec[i, 2] = names.index(seat.bot)
            elif seat.knobs:
                raise InputError("knobs need a fixed bot style on the seat", file=source,
                                 key=f"seats.{i}.knobs")
            seat_bots.append(seat.bot)
        if sc.companies.unique:
            for half, label in ((0, "lineage"), (1, "calling")):
                fixed = [v for v in spec[:, half] if v >= 0]
                if len(fixed) != len(set(fixed)):
                    raise InputError(f"two seats share a {label} while companies.unique is "
                                     f"true; set companies.unique: false for mirror games",
                                     file=source, key="companies.unique")
        bot_labels = names + [f"{seat_bots[i]}*" for i in range(len(sc.seats))
                              if spec[i, 2] >= len(names)]
        knobs = np.array([[p[k] for k in L.KNOBS] for p in profiles], np.float64)
        arrays = comp.build(data, players=counts, seat_spec=spec,
                            bot_pool=[names.index(b) for b in sc.bots],
                            unique=sc.companies.unique, knobs=knobs)
        params = data.model_dump()
        # a scenario without rotate_seats resolves exactly as before (same scenario hash)
        resolved = sc.model_dump(exclude=set() if sc.rotate_seats else {"rotate_seats"})
        rotations = None
        if sc.rotate_seats:
            rotations = self._rotations(arrays, spec, sc, counts, source, lines)
            resolved.update({"games": sc.games * len(rotations), "deals": sc.games,
                             "rotations": len(rotations)})
        resolved["resolved_overrides"] = merged
        return Prepared(ruleset=self.name, scenario=resolved, params=params,
                        params_hash=params_hash(params), placeholders=_placeholders(data, _dealt_lineages(sc, counts)),
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

    #: cold compile, CPU seconds measured on a 2-core machine (docs/performance.md, "Compile
    #: time"); the first-run status announces it until this machine has timed its own
    compile_estimate_s: ClassVar[dict[str, float]] = {"run": 40.0, "all": 45.0}

    def warm_up(self, prepared: Prepared | None = None, *, trace: bool = False) -> None:
        """Compile (or load from numba's cache) the kernel entry points; plays no batch game.

        ``run_chunk``'s (``play_block`` called for zero games, ``seat_columns``) for the
        argument types of ``prepared`` (default: a 4-player game; every DEEPFALL scenario
        has the same types), and with ``trace`` also ``trace_game`` (one game, replayed).
        """
        from deepsim.rulesets.deepfall.board import Tables
        from deepsim.rulesets.deepfall.kernel import (
            play_block,
            play_games,
            seat_columns,
            trace_game,
        )
        if prepared is None:
            prepared = self.prepare({"name": "warm-up", "ruleset": self.name, "players": 4,
                                     "games": 1, "seed": 0, "chunk_size": 1},
                                    source="warm-up")
        args = prepared.compiled["arrays"].kernel_args()
        seed, zero = np.int64(prepared.scenario["seed"]), np.int64(0)
        tab = Tables(*play_games(seed, zero, zero, *args))        # empty tables
        play_block(seed, zero, zero, zero, *args, tab)
        seat_columns(tab.gi, tab.si, tab.sf)
        if trace:
            trace_game(seed, zero, 1, *args)

    def run_chunk(self, prepared: Prepared, start: int, count: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play games ``start .. start+count-1``; one games row per game, one seats row per seat.

        The result depends only on (seed, game index): not on chunking or thread count.
        """
        rotations = prepared.compiled.get("rotations")
        if rotations:
            from deepsim.rotation import rotated_chunk
            return rotated_chunk(lambda a, s, c: self._play(prepared, a, s, c), rotations,
                                 start, count)
        return self._play(prepared, prepared.compiled["arrays"], start, count)

    def _play(self, prepared: Prepared, a, start: int, count: int):
        from deepsim.rulesets.deepfall.kernel import play_games
        seed = int(prepared.scenario["seed"])
        gi, gf, si, sf = play_games(np.int64(seed), np.int64(start), np.int64(count),
                                    *a.kernel_args())
        return self._frames(prepared, seed, start, gi, gf, si, sf)

    @staticmethod
    def _deal(prepared: Prepared, game_index: int):
        """(kernel inputs, game index to play, label) of a row of a (rotated) run."""
        rotations = prepared.compiled.get("rotations")
        if not rotations:
            return prepared.compiled["arrays"], game_index, ""
        deal, k = divmod(game_index, len(rotations))
        return rotations[k], deal, f" (deal {deal}, seat rotation {k} of {len(rotations)})"

    def _frames(self, prepared, seed, start, gi, gf, si, sf):
        from deepsim.rulesets.deepfall.kernel import seat_columns
        count = gi.shape[0]
        games = {"game": np.arange(start, start + count, dtype=np.int64),
                 "seed": np.full(count, seed, np.int64)}
        g_int = np.ascontiguousarray(gi.T)
        g_flt = np.ascontiguousarray(gf.T)
        for j, c in enumerate(L.GAME_INT):
            games[c] = g_int[j]
        games["truncated"] = games["truncated"].astype(bool)
        for j, c in enumerate(L.GAME_FLT):
            games[c] = g_flt[j]
        # copy=False: each column stays its own block (pandas would otherwise stack the
        # same-dtype columns into one 2-D block, a copy of the whole table)
        games_df = pd.DataFrame(games, copy=False)
        # one contiguous row per column, straight from the kernel's tables, and
        # categoricals built from codes (building them from strings cost a third of a chunk)
        gidx, seat, players, s_int, s_flt = seat_columns(gi, si, sf)
        gidx += start
        seats = {"game": gidx, "seat": seat, "players": players}
        lin = s_int[L.S_LINEAGE]
        cal = s_int[L.S_CALLING]
        lin_names = [display_name(n) for n in LINEAGES]
        cal_names = [display_name(n) for n in CALLINGS]
        seats["lineage"] = pd.Categorical.from_codes(lin, categories=lin_names)
        seats["calling"] = pd.Categorical.from_codes(cal, categories=cal_names)
        companies = [f"{a} {b}" for a in lin_names for b in cal_names]
        seats["company"] = pd.Categorical.from_codes(lin * len(cal_names) + cal,
                                                     categories=companies)
        labels = prepared.compiled["bot_labels"]
        bot_names = list(dict.fromkeys(labels))
        bot_code = np.array([bot_names.index(b) for b in labels], np.int64)
        seats["bot"] = pd.Categorical.from_codes(bot_code[s_int[L.S_BOT]],
                                                 categories=bot_names)
        for j, c in enumerate(L.SEAT_INT):
            if c in ("lineage", "calling", "bot"):
                continue
            seats[c] = s_int[j]
        for j, c in enumerate(L.SEAT_FLT):
            seats[c] = s_flt[j]
        seats["fair"] = 1.0 / players
        return games_df, pd.DataFrame(seats, copy=False)

    def _traced(self, prepared: Prepared, game_index: int):
        """Play game ``game_index`` with the event buffer on: (gi, si, sf, events, seat
        names, where, seed) of that game (row 0 of its tables)."""
        from deepsim.rulesets.deepfall.kernel import trace_game
        from deepsim.rulesets.deepfall.trace import seat_label
        a, deal, where = self._deal(prepared, game_index)
        seed = int(prepared.scenario["seed"])
        gi, _, si, sf, ev = trace_game(np.int64(seed), np.int64(deal), 200_000,
                                       *a.kernel_args())
        n = int(gi[0, L.G_PLAYERS])
        labels = prepared.compiled["bot_labels"]
        names = [seat_label(p, int(si[0, p, L.S_LINEAGE]), int(si[0, p, L.S_CALLING]),
                            labels[int(si[0, p, L.S_BOT])]) for p in range(n)]
        return gi, si, sf, ev, names, where, seed

    def trace(self, prepared: Prepared, game_index: int) -> list[str]:
        """Replay game ``game_index`` with the kernel's event buffer on; readable lines.

        It is the same kernel code path as the batch (``play_game``), so the trace ends
        with the Glory and winner of that game's batch row. Each line cites the rulebook
        section it applies, or ``[bot]`` with the reason for a bot's decision (trace.py).
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
        lines += format_events(ev, names)
        lines.append("")
        lines.append("Final Glory:")
        for p in range(n):
            lines.append(f"  {names[p]}: {sf[0, p, L.SF_GLORY]:g} Glory (rooms "
                         f"{sf[0, p, L.SF_ROOMS]:g}, cash-outs {sf[0, p, L.SF_CASH]:g}, "
                         f"worthy ends {sf[0, p, L.SF_WORTHY]:g}), place "
                         f"{si[0, p, L.S_PLACE]}")
        return lines

    def trace_records(self, prepared: Prepared, game_index: int) -> list[dict]:
        """The trace of game ``game_index`` as records for tools (``trace --format json``).

        First a ``header`` record (game, seed, players, rooms per floor, Dread track, the
        seats with Lineage, Calling and bot), then one ``event`` record per kernel event
        (:func:`deepsim.rulesets.deepfall.trace.decode`: round, seat, event, rule and its
        named values), last a ``result`` record (each seat's Glory by source, place, win).
        """
        from deepsim.rulesets.deepfall.trace import decode
        gi, si, sf, ev, names, where, seed = self._traced(prepared, game_index)
        labels = prepared.compiled["bot_labels"]
        seats = [{"seat": p, "label": names[p],
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
                  "seats": [{"seat": p, "glory": float(sf[0, p, L.SF_GLORY]),
                             "glory_rooms": float(sf[0, p, L.SF_ROOMS]),
                             "glory_cash_out": float(sf[0, p, L.SF_CASH]),
                             "glory_worthy_end": float(sf[0, p, L.SF_WORTHY]),
                             "place": int(si[0, p, L.S_PLACE]),
                             "win": float(sf[0, p, L.SF_WIN])}
                            for p in range(len(names))]}
        return [header] + [{"type": "event", **e} for e in decode(ev)] + [result]

    def trace_result(self, prepared: Prepared, game_index: int):
        """(games_df, seats_df) of one traced game, for checking against a batch row."""
        from deepsim.rulesets.deepfall.kernel import trace_game
        a, deal, _ = self._deal(prepared, game_index)
        seed = int(prepared.scenario["seed"])
        gi, gf, si, sf, _ = trace_game(np.int64(seed), np.int64(deal), 200_000,
                                       *a.kernel_args())
        games, seats = self._frames(prepared, seed, deal, gi, gf, si, sf)
        rotations = prepared.compiled.get("rotations")
        if rotations:
            from deepsim.rotation import renumber
            n, k = len(rotations), game_index % len(rotations)
            games, seats = renumber(games, n, k, True), renumber(seats, n, k, False)
        return games, seats

    def golden_cases(self) -> list:
        """The frozen scenarios of ``golden.yaml`` whose result digests the tests pin."""
        from deepsim.testing.golden import load_cases
        return load_cases(HERE / "golden.yaml", self.name)

    def bot_data(self) -> BotData:
        """The bots' knobs with their bounds and the styles (``baseline`` marked)."""
        return bot_data()

    def parameters(self) -> list[dict]:
        """Every parameter: dotted path, default, type, bounds and the data file's note.

        The note is the comment beside the key in ruleset.yaml: the rulebook section (§)
        or gap (A..) it implements.
        """
        return parameter_table(DeepfallData, DATA_FILE, parameter_paths(), _default_lines())


RULESET = DeepfallRuleset()
