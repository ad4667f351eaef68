"""A scenario file checked without playing it: what ``deepsim scenarios`` lists and the
studio offers."""

from __future__ import annotations

from pathlib import Path


def check_scenario_file(path: Path) -> dict:
    """A scenario file checked as ``run`` (and ``check``, for its ``expect:`` block) would
    check it: its generic keys, its ruleset's keys, bots, knobs and overrides. No game is
    played and nothing is compiled.

    Returns
    -------
    dict
        The resolved scenario, with ``players`` from the prepared one when it gives none.

    Raises
    ------
    InputError
        The first problem, as ``run`` reports it.
    """
    from deepsim import runner

    _, scen, prepared = runner.resolve(path)
    if scen.get("expect") is not None:
        from deepsim.gate.expect import parse_expect
        from deepsim.scenario import LINES
        parse_expect(scen, source=str(path), lines=LINES.get(str(path), {}))
    out = dict(scen)
    out.setdefault("players", prepared.scenario.get("players"))
    return out
