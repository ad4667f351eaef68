"""Rivals dice: the game kernel rolls exactly what ``deepsim odds rivals`` computes.

- the kernel's pool builder (``dice.situated_pool``) equals the odds module's
  ``degrade(upgrade(pool + added))`` for every pool of up to 3 dice and every set of
  situations, under the shipped readings and under other readings of the same parameters;
- the kernel's attack sampler (``dice.sample_attacks``, the code the game calls) agrees with
  ``deepsim odds rivals attack`` within total-variation distance 0.003 on each distribution
  the command prints (net hits, attacker Aether, defender Aether), 10^6 rolls at a fixed
  seed, for pools with modifiers, chained and unchained;
- the bots' table of P(net hits >= k) equals the exact odds where the explosion cap cannot
  bind.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from deepsim.cli import app
from deepsim.rng import game_key
from deepsim.rulesets.rivals import compile as comp
from deepsim.rulesets.rivals import dice, odds
from deepsim.rulesets.rivals import layout as L

runner = CliRunner()
COLOURS = ("black", "red", "white")


def pools(max_dice: int):
    for n in range(max_dice + 1):
        yield from itertools.combinations_with_replacement(COLOURS, n)


@pytest.mark.parametrize("sets", [
    [],
    ["modifiers.rock={add_defence: [red]}", ("modifiers.cave={add_defence: [red], "
     "upgrade_defence: 1}"), "combat.pool_cap=2"],
    ["modifiers.charge={degrade_attack: 2, add_attack: [white]}",
     "modifiers.coral={degrade_defence: 1, auto_shields: 1}", "upgrade_beyond_top_adds=red"],
])
def test_pool_builder_equals_the_odds_module(sets):
    d = odds.data(sets)
    modtab = comp.modifier_table(d)
    _, _, dr = comp.dice_arrays(d)
    out = np.zeros(len(COLOURS), np.int64)
    for pool in pools(3):
        base = comp.counts(d, list(pool))
        for k in range(L.N_SIT + 1):
            for subset in itertools.combinations(L.SITUATIONS, k):
                sit = np.array([1 if s in subset else 0 for s in L.SITUATIONS], np.int64)
                for defending in (False, True):
                    for extra_up in (0, 1):
                        auto = dice.situated_pool(base, sit, defending, modtab, extra_up, 0,
                                                  dr, out)
                        specs = [d.modifiers[s] for s in subset]
                        if defending:
                            added = [c for m in specs for c in m.add_defence]
                            up = sum(m.upgrade_defence for m in specs) + extra_up
                            down = sum(m.degrade_defence for m in specs)
                            want_auto = sum(m.auto_shields for m in specs)
                        else:
                            added = [c for m in specs for c in m.add_attack]
                            up = sum(m.upgrade_attack for m in specs) + extra_up
                            down = sum(m.degrade_attack for m in specs)
                            want_auto = 0
                        want = odds.cap_pool(d, odds.degrade(
                            d, odds.upgrade(d, list(pool) + added, up), down))
                        assert list(out) == list(comp.counts(d, want)), (pool, subset,
                                                                         defending, sets)
                        assert auto == want_auto


def _odds_json(args: list[str]) -> dict:
    r = runner.invoke(app, ["odds", "rivals", "attack", *args, "--format", "json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def _counts(text: str) -> list[int]:
    """``"1 black + 2 red"`` -> dice per colour, strongest first."""
    out = [0, 0, 0]
    for part in text.split(" + "):
        if part.strip() and part != "(no dice)":
            n, c = part.split()
            out[COLOURS.index(c)] += int(n)
    return out


def _tv(exact: dict[int, float], sample: np.ndarray) -> float:
    top = max(max(exact), int(sample.max())) + 1
    p = np.zeros(top)
    for k, v in exact.items():
        p[k] = v
    q = np.bincount(sample, minlength=top) / sample.size
    return 0.5 * float(np.abs(p - q).sum())


#: (odds command options, attacker situations, defender situations); the situations are
#: the same modifiers the command's --mod names (the attacker's charge, the defender's
#: coral, swim, rock or cave)
CASES = [
    (["--attack", "BRR", "--defence", "RW"], [], [], []),
    (["--attack", "B", "--defence", "BB", "--mod", "coral"], [], ["coral"], []),
    (["--attack", "RRR", "--defence", "W", "--mod", "rock"], [], ["rock"], []),
    (["--attack", "BBR", "--defence", "BR", "--mod", "charge", "--mod", "swim", "--mod",
      "cave"], ["charge"], ["swim", "cave"], []),
    (["--attack", "BR", "--defence", "RW", "--mod", "coral", "--no-chain"], [], ["coral"],
     ["explode.recursive=false"]),
    (["--attack", "BB", "--defence", "RR", "--mod", "rock", "--set",
      "modifiers.rock={add_defence: [red]}", "--set", "explode.defender=false"],
     [], ["rock"], ["modifiers.rock={add_defence: [red]}", "explode.defender=false"]),
]


@pytest.mark.parametrize(("args", "att_sit", "def_sit", "sets"), CASES)
def test_attack_sampler_agrees_with_the_odds_command(args, att_sit, def_sit, sets):
    res = _odds_json(args)
    exact = {c: {int(r["k"]): float(r[c]) for r in res["rows"]}
             for c in ("net", "a_aether", "d_aether")}
    d = odds.data(sets)
    faces, nfaces, dr = comp.dice_arrays(d)
    modtab = comp.modifier_table(d)
    apool = np.zeros(3, np.int64)
    dpool = np.zeros(3, np.int64)
    pa = odds.parse_pool(d, args[1], "--attack")
    pd_ = odds.parse_pool(d, args[3], "--defence")
    sit_a = np.array([1 if s in att_sit else 0 for s in L.SITUATIONS], np.int64)
    sit_d = np.array([1 if s in def_sit else 0 for s in L.SITUATIONS], np.int64)
    dice.situated_pool(comp.counts(d, pa), sit_a, False, modtab, 0, 0, dr, apool)
    auto = dice.situated_pool(comp.counts(d, pd_), sit_d, True, modtab, 0, 0, dr, dpool)
    # the pools the kernel rolls are the ones the command reports
    assert _counts(res["inputs"]["attack pool"]) == list(apool)
    assert _counts(res["inputs"]["defence pool"]) == list(dpool)
    net, aa, da = dice.sample_attacks(np.uint64(game_key(np.int64(20240), np.int64(len(args)))),
                                      1_000_000, apool, dpool, auto, faces, nfaces, dr)
    for name, sample in (("net", net), ("a_aether", aa), ("d_aether", da)):
        tv = _tv(exact[name], sample)
        assert tv < 0.003, (args, name, tv)


def test_sampler_would_notice_another_law():
    """The instrument can fail: the same sampler against the unchained odds of a chained
    roll is far outside 0.003."""
    d = odds.data()
    faces, nfaces, dr = comp.dice_arrays(d)
    res = _odds_json(["--attack", "BBB", "--defence", "W", "--no-chain"])
    exact = {int(r["k"]): float(r["net"]) for r in res["rows"]}
    net, _, _ = dice.sample_attacks(np.uint64(game_key(np.int64(1), np.int64(0))), 200_000,
                                    comp.counts(d, ["black"] * 3), comp.counts(d, ["white"]),
                                    0, faces, nfaces, dr)
    assert _tv(exact, net) > 0.01


def test_bots_table_is_the_exact_law_below_the_cap():
    d = odds.data()
    faces, nfaces, dr = comp.dice_arrays(d)
    fl = [list(faces[i, :nfaces[i]]) for i in range(3)]
    dmax, index, tab = dice.net_table(fl, int(dr[dice.DR_EXTRA]), True, True, 3)
    for att, dfn in (("BRR", "RW"), ("W", "B"), ("BB", "")):
        res = odds.answer("attack", attack=att, defence=dfn or None, cap=50)
        ge = {int(r["k"]): float(r["net_ge"]) for r in res.rows}
        a = comp.counts(d, odds.parse_pool(d, att, "a"))
        b = comp.counts(d, odds.parse_pool(d, dfn, "d"))
        code = lambda c: int(sum(int(c[i]) * (dmax + 1) ** i for i in range(3)))
        row = tab[index[code(a)], index[code(b)]]
        for k in range(1, 6):
            assert row[k - 1] == pytest.approx(ge.get(k, 0.0), abs=1e-5)
