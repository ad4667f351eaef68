"""Values of the metric language: observations, estimates with intervals, weighted values
and paired differences.

An :class:`~deepsim.measure.spec.Instance` (one number) is observed on a chunk of results
as per-*cluster* sums (:class:`Obs`): a cluster is a game, or a deal when seats rotate
(the games of one deal share its dungeon and dice stream, so they are not independent:
the deal is the unit of every interval). Everything else works on those sums:

- :func:`estimate_obs`: the value and its ``1 - alpha`` interval, the report's methods:
  Wilson (statsmodels) for a share when a cluster holds at most one counted row, t
  intervals for means, ratio of sums with clusters (statsmodels WLS, HC1) otherwise; a
  spread's interval runs from the largest distance between a member's interval and its
  fair share to the largest distance from an end of a member's interval to it, the member
  intervals at ``alpha / members`` (Bonferroni), so it holds the true spread with
  probability at least ``1 - alpha``;
- :func:`value_obs`: the value with a weight per cluster (a paired bootstrap);
- :func:`influence` and :func:`paired`: the linearised (delta-method) influence of each
  cluster on the value and the paired difference ``B - A`` of two variants played on the
  same clusters (common random numbers), with its standard error from the pairs; a
  spread's influence is its maximising member's (the delta method at the maximiser; valid
  when one member is clearly the farthest from fair).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import pandas as pd

from deepsim.measure.names import Metric
from deepsim.measure.spec import Instance
from deepsim.report import metrics as M
from deepsim.stats import Paired

__all__ = ["Codes", "Estimate", "Obs", "cluster_ids", "columns_needed", "concat",
           "estimate", "estimate_obs", "fair_value", "influence", "measure", "observe",
           "paired", "value_obs"]


# --- per-game observations --------------------------------------------------------------------

def columns_needed(instances: list[Instance]) -> tuple[list[str], list[str]]:
    """(games columns, seats columns) the instances read (plus ``deal`` for rotated
    seats, read when present)."""
    g_cols, s_cols = {"game", "players", "deal"}, {"game", "players"}
    for inst in instances:
        m = inst.metric
        if m.level == "game":
            g_cols.update(m.columns)
            g_cols.update(("truncated", "adjudicated"))   # unresolved games (read if present)
        else:
            s_cols.update(m.columns)
            s_cols.add("fair")
            if inst.by:
                s_cols.add(inst.by)
            if m.kind == "spread":
                s_cols.update(("seat",) if m.spread_by == "seat" else (m.spread_by,))
    return sorted(g_cols), sorted(s_cols)


class Codes:
    """Per-chunk cache: integer codes of each group column of the seats frame."""

    def __init__(self, seats: pd.DataFrame):
        self.seats = seats
        self._codes: dict[str, tuple[np.ndarray, dict[str, int]]] = {}

    def codes(self, by: str) -> tuple[np.ndarray, dict[str, int]]:
        if by not in self._codes:
            col = self.seats[by]
            if isinstance(col.dtype, pd.CategoricalDtype):
                codes = col.cat.codes.to_numpy()
                index = {str(c): i for i, c in enumerate(col.cat.categories)}
            else:
                codes_, uniq = pd.factorize(col.astype(str))
                codes, index = codes_, {str(c): i for i, c in enumerate(uniq)}
            self._codes[by] = (codes, index)
        return self._codes[by]

    def mask(self, by: str, groups: tuple[str, ...]) -> np.ndarray:
        if by == "seat":
            seat = self.seats["seat"].to_numpy()
            return np.isin(seat, [int(g) for g in groups])
        codes, index = self.codes(by)
        wanted = [index[g] for g in groups if g in index]
        return np.isin(codes, wanted)


def _players_mask(frame: pd.DataFrame, players: tuple[int, ...]) -> np.ndarray:
    # a ruleset whose table has no players column plays one count (checked by expand)
    if not players or "players" not in frame.columns:
        return np.ones(len(frame), bool)
    return np.isin(frame["players"].to_numpy(), players)


def observe(inst: Instance, games: pd.DataFrame, seats: pd.DataFrame,
            codes: Codes | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per game of ``games`` (in its row order): ``Y`` (the metric's numerator summed over the
    selected rows), ``D`` (its denominator: selected rows, or the metric's own) and ``F``
    (the selected rows' fair shares; win metrics, else 0). Not for spreads
    (:func:`measure`).

    Returns three float64 arrays of shape ``(len(games),)``; games outside the selection
    have ``D == 0``.
    """
    m = inst.metric
    n = len(games)
    if m.level == "game":
        sel = _players_mask(games, inst.players)
        if m.game_group is not None:     # the share of games among the selected values
            col = games[m.game_group].astype(str).to_numpy()
            num = np.isin(col, list(inst.groups)).astype(np.float64)
        else:
            num = m.num(games)
        den = m.den(games) if m.den is not None else np.ones(n)
        return np.where(sel, num, 0.0), np.where(sel, den, 0.0), np.zeros(n)
    sel = _players_mask(seats, inst.players) & _resolved_mask(m, seats)
    if inst.by:
        sel &= (codes or Codes(seats)).mask(inst.by, inst.groups)
    pos = np.searchsorted(games["game"].to_numpy(), seats["game"].to_numpy())
    w = sel.astype(np.float64)
    # np.where, not a product: an unselected row's NaN win must not reach the sum
    y = np.bincount(pos, weights=np.where(sel, m.num(seats), 0.0), minlength=n)
    den = m.den(seats) if m.den is not None and m.kind != "win_ratio" else None
    d = np.bincount(pos, weights=(den * w) if den is not None else w, minlength=n)
    f = (np.bincount(pos, weights=seats["fair"].to_numpy(dtype=np.float64) * w, minlength=n)
         if m.kind in ("win_ratio", "win_edge") or m.name == "win_share" else np.zeros(n))
    return y, d, f


