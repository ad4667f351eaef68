"""The default DEEPFALL fields are fields of competent players: every style a default field
holds reaches at least 0.8 x fair against the field's other shipped styles.

A default field (``make run``'s ``scenarios/deepfall-4p.yaml`` and the findings' field
``scenarios/deepfall-mixed.yaml``) is what every balance verdict reads by default; a style
that loses far more than its share there drags the companies it happens to play down with
it, and passes its weakness off as theirs. The rule uses the report's viability line
(``viability.min_ratio``, 0.8 x fair): the style's win share over its fair share (the sum of
1/players over its seat-games), with a 95% Wilson interval made simultaneous over the
styles tested (Bonferroni), must lie at or above 0.8.
"""

from __future__ import annotations

import pytest
import yaml

import deepsim
from deepsim.report import metrics as M

DEFAULT_FIELDS = ["scenarios/deepfall-4p.yaml", "scenarios/deepfall-mixed.yaml"]
MIN_RATIO = 0.8
GAMES = 20_000


@pytest.mark.parametrize("scenario", DEFAULT_FIELDS)
def test_every_style_of_a_default_field_reaches_0_8_x_fair(scenario):
    with open(scenario, encoding="utf-8") as fh:
        styles = yaml.safe_load(fh)["bots"]
    _, seats = deepsim.simulate(scenario, games=GAMES, seed=2024)
    assert set(seats["bot"].astype(str)) == set(styles)
    alpha = 0.05 / len(styles)
    for style, grp in seats.groupby("bot", observed=True):
        k, n, fair = float(grp["win"].sum()), len(grp), float(grp["fair"].mean())
        low, _ = M.wilson(k, n, alpha)
        assert low / fair >= MIN_RATIO, (
            f"{scenario}: {style} wins {k / n / fair:.2f} x fair (95% simultaneous lower "
            f"end {low / fair:.2f}), under {MIN_RATIO} x fair against the field's other "
            f"styles: improve the style or mark it baseline and leave the default field")


def test_default_fields_hold_no_baseline_style():
    """Baseline styles (yardsticks) are kept out of the default fields: their seats would
    be left out of every balance verdict anyway."""
    from deepsim.rulesets.deepfall import bot_data

    base = set(bot_data().baseline_styles)
    for scenario in DEFAULT_FIELDS:
        with open(scenario, encoding="utf-8") as fh:
            assert not base & set(yaml.safe_load(fh)["bots"]), scenario
