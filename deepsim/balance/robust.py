"""Does a patch survive players who adapt to it? Best responses under the patch.

A patch is found with the field's bots as they are; players who learn the new numbers may
find a style that breaks it. :func:`respond_check` gives every faction of the ruleset its
best response under the patched rules (``deepsim respond``'s search:
:func:`deepsim.tune.respondcheck.best_responses`, optuna TPE over one bot style's knobs
within the bot data's bounds, seeded), then replays the confirmation games (same seed, same
game indices as the patch's own confirmation: paired) with every faction on its best
response and judges the target there. The patch is **broken** when a faction is too strong
in that field (a verdict, on an interval: never a point estimate of the search games, which
the search's maximum biases upward), or, for a co-operative game, when the party leaves its
band.

A responder is any callable ``(scenario_path, sets, *, seed, games, confirm_seed,
target, threads, progress) -> Robustness``; :func:`respond_check` is the default, tests
plant their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from deepsim.report import viability as V

__all__ = ["Robustness", "respond_check"]

@dataclass
class Robustness:
    """The best-response check of one patch.

    ``broken``: a best response breaks the patch; ``table``: one row per faction (name,
    value, low, high, verdict: its ratio in the best-response field); ``responses``: per
    faction ``start`` style, ``best_value`` of the search (x fair, search games);
    ``note``: in words."""

    broken: bool
    table: pd.DataFrame
    responses: pd.DataFrame = field(default_factory=pd.DataFrame)
    note: str = ""

    @property
    def moved(self) -> int | None:
        """How many factions' searches found a style better than their start (``None``:
        not recorded). 0 means the best-response field is the start field again, so the
        check says nothing beyond the confirmation."""
        if self.responses.empty or "best_trial" not in self.responses:
            return None
        return int((self.responses["best_trial"] != 0).sum())


def respond_check(scenario_path: Path | str, sets: list[str], *, seed: int, games: int,
                  confirm_seed: int, confirm_games: int, trials: int, target,
                  threads: int | None = None, progress=None) -> Robustness:
    """Every faction's best response under ``sets`` and the target judged in their field.

    Parameters
    ----------
    scenario_path : path
    sets : list of str
        The patch as ``path=value`` overrides.
    seed, games, trials : int
        The search: seed of its games, games per faction, optuna trials per faction.
    confirm_seed, confirm_games : int
        The replay's games (the patch's confirmation games).
    target : deepsim.balance.target.Target
        Judges the replay (``verdicts``; an ``expect`` target is judged on the verdict
        scale too, the best response being about factions; ``require``: broken when a
        requirement fails there).

    Raises
    ------
    InputError
        The ruleset has no factions or bot data (``deepsim respond``'s errors).
    """
    from deepsim.tune.respondcheck import RespondBudget, best_responses, replay

    budget = RespondBudget(trials=trials, games=games)
    fld, _starts, styles, responses = best_responses(scenario_path, sets, seed, budget,
                                                     threads=threads, progress=progress)
    prepared, g, s = replay(fld, styles, confirm_games, confirm_seed)
    if target.name == "expect":
        from deepsim.balance.target import Target
        judge = Target("verdicts", target.ruleset, target.lines, target.coop_band,
                       target.baseline)
    else:
        judge = target
    j = judge.judge(prepared, g, s)
    if judge.name == "require":
        broken = bool((j.table["verdict"] == "fail").any())
    elif judge.cooperative:
        broken = not j.met
    else:
        broken = bool((j.table["verdict"] == V.TOO_STRONG).any())
    strong = j.table[j.table["verdict"] == V.TOO_STRONG]["name"].tolist()
    failed = j.table[j.table["verdict"] == "fail"]["name"].tolist()
    note = (f"too strong on a best response: {', '.join(strong)}" if strong
            else f"fails on a best response: {', '.join(failed)}" if judge.name == "require"
            and broken else ("the party leaves its band" if broken
                             else "no best response breaks it"))
    return Robustness(broken, j.table, responses, note)
