"""The conformance suite: what every ruleset with a kernel must pass.

As OpenSpiel's random-simulation test does for its games, one suite checks any ruleset
through the contract of :mod:`deepsim.rulesets.base` alone, on a few hundred games of one of
its golden scenarios (the one with the most player counts):

- ``contract``: the declared metadata is complete and consistent (:func:`check_ruleset`);
- ``columns``: the games and seats tables carry every declared column with its dtype;
- ``invariants``: one games row per game (``game`` = its index, ``seed`` the scenario's),
  one seats row per seat (seats 1..n, ``players`` = n), ``win`` in [0, 1] and summing to
  1 over the seats of a game with a result and NaN on every seat of an unresolved one,
  ``fair`` in (0, 1] and summing to 1, no missing faction or bot; for a co-operative
  ruleset instead (:data:`deepsim.rulesets.base.COOPERATIVE`): every ``outcome`` a
  declared code, ``won`` as its declared kind, every seat's ``win`` the party's result
  and ``fair`` the target win rate;
- ``unresolved``: the contract's rule for a game a safety cap stops
  (:data:`deepsim.rulesets.base.UNRESOLVED`): each declared cap set to 1 stops games,
  every stopped game is ``truncated`` with ``win`` NaN on every seat (unless
  ``adjudicated``), the shared win shares, draw share and metrics leave them out and the
  summary counts them; a ruleset that declares no cap stops no game;
- ``threads``: one and two threads give the same tables;
- ``chunks``: any chunking gives the same tables as one chunk;
- ``seeds``: another seed gives other games, and a run's games are not copies;
- ``trace``: the traced game equals its batch rows, and its log is text;
- ``bots``: ``bot_data()`` is a :class:`deepsim.botdata.BotData` whose every style sets
  every knob within its bounds, and the run's baseline bots are baseline styles of it;
- ``parameters``: every parameter path is settable by ``--set`` (to its default value,
  which leaves the parameters' hash unchanged);
- ``bad_overrides``: an unknown path, a value of the wrong type and a malformed ``--set``
  (and for a co-operative ruleset a target win rate of 1.5 or 0) are answered with exit 2
  and no run folder;
- ``commands``: ``run``, ``report``, ``check``, ``compare``, ``sweep``, ``tune`` and
  ``trace`` run on a tiny run of the scenario.

Use it from pytest (``tests/rulesets/test_conformance.py``)::

    suite = Conformance(deepsim.rulesets.get("mygame"), tmp_path, cli=deepsim.cli.app)
    suite.run("invariants")          # raises AssertionError naming what broke

(``cli``: the command line in this process; without it the ``deepsim`` command runs in a
child process, as a user runs it)
or from the command line: ``deepsim conformance RULESET [CHECK ...]``.
"""

from __future__ import annotations

import itertools
import json
import math
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["CHECKS", "Conformance", "conformance_case"]

#: the checks, in the order :meth:`Conformance.run_all` runs them
CHECKS = ("contract", "columns", "invariants", "unresolved", "threads", "chunks", "seeds",
          "trace", "bots", "parameters", "bad_overrides", "commands")


def conformance_case(ruleset):
    """The golden case the suite plays: the one with the most player counts (the first of
    equals), so mixed player counts are exercised where the ruleset has them."""
    cases = ruleset.golden_cases()
    if not cases:
        raise AssertionError(f"{ruleset.name}: golden_cases() is empty; the contract asks "
                             "for at least one frozen scenario")

    def counts(case) -> int:
        p = case.scenario.get("players")
        return len(p) if isinstance(p, list) else 1

    return max(cases, key=counts)


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    """Rows by game (and seat); categorical columns as their labels (a chunk's categories
    may be only those it drew; the labels are the result)."""
    keys = ["game", "seat"] if "seat" in df.columns else ["game"]
    out = df.sort_values(keys, kind="stable").reset_index(drop=True)
    for c in out.columns:
        if (isinstance(out[c].dtype, pd.CategoricalDtype)
                or pd.api.types.is_string_dtype(out[c].dtype)):
            out[c] = out[c].astype(object)
    return out


def _dtype_ok(series: pd.Series, declared: str) -> bool:
    if declared == "category":
        return isinstance(series.dtype, pd.CategoricalDtype)
    return str(series.dtype) == declared


