"""Turn validated DEEPFALL data and a scenario into the arrays the kernel reads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from deepsim.params import value_at
from deepsim.rulesets.base import KernelInputs
from deepsim.rulesets.deepfall.board import BOOK_DTYPE, BOOK_FIELDS, Data, fields_of
from deepsim.rulesets.deepfall.layout import (
    MAX_SEATS,
    N_EFFECTS,
    N_FACES,
    N_FLOORS,
    N_ROOM_COLUMNS,
    N_RULES,
    ROOM_COLUMNS,
    RULES,
)
from deepsim.rulesets.deepfall.schema import (
    CALLINGS,
    DICE,
    EFFECTS,
    LINEAGES,
    MULTIPLIER_EFFECTS,
    ROOMS,
    SYMBOLS,
    DeepfallData,
)


@dataclass
class Arrays(KernelInputs):
    """Kernel inputs (all numpy). Shapes: see :func:`build`."""

    rules: np.ndarray
    faces: np.ndarray
    die_rank: np.ndarray
    rooms: np.ndarray
    floor_cdf: np.ndarray
    depth: np.ndarray
    scale: np.ndarray
    lin_eff: np.ndarray
    cal_eff: np.ndarray
    lin_nn: np.ndarray
    cal_nn: np.ndarray
    lin_bag: np.ndarray
    cal_recruit: np.ndarray
    ls_free: np.ndarray
    player_opts: np.ndarray
    seat_spec: np.ndarray
    bot_pool: np.ndarray
    unique: int
    knobs: np.ndarray
    #: float64[36, 2, M]: per company code, its own bot profiles (deepsim.factionmix)
    fmix: np.ndarray

    def kernel_data(self) -> Data:
        """The kernel's data bundle (``board.Data``): the ruleset's numbers copied into one
        record (``book``, board.BOOK_FIELDS), the scenario's arrays C-contiguous (the same
        array objects where they already are), ``unique`` as int64.

        Raises
        ------
        ValueError
            An array of the ruleset's numbers does not have the shape the kernel's record
            was laid out for (a data file and layout.py out of step)."""
        book = np.zeros(1, BOOK_DTYPE).view(np.recarray)[0]
        for name, _, shape in BOOK_FIELDS:
            value = np.asarray(getattr(self, name))
            if value.shape != shape:
                raise ValueError(f"DEEPFALL data: {name} has shape {value.shape}, the "
                                 f"kernel's record expects {shape} (board.BOOK_FIELDS)")
            book[name] = value
        rest = {name: np.ascontiguousarray(getattr(self, name)) for name in Data._fields
                if name not in ("book", "unique")}
        return Data(book=fields_of(book), unique=np.int64(self.unique), **rest)

    def kernel_args(self) -> tuple:
        """Arguments of ``kernel.play_games`` after (seed, start, count) and of
        ``kernel.trace_game`` after (seed, game, max_events): the one data bundle."""
        return (self.kernel_data(),)


def rule_vector(d: DeepfallData) -> np.ndarray:
    """float64[N_RULES]: every scalar rule, in layout.RULES order (enums as 0/1)."""
    raw = d.model_dump()
    out = np.zeros(N_RULES, np.float64)
    for i, (_, path) in enumerate(RULES):
        v = value_at(raw, path)
        if path == "exits.worthy_end_basis":
            v = 1.0 if v == "depth_value" else 0.0
        elif path == "end.tie_rule":
            v = 1.0 if v == "share" else 0.0
        elif path == "turn.muster_bag":
            v = 1.0 if v == "current" else 0.0
        out[i] = float(v)
    return out


def effect_matrix(halves: dict, names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(effects float64[len(names), N_EFFECTS], non-neutral int64[len(names), N_EFFECTS]) of
    the Lineages or Callings ``names``."""
    eff = np.zeros((len(names), N_EFFECTS), np.float64)
    nn = np.zeros((len(names), N_EFFECTS), np.int64)
    for i, name in enumerate(names):
        h = halves[name]
        for j, e in enumerate(EFFECTS):
            v = float(getattr(h, e))
            eff[i, j] = v
            neutral = 1.0 if e in MULTIPLIER_EFFECTS else 0.0
            nn[i, j] = int(v != neutral)
    return eff, nn


