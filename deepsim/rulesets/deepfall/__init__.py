"""DEEPFALL: the first ruleset. Data in ruleset.yaml, rules in kernel.py, bots in bots.py."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from deepsim import rotation
from deepsim.botdata import BotData, load_bot_data
from deepsim.errors import InputError
from deepsim.factionbots import resolve_faction_bots
from deepsim.params import params_hash, validate
from deepsim.rulesets import common
from deepsim.rulesets.base import Prepared, ReportOption, Ruleset
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


def _settable_paths(paths: dict) -> dict:
    """The data's leaf paths with every die of each starting bag (A3).

    A starting bag may be changed one die at a time; a die the bag does not hold is there
    with count 0 (lineages.wisp.start_bag.warrior=2 adds two Warriors).
    """
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


def _after_overrides(data: dict, paths: list[str]) -> None:
    """Clear the placeholder flags of supplied data, and drop the dice a starting bag holds
    0 of (A3: a bag without a die and one with 0 of it are the same bag, so setting a die
    to its default 0 leaves the parameters, and their hash, unchanged)."""
    _clear_supplied_placeholders(data, paths)
    for lineage in (data.get("lineages") or {}).values():
        bag = lineage.get("start_bag") if isinstance(lineage, dict) else None
        if isinstance(bag, dict):
            for die in [k for k, v in bag.items() if type(v) is int and v == 0]:
                del bag[die]


#: the data file read against its model (defaults, dotted paths, overrides)
DATA = common.DataFile(DATA_FILE, lambda: DeepfallData, paths=_settable_paths,
                       on_overrides=_after_overrides)
default_data = DATA.default_data
parameter_paths = DATA.parameter_paths
#: validated ruleset data after dotted-path overrides (``DataFile.load``)
load_data = DATA.load


@lru_cache(maxsize=1)
def bot_data() -> BotData:
    """The bots' knobs (type, bounds, searchable) and styles from bots.yaml."""
    return load_bot_data(BOTS_FILE, L.KNOBS)


def bot_styles() -> dict[str, dict[str, float]]:
    """Bot styles from bots.yaml with every knob filled (a knob a style leaves out takes
    the knob's default)."""
    return bot_data().values()


def companies() -> list[str]:
    """Every company's name in the kernel's company-code order (Lineage x 6 + Calling),
    spelled as the rulebook prints it (schema.display_name)."""
    return [f"{display_name(a)} {display_name(b)}" for a in LINEAGES for b in CALLINGS]


def _placeholders(d: DeepfallData, lineages: set[str] | None = None) -> list[str]:
    """The placeholder data a run rests on: the starting bags of the Lineages it can deal
    (``lineages``; None: every one) that are still flagged, and the floor weights."""
    out = [f"lineages.{n}.start_bag" for n in LINEAGES   # A3: cards not printed
           if d.lineages[n].start_bag_placeholder and (lineages is None or n in lineages)]
    if d.dungeon.placeholder:
        out.append("dungeon.floor_weights")              # A21
    return out


#: what the report's claims read (deepsim report --option KEY=VALUE)
REPORT_OPTIONS = (
    ReportOption("claims.rounds_target", "rounds_target", 11.0,
                 "B1: the rulebook's game length in rounds"),
    ReportOption("claims.rounds_tolerance", "rounds_tolerance", 1.0,
                 "B1: '~' means the mean is within this many rounds of the target"),
    ReportOption("claims.touch_max", "touch_max", 0.20,
                 "B3, B5: 'a touch / slightly strong' means win share above fair, by at most "
                 "this fraction (0.2 = +20%)"),
    ReportOption("claims.almost_never", "almost_never", 0.05,
                 "B4: 'almost never' means in at most this share of player-games (or of "
                 "crews)"),
    ReportOption("claims.substitute_tolerance", "substitute_tolerance", 0.25,
                 "B5: exits are substitutes when the win-rate ratio of their users is within "
                 "[1/(1+this), 1+this]"),
    ReportOption("claims.tight_margin", "tight_margin", 0.10,
                 "B6: a game is tight when the winner leads the runner-up by at most this "
                 "fraction of its Glory"),
    ReportOption("claims.contention_tolerance", "contention_tolerance", 0.25,
                 "B7: contention is constant when the largest player count's value is at "
                 "most 1 + this times the smallest"),
)


_GAMES_COLUMNS = {"game": "int64", "seed": "int64", **{c: "int64" for c in L.GAME_INT},
                  "truncated": "bool", **{c: "float64" for c in L.GAME_FLT}}
_SEATS_COLUMNS = {"game": "int64", "seat": "int64", "players": "int64",
                  **{c: "category" for c in ("lineage", "calling", "company", "bot")},
                  **{c: "int64" for c in L.SEAT_INT if c not in ("lineage", "calling", "bot")},
                  **{c: "float64" for c in L.SEAT_FLT}, "fair": "float64"}


