"""Report settings: the viability rule's thresholds and each ruleset's own (its claims').

Every setting has a dotted key (``viability.min_ratio``), a default and a meaning; the CLI
changes one with ``deepsim report RUN_DIR --option viability.min_ratio=0.9``. The shared
settings are :data:`OPTIONS`; a ruleset adds its own
(:attr:`deepsim.rulesets.base.Ruleset.report_options`, a tuple of :class:`ReportOption`),
read by its sections and claims as
``ctx.config.<attr>``. The values used are printed in every report (section "Method").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType

from deepsim.errors import InputError
from deepsim.report.viability import DEFAULT, Lines

__all__ = ["OPTIONS", "ReportConfig", "ReportOption"]

_A = "1 - confidence level of every interval, and the Holm family-wise error rate"
_MR = ("a group is viable when the upper end of its win share interval reaches this x its "
       "fair share")
_XR = ("a group is too strong when the lower end of its win share interval is above this x "
       "its fair share (the mirror of min_ratio)")
_MW = ("a group whose interval is wider than this x its fair share is 'inconclusive' "
       "(never 'viable'), so a small sample never passes")
#: the shared settings: key -> (attribute, meaning)
OPTIONS: dict[str, tuple[str, str]] = {
    "alpha": ("alpha", _A),
    "viability.min_ratio": ("min_ratio", _MR),
    "viability.max_ratio": ("max_ratio", _XR),
    "viability.max_rel_width": ("max_rel_width", _MW),
}


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
class ReportConfig:
    """Thresholds of the report's verdicts (see :data:`OPTIONS`) and a ruleset's own
    settings (``extra``: its :class:`ReportOption` list; ``values``
    the ones given, by attribute), read as attributes (``config.rounds_target``)."""

    alpha: float = DEFAULT.alpha
    min_ratio: float = DEFAULT.min_ratio
    max_ratio: float = DEFAULT.max_ratio
    max_rel_width: float = DEFAULT.max_rel_width
    extra: tuple[ReportOption, ...] = ()
    values: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self):
        if not 0.0 < self.alpha < 1.0:
            raise InputError(f"alpha must be in (0, 1), got {self.alpha}", key="alpha")
        for attr, value in self._all():
            if value < 0:
                raise InputError(f"must not be negative, got {value}", key=self.key_of(attr))

    @property
    def lines(self) -> Lines:
        """The verdict scale's lines (:class:`deepsim.report.viability.Lines`)."""
        return Lines(alpha=self.alpha, min_ratio=self.min_ratio, max_ratio=self.max_ratio,
                     max_rel_width=self.max_rel_width)

    @classmethod
    def for_ruleset(cls, options: Sequence[ReportOption]) -> ReportConfig:
        """The defaults with a ruleset's own settings (``Ruleset.report_options``)."""
        return cls(extra=tuple(options))

    def __getattr__(self, attr: str) -> float:
        # only called for names that are not fields: a ruleset's own setting
        if attr.startswith("__"):
            raise AttributeError(attr)
        for opt in self.extra:
            if opt.attr == attr:
                return float(self.values.get(attr, opt.default))
        raise AttributeError(f"no report setting {attr!r} (shared: "
                             f"{', '.join(a for a, _ in OPTIONS.values())}; the ruleset's: "
                             f"{', '.join(o.attr for o in self.extra) or 'none'})")

    def _all(self) -> list[tuple[str, float]]:
        shared = [(f.name, getattr(self, f.name)) for f in fields(self)
                  if f.name not in ("extra", "values")]
        return shared + [(o.attr, getattr(self, o.attr)) for o in self.extra]

    def _options(self) -> dict[str, tuple[str, str]]:
        return {**OPTIONS, **{o.key: (o.attr, o.meaning) for o in self.extra}}

    def key_of(self, attr: str) -> str:
        """Dotted key of attribute ``attr``."""
        for key, (a, _) in self._options().items():
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
        options = self._options()
        shared, own = {}, dict(self.values)
        for item in items or []:
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or key not in options:
                raise InputError(f"unknown report option {item!r}; valid keys: "
                                 f"{', '.join(options)}", key=key or None)
            try:
                number = float(value)
            except ValueError:
                raise InputError(f"expected a number, got {value!r}", key=key) from None
            attr = options[key][0]
            if key in OPTIONS:
                shared[attr] = number
            else:
                own[attr] = number
        return replace(self, values=MappingProxyType(own), **shared)

    def rows(self) -> list[tuple[str, float, str]]:
        """``(key, value, meaning)`` of every setting: the shared ones, then the ruleset's."""
        return [(key, getattr(self, attr), meaning)
                for key, (attr, meaning) in self._options().items()]