def build(d: DeepfallData, *, players: list[int], seat_spec: np.ndarray, bot_pool: list[int],
          unique: bool | int, knobs: np.ndarray, fmix: np.ndarray | None = None) -> Arrays:
    """Build the kernel arrays.

    Parameters
    ----------
    d : DeepfallData
        Validated ruleset data (after overrides).
    players : list of int
        Player counts a game is drawn from (uniformly, per game).
    seat_spec : int64[MAX_SEATS, 3]
        Per seat: Lineage index, Calling index, bot profile index; -1 = drawn per game.
    bot_pool : list of int
        Bot profile indices a seat with bot -1 draws from.
    unique : bool or int
        A19: 1 (True) each Lineage and Calling at most once per game when drawn; 0 (False)
        drawn independently per seat; 2 mirror games: every seat plays seat 1's company
        and bot, drawn per game (scenario ``companies.mirror``).
    knobs : float64[n_profiles, len(KNOBS)]
    fmix : float64[len(LINEAGES) * len(CALLINGS), 2, M], optional
        Per company code (Lineage index x 6 + Calling index), the bot profiles of its own
        (scenario key ``faction_bots``; deepsim.factionmix); default none.
    """
    if fmix is None:
        from deepsim.factionbots import empty_fmix
        fmix = empty_fmix(len(LINEAGES) * len(CALLINGS))
    faces = np.zeros((len(DICE), N_FACES), np.int64)
    rank = np.zeros(len(DICE), np.int64)
    for i, name in enumerate(DICE):
        die = d.dice[name]
        k = 0
        for si, sym in enumerate(SYMBOLS):
            for _ in range(die.faces.get(sym, 0)):
                faces[i, k] = si
                k += 1
        rank[i] = die.setback_rank
    rooms = np.zeros((len(ROOMS), N_ROOM_COLUMNS), np.int64)
    for i, name in enumerate(ROOMS):
        r = d.rooms[name]
        for j, col in enumerate(ROOM_COLUMNS):       # layout.RM_*: the fields of schema.Room
            v = getattr(r, col)
            if col == "produces":
                v = -1 if v == "none" else SYMBOLS.index(v)
            rooms[i, j] = int(v)
    cdf = np.zeros((N_FLOORS, len(ROOMS)), np.float64)
    for f in range(N_FLOORS):
        w = np.asarray(d.dungeon.floor_weights[str(f + 1)], np.float64)
        c = np.cumsum(w) / w.sum()
        c[-1] = 1.0 + 1e-12
        cdf[f] = c
    scale = np.zeros((MAX_SEATS + 1, 2), np.int64)
    for k, row in d.scaling.items():
        scale[int(k)] = (row.rooms_per_floor, row.dread_track_length)
    lin_eff, lin_nn = effect_matrix(d.lineages, LINEAGES)
    cal_eff, cal_nn = effect_matrix(d.callings, CALLINGS)
    lin_bag = np.zeros((len(LINEAGES), len(DICE)), np.int64)
    for i, name in enumerate(LINEAGES):
        for die, cnt in d.lineages[name].start_bag.items():
            lin_bag[i, DICE.index(die)] = cnt
    cal_recruit = np.array([DICE.index(d.callings[c].recruit_die) for c in CALLINGS], np.int64)
    ls_free = np.zeros(len(ROOMS), np.int64)
    for r in d.exits.last_stand_free_rooms:
        ls_free[ROOMS.index(r)] = 1
    return Arrays(
        rules=rule_vector(d), faces=faces, die_rank=rank, rooms=rooms, floor_cdf=cdf,
        depth=np.asarray(d.floors.depth_values, np.int64), scale=scale, lin_eff=lin_eff,
        cal_eff=cal_eff, lin_nn=lin_nn, cal_nn=cal_nn, lin_bag=lin_bag,
        cal_recruit=cal_recruit, ls_free=ls_free,
        player_opts=np.asarray(players, np.int64), seat_spec=seat_spec.astype(np.int64),
        bot_pool=np.asarray(bot_pool, np.int64), unique=int(unique),
        knobs=np.ascontiguousarray(knobs, np.float64),
        fmix=np.ascontiguousarray(fmix, np.float64))