def _resolved_mask(m: Metric, seats: pd.DataFrame) -> np.ndarray:
    """Seat rows a metric reading ``win`` counts: those of games with a result (an
    unresolved game's seats hold ``win`` = NaN: neither a win, a loss nor a draw). Every
    row for a metric that does not read ``win``."""
    if "win" not in m.columns or "win" not in seats.columns:
        return np.ones(len(seats), bool)
    return ~np.isnan(seats["win"].to_numpy(dtype=np.float64))


def cluster_ids(games: pd.DataFrame) -> np.ndarray:
    """Per game row: its cluster, the ``deal`` of a run with rotated seats, else the game
    index (int64)."""
    col = "deal" if "deal" in games.columns else "game"
    return games[col].to_numpy(dtype=np.int64)


def _cluster_unit(games: pd.DataFrame) -> str:
    return "deals" if "deal" in games.columns else "games"


# --- observations per cluster -----------------------------------------------------------------

@dataclass
class Obs:
    """One instance observed on some games, as sums per cluster (game or deal).

    Plain metrics: ``ids`` (ascending cluster ids with a selected row), ``y``, ``d``, ``f``
    (numerator, denominator, fair shares per cluster). Spreads: one entry per selected seat
    row: ``ids`` (its cluster), ``member`` (its member's code in ``members``), ``y`` (win),
    ``d`` (1) and ``f`` (its fair share). ``n_clusters``: the clusters of the sample,
    empty ones included (``first``/``last``: their ids, to join chunks).
    """

    metric: Metric
    ids: np.ndarray
    y: np.ndarray
    d: np.ndarray
    f: np.ndarray
    n_clusters: int
    first: int
    last: int
    member: np.ndarray | None = None
    members: tuple[str, ...] = ()
    target: float = math.nan
    unit: str = "games"          # what a cluster is: "games", or "deals" (rotated seats)

    @property
    def is_spread(self) -> bool:
        return self.member is not None