def _dealt_lineages(sc: DeepfallScenario, counts: list[int]) -> set[str] | None:
    """The Lineages a scenario can deal (None: any, when a seat it plays is random)."""
    seats = sc.seats[:max(counts)] if sc.seats else []
    if not seats or len(seats) < max(counts) or any(s.lineage == "random" for s in seats):
        return None
    return {s.lineage for s in seats}


def _numbered(event: dict) -> dict:
    """A decoded kernel event (seats indexed from 0, a ``score`` event's ``winners`` a bit
    mask over seat indices) with seats numbered from 1 for tools (``trace --format json``)."""
    out = dict(event)
    if out["seat"] >= 0:
        out["seat"] += 1
    if out["event"] == "score":     # §6B.2: the winners of a room's claim (bit mask)
        out["winners"] = [q + 1 for q in range(L.MAX_SEATS) if int(out["winners"]) >> q & 1]
    return out


class DeepfallRuleset(Ruleset):
    """The DEEPFALL ruleset behind the runner contract (deepsim.rulesets.base.Ruleset)."""

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
    games_columns = _GAMES_COLUMNS
    seats_columns = _SEATS_COLUMNS
    seat_order = ("seat 1 plays first in round 1; the first-player marker then passes "
                  "clockwise")
    score_label = "Glory"
    report_options = REPORT_OPTIONS
    claims_title = "Claims B1-B8"
    #: what its report sections and claims read (report.py)
    report_games_columns = (
        "players", "rounds", "truncated", "n_winners", "margin", "margin_rel", "rooms_scored",
        "rooms_contested", "contested_markers", "deferred_steps", "warned",
        "taken_after_warning", "floors_collapsed", "deal", "rotation")
    report_seats_columns = (
        "players", "lineage", "calling", "company", "bot", "place", "win", "fair", "glory",
        "glory_cash_out", "glory_worthy_end", "cash_outs", "last_stands", "worthy_ends",
        "taken_no_stand", "taken_no_stand_final", "taken_unplayed", "crews", "lineage_ability",
        "calling_ability", "rotation")
    report_seats_prefixes = ("claims_",)

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
        arrays = comp.build(data, players=counts, seat_spec=spec,
                            bot_pool=[names.index(b) for b in sc.bots],
                            unique=sc.companies.unique, knobs=knobs, fmix=fmix)
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
                        params_hash=params_hash(params), placeholders=_placeholders(
                            data, _dealt_lineages(sc, counts)),
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
    #: announces it until this machine has timed its own
    compile_estimate_s: ClassVar[dict[str, float]] = {"run": 75.0, "all": 230.0}

    def warm_up(self, prepared: Prepared | None = None, *, trace: bool = False) -> None:
        """Compile (or load from numba's cache) the kernel entry points; plays no batch game.

        ``run_chunk``'s (``play_block`` called for zero games, ``seat_columns``) for the
        argument types of ``prepared`` (every DEEPFALL scenario has the same types), the
        search bot's code only when the scenario's bots search (``kernel.searches``), and
        with ``trace`` also ``trace_game`` (one game, replayed). Without ``prepared`` and
        with ``trace`` (``deepsim warmup``: everything) both the heuristic and the search
        versions of each.
        """
        from deepsim.rulesets.deepfall.board import Tables, new_quiet_state, new_state
        from deepsim.rulesets.deepfall.kernel import (
            play_block,
            play_games,
            play_traced,
            searches,
            seat_columns,
        )
        everything = prepared is None and trace
        if prepared is None:
            prepared = self.prepare({"name": "warm-up", "ruleset": self.name, "players": 4,
                                     "games": 1, "seed": 0, "chunk_size": 1},
                                    source="warm-up")
        args = prepared.compiled["arrays"].kernel_args()
        seed, zero = np.int64(prepared.scenario["seed"]), np.int64(0)
        tab = Tables(*play_games(seed, zero, zero, *args))        # empty tables
        # the search bot is compiled only for a scenario whose bots search (kernel.searches)
        for search in ((False, True) if everything else (searches(args[0]),)):
            play_block(seed, np.zeros(0, np.int64), zero, zero, *args, tab, new_quiet_state(),
                       new_quiet_state() if search else None)
            if trace:
                play_traced(seed, zero, new_state(), new_quiet_state() if search else None,
                            *args)
        seat_columns(tab.gi, tab.si, tab.sf)

    def run_chunk(self, prepared: Prepared, start: int, count: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play games ``start .. start+count-1``; one games row per game, one seats row per seat.

        The result depends only on (seed, game index): not on chunking or thread count.
        """
        return rotation.play_chunk(prepared, lambda a, s, c: self._play(prepared, a, s, c),
                                   start, count)

    def _play(self, prepared: Prepared, a, start: int, count: int):
        from deepsim.rulesets.deepfall.kernel import play_games
        seed = int(prepared.scenario["seed"])
        gi, gf, si, sf = play_games(np.int64(seed), np.int64(start), np.int64(count),
                                    *a.kernel_args())
        return self._frames(prepared, seed, start, gi, gf, si, sf)

    def run_games(self, prepared: Prepared, games: np.ndarray
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play the games of index ``games`` (int64, ascending); the rows are those of
        ``run_chunk`` for the same games (each depends only on (seed, game index)).

        Raises
        ------
        ValueError
            For a scenario with ``rotate_seats`` (a row is not a game index there).
        """
        from deepsim.rulesets.deepfall.kernel import play_listed
        if prepared.compiled.get("rotations"):
            raise ValueError("run_games plays unrotated scenarios only")
        idx = np.ascontiguousarray(games, dtype=np.int64)
        seed = int(prepared.scenario["seed"])
        gi, gf, si, sf = play_listed(np.int64(seed), idx,
                                     *prepared.compiled["arrays"].kernel_args())
        return self._frames(prepared, seed, idx, gi, gf, si, sf)

    def factions(self, prepared: Prepared | None = None) -> list[str]:
        """Every company (the faction column's values), in company-code order."""
        return companies()

    def _frames(self, prepared, seed, start, gi, gf, si, sf):
        """``start``: the first game's index, or the int64 index of every row."""
        from deepsim.rulesets.deepfall.kernel import seat_columns
        count = gi.shape[0]
        index = (np.arange(start, start + count, dtype=np.int64) if np.ndim(start) == 0
                 else np.asarray(start, dtype=np.int64))
        games = {"game": index,
                 "seed": np.full(count, seed, np.int64)}
        g_int = np.ascontiguousarray(gi.T)
        g_flt = np.ascontiguousarray(gf.T)
        for j, c in enumerate(L.GAME_INT):
            games[c] = g_int[j]
        games["truncated"] = games["truncated"].astype(bool)
        games["winner_seat"] = common.seat_number(games["winner_seat"])
        for j, c in enumerate(L.GAME_FLT):
            games[c] = g_flt[j]
        # copy=False: each column stays its own block (pandas would otherwise stack the
        # same-dtype columns into one 2-D block, a copy of the whole table)
        games_df = pd.DataFrame(games, copy=False)
        # one contiguous row per column, straight from the kernel's tables, and
        # categoricals built from codes (building them from strings cost a third of a chunk)
        gidx, seat, players, s_int, s_flt = seat_columns(gi, si, sf)
        gidx = index[gidx]
        seats = {"game": gidx, "seat": common.seat_number(seat), "players": players}
        lin = s_int[L.S_LINEAGE]
        cal = s_int[L.S_CALLING]
        lin_names = [display_name(n) for n in LINEAGES]
        cal_names = [display_name(n) for n in CALLINGS]
        seats["lineage"] = pd.Categorical.from_codes(lin, categories=lin_names)
        seats["calling"] = pd.Categorical.from_codes(cal, categories=cal_names)
        seats["company"] = pd.Categorical.from_codes(lin * len(cal_names) + cal,
                                                     categories=companies())
        seats["bot"] = common.bot_column(prepared.compiled["bot_labels"], s_int[L.S_BOT])
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
        a, deal, where = rotation.deal_of(prepared, game_index)
        seed = int(prepared.scenario["seed"])
        gi, _, si, sf, ev = trace_game(np.int64(seed), np.int64(deal), 200_000,
                                       *a.kernel_args())
        n = int(gi[0, L.G_PLAYERS])
        labels = prepared.compiled["bot_labels"]
        names = [seat_label(p, int(si[0, p, L.S_LINEAGE]), int(si[0, p, L.S_CALLING]),
                            labels[int(si[0, p, L.S_BOT])]) for p in range(n)]
        return gi, si, sf, ev, names, where, seed

    #: ``trace`` and ``trace_records`` take a ``view`` (deepsim.tracefilter.TraceFilter)
    trace_filters = True

    def trace(self, prepared: Prepared, game_index: int, view=None) -> list[str]:
        """Replay game ``game_index`` with the kernel's event buffer on; readable lines.

        It is the same kernel code path as the batch (``play_game``), so the trace ends
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

    def trace_result(self, prepared: Prepared, game_index: int):
        """(games_df, seats_df) of one traced game, for checking against a batch row."""
        from deepsim.rulesets.deepfall.kernel import trace_game
        a, deal, _ = rotation.deal_of(prepared, game_index)
        seed = int(prepared.scenario["seed"])
        gi, gf, si, sf, _ = trace_game(np.int64(seed), np.int64(deal), 200_000,
                                       *a.kernel_args())
        games, seats = self._frames(prepared, seed, deal, gi, gf, si, sf)
        return rotation.traced_rows(prepared, game_index, games, seats)

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
        return DATA.parameters()

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
        styles (every style but the uniform ``random`` baseline) drawn per seat (issue 28:
        the 100,000 games/s target is at 4 players with these bots)."""
        return {"players": players or 4, "companies": {"unique": True},
                "bots": ["cautious", "balanced", "greedy", "martyr"]}


RULESET = DeepfallRuleset()
