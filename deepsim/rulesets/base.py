"""The ruleset contract: everything a game's folder gives deepsim, and all deepsim asks of it.

A ruleset is a package ``deepsim/rulesets/<name>/`` whose ``__init__`` exposes ``RULESET``,
an instance of a subclass of

- :class:`Ruleset`: a game deepsim plays (a kernel, bots, data). The runner, output,
  report, gate (``check``/``compare``), ``sweep``/``tune``, bench and API talk to it only
  through the attributes and methods below. A game whose numba kernel plays whole games
  derives from :class:`KernelRuleset`, which plays it and builds the tables; or
- :class:`OddsRuleset`: a game whose dice deepsim only answers questions about
  (``deepsim odds``), with no kernel (:class:`DataOddsRuleset` when its questions read one
  data file). ``deepsim run`` refuses it (exit 2) and ``deepsim rulesets`` lists it as
  odds-only.

Shared code never imports a ruleset's folder by name and never falls back on a missing
attribute: a subclass that leaves out a piece of declared metadata is refused when the
registry loads it (:func:`check_ruleset` says which), and an abstract method it does not
implement keeps it from being instantiated. Every optional hook is declared here with its
default. So a new game is a new folder (or ``deepsim new-ruleset NAME``): declare the
metadata, write what is the game's own, and the conformance suite
(:mod:`deepsim.testing.conformance`) tells what does not hold.

This module is the engines' floor (docs/contract.md, "Layers"): it imports the base
layer and the report kit, never a tool or the registry.

Shared plumbing the game folders use (data file and overrides, strict schemas, bot label
columns) is in :mod:`deepsim.rulesets.common`; bot styles and knob bounds in
:mod:`deepsim.botdata`.
"""

from __future__ import annotations

import abc
import importlib
import sys
import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from deepsim import rotation
from deepsim.errors import InputError
from deepsim.params import cap_text, param_value, safety_cap_values
from deepsim.rulesets import common

if TYPE_CHECKING:
    from deepsim.report.config import ReportOption

__all__ = [
    "BASE_GAMES_COLUMNS", "BASE_SEATS_COLUMNS", "COOPERATIVE", "COOP_GAMES_COLUMNS", "DTYPES", "UNRESOLVED", "DataOddsRuleset",
    "KernelInputs", "KernelRuleset", "KernelTables", "OddsBook", "OddsOption", "OddsRuleset",
    "Prepared", "Ruleset", "RulesetInfo", "TracedGame", "cap_text", "check_ruleset",
    "param_value", "plural", "safety_cap_values",
]

def __getattr__(name: str):
    # names that moved to the report kit, kept here for one version
    if name == "ReportOption":
        warnings.warn("deepsim.rulesets.base.ReportOption moved to "
                      "deepsim.report.config.ReportOption; the old name goes in deepsim 0.2",
                      DeprecationWarning, stacklevel=2)
        from deepsim.report.config import ReportOption
        return ReportOption
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: the dtypes a table column may be declared with (pandas dtype names)
DTYPES = ("int64", "float64", "bool", "category")

#: columns every playable ruleset's games table carries, with their dtypes: ``truncated``
#: is True when a safety cap (:attr:`Ruleset.safety_caps`) stopped the game before its rules
#: ended it: the game is *unresolved* (see :data:`UNRESOLVED`)
BASE_GAMES_COLUMNS: Mapping[str, str] = {"game": "int64", "seed": "int64", "truncated": "bool"}

#: columns every playable ruleset's seats table carries (one row per seat of each game):
#: ``win`` (1 for a sole winner, 1/k for a k-way tie or a draw shared by k seats, else 0;
#: NaN for every seat of an unresolved game), ``fair`` (the seat's fair share of a win;
#: 1/players when every seat may win) and ``bot`` (the seat's bot style label)
BASE_SEATS_COLUMNS: Mapping[str, str] = {"game": "int64", "seat": "int64", "players": "int64",
                                         "win": "float64", "fair": "float64",
                                         "bot": "category"}

#: The one rule for a game a safety cap stops (every ruleset keeps it; the conformance
#: suite's ``unresolved`` check tests it):
#:
#: - a **safety cap** is an engine limit, not a rule (a turn or round count after which a
#:   game no bot can finish is stopped); the ruleset names each in :attr:`Ruleset.
#:   safety_caps`. The rulebook never gives one (a limit the rules give ends the game by
#:   the rules), so every banner and ``run.json`` flag its value as invented data;
#: - a game a cap stops has ``truncated`` = True and is **unresolved**: never a draw and
#:   never a win. Each of its seat rows holds ``win`` = NaN (no result), and the shared
#:   report, the terminal summary, ``check``/``compare``/``sweep``/``tune``, ``respond``
#:   and the ladder leave those rows out of every win share, ratio and draw share, count
#:   the unresolved games in the headline (``0.3% unresolved at the 1,000 player-turn
#:   cap``) and warn above :data:`deepsim.stats.UNRESOLVED_WARN` (1%);
#: - a ruleset may offer a documented **adjudication** of a stopped game (Atlantis: by
#:   material) as an opt-in parameter. An adjudicated game keeps ``truncated`` = True, has
#:   the optional games column ``adjudicated`` (bool) = True and ``win`` as the
#:   adjudication decides (summing to 1 like any result); the report says how many games
#:   were adjudicated. A ruleset marks its rows with
#:   :func:`deepsim.rulesets.common.mark_unresolved`.
UNRESOLVED = "truncated and not adjudicated: win = NaN for every seat"

#: columns a co-operative ruleset's games table carries besides :data:`BASE_GAMES_COLUMNS`:
#: ``won`` (the party won), ``outcome`` (how: one of the ruleset's :attr:`Ruleset.outcomes`
#: codes) and ``target`` (the designer's target win rate, the same on every row of a run)
COOP_GAMES_COLUMNS: Mapping[str, str] = {"won": "bool", "outcome": "category",
                                         "target": "float64"}