def _sum_by(ids: np.ndarray, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Sum ``arrays`` over equal ``ids``: (unique ids ascending, sums...)."""
    if ids.size == 0 or (np.all(np.diff(ids) > 0)):
        return (ids, *arrays)
    uniq, inv = np.unique(ids, return_inverse=True)
    return (uniq, *(np.bincount(inv, weights=a, minlength=uniq.size) for a in arrays))


def _seat_members(inst: Instance, seats: pd.DataFrame, codes: Codes
                  ) -> tuple[np.ndarray, tuple[str, ...], np.ndarray]:
    """Member codes, names and fair shares of every seat row for a spread."""
    m = inst.metric
    if m.spread_by == "seat":
        players = seats["players"].to_numpy(dtype=np.int64)
        seat = seats["seat"].to_numpy(dtype=np.int64)
        key = players * 64 + seat
        uniq, code = np.unique(key, return_inverse=True)
        names = tuple(f"{int(k) // 64}p seat {int(k) % 64}" for k in uniq)
        return code.astype(np.int64), names, 1.0 / players
    c, index = codes.codes(m.spread_by)
    names = [""] * len(index)
    for name, i in index.items():
        names[i] = name
    return c.astype(np.int64), tuple(names), seats["fair"].to_numpy(dtype=np.float64)


def measure(inst: Instance, games: pd.DataFrame, seats: pd.DataFrame,
            codes: Codes | None = None) -> Obs:
    """Observe ``inst`` on one chunk of results (``games`` sorted by game; ``seats`` of the
    same games)."""
    ids_g = cluster_ids(games)
    n_clusters = int(np.unique(ids_g).size)
    first = int(ids_g[0]) if ids_g.size else 0
    last = int(ids_g[-1]) if ids_g.size else -1
    m = inst.metric
    if m.kind == "spread":
        codes = codes or Codes(seats)
        sel = _players_mask(seats, inst.players) & _resolved_mask(m, seats)
        member, names, fair = _seat_members(inst, seats, codes)
        pos = np.searchsorted(games["game"].to_numpy(), seats["game"].to_numpy())
        return Obs(m, ids_g[pos][sel], seats["win"].to_numpy(dtype=np.float64)[sel],
                   np.ones(int(sel.sum())), fair[sel], n_clusters, first, last,
                   member=member[sel], members=names, target=inst.target,
                   unit=_cluster_unit(games))
    y, d, f = observe(inst, games, seats, codes)
    target = inst.target
    if m.kind == "target_error":     # the target is a games column (constant in a run)
        sel = d > 0
        target = (float(games["target"].to_numpy(dtype=np.float64)[sel].mean())
                  if sel.any() else math.nan)
    ids, y, d, f = _sum_by(ids_g, y, d, f)
    keep = d > 0
    return Obs(m, ids[keep], y[keep], d[keep], f[keep], n_clusters, first, last,
               target=target, unit=_cluster_unit(games))


def concat(parts: list[Obs]) -> Obs:
    """One :class:`Obs` of consecutive chunks (a cluster cut by a chunk boundary is
    joined)."""
    parts = [p for p in parts if p.n_clusters > 0] or parts[:1]
    if len(parts) == 1:
        return parts[0]
    o = parts[0]
    if not math.isfinite(o.target):     # a target_error's first chunks may select nothing
        o = next((p for p in parts if math.isfinite(p.target)), o)
    n = sum(p.n_clusters for p in parts) - sum(
        1 for a, b in pairwise(parts) if a.last == b.first)
    cat = [np.concatenate([getattr(p, k) for p in parts]) for k in ("ids", "y", "d", "f")]
    if o.is_spread:
        names = parts[0].members
        member = np.concatenate([p.member for p in parts])
        if any(p.members != names for p in parts):  # remap to one name list
            names = tuple(dict.fromkeys(x for p in parts for x in p.members))
            member = np.concatenate([np.array([names.index(x) for x in p.members],
                                              dtype=np.int64)[p.member] for p in parts])
        return Obs(o.metric, *cat, n, parts[0].first, parts[-1].last, member=member,
                   members=names, target=o.target, unit=o.unit)
    ids, y, d, f = _sum_by(*cat)
    return Obs(o.metric, ids, y, d, f, n, parts[0].first, parts[-1].last, target=o.target,
               unit=o.unit)


# --- estimates --------------------------------------------------------------------------------

@dataclass
class Estimate:
    """A metric's value and interval (in the metric's unit) over ``clusters`` games (or
    deals) holding ``units`` of its denominator (seat-games, games, crews, rooms...);
    ``note`` names e.g. a spread's farthest member."""

    value: float
    low: float
    high: float
    units: float
    clusters: int
    method: str
    note: str = ""

    @property
    def width(self) -> float:
        return self.high - self.low


