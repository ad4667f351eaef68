"""Property tests (hypothesis) on the real DEEPFALL ruleset.

- Random valid scenarios (player counts, fixed or drawn seats, bot pools and knobs,
  ``companies.unique``, seeds) with random parameter sets inside the schema's bounds play
  through ``RULESET.prepare`` + ``run_chunk``: every game ends (all six floors collapsed,
  or stopped by ``end.max_rounds`` and flagged truncated), Glory is never negative, the win
  shares of a game sum to 1 under ``end.tie_rule: share``, the seats follow the scenario,
  and the results do not depend on how the games are chunked.
- Random invalid inputs (values outside their bounds, wrong types, unknown paths, die faces
  that do not sum to six, bad player counts, seats and bots) given to ``deepsim run`` with
  ``--set`` or in a scenario's ``overrides:`` exit 2 with a one-line ``error:`` naming the
  key (and the scenario line), never a traceback, and create no output directory.

numba compiles the kernel once (on-disk cache); after that an example takes milliseconds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.params import leaf_paths
from deepsim.rulesets.deepfall import RULESET, bot_data, bot_styles, parameter_paths
from deepsim.rulesets.deepfall.layout import KNOBS
from deepsim.rulesets.deepfall.schema import CALLINGS, DICE, LINEAGES, ROOMS, SYMBOLS

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])
cli = CliRunner(env={"COLUMNS": "400"})

PARAMS = {p["path"]: p for p in RULESET.parameters()}
DEFAULTS = parameter_paths()
STYLES = list(bot_styles())
KNOB_BOUNDS = bot_data().knobs


def _bounds(text: str) -> tuple[float | None, float | None]:
    lo = re.search(r">= ?(-?[\d.]+)", text)
    hi = re.search(r"<= ?(-?[\d.]+)", text)
    return (float(lo.group(1)) if lo else None, float(hi.group(1)) if hi else None)


# parameters drawn specially (their ranges depend on the scenario or each other)
_SPECIAL = ("players.min", "players.max", "end.max_rounds", "recruit.cost", "recruit.min_cost")
BOUNDED = {path: _bounds(p["bounds"]) for path, p in PARAMS.items()
           if p["type"] in ("int", "float") and path not in _SPECIAL
           and None not in _bounds(p["bounds"])}
BOOLS = [path for path, p in PARAMS.items() if p["type"] == "bool"]
CHOICES = {path: p["bounds"].split(" | ") for path, p in PARAMS.items()
           if p["type"] == "choice" and " | " in p["bounds"]}
SCALARS = sorted(BOUNDED) + BOOLS + sorted(CHOICES)


def _title(name: str) -> str:
    from deepsim.rulesets.deepfall.schema import display_name
    return display_name(name)


# --- valid scenarios and parameter sets ---------------------------------------------------

#: at most this many rollouts per option for a knob override: a search bot's cost grows
#: with them (up to 4,096 by bots.yaml): in one CI run an example sat in the search
#: bot's rollouts for over 15 minutes. The property does not depend on how many.
ROLLOUTS_DRAWN = 4
#: the styles a scenario's pool draws from: not the search style, whose 32 rollouts an
#: option (up to 96 with its extra batches) a pool seat plays with no knob to lower them:
#: with it the test took 20-314 s by the examples drawn (46, 77 and 20 s at hypothesis
#: seeds 11-13, 314 s in one slow tier); without, 4-14 s at seeds 11-13 and 21-24. A seat
#: still plays it (with drawn rollouts), and any style may get the rollouts knob.
POOL_STYLES = [s for s in STYLES if s != "search"]


def _knob_value(draw, name: str) -> float:
    """A value of knob ``name`` within its bounds (bots.yaml), of its type (``rollouts``
    at most ``ROLLOUTS_DRAWN``)."""
    k = KNOB_BOUNDS[name]
    if name == "rollouts":
        return float(draw(st.integers(int(k.low), min(int(k.high), ROLLOUTS_DRAWN))))
    if k.type == "float":
        return draw(st.floats(k.low, k.high, allow_nan=False))
    return float(draw(st.integers(int(k.low), int(k.high))))


@st.composite
def seats_for(draw, n: int, unique: bool) -> list[dict]:
    lin_order = draw(st.permutations(LINEAGES))
    cal_order = draw(st.permutations(CALLINGS))
    seats = []
    for i in range(n):
        seat: dict = {}
        if draw(st.booleans()):
            seat["lineage"] = lin_order[i] if unique else draw(st.sampled_from(LINEAGES))
        elif draw(st.booleans()):
            seat["lineage"] = "random"
        if draw(st.booleans()):
            seat["calling"] = cal_order[i] if unique else draw(st.sampled_from(CALLINGS))
        bot = draw(st.sampled_from(["any", *STYLES]))
        if bot != "any":
            seat["bot"] = bot
            names = draw(st.lists(st.sampled_from(KNOBS), max_size=3, unique=True))
            if bot == "search" and "rollouts" not in names:
                names.append("rollouts")          # at most ROLLOUTS_DRAWN, not its 32
            knobs = {k: _knob_value(draw, k) for k in names}
            if knobs:
                seat["knobs"] = knobs
        seats.append(seat)
    return seats


@st.composite
def scenarios(draw) -> dict:
    counts = sorted(draw(st.lists(st.integers(2, 6), min_size=1, max_size=5, unique=True)))
    players = counts[0] if len(counts) == 1 and draw(st.booleans()) else counts
    unique = draw(st.booleans())
    sc = {"name": "prop", "ruleset": "deepfall", "games": 40, "chunk_size": 40,
          "seed": draw(st.integers(0, 2**63 - 1)), "players": players,
          "companies": {"unique": unique},
          "bots": draw(st.lists(st.sampled_from(POOL_STYLES), min_size=1, max_size=5,
                                unique=True))}
    if draw(st.booleans()):
        sc["seats"] = draw(seats_for(max(counts), unique))
    return sc


def _scalar(draw, path: str):
    if path in BOUNDED:
        lo, hi = BOUNDED[path]
        if PARAMS[path]["type"] == "int":
            return draw(st.integers(int(lo), int(hi)))
        return draw(st.floats(lo, hi, allow_nan=False))
    if path in CHOICES:
        return draw(st.sampled_from(CHOICES[path]))
    return draw(st.booleans())


@st.composite
def parameter_sets(draw, counts: list[int]) -> dict:
    """``{path: value}``: a handful of rule parameters, all inside their bounds."""
    out = {p: _scalar(draw, p)
           for p in draw(st.lists(st.sampled_from(SCALARS), min_size=1, max_size=8,
                                  unique=True))}
    # numbers that matter most to a game's length and flow, more often
    for path in ("turn.hand_size", "maw.steps_per_floor", "maw.steps_per_round",
                 "maw.max_collapses_per_round", "claims.per_turn", "turn.setback_threshold"):
        if draw(st.integers(0, 3)) == 0:
            out[path] = _scalar(draw, path)
    if draw(st.booleans()):
        out["end.max_rounds"] = draw(st.integers(1, 80))
    if draw(st.booleans()):
        cost = draw(st.integers(0, 20))
        out["recruit.cost"] = cost
        out["recruit.min_cost"] = draw(st.integers(0, cost))
    if draw(st.booleans()):
        out["players.min"] = draw(st.integers(2, min(counts)))
        out["players.max"] = draw(st.integers(max(counts), 6))
    if draw(st.booleans()):   # a die whose six faces are redistributed
        die = draw(st.sampled_from(DICE))
        cuts = sorted(draw(st.lists(st.integers(0, 6), min_size=5, max_size=5)))
        sizes = np.diff([0, *cuts, 6])
        for sym, k in zip(SYMBOLS, sizes, strict=True):
            out[f"dice.{die}.faces.{sym}"] = int(k)
    if draw(st.booleans()):
        out["floors.depth_values"] = draw(st.lists(st.integers(0, 10), min_size=6,
                                                   max_size=6))
    if draw(st.booleans()):
        lin = draw(st.sampled_from(LINEAGES))
        bag = draw(st.dictionaries(st.sampled_from(DICE), st.integers(0, 8), min_size=1))
        assume(sum(bag.values()) >= 1)
        out[f"lineages.{lin}.start_bag"] = bag
    if draw(st.booleans()):
        floor = draw(st.sampled_from("123456"))
        w = draw(st.lists(st.floats(0, 10, allow_nan=False), min_size=10, max_size=10))
        assume(sum(w) > 0)
        out[f"dungeon.floor_weights.{floor}"] = w
    if draw(st.booleans()):
        out["exits.last_stand_free_rooms"] = draw(st.lists(st.sampled_from(ROOMS),
                                                           unique=True))
    return out


def _as_set(path: str, value) -> str:
    return f"{path}={json.dumps(value)}"


def _check_games(prepared, sc: dict, games, seats) -> None:
    p = prepared.params
    counts = sc["players"] if isinstance(sc["players"], list) else [sc["players"]]
    max_rounds = p["end"]["max_rounds"]
    # every game ends: all six floors fell, or the round cap stopped it and says so
    assert (games["rounds"] <= max_rounds).all()
    assert ((games["floors_collapsed"] == 6) | games["truncated"]).all()
    trunc = games[games["truncated"]]
    assert (trunc["rounds"] == max_rounds).all() and (trunc["floors_collapsed"] < 6).all()
    assert games["players"].isin(counts).all()
    assert (seats.groupby("game").size() == games.set_index("game")["players"]).all()
    # Glory is a finite, non-negative score; places run 1..players
    glory = seats["glory"].to_numpy()
    assert np.isfinite(glory).all() and (glory >= 0).all(), seats.loc[glory < 0]
    assert ((seats["place"] >= 1) & (seats["place"] <= seats["players"])).all()
    assert (games["n_winners"] >= 1).all()
    # a game the safety cap stopped is unresolved: no seat's win is a number (the shared
    # rule); every other game gives out its win as the tie rule says
    stopped = set(games.loc[games["truncated"].astype(bool), "game"])
    in_stopped = seats["game"].isin(stopped)
    assert seats.loc[in_stopped, "win"].isna().all()
    assert seats.loc[~in_stopped, "win"].notna().all()
    wins = seats[~in_stopped].groupby("game")["win"].sum()
    if p["end"]["tie_rule"] == "share":
        np.testing.assert_allclose(wins.to_numpy(), 1.0, atol=1e-9)
    else:
        solo = (games.set_index("game")["n_winners"] == 1).astype(float)
        np.testing.assert_allclose(wins.to_numpy(), solo.loc[wins.index].to_numpy())
    # the seats follow the scenario
    for i, seat in enumerate(sc.get("seats", [])):
        rows = seats[seats["seat"] == i + 1]      # seats.i is seat i + 1
        if seat.get("lineage", "random") != "random":
            assert (rows["lineage"] == _title(seat["lineage"])).all()
        if seat.get("calling", "random") != "random":
            assert (rows["calling"] == _title(seat["calling"])).all()
        if seat.get("bot", "any") != "any":
            label = seat["bot"] + ("*" if seat.get("knobs") else "")
            assert (rows["bot"] == label).all()
    drawn = ~seats["seat"].isin([i + 1 for i, s in enumerate(sc.get("seats", []))
                                 if s.get("bot", "any") != "any"])
    assert seats.loc[drawn, "bot"].isin(sc["bots"]).all()
    if sc["companies"]["unique"]:
        per_game = seats.groupby("game")
        assert (per_game["lineage"].nunique() == per_game.size()).all()
        assert (per_game["calling"].nunique() == per_game.size()).all()


@pytest.fixture(scope="module")
def search_kernel():
    """The search bot's batch kernel, which a drawn scenario may play: waited for while
    the slow tier's background warm-up compiles it (tests/conftest.py,
    deepsim.warmup.wait), not compiled a second time at once."""
    from deepsim import warmup

    warmup.wait("deepfall", "run")


@SETTINGS
@given(sc=scenarios(), data=st.data(), start=st.integers(0, 10**9),
       via_set=st.booleans())
@pytest.mark.slow
def test_valid_scenarios_and_parameters_play_every_game_to_an_end(search_kernel, sc, data,
                                                                   start, via_set):
    counts = sc["players"] if isinstance(sc["players"], list) else [sc["players"]]
    params = data.draw(parameter_sets(counts))
    if via_set:
        prepared = RULESET.prepare(sc, source="<prop>",
                                   overrides=[_as_set(k, v) for k, v in params.items()])
    else:
        prepared = RULESET.prepare({**sc, "overrides": params}, source="<prop>")
    leaves = leaf_paths(prepared.params)
    for path, value in params.items():   # the drawn values are the ones played
        if isinstance(value, dict):
            # a bag's die drawn as 0 is played as absent (A3: the same bag, the same hash)
            assert {k: leaves.get(f"{path}.{k}", 0) for k in value} == value
        else:
            assert leaves[path] == value, path
    # a searching seat's rollouts play each game on to its end at every decision: where the
    # drawn rules make games long (a slow Maw: every game to the round cap) one example
    # of 30 games took 8 s of the slow tier's minutes, so such a scenario plays 12
    n = 12 if any(seat.get("bot") == "search" for seat in sc.get("seats", [])) else 30
    games, seats = RULESET.run_chunk(prepared, start, n)
    assert len(games) == n and list(games["game"]) == list(range(start, start + n))
    _check_games(prepared, sc, games, seats)
    # the same games in two chunks: identical rows (results depend on seed and index only)
    cut = n // 3 + 1
    g1, s1 = RULESET.run_chunk(prepared, start, cut)
    g2, s2 = RULESET.run_chunk(prepared, start + cut, n - cut)
    pd.testing.assert_frame_equal(games, pd.concat([g1, g2], ignore_index=True))
    pd.testing.assert_frame_equal(seats, pd.concat([s1, s2], ignore_index=True))


# --- invalid inputs through the CLI --------------------------------------------------------

_INT_NOT = ["abc", "1.5", "[1, 2]", "{a: 1}", "~", "''"]
_FLOAT_NOT = ["abc", "[1.0]", "{a: 1}", "~", ".nan"]
_BOOL_NOT = ["maybe", "2", "[true]", "~", "0.5"]
_YAML_WORDS = ("yes", "no", "on", "off", "true", "false", "null", "y", "n")
_PATH_CHARS = st.sampled_from("abcdefghijklmnopqrstuvwxyz_.0123456789")


@st.composite
def bad_overrides(draw) -> tuple[list[tuple[str, str]], str]:
    """([(path, raw YAML value), ...], key the error must name); the last pair is the bad one."""
    kind = draw(st.sampled_from(["one", "one", "one", "one", "under_a_scalar"]))
    if kind == "under_a_scalar":   # a parent replaced by a scalar or list, then a key of it
        path = draw(st.sampled_from([p for p in sorted(DEFAULTS) if p.count(".") >= 1]))
        parts = path.split(".")
        cut = draw(st.integers(1, len(parts) - 1))
        parent = ".".join(parts[:cut])
        value = draw(st.sampled_from(["5", "[1, 2]", "abc", "~", "1.5"]))
        return [(parent, value), (path, "1")], path
    path, raw, key = draw(bad_override())
    return [(path, raw)], key


@st.composite
def bad_override(draw) -> tuple[str, str, str]:
    """(path, raw YAML value, key the error must name)."""
    kind = draw(st.sampled_from(["below", "above", "wrong_type", "unknown_path",
                                 "die_faces", "choice"]))
    if kind in ("below", "above"):
        path = draw(st.sampled_from(sorted(BOUNDED) + ["end.max_rounds", "players.min",
                                                       "players.max", "recruit.cost"]))
        lo, hi = _bounds(PARAMS[path]["bounds"])
        is_int = PARAMS[path]["type"] == "int"
        if kind == "below":
            value = (draw(st.integers(int(lo) - 1000, int(lo) - 1)) if is_int
                     else draw(st.floats(lo - 1000, lo, exclude_max=True, allow_nan=False)))
        else:
            value = (draw(st.integers(int(hi) + 1, int(hi) + 10**6)) if is_int
                     else draw(st.floats(hi, hi + 1e6, exclude_min=True, allow_nan=False)))
        return path, repr(value), path
    if kind == "wrong_type":
        path = draw(st.sampled_from(sorted(BOUNDED) + BOOLS))
        typ = PARAMS[path]["type"]
        pool = _INT_NOT if typ == "int" else _FLOAT_NOT if typ == "float" else _BOOL_NOT
        return path, draw(st.sampled_from(pool)), path
    if kind == "choice":
        path = draw(st.sampled_from(sorted(CHOICES)))
        value = draw(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1,
                             max_size=12))
        assume(value not in CHOICES[path] and value not in _YAML_WORDS)
        return path, value, path
    if kind == "unknown_path":
        base = draw(st.sampled_from(sorted(DEFAULTS)))
        tail = draw(st.text(alphabet=_PATH_CHARS, min_size=1, max_size=6))
        path = draw(st.sampled_from([base + tail, base + "." + tail, tail + base]))
        assume(path not in DEFAULTS and not any(p.startswith(path + ".") for p in DEFAULTS))
        assume(path.strip() == path and path)
        return path, "1", path
    die = draw(st.sampled_from(DICE))
    sym = draw(st.sampled_from(SYMBOLS))
    current = DEFAULTS[f"dice.{die}.faces.{sym}"]
    value = draw(st.integers(-5, 12).filter(lambda v: v != current))
    return f"dice.{die}.faces.{sym}", str(value), f"dice.{die}"


OK = "name: x\nruleset: deepfall\ngames: 5\nseed: 1\nchunk_size: 5\n"


def _invoke(tmp: Path, text: str, sets: list[str]):
    scen = tmp / "scenario.yaml"
    scen.write_text(text)
    out = tmp / "out"
    args = ["run", str(scen), "--games", "5", "--out", str(out), "--threads", "1", "-q"]
    for s in sets:
        args += ["--set", s]
    res = cli.invoke(app, args)
    return res, scen, out


def _assert_refused(res, out: Path) -> str:
    text = " ".join(res.output.split())
    assert res.exit_code == 2, res.output
    assert text.startswith("error:"), res.output
    assert "Traceback" not in res.output, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert not out.exists()
    return text


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("bad")


@SETTINGS
@given(bad=bad_overrides(), extra=st.lists(st.sampled_from(
    ["turn.hand_size=5", "maw.steps_per_floor=3", "loot.per_greed=2.5"]), max_size=2))
def test_invalid_set_exits_2_naming_the_key(workdir, bad, extra):
    pairs, key = bad
    res, scen, out = _invoke(workdir, OK, [*extra, *(f"{p}={raw}" for p, raw in pairs)])
    text = _assert_refused(res, out)
    assert f"{scen} / --set" in text
    assert f"key '{key}'" in text or f"{key}:" in text or f"{key} (" in text, text


@SETTINGS
@given(bad=bad_overrides())
def test_invalid_scenario_override_exits_2_at_its_line(workdir, bad):
    pairs, key = bad
    # a second recruit.min_cost key would be a duplicate-key error at another line
    assume(all(p != "recruit.min_cost" for p, _ in pairs))
    text = (OK + "overrides:\n  recruit.min_cost: 0\n"
            + "".join(f"  {p}: {raw}\n" for p, raw in pairs))
    res, scen, out = _invoke(workdir, text, [])
    msg = _assert_refused(res, out)
    assert f"{scen}:{7 + len(pairs)}, key '{key}'" in msg, msg


@st.composite
def bad_scenarios(draw) -> tuple[str, str]:
    """(scenario text, fragment the message must hold)."""
    kind = draw(st.sampled_from(["players_out", "seats_length", "unknown_bot",
                                 "unknown_lineage", "players_vs_set", "shared_company",
                                 "knob_out_of_bounds"]))
    if kind == "players_out":
        bad = draw(st.one_of(st.integers(-5, 1), st.integers(7, 100)))
        counts = draw(st.lists(st.integers(2, 6), max_size=3)) + [bad]
        return OK + f"players: {counts}\n", f"got {bad}"
    if kind == "seats_length":
        n = draw(st.integers(2, 6))
        k = draw(st.integers(1, 8).filter(lambda v: v != n))
        return OK + f"players: {n}\nseats:\n" + "  - {}\n" * k, f"lists {k} seats"
    if kind == "unknown_bot":
        name = draw(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9))
        assume(name not in STYLES and name not in _YAML_WORDS)
        return OK + f"bots: [{name}]\n", f"unknown bot '{name}'"
    if kind == "unknown_lineage":
        name = draw(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9))
        assume(name not in LINEAGES and name != "random" and name not in _YAML_WORDS)
        return OK + f"players: 2\nseats:\n  - {{lineage: {name}}}\n  - {{}}\n", "lineage"
    if kind == "knob_out_of_bounds":
        k = KNOB_BOUNDS[draw(st.sampled_from(KNOBS))]
        value = draw(st.one_of(st.floats(k.high + 1, k.high + 1e6),
                               st.floats(k.low - 1e6, k.low - 1)).map(round))
        return (OK + f"players: 2\nseats:\n  - {{bot: {draw(st.sampled_from(STYLES))}, "
                f"knobs: {{{k.name}: {value}}}}}\n  - {{}}\n",
                f"key 'seats.0.knobs.{k.name}' (seat 1): {k.name} {value:g} is outside its bounds")
    if kind == "players_vs_set":
        lo = draw(st.integers(3, 6))
        return (OK + f"players: {lo - 1}\noverrides:\n  players.min: {lo}\n",
                f"plays {lo}-6 players")
    lin = draw(st.sampled_from(LINEAGES))
    return (OK + f"players: 2\ncompanies: {{unique: true}}\nseats:\n  - {{lineage: {lin}}}\n"
            f"  - {{lineage: {lin}}}\n", "companies.unique")


@SETTINGS
@given(bad=bad_scenarios())
def test_invalid_scenarios_exit_2(workdir, bad):
    text, fragment = bad
    res, scen, out = _invoke(workdir, text, [])
    msg = _assert_refused(res, out)
    assert str(scen) in msg and fragment in msg, msg


def test_prepare_refuses_player_counts_outside_the_parameters():
    sc = {"name": "x", "ruleset": "deepfall", "games": 1, "seed": 0, "players": [2, 4]}
    with pytest.raises(InputError, match=r"plays 3-6 players .* got 2") as info:
        RULESET.prepare(sc, source="<s>", overrides=["players.min=3"])
    assert info.value.key == "players"
