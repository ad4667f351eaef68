"""The run summary opens with the answer: a headline naming the strongest and weakest
factions with a verdict scale that has both ends (issue 26), readable at 80 columns."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
from rich.console import Console

from deepsim.report import viability as V
from deepsim.summary import headline_lines, render_summary


def _seats(rates: dict[str, float], games: int = 4000, players: int = 4) -> pd.DataFrame:
    """Seat rows whose win share per company is exactly ``rates`` (fair 1/players)."""
    rows = []
    for name, rate in rates.items():
        wins = round(rate * games)
        rows.append(pd.DataFrame({"company": name, "lineage": name.split()[0],
                                  "calling": name.split()[1],
                                  "win": np.r_[np.ones(wins), np.zeros(games - wins)],
                                  "fair": 1 / players, "players": players,
                                  "bot": np.where(np.arange(games) % 2, "greedy", "random")}))
    return pd.concat(rows, ignore_index=True)


def test_the_verdict_scale_has_both_ends():
    fair = 0.25

    def v(lo, hi, lines=V.DEFAULT):
        return V.verdict_of(lo, hi, fair, lines)

    assert v(0.40, 0.44) == "too strong"       # all above 1.25 x fair
    assert v(0.10, 0.14) == "not viable"       # all below 0.8 x fair
    assert v(0.26, 0.28) == "viable"           # over fair, but within the lines
    assert v(0.22, 0.24) == "viable"
    assert v(0.15, 0.35) == "inconclusive"     # wider than 10% of fair
    # a wide interval wholly past an end is decided, not "inconclusive" (issue 26)
    assert v(0.34, 0.50) == "too strong"
    assert v(0.40, 0.42, V.Lines(max_ratio=2.0)) == "viable"
    assert v(float("nan"), 0.3) == "inconclusive"
    # the same on the ratio scale (fair = 1), as compare, respond, ladder and meta use it
    assert V.verdict_of(1.3, 1.4) == "too strong" and V.verdict_of(0.5, 0.7) == "not viable"


def test_the_holm_test_is_its_own_column():
    seats = _seats({"Wisp Wardancer": 0.27, "Gnoll Warden": 0.25, "Golem-born Reaver": 0.23},
                   games=20000)
    t = V.table(seats, "company")
    by = t.set_index("company")
    # 27% of 20,000 against 25% is significant, but inside the lines: over AND viable
    assert by.loc["Wisp Wardancer", "test"] == "over"
    assert by.loc["Wisp Wardancer", "verdict"] == "viable"
    assert by.loc["Gnoll Warden", "test"] == "fair"
    assert by.loc["Golem-born Reaver", "test"] == "under"


def test_headline_names_strongest_and_weakest_with_interval_and_verdict():
    seats = _seats({"Wisp Wardancer": 0.45, "Gnoll Warden": 0.25, "Golem-born Reaver": 0.05})
    lines = headline_lines(seats, [("company", "company"), ("calling", "Calling")],
                           color=False)
    text = "\n".join(lines)
    assert "Company (3: 1 too strong, 1 not viable)" in text
    assert "strongest Wisp Wardancer 1.80x fair [" in text and "too strong" in text
    assert "weakest   Golem-born Reaver 0.20x fair [" in text and "not viable" in text


def _render(width: int = 80, color: bool = False) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system="standard" if color else None,
                      force_terminal=color)
    seats = _seats({"Golem-born Lorekeeper": 0.05, "Revenant Wardancer": 0.5,
                    "Sylphid Hierophant": 0.26})
    games = pd.DataFrame({"game": np.arange(100), "players": 4, "rounds": 11,
                          "margin": 3.0, "truncated": False})
    render_summary(console, games, seats, by="company", headline=[("company", "company"),
                                                    ("lineage", "Lineage")],
                   placeholders=["lineages.wisp.start_bag"], baseline_bots=["random"])
    return buf.getvalue()


def test_summary_at_80_columns_opens_with_the_answer_and_cuts_nothing():
    out = _render()
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "…" not in out                                     # no cell cut
    assert out.index("Headline") < out.index("Placeholder data") < out.index("Win share per")
    assert "Golem-born Lorekeeper" in out                     # the longest name, whole
    assert "too strong" in out and "not viable" in out
    assert "Baseline bots (random) left out: 6,000 seat-games" in out
    assert "in green" not in out                              # no colour legend


def test_verdicts_read_the_same_with_colour():
    plain, coloured = _render(), _render(color=True)
    assert "\x1b[" in coloured and "\x1b[" not in plain
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured).count("too strong") == \
        plain.count("too strong")