def _fair_constant(f: np.ndarray, d: np.ndarray) -> float | None:
    """The single fair share when every kept game holds one selected seat of one player
    count (then win ratio = Wilson / fair, as the report computes it)."""
    if d.size and np.all(d == 1) and np.ptp(f) < 1e-12:
        return float(f[0])
    return None


def estimate(metric: Metric, y: np.ndarray, d: np.ndarray, f: np.ndarray,
             alpha: float, unit: str = "games") -> Estimate:
    """The metric over the clusters with ``D > 0`` (per-cluster float64 arrays ``y``,
    ``d``, ``f``), with a ``1 - alpha`` interval clipped to the metric's possible range.

    Methods (all from :mod:`deepsim.report.metrics`): Wilson when each cluster holds at most
    one selected row of a 0/1 (or tie-fraction) value; t interval of a mean likewise;
    otherwise the ratio of sums with clusters (HC1). An empty selection gives NaN.
    ``unit`` names a cluster in the method text ("games", or "deals" of rotated seats).
    """
    est = _estimate(metric, y, d, f, alpha)
    est.method = est.method.replace("(clusters)", f"({unit} as clusters)")
    lo, hi = metric.limits
    if not math.isnan(est.low):
        est.low, est.high = max(est.low, lo), min(est.high, hi)
    return est


def _estimate(metric: Metric, y: np.ndarray, d: np.ndarray, f: np.ndarray,
              alpha: float) -> Estimate:
    keep = d > 0
    y, d, f = y[keep], d[keep], f[keep]
    n = int(keep.sum())
    s = metric.scale
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0.0, 0, "no data")
    units = float(d.sum())
    single = bool(np.all(d == 1))
    kind = metric.kind
    if kind == "share" and single:
        lo, hi = M.wilson(float(y.sum()), float(n), alpha)
        return Estimate(s * float(y.sum()) / n, s * lo, s * hi, units, n, "Wilson")
    if kind == "target_error" and single:
        lo, hi = M.wilson(float(y.sum()), float(n), alpha)
        return Estimate(s * float(y.sum()) / n, s * lo, s * hi, units, n, "Wilson")
    if kind in ("mean", "length_error") and single:
        est, lo, hi = M.mean_ci(y, alpha)
        return Estimate(s * est, s * lo, s * hi, units, n, "t")
    if kind in ("win_ratio", "win_edge"):
        c = _fair_constant(f, d)
        if c is not None:
            lo, hi = M.wilson(float(y.sum()) if kind == "win_ratio" else float(y.sum() + f.sum()),
                              float(n), alpha)
            if kind == "win_ratio":
                return Estimate(float(y.sum()) / n / c, lo / c, hi / c, units, n,
                                "Wilson / fair")
            w = float(y.sum() + f.sum()) / n
            return Estimate(s * (w - c), s * (lo - c), s * (hi - c), units, n,
                            "Wilson - fair")
        if kind == "win_ratio":
            est, lo, hi = M.ratio_of_sums(y, f, alpha)
            return Estimate(est, lo, hi, units, n, "ratio of sums (clusters)")
    est, lo, hi = M.ratio_of_sums(y, d, alpha)
    return Estimate(s * est, s * lo, s * hi, units, n, "ratio of sums (clusters)")


