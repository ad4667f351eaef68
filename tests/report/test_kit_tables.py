"""The report kit's shared tables: seat 1 against the last seat (Newcombe's interval, its coverage
on synthetic seats), rounds per game, and the HTML colour of every verdict."""

import numpy as np
import pandas as pd
import pytest

from deepsim.report import metrics as M
from deepsim.report.sections import first_last_table, length_table


def _per_seat(wins, games):
    rows = [{"players": len(w), "seat": i + 1, "wins": k, "games": n}
            for w, g in zip(wins, games, strict=True)
            for i, (k, n) in enumerate(zip(w, g, strict=True))]
    return pd.DataFrame(rows)


def test_first_against_last_is_first_minus_last_with_newcombes_interval():
    per = _per_seat([[60, 40], [30, 40, 20]], [[100, 100], [90, 90, 90]])
    fl = M.first_against_last(per, 0.05).set_index("players")
    assert fl.loc[2, "diff"] == pytest.approx(0.2)
    assert fl.loc[3, "diff"] == pytest.approx(10 / 90)
    # Newcombe's hybrid score interval (1998, method 10) from two Wilson intervals,
    # written out here rather than taken from the library the kit calls
    z = 1.959963984540054

    def wilson(k, n):
        p = k / n
        mid = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return mid - half, mid + half

    (l1, u1), (l2, u2) = wilson(60, 100), wilson(40, 100)
    lo = 0.2 - np.sqrt((0.6 - l1) ** 2 + (u2 - 0.4) ** 2)
    hi = 0.2 + np.sqrt((u1 - 0.6) ** 2 + (0.4 - l2) ** 2)
    assert fl.loc[2, "diff_low"] == pytest.approx(lo, abs=1e-6)
    assert fl.loc[2, "diff_high"] == pytest.approx(hi, abs=1e-6)
    assert fl.loc[2, "diff_low"] < 0.2 < fl.loc[2, "diff_high"]


def test_first_against_last_covers_the_true_difference_95_percent():
    rng = np.random.default_rng(7)
    p1, p2, n, reps = 0.55, 0.45, 400, 2000
    k1 = rng.binomial(n, p1, reps)
    k2 = rng.binomial(n, p2, reps)
    hits = 0
    for a, b in zip(k1, k2, strict=True):
        _, lo, hi = M.proportion_diff_ci(a, n, b, n, 0.05)
        hits += lo <= p1 - p2 <= hi
    # 95% nominal; 2,000 replications: a binomial band of about +-1 point
    assert 0.935 <= hits / reps <= 0.965


def test_proportion_diff_ci_of_an_empty_side_is_nan():
    assert all(np.isnan(M.proportion_diff_ci(3, 10, 0, 0)))


def test_first_last_table_names_the_seat_and_the_level():
    per = _per_seat([[60, 40]], [[100, 100]])
    t = first_last_table(per, 0.10, "First seat")
    assert t.caption == "First seat against the last seat (90% CI)"
    assert list(t.frame.columns) == ["Players", "First seat", "Last seat", "First seat minus last"]
    assert t.frame.iloc[0, 3].startswith("+20.0 pp (")


def test_length_table_adds_the_games_own_columns():
    games = pd.DataFrame({"players": [2, 2, 2, 3, 3], "rounds": [5, 7, 9, 4, 6],
                          "turns": [10, 14, 18, 12, 18]})
    t = length_table(games, 0.05, "Rounds", lambda r, h: {"Turns": f"{h['turns'].mean():.1f}"})
    assert list(t.frame["Players"]) == [2, 3]
    assert list(t.frame["Turns"]) == ["14.0", "15.0"]
    assert t.frame.loc[0, "Rounds"].startswith("7.0 (")
    assert t.frame.loc[0, "Median"] == "7"


def test_the_html_report_colours_every_verdict():
    from deepsim.report import party as P
    from deepsim.report import viability as V
    from deepsim.report.model import Table
    from deepsim.report.render import VERDICT_CLASSES, _html_table

    assert set(V.VERDICTS) | set(P.VERDICTS) <= set(VERDICT_CLASSES)
    html = "\n".join(_html_table(Table("", pd.DataFrame({"Verdict": ["too strong",
                                                                     "viable"]}))))
    assert '<td class="v-fails">too strong</td>' in html
    assert '<td class="v-holds">viable</td>' in html


# ---- a game's questions file -----------------------------------------------------------------

def test_every_games_questions_file_loads_and_fills_its_fields():
    """Each shipped questions file parses, and every section of its report that opens with a
    question finds its entry (a key missing from the file fails here, not in a user's report)."""
    import re
    from pathlib import Path

    import deepsim
    from deepsim.report.sections import load_questions, question_section

    root = Path(deepsim.__file__).parent / "rulesets"
    files = sorted(root.glob("*/questions.yaml"))
    assert {f.parent.name for f in files} >= {"abyss", "rivals"}
    for f in files:
        qs = load_questions(f)
        code = (f.parent / "report.py").read_text()
        used = set(re.findall(r'question_section\("([^"]+)"', code))
        assert used == set(qs), f"{f}: report.py opens {sorted(used ^ set(qs))} differently"
        for key, q in qs.items():
            fields = {n: "X" for n in re.findall(r"(?<!\{)\{(\w+)\}", q["intro"])}
            s = question_section(key, qs, "rests on nothing", **fields)
            assert s.title == q["title"] and s.paragraphs[1] == "rests on nothing"
            assert "{" not in s.paragraphs[0].replace("{{", "")


def test_a_questions_entry_without_an_intro_is_named(tmp_path):
    from deepsim.errors import InputError
    from deepsim.report.sections import load_questions

    f = tmp_path / "questions.yaml"
    f.write_text("q1:\n  title: Q1 Builds\n  intro: Text.\nq2:\n  title: Q2 Cost\n")
    with pytest.raises(InputError) as e:
        load_questions(f)
    assert e.value.key == "q2" and e.value.line == 4 and "intro" in e.value.message
