"""Exact Rivals: Masters of the Deep dice odds: attack pool vs defence pool.

Face lists per colour come from ``deepsim/rulesets/rivals/rivals.yaml`` (PLACEHOLDER faces until
a user who owns the game enters the printed ones), with ``--set`` overrides. A roll counts
hits, shields and Aether; each exploding face adds one Red die to the same roll (RV-D3),
and with ``explode.recursive`` those extra dice can explode again, up to ``explode.cap``
extra dice per roll (AMB-01). The roll is a finite Markov chain (pending explosions, extra
dice rolled) that icepool iterates exactly. Net hits = attacker hits - defender shields,
at least 0 (RV-C6); each side gains one Aether per Aether face (RV-C7); the attacker's
shields and the defender's hits do nothing (AMB-05). The game kernel resolves its attacks
from the same data and readings (``dice.py``), so this is also the law of its rolls.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import icepool

from deepsim.errors import InputError
from deepsim.odds.common import at_least, exact_method, load_data, mean, need, probs
from deepsim.odds.table import Column, Result
from deepsim.params import nearest
from deepsim.rulesets.base import OddsBook, OddsOption
from deepsim.rulesets.rivals.schema import FACE_VALUE, FACES, RivalsData

__all__ = ["BOOK", "FACES", "FACE_VALUE", "RivalsData", "answer", "attack", "cap_pool",
           "data", "degrade", "parse_pool", "roll", "upgrade"]

DATA_FILE = Path(__file__).with_name("rivals.yaml")

QUESTIONS = {
    "attack": "attack pool vs defence pool: distribution of net hits and of each side's "
              "Aether",
    "colours": "each colour's faces and expected hits, shields, Aether (with explosions)",
}

def data(sets: list[str] | None = None) -> RivalsData:
    """The Rivals dice data after ``--set`` overrides."""
    return load_data(DATA_FILE, RivalsData, sets)


def placeholders(d: RivalsData, used: set[str] | None = None) -> list[str]:
    """Placeholder colours (all, or those in ``used``) as data paths."""
    return [f"rivals colours.{c}.faces (invented: the printed faces are pictures)"
            for c, spec in d.colours.items() if spec.placeholder and (used is None or c in used)]


def parse_pool(d: RivalsData, text: str | None, key: str) -> list[str]:
    """``"black,red,red"``, ``"B,R,R"``, ``"black=1,red=2"`` or ``"BRR"`` -> colour list."""
    if not text:
        return []
    names = list(d.colours)
    initials = {n[0].upper(): n for n in names}
    out: list[str] = []
    t = text.strip()
    if "," not in t and "=" not in t and t.upper() == t and all(c in initials for c in t):
        return [initials[c] for c in t]
    for part in t.split(","):
        part = part.strip()
        if not part:
            continue
        name, count = (part.split("=", 1) + ["1"])[:2] if "=" in part else (part, "1")
        name = name.strip().lower()
        if name.upper() in initials:
            name = initials[name.upper()]
        if name not in d.colours:
            raise InputError(f"unknown colour '{name}'{nearest(name, names)}; colours: "
                             f"{', '.join(names)}", key=key)
        try:
            n = int(count)
        except ValueError:
            raise InputError(f"'{part}': the count must be a whole number", key=key) from None
        out += [name] * need(n, key=key, lo=0, hi=30)
    return out


def degrade(d: RivalsData, pool: list[str], times: int) -> list[str]:
    """RV-D5/D6: the weakest die steps down one colour; the weakest colour is removed."""
    pool = list(pool)
    order = d.degrade_order                      # strongest first
    for _ in range(times):
        if not pool:
            break
        i = min(range(len(pool)), key=lambda j: d.colours[pool[j]].rank)
        k = order.index(pool[i])
        if k + 1 < len(order):
            pool[i] = order[k + 1]
        else:
            pool.pop(i)
    return pool


def upgrade(d: RivalsData, pool: list[str], times: int) -> list[str]:
    """RV-D5: the weakest die steps up one colour; the strongest keeps and adds a die."""
    pool = list(pool)
    order = d.degrade_order
    for _ in range(times):
        if not pool:
            pool.append(order[-1])
            continue
        i = min(range(len(pool)), key=lambda j: d.colours[pool[j]].rank)
        k = order.index(pool[i])
        if k > 0:
            pool[i] = order[k - 1]
        else:
            pool.append(d.upgrade_beyond_top_adds)
    return pool


def cap_pool(d: RivalsData, pool: list[str]) -> list[str]:
    """AMB-02 ``combat.pool_cap``: at most that many dice of one colour in a roll (the
    extra dice of explosions aside); the pool unchanged when it is null."""
    cap = d.combat.pool_cap
    if cap is None:
        return list(pool)
    out: list[str] = []
    for c in pool:
        if out.count(c) < cap:
            out.append(c)
    return out


def colour_die(d: RivalsData, colour: str) -> icepool.Die:
    """One die: outcomes Vector(hits, shields, aether, explosions)."""
    return icepool.Die([icepool.Vector(FACE_VALUE[f]) for f in d.colours[colour].faces])


def roll(d: RivalsData, pool: list[str], *, recursive: bool, cap: int) -> icepool.Die:
    """A pool's roll with explosions resolved: outcomes Vector(hits, shields, aether)."""
    zero = icepool.Vector((0, 0, 0, 0))
    if not pool:
        return icepool.Die([icepool.Vector((0, 0, 0))])
    base = icepool.Die([zero])
    for c in pool:
        base = base + colour_die(d, c)
    extra = colour_die(d, d.explode.extra_die)
    # state: (hits, shields, aether, pending explosions, extra dice rolled)
    start = base.map(lambda v: icepool.Vector((v[0], v[1], v[2], v[3], 0)))

    def step(s):
        if s[3] <= 0 or s[4] >= cap:
            return s

        def add(e):
            more = e[3] if recursive else 0
            return icepool.Vector((s[0] + e[0], s[1] + e[1], s[2] + e[2],
                                   s[3] - 1 + more, s[4] + 1))
        return extra.map(add)

    done = start.map(step, repeat=cap) if cap > 0 else start
    return done.map(lambda s: icepool.Vector((s[0], s[1], s[2])))


