"""Duel: a three-faction game built for the balance tests, with exact odds and a known
minimal fix (numpy only, no numba).

Every game seats the three factions once, in an order drawn per game; the winner is drawn
with probability proportional to each faction's ``power``. With powers ``A = B = 6`` and
``C = 12`` a faction's win share over its fair share (1/3) is ``3 * power / total``:
C 1.5x fair (too strong), A and B 0.75x (not viable). One number fixes it: C's power. C at
8 gives 1.2x / 0.9x (viable, 0.05x inside the line); C at 9 gives 1.29x (too strong); so the
smallest change of one number is ``power.C: 12 -> 8`` (4 steps), and C at 5..8 all meet the
target. Changing A or B alone never does (raising one sinks the other). Results depend only
on (seed, game index): a counter-based hash, as deepsim's streams.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import yaml

from deepsim.errors import InputError
from deepsim.output import hash_json
from deepsim.rulesets.base import Prepared, Ruleset

FACTIONS = ("A", "B", "C")
PERMS = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
DEFAULTS = {"power.A": 6, "power.B": 6, "power.C": 12, "spice": 0.5, "luck": 1.0,
            "bonus": 0, "name": "duel"}
ROWS = [
    {"path": "power.A", "type": "int", "bounds": ">= 1, <= 20", "section": "D1"},
    {"path": "power.B", "type": "int", "bounds": ">= 1, <= 20", "section": "D1"},
    {"path": "power.C", "type": "int", "bounds": ">= 1, <= 20", "section": "D1"},
    {"path": "spice", "type": "float", "bounds": ">= 0.0, <= 1.0", "section": "D2"},
    {"path": "luck", "type": "float", "bounds": ">= 0.0", "section": "D3"},
    {"path": "bonus", "type": "int", "bounds": ">= 0, <= 3", "section": "placeholder"},
    {"path": "name", "type": "str", "bounds": "", "section": ""},
]


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on uint64 (a counter-based hash)."""
    with np.errstate(over="ignore"):        # arithmetic modulo 2**64, as intended
        x = (x + np.uint64(0x9E3779B97F4A7C15))
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


class DuelRuleset(Ruleset):
    """Three factions, one winner drawn in proportion to power (tests only)."""

    name = "duel"
    title = "Duel (tests only)"
    faction_column = "faction"
    faction_label = "faction"
    group_columns = ("faction", "bot", "seat")
    default_metrics = ("faction_spread",)
    default_objective = "faction_spread"
    target_rounds = None
    games_columns: ClassVar = {"game": "int64", "seed": "int64", "players": "int64",
                               "rounds": "int64", "truncated": "bool"}
    seats_columns: ClassVar = {"game": "int64", "seat": "int64", "players": "int64",
                               "win": "float64", "fair": "float64", "bot": "category",
                               "faction": "category"}
    seat_order = "seat 1 plays first"
    score_label = "points"

    def prepare(self, scenario, *, source="<scenario>", overrides=None):
        params = dict(DEFAULTS)
        items = list((scenario.get("overrides") or {}).items())
        for o in overrides or []:
            path, sep, value = o.partition("=")
            if not sep:
                raise InputError("expected path=value", key=o)
            items.append((path.strip(), yaml.safe_load(value)))
        for path, value in items:
            if path not in params:
                raise InputError(f"unknown parameter {path!r}", file=source, key=path)
            if path.startswith("power.") and not (isinstance(value, int) and 1 <= value <= 20):
                raise InputError(f"expected an integer in 1..20, got {value!r}", file=source,
                                 key=path)
            params[path] = value
        return Prepared(ruleset="duel", scenario=dict(scenario), params=params,
                        params_hash=hash_json(params), placeholders=["bonus"],
                        skipped_rules=[], compiled={})

    def run_chunk(self, prepared, start, count):
        seed = np.uint64(int(prepared.scenario["seed"]))
        g = np.arange(start, start + count, dtype=np.uint64)
        h1 = _mix(_mix(np.array([seed], np.uint64))[0] ^ g)
        h2 = _mix(h1 ^ np.uint64(0xD1B54A32D192ED03))
        perm = PERMS[(h1 % np.uint64(6)).astype(np.int64)]          # faction of each seat
        power = np.array([prepared.params[f"power.{f}"] for f in FACTIONS], np.float64)
        p_seat = power[perm]                                         # (count, 3)
        cum = np.cumsum(p_seat, axis=1) / p_seat.sum(axis=1, keepdims=True)
        u = (h2 >> np.uint64(11)).astype(np.float64) / float(1 << 53)
        winner = (u[:, None] >= cum).sum(axis=1)                     # seat index 0..2
        games = pd.DataFrame({"game": g.astype(np.int64), "seed": int(seed), "players": 3,
                              "rounds": 1, "truncated": False})
        seat = np.tile(np.arange(3), count)
        seats = pd.DataFrame({
            "game": np.repeat(g.astype(np.int64), 3), "seat": seat + 1, "players": 3,
            "win": (seat == np.repeat(winner, 3)).astype(np.float64), "fair": 1.0 / 3,
            "bot": pd.Categorical(["basic"] * (3 * count)),
            "faction": pd.Categorical(np.array(FACTIONS)[perm.ravel()],
                                      categories=list(FACTIONS))})
        return games, seats

    def trace(self, prepared, game_index):
        return [f"game {game_index}"]

    def trace_result(self, prepared, game_index):
        return self.run_chunk(prepared, game_index, 1)

    def parameters(self):
        return [{**r, "default": DEFAULTS[r["path"]]} for r in ROWS]

    def bot_data(self):
        return {"basic": {}}

    def golden_cases(self):
        return []


def load_scenario(path):
    path = Path(path)
    if not path.is_file():
        raise InputError("scenario file not found", file=str(path))
    data = yaml.safe_load(path.read_text())
    data.setdefault("chunk_size", 5000)
    return data
