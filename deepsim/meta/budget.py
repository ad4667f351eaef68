"""``deepsim meta``'s defaults: the output root, the budget per round and faction, the
files it writes (plain constants: the command line reads them without loading the run)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["DEFAULT_GAMES", "DEFAULT_ROOT", "DEFAULT_TRIALS", "FILES"]

DEFAULT_ROOT = Path("reports") / "meta"
#: default budget per round and faction (docs: under 2 hours for 3 rounds of DEEPFALL's 36
#: companies and of Atlantis's 2 sides on an idle 2-core machine; README, "deepsim meta")
DEFAULT_TRIALS = 20
DEFAULT_GAMES = 2000
FILES = ("meta.json", "meta-bots.yaml", "last-bots.yaml", "scenario.yaml", "rounds.parquet",
         "spread.parquet", "trials.parquet", "meta.md", "meta.html", "spread.png")
