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

from pathlib import Path

__all__ = ["DEFAULT_GAMES", "DEFAULT_ROOT", "DEFAULT_TRIALS", "FILES", "MetaResult",
           "run_meta"]

DEFAULT_ROOT = Path("reports") / "meta"
#: default budget per round and faction (docs: under 2 hours for 3 rounds of DEEPFALL's 36
#: companies and of Atlantis's 2 sides on an idle 2-core machine; README, "deepsim meta")
DEFAULT_TRIALS = 20
DEFAULT_GAMES = 2000
FILES = ("meta.json", "meta-bots.yaml", "last-bots.yaml", "scenario.yaml", "rounds.parquet",
         "spread.parquet", "trials.parquet", "meta.md", "meta.html", "spread.png")


def __getattr__(name: str):
    # the run (pandas, the respond search) loads on first use, so the budget constants
    # above cost the command line's start-up nothing
    if name in ("MetaResult", "run_meta"):
        from deepsim.meta import run
        return getattr(run, name)
    raise AttributeError(f"module 'deepsim.meta' has no attribute {name!r}")
