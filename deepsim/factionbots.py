"""Scenario key ``faction_bots``: every seat that plays a faction plays bots of its own.

A scenario's seats draw their bots from its pool (or name one per seat); ``faction_bots``
replaces the bot of every seat that plays a given faction (DEEPFALL: a company; Atlantis:
a side; Abyss: a bot style), whichever seat it sits in, with one style or a mixture of
styles drawn per game. ``deepsim respond`` plays its trials this way, and ``deepsim meta``
writes its fields as such a file. The key takes a file (a path relative to the scenario
file) or the same mapping inline::

    faction_bots: best-responses.yaml         # or the mapping below, inline

    # best-responses.yaml
    styles:                      # new styles: knob values as in the ruleset's bots.yaml
      hierophant_br:             # (knobs left out: the base style's, else the default)
        base: greedy
        doc: "best response of Golem-born Hierophant"
        last_stand: 2
        cash_loot: 1000
    factions:                    # faction name (case, spaces, '-' and '_' ignored)
      Golem-born Hierophant: hierophant_br            # one style
      Wisp Warden: {greedy: 0.5, martyr: 0.5}         # a mixture: drawn per game by weight

A style is a new one of ``styles:`` or a style of the ruleset's ``bots.yaml``. The seat's
own bot is drawn first and then replaced, so a game's dice and deal are the same with and
without the key (common random numbers; :mod:`deepsim.factionmix`). Everything is checked
before a game is played: unknown factions, styles and knobs (with the nearest names), knob
values against the bounds of ``bots.yaml``, weights (positive numbers).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from deepsim.errors import InputError
from deepsim.params import load_yaml, nearest, validate

__all__ = ["FactionBots", "empty_fmix", "load_faction_bots", "match_name", "norm_name",
           "resolve_faction_bots", "style_block"]

KEY = "faction_bots"
_STYLE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]*$")


def norm_name(name: str) -> str:
    """A name as matched: case, spaces, ``-`` and ``_`` ignored (``golem_born hierophant``
    and ``Golem-Born Hierophant`` are the same)."""
    return re.sub(r"[\s_\-]+", "", str(name)).casefold()


def match_name(name: str, names: Sequence[str], *, what: str = "faction",
               file: str | None = None, key: str | None = None,
               line: int | None = None) -> str:
    """The member of ``names`` that ``name`` spells (see :func:`norm_name`).

    Raises
    ------
    InputError
        No member matches (naming the nearest and listing a few), or two do.
    """
    want = norm_name(name)
    hits = [n for n in names if norm_name(n) == want]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise InputError(f"'{name}' matches several {what}s: {', '.join(hits)}", file=file,
                         key=key, line=line)
    shown = ", ".join(f"'{n}'" for n in list(names)[:12])
    more = f" and {len(names) - 12} more" if len(names) > 12 else ""
    raise InputError(f"unknown {what} '{name}'{nearest(name, names)}; known: {shown}{more}",
                     file=file, key=key, line=line)


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    styles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    factions: dict[str, str | dict[str, float]] = Field(min_length=1)


class _Inline(BaseModel):
    model_config = ConfigDict(extra="forbid")
    faction_bots: _Spec


@dataclass
class FactionBots:
    """A checked ``faction_bots`` value.

    Attributes
    ----------
    styles : dict
        ``{style: {knob: value}}`` (every knob) of the styles the factions play.
    factions : dict
        ``{faction: [(style, weight), ...]}`` with weights summing to 1, faction names
        spelled as the ruleset spells them.
    file : str or None
        The file it was read from (None: inline).
    docs : dict
        ``{style: doc}`` of the new styles.
    """

    styles: dict[str, dict[str, float]]
    factions: dict[str, list[tuple[str, float]]]
    file: str | None = None
    docs: dict[str, str] = field(default_factory=dict)

    def resolved(self) -> dict:
        """The JSON form recorded in the resolved scenario (and so in its hash): what is
        played, whatever file or spelling it came from."""
        return {"styles": {n: dict(k) for n, k in self.styles.items()},
                "factions": {f: [[s, w] for s, w in mix] for f, mix in self.factions.items()}}

    def attach(self, factions: Sequence[str], profiles: list[dict], labels: list[str],
               named: dict[str, int], *, label_of_faction: bool = False) -> np.ndarray:
        """Add the rows these factions play to a ruleset's knob table; return ``fmix``.

        Parameters
        ----------
        factions : sequence of str
            The ruleset's factions in code order (the kernel's faction code is the index).
        profiles, labels : list
            The knob table's rows (``{knob: value}``) and their bot labels; extended in
            place.
        named : dict
            ``{bots.yaml style: row}``: a faction that plays such a style unchanged uses
            its row (and label).
        label_of_faction : bool
            Label every added row with the faction's name (where the faction *is* the bot
            style, Abyss) instead of the style's; each (faction, style) gets its own row.

        Returns
        -------
        float64[len(factions), 2, M]
            The kernel table of :mod:`deepsim.factionmix`.
        """
        rows: dict[str, int] = {}
        mixes: dict[int, list[tuple[int, float]]] = {}
        for fname, mix in self.factions.items():
            code = list(factions).index(fname)
            out = []
            for style, w in mix:
                if label_of_faction:
                    profiles.append(dict(self.styles[style]))
                    labels.append(fname)
                    row = len(profiles) - 1
                elif style in named and style not in self.docs:
                    row = named[style]
                elif style in rows:
                    row = rows[style]
                else:
                    profiles.append(dict(self.styles[style]))
                    labels.append(style)
                    row = rows[style] = len(profiles) - 1
                out.append((row, w))
            mixes[code] = out
        fmix = empty_fmix(len(factions), max([len(m) for m in mixes.values()] or [1]))
        for code, out in mixes.items():
            acc = 0.0
            for j, (row, w) in enumerate(out):
                acc += w
                fmix[code, 0, j] = row
                fmix[code, 1, j] = 1.0 if j == len(out) - 1 else acc
        return fmix


def empty_fmix(n_factions: int, width: int = 1) -> np.ndarray:
    """The kernel table of :mod:`deepsim.factionmix` with no faction's bots replaced:
    float64[n_factions, 2, width], rows -1."""
    out = np.zeros((max(int(n_factions), 0), 2, max(int(width), 1)), np.float64)
    out[:, 0, :] = -1.0
    return out


def load_faction_bots(path: Path | str, *, factions: Sequence[str], bot_data: Any,
                      shown: str | None = None) -> FactionBots:
    """Read and check a faction bots file (see the module docstring).

    Raises
    ------
    InputError
        Missing or malformed file, unknown faction, style or knob, a value out of its
        bounds, a bad weight (file, line and key named).
    """
    shown = shown or str(path)
    raw, lines = load_yaml(path)
    return _check(raw, factions=factions, bot_data=bot_data, file=shown, lines=lines,
                  prefix="", source_file=shown)


def resolve_faction_bots(value: Any, *, factions: Sequence[str], bot_data: Any,
                         source: str, lines: dict[str, int] | None = None
                         ) -> FactionBots | None:
    """The scenario's ``faction_bots`` value checked: a file path (relative to the scenario
    file) or an inline mapping; None when absent.

    Raises
    ------
    InputError
        As :func:`load_faction_bots`; a missing file names the scenario's line.
    """
    if value is None:
        return None
    lines = lines or {}
    if isinstance(value, str):
        base = Path(source).parent if not source.startswith("<") else Path.cwd()
        path = base / value
        try:
            found = path.is_file()
        except OSError:                      # e.g. a name longer than the file system's
            found = False
        if not found:
            shown = str(path) if len(str(path)) <= 200 else str(path)[:200] + "..."
            raise InputError(f"no such faction bots file {shown} (the path is relative to "
                             "the scenario file)", file=source, key=KEY, line=lines.get(KEY))
        return load_faction_bots(path, factions=factions, bot_data=bot_data, shown=str(path))
    if not isinstance(value, dict):
        raise InputError(f"expected a file name or a mapping with factions: (and styles:), "
                         f"got {type(value).__name__}", file=source, key=KEY,
                         line=lines.get(KEY))
    return _check(value, factions=factions, bot_data=bot_data, file=source, lines=lines,
                  prefix=f"{KEY}.", source_file=None)


def _check(raw: Any, *, factions: Sequence[str], bot_data: Any, file: str,
           lines: dict[str, int], prefix: str, source_file: str | None) -> FactionBots:
    if not isinstance(raw, dict):
        raise InputError("a faction bots file is a mapping with factions: (and styles:)",
                         file=file, key=prefix.rstrip(".") or None)
    if prefix:  # inline: checked under the scenario key, so errors name its lines
        spec = validate(_Inline, {KEY: raw}, source=file, lines=lines).faction_bots
    else:
        spec = validate(_Spec, raw, source=file, lines=lines)

    def where(key: str) -> dict:
        return {"file": file, "key": prefix + key,
                "line": lines.get(prefix + key) or lines.get(prefix + key.rsplit(".", 1)[0])}

    named = dict(bot_data.styles)
    knob_default = {k: kn.default for k, kn in bot_data.knobs.items()}
    styles: dict[str, dict[str, float]] = {}
    docs: dict[str, str] = {}
    for name, body in spec.styles.items():
        key = f"styles.{name}"
        if not _STYLE_NAME.match(str(name)):
            raise InputError("a style name starts with a letter and holds letters, digits, "
                             "'_', '-' and '.'", **where(key))
        if name in named:
            raise InputError(f"'{name}' is a style of {bot_data.file}: give the new style "
                             "another name (a faction may play that style by its name)",
                             **where(key))
        body = dict(body or {})
        doc = body.pop("doc", "")
        base = body.pop("base", None)
        if not isinstance(doc, str):
            raise InputError(f"doc is a text, got {doc!r}", **where(f"{key}.doc"))
        values = dict(knob_default)
        if base is not None:
            if not isinstance(base, str) or base not in named:
                raise InputError(f"unknown base style {base!r}{nearest(str(base), named)}; "
                                 f"known: {', '.join(named)}", **where(f"{key}.base"))
            values.update(named[base].knobs)
        values.update(bot_data.check(body, file=file, key=prefix + key, lines=lines))
        styles[str(name)] = values
        docs[str(name)] = doc
    out: dict[str, list[tuple[str, float]]] = {}
    for fname, entry in spec.factions.items():
        key = f"factions.{fname}"
        canon = match_name(str(fname), factions, **where(key))
        if canon in out:
            raise InputError(f"'{fname}' names the faction '{canon}' a second time",
                             **where(key))
        mix = {entry: 1.0} if isinstance(entry, str) else dict(entry)
        if not mix:
            raise InputError("give a style, or styles with weights", **where(key))
        known = list(styles) + list(named)
        for style, w in mix.items():
            if style not in styles and style not in named:
                raise InputError(f"unknown style '{style}'{nearest(style, known)}; known: "
                                 f"{', '.join(known)}", **where(f"{key}.{style}"
                                                               if isinstance(entry, dict)
                                                               else key))
            if not (math.isfinite(w) and w > 0):
                raise InputError(f"a weight is a positive number, got {w!r}",
                                 **where(f"{key}.{style}"))
        total = float(sum(mix.values()))
        out[canon] = [(s, float(w) / total) for s, w in mix.items()]
        for s, _ in out[canon]:
            if s not in styles:
                styles[s] = dict(named[s].knobs)
    used = {s for mix in out.values() for s, _ in mix}
    return FactionBots(styles={s: v for s, v in styles.items() if s in used}, factions=out,
                       file=source_file, docs={s: d for s, d in docs.items() if s in used})


def style_block(name: str, knobs: dict[str, float], bot_data: Any, *, doc: str = "",
                indent: int = 2) -> str:
    """A style as YAML ready to paste under ``styles:`` of a ``bots.yaml`` or of a faction
    bots file: every knob, whole numbers for int and bool knobs."""
    pad = " " * indent
    lines = [f"{pad}{name}:"]
    if doc:
        lines.append(f'{pad}  doc: "{doc}"')
    for k, kn in bot_data.knobs.items():
        v = knobs.get(k, kn.default)
        text = f"{round(float(v))}" if kn.type in ("int", "bool") else f"{float(v):.6g}"
        lines.append(f"{pad}  {k}: {text}")
    return "\n".join(lines)
