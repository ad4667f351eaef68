"""The report sections every ruleset shares: win share per faction, seat advantage, bot
styles; the tables of the Method section; the provenance footer of the plots.

A ruleset's :meth:`~deepsim.rulesets.base.Ruleset.report_sections` lists its sections as
``(key, title, build)``; :func:`standard` gives the shared ones, which a ruleset may list
beside its own (or replace with its own, as a ruleset with more to say per faction does).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from deepsim.errors import InputError
from deepsim.report import metrics as M
from deepsim.report import plots
from deepsim.report import viability as V
from deepsim.report.context import Context
from deepsim.report.fmt import ci, integer, length_cells, num, pci, pct
from deepsim.report.load import RunData
from deepsim.report.model import Figure, Section, Table
from deepsim.report.render import compress_paths
from deepsim.safeload import load_yaml

__all__ = [
    "bot_styles",
    "faction_share",
    "first_last_table",
    "footer",
    "headline",
    "language_table",
    "length_table",
    "method_settings",
    "seat_advantage",
    "standard",
    "ws_display",
]


def footer(run: RunData) -> str:
    """Short provenance line for plots."""
    ph = ", ".join(p.split(" (")[0] for p in compress_paths(run.placeholders)) or "none"
    return (f"{run.scenario_name}: seed {run.seed}, {run.n_games:,} games, params "
            f"{run.params_hash[:12]}; placeholder data: {ph}")


def ws_display(ws: pd.DataFrame, by: str, label: str) -> pd.DataFrame:
    """A win share table (:func:`deepsim.report.metrics.win_share_table`) for print."""
    return pd.DataFrame({
        label: ws[by], "Seat-games": ws["games"].map(integer),
        "Win share": ws["win_share"].map(pct),
        "95% CI": [pci(a, b) for a, b in zip(ws["ci_low"], ws["ci_high"], strict=True)],
        "Fair share": ws["fair_share"].map(pct),
        "x fair": ws["ratio"].map(lambda v: num(v)),
        "x fair 95% CI": [ci(a, b) for a, b in zip(ws["ratio_low"], ws["ratio_high"],
                                                   strict=True)],
        "Holm test": ws["test"], "Verdict": ws["verdict"]})


def method_text(c) -> str:
    """The viability rule and the Holm test, as the win share sections state them."""
    return (f"**Verdict** (viability rule): *not viable* when the interval's upper end is "
            f"below {c.min_ratio:g} x fair share; *too strong* when its lower end is above "
            f"{c.max_ratio:g} x fair share; otherwise *inconclusive* when the interval "
            f"is wider than {c.max_rel_width:g} x fair share; otherwise *viable*.")


def headline(ctx: Context) -> Section:
    """The answer first: for the faction column and each other group column of a faction
    (DEEPFALL: companies, Lineages, Callings) the strongest and weakest group by win/fair,
    with its 95% Wilson interval on that scale and its verdict (both ends: *too strong*,
    *not viable*), how many groups sit at either end, and the field of bots the verdicts
    come from (baseline bots left out and counted)."""
    c = ctx.config
    s = Section("headline", "Headline")
    seats = ctx.balance_seats
    rows, answer = [], []
    for col, noun in ctx.rs.headline_groups():
        if col not in seats.columns:
            continue
        ws = ctx.win_shares(col)
        if len(ws) < 2:
            continue
        ws = ws.sort_values(["ratio", col], ascending=[False, True], kind="stable")
        counts = ws["verdict"].value_counts()
        plural = (ctx.rs.factions_label if col == ctx.rs.faction_column
                  else f"{noun.capitalize()}s")
        for verdict, order in (("too strong", False), ("not viable", True)):
            hit = ws[ws["verdict"] == verdict].sort_values("ratio", ascending=order)
            if len(hit):
                names = [f"{r[col]} {r['ratio']:.2f}x" for _, r in hit.head(6).iterrows()]
                more = f" and {len(hit) - 6} more" if len(hit) > 6 else ""
                answer.append(f"{len(hit)} of {len(ws)} {plural} {verdict} "
                              f"({', '.join(names)}{more})")
        for end, r in (("strongest", ws.iloc[0]), ("weakest", ws.iloc[-1])):
            rows.append({"Groups": f"{noun.capitalize()} ({len(ws)}: "
                                   f"{counts.get('too strong', 0)} too strong, "
                                   f"{counts.get('not viable', 0)} not viable)"
                                   if end == "strongest" else "",
                         "": end, "Name": str(r[col]), "x fair": num(r["ratio"]),
                         "95% CI": ci(r["ratio_low"], r["ratio_high"]),
                         "Verdict": r["verdict"]})
    if rows:
        s.tables.append(Table("", pd.DataFrame(rows)))
    s.paragraphs.append("**" + ("; ".join(answer) if answer else
                                "No group is too strong or not viable") + ".**")
    s.paragraphs.append("Win share over fair share with its 95% Wilson interval on that "
                        "scale. " + V.rule_text(c.lines, markdown=True) + ".")
    if "bot" in seats.columns and not seats.empty:
        share = seats["bot"].astype(str).value_counts(normalize=True)
        field = ", ".join(f"{b} {100 * v:.0f}%" for b, v in share.items())
        note = ctx.baseline_note()
        s.paragraphs.append(f"Field: {field} of the seat-games judged"
                            + (f"; {note}." if note else "."))
        sure = V.how_sure(seats, c.lines)
        if sure:
            s.paragraphs.append(" ".join(f"{t}." if not t.endswith(".") else t
                                         for t in sure))
    line = unresolved_text(ctx.primary)
    if line:
        s.paragraphs.append(line)
    return s


def unresolved_text(run: RunData) -> str:
    """The headline's account of the games a safety cap stopped: how many, at which cap,
    left out of the win shares (and how many an adjudication decided); a warning above
    :data:`deepsim.stats.UNRESOLVED_WARN`. '' for a run without a ``truncated`` column."""
    from deepsim import stats
    from deepsim.params import cap_text

    ov = stats.game_overview(run.games)
    if ov["unresolved"] is None:
        return ""
    n, share = ov["unresolved"], ov["unresolved_share"] or 0.0
    where = cap_text(run.safety_caps) or "a safety cap"
    text = (f"**Unresolved: {100 * share:.1f}% of games** ({n:,} of {ov['games']:,}) stopped "
            f"at {where}, an engine limit the rulebook does not give: no result, left out of "
            "every win share, ratio and draw share.")
    adjudicated = (ov["truncated"] or 0) - n
    if adjudicated:
        text += (f" {adjudicated:,} more games stopped there were adjudicated by the "
                 "ruleset's documented opt-in rule and count with that result.")
    if share > stats.UNRESOLVED_WARN:
        text += (f" **Warning:** more than {100 * stats.UNRESOLVED_WARN:g}% of games are "
                 "unresolved, so the win shares describe only the games that ended, which "
                 "may not be a random sample of them.")
    return text


def faction_share(ctx: Context, foot: str) -> Section:
    """Win share per faction of any ruleset (its ``faction_column``, named by its noun)."""
    c = ctx.config
    rs = ctx.rs
    by, noun, nouns = rs.faction_column, rs.faction_label, rs.factions_label
    s = Section("win-share", f"Win share per {noun}")
    ws = ctx.win_shares(by)
    s.paragraphs.append(
        f"Win share = wins (a tie or draw shared by k seats counts 1/k) / seat-games, with its "
        f"95% Wilson interval. Fair share = the mean of the `fair` column over the {noun}'s "
        f"seat-games (1/players when every seat may win). **Verdict** (viability rule): *not "
        f"viable* when the interval's upper end is below {c.min_ratio:g} x fair share; *too "
        f"strong* when its lower end is above {c.max_ratio:g} x fair share; otherwise *inconclusive* when the interval is wider than {c.max_rel_width:g} x fair "
        f"share; otherwise *viable*. **Holm test**: one-sided exact binomial tests for over "
        f"and under fair share, Holm-corrected over all 2 x {len(ws)} tests at {c.alpha:g}."
        + ctx.baseline_text())
    counts = ws["verdict"].value_counts()
    s.paragraphs.append(
        f"{counts.get('viable', 0)} of {len(ws)} {nouns} viable, "
        f"{counts.get('too strong', 0)} too strong, {counts.get('not viable', 0)} not viable, {counts.get('inconclusive', 0)} "
        f"inconclusive; {int((ws['test'] == 'over').sum())} win significantly more than "
        f"their fair share, {int((ws['test'] == 'under').sum())} significantly less.")
    s.figures.append(Figure("win_share_factions.png", plots.company_forest(
        ws, by, min_ratio=c.min_ratio, max_ratio=c.max_ratio, title=f"Win share / fair share per {noun}",
        footer=foot), f"Each {noun}'s win share over its fair share with the 95% interval; "
                      "colour = verdict."))
    s.tables.append(Table(f"{nouns.capitalize()} ({len(ws)})",
                          ws_display(ws, by, noun.capitalize())))
    return s


def _seat_faction_note(ctx: Context) -> list[str]:
    """Whether seat and faction coincide (fixed seats) or are separated (rotated seats)."""
    seats = ctx.primary.seats
    col, noun = ctx.rs.faction_column, ctx.rs.faction_label
    if "rotation" in seats.columns:
        n = int(seats["rotation"].max()) + 1 if len(seats) else 0
        text = (f"Seats rotate (`rotate_seats`): each deal is played in all {n} rotations of "
                f"the seat order on the same dungeon and dice stream, so every {noun} sits in "
                f"every seat equally often and this table measures seat advantage apart from "
                f"{noun} strength. (Its Wilson intervals count the {n} rotations of a deal as "
                "independent games; `deepsim check`, `compare` and `sweep` treat the deal as "
                "the unit.)")
        return [text]
    if col not in seats.columns or not len(seats):
        return []
    per_seat = seats.groupby(["players", "seat"], observed=True)[col].nunique()
    if per_seat.max() != 1 or seats[col].nunique() < 2:
        return []
    first = seats.drop_duplicates(["players", "seat"]).sort_values(["players", "seat"])
    top = int(first["players"].max())
    who = "; ".join(f"seat {int(r.seat)} = {getattr(r, col)}"
                    for r in first.itertuples() if int(r.players) == top)
    text = (f"**Seat and {noun} coincide**: every seat plays one fixed {noun} ({who}), so "
            f"this table is the {noun} table again and cannot tell seat advantage from "
            f"{noun} strength. Add `rotate_seats: true` to the scenario to play each game in "
            f"every rotation of the seat order.")
    return [text]


def seat_advantage(ctx: Context, foot: str) -> Section:
    """Win share by seat per player count (the ruleset's ``seat_order`` says who starts)."""
    s = Section("seats", "Seat advantage")
    sa = M.seat_advantage(ctx.balance_seats, ctx.config.alpha)
    s.paragraphs.append(f"Win share by seat for each player count ({ctx.rs.seat_order}; a tie "
                        "or draw shared by k seats counts 1/k), with 95% Wilson intervals, "
                        "against the fair share 1/players." + ctx.baseline_text())
    s.paragraphs += _seat_faction_note(ctx)
    s.figures.append(Figure("seat_advantage.png", plots.seat_bars(
        sa, title="Win share / fair share by seat", footer=foot),
        "Seat advantage: bars are win share over 1/players with 95% intervals."))
    s.tables.append(Table("", pd.DataFrame({
        "Players": sa["players"], "Seat": sa["seat"], "Games": sa["games"].map(integer),
        "Win share": sa["win_share"].map(pct),
        "95% CI": [pci(a, b) for a, b in zip(sa["ci_low"], sa["ci_high"], strict=True)],
        "Fair": sa["fair_share"].map(pct), "x fair": sa["ratio"].map(num)})))
    return s


def load_questions(path: Path) -> dict[str, dict[str, str]]:
    """A game report's questions file: ``{section key: {"title": str, "intro": str}}``.

    The file (YAML, e.g. ``deepsim/rulesets/rivals/questions.yaml``) holds the prose that
    opens each question's section; ``{name}`` fields in an intro are filled in by
    :func:`question_section`.

    Raises
    ------
    InputError
        The file is missing or not valid YAML, or an entry is not a mapping with a string
        ``title`` and a string ``intro`` (naming the file, line and key).
    """
    data, lines = load_yaml(path, what="report questions")
    for key, entry in data.items():
        if (not isinstance(entry, dict) or set(entry) != {"title", "intro"}
                or not all(isinstance(v, str) for v in entry.values())):
            raise InputError("expected a mapping with a string `title` and a string `intro`",
                             file=str(path), line=lines.get(key), key=key)
    return data


def question_section(key: str, questions: dict[str, dict[str, str]], rests_on: str,
                     **fields: str) -> Section:
    """A game's question section, opened as every game report opens one: the intro from the
    game's questions file (:func:`load_questions`; ``fields`` fill its ``{name}`` fields,
    already formatted) then ``rests_on``, the sentence naming the placeholder data and
    skipped rules the numbers rest on (written by the game's report).

    Raises
    ------
    KeyError
        ``key`` is not in ``questions``, or the intro names a field not in ``fields``.
    """
    q = questions[key]
    intro = q["intro"].format(**fields) if fields or "{" in q["intro"] else q["intro"]
    return Section(key, q["title"], paragraphs=[intro, rests_on])


def game_sections(questions: dict[str, dict[str, str]], builds: dict, titles: dict[str, str]
                  ) -> list:
    """A game's rows for :meth:`~deepsim.rulesets.base.Ruleset.report_sections`:
    ``(key, title, build)`` in the order of ``builds`` (``{key: fn(ctx) -> Section}``), the
    title from the game's questions file (:func:`load_questions`) or, for a section that
    is not a question, from ``titles``."""
    return [(key, questions[key]["title"] if key in questions else titles[key],
             lambda c, foot, fn=fn: fn(c)) for key, fn in builds.items()]


def first_last_table(per_seat: pd.DataFrame, alpha: float, first: str = "Seat 1") -> Table:
    """The table "<first> against the last seat": per player count, both win shares and
    their difference with Newcombe's interval (:func:`deepsim.report.metrics.first_against_last`;
    ``per_seat`` has ``players``, ``seat``, ``wins``, ``games``)."""
    fl = M.first_against_last(per_seat, alpha)
    rows = [{"Players": int(r.players), first: pct(r.first_share),
             "Last seat": pct(r.last_share),
             f"{first} minus last": f"{100 * r.diff:+.1f} pp ({100 * r.diff_low:+.1f} to "
                                    f"{100 * r.diff_high:+.1f})"} for r in fl.itertuples()]
    level = round(100 * (1 - alpha))
    return Table(f"{first} against the last seat ({level}% CI)", pd.DataFrame(rows),
                 note="Seats of one game are not independent (one winner); the interval "
                      "treats them as independent samples.")


def length_table(games: pd.DataFrame, alpha: float, title: str, extra=None) -> Table:
    """Rounds per game by player count (:func:`deepsim.report.metrics.game_length`): games,
    mean with its t interval, SD, median, 5th-95th percentile, then the game's own columns.

    ``extra(row, games_of_that_count) -> dict`` adds columns per player count (e.g. turns,
    games stopped by a cap); ``games`` needs ``players`` and ``rounds``.
    """
    rows = []
    for r in M.game_length(games, alpha).itertuples():
        row = {"Players": int(r.players), "Games": integer(r.games), **length_cells(r)}
        if extra is not None:
            row.update(extra(r, games[games["players"] == r.players]))
        rows.append(row)
    return Table(title, pd.DataFrame(rows))


def bot_styles(ctx: Context, foot: str) -> Section:
    """Win share by bot style (not a verdict: styles are knobs, not rules)."""
    s = Section("bots", "Bot styles")
    ws = ctx.win_shares("bot")
    base = ctx.primary.baseline_bots
    s.paragraphs.append("Win share by bot style (styles are drawn per seat), against the "
                        "fair share 1/players over the whole field: a style's share depends "
                        "on the styles it meets, so a claim about a style is measured on "
                        "paired games, not read here. Bot styles are knobs in `bots.yaml`, "
                        "not rules."
                        + (f" Baseline styles ({', '.join(base)}: yardsticks, left out of "
                           f"every other balance table) are shown here for reference."
                           if base else ""))
    s.tables.append(Table("", ws_display(ws, "bot", "Bot").drop(columns=["Verdict"])))
    return s


def standard(ctx: Context) -> list:
    """The shared sections as ``(key, title, build)``: win share per faction, seat
    advantage, and win share per bot style when players pick their faction apart from their
    bot (a ruleset whose faction column is the bot style has that table already)."""
    rs = ctx.rs
    out: list = [("win-share", f"Win share per {rs.faction_label}", faction_share),
                 ("seats", "Seat advantage", seat_advantage)]
    seats = ctx.primary.seats
    if (rs.faction_column != "bot" and "bot" in seats.columns
            and seats["bot"].nunique() > 1):
        out.append(("bots", "Bot styles", bot_styles))
    return out


def method_settings(ctx: Context) -> Table:
    """Every report setting with its value and meaning."""
    return Table("", pd.DataFrame(
        [{"Key": k, "Value": f"{v:g}", "Meaning": m} for k, v, m in ctx.config.rows()]))


def language_table(ctx: Context) -> Table:
    """The report's numbers as `deepsim check` / `compare` / `sweep` / `tune` spell them:
    the shared sections' rows and the ruleset's own (``Ruleset.language_rows``)."""
    f = ctx.rs.faction_column
    shared = [("Win share", f"win_share[{f}], win_ratio[{f}], faction_spread"),
              ("Seat advantage", ("win_share[seat, players], win_edge[seat=1, players], "
                                  "seat_advantage")),
              ("Game length", "rounds[players], truncated, length_error"),
              ("Bot styles", "win_share[bot], bot_spread")]
    rows = ctx.rs.language_rows(ctx, shared)
    return Table("The report's numbers in the metric language (README, \"Metrics\")",
                 pd.DataFrame([{"Section": a, "check / compare / sweep / tune": b}
                               for a, b in rows]))