def _pool_text(pool: list[str]) -> str:
    if not pool:
        return "(no dice)"
    counts: dict[str, int] = {}
    for c in pool:
        counts[c] = counts.get(c, 0) + 1
    return " + ".join(f"{n} {c}" for c, n in counts.items())


def attack(d: RivalsData, *, attack_pool: str | None, defence_pool: str | None,
           mods: list[str], chain: bool | None, cap: int | None, degrade_attack: int,
           upgrade_attack: int, degrade_defence: int, upgrade_defence: int,
           auto_shields: int) -> Result:
    """Net hits and Aether of one attack (RV-C2..C7)."""
    a_pool = parse_pool(d, attack_pool, "--attack")
    d_pool = parse_pool(d, defence_pool, "--defence")
    if not a_pool:
        raise InputError("give the attack pool, e.g. --attack black,red,red (or BRR)",
                         key="--attack")
    total = {"degrade_attack": degrade_attack, "upgrade_attack": upgrade_attack,
             "degrade_defence": degrade_defence, "upgrade_defence": upgrade_defence,
             "auto_shields": auto_shields}
    for m in mods:
        k = m.strip().lower()
        if k not in d.modifiers:
            raise InputError(f"unknown modifier '{m}'{nearest(k, d.modifiers)}; known: "
                             f"{', '.join(d.modifiers)}", key="--mod")
        spec = d.modifiers[k]
        for f in total:
            total[f] += getattr(spec, f)
        a_pool += spec.add_attack
        d_pool += spec.add_defence
    a_pool = cap_pool(d, degrade(d, upgrade(d, a_pool, total["upgrade_attack"]),
                                 total["degrade_attack"]))
    d_pool = cap_pool(d, degrade(d, upgrade(d, d_pool, total["upgrade_defence"]),
                                 total["degrade_defence"]))
    recursive = d.explode.recursive if chain is None else chain
    cap = d.explode.cap if cap is None else need(cap, key="--cap", lo=0, hi=50)
    ra = roll(d, a_pool, recursive=recursive, cap=cap)
    # AMB-31: without explode.defender the defender's exploding faces add no dice
    rd = roll(d, d_pool, recursive=recursive, cap=cap if d.explode.defender else 0)
    shields = total["auto_shields"]
    net = probs(icepool.map(lambda a, b: max(0, a[0] - b[1] - shields), ra, rd))
    a_ae = probs(ra.map(lambda v: v[2]))
    d_ae = probs(rd.map(lambda v: v[2]))
    hits = probs(ra.map(lambda v: v[0]))
    top = 0
    for dist in (net, a_ae, d_ae, hits):
        for k, p in dist.items():
            if p >= 5e-7 and k > top:
                top = k
    rows = [{"k": k, "net": net.get(k, 0), "net_ge": at_least(net, k),
             "hits": hits.get(k, 0), "a_aether": a_ae.get(k, 0), "d_aether": d_ae.get(k, 0)}
            for k in range(top + 1)]
    cols = [Column("k", "k", "int"), Column("net", "P(net hits = k)"),
            Column("net_ge", "P(net hits >= k)"), Column("hits", "P(attacker hits = k)"),
            Column("a_aether", "P(attacker Aether = k)"),
            Column("d_aether", "P(defender Aether = k)")]
    footer = [{"k": "mean", "net": mean(net), "hits": mean(hits), "a_aether": mean(a_ae),
               "d_aether": mean(d_ae)}]
    used = set(a_pool) | set(d_pool) | {d.explode.extra_die}
    notes = [f"Explosions add one {d.explode.extra_die} die each (RV-D3), "
             + ("chained (extra dice explode again)" if recursive else "not chained")
             + f", at most {cap} extra dice per roll (AMB-01)"
             + ("" if d.explode.defender else "; the defender's do not explode (AMB-31)")
             + ".",
             ("Net hits = attacker hits - defender shields (min 0, RV-C6); each net hit is a "
              "wound (AMB-04). Rows stop where every probability is below 0.00005%.")]
    if shields:
        notes.append(f"Defender has {shields} automatic shield(s) (rock, AMB-07).")
    return Result(
        ruleset="rivals", question="attack",
        title=f"Rivals: attack {_pool_text(a_pool)} vs defence {_pool_text(d_pool)}",
        columns=cols, rows=rows, footer=footer, method=exact_method(),
        inputs={"attack pool": _pool_text(a_pool), "defence pool": _pool_text(d_pool),
                "modifiers": ", ".join(mods) or "none", "chained explosions": recursive,
                "explosion cap": cap},
        placeholders=placeholders(d, used), notes=notes, plot_x="k",
        plot_y=["net", "a_aether", "d_aether"])


