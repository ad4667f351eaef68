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

import copy
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from deepsim.botdata import BotData
from deepsim.errors import InputError
from deepsim.factionbots import resolve_faction_bots
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
from deepsim.rulesets.abyss import botconf
from deepsim.rulesets.abyss import layout as L
from deepsim.rulesets.base import Prepared
from deepsim.scenario import LINES

HERE = Path(__file__).parent
DATA_FILE = HERE / "ruleset.yaml"
BOTS_FILE = HERE / "bots.yaml"

#: Rulebook rules the engine does not implement (also listed in docs/RULES.md).
SKIPPED_RULES: list[str] = [
    ("AB-L5 lord abilities (immediate effects and passive powers): the source prints no "
     "lord texts; the lords have no abilities (keys of passive lords are simulated)"),
]


@lru_cache(maxsize=1)
def default_data() -> dict:
    """The shipped ruleset data as read from ruleset.yaml."""
    data, _ = load_yaml(DATA_FILE)
    return data


@lru_cache(maxsize=1)
def _default_lines() -> dict:
    return load_yaml(DATA_FILE)[1]


def _model():
    from deepsim.rulesets.abyss.schema import AbyssData
    return AbyssData


@lru_cache(maxsize=1)
def parameter_paths() -> dict:
    """Every settable dotted path of the ruleset with its default value."""
    return leaf_paths(_model().model_validate(default_data()).model_dump())


def load_data(overrides: dict | list[str] | None = None, *, source: str = "--set",
              lines: dict[str, int] | None = None):
    """Validated ruleset data (``schema.AbyssData``) after dotted-path overrides.

    Raises
    ------
    InputError
        Unknown path (with the nearest valid ones) or a value out of its bounds.
    """
    model = _model()
    base = copy.deepcopy(model.model_validate(default_data()).model_dump())
    data = apply_overrides(base, overrides or {}, valid_paths=parameter_paths(), source=source,
                           lines=lines)
    return validate(model, data, source=source if overrides else str(DATA_FILE),
                    lines=(lines or {}) if overrides else _default_lines())


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


class AbyssRuleset:
    """The Abyss ruleset behind the runner contract (deepsim.rulesets.base.Ruleset)."""

    name = "abyss"
    title = "Abyss"
    #: players are alike; what a seat "plays" is its bot style
    faction_column = "bot"
    faction_label = "bot style"
    group_columns = ("bot", "seat")
    #: sweep/tune metrics when none are named: seat fairness first (the tune objective),
    #: then the spread over bot styles and the length in rounds
    default_metrics = ("seat_advantage", "faction_spread", "rounds")

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
        merged = dict(sc.overrides)
        sets = []
        for o in overrides or []:
            k, v = parse_override(o)
            merged[k] = v
            sets.append(k)
        src = source if not overrides else f"{source} / --set"
        ov_lines = override_lines(lines, sets)
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
            data = load_data(merged, source=src, lines=ov_lines)
        except InputError as exc:
            if lord_source is not None and ((exc.key or "").startswith(("lords", "court"))
                                            or "lord deck" in exc.message):
                raise InputError(f"with the lord list {lord_source}: {exc.message}",
                                 file=lord_source, key=exc.key) from None
            if exc.line is None or src == source:
                raise
            raise InputError(exc.message, file=source, key=exc.key, line=exc.line) from None

        counts = sc.players if isinstance(sc.players, list) else [sc.players]
        lo, hi = data.players.min, data.players.max
        outside = [c for c in counts if not lo <= c <= hi]
        if outside:
            raise InputError(f"Abyss plays {lo}-{hi} players with these parameters "
                             f"(players.min {lo}, players.max {hi}), got "
                             f"{', '.join(map(str, outside))}", file=source, key="players",
                             line=lines.get("players"))

        # ---- bots: the named styles, then one profile per seat with knob overrides
        styles = bot_styles()
        names = list(styles)
        specs = botconf.bounds()
        for i, b in enumerate(sc.bots):
            if b not in styles:
                raise InputError(f"unknown bot '{b}'{nearest(b, names)}; known: "
                                 f"{', '.join(names)}", file=source, key=f"bots.{i}",
                                 line=lines.get(f"bots.{i}"))
        profiles = [dict(styles[n]) for n in names]
        labels = list(names)
        seat_bot: list[int] = []
        for i, seat in enumerate(sc.seats):
            key = f"seats.{i}.bot"
            if seat.bot == "any":
                if seat.knobs:
                    raise InputError("knobs need a fixed bot style on the seat (not 'any')",
                                     file=source, key=f"seats.{i}.knobs",
                                     line=lines.get(f"seats.{i}.knobs"))
                seat_bot.append(-1)
                continue
            if seat.bot not in styles:
                raise InputError(f"unknown bot '{seat.bot}'{nearest(seat.bot, names)}; "
                                 f"known: any, {', '.join(names)}", file=source, key=key,
                                 line=lines.get(key))
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

    def bot_data(self) -> BotData:
        """The bots' knobs with their bounds and the styles (``baseline`` marked)."""
        return botconf.load()

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
        seats = {"game": index[gidx], "seat": seat.astype(np.int64),
                 "players": players[gidx].astype(np.int64)}
        labels = prepared.compiled["bot_labels"]
        # a faction's own bots (faction_bots) keep its label: one category per label
        names = list(dict.fromkeys(labels))
        code = np.array([names.index(b) for b in labels], np.int64)
        seats["bot"] = pd.Categorical.from_codes(code[s_int[:, L.S_BOT]], categories=names)
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
        from deepsim.testing.golden import load_cases
        return load_cases(HERE / "golden.yaml", self.name)

    def parameters(self) -> list[dict]:
        """Every parameter: dotted path, default, type, bounds and the data file's note
        (the comment beside the key in ruleset.yaml, or beside its parent: the rule id AB-*
        or ambiguity AMB-A* it settles)."""
        return parameter_table(_model(), DATA_FILE, parameter_paths(), _default_lines())


RULESET = AbyssRuleset()
