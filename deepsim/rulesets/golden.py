"""Golden cases: the frozen scenarios a ruleset declares (its ``golden.yaml``), whose
results the tests pin by digest (:mod:`deepsim.testing.golden` plays and digests them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from deepsim.errors import InputError
from deepsim.params import load_yaml

__all__ = ["DEFAULT_GAMES", "GoldenCase", "load_cases"]

#: games per golden case unless the case names its own count
DEFAULT_GAMES = 2000


@dataclass(frozen=True)
class GoldenCase:
    """One frozen scenario whose results are pinned by digest.

    Attributes
    ----------
    ruleset : str
        Ruleset name.
    name : str
        Case name, unique within the ruleset (``"4p"``, ``"hit56-arena"``).
    scenario : dict
        A complete scenario mapping (frozen here, so edits to ``scenarios/`` never move it).
    overrides : tuple of str
        ``--set`` style overrides (``path=value``) applied after the scenario's.
    games : int
        Games played from index 0 (default 2,000).
    source : str
        The file the case came from (for error messages).
    """

    ruleset: str
    name: str
    scenario: dict = field(hash=False)
    overrides: tuple[str, ...] = ()
    games: int = DEFAULT_GAMES
    source: str = "<golden>"

    @property
    def key(self) -> str:
        """``ruleset/name``: the case's key in the digest file."""
        return f"{self.ruleset}/{self.name}"


def load_cases(path: Path | str, ruleset: str) -> list[GoldenCase]:
    """The golden cases of a ruleset's ``golden.yaml``.

    The file is a mapping ``{case name: {games: N, overrides: [path=value, ...],
    scenario: {...}}}``; ``scenario`` is a full scenario (its ``ruleset`` key may be left
    out).

    Raises
    ------
    InputError
        A case that is not a mapping, lacks ``scenario`` or has a bad ``games`` count.
    """
    data, lines = load_yaml(path)
    cases = []
    for name, spec in data.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("scenario"), dict):
            raise InputError("a golden case is a mapping with a 'scenario' mapping",
                             file=str(path), key=str(name), line=lines.get(str(name)))
        games = spec.get("games", DEFAULT_GAMES)
        if isinstance(games, bool) or not isinstance(games, int) or games < 1:
            raise InputError(f"games must be a positive integer (got {games!r})",
                             file=str(path), key=f"{name}.games",
                             line=lines.get(f"{name}.games"))
        sc = dict(spec["scenario"])
        sc.setdefault("ruleset", ruleset)
        sc.setdefault("name", f"golden-{name}")
        sc["games"] = games
        cases.append(GoldenCase(ruleset=ruleset, name=str(name), scenario=sc,
                                overrides=tuple(spec.get("overrides") or ()), games=games,
                                source=str(path)))
    return cases