def colours(d: RivalsData, *, chain: bool | None, cap: int | None) -> Result:
    """Each colour alone: faces and expectations with explosions."""
    recursive = d.explode.recursive if chain is None else chain
    cap = d.explode.cap if cap is None else need(cap, key="--cap", lo=0, hi=50)
    rows = []
    for c, spec in sorted(d.colours.items(), key=lambda kv: -kv[1].rank):
        r = roll(d, [c], recursive=recursive, cap=cap)
        rows.append({"colour": c, "faces": ", ".join(spec.faces),
                     "explode": Fraction(sum(1 for f in spec.faces if FACE_VALUE[f][3]),
                                         len(spec.faces)),
                     "hits": mean(probs(r.map(lambda v: v[0]))),
                     "shields": mean(probs(r.map(lambda v: v[1]))),
                     "aether": mean(probs(r.map(lambda v: v[2]))),
                     "p_hit": probs(r.map(lambda v: v[0] > 0)).get(True, 0)})
    cols = [Column("colour", "colour", "text"), Column("faces", "faces", "text"),
            Column("explode", "P(explodes)"), Column("p_hit", "P(>= 1 hit)"),
            Column("hits", "E[hits]", "float"), Column("shields", "E[shields]", "float"),
            Column("aether", "E[Aether]", "float")]
    return Result(ruleset="rivals", question="colours",
                  title="Rivals: dice colours (one die, explosions included)", columns=cols,
                  rows=rows, method=exact_method(),
                  inputs={"chained explosions": recursive, "explosion cap": cap},
                  placeholders=placeholders(d),
                  notes=["E[...] include the extra dice of explosions (RV-D3, AMB-01)."],
                  plot_x="colour", plot_y=["p_hit", "explode"])


def answer(question: str, **o) -> Result:
    """Answer one Rivals question (see :data:`QUESTIONS`)."""
    d = data(o.get("sets"))
    if question == "attack":
        res = attack(d, attack_pool=o.get("attack"), defence_pool=o.get("defence"),
                     mods=list(o.get("mods") or []), chain=o.get("chain"), cap=o.get("cap"),
                     degrade_attack=o.get("degrade_attack") or 0,
                     upgrade_attack=o.get("upgrade_attack") or 0,
                     degrade_defence=o.get("degrade_defence") or 0,
                     upgrade_defence=o.get("upgrade_defence") or 0,
                     auto_shields=o.get("auto_shields") or 0)
    elif question == "colours":
        res = colours(d, chain=o.get("chain"), cap=o.get("cap"))
    else:
        raise InputError(f"unknown Rivals question '{question}'"
                         f"{nearest(question, QUESTIONS)}; known: {', '.join(QUESTIONS)}",
                         key="QUESTION")
    if o.get("sets"):
        res.inputs["overrides"] = list(o["sets"])
    return res


#: the options of ``deepsim odds rivals QUESTION`` (each passed to :func:`answer` by name)
OPTIONS = (
    OddsOption("attack", ("--attack", "-a"),
               help="Attack pool: black,red,red or BRR or black=1,red=2."),
    OddsOption("defence", ("--defence", "--defense", "-d"), help="Defence pool, as --attack."),
    OddsOption("chain", ("--chain/--no-chain",), "bool", None,
               help="Extra dice explode again (default: the data file's explode.recursive)."),
    OddsOption("cap", ("--cap",), "int",
               help="Extra dice per roll at most (default: explode.cap)."),
    OddsOption("mods", ("--mod",), "list",
               help="Situation from the data file: coral, swim, charge, rock, cave; "
               "repeatable."),
    OddsOption("upgrade_attack", ("--upgrade-attack",), "int", 0),
    OddsOption("degrade_attack", ("--degrade-attack",), "int", 0),
    OddsOption("upgrade_defence", ("--upgrade-defence", "--upgrade-defense"), "int", 0),
    OddsOption("degrade_defence", ("--degrade-defence", "--degrade-defense"), "int", 0),
    OddsOption("auto_shields", ("--auto-shields",), "int", 0,
               help="Automatic defender shields."),
)

#: ``deepsim odds rivals`` (deepsim.rulesets.base.OddsBook)
BOOK = OddsBook(QUESTIONS, OPTIONS, answer,
                "Rivals: Masters of the Deep (PLACEHOLDER face lists until the printed ones "
                "are entered).")
