"""Calibrating DEEPFALL's claim instruments: play the references whose answers are known
(:data:`deepsim.rulesets.deepfall.calibration.RUNS`, seeds apart from every verdict run),
measure each instrument on them (:func:`deepsim.rulesets.deepfall.calibration.calibrate`)
and write ``deepsim/rulesets/deepfall/calibration.yaml``, committed before the verdict
runs (``make findings-calibration``)::

    python -m deepsim.studies.calibration --runs DIR [--games N] [--reps R] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from deepsim.errors import InputError
from deepsim.reporting import load_run
from deepsim.rulesets.deepfall.calibration import (
    CALIBRATION_FILE,
    REPS,
    RUNS,
    calibrate,
    write_calibration,
)

__all__ = ["main", "play"]


def play(out: str | Path, games: int, *, threads: int | None = None) -> dict[str, Path]:
    """Play every reference run of :data:`RUNS` into ``out/NAME`` (replacing it)."""
    from deepsim.api import simulate

    out = Path(out)
    made = {}
    for name, spec in RUNS.items():
        n = max(1000, round(games * spec["share"]))
        sim = simulate(spec["scenario"], games=n, seed=spec["seed"],
                               overrides=spec["sets"], threads=threads, out=out / name,
                               force=True)
        made[name] = sim.out_dir
    return made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m deepsim.studies.calibration",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True, help="folder of the reference runs")
    ap.add_argument("--games", type=int, default=None,
                    help="play the references first, the largest with this many games")
    ap.add_argument("--reps", type=int, default=REPS, help="relabellings and blocks")
    ap.add_argument("--out", default=str(CALIBRATION_FILE), help="the YAML to write")
    args = ap.parse_args(argv)
    try:
        if args.games:
            play(args.runs, args.games)
        runs = {n: load_run(Path(args.runs) / n) for n in RUNS}
        result = calibrate(runs, reps=args.reps)
        made_by = ("python -m deepsim.studies.calibration --runs " + args.runs
                   + (f" --games {args.games}" if args.games else "")
                   + (f" --reps {args.reps}" if args.reps != REPS else ""))
        p = write_calibration(result, args.out, made_by)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for key, e in result["instruments"].items():
        print(f"{key:11} {'pass' if e['passed'] else 'FAIL'}  {e['figure']}")
    print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
