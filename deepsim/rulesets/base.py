"""The contract between the shared runner and one ruleset's folder.

A ruleset is a sub-package ``deepsim.rulesets.<name>`` exposing ``RULESET``, an object with
the attributes and methods of :class:`Ruleset`. The runner, output, statistics and CLI only
talk to rulesets through this contract, so a new game is a new folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import pandas as pd


@dataclass
class Prepared:
    """A scenario resolved against its ruleset, ready to play games.

    Attributes
    ----------
    ruleset : str
        Ruleset name (``"deepfall"``).
    scenario : dict
        The resolved scenario (JSON-serialisable), as recorded in ``run.json``.
    params : dict
        Every ruleset parameter after overrides (JSON-serialisable).
    params_hash : str
        SHA-256 hex digest of ``params`` (canonical JSON); names the ruleset variant.
    placeholders : list of str
        Parameter paths whose data is a placeholder (not in the rulebook).
    skipped_rules : list of str
        Rulebook rules the engine does not implement (empty when complete).
    baseline_bots : list of str
        Bot labels of the styles marked ``baseline: true`` in the ruleset's bot data
        (yardsticks such as uniform random play): reports leave their seats out of
        balance headlines. Recorded in ``run.json``.
    compiled : Any
        Ruleset-private arrays handed to the kernel.
    """

    ruleset: str
    scenario: dict
    params: dict
    params_hash: str
    placeholders: list[str] = field(default_factory=list)
    skipped_rules: list[str] = field(default_factory=list)
    compiled: Any = None
    baseline_bots: list[str] = field(default_factory=list)


class Ruleset(Protocol):
    name: str
    title: str
    #: seats column of what a player plays (DEEPFALL: ``company``; Atlantis: ``faction``)
    faction_column: str
    #: its noun in prose ("company", "faction")
    faction_label: str
    #: seats columns win shares may be grouped by (gate ``by:``, sweep/tune ``:BY``)
    group_columns: tuple[str, ...]
    #: sweep/tune metrics used when none are named
    default_metrics: tuple[str, ...]

    def prepare(self, scenario: dict, *, source: str = "<scenario>",
                overrides: list[str] | None = None) -> Prepared:
        """Validate a scenario mapping and the ruleset data with overrides; raise InputError."""

    def run_chunk(self, prepared: Prepared, start: int, count: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play games ``start .. start+count-1``; return (games, seats) frames."""

    def trace(self, prepared: Prepared, game_index: int) -> list[str]:
        """Replay one game with the event buffer on; return its readable log lines."""

    # Optional: ``trace_records(prepared, game_index) -> list[dict]`` gives the same replay
    # as records for tools (``deepsim trace --format json``, one JSON object per line): a
    # ``type: header`` record with the seats, one ``type: event`` record per event (round,
    # seat, event, rule, named values), a ``type: result`` record. Without it
    # ``--format json`` is refused (exit 2).

    # Optional: a ruleset with ``warm_up`` has its kernels compiled before its games start,
    # behind a status line, and ``deepsim warmup`` compiles them ahead of time
    # (deepsim/jitcache.py); compile time is then kept out of games/s.

    #: seconds of a cold compile on a 2-core machine, ``{"run": ..., "all": ...}`` (``run``:
    #: what ``run_chunk`` needs; ``all``: with ``trace``'s); announced on the first run
    #: until this machine has measured its own (optional)
    compile_estimate_s: dict[str, float]

    def warm_up(self, prepared: Prepared | None = None, *, trace: bool = False) -> None:
        """Compile (or load from numba's cache) the kernels ``run_chunk`` calls for the
        argument types of ``prepared`` (default: the ruleset's own default scenario), and
        ``trace``'s too when ``trace``. Playing at most a game or two (optional)."""

    def golden_cases(self) -> list:
        """Frozen scenarios whose results ``tests/test_golden.py`` pins by digest.

        Returns a list of :class:`deepsim.testing.golden.GoldenCase` (usually read from the
        ruleset's ``golden.yaml`` with :func:`deepsim.testing.golden.load_cases`); an empty
        list opts the ruleset out.
        """

    def bot_data(self) -> Any:
        """The bots' knobs (type, bounds, searchable) and styles, a
        :class:`deepsim.botdata.BotData` read from the ruleset's ``bots.yaml``. Optional: a
        ruleset without it has no knob bounds to check and no baseline styles."""
