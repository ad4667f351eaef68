"""The press-on study's tables (deepsim/studies/deepfall_press.py) on fabricated frames:
which shares are admissible and which put every player count inside B1's band."""

from __future__ import annotations

import pandas as pd

from deepsim.studies.deepfall_press import admissible_shares, press_md


def _frames(never_ok: bool):
    rows = []
    for q, rounds in ((0.0, 7.0), (0.5, 9.0), (1.0, 11.0)):
        for n in (0, 2, 6):
            rows.append({"share": q, "players": n, "press_per_turn": 1 - q,
                         "rounds": rounds, "low": rounds - 0.2, "high": rounds + 0.2,
                         "games": 100})
    seat = pd.DataFrame([
        {"press_max": -1, "win": 0.30, "press_per_turn": 0.8, "diff": 0.0,
         "diff_low": 0.0, "diff_high": 0.0, "admissible": True},
        {"press_max": 0, "win": 0.29 if never_ok else 0.15, "press_per_turn": 0.0,
         "diff": -0.01 if never_ok else -0.15, "diff_low": -0.02, "diff_high": 0.0,
         "admissible": never_ok}])
    return pd.DataFrame(rows), seat


def test_a_share_is_admissible_only_when_every_setting_in_it_is():
    curve, seat = _frames(never_ok=False)
    assert admissible_shares(curve, seat) == {0.0}
    curve, seat = _frames(never_ok=True)
    assert admissible_shares(curve, seat) == {0.0, 0.5, 1.0}


def test_press_md_names_the_shares_inside_the_band():
    curve, seat = _frames(never_ok=False)
    md = press_md(curve, seat, games=100, seed=7)
    assert "| 100% | 0.000 | 11.00 [10.80, 11.20] | 11.00 [10.80, 11.20] | no |" in md
    assert "| 0 | 0.000 | 0.1500 | -0.1500 [-0.0200, +0.0000] | no |" in md
    assert "inside the band (whole interval): 100% (not admissible)." in md
