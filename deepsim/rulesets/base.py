"""The ruleset contract: everything a game's folder gives deepsim, and all deepsim asks of it.

A ruleset is a package ``deepsim/rulesets/<name>/`` whose ``__init__`` exposes ``RULESET``,
an instance of a subclass of

- :class:`Ruleset`: a game deepsim plays (a kernel, bots, data). The runner, output,
  report, gate (``check``/``compare``), ``sweep``/``tune``, bench and API talk to it only
  through the attributes and methods below; or
- :class:`OddsRuleset`: a game whose dice deepsim only answers questions about
  (``deepsim odds``), with no kernel. ``deepsim run`` refuses it (exit 2) and ``deepsim
  rulesets`` lists it as odds-only.

Shared code never imports a ruleset's folder by name and never falls back on a missing
attribute: a subclass that leaves out a piece of declared metadata is refused when the
registry loads it (:func:`check_ruleset` says which), and an abstract method it does not
implement keeps it from being instantiated. So a new game is a new folder: copy the
smallest ruleset, fill in every entry point, declare its metadata, and the conformance
suite (:mod:`deepsim.testing.conformance`) tells what does not hold.

Shared plumbing the game folders use (data file and overrides, strict schemas, bot label
columns) is in :mod:`deepsim.rulesets.common`; bot styles and knob bounds in
:mod:`deepsim.botdata`.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

__all__ = [
    "BASE_GAMES_COLUMNS", "BASE_SEATS_COLUMNS", "DTYPES", "UNRESOLVED", "OddsBook",
    "OddsOption", "OddsRuleset", "Prepared", "ReportOption", "Ruleset", "RulesetInfo",
    "cap_text", "check_ruleset", "param_value", "plural", "safety_cap_values",
]

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
class ReportOption:
    """A setting of a ruleset's own report sections or claims (``deepsim report --option
    KEY=VALUE``), printed with every report in its Method section.

    ``key`` is the dotted key a user types, ``attr`` the attribute name the ruleset's code
    reads (``ctx.config.attr``), ``default`` its value when not given, ``meaning`` one line
    on what it decides.
    """

    key: str
    attr: str
    default: float
    meaning: str


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
            (text) and ``section`` (the rulebook section or gap it implements).
        """

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

    **Optional hooks** (defaults here): :meth:`report_sections`, :meth:`report_claims`,
    :meth:`report_roles`, :meth:`method_text`, :meth:`language_rows`, :meth:`odds`,
    :meth:`bench_scenario` / :meth:`bench_players`, and ``warm_up`` with
    ``compile_estimate_s`` (the kernel compiled ahead of the games).

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

    # Optional: ``trace_records(prepared, game_index) -> list[dict]`` gives the same replay
    # as records for tools (``deepsim trace --format json``, one JSON object per line): a
    # ``type: header`` record with the seats, one ``type: event`` record per event (round,
    # seat, event, rule, named values), a ``type: result`` record. Without it
    # ``--format json`` is refused (exit 2).

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
        """Frozen scenarios whose results ``tests/test_golden.py`` pins by digest.

        Returns a list of :class:`deepsim.testing.golden.GoldenCase` (usually read from the
        ruleset's ``golden.yaml`` with :func:`deepsim.testing.golden.load_cases`); at least
        one.
        """

    # ---- optional hooks ---------------------------------------------------------------------

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
        return None

    def language_rows(self, ctx, shared: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The Method section's table of the report's numbers in the metric language, as
        rows ``(section, metrics)``, given the shared sections' rows (win share, seat
        advantage, game length, bot styles). Default: those, the draw share and the games
        a safety cap left unresolved."""
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

    #: ``warm_up(prepared=None, *, trace=False)``: compile (or load from numba's cache) the
    #: kernels ``run_chunk`` calls for the argument types of ``prepared`` (default: the
    #: ruleset's own default scenario), and ``trace``'s too with ``trace``, playing at most a
    #: game or two. A ruleset that defines it has its kernels compiled before its games
    #: start, behind a status line, with the compile time kept out of games/s, and
    #: ``deepsim warmup`` compiles them ahead of time (:mod:`deepsim.jitcache`). None (the
    #: default): the kernel compiles on its first call.
    warm_up: ClassVar[Callable[..., None] | None] = None


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
    if cls.target_rounds is not None and not cls.target_rounds > 0:
        out.append(f"target_rounds must be None or > 0 (got {cls.target_rounds})")
    return out


def param_value(params: Mapping[str, Any], path: str) -> Any:
    """The value at dotted ``path`` of a nested parameters mapping (``Prepared.params``),
    or of a flat one keyed by dotted paths (a report's ``RunData.params``); None when
    absent."""
    if path in params:
        return params[path]
    node: Any = params
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def safety_cap_values(ruleset: Any, params: Mapping[str, Any]) -> list[dict]:
    """Each safety cap of ``ruleset`` (:attr:`Ruleset.safety_caps`) with its value in
    ``params``: ``[{"path", "value", "unit", "invented": True}]`` (a cap is never a rule:
    the value is invented data), in declaration order; caps absent from ``params`` are left
    out. What ``run.json`` records as ``safety_caps`` and every banner shows."""
    out = []
    for path, unit in dict(getattr(ruleset, "safety_caps", {}) or {}).items():
        value = param_value(params, path)
        if value is not None:
            out.append({"path": path, "value": value, "unit": unit, "invented": True})
    return out


def cap_text(caps: Sequence[Mapping[str, Any]]) -> str:
    """``the 1,000 player-turn cap (end.max_turns)``: the caps for a sentence ('' when
    none)."""
    bits = []
    for c in caps:
        v = c.get("value")
        num = f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)
        bits.append(f"the {num} {c.get('unit', '')} cap ({c.get('path')})".replace("  ", " "))
    return " / ".join(bits)


def check_ruleset(obj: Any) -> list[str]:
    """Why ``obj`` is not a ruleset keeping the contract (empty list when it is): not an
    instance of :class:`Ruleset` or :class:`OddsRuleset`, or declared metadata missing."""
    if not isinstance(obj, (Ruleset, OddsRuleset)):
        return [(f"RULESET is a {type(obj).__name__}, not a deepsim.rulesets.base.Ruleset or "
                 "OddsRuleset")]
    return _metadata_problems(type(obj))
    # Optional (deepsim respond, the faction_bots scenario key):
    # ``run_games(prepared, games) -> (games, seats)`` plays the games of index ``games``
    # (int64 array, ascending): the rows ``run_chunk`` gives for the same games (respond
    # plays only the games a faction sits in; without it, every game of a range).
    # ``factions(prepared=None) -> list[str]``: every value of the faction column in the
    # kernel's faction-code order (the names ``faction_bots`` and ``respond --faction``
    # accept). DEEPFALL, Atlantis and Abyss have both.

