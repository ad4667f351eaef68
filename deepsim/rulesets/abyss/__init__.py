"""Abyss: the third ruleset. Data in ruleset.yaml, rules in kernel.py, bots in bots.py.

A 2-4 player card economy with an auction, hidden hands and a shared market
(``../shared/rulebooks/001_3ff6aebeedab8440.txt``, Czech; rule ids AB-* and ambiguities
AMB-A* of the English digest ``../shared/digests/abyss.md``). This module is the runner
contract (deepsim.rulesets.base.Ruleset): ``prepare`` validates a scenario, an optional
lord list and the data with its overrides and builds the kernel arrays (``compile.py``);
``run_chunk`` plays games; ``_frames`` turns the kernel's outputs into the games and seats
tables; ``trace`` replays one game as a log.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

from deepsim.botdata import BotData
from deepsim.errors import InputError
from deepsim.factionbots import resolve_faction_bots
from deepsim.params import load_yaml, nearest, params_hash, validate
from deepsim.rulesets import common
from deepsim.rulesets.abyss import botconf
from deepsim.rulesets.abyss import layout as L
from deepsim.rulesets.base import Prepared, Ruleset
from deepsim.scenario import LINES

HERE = Path(__file__).parent
DATA_FILE = HERE / "ruleset.yaml"
BOTS_FILE = HERE / "bots.yaml"

#: Rulebook rules the engine does not implement (also listed in docs/RULES.md).
SKIPPED_RULES: list[str] = [
    ("AB-L5 lord abilities (immediate effects and passive powers): the source prints no "
     "lord texts; the lords have no abilities (keys of passive lords are simulated)"),
]


def _model():
    from deepsim.rulesets.abyss.schema import AbyssData
    return AbyssData


#: the data file read against its model (defaults, dotted paths, overrides)
DATA = common.DataFile(DATA_FILE, _model)
default_data = DATA.default_data
parameter_paths = DATA.parameter_paths
#: validated ruleset data (``schema.AbyssData``) after dotted-path overrides
load_data = DATA.load


def bot_styles() -> dict[str, dict[str, float]]:
    """Bot styles from bots.yaml with every knob filled (the knob's default)."""
    return botconf.styles()


def placeholders(d) -> list[str]:
    """Parameter paths whose data is invented (digest §D) while their flag is set."""
    out = []
    if d.depth.placeholder:
        out.append("depth.ally_counts")
    if d.explore.placeholder:
        out.append("explore.row_length")
    if d.threat.placeholder:
        out.append("threat.track")
    if d.keys.placeholder:
        out.append("keys.token_supply")
    if d.locations.placeholder:
        out.append("locations.vp")
    if d.lords.placeholder:
        out.append("lords.deck")
    return out


def load_lord_file(path: Path, shown: str) -> tuple[list[dict], bool]:
    """A designer's lord list (scenario key ``lords: PATH``): the lords as mappings and its
    ``placeholder`` flag.

    Raises
    ------
    InputError
        Missing or malformed file, or a lord that does not validate (file, line, key).
    """
    from deepsim.rulesets.abyss.schema import LordFile
    raw, lines = load_yaml(path)
    lf = validate(LordFile, raw, source=shown, lines=lines)
    return [lord.model_dump() for lord in lf.lords], lf.placeholder


_GAMES_COLUMNS = {"game": "int64", "seed": "int64", **{c: "int64" for c in L.GAME_INT},
                  "truncated": "bool", **{c: "float64" for c in L.GAME_FLT},
                  "end": "category", "decided_by": "category"}
_SEATS_COLUMNS = {"game": "int64", "seat": "int64", "players": "int64", "bot": "category",
                  **{c: "int64" for c in L.SEAT_INT if c != "bot"},
                  **{c: "float64" for c in L.SEAT_FLT}, "fair": "float64", "first": "bool"}


class AbyssRuleset(Ruleset):
    """The Abyss ruleset behind the runner contract (deepsim.rulesets.base.Ruleset)."""

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
    games_columns = _GAMES_COLUMNS
    seats_columns = _SEATS_COLUMNS
    seat_order = "seat 1 plays first"
    score_label = "VP"
    #: what its report sections read (report.py)
    report_games_columns = (*L.GAME_INT, *L.GAME_FLT, "end", "decided_by")
    report_seats_columns = ("bot", *[c for c in L.SEAT_INT if c != "bot"], "win", "fair",
                            "players", "seat", "first")

    # ---- prepare ------------------------------------------------------------------------

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
        common.check_bot_pool(sc.bots, names, source=source, lines=lines)
        profiles = [dict(styles[n]) for n in names]
        labels = list(names)
        seat_bot: list[int] = []
        for i, seat in enumerate(sc.seats):
            if seat.bot == "any":
                if seat.knobs:
                    raise common.knobs_need_a_bot("seat", source=source,
                                                  key=f"seats.{i}.knobs", lines=lines)
                seat_bot.append(-1)
                continue
            common.check_bot(seat.bot, names, source=source, key=f"seats.{i}.bot",
                             lines=lines)
            if not seat.knobs:
                seat_bot.append(names.index(seat.bot))
                continue
            prof = dict(styles[seat.bot])
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
                prof[k] = float(v)
            # knobs joined by spaces: a label stays one group name in a metric spec
            # (`win_share[bot=hunter[fight_min=2 take_min=4]]`), which splits at commas
            label = f"{seat.bot}[" + " ".join(f"{k}={v:g}" for k, v in seat.knobs.items()) + "]"
            if label in labels:
                seat_bot.append(labels.index(label))
            else:
                profiles.append(prof)
                labels.append(label)
                seat_bot.append(len(profiles) - 1)
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

    def warm_up(self, prepared: Prepared | None = None, *, trace: bool = False) -> None:
        """Compile (or load from numba's cache) the kernel entry points; plays no batch game.

        ``run_chunk``'s (``play_games`` called for zero games) for the argument types of
        ``prepared`` (default: the first golden case; every Abyss scenario has the same
        types), and with ``trace`` also ``trace_game`` (one game, replayed).
        """
        from deepsim.rulesets.abyss.kernel import play_games, trace_game
        if prepared is None:
            case = self.golden_cases()[0]
            prepared = self.prepare(dict(case.scenario), source="warm-up",
                                    overrides=list(case.overrides))
        args = prepared.compiled["arrays"].kernel_args()
        seed, zero = np.int64(prepared.scenario["seed"]), np.int64(0)
        play_games(seed, zero, zero, *args)                        # empty tables
        if trace:
            trace_game(seed, zero, 1000, *args)

    def run_chunk(self, prepared: Prepared, start: int, count: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play games ``start .. start+count-1``; one games row per game, one seats row per
        player. The result depends only on (seed, game index)."""
        from deepsim.rulesets.abyss.kernel import play_games
        a = prepared.compiled["arrays"]
        seed = int(prepared.scenario["seed"])
        gi, gf, si, sf = play_games(np.int64(seed), np.int64(start), np.int64(count),
                                    *a.kernel_args())
        return self._frames(prepared, seed, start, gi, gf, si, sf)

    def run_games(self, prepared: Prepared, games: np.ndarray
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play the games of index ``games`` (int64, ascending); the rows are those of
        ``run_chunk`` for the same games (each depends only on (seed, game index))."""
        from deepsim.rulesets.abyss.kernel import play_listed
        idx = np.ascontiguousarray(games, dtype=np.int64)
        seed = int(prepared.scenario["seed"])
        gi, gf, si, sf = play_listed(np.int64(seed), idx,
                                     *prepared.compiled["arrays"].kernel_args())
        return self._frames(prepared, seed, idx, gi, gf, si, sf)

    def factions(self, prepared: Prepared | None = None) -> list[str]:
        """The bot styles a seat may play (the faction column's values), in profile-row
        order: the styles of bots.yaml, then the scenario's knobbed seats."""
        if prepared is None:
            return list(bot_styles())
        return list(dict.fromkeys(prepared.compiled["bot_labels"]))

    def _frames(self, prepared, seed, start, gi, gf, si, sf):
        """``start``: the first game's index, or the int64 index of every row."""
        count = gi.shape[0]
        index = (np.arange(start, start + count, dtype=np.int64) if np.ndim(start) == 0
                 else np.asarray(start, dtype=np.int64))
        games = {"game": index,
                 "seed": np.full(count, seed, np.int64)}
        for j, c in enumerate(L.GAME_INT):
            games[c] = np.ascontiguousarray(gi[:, j])
        games["truncated"] = games["truncated"].astype(bool)
        for c in ("winner_seat", "trigger_seat"):
            games[c] = common.seat_number(games[c])
        for j, c in enumerate(L.GAME_FLT):
            games[c] = np.ascontiguousarray(gf[:, j])
        games["end"] = pd.Categorical.from_codes(gi[:, L.G_END_CAUSE],
                                                 categories=list(L.END_CAUSES))
        games["decided_by"] = pd.Categorical.from_codes(gi[:, L.G_TIEBREAK],
                                                        categories=list(L.TIEBREAKS))
        games_df = pd.DataFrame(games, copy=False)

        players = gi[:, L.G_PLAYERS]
        mask = np.arange(L.MAX_P)[None, :] < players[:, None]
        gidx, seat = np.nonzero(mask)
        s_int = si[gidx, seat, :]
        s_flt = sf[gidx, seat, :]
        seats = {"game": index[gidx], "seat": common.seat_number(seat),
                 "players": players[gidx].astype(np.int64)}
        seats["bot"] = common.bot_column(prepared.compiled["bot_labels"], s_int[:, L.S_BOT])
        for j, c in enumerate(L.SEAT_INT):
            if c == "bot":
                continue
            seats[c] = np.ascontiguousarray(s_int[:, j])
        for j, c in enumerate(L.SEAT_FLT):
            seats[c] = np.ascontiguousarray(s_flt[:, j])
        seats["fair"] = 1.0 / seats["players"]
        seats["first"] = seat == 0
        return games_df, pd.DataFrame(seats, copy=False)

    # ---- trace --------------------------------------------------------------------------

    def _trace_arrays(self, prepared: Prepared, game_index: int):
        from deepsim.rulesets.abyss.kernel import trace_game
        a = prepared.compiled["arrays"]
        seed = int(prepared.scenario["seed"])
        return seed, trace_game(np.int64(seed), np.int64(game_index), 200_000,
                                *a.kernel_args())

    def trace(self, prepared: Prepared, game_index: int) -> list[str]:
        """Replay game ``game_index`` with the kernel's event buffer on; readable lines.

        The same kernel code path as the batch (``play_game``), so the trace ends with the
        scores and winner of that game's batch row.
        """
        from deepsim.rulesets.abyss.trace import format_game
        seed, (gi, gf, si, sf, ev) = self._trace_arrays(prepared, game_index)
        return format_game(prepared, seed, game_index, gi, gf, si, sf, ev)

    def trace_result(self, prepared: Prepared, game_index: int):
        """(games_df, seats_df) of one traced game, for checking against a batch row."""
        seed, (gi, gf, si, sf, _) = self._trace_arrays(prepared, game_index)
        return self._frames(prepared, seed, game_index, gi, gf, si, sf)

    # ---- parameters ---------------------------------------------------------------------

    def golden_cases(self) -> list:
        """The frozen scenarios of ``golden.yaml`` whose result digests the tests pin."""
        from deepsim.rulesets.golden import load_cases
        return load_cases(HERE / "golden.yaml", self.name)

    def parameters(self) -> list[dict]:
        """Every parameter: dotted path, default, type, bounds and the data file's note
        (the comment beside the key in ruleset.yaml, or beside its parent: the rule id AB-*
        or ambiguity AMB-A* it settles)."""
        return DATA.parameters()

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


RULESET = AbyssRuleset()
