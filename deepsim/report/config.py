"""Report settings: thresholds of the viability rule and of the claims' verdicts.

Every setting has a dotted key (``viability.min_ratio``), a default and a meaning; the CLI
changes one with ``deepsim report RUN_DIR --option viability.min_ratio=0.9``. The values
used are printed in every report (section "Method").
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from deepsim.errors import InputError

__all__ = ["OPTIONS", "ReportConfig"]

# key -> (attribute, meaning)
_A = "1 - confidence level of every interval, and the Holm family-wise error rate"
_MR = ("a group is viable when the upper end of its win share interval reaches this x its "
       "fair share")
_MW = ("a group whose interval is wider than this x its fair share is 'inconclusive' "
       "(never 'viable'), so a small sample never passes")
_RT = "B1: the rulebook's game length in rounds"
_RTOL = "B1: '~' means the mean is within this many rounds of the target"
_TM = ("B3, B5: 'a touch / slightly strong' means win share above fair, by at most this "
       "fraction (0.2 = +20%)")
_AN = "B4: 'almost never' means in at most this share of player-games (or of crews)"
_ST = ("B5: exits are substitutes when the win-rate ratio of their users is within "
       "[1/(1+this), 1+this]")
_TG = ("B6: a game is tight when the winner leads the runner-up by at most this fraction "
       "of its Glory")
_CT = ("B7: contention is constant when the largest player count's value is at most "
       "1 + this times the smallest")
OPTIONS: dict[str, tuple[str, str]] = {
    "alpha": ("alpha", _A),
    "viability.min_ratio": ("min_ratio", _MR),
    "viability.max_rel_width": ("max_rel_width", _MW),
    "claims.rounds_target": ("rounds_target", _RT),
    "claims.rounds_tolerance": ("rounds_tolerance", _RTOL),
    "claims.touch_max": ("touch_max", _TM),
    "claims.almost_never": ("almost_never", _AN),
    "claims.substitute_tolerance": ("substitute_tolerance", _ST),
    "claims.tight_margin": ("tight_margin", _TG),
    "claims.contention_tolerance": ("contention_tolerance", _CT),
}


@dataclass(frozen=True)
class ReportConfig:
    """Thresholds of the report's verdicts (see :data:`OPTIONS` for their meaning)."""

    alpha: float = 0.05
    min_ratio: float = 0.8
    max_rel_width: float = 0.10
    rounds_target: float = 11.0
    rounds_tolerance: float = 1.0
    touch_max: float = 0.20
    almost_never: float = 0.05
    substitute_tolerance: float = 0.25
    tight_margin: float = 0.10
    contention_tolerance: float = 0.25

    def __post_init__(self):
        if not 0.0 < self.alpha < 1.0:
            raise InputError(f"alpha must be in (0, 1), got {self.alpha}", key="alpha")
        for f in fields(self):
            if getattr(self, f.name) < 0:
                raise InputError(f"must not be negative, got {getattr(self, f.name)}",
                                 key=self.key_of(f.name))

    @staticmethod
    def key_of(attr: str) -> str:
        """Dotted key of attribute ``attr``."""
        for key, (a, _) in OPTIONS.items():
            if a == attr:
                return key
        return attr

    def with_options(self, items: list[str] | None) -> ReportConfig:
        """Return a copy with ``KEY=VALUE`` items applied.

        Raises
        ------
        InputError
            Unknown key (the valid keys are listed) or a value that is not a number.
        """
        changes = {}
        for item in items or []:
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or key not in OPTIONS:
                raise InputError(f"unknown report option {item!r}; valid keys: "
                                 f"{', '.join(OPTIONS)}", key=key or None)
            try:
                changes[OPTIONS[key][0]] = float(value)
            except ValueError:
                raise InputError(f"expected a number, got {value!r}", key=key) from None
        return replace(self, **changes)

    def rows(self) -> list[tuple[str, float, str]]:
        """``(key, value, meaning)`` for every setting, in :data:`OPTIONS` order."""
        return [(key, getattr(self, attr), meaning) for key, (attr, meaning) in OPTIONS.items()]
