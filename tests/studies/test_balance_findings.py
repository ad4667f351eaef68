"""FINDINGS' balance section (deepsim/studies/balance_findings.py) from a real balance
folder of the Duel test ruleset, spliced without touching the other sections."""

from __future__ import annotations

import pytest

from deepsim.balance import Budget, run_balance
from deepsim.studies.balance_findings import ANCHOR, HEADING, main, section_md, splice

OTHER = "## Readings under which the claims hold\n\nreconstruct's words\n"


@pytest.mark.slow  # a whole balance search
def test_section_from_a_balance_folder(duel, tmp_path):
    res = run_balance(duel, ["power.C"], budget=Budget(
        max_changes=1, games=6000, confirm_games=12000, respond_trials=0),
        out=tmp_path / "b")
    md = section_md(res.out_dir)
    assert md.startswith(HEADING)
    assert f"**{res.answer}**" in md
    assert f"deepsim balance {duel} --levers 'power.C' -k 1 --games 6000" in md
    # the front: the defaults, then the best single change; the paired before/after rows
    assert "| 0 | the defaults |" in md and "| 1 | `power.C` 12 -> 8 |" in md
    assert "| C | 1.5" in md and "| A | 0.7" in md


def test_splice_replaces_only_its_own_section(duel, tmp_path):
    text = f"# F\n\n## A\n\na\n\n{ANCHOR}\n\nw\n\n{OTHER}"
    once = splice(text, f"{HEADING}\n\nfirst\n")
    assert once.index(HEADING) < once.index(ANCHOR) and once.endswith(OTHER)
    twice = splice(once, f"{HEADING}\n\nsecond\n")
    assert "first" not in twice and "second" in twice and twice.count(HEADING) == 1
    assert twice.replace("second", "first") == once


def test_not_a_balance_folder_exits_2(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2
    assert "not a deepsim balance folder" in capsys.readouterr().err
