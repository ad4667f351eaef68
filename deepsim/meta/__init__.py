"""``deepsim meta``: a field of competent players, by iterated best response.

:func:`run_meta` plays the rounds (:mod:`deepsim.meta.rounds`: each faction best-responds,
as ``deepsim respond`` does, to the field of the rounds before) and writes the output
folder (``--out``, default ``reports/meta/<scenario>-meta-<stamp>-<hex>``), rewritten
after every round so an interrupted run keeps the rounds done:

- ``meta-bots.yaml``: the meta field as a faction bots file (scenario key ``faction_bots``):
  every new style with all its knobs, and per faction its styles of every round with
  weights (a single style where it kept one);
- ``last-bots.yaml``: the same format, each faction playing its last round's style;
- ``scenario.yaml``: the input scenario with ``faction_bots: meta-bots.yaml`` (and the
  run's ``--set`` values as ``overrides:``), ready for ``deepsim run``;
- ``rounds.parquet``: one row per (round, faction) (:func:`deepsim.meta.report.rounds_frame`);
- ``spread.parquet``: one row per field (:func:`deepsim.meta.report.spread_frame`);
- ``trials.parquet``: every optuna trial of every round (column ``round``);
- ``meta.md``, ``meta.html`` (self-contained), ``spread.png``: the spread per field plot;
- ``meta.json``: the command, settings, seeds, per-round times, the spread.
"""

from __future__ import annotations

from deepsim.meta.budget import DEFAULT_GAMES, DEFAULT_ROOT, DEFAULT_TRIALS, FILES

__all__ = ["DEFAULT_GAMES", "DEFAULT_ROOT", "DEFAULT_TRIALS", "FILES", "MetaResult",
           "run_meta"]


def __getattr__(name: str):
    # the run (pandas, the respond search) loads on first use, so the budget constants
    # above cost the command line's start-up nothing
    if name in ("MetaResult", "run_meta"):
        from deepsim.meta import run
        return getattr(run, name)
    raise AttributeError(f"module 'deepsim.meta' has no attribute {name!r}")
