"""`deepsim odds`: exact values by hand, data-file overrides, formats, plot, errors."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from deepsim import rulesets
from deepsim.api import dice_odds as answer
from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.rulesets.deepfall import odds as OD

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, ["odds", *args], env={"COLUMNS": "200"})


def row(res, key, value):
    return next(r for r in res.rows if r[key] == value)


# ---- DEEPFALL -------------------------------------------------------------------------

def test_deepfall_symbols_of_recruit_dice_are_binomial():
    res = answer("deepfall", "symbols", dice="recruit=6", hand=4)
    for sym in ("steel", "dread"):
        assert row(res, "k", 0)[sym] == Fraction(5, 6) ** 4
        assert row(res, "k", 4)[sym] == Fraction(1, 6) ** 4
    assert res.footer[0]["steel"] == Fraction(4, 6)


def test_deepfall_bag_is_drawn_without_replacement():
    # 1 warrior + 1 relic, hand 2: both dice always drawn; Steel only from the warrior
    res = answer("deepfall", "symbols", dice="warrior=1,relic=1", hand=2)
    assert row(res, "k", 1)["steel"] == Fraction(1, 2)
    assert row(res, "k", 2)["steel"] == 0


@pytest.mark.parametrize("bag,n", [("warrior=2,recruit=3", 3), ("priest=1,relic=2,rogue=2", 5),
                                   ("scholar=3,champion=1,warrior=1", 2)])
def test_deepfall_hypergeometric_weights_match_icepool_deck_deal(bag, n):
    import icepool
    s = OD.setup(dice=bag)
    singles = {t: OD.die_of(s.data, t, tuple(range(6))) for t in s.bag}

    def pool(hand):
        out = singles[hand[0]]
        for t in hand[1:]:
            out = out + singles[t]
        return out
    dealt = icepool.map(lambda hand: pool(tuple(hand)), icepool.Deck(s.bag).deal(n))
    from deepsim.odds.common import probs
    assert probs(OD.hand_die(s.data, s.bag, n)) == probs(dealt)


def test_deepfall_claim_by_hand():
    # 4 warriors, hand 1: a Den (threat 3, lock 0) needs 3 Steel: never from one die
    res = answer("deepfall", "claim", dice="warrior=4", hand=1, room="den", max_press=3)
    assert [r["press"] for r in res.rows] == [0, 1, 2, 3]
    assert res.rows[0]["claim"] == 0
    assert res.rows[2]["claim"] == Fraction(1, 8)          # 3 warriors: all Steel
    # Stone (threat 1) with a Dvergar ignores the threat entirely
    res = answer("deepfall", "claim", dice="recruit=4", hand=1, room="stone",
                 lineage="dvergar", max_press=0)
    assert res.rows[0]["claim"] == 1


def test_deepfall_vault_needs_the_trinity_unless_lorekeeper():
    base = answer("deepfall", "claim", dice="recruit=8", room="vault", max_press=1)
    lore = answer("deepfall", "claim", dice="recruit=8", room="vault", calling="lorekeeper",
                  max_press=1)
    for b, lo in zip(base.rows, lore.rows):
        assert b["claim"] == b["both_trinity"] < b["both"] == lo["claim"]


def test_deepfall_setback_by_hand():
    # 3 recruits, hand 3: a Setback needs 3 Dread and no Faith: (1/6)^3
    res = answer("deepfall", "setback", dice="recruit=3", hand=3, max_press=0)
    assert res.rows[0]["setback"] == Fraction(1, 216)
    # Revenant cannot cancel: same here (no Faith was rolled anyway); Golem-born loses none
    golem = answer("deepfall", "setback", dice="recruit=3", hand=4, lineage="golem_born",
                   max_press=0)
    assert golem.rows[0]["dice"] == 3 and golem.rows[0]["setback"] == Fraction(1, 216)
    assert golem.rows[0]["lose"] == 0


def test_deepfall_lineage_effects_come_from_the_data():
    wisp = OD.setup(lineage="wisp")
    assert wisp.hand == 5 and wisp.bag == {"recruit": 4, "scholar": 2, "rogue": 2}
    assert OD.setup(lineage="golem_born").hand == 3
    assert OD.setup(lineage="wisp", sets=["lineages.wisp.hand_size=2"]).hand == 6
    rev = answer("deepfall", "setback", dice="priest=6", hand=6, lineage="revenant",
                 max_press=0)
    plain = answer("deepfall", "setback", dice="priest=6", hand=6, max_press=0)
    assert rev.rows[0]["setback"] > plain.rows[0]["setback"]
    syl = answer("deepfall", "symbols", dice="recruit=4", lineage="sylphid")
    assert syl.footer[1]["cunning"] == syl.footer[0]["cunning"] + 1


def test_deepfall_set_changes_the_answer_and_is_validated():
    a = answer("deepfall", "symbols", dice="warrior=4", hand=1)
    b = answer("deepfall", "symbols", dice="warrior=4", hand=1,
               sets=["dice.warrior.faces.steel=2", "dice.warrior.faces.dread=2"])
    assert row(a, "k", 1)["steel"] == Fraction(1, 2)
    assert row(b, "k", 1)["steel"] == Fraction(1, 3)
    with pytest.raises(InputError, match="sum to 7"):
        answer("deepfall", "symbols", dice="warrior=4", sets=["dice.warrior.faces.steel=4"])
    with pytest.raises(InputError, match="unknown parameter path"):
        answer("deepfall", "symbols", dice="warrior=4", sets=["dice.wariour.faces.steel=4"])


def test_deepfall_start_bag_is_named_as_placeholder():
    res = answer("deepfall", "claim", lineage="dvergar", room="vault")
    assert any("lineages.dvergar.start_bag" in p for p in res.placeholders)
    assert answer("deepfall", "claim", dice="recruit=4", room="vault").placeholders == []


# ---- Atlantis -------------------------------------------------------------------------

def test_atlantis_destroy_dr2_with_4ad():
    res = answer("atlantis", "destroy", ad=4, dr=2, attacks=2)
    p1 = 1 - Fraction(5, 6) ** 4 - 4 * Fraction(1, 6) * Fraction(5, 6) ** 3
    assert res.rows[0]["ruleset"] == p1                        # combat.hit_faces [1]
    q1 = 1 - Fraction(2, 3) ** 4 - 4 * Fraction(1, 3) * Fraction(2, 3) ** 3
    assert res.rows[0]["hit56"] == q1                          # scenarios/atlantis-hit56.yaml
    assert res.rows[1]["ruleset"] > p1


def test_atlantis_modifiers_search_and_poison():
    para = answer("atlantis", "damage", ad=2, paralyzed=True)
    assert len(para.rows) == 5                                 # 4 dice: damage 0..4
    up = answer("atlantis", "damage", ad=1, upwelling=True)
    assert len(up.rows) == 2                                   # minimum 1 AD
    up = answer("atlantis", "damage", ad=1, upwelling=True, paralyzed=True)
    assert len(up.rows) == 4                                   # max(1, 1-1) + 2 (AMB-T24)
    up = answer("atlantis", "damage", ad=1, upwelling=True, paralyzed=True,
                sets=["combat.penalty_floor_scope=all"])
    assert len(up.rows) == 3                                   # max(1, 1 + 2 - 1)
    hid = answer("atlantis", "destroy", ad=4, dr=1, hidden_target=True, attacks=1)
    vis = answer("atlantis", "destroy", ad=4, dr=1, attacks=1)
    assert hid.rows[0]["ruleset"] == vis.rows[0]["ruleset"] / 3
    hid6 = answer("atlantis", "destroy", ad=4, dr=1, hidden_target=True, attacks=1,
                  sets=["combat.search_min=6"])
    assert hid6.rows[0]["ruleset"] == vis.rows[0]["ruleset"] / 6
    poison = answer("atlantis", "destroy", attacker="sea_snakes", target="sea_king", attacks=1)
    assert poison.rows[0]["ruleset"] == Fraction(1, 6)
    first = answer("atlantis", "destroy", ad=1, dr=10, poison=True, hidden_attacker=True,
                   attacks=2)
    assert first.rows[0]["ruleset"] == 1 - Fraction(5, 6) ** 3
    assert first.rows[1]["ruleset"] == 1 - Fraction(5, 6) ** 4
    assassin = answer("atlantis", "damage", attacker="merman_assassin", hidden_attacker=True,
                      paralyzed=True)
    assert len(assassin.rows) == 8                             # 2 + 2 + 1 + 2 dice
    temple = answer("atlantis", "damage", attacker="sea_knights", temple=True)
    assert len(temple.rows) == 6
    none = answer("atlantis", "damage", attacker="sea_knights", temple=True,
                  sets=["combat.temple_bonus_scope=target_in_hex"])
    assert len(none.rows) == 5


def test_atlantis_hide_and_custom_hit_rule():
    res = answer("atlantis", "hide", hf=0, terrain="open_ocean")
    assert res.rows[0]["p"] == Fraction(1, 3)
    res = answer("atlantis", "hide", unit="coral_warriors", terrain="coral_reef")
    assert res.rows[0]["p"] == 1
    res = answer("atlantis", "hide", unit="mermen", terrain="seaweed")       # alias of kelp
    assert res.rows[0]["terrain"] == "kelp_forest" and res.rows[0]["p"] == Fraction(5, 6)
    res = answer("atlantis", "hide", unit="coral_warriors", terrain="coral_reef",
                 sets=["hide.success_min=8"])
    assert res.rows[0]["p"] == Fraction(1, 2)
    res = answer("atlantis", "hide", unit="sea_knights", sets=["hide.dash_can_hide=false"])
    assert all(r["p"] == 0 for r in res.rows)
    res = answer("atlantis", "damage", ad=3, hit_faces="4,5,6")
    assert res.rows[0]["custom_eq"] == Fraction(1, 8)


def test_atlantis_reads_the_ruleset_data_with_set():
    """Every number comes from deepsim/rulesets/atlantis/ruleset.yaml (+ --set)."""
    res = answer("atlantis", "damage", ad=3, sets=["combat.hit_faces=[1,2,3]"])
    assert res.rows[0]["ruleset_eq"] == Fraction(1, 8)
    assert res.rows[0]["default_eq"] == Fraction(5, 6) ** 3    # the shipped [1] beside it
    assert res.rows[0]["hit56_eq"] == Fraction(2, 3) ** 3
    res = answer("atlantis", "damage", ad=3, sets=["combat.hit_faces=[5,6]"])
    assert [c.key for c in res.columns if c.key.endswith("_eq")] == ["ruleset_eq",
                                                                     "default_eq"]
    para = answer("atlantis", "damage", ad=2, paralyzed=True, sets=["combat.paralyzed_bonus=3"])
    assert len(para.rows) == 6
    res = answer("atlantis", "destroy", attacker="sea_knights", target="sea_witch", attacks=1,
                 sets=["units.sea_witch.sea_witch.dr=1"])
    assert res.inputs["target DR"].startswith("1 ")
    sp = {r["roll"]: r["p"] for r in answer("atlantis", "specials",
                                            sets=["specials.net_max=5", "end.recovery_max=2",
                                                  "combat.search_min=4"]).rows}
    assert sp["net (AT-X8)"] == Fraction(5, 6) and sp["recovery (AT-E3)"] == Fraction(1, 3)
    assert sp["search (AT-A3)"] == Fraction(1, 2) and sp["vortex pull (AT-E1)"] == Fraction(1, 6)
    with pytest.raises(InputError, match="hit_faces"):
        answer("atlantis", "damage", ad=2, sets=["combat.hit_faces=[7]"])
    with pytest.raises(InputError, match="unknown parameter path"):
        answer("atlantis", "damage", ad=2, sets=["hit_rules.literal=[1]"])
    with pytest.raises(InputError, match="did you mean"):
        answer("atlantis", "damage", attacker="sea_knight")


# ---- Rivals ---------------------------------------------------------------------------

def test_rivals_without_explosions_is_simple_and_placeholders_are_named():
    sets = ["colours.red.faces=[hit,hit,hit,shield,shield,blank]"]
    res = answer("rivals", "attack", attack="red", defence="", sets=sets)
    assert row(res, "k", 1)["net"] == Fraction(1, 2)
    assert any("colours.red.faces" in p for p in res.placeholders)
    cleared = answer("rivals", "attack", attack="red",
                     sets=sets + ["colours.red.placeholder=false"])
    assert cleared.placeholders == []


def test_rivals_chained_and_unchained_explosions():
    sets = ["colours.red.faces=[exploding_hit,blank,blank,blank,blank,blank]"]
    chained = answer("rivals", "attack", attack="red", sets=sets, chain=True, cap=10)
    single = answer("rivals", "attack", attack="red", sets=sets, chain=False)
    # unchained: the first die's explosion adds one red die which cannot explode again
    assert row(single, "k", 2)["hits"] == Fraction(1, 36)
    assert row(chained, "k", 2)["hits"] == Fraction(1, 36) * Fraction(5, 6)
    assert abs(float(chained.footer[0]["hits"]) - 0.2) < 1e-6   # 1/6 / (1 - 1/6)
    capped = answer("rivals", "attack", attack="red", sets=sets, chain=True, cap=1)
    assert max(r["k"] for r in capped.rows) == 2


def test_rivals_degrade_and_upgrade():
    from deepsim.rulesets.rivals import odds as R
    d = R.data()
    assert R.degrade(d, ["black", "white"], 1) == ["black"]
    assert R.degrade(d, ["black", "red"], 2) == ["black"]
    assert R.upgrade(d, ["black"], 1) == ["black", "white"]
    assert R.upgrade(d, ["white", "red"], 1) == ["red", "red"]
    rock = answer("rivals", "attack", attack="W", defence="", mods=["rock"])
    assert row(rock, "k", 1)["net"] == 0


# ---- Rove -----------------------------------------------------------------------------

def test_rove_ether_and_checks():
    res = answer("rove", "ether", dice=3, element="fire")
    assert row(res, "k", 1)["ge"] == 1 - Fraction(5, 6) ** 3
    res = answer("rove", "check", dice=2, need="fire=1,morph=1")
    assert res.rows[1]["checks"] == Fraction(2, 36)
    res = answer("rove", "check", dice=2, need="fire=1", drain="fire=1")
    assert res.rows[1]["all"] == Fraction(1, 36)
    res = answer("rove", "ether", dice=1, element="fire", pool="fire=1")
    assert row(res, "k", 1)["ge"] == 1


def test_rove_damage_die_with_affinity():
    res = answer("rove", "damage", base=2, affinity="fire=2,water=-3", defence=1)
    assert row(res, "k", 0)["eq"] == Fraction(1, 8)            # water: 2-3-1 -> 0
    assert row(res, "k", 3)["eq"] == Fraction(1, 8)            # fire
    assert row(res, "k", 1)["eq"] == Fraction(6, 8)            # 4 elements + 2 Dim
    ws = answer("rove", "damage", base=3, windscreen=True)
    assert row(ws, "k", 1)["eq"] == 1
    prof = answer("rove", "damage", base=2, profile="focused")
    assert prof.placeholders and "affinity_profiles.focused" in prof.placeholders[0]


# ---- CLI ------------------------------------------------------------------------------

README_EXAMPLES = [
    ["deepfall", "symbols", "--dice", "warrior=2,recruit=4", "--hand", "4"],
    ["deepfall", "claim", "--lineage", "dvergar", "--room", "vault"],
    ["deepfall", "claim", "--dice", "warrior=2,scholar=2,priest=2,recruit=4", "--steel", "2",
     "--cunning", "2", "--trinity"],
    ["deepfall", "setback", "--lineage", "wisp", "--max-press", "3"],
    ["atlantis", "damage", "--ad", "4", "--paralyzed"],
    ["atlantis", "destroy", "--ad", "4", "--dr", "2", "--attacks", "3"],
    ["atlantis", "destroy", "--attacker", "sea_knights", "--target", "sea_witch",
     "--hidden-target", "-k", "6"],
    ["atlantis", "hide", "--unit", "merman_assassin"],
    ["atlantis", "specials"],
    ["atlantis", "damage", "--ad", "3", "--set", "combat.hit_faces=[5,6]", "--set",
     "combat.paralyzed_bonus=3", "--paralyzed"],
    ["rivals", "attack", "--attack", "BRR", "--defence", "RW", "--no-chain"],
    ["rivals", "attack", "--attack", "black,red", "--defence", "red", "--mod", "coral"],
    ["rivals", "colours"],
    ["rove", "ether", "--dice", "3", "--element", "fire"],
    ["rove", "check", "--dice", "5", "--need", "fire=1,morph=1", "--drain", "water=1"],
    ["rove", "damage", "--base", "3", "--affinity", "fire=2,water=-1", "--defence", "1"],
]


@pytest.mark.parametrize("args", README_EXAMPLES, ids=lambda a: " ".join(a[:2]))
def test_readme_examples_run(args):
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    assert "exact (icepool" in r.output


def test_formats_and_plot(tmp_path):
    args = ["atlantis", "destroy", "--ad", "4", "--dr", "2", "--attacks", "2"]
    r = invoke(*args, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.output)))
    assert rows[0]["attacks"] == "1" and abs(float(rows[0]["ruleset"]) - 0.131944) < 1e-5
    r = invoke(*args, "--format", "json")
    obj = json.loads(r.output)
    assert obj["method"].startswith("exact") and len(obj["rows"]) == 2
    r = invoke(*args, "--format", "md")
    assert r.output.startswith("**Atlantis") and "| attacks |" in r.output
    svg = tmp_path / "p.svg"
    r = invoke(*args, "--plot", str(svg))
    assert r.exit_code == 0 and "<svg" in svg.read_text()
    png = tmp_path / "p.png"
    assert invoke(*args, "--plot", str(png)).exit_code == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    r = invoke("rivals", "colours", "--format", "json")
    assert json.loads(r.output)["placeholders"]


@pytest.mark.parametrize("args,msg", [
    (["deepfall", "claim", "--dice", "warior=2", "--room", "vault"], "did you mean"),
    (["deepfall", "claim"], "--dice"),
    (["deepfall", "bogus", "--dice", "recruit=2"], "unknown DEEPFALL question"),
    (["atlantis", "destroy", "--ad", "2"], "--dr"),
    (["rivals", "attack", "--attack", "purple"], "unknown colour"),
    (["rove", "ether", "--set", "dim_supply=-1"], "dim_supply"),
    (["rove", "damage", "--plot", "x.txt"], ".png"),
    (["atlantis", "damage", "--ad", "2", "--format", "xml"], "unknown format"),
])
def test_bad_input_exits_2(args, msg):
    r = invoke(*args)
    assert r.exit_code == 2
    assert msg in r.output


# ---- one command for every ruleset; odds-only rulesets -----------------------------------

def test_odds_lists_the_rulesets_with_odds_and_refuses_others():
    r = invoke("--help")
    assert r.exit_code == 0
    for name in ("deepfall", "atlantis", "rivals", "rove"):
        assert name in r.output
    r = invoke("abyss", "anything")             # plays games, asks no odds
    assert r.exit_code == 2 and "has no odds questions" in r.output
    r = invoke("no-such-game", "x")
    assert r.exit_code == 2 and "unknown ruleset" in r.output and "Traceback" not in r.output


def test_odds_only_rulesets_are_listed_and_refuse_to_run(tmp_path, dice_only):
    rs = dice_only
    assert not rs.plays and rs.odds() is not None
    assert {row["path"] for row in rs.parameters()} >= {"name"}
    # Rivals and Rove play games and keep their odds questions (the same dice data)
    for name in ("rivals", "rove"):
        riv = rulesets.get(name)
        assert riv.plays and riv.odds() is not None
    out = runner.invoke(app, ["rulesets"], env={"COLUMNS": "200"}).output
    assert "diceonly" in out and "odds only" in out and "plays games" in out
    scen = tmp_path / "r.yaml"
    scen.write_text("name: r\nruleset: diceonly\ngames: 10\n")
    for args in (["run", str(scen), "--out", str(tmp_path / "run")],
                 ["trace", str(scen), "--game", "0"]):
        r = runner.invoke(app, args, env={"COLUMNS": "200"})
        assert r.exit_code == 2 and "odds-only" in r.output, r.output
    assert not (tmp_path / "run").exists()
    assert runner.invoke(app, ["params", "rivals"]).exit_code == 0
