"""The balance verdict of a group: one vocabulary, one rule and one set of lines for every
surface that calls a faction strong or weak.

The run summary, the balance report, :func:`deepsim.win_shares`, ``deepsim compare``,
``respond``, ``ladder`` and ``meta`` all judge a group (a company, a Lineage, a side, a bot
style) here, from its win share and the 95% interval of that share against its fair share:

- **viability verdict** (:func:`verdict`), on the scale win share / fair share ("x fair"):

  ``too strong``: the interval's lower end is above ``max_ratio`` x fair (1.25);
  ``not viable``: the interval's upper end is below ``min_ratio`` x fair (0.8);
  ``inconclusive``: otherwise, when the interval is wider than ``max_rel_width`` x fair
  (0.1: a small sample never passes);
  ``viable``: otherwise.

- **Holm test** (:func:`holm_tests`), always in a column of its own: ``over`` or ``under``
  when a one-sided exact binomial test against the fair share rejects after Holm's
  correction over all 2 x groups tests of the table at ``alpha``, else ``fair``. It says
  whether a group differs from fair at all; the verdict says whether the difference
  matters for play (a group can be ``over`` and ``viable``).

The lines (:class:`Lines`) are the report's settings ``viability.min_ratio``,
``viability.max_ratio``, ``viability.max_rel_width`` and ``alpha``; every surface starts
from :data:`DEFAULT`. Seats of baseline bots (``baseline: true`` in a ruleset's
``bots.yaml``) are left out of every balance table (:func:`balance_seats`) and the fair
share of the seats kept is their mean win at each player count. Shares are fractions in
the internal table (:func:`table`) and percent in every table a user reads
(:func:`in_percent`, as in the metric language).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "DEFAULT",
    "FAIR",
    "HOLM_RESULTS",
    "INCONCLUSIVE",
    "NOT_VIABLE",
    "OVER",
    "PERCENT_COLUMNS",
    "TOO_STRONG",
    "UNDER",
    "VERDICTS",
    "VIABLE",
    "Headline",
    "Lines",
    "balance_seats",
    "changed",
    "counts",
    "headline",
    "holm_tests",
    "how_sure",
    "in_percent",
    "rule_text",
    "style_of",
    "styles_in_field",
    "table",
    "verdict",
    "verdict_of",
]

TOO_STRONG, VIABLE, NOT_VIABLE, INCONCLUSIVE = ("too strong", "viable", "not viable",
                                                "inconclusive")
#: the viability verdicts, strongest first
VERDICTS = (TOO_STRONG, VIABLE, NOT_VIABLE, INCONCLUSIVE)
OVER, FAIR, UNDER = "over", "fair", "under"
#: the Holm test's results
HOLM_RESULTS = (OVER, FAIR, UNDER)
#: the internal table's share columns, fractions there and percent in :func:`in_percent`
PERCENT_COLUMNS = ("win_share", "ci_low", "ci_high", "fair_share")

#: rich styles of the verdicts and Holm results on a colour terminal (words either way)
_STYLE = {TOO_STRONG: "bold red", NOT_VIABLE: "bold red", VIABLE: "green",
          INCONCLUSIVE: "dim", OVER: "magenta", UNDER: "cyan"}


@dataclass(frozen=True)
class Lines:
    """The lines of the verdict scale and the tests' level (the report's settings).

    Attributes
    ----------
    alpha : float
        1 - confidence level of every interval, and Holm's family-wise error rate.
    min_ratio : float
        ``viability.min_ratio``: below this x fair share a group is not viable.
    max_ratio : float
        ``viability.max_ratio``: above this x fair share a group is too strong (the
        mirror of ``min_ratio``: 1.25 = 1 / 0.8).
    max_rel_width : float
        ``viability.max_rel_width``: an interval wider than this x fair share is
        inconclusive, never viable.
    """

    alpha: float = 0.05
    min_ratio: float = 0.8
    max_ratio: float = 1.25
    max_rel_width: float = 0.10

    def check(self) -> None:
        """Raise ValueError unless ``0 < alpha < 1`` and ``0 < min_ratio < max_ratio``
        and ``max_rel_width > 0``."""
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")
        if not 0.0 < self.min_ratio < self.max_ratio:
            raise ValueError(f"expected 0 < min_ratio < max_ratio, got {self.min_ratio} "
                             f"and {self.max_ratio}")
        if not self.max_rel_width > 0:
            raise ValueError(f"max_rel_width must be > 0, got {self.max_rel_width}")


#: the lines every surface uses unless told otherwise
DEFAULT = Lines()


def verdict(low, high, fair=1.0, lines: Lines = DEFAULT) -> np.ndarray:
    """The viability verdict of each interval, element-wise (see the module docstring).

    Parameters
    ----------
    low, high : array_like of float
        The interval's ends, in the unit of ``fair``: win shares (fractions or percent)
        with ``fair`` the fair shares, or ratios (x fair) with ``fair`` = 1.
    fair : array_like of float, default 1.0
        The fair share of each group (> 0), broadcast against ``low``.
    lines : Lines
        The scale's lines.

    Returns
    -------
    ndarray of object
        One of :data:`VERDICTS` per element; ``inconclusive`` where an end is NaN or the
        fair share is not positive.
    """
    lo = np.asarray(low, dtype=np.float64)
    hi = np.asarray(high, dtype=np.float64)
    fair = np.broadcast_to(np.asarray(fair, dtype=np.float64), np.broadcast(lo, hi).shape)
    with np.errstate(invalid="ignore"):
        out = np.where(hi < lines.min_ratio * fair, NOT_VIABLE,
                       np.where(lo > lines.max_ratio * fair, TOO_STRONG,
                                np.where((hi - lo) > lines.max_rel_width * fair,
                                         INCONCLUSIVE, VIABLE)))
        bad = np.isnan(hi) | np.isnan(lo) | ~(fair > 0)
    return np.where(bad, INCONCLUSIVE, out).astype(object)


def verdict_of(low: float, high: float, fair: float = 1.0, lines: Lines = DEFAULT) -> str:
    """:func:`verdict` of one interval, as a string."""
    return str(verdict([low], [high], [fair], lines)[0])


def holm_tests(wins, games, fair_share, alpha: float = DEFAULT.alpha) -> pd.DataFrame:
    """One-sided exact binomial tests of each group's wins against its fair share, over and
    under, Holm-corrected over all 2 x groups tests (Holm 1979).

    Parameters
    ----------
    wins : array_like of float, shape (m,)
        Wins per group (fractional tie wins are rounded to the nearest count).
    games : array_like of int, shape (m,)
        Seat-games per group.
    fair_share : array_like of float, shape (m,)
        Each group's fair share (a fraction in (0, 1)).
    alpha : float
        Family-wise error rate.

    Returns
    -------
    DataFrame
        ``p_over``, ``p_under`` (raw), ``p_over_holm``, ``p_under_holm`` and ``test``
        (:data:`OVER`, :data:`UNDER` or :data:`FAIR`), one row per group in the order
        given. A group with no games or a fair share outside (0, 1) has NaN p-values and
        tests ``fair``.

    Notes
    -----
    One success probability (the group's mean fair share) serves all its seat-games; in
    mixed player counts the true null is a sum of Bernoullis with different
    probabilities, whose variance is smaller, so the test is slightly conservative.
    """
    from scipy import stats as sps

    from deepsim.stats import holm_adjust

    p_over, p_under = [], []
    for w, n, p in zip(np.asarray(wins, float), np.asarray(games), np.asarray(fair_share, float),
                       strict=True):
        n = int(n)
        if n == 0 or not 0 < p < 1:
            p_over.append(math.nan)
            p_under.append(math.nan)
            continue
        k = round(float(w))
        p_over.append(sps.binomtest(k, n, p, alternative="greater").pvalue)
        p_under.append(sps.binomtest(k, n, p, alternative="less").pvalue)
    adj = holm_adjust(np.asarray(p_over + p_under, dtype=np.float64))
    m = len(p_over)
    out = pd.DataFrame({"p_over": p_over, "p_under": p_under, "p_over_holm": adj[:m],
                        "p_under_holm": adj[m:]})
    out["test"] = np.where(out["p_over_holm"] < alpha, OVER,
                           np.where(out["p_under_holm"] < alpha, UNDER, FAIR))
    return out


def table(seats: pd.DataFrame, by: str, lines: Lines = DEFAULT) -> pd.DataFrame:
    """Win share per group against its fair share, with the viability verdict and the Holm
    tests: the one table every surface reads.

    Parameters
    ----------
    seats : DataFrame
        Columns ``by``, ``win`` (1, ``1/k`` on a k-way tie for first, else 0) and ``fair``
        (the seat's fair share: ``1/players``, or the kept seats' mean win after
        :func:`balance_seats`).
    by : str
        Grouping column: a ruleset's faction column, ``lineage``, ``bot``, ``seat``...
    lines : Lines
        The verdict's lines and the intervals' level.

    Returns
    -------
    DataFrame
        One row per group, sorted by win share (highest first), RangeIndex. Shares are
        fractions: ``<by>``, ``games`` (int64 seat-games), ``wins``, ``win_share``,
        ``ci_low``, ``ci_high`` (Wilson 1927, statsmodels), ``fair_share`` (mean of
        ``fair``), ``ratio`` (win share / fair share, "x fair"), ``fair_wins`` (sum of
        ``fair``), ``ratio_low``, ``ratio_high`` (the interval / fair share), ``p_over``,
        ``p_under``, ``p_over_holm``, ``p_under_holm``, ``test`` (Holm:
        :data:`HOLM_RESULTS`) and ``verdict`` (:data:`VERDICTS`).

    Raises
    ------
    KeyError
        A required column is missing.
    """
    from deepsim import stats  # statsmodels: loaded when a table is made, not on import

    for col in (by, "win", "fair"):
        if col not in seats.columns:
            raise KeyError(f"seats has no column(s) {col}")
    seats = stats.resolved_seats(seats)      # unresolved games: no win, loss or draw
    base = stats.win_shares(seats, by=by, alpha=lines.alpha)
    if base.empty:
        return base.assign(**{c: pd.Series(dtype="float64") for c in (
            "fair_wins", "ratio_low", "ratio_high", "p_over", "p_under", "p_over_holm",
            "p_under_holm")}, test=pd.Series(dtype=object), verdict=pd.Series(dtype=object))
    fair_wins = seats.groupby(by, observed=True)["fair"].sum()
    fair_wins.index = fair_wins.index.astype(str)
    base["fair_wins"] = base[by].map(fair_wins).astype("float64")
    base["ratio_low"] = base["ci_low"] / base["fair_share"]
    base["ratio_high"] = base["ci_high"] / base["fair_share"]
    tests = holm_tests(base["wins"], base["games"], base["fair_share"], lines.alpha)
    for col in tests.columns:
        base[col] = tests[col].to_numpy()
    base["verdict"] = verdict(base["ci_low"], base["ci_high"], base["fair_share"], lines)
    return base


def in_percent(t: pd.DataFrame) -> pd.DataFrame:
    """A copy of a :func:`table` with its shares (:data:`PERCENT_COLUMNS`) in percent, as
    every table a user reads gives them; ratios stay x fair."""
    out = t.copy()
    for col in PERCENT_COLUMNS:
        if col in out.columns:
            out[col] = 100.0 * out[col].astype("float64")
    return out


def balance_seats(seats: pd.DataFrame, baseline: Sequence[str] = ()
                  ) -> tuple[pd.DataFrame, int]:
    """The seats a balance verdict reads: baseline bots' seats left out, the fair share of
    the seats kept renormalised to their mean win at each player count
    (:func:`deepsim.botdata.split_baseline`); and how many seat-games were left out."""
    if not baseline:
        return seats, 0
    from deepsim.botdata import split_baseline
    return split_baseline(seats, tuple(baseline))


def counts(verdicts) -> dict[str, int]:
    """How many groups got each verdict, every verdict listed (0 when none)."""
    v = pd.Series(list(verdicts), dtype=object).value_counts()
    return {name: int(v.get(name, 0)) for name in VERDICTS}


def changed(a: str, b: str) -> bool:
    """Did a group's verdict change between two fields or rule sets? Any difference
    counts, ``inconclusive`` included (a verdict that became uncertain changed too)."""
    return str(a) != str(b)


def style_of(word: str) -> str | None:
    """The rich style of a verdict or Holm result (None: plain)."""
    return _STYLE.get(str(word))


def rule_text(lines: Lines = DEFAULT, *, markdown: bool = False, holm: bool = True) -> str:
    """The scale in one sentence, with its lines (the same words on every surface), and
    (``holm``) the Holm column's in another; no final full stop."""
    def em(w: str) -> str:
        return f"*{w}*" if markdown else w

    text = (f"{em(TOO_STRONG)}: the 95% interval above {lines.max_ratio:g} x fair; "
            f"{em(NOT_VIABLE)}: below {lines.min_ratio:g} x fair; {em(INCONCLUSIVE)}: "
            f"wider than {lines.max_rel_width:g} x fair; otherwise {em(VIABLE)}")
    if holm:
        text += (f". Holm: {em(OVER)} / {em(UNDER)} when an exact test says the share "
                 f"differs from fair (Holm-corrected at {lines.alpha:g}), else {em(FAIR)}")
    return text


@dataclass
class Headline:
    """The strongest and the weakest group of one column, and how many sit at either end."""

    column: str
    noun: str
    table: pd.DataFrame          # :func:`table`, sorted by ratio (highest first)
    n: int
    n_strong: int
    n_dead: int

    @property
    def strongest(self) -> pd.Series:
        return self.table.iloc[0]

    @property
    def weakest(self) -> pd.Series:
        return self.table.iloc[-1]


def headline(seats: pd.DataFrame, columns: Sequence[tuple[str, str]],
             lines: Lines = DEFAULT) -> list[Headline]:
    """For each ``(column, noun)`` of ``seats`` with at least two groups: its :func:`table`
    sorted by x fair (highest first, ties by name) and the counts at either end: what the
    run summary's and the report's headlines print."""
    out = []
    for col, noun in columns:
        if col not in seats.columns:
            continue
        t = table(seats, col, lines)
        if len(t) < 2:
            continue
        t = t.sort_values(["ratio", col], ascending=[False, True], kind="stable",
                          ignore_index=True)
        c = counts(t["verdict"])
        out.append(Headline(col, noun, t, len(t), c[TOO_STRONG], c[NOT_VIABLE]))
    return out


def styles_in_field(seats: pd.DataFrame, lines: Lines = DEFAULT) -> pd.DataFrame:
    """Each bot style's :func:`table` row in this field (``by="bot"``), sorted by x fair
    (highest first); empty without a ``bot`` column or with fewer than two styles."""
    if "bot" not in seats.columns or seats.empty:
        return pd.DataFrame()
    t = table(seats, "bot", lines)
    if len(t) < 2:
        return pd.DataFrame()
    return t.sort_values(["ratio", "bot"], ascending=[False, True], kind="stable",
                         ignore_index=True)


def how_sure(seats: pd.DataFrame, lines: Lines = DEFAULT) -> list[str] | None:
    """How far a run's verdicts rest on its field's bots, in words.

    The first line gives each style's x fair in the field (``Styles in this field: greedy
    1.33x fair, martyr 1.32x, balanced 0.35x``). When the styles' ratios differ by more than
    the viability band (``max_ratio - min_ratio``: as far apart as a too-strong group from
    a viable one), a second line says that a group's verdict depends on which bots play it
    and names the commands that test a verdict against better play (``deepsim respond``:
    its best response; ``deepsim ladder``: fields of rising skill). None without two styles.
    """
    t = styles_in_field(seats, lines)
    if t.empty:
        return None
    parts = [f"{r['bot']} {r['ratio']:.2f}x" for _, r in t.iterrows()]
    out = [f"Styles in this field: {', '.join(parts)} fair"]
    spread = float(t["ratio"].max() - t["ratio"].min())
    band = lines.max_ratio - lines.min_ratio
    if spread > band:
        out.append(f"The styles differ by {spread:.2f}x fair, more than the viability band "
                   f"({lines.min_ratio:g}-{lines.max_ratio:g}): a group's verdict depends on "
                   f"the bots that play it. Test one against better play: deepsim respond "
                   f"SCENARIO --faction NAME (its best response), deepsim ladder SCENARIO "
                   f"(fields of rising skill).")
    return out