def _member_stats(obs: Obs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per member of a spread: seat-games, wins, fair wins (float64 arrays)."""
    k = len(obs.members)
    n = np.bincount(obs.member, weights=obs.d, minlength=k)
    w = np.bincount(obs.member, weights=obs.y, minlength=k)
    f = np.bincount(obs.member, weights=obs.f, minlength=k)
    return n, w, f


def _spread_estimate(obs: Obs, alpha: float) -> Estimate:
    n, w, f = _member_stats(obs)
    live = np.flatnonzero(n > 0)
    if live.size == 0:
        return Estimate(math.nan, math.nan, math.nan, 0.0, 0, "no data")
    level = alpha / live.size
    gap = np.full(n.size, np.nan)
    near = far = 0.0
    methods = set()
    order = np.argsort(obs.member, kind="stable")
    bounds = np.searchsorted(obs.member[order], np.arange(n.size + 1))
    for k in live:
        rows = order[bounds[k]:bounds[k + 1]]
        fair = f[k] / n[k]
        _, wy, wd = _sum_by(*_sorted(obs.ids[rows], obs.y[rows], obs.d[rows]))
        if wd.size == 0 or wd.max() <= 1:
            lo, hi = M.wilson(float(w[k]), float(n[k]), level)
            methods.add("Wilson")
        else:
            _, lo, hi = M.ratio_of_sums(wy, wd, level)
            methods.add(f"ratio of sums ({obs.unit} as clusters)")
        gap[k] = w[k] / n[k] - fair
        near = max(near, lo - fair, fair - hi)
        far = max(far, abs(lo - fair), abs(hi - fair))
    k = int(np.nanargmax(np.abs(gap)))
    s = obs.metric.scale
    clusters = int(np.unique(obs.ids).size)
    note = f"{obs.members[k]} {'+' if gap[k] >= 0 else '-'}{abs(gap[k]) * 100:.2f} pts"
    return Estimate(s * abs(gap[k]), s * max(near, 0.0), s * far, float(n.sum()), clusters,
                    f"{'/'.join(sorted(methods))} per member at alpha/{live.size}", note)


def estimate_obs(obs: Obs, alpha: float) -> Estimate:
    """The value of an :class:`Obs` and its ``1 - alpha`` interval (see the module doc)."""
    if obs.is_spread:
        return _spread_estimate(obs, alpha)
    est = estimate(obs.metric, obs.y, obs.d, obs.f, alpha, obs.unit)
    if obs.metric.kind == "target_error" and not math.isnan(est.value):
        t = obs.metric.scale * obs.target
        m, lo, hi = est.value, est.low, est.high
        near = 0.0 if lo <= t <= hi else min(abs(lo - t), abs(hi - t))
        est = Estimate(abs(m - t), near, max(abs(lo - t), abs(hi - t)), est.units,
                       est.clusters, est.method, f"{m:.2f}% vs target {t:g}%")
    if obs.metric.kind == "length_error" and not math.isnan(est.value):
        t = obs.target
        m, lo, hi = est.value, est.low, est.high
        near = 0.0 if lo <= t <= hi else min(abs(lo - t), abs(hi - t))
        est = Estimate(abs(m - t), near, max(abs(lo - t), abs(hi - t)), est.units,
                       est.clusters, est.method, f"mean {m:.2f} rounds vs target {t:g}")
    return est


def fair_value(obs: Obs) -> float:
    """The fair value of a win metric in its unit (the mean fair share for ``win_share``,
    1 for ``win_ratio``, 0 for ``win_edge`` and spreads), else NaN."""
    kind, name = obs.metric.kind, obs.metric.name
    if name == "win_share":
        sd = float(obs.d.sum())
        return obs.metric.scale * float(obs.f.sum()) / sd if sd > 0 else math.nan
    return {"win_ratio": 1.0, "win_edge": 0.0, "spread": 0.0}.get(kind, math.nan)


def value_obs(obs: Obs, weights: np.ndarray | None = None) -> float:
    """The point value, each cluster weighted by ``weights[cluster id]`` (all 1 when
    ``None``): a paired bootstrap draws one weight per cluster for both variants."""
    w = np.ones(obs.ids.size) if weights is None else weights[obs.ids]
    s = obs.metric.scale
    if obs.is_spread:
        k = len(obs.members)
        n = np.bincount(obs.member, weights=w * obs.d, minlength=k)
        wins = np.bincount(obs.member, weights=w * obs.y, minlength=k)
        fair = np.bincount(obs.member, weights=w * obs.f, minlength=k)
        ok = n > 0
        return s * float(np.max(np.abs(wins[ok] - fair[ok]) / n[ok])) if ok.any() else math.nan
    den = obs.f if obs.metric.kind == "win_ratio" else obs.d
    sd = float((w * den).sum())
    if sd <= 0:
        return math.nan
    r = float((w * obs.y).sum()) / sd
    if obs.metric.kind == "length_error":
        return abs(r - obs.target)
    if obs.metric.kind == "target_error":
        return s * abs(r - obs.target)
    return s * r


# --- paired differences -----------------------------------------------------------------------

def influence(obs: Obs) -> tuple[np.ndarray, np.ndarray]:
    """Each cluster's linearised influence on the value (in the metric's unit): (ascending
    cluster ids, influences). The value's variance is ``var(u) / n_clusters`` (clusters
    without a selected row have influence 0)."""
    c = max(obs.n_clusters, 1)
    s = obs.metric.scale
    if obs.is_spread:
        n, w, f = _member_stats(obs)
        ok = n > 0
        if not ok.any():
            return np.zeros(0, np.int64), np.zeros(0)
        gap = np.where(ok, (w - f) / np.where(ok, n, 1.0), 0.0)
        k = int(np.argmax(np.abs(gap)))
        rows = obs.member == k
        ids, wy, wf, wn = _sum_by(*_sorted(obs.ids[rows], obs.y[rows], obs.f[rows],
                                           obs.d[rows]))
        sign = 1.0 if gap[k] >= 0 else -1.0
        return ids, s * sign * ((wy - wf) - gap[k] * wn) / (n[k] / c)
    den = obs.f if obs.metric.kind == "win_ratio" else obs.d
    sd = float(den.sum())
    if sd <= 0:
        return obs.ids, np.zeros(obs.ids.size)
    r = float(obs.y.sum()) / sd
    u = (obs.y - r * den) / (sd / c)
    if obs.metric.kind in ("length_error", "target_error"):
        u = (1.0 if r >= obs.target else -1.0) * u
    return obs.ids, s * u


def _sorted(ids: np.ndarray, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    order = np.argsort(ids, kind="stable")
    return (ids[order], *(a[order] for a in arrays))


def _var_sum(v: np.ndarray, n: int) -> float:
    """Sample variance of ``n`` values: ``v`` and ``n - v.size`` zeros."""
    if n < 2:
        return math.nan
    s1, s2 = float(v.sum()), float((v * v).sum())
    return max(s2 - s1 * s1 / n, 0.0) / (n - 1)


def paired(a: Obs, b: Obs, *, is_paired: bool = True) -> Paired:
    """``B - A`` of one metric on two variants, with its standard error.

    ``is_paired``: both played the same clusters (same seed and game indices: common random
    numbers), so the error comes from the per-cluster differences of the influences;
    otherwise the two variances add. ``n`` is the number of paired clusters.
    """
    va, vb = value_obs(a), value_obs(b)
    ia, ua = influence(a)
    ib, ub = influence(b)
    if is_paired:
        n = max(a.n_clusters, b.n_clusters)
        ids = np.union1d(ia, ib)
        v = np.zeros(ids.size)
        np.add.at(v, np.searchsorted(ids, ib), ub)
        np.subtract.at(v, np.searchsorted(ids, ia), ua)
        se = math.sqrt(_var_sum(v, n) / n) if n > 1 else math.nan
    else:
        n = min(a.n_clusters, b.n_clusters)
        var = _var_sum(ua, a.n_clusters) / max(a.n_clusters, 1) + \
            _var_sum(ub, b.n_clusters) / max(b.n_clusters, 1)
        se = math.sqrt(var)
    return Paired(est=vb - va, se=se, value_a=va, value_b=vb,
                  n_games=max(a.n_clusters, b.n_clusters), n=n)