#: The contract of a **co-operative** ruleset (``cooperative = True``; docs/contract.md,
#: "Co-operative rulesets"): the seats play together and the game has one result, the
#: party's:
#:
#: - the games table has ``won`` (bool) and ``outcome`` (category: the ruleset's declared
#:   :attr:`Ruleset.outcomes` codes, each ``won`` or ``lost``), from the kernel's games
#:   int column ``outcome`` (the code's index) when the ruleset is a :class:`KernelRuleset`;
#: - every seat row of a game has ``win`` = 1.0 when the party won and 0.0 when it lost
#:   (NaN when unresolved), so a seats row's ``win`` no longer sums to 1 over a game;
#: - every seat row has ``fair`` = the designer's target win rate (:attr:`Ruleset.
#:   target_path`), so ``win_share[class=X]`` is the party's win rate over the seat-games
#:   of class X, ``win_edge`` its distance from the target and ``win_ratio`` its ratio to
#:   the target, with the shared code unchanged.
COOPERATIVE = "won/outcome per game; win = the party's result, fair = the target, per seat"


@dataclass
class Prepared:
    """A scenario resolved against its ruleset, ready to play games.

    Attributes
    ----------
    ruleset : str
        Ruleset name (``Ruleset.name``).
    scenario : dict
        The resolved scenario (JSON-serialisable), as recorded in ``run.json``; it has
        ``seed``, ``games`` and ``chunk_size``.
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


@dataclass(frozen=True)
class OddsOption:
    """One option of a ruleset's ``deepsim odds`` questions (a click option).

    Attributes
    ----------
    name : str
        The keyword its value is passed to ``OddsBook.answer`` under.
    flags : tuple of str
        The spellings (``("--dice", "-d")``); a boolean with an off switch is one spelling
        ``"--chain/--no-chain"``.
    kind : {"str", "int", "flag", "bool", "list"}
        ``flag``: present or not (default False); ``bool``: an on/off pair whose default may
        be None (the data file decides); ``list``: repeatable, a list of strings.
    default : Any
        Its value when not given (None: the answer's own default).
    help : str
        One line for ``--help``.
    """

    name: str
    flags: tuple[str, ...]
    kind: str = "str"
    default: Any = None
    help: str = ""


@dataclass(frozen=True)
class OddsBook:
    """A ruleset's ``deepsim odds RULESET QUESTION`` questions.

    Attributes
    ----------
    questions : mapping str -> str
        Question name -> what it answers (the ``QUESTION`` argument's help).
    options : sequence of OddsOption
        Every option any question reads (``--set``, ``--format`` and ``--plot`` are added by
        the shared command).
    answer : callable
        ``answer(question, **options) -> deepsim.odds.table.Result``; ``options`` holds every
        declared option by name and ``sets`` (the ``--set path=value`` list). Raises
        :class:`deepsim.errors.InputError` for a bad question, option or override.
    help : str
        The command's description (what dice, which rulebook sections).
    """

    questions: Mapping[str, str]
    options: Sequence[OddsOption]
    answer: Callable[..., Any]
    help: str = ""


def plural(noun: str) -> str:
    """``"company"`` -> ``"companies"``, ``"faction"`` -> ``"factions"``, ``"bot style"``
    -> ``"bot styles"``."""
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    return noun + "s"


class RulesetInfo(abc.ABC):
    """What every ruleset declares, playable or odds-only.

    Class attributes: ``name`` (the folder's name, what scenarios and commands give) and
    ``title`` (for headings). ``plays``: True for a :class:`Ruleset` (it has a kernel).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    plays: ClassVar[bool] = False

    #: declared metadata every concrete subclass must give (:func:`check_ruleset`)
    REQUIRED: ClassVar[tuple[str, ...]] = ("name", "title")

    @abc.abstractmethod
    def parameters(self) -> list[dict]:
        """Every parameter a ``--set`` (or a scenario's ``overrides:``) can change.

        Returns
        -------
        list of dict
            One row per dotted path: ``path``, ``default``, ``type`` (text), ``bounds``
            (text), ``section`` (the rulebook section or gap it implements) and
            ``placeholder`` (bool: the shipped value is invented, not printed in the
            rulebook; :meth:`placeholder_paths`).
        """

    def placeholder_paths(self) -> list[str]:
        """Dotted paths (or parents of paths) whose shipped data is a placeholder: invented
        where the rulebook prints no number. What a run on the shipped data rests on
        (``Prepared.placeholders`` of a run that deals everything). Default: none."""
        return []

    def odds(self) -> OddsBook | None:
        """The ruleset's ``deepsim odds`` questions, or None when it has none (optional)."""
        return None


class Ruleset(RulesetInfo):
    """A game deepsim plays: the whole contract between the shared code and its folder.

    **Declared metadata** (class attributes; :func:`check_ruleset` lists what is missing):

    - ``name``, ``title``;
    - ``faction_column``: the seats column naming what a player plays (a categorical), and
      ``faction_label``, its noun in prose (``"company"``, ``"faction"``, ``"bot style"``;
      the plural is :attr:`factions_label`);
    - ``group_columns``: seats columns a win share may be grouped by in the metric language
      (``win_share[company]``), including ``faction_column``, ``bot`` and ``seat``;
    - ``default_metrics``: the metrics ``sweep`` reports when none are named, and
      ``default_objective``: what ``tune`` minimises when none is named (metric language);
    - ``target_rounds``: the rulebook's game length in rounds (``length_error``'s target),
      or None when the rulebook states none;
    - ``games_columns`` / ``seats_columns``: every column the games / seats tables always
      carry, with its dtype (one of :data:`DTYPES`); they include :data:`BASE_GAMES_COLUMNS`
      / :data:`BASE_SEATS_COLUMNS`, the faction and group columns;
    - ``report_games_columns`` / ``report_seats_columns`` / ``report_seats_prefixes``: the
      further columns its report sections and claims read (the report loads only these and
      the shared ones), default none;
    - ``report_options``: its report settings (:class:`ReportOption`), default none;
    - ``seat_order``: one phrase on who plays first (the report's seat advantage);
    - ``score_label``: what a player scores (``"Glory"``, ``"VP"``; the unit of a games
      table's ``margin``), or None when the game has no score;
    - ``safety_caps``: its engine caps ``{path: unit}`` (default none); a game a cap stops
      is *unresolved* (:data:`UNRESOLVED`: ``truncated``, ``win`` NaN), never a draw.

    **Required entry points** (abstract methods): :meth:`prepare`, :meth:`run_chunk`,
    :meth:`trace`, :meth:`trace_result`, :meth:`parameters`, :meth:`bot_data` (bot styles
    and knob bounds) and :meth:`golden_cases`.

    **Optional hooks** (each declared here with its default, none found by probing):
    :meth:`run_games` and :meth:`factions` (``respond``, ``meta``, ``ladder``, the
    ``faction_bots`` key), :meth:`trace_records` with :attr:`trace_formats`,
    :meth:`headline_groups`, :meth:`report_sections`, :meth:`report_claims`,
    :meth:`report_roles`, :meth:`method_text`, :meth:`language_rows`,
    :meth:`search_spaces`, :meth:`odds`, :meth:`bench_scenario` / :meth:`bench_players`,
    and ``warm_up`` with ``compile_estimate_s`` (the kernel compiled ahead of the games).

    A game whose numba kernel plays whole games into four tables derives from
    :class:`KernelRuleset`, which implements the playing, tracing and table building and
    leaves the game what is its own.

    Determinism: every result depends only on (scenario, overrides, seed, game index), never
    on chunking or thread count; :mod:`deepsim.testing.conformance` checks it.
    """

    plays: ClassVar[bool] = True

    faction_column: ClassVar[str]
    faction_label: ClassVar[str]
    group_columns: ClassVar[tuple[str, ...]]
    default_metrics: ClassVar[tuple[str, ...]]
    default_objective: ClassVar[str]
    target_rounds: ClassVar[float | None]
    games_columns: ClassVar[Mapping[str, str]]
    seats_columns: ClassVar[Mapping[str, str]]
    seat_order: ClassVar[str]
    score_label: ClassVar[str | None]
    report_games_columns: ClassVar[tuple[str, ...]] = ()
    report_seats_columns: ClassVar[tuple[str, ...]] = ()
    report_seats_prefixes: ClassVar[tuple[str, ...]] = ()
    report_options: ClassVar[tuple[ReportOption, ...]] = ()

    REQUIRED: ClassVar[tuple[str, ...]] = (
        "name", "title", "faction_column", "faction_label", "group_columns",
        "default_metrics", "default_objective", "target_rounds", "games_columns",
        "seats_columns", "seat_order", "score_label")

    @property
    def factions_label(self) -> str:
        """The faction noun's plural (``"companies"``, ``"factions"``)."""
        return plural(self.faction_label)

    def headline_groups(self) -> list[tuple[str, str]]:
        """The ``(column, noun)`` pairs the headline names (report, run summary): the
        faction column, then the other group columns that are parts of a faction (not
        ``bot`` or ``seat``: those are the field and seat advantage, reported apart)."""
        out = [(self.faction_column, self.faction_label)]
        out += [(c, c) for c in self.group_columns
                if c not in (self.faction_column, "bot", "seat")]
        return out

    # ---- required entry points --------------------------------------------------------------

    @abc.abstractmethod
    def prepare(self, scenario: dict, *, source: str = "<scenario>",
                overrides: list[str] | None = None) -> Prepared:
        """Validate a scenario mapping and the ruleset data with overrides; build the kernel
        inputs.

        Scenario ``overrides:`` apply first, then ``overrides`` (``--set path=value``; later
        wins). Also checks the player counts against the data's range.

        Raises
        ------
        deepsim.errors.InputError
            Any invalid scenario key, seat, bot, knob or parameter, naming ``source``, the
            key and its line; one caused by a ``--set`` names ``"SOURCE / --set"``.
        """

    @abc.abstractmethod
    def run_chunk(self, prepared: Prepared, start: int, count: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play games ``start .. start+count-1``.

        Returns
        -------
        (games, seats) : (DataFrame, DataFrame)
            One games row per game (``game`` = its index) and one seats row per seat of
            each game, with at least the declared ``games_columns`` / ``seats_columns``.
        """

    @abc.abstractmethod
    def trace(self, prepared: Prepared, game_index: int) -> list[str]:
        """Replay game ``game_index`` with the kernel's event buffer on; its readable log.

        The same code path as the batch, so the log ends with that game's batch result.
        """

    @abc.abstractmethod
    def trace_result(self, prepared: Prepared, game_index: int
                     ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(games, seats) rows of the traced game ``game_index``: equal to its batch rows."""

    @abc.abstractmethod
    def bot_data(self) -> Any:
        """The bots' styles and knobs with their bounds (:class:`deepsim.botdata.BotData`,
        read from the ruleset's ``bots.yaml``)."""

    @abc.abstractmethod
    def golden_cases(self) -> list:
        """Frozen scenarios whose results ``tests/rulesets/test_golden.py`` pins by digest.

        Returns a list of :class:`deepsim.rulesets.golden.GoldenCase` (usually read from the
        ruleset's ``golden.yaml`` with :func:`deepsim.rulesets.golden.load_cases`); at least
        one.
        """

    # ---- optional hooks ---------------------------------------------------------------------

    def run_games(self, prepared: Prepared, games: np.ndarray
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play only the games of index ``games`` (int64, ascending): the rows
        :meth:`run_chunk` gives for the same games (``deepsim respond`` plays only the games
        a faction sits in).

        Default: the chunk from the first to the last listed game, its other rows dropped;
        a kernel that plays a list of games (:class:`KernelRuleset`) plays only those.
        """
        idx = np.asarray(games, dtype=np.int64)
        lo = int(idx[0]) if idx.size else 0
        hi = int(idx[-1]) + 1 if idx.size else 0
        g, s = self.run_chunk(prepared, lo, hi - lo)
        return (g[g["game"].isin(idx)].reset_index(drop=True),
                s[s["game"].isin(idx)].reset_index(drop=True))

    def factions(self, prepared: Prepared | None = None) -> list[str] | None:
        """Every value of the faction column, in the kernel's faction-code order: the names
        a scenario's ``faction_bots`` and ``respond --faction`` accept (with ``prepared``,
        those of that scenario, e.g. its knobbed bot labels).

        Default: None, the ruleset does not name its factions ahead of play (``deepsim
        respond``, ``meta`` and ``ladder`` then refuse it, exit 2).
        """
        return None

    #: the ``deepsim trace --format`` values the ruleset gives: ``text`` (:meth:`trace`),
    #: and ``json`` when it implements :meth:`trace_records`
    trace_formats: ClassVar[tuple[str, ...]] = ("text",)
    #: True when :meth:`trace` and :meth:`trace_records` take ``view`` (a
    #: :class:`deepsim.tracefilter.TraceFilter`: ``deepsim trace --seat/--round/--only``);
    #: else the filters are refused (exit 2)
    trace_filters: ClassVar[bool] = False

    def trace_records(self, prepared: Prepared, game_index: int) -> list[dict]:
        """The replay of :meth:`trace` as records for tools (``deepsim trace --format
        json``, one JSON object per line): a ``type: header`` record with the seats, one
        ``type: event`` record per event (round, seat, event, rule, named values), a
        ``type: result`` record. A ruleset that gives them lists ``json`` in
        :attr:`trace_formats`.

        Raises
        ------
        InputError
            Default: the ruleset has no records (``--format json`` is refused, exit 2).
        """
        raise InputError(f"the {self.name} ruleset has no JSON trace yet (only text)",
                         key="--format")

    def report_sections(self, ctx) -> list:
        """The report's sections for this ruleset, in order (the claims and the Method
        section are added around them by the shared report).

        Returns a list of ``(key, title, build)``; ``build(ctx, footer)`` returns a
        :class:`deepsim.report.model.Section` or a list of them, and may raise ``KeyError``
        naming a column the run lacks (the section is then shown as not computed).
        Default: the shared sections (:func:`deepsim.report.sections.standard`): win share
        per faction, seat advantage and, when players pick factions apart from their bot,
        win share per bot style.
        """
        if self.cooperative:
            from deepsim.report.partysections import standard as coop
            return coop(ctx)
        from deepsim.report.sections import standard
        return standard(ctx)

    def report_claims(self, ctx) -> list:
        """The rulebook's claims measured on the report's runs
        (:class:`deepsim.report.verdicts.ClaimResult` list); default none."""
        return []

    #: heading of the report's claims table
    claims_title: ClassVar[str] = "Claims"

    def search_spaces(self) -> dict:
        """The search spaces ``deepsim tune --space NAME`` may use, as declared in the
        ruleset's data: a mapping with any of ``readings`` (each gap's documented
        alternatives), ``rounding`` (printed numbers searched within the interval that
        rounds to them) and ``placeholders`` (data the rulebook lacks), in the format
        :func:`deepsim.tune.spaces.build_spaces` reads. Default: none (``--space`` is then
        refused with exit 2)."""
        return {}

    def report_roles(self, ctx) -> list[str] | None:
        """What each run given besides the first is used for (one phrase per run), or None
        for the shared wording (a side-by-side comparison)."""
        return None

    def method_text(self, ctx) -> str | None:
        """The Method section's paragraph on how the report's numbers are computed, or None
        for the shared text (shares, tests, means, differences of shares)."""
        if self.cooperative:
            from deepsim.report.partysections import METHOD
            return METHOD
        return None

    def language_rows(self, ctx, shared: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The Method section's table of the report's numbers in the metric language, as
        rows ``(section, metrics)``, given the shared sections' rows (win share, seat
        advantage, game length, bot styles). Default: those, the draw share and the games
        a safety cap left unresolved. A co-operative ruleset: the party's numbers
        (:func:`deepsim.report.partysections.language_rows`)."""
        if self.cooperative:
            from deepsim.report.partysections import language_rows
            return language_rows(ctx)
        return [shared[0], ("Draws; unresolved games", "draw_share, unresolved"),
                *shared[1:]]

    def bench_scenario(self, players: int | None = None) -> dict | None:
        """The scenario ``deepsim bench`` times (a mapping; ``players`` asks for that player
        count), or None when the ruleset is not benchmarked."""
        return None

    def bench_players(self) -> tuple[int, ...]:
        """Player counts ``deepsim bench`` times (its bench scenario at each)."""
        return ()

    #: seconds of a cold compile on a 2-core machine, ``{"run": ..., "all": ...}`` (``run``:
    #: what ``run_chunk`` needs; ``all``: with ``trace``'s), announced by the first-run
    #: status until this machine has measured its own (:mod:`deepsim.jitcache`); empty: no
    #: estimate
    compile_estimate_s: ClassVar[Mapping[str, float]] = {}

    #: the safety caps of its data file, ``{parameter path: unit}`` (``{"end.max_turns":
    #: "player-turn"}``): engine limits, not rules, that stop a game the bots cannot finish.
    #: A game one stops is unresolved (:data:`UNRESOLVED`); every banner and ``run.json``
    #: flag each cap's value as invented (:func:`safety_cap_values`); the conformance suite
    #: sets each to 1 and checks the unresolved rows. Empty: the engine never stops a game
    #: early (then no game may be ``truncated``).
    safety_caps: ClassVar[Mapping[str, str]] = {}

    #: True for a co-operative game (:data:`COOPERATIVE`): the party wins or loses
    #: together; the games table then carries ``won`` and ``outcome``, seats' ``win`` is
    #: the party's result and ``fair`` the designer's target win rate
    cooperative: ClassVar[bool] = False
    #: a co-operative game's outcome codes in the kernel's code order, each ``"won"`` or
    #: ``"lost"`` (``{"banked": "won", "clock": "lost", "out_of_time": "lost"}``): the
    #: games table's ``outcome`` categories. Empty for a competitive game
    outcomes: ClassVar[Mapping[str, str]] = {}
    #: a co-operative game's data-file path of the designer's target win rate (in (0, 1);
    #: a parameter, so hashed with the others and settable by ``--set``); None otherwise
    target_path: ClassVar[str | None] = None

    def target_win_rate(self, params: Mapping[str, Any], *, source: str | None = None
                        ) -> float:
        """The designer's target party win rate of a co-operative game: the parameter at
        :attr:`target_path` of ``params`` (``Prepared.params``).

        Raises
        ------
        InputError
            The ruleset is not co-operative, or the value is missing or outside (0, 1)
            (naming ``source``, default the data file, and the path).
        """
        if not self.cooperative or not self.target_path:
            raise InputError(f"the {self.name} ruleset is not co-operative: it has no "
                             "target win rate", key="target_win_rate")
        value = param_value(params, self.target_path)
        data = getattr(self, "data", None)
        where = source or (str(data.path) if getattr(data, "path", None) else self.name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not 0.0 < float(value) < 1.0:
            raise InputError(f"the target win rate must be a number strictly between 0 and "
                             f"1 (a share of games, 0.45 for 45%); got {value!r}",
                             file=where, key=self.target_path)
        return float(value)

    #: ``warm_up(prepared=None, *, trace=False)``: compile (or load from numba's cache) the
    #: kernels ``run_chunk`` calls for the argument types of ``prepared`` (default: the
    #: ruleset's own default scenario), and ``trace``'s too with ``trace``, playing at most a
    #: game or two. A ruleset that defines it has its kernels compiled before its games
    #: start, behind a status line, with the compile time kept out of games/s, and
    #: ``deepsim warmup`` compiles them ahead of time (:mod:`deepsim.jitcache`). None (the
    #: default): the kernel compiles on its first call.
    warm_up: ClassVar[Callable[..., None] | None] = None

    #: the parts of everything ``warm_up`` compiles (``warm_up(None, trace=True)``) that
    #: share little compiled code, name -> what it is for (``{"run": "batch games",
    #: "trace": "traced games"}``): ``warm_up(part=name)`` compiles that part alone, and
    #: ``deepsim warmup`` compiles the parts in parallel processes when the machine has
    #: the cores (:mod:`deepsim.warmup`). Empty (the default): one part.
    warm_parts: ClassVar[Mapping[str, str]] = {}


# --- games played by a numba kernel ------------------------------------------------------------

class KernelInputs:
    """Base of a game's kernel inputs: a dataclass (``prepared.compiled["arrays"]``) whose
    fields, in declaration order, are the kernel's arguments after ``(seed, start, count)``.
    A game whose kernel takes something else (one record built from the fields) overrides
    :meth:`kernel_args`."""

    def kernel_args(self) -> tuple:
        """The arguments the kernel's entry points take after their own leading ones."""
        return tuple(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True)
class KernelTables:
    """How a kernel's four output tables are laid out: the column names in index order.

    The kernel's entry points return ``gi`` (int64, games x ``game_int``), ``gf`` (float64,
    games x ``game_flt``), ``si`` (int64, games x seats x ``seat_int``) and ``sf`` (float64,
    games x seats x ``seat_flt``), seats indexed from 0 (seat 0 plays first).

    Attributes
    ----------
    game_int, game_flt, seat_int, seat_flt : tuple of str
        Column names. ``game_int`` holds ``truncated`` (0/1, written as bool); a column
        named ``*_seat`` is a seat index (-1: none), written numbered from 1. ``seat_int``
        holds ``bot`` (the bot profile's row), ``seat_flt`` holds ``win``.
    coded : tuple of str
        ``seat_int`` columns that are codes, written as categoricals by the game
        (:meth:`KernelRuleset.faction_columns`) or, for ``bot``, by the base; not written
        as integers.
    players : int or None
        A fixed player count; None: ``game_int`` has a ``players`` column.
    """

    game_int: tuple[str, ...]
    game_flt: tuple[str, ...]
    seat_int: tuple[str, ...]
    seat_flt: tuple[str, ...]
    coded: tuple[str, ...] = ("bot",)
    players: int | None = None

    @property
    def seat_numbers(self) -> tuple[str, ...]:
        """The ``game_int`` columns that name a seat."""
        return tuple(c for c in self.game_int if c.endswith("_seat"))


@dataclass
class TracedGame:
    """One game replayed with the kernel's event buffer on (:meth:`KernelRuleset.traced`).

    Attributes
    ----------
    seed : int
        The scenario's seed.
    deal : int
        The game index the kernel played (the row's deal when seats rotate).
    where : str
        ``""``, or `` (deal D, seat rotation K of N)`` for a trace heading.
    arrays : KernelInputs
        The kernel inputs the game was played with (its rotation's).
    gi, gf, si, sf : ndarray
        The game's rows of the four tables (one game: leading axis of length 1).
    events : ndarray
        The kernel's event records of the game (the game's own layout).
    """

    seed: int
    deal: int
    where: str
    arrays: Any
    gi: np.ndarray
    gf: np.ndarray
    si: np.ndarray
    sf: np.ndarray
    events: np.ndarray


class KernelRuleset(Ruleset):
    """A game whose numba kernel plays whole games: the base owns playing chunks and listed
    games, seat rotation, the trace's replay and the games and seats tables, so a game
    writes only what is its own.

    **What the game declares** (besides :class:`Ruleset`'s metadata):

    - ``data``: its data file (:class:`deepsim.rulesets.common.DataFile`), whose
      :meth:`~deepsim.rulesets.common.DataFile.parameters` are :meth:`parameters`;
    - ``tables``: its kernel's output layout (:class:`KernelTables`);
    - ``kernel_module``: the module of its compiled entry points, relative to the ruleset's
      package (default ``.kernel``), imported on the first game so that importing the
      ruleset does not import numba. It has ``play_games(seed, start, count, *args)`` and
      ``play_listed(seed, games, *args)``, both returning ``(gi, gf, si, sf)``, and
      ``trace_game(seed, game, max_events, *args)`` returning ``(gi, gf, si, sf, events)``
      (``args``: :meth:`KernelInputs.kernel_args`).

    **What prepare gives**: ``prepared.compiled`` a mapping with ``arrays`` (the kernel
    inputs, :class:`KernelInputs`), ``bot_labels`` (each bot profile's label: the
    ``bot`` column) and, with seat rotation, ``rotations`` (one kernel-input variant per
    rotation, :mod:`deepsim.rotation`).

    **What the game writes**: :meth:`prepare`, :meth:`trace` (the readable log of
    :meth:`traced`), :meth:`bot_data`, and the hooks below whose defaults do not fit it:
    :meth:`faction_columns`, :meth:`games_extra`, :meth:`seats_extra` (its categorical
    columns), :meth:`seat_rows` (a faster row extraction), :meth:`warm_up`.
    """

    data: ClassVar[Any]
    tables: ClassVar[KernelTables]
    kernel_module: ClassVar[str] = ".kernel"
    #: the event buffer of a traced game (a longer game is cut, and says so)
    max_trace_events: ClassVar[int] = 200_000

    REQUIRED: ClassVar[tuple[str, ...]] = (*Ruleset.REQUIRED, "data", "tables")

    # ---- the game's folder and kernel ---------------------------------------------------------

    @property
    def folder(self) -> Path:
        """The folder of the module that defines the ruleset's class (its data files)."""
        return Path(sys.modules[type(self).__module__].__file__).parent

    def kernel(self) -> types.ModuleType:
        """The module of the compiled entry points (:attr:`kernel_module`)."""
        mod = sys.modules[type(self).__module__]
        package = mod.__package__ or type(self).__module__
        return importlib.import_module(self.kernel_module, package)

    # ---- the contract, implemented --------------------------------------------------------------

    def run_chunk(self, prepared: Prepared, start: int, count: int
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play games ``start .. start+count-1`` (rows of the rotated run when seats rotate,
        :func:`deepsim.rotation.play_chunk`); one games row per game, one seats row per
        seat. The rows depend only on (seed, game index): not on chunking or threads."""
        return rotation.play_chunk(prepared, lambda a, s, c: self._play(prepared, a, s, c),
                                   start, count)

    def _play(self, prepared: Prepared, arrays: Any, start: int, count: int):
        seed = int(prepared.scenario["seed"])
        gi, gf, si, sf = self.kernel().play_games(np.int64(seed), np.int64(start),
                                                  np.int64(count), *arrays.kernel_args())
        index = np.arange(start, start + gi.shape[0], dtype=np.int64)
        return self.frames(prepared, index, gi, gf, si, sf)

    def run_games(self, prepared: Prepared, games: np.ndarray
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Play the games of index ``games`` (int64, ascending): the rows :meth:`run_chunk`
        gives for the same games.

        Raises
        ------
        ValueError
            For a scenario whose seats rotate (a row is not a game index there).
        """
        if prepared.compiled.get("rotations"):
            raise ValueError("run_games plays unrotated scenarios only")
        idx = np.ascontiguousarray(games, dtype=np.int64)
        seed = int(prepared.scenario["seed"])
        gi, gf, si, sf = self.kernel().play_listed(
            np.int64(seed), idx, *prepared.compiled["arrays"].kernel_args())
        return self.frames(prepared, idx, gi, gf, si, sf)

    def traced(self, prepared: Prepared, game_index: int) -> TracedGame:
        """Row ``game_index`` replayed with the event buffer on (its deal in its rotation's
        inputs when seats rotate): the same kernel code path as the batch."""
        arrays, deal, where = rotation.deal_of(prepared, game_index)
        seed = int(prepared.scenario["seed"])
        gi, gf, si, sf, ev = self.kernel().trace_game(
            np.int64(seed), np.int64(deal), self.max_trace_events, *arrays.kernel_args())
        return TracedGame(seed, deal, where, arrays, gi, gf, si, sf, ev)

    def trace_result(self, prepared: Prepared, game_index: int
                     ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(games, seats) rows of the traced game ``game_index``: equal to its batch rows."""
        t = self.traced(prepared, game_index)
        games, seats = self.frames(prepared, np.array([t.deal], np.int64), t.gi, t.gf,
                                   t.si, t.sf)
        return rotation.traced_rows(prepared, game_index, games, seats)

    def parameters(self) -> list[dict]:
        """Every parameter (:meth:`deepsim.rulesets.common.DataFile.parameters`): dotted
        path, default, type, bounds, the data file's note (the rule or gap) and the
        placeholder flag (:meth:`placeholder_paths`)."""
        return mark_placeholders(self.data.parameters(), self.placeholder_paths())

    def golden_cases(self) -> list:
        """The frozen scenarios of ``golden.yaml`` in the ruleset's folder
        (:func:`deepsim.rulesets.golden.load_cases`)."""
        from deepsim.rulesets.golden import load_cases
        return load_cases(self.folder / "golden.yaml", self.name)

    def warm_up(self, prepared: Prepared | None = None, *, trace: bool = False) -> None:
        """Compile (or load from numba's cache) the kernel entry points for the argument
        types of ``prepared`` (default: the first golden case), playing no batch game:
        ``play_games`` for zero games, and with ``trace`` ``trace_game`` (one game)."""
        if prepared is None:
            case = self.golden_cases()[0]
            prepared = self.prepare(dict(case.scenario), source="warm-up",
                                    overrides=list(case.overrides))
        k = self.kernel()
        args = prepared.compiled["arrays"].kernel_args()
        seed, zero = np.int64(prepared.scenario["seed"]), np.int64(0)
        k.play_games(seed, zero, zero, *args)
        if trace:
            k.trace_game(seed, zero, 1000, *args)

    # ---- the tables -----------------------------------------------------------------------------

    def frames(self, prepared: Prepared, index: np.ndarray, gi: np.ndarray, gf: np.ndarray,
               si: np.ndarray, sf: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The games and seats tables of the kernel's rows.

        Parameters
        ----------
        prepared : Prepared
        index : int64 array, shape (games,)
            The game index of each row.
        gi, gf, si, sf : ndarray
            The kernel's tables (:class:`KernelTables`).

        Returns
        -------
        games, seats : DataFrame
            ``game``, ``seed``, the int columns (``truncated`` bool, ``*_seat`` numbered
            from 1), the float columns, :meth:`games_extra`; ``game``, ``seat`` (from 1),
            ``players``, :meth:`faction_columns`, ``bot``, the int and float columns,
            ``fair`` (1/players), :meth:`seats_extra`. The seats of a game the kernel
            marks ``truncated`` (and the game's ``adjudicated`` column, if any, does not)
            get ``win`` = NaN (:data:`UNRESOLVED`, :func:`~deepsim.rulesets.common.
            mark_unresolved`), whatever the kernel wrote.
        """
        t = self.tables
        count = gi.shape[0]
        games = {"game": index, "seed": np.full(count, int(prepared.scenario["seed"]),
                                                np.int64)}
        g_int = np.ascontiguousarray(gi.T)
        g_flt = np.ascontiguousarray(gf.T)
        for j, c in enumerate(t.game_int):
            games[c] = g_int[j]
        games["truncated"] = games["truncated"].astype(bool)
        for c in t.seat_numbers:
            games[c] = common.seat_number(games[c])
        for j, c in enumerate(t.game_flt):
            games[c] = g_flt[j]
        if self.cooperative:
            games.update(self.coop_games(games["outcome"]))
            games["target"] = np.full(count, self.target_win_rate(prepared.params))
        games.update(self.games_extra(prepared, gi, gf))
        # copy=False: each column stays its own block (pandas would otherwise stack the
        # same-dtype columns into one 2-D block, a copy of the whole table)
        games_df = pd.DataFrame(games, copy=False)
        gidx, seat, players, s_int, s_flt = self.seat_rows(gi, si, sf)
        seats = {"game": index[gidx], "seat": common.seat_number(seat), "players": players}
        seats.update(self.faction_columns(prepared, s_int))
        seats["bot"] = common.bot_column(prepared.compiled["bot_labels"],
                                         s_int[t.seat_int.index("bot")])
        for j, c in enumerate(t.seat_int):
            if c not in t.coded:
                seats[c] = s_int[j]
        for j, c in enumerate(t.seat_flt):
            seats[c] = s_flt[j]
        seats["fair"] = 1.0 / players
        if self.cooperative:     # the party's result on every seat, the target as fair
            seats["win"] = games["won"][gidx].astype(np.float64)
            seats["fair"] = np.full(len(gidx), self.target_win_rate(prepared.params))
        seats.update(self.seats_extra(prepared, s_int, s_flt, seat))
        # a game a safety cap stopped is unresolved: win = NaN on its seats (UNRESOLVED)
        return games_df, common.mark_unresolved(games_df, pd.DataFrame(seats, copy=False))

    def coop_games(self, codes: np.ndarray) -> dict:
        """A co-operative game's ``outcome`` (categorical of :attr:`outcomes`) and ``won``
        (bool) columns from the kernel's outcome codes (int64, index into
        :attr:`outcomes`).

        Raises
        ------
        ValueError
            A code outside the declared outcomes (a kernel bug, never data).
        """
        names = list(self.outcomes)
        codes = np.asarray(codes, dtype=np.int64)
        if codes.size and (codes.min() < 0 or codes.max() >= len(names)):
            raise ValueError(f"the {self.name} kernel wrote outcome codes outside 0.."
                             f"{len(names) - 1} (declared outcomes: {names})")
        won = np.array([self.outcomes[n] == "won" for n in names], bool)
        return {"outcome": pd.Categorical.from_codes(codes, categories=names),
                "won": won[codes] if codes.size else np.zeros(0, bool)}

    def seat_rows(self, gi: np.ndarray, si: np.ndarray, sf: np.ndarray) -> tuple:
        """The seats table's rows: one per seat of each game, game by game, seats in order.

        Returns
        -------
        gidx : int64 array, shape (rows,)
            Each row's game (a row of ``gi``).
        seat : int64 array, shape (rows,)
            Its seat index from 0.
        players : int64 array, shape (rows,)
            Its game's player count.
        s_int, s_flt : 2-D arrays, shape (columns, rows)
            The seat columns, one contiguous row per column.

        Default: numpy over ``si``/``sf``; a game may give a compiled one.
        """
        t = self.tables
        count, max_seats = si.shape[0], si.shape[1]
        if t.players is not None:
            per_game = np.full(count, t.players, np.int64)
        else:
            per_game = gi[:, t.game_int.index("players")].astype(np.int64)
        gidx, seat = np.nonzero(np.arange(max_seats)[None, :] < per_game[:, None])
        s_int = np.ascontiguousarray(si[gidx, seat, :].T)
        s_flt = np.ascontiguousarray(sf[gidx, seat, :].T)
        return gidx, seat, per_game[gidx], s_int, s_flt

    def faction_columns(self, prepared: Prepared, s_int: np.ndarray) -> dict:
        """The seats table's categorical columns before ``bot`` (what a seat plays: a
        company, a side), from the coded int columns ``s_int`` (columns x rows). Default:
        none (the faction column is ``bot``)."""
        return {}

    def games_extra(self, prepared: Prepared, gi: np.ndarray, gf: np.ndarray) -> dict:
        """Further games columns after the float ones (categoricals of codes: the winner,
        the end). Default: none."""
        return {}

    def seats_extra(self, prepared: Prepared, s_int: np.ndarray, s_flt: np.ndarray,
                    seat: np.ndarray) -> dict:
        """Further seats columns after ``fair`` (``seat``: each row's seat index from 0).
        Default: none."""
        return {}


class OddsRuleset(RulesetInfo):
    """A game with ``deepsim odds`` questions and no kernel (nothing to play yet).

    It declares ``name`` and ``title`` and implements :meth:`odds` (its questions, options
    and answer) and :meth:`parameters` (every ``--set`` path of the data file the answers
    read). ``deepsim run``, ``trace``, ``check`` and the report refuse it with exit 2.
    """

    plays: ClassVar[bool] = False

    @abc.abstractmethod
    def odds(self) -> OddsBook:
        """The ruleset's questions (see :class:`OddsBook`)."""


class DataOddsRuleset(OddsRuleset):
    """An odds-only ruleset whose questions read one data file: it declares ``data`` (a
    :class:`deepsim.rulesets.common.DataFile`, its ``--set`` paths) and keeps its
    questions in ``odds_module`` (default ``.odds``, relative to the ruleset's package,
    imported on first use), whose ``BOOK`` is the :class:`OddsBook`."""

    data: ClassVar[Any]
    odds_module: ClassVar[str] = ".odds"

    REQUIRED: ClassVar[tuple[str, ...]] = (*OddsRuleset.REQUIRED, "data")

    def odds(self) -> OddsBook:
        """The ``BOOK`` of :attr:`odds_module`."""
        mod = sys.modules[type(self).__module__]
        package = mod.__package__ or type(self).__module__
        return importlib.import_module(self.odds_module, package).BOOK

    def parameters(self) -> list[dict]:
        """Every path of the data file a ``--set`` can change, with its default, type,
        bounds, note and placeholder flag."""
        return mark_placeholders(self.data.parameters(), self.placeholder_paths())


def mark_placeholders(rows: list[dict], paths: list[str]) -> list[dict]:
    """``rows`` of :meth:`RulesetInfo.parameters` with ``placeholder`` set: True when the
    row's path is one of ``paths`` or lies under one (``lineages.x.start_bag`` marks
    ``lineages.x.start_bag.amber``)."""
    marks = [str(p) for p in paths]
    return [{**row, "placeholder": any(row["path"] == p or row["path"].startswith(p + ".")
                                       for p in marks)} for row in rows]


def _metadata_problems(cls) -> list[str]:
    """What a ruleset class lacks or declares wrongly (empty when it keeps the contract)."""
    out = []
    for attr in cls.REQUIRED:
        if not hasattr(cls, attr):
            out.append(f"declares no {attr}")
    if out or not getattr(cls, "plays", False):
        return out
    cols = {**cls.games_columns}
    seats = {**cls.seats_columns}
    for table, declared, base in (("games", cols, BASE_GAMES_COLUMNS),
                                  ("seats", seats, BASE_SEATS_COLUMNS)):
        for c, t in base.items():
            if declared.get(c) != t:
                out.append(f"{table}_columns must declare {c!r} as {t} (got {declared.get(c)})")
        bad = [f"{c}: {t}" for c, t in declared.items() if t not in DTYPES]
        if bad:
            out.append(f"{table}_columns has dtypes outside {DTYPES}: {', '.join(bad)}")
    if seats.get(cls.faction_column) != "category":
        out.append(f"faction_column {cls.faction_column!r} must be a categorical seats column")
    missing = [g for g in cls.group_columns if g not in seats]
    if missing:
        out.append(f"group_columns {missing} are not declared seats columns")
    for g in (cls.faction_column, "bot", "seat"):
        if g not in cls.group_columns:
            out.append(f"group_columns must include {g!r}")
    if not cls.default_metrics:
        out.append("default_metrics is empty")
    caps = getattr(cls, "safety_caps", {}) or {}
    if not isinstance(caps, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                for k, v in caps.items()):
        out.append("safety_caps must map parameter paths to unit nouns (str: str)")
    if "adjudicated" in cols and cols["adjudicated"] != "bool":
        out.append(f"games_columns must declare 'adjudicated' as bool (got "
                   f"{cols['adjudicated']})")
    if "json" in cls.trace_formats and cls.trace_records is Ruleset.trace_records:
        out.append("trace_formats lists json but trace_records is not implemented")
    out += _coop_problems(cls, cols)
    if cls.target_rounds is not None and not cls.target_rounds > 0:
        out.append(f"target_rounds must be None or > 0 (got {cls.target_rounds})")
    return out


def _coop_problems(cls, cols: Mapping[str, str]) -> list[str]:
    """What a co-operative ruleset declares wrongly (:data:`COOPERATIVE`); a competitive one
    must declare no outcomes."""
    if not cls.cooperative:
        return (["outcomes are declared but cooperative is False"] if cls.outcomes else [])
    out = []
    for c, t in COOP_GAMES_COLUMNS.items():
        if cols.get(c) != t:
            out.append(f"a co-operative ruleset's games_columns must declare {c!r} as {t} "
                       f"(got {cols.get(c)})")
    kinds = dict(cls.outcomes or {})
    bad = {k: v for k, v in kinds.items() if v not in ("won", "lost")}
    if bad:
        out.append(f"outcomes must map each code to 'won' or 'lost' (got {bad})")
    if "won" not in kinds.values() or "lost" not in kinds.values():
        out.append("outcomes must have at least one 'won' and one 'lost' code")
    from deepsim.report.party import COOP_OPTIONS
    have = {o.key for o in cls.report_options}
    lack = [o.key for o in COOP_OPTIONS if o.key not in have]
    if lack:
        out.append(f"a co-operative ruleset's report_options include the shared "
                   f"deepsim.report.party.COOP_OPTIONS (missing {lack})")
    if not isinstance(cls.target_path, str) or not cls.target_path:
        out.append("a co-operative ruleset declares target_path (the data-file path of "
                   "its target win rate)")
    return out


def check_ruleset(obj: Any) -> list[str]:
    """Why ``obj`` is not a ruleset keeping the contract (empty list when it is): not an
    instance of :class:`Ruleset` or :class:`OddsRuleset`, or declared metadata missing."""
    if not isinstance(obj, (Ruleset, OddsRuleset)):
        return [(f"RULESET is a {type(obj).__name__}, not a deepsim.rulesets.base.Ruleset or "
                 "OddsRuleset")]
    return _metadata_problems(type(obj))