def _yaml_value(value: Any) -> str:
    """A parameter value as the text of a ``--set`` (JSON is YAML's flow style)."""
    return json.dumps(value)


class Conformance:
    """The conformance checks of one ruleset (see the module docstring).

    Parameters
    ----------
    ruleset : deepsim.rulesets.base.Ruleset
        The ruleset object (``deepsim.rulesets.get(name)``).
    workdir : Path
        An empty folder for the tiny runs (a pytest ``tmp_path``).
    games : int
        Games of the batch the table checks read (default 240).
    run_games : int
        Games of the tiny run the commands read (default 400).
    """

    def __init__(self, ruleset, workdir: Path | str, *, games: int = 240,
                 run_games: int = 400, cli: Any = None):
        self.rs = ruleset
        self.workdir = Path(workdir)
        self.games = games
        self.run_games = run_games
        #: the command line the ``commands`` and ``bad_overrides`` checks drive: a click
        #: command invoked in this process (``deepsim.cli.app``), or None: the ``deepsim``
        #: command run as a user runs it, in a child process
        self.cli = cli
        self.case = conformance_case(ruleset)

    # ---- shared material ---------------------------------------------------------------

    def prepare(self, seed: int | None = None, overrides: list[str] | None = None):
        sc = dict(self.case.scenario)
        if seed is not None:
            sc["seed"] = seed
        return self.rs.prepare(sc, source=f"<conformance {self.case.key}>",
                               overrides=[*self.case.overrides, *(overrides or [])])

    @cached_property
    def prepared(self):
        return self.prepare()

    @cached_property
    def batch(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        return self.rs.run_chunk(self.prepared, 0, self.games)

    @cached_property
    def scenario_file(self) -> Path:
        """The case's scenario (with its overrides) as a YAML file for the commands."""
        import yaml
        sc = {**self.case.scenario, "name": f"conformance-{self.rs.name}",
              "games": self.run_games, "chunk_size": max(1, self.run_games // 3)}
        if self.case.overrides:
            sc["overrides"] = {**sc.get("overrides", {}),
                               **dict(o.split("=", 1) for o in self.case.overrides)}
            sc["overrides"] = {k: yaml.safe_load(v) if isinstance(v, str) else v
                               for k, v in sc["overrides"].items()}
        self.workdir.mkdir(parents=True, exist_ok=True)
        path = self.workdir / f"conformance-{self.rs.name}.yaml"
        path.write_text(yaml.safe_dump(sc, sort_keys=False), encoding="utf-8")
        return path

    @cached_property
    def run_dir(self) -> Path:
        """A tiny run of the scenario, written by the runner (as ``deepsim run``)."""
        from deepsim import runner
        return runner.run(self.scenario_file, out=self.workdir / "run", force=True).out_dir

    def _cli(self, *args: str):
        """``deepsim ARGS``: its ``exit_code`` and ``output`` (stdout and stderr)."""
        argv = [str(a) for a in args]
        if self.cli is not None:
            from typer.testing import CliRunner
            return CliRunner().invoke(self.cli, argv, env={"COLUMNS": "100"})
        import os
        import subprocess
        import sys
        from types import SimpleNamespace
        proc = subprocess.run([sys.executable, "-c", "from deepsim.cli import entry; entry()",
                               *argv], capture_output=True, text=True, check=False,
                              env={**os.environ, "COLUMNS": "100"})
        return SimpleNamespace(exit_code=proc.returncode, output=proc.stdout + proc.stderr)

    # ---- the checks --------------------------------------------------------------------

    def run(self, check: str) -> None:
        """Run one check (a name of :data:`CHECKS`).

        Raises
        ------
        AssertionError
            Naming the ruleset and what broke.
        """
        if check not in CHECKS:
            raise ValueError(f"unknown check {check!r}; checks: {', '.join(CHECKS)}")
        getattr(self, f"check_{check}")()

    def run_all(self) -> dict[str, str | None]:
        """Every check: ``{check: None}`` when it passed, else its failure message."""
        out: dict[str, str | None] = {}
        for check in CHECKS:
            try:
                self.run(check)
                out[check] = None
            except AssertionError as exc:
                out[check] = str(exc) or "failed"
        return out

    def _fail(self, what: str) -> AssertionError:
        return AssertionError(f"{self.rs.name} ({self.case.key}): {what}")

    def check_contract(self) -> None:
        from deepsim.rulesets import get
        from deepsim.rulesets.base import check_ruleset
        problems = check_ruleset(self.rs)
        if problems:
            raise self._fail("; ".join(problems))
        if get(self.rs.name) is not self.rs and type(get(self.rs.name)) is not type(self.rs):
            raise self._fail("deepsim.rulesets.get(name) returns another object")
        if not self.rs.plays:
            raise self._fail("an odds-only ruleset has no kernel to check")

    def check_columns(self) -> None:
        games, seats = self.batch
        for table, frame, declared in (("games", games, self.rs.games_columns),
                                       ("seats", seats, self.rs.seats_columns)):
            missing = [c for c in declared if c not in frame.columns]
            if missing:
                raise self._fail(f"{table} table lacks declared columns {missing}")
            wrong = [f"{c}: {frame[c].dtype} (declared {t})" for c, t in declared.items()
                     if not _dtype_ok(frame[c], t)]
            if wrong:
                raise self._fail(f"{table} columns of another dtype than declared: "
                                 f"{'; '.join(wrong)}")

    def check_invariants(self) -> None:
        games, seats = self.batch
        n = self.games
        if len(games) != n or sorted(games["game"].tolist()) != list(range(n)):
            raise self._fail(f"games table: expected one row per game 0..{n - 1}, got "
                             f"{len(games)} rows")
        seed = int(self.prepared.scenario["seed"])
        if not (games["seed"] == seed).all():
            raise self._fail(f"games.seed is not the scenario's seed {seed}")
        per_game = seats.groupby("game")
        sizes = per_game.size()
        if sorted(sizes.index.tolist()) != list(range(n)):
            raise self._fail("seats table: some games have no seats rows")
        players = per_game["players"].agg(["min", "max"])
        if not ((players["min"] == players["max"]) & (players["min"] == sizes)).all():
            raise self._fail("seats.players differs from the number of seats rows of a game")
        seat_ok = per_game["seat"].apply(
            lambda s: sorted(s.tolist()) == list(range(1, len(s) + 1)))
        if not seat_ok.all():     # one numbering for users (rulesets.common.seat_number)
            raise self._fail("a game's seats are not numbered 1..players")
        if "players" in games.columns:
            g = games.set_index("game")["players"].sort_index()
            if not (g.to_numpy() == sizes.sort_index().to_numpy()).all():
                raise self._fail("games.players differs from the seats rows of a game")
        if self.rs.cooperative:
            self._check_party(games, seats)
            return
        self._check_results(games, seats)
        fair = seats["fair"].to_numpy(dtype=np.float64)
        if np.isnan(fair).any() or (fair <= 0).any() or (fair > 1).any():
            raise self._fail("seats.fair outside (0, 1] (or missing)")
        sums = pd.Series(fair).groupby(seats["game"].to_numpy()).sum()
        bad = sums[(sums - 1.0).abs() > 1e-9]
        if len(bad):
            raise self._fail(f"seats.fair does not sum to 1 over the seats of game "
                             f"{int(bad.index[0])} (sum {float(bad.iloc[0]):g})")
        for col in {self.rs.faction_column, "bot"}:
            if seats[col].isna().any():
                raise self._fail(f"seats.{col} has missing values")

    def _check_party(self, games: pd.DataFrame, seats: pd.DataFrame) -> None:
        """A co-operative game's rows (:data:`deepsim.rulesets.base.COOPERATIVE`): every
        ``outcome`` a declared code, ``won`` exactly for the codes declared ``won``, every
        seat's ``win`` the party's result (1.0 or 0.0, NaN when unresolved) and ``fair``
        the target win rate of the parameters."""
        from deepsim.stats import unresolved_flags
        declared = dict(self.rs.outcomes)
        got = set(map(str, games["outcome"].dropna().unique()))
        if games["outcome"].isna().any() or not got <= set(declared):
            raise self._fail(f"games.outcome has codes the ruleset does not declare: "
                             f"{sorted(got - set(declared))} (declared {sorted(declared)})")
        want = games["outcome"].astype(str).map(lambda c: declared[c] == "won")
        if not (want.to_numpy(dtype=bool) == games["won"].to_numpy(dtype=bool)).all():
            raise self._fail("games.won differs from the declared kind of its outcome")
        open_ = unresolved_flags(games)
        result = np.where(open_, np.nan, games["won"].to_numpy(dtype=np.float64))
        per = pd.Series(result, index=games["game"].to_numpy())
        expect = per.reindex(seats["game"].to_numpy()).to_numpy()
        win = seats["win"].to_numpy(dtype=np.float64)
        same = (win == expect) | (np.isnan(win) & np.isnan(expect))
        if not same.all():
            g = int(seats["game"].to_numpy()[~same][0])
            raise self._fail(f"seats.win of game {g} is not the party's result on every "
                             "seat (1.0 won, 0.0 lost, NaN unresolved)")
        target = self.rs.target_win_rate(self.prepared.params)
        fair = seats["fair"].to_numpy(dtype=np.float64)
        if not np.allclose(fair, target, rtol=0, atol=1e-12):
            raise self._fail(f"seats.fair is not the target win rate {target:g} on every "
                             "seat of a co-operative game")
        for col in {self.rs.faction_column, "bot"}:
            if seats[col].isna().any():
                raise self._fail(f"seats.{col} has missing values")

    def _check_results(self, games: pd.DataFrame, seats: pd.DataFrame) -> None:
        """``win`` per the contract: NaN on every seat of an unresolved game (truncated, not
        adjudicated), else in [0, 1] and summing to 1 over the game's seats."""
        from deepsim.stats import unresolved_flags
        flags = pd.Series(unresolved_flags(games), index=games["game"].to_numpy())
        open_ = flags.reindex(seats["game"].to_numpy()).to_numpy(dtype=bool)
        win = seats["win"].to_numpy(dtype=np.float64)
        if not np.isnan(win[open_]).all():
            g = int(seats["game"].to_numpy()[open_ & ~np.isnan(win)][0])
            raise self._fail(f"game {g} is unresolved (truncated, not adjudicated) but a seat "
                             "has a win; the contract gives every seat of it win = NaN "
                             "(deepsim.rulesets.common.mark_unresolved)")
        w = win[~open_]
        if np.isnan(w).any():
            g = int(seats["game"].to_numpy()[~open_ & np.isnan(win)][0])
            raise self._fail(f"seats.win is NaN in game {g}, which is not unresolved (only a "
                             "truncated game without an adjudication has no result)")
        if (w < 0).any() or (w > 1).any():
            raise self._fail("seats.win outside [0, 1]")
        sums = pd.Series(w).groupby(seats["game"].to_numpy()[~open_]).sum()
        bad = sums[(sums - 1.0).abs() > 1e-9]
        if len(bad):
            raise self._fail(f"seats.win does not sum to 1 over the seats of game "
                             f"{int(bad.index[0])} (sum {float(bad.iloc[0]):g})")

    def check_unresolved(self) -> None:
        from deepsim import stats
        from deepsim.errors import InputError
        from deepsim.measure import parse_metric_spec
        from deepsim.params import safety_cap_values
        from deepsim.report.metrics import draw_flags, win_share_table

        caps = dict(self.rs.safety_caps)
        games, _ = self.batch
        if not caps:
            if games["truncated"].any():
                raise self._fail("a game is truncated but the ruleset declares no "
                                 "safety_caps (a cap stopped it: name the cap)")
            return
        names = {r["path"] for r in self.rs.parameters()}
        for path in caps:
            if path not in names:
                raise self._fail(f"safety_caps names {path!r}, which is not a parameter")
            n = min(self.games, 60)
            prep = self.prepare(overrides=[f"{path}=1"])
            listed = safety_cap_values(self.rs, prep.params)
            if not any(c["path"] == path and c["value"] == 1 and c["invented"]
                       for c in listed):
                raise self._fail(f"safety_cap_values does not report {path} = 1 as invented")
            g, s = self.rs.run_chunk(prep, 0, n)
            stopped = g["truncated"].to_numpy().astype(bool)
            if not stopped.any():
                raise self._fail(f"--set {path}=1 stops no game: is it a safety cap?")
            self._check_results(g, s)
            flags = stats.unresolved_flags(g)
            ov = stats.game_overview(g)
            if ov["unresolved"] != int(flags.sum()) or ov["truncated"] != int(stopped.sum()):
                raise self._fail("game_overview miscounts the unresolved games")
            if flags.any():
                kept = stats.resolved_seats(s)
                if np.isnan(kept["win"].to_numpy(dtype=np.float64)).any():
                    raise self._fail("resolved_seats keeps a seat of an unresolved game")
                ws = stats.win_shares(s, by=self.rs.faction_column)
                if int(ws["games"].sum()) != len(kept):
                    raise self._fail("win_shares counts seats of unresolved games")
                table = win_share_table(s, self.rs.faction_column)
                if len(table) and not np.isfinite(table["wins"].to_numpy(float)).all():
                    raise self._fail("the report's win share table reads a NaN win")
                if {"winner_side", "n_winners"} & set(g.columns) and draw_flags(g)[flags].any():
                    raise self._fail("an unresolved game is counted as a draw")
                from deepsim.measure.spec import expand, universe_from_frames
                from deepsim.measure.values import estimate_obs, measure
                uni = universe_from_frames(g, s, sorted({int(p) for p in s["players"]}),
                                           self.rs.group_columns, self.rs.faction_column)
                for spec in ("win_share", "faction_spread", "draw_share"):
                    sel = parse_metric_spec(spec)
                    try:
                        inst = expand([sel], uni, key="--metric")[0]
                    except InputError:  # a metric this ruleset's tables do not have
                        continue
                    est = estimate_obs(measure(inst, g.sort_values("game"), s), 0.05)
                    if len(kept) and not math.isfinite(est.value):
                        raise self._fail(f"the metric language's {spec} reads a NaN win "
                                         "or counts an unresolved game")

    def check_threads(self) -> None:
        import numba
        old = numba.get_num_threads()
        two = min(2, numba.config.NUMBA_NUM_THREADS)
        try:
            numba.set_num_threads(1)
            a = self.rs.run_chunk(self.prepared, 0, self.games)
            numba.set_num_threads(two)
            b = self.rs.run_chunk(self.prepared, 0, self.games)
        finally:
            numba.set_num_threads(old)
        for x, y, table in ((a[0], b[0], "games"), (a[1], b[1], "seats")):
            try:
                pd.testing.assert_frame_equal(_sorted(x), _sorted(y))
            except AssertionError as exc:
                raise self._fail(f"1 and {two} threads give different {table}: "
                                 f"{str(exc).splitlines()[0]}") from None

    def check_chunks(self) -> None:
        games, seats = self.batch
        n = self.games
        cuts = [0, 1, n // 3, n // 3 + 7, n]
        parts = [self.rs.run_chunk(self.prepared, a, b - a) for a, b in itertools.pairwise(cuts)
                 if b > a]
        g = pd.concat([p[0] for p in parts], ignore_index=True)
        s = pd.concat([p[1] for p in parts], ignore_index=True)
        for x, y, table in ((games, g, "games"), (seats, s, "seats")):
            try:
                pd.testing.assert_frame_equal(_sorted(x), _sorted(y))
            except AssertionError as exc:
                raise self._fail(f"chunks {cuts} give other {table} than one chunk: "
                                 f"{str(exc).splitlines()[0]}") from None

    def check_seeds(self) -> None:
        games, seats = self.batch
        other = int(self.prepared.scenario["seed"]) + 1
        _, s2 = self.rs.run_chunk(self.prepare(seed=other), 0, self.games)
        num = [c for c in seats.columns if c not in ("game", "seat", "players", "fair")
               and pd.api.types.is_numeric_dtype(seats[c])]
        if _sorted(seats)[num].equals(_sorted(s2)[num]):
            raise self._fail(f"seeds {other - 1} and {other} give the same seats table")
        cols = [c for c in games.columns if c not in ("game", "seed", "deal", "rotation")
                and pd.api.types.is_numeric_dtype(games[c])]
        rows = games[cols].astype("float64").round(9)
        distinct = len(rows.drop_duplicates()) / max(len(rows), 1)
        if distinct < 0.5:
            raise self._fail(f"only {distinct:.0%} of a run's games differ from each other "
                             "(the game index does not reach the random stream?)")

    def check_trace(self) -> None:
        games, seats = self.batch
        for k in sorted({0, self.games // 2, self.games - 1}):
            tg, ts = self.rs.trace_result(self.prepared, k)
            bg = games[games["game"] == k].reset_index(drop=True)
            bs = seats[seats["game"] == k].reset_index(drop=True)
            for x, y, table in ((tg, bg, "games"), (ts, bs, "seats")):
                try:
                    pd.testing.assert_frame_equal(_sorted(x), _sorted(y))
                except AssertionError as exc:
                    raise self._fail(f"the trace of game {k} differs from its batch {table} "
                                     f"row: {str(exc).splitlines()[0]}") from None
            lines = self.rs.trace(self.prepared, k)
            if not lines or not all(isinstance(x, str) for x in lines):
                raise self._fail(f"trace of game {k} is not a list of text lines")

    def check_bots(self) -> None:
        from deepsim.botdata import BotData
        bd = self.rs.bot_data()
        if not isinstance(bd, BotData):
            raise self._fail(f"bot_data() returns a {type(bd).__name__}, not a "
                             "deepsim.botdata.BotData")
        if not bd.knobs or not bd.styles:
            raise self._fail("bot_data() has no knobs or no styles")
        for style in bd.styles.values():
            if set(style.knobs) != set(bd.knobs):
                raise self._fail(f"style {style.name!r} does not set every knob "
                                 f"(missing {sorted(set(bd.knobs) - set(style.knobs))})")
            for k, v in style.knobs.items():
                problem = bd.knobs[k].problem(v)
                if problem:
                    raise self._fail(f"style {style.name!r}: {problem}")
        extra = set(self.prepared.baseline_bots) - set(bd.baseline_styles)
        if extra:
            raise self._fail(f"Prepared.baseline_bots names {sorted(extra)}, which bot_data() "
                             "does not mark baseline")

    def check_parameters(self) -> None:
        from deepsim.errors import InputError
        rows = self.rs.parameters()
        if not rows:
            raise self._fail("parameters() lists no parameter")
        base = self.prepared.params_hash
        sets = [f"{r['path']}={_yaml_value(r['default'])}" for r in rows]
        try:
            p = self.prepare(overrides=sets)
            ok = p.params_hash == base
        except InputError:
            ok = False
        if ok:
            return
        for s in sets:          # one at a time, to name the path that is not settable
            try:
                p = self.prepare(overrides=[s])
            except InputError as exc:
                raise self._fail(f"--set {s} (a parameter at its default) is refused: "
                                 f"{exc}") from None
            if p.params_hash != base:
                raise self._fail(f"--set {s} (a parameter at its default) changes the "
                                 "parameters' hash")
        raise self._fail("every --set alone is accepted, but not all of them at once")

    def check_bad_overrides(self) -> None:
        rows = self.rs.parameters()
        number = next((r for r in rows if isinstance(r["default"], (int, float))
                       and not isinstance(r["default"], bool)), None)
        bad = ["--set", "no_such_parameter.anywhere=1"], ["--set", "no_equals_sign"]
        if number is not None:
            bad += (["--set", f"{number['path']}=not-a-number"],)
        if self.rs.cooperative:        # a target win rate is a share strictly inside (0, 1)
            bad += (["--set", f"{self.rs.target_path}=1.5"],
                    ["--set", f"{self.rs.target_path}=0"])
        for i, args in enumerate(bad):
            out = self.workdir / f"bad-{i}"
            res = self._cli("run", self.scenario_file, "--games", "5", "--out", out,
                            "--quiet", "--no-report", *args)
            if res.exit_code != 2 or "error:" not in res.output:
                raise self._fail(f"deepsim run {' '.join(args)}: exit {res.exit_code}, "
                                 f"expected 2 and an error line; output: {res.output[-300:]}")
            if out.exists():
                raise self._fail(f"deepsim run {' '.join(args)} made the run folder")

    def _numeric_path(self) -> tuple[str, str, str]:
        """A parameter a sweep and a tune can move: (path, a value list, a search range)."""
        from deepsim.errors import InputError
        for row in self.rs.parameters():
            d = row["default"]
            if isinstance(d, bool) or not isinstance(d, (int, float)):
                continue
            hi = d + 1 if isinstance(d, int) else (d * 1.5 if d > 0 else d + 0.5)
            try:
                self.prepare(overrides=[f"{row['path']}={hi!r}"])
            except InputError:
                continue
            return row["path"], f"{d!r},{hi!r}", f"{d!r}:{hi!r}"
        raise self._fail("no numeric parameter a sweep or tune can move")

    def check_commands(self) -> None:
        from deepsim.gate.compare import compare_runs
        from deepsim.reporting import report_runs
        from deepsim.tune.settings import Settings
        from deepsim.tune.sweep import run_sweep
        from deepsim.tune.tune import run_tune

        run = self.run_dir
        rep, paths = report_runs([run], out_dir=self.workdir / "report", formats=("md",))
        keys = {s.key for s in rep.sections}
        need = {"party", "classes", "method"} if self.rs.cooperative else {"win-share",
                                                                           "method"}
        if not need <= keys or not paths[0].exists():
            raise self._fail(f"the report lacks the sections {sorted(need - keys)} ({keys})")
        broken = [s.key for s in rep.sections if s.missing]
        if broken:
            raise self._fail(f"report sections not computed on a run of this ruleset: "
                             f"{broken}")
        metrics = list(self.rs.default_metrics)
        if any(m == "length_error" for m in metrics) and self.rs.target_rounds is None:
            raise self._fail("default_metrics has length_error but target_rounds is None")
        # check: the default metrics as expectations that cannot fail (below the top of
        # each metric's range)
        import yaml

        from deepsim.measure.names import ALIASES, METRICS
        sc = yaml.safe_load(self.scenario_file.read_text())
        tops = {m: METRICS[ALIASES.get(m, m)].limits[1] if ALIASES.get(m, m) in METRICS
                else math.inf for m in metrics}
        sc["expect"] = [{"metric": m, "below": tops[m] if math.isfinite(tops[m]) else 1e12}
                        for m in metrics]
        gate = self.workdir / "gate.yaml"
        gate.write_text(yaml.safe_dump(sc, sort_keys=False), encoding="utf-8")
        res = self._cli("check", gate, "--games", str(self.run_games))
        if res.exit_code != 0:
            raise self._fail(f"deepsim check on the default metrics: exit {res.exit_code}: "
                             f"{res.output[-400:]}")
        cmp = compare_runs(run, run, metric=metrics[0])
        if not cmp.factions or (cmp.diff is not None and cmp.diff.est != 0):
            raise self._fail("compare of a run with itself is not a zero change")
        res = self._cli("compare", run, run, "--metric", metrics[0])
        if res.exit_code != 0:
            raise self._fail(f"deepsim compare RUN RUN: exit {res.exit_code}: "
                             f"{res.output[-400:]}")
        path, values, span = self._numeric_path()
        sw = run_sweep(self.scenario_file, [f"{path}={values}"],
                       settings=Settings(games=60, out=self.workdir / "sweep", force=True,
                                         make_plots=False))
        got = set(sw.frame.loc[sw.frame["point"] >= 0, "metric"])
        if len(set(sw.frame["point"])) < 2 or got != {m.label for m in sw.metrics}:
            raise self._fail(f"sweep over {path}: points {sorted(set(sw.frame['point']))}, "
                             f"metrics {sorted(got)}")
        tn = run_tune(self.scenario_file, [f"{path}={span}"], trials=2, confirm_games=0,
                      report=False, settings=Settings(games=60, make_plots=False,
                                                      out=self.workdir / "tune", force=True))
        values = tn.trials["value"].to_numpy(dtype=np.float64)
        if len(values) < 2 or not np.isfinite(values).all() or not math.isfinite(tn.best_value):
            raise self._fail(f"tune over {path}: trials without a finite objective value")
        res = self._cli("trace", run, "--game", "1")
        if res.exit_code != 0 or not res.output.strip():
            raise self._fail(f"deepsim trace RUN --game 1: exit {res.exit_code}")
