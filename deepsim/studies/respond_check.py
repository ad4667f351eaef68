"""Every company's best response at the points of an earlier claims tune's front:
``python -m deepsim.studies.respond_check SCENARIO FRONT.yaml --out DIR``, or at any of its
trials: ``python -m deepsim.studies.respond_check SCENARIO TUNE_DIR --trial N --out DIR``
(a point off the front, e.g. the one holding the most claims; played on the confirmation
games with the shipped field too, so its ``holds_shipped`` is its confirmation on fresh
paired games). What it plays and judges is
:func:`deepsim.tune.respondcheck.respond_check`; this is its command line.
"""

from __future__ import annotations

import time
from pathlib import Path

from deepsim.errors import InputError
from deepsim.tune.claimsobj import claim_scores
from deepsim.tune.respondcheck import RespondBudget, read_front, respond_check, respond_md


def main(argv: list[str] | None = None) -> int:
    """``python -m deepsim.studies.respond_check SCENARIO FRONT.yaml --out DIR``: the check of
    an earlier claims tune's front (its first ``--points`` points and the defaults); with
    ``--trial N`` (repeatable) FRONT is the tune's folder and the points are the defaults
    and those trials (:func:`deepsim.tune.reconstruct.trial_points`)."""
    import argparse

    from deepsim.atomic import atomic_write_text
    from deepsim.runfolders import write_parquet
    from deepsim.tune.claimsobj import UNMEASURED_PENALTY, parse_claims_objective
    from deepsim.tune.play import Player

    ap = argparse.ArgumentParser(prog="python -m deepsim.studies.respond_check")
    ap.add_argument("scenario")
    ap.add_argument("front", help="the tune's front.yaml (or, with --trial, its folder)")
    ap.add_argument("--points", type=int, default=3,
                    help="the front's first N points are checked, with the defaults (>= 1)")
    ap.add_argument("--trials", type=int, default=8,
                    help="optuna trials of each faction's best-response search")
    ap.add_argument("--games", type=int, default=1000,
                    help="games per trial in which the faction sits")
    ap.add_argument("--trial", type=int, action="append", default=[],
                    help="check this trial of the tune in FRONT's folder instead of the "
                         "front's points (repeatable)")
    ap.add_argument("--best", action="store_true",
                    help="check the tune's trial holding the most claims (FRONT: its "
                         "folder), as the tune's confirmation picks it")
    ap.add_argument("--seed", type=int, default=None, help="search seed (the tune's)")
    ap.add_argument("--confirm-games", type=int, default=20_000,
                    help="confirmation games every point is replayed on")
    ap.add_argument("--confirm-seed", type=int, default=None,
                    help="their seed (default: the search seed + 1)")
    ap.add_argument("--objective", default="claims", help="claims or claims[B1,B2,...]")
    ap.add_argument("--set", action="append", default=[],
                    help="PATH=VALUE applied to every point (the tune's --set)")
    ap.add_argument("--out", required=True, help="output folder (new, or with --force)")
    ap.add_argument("--force", action="store_true", help="overwrite an existing --out")
    a = ap.parse_args(argv)
    try:
        from deepsim.runfolders import check_out
        check_out(a.out, a.force)
        if a.points < 1:
            raise InputError(f"--points must be >= 1, got {a.points}", key="--points")
        player = Player(a.scenario, seed=a.seed, sets=a.set)
        if a.trial or a.best:
            from deepsim.tune.reconstruct import best_trial, trial_points
            folder = Path(a.front)
            folder = folder if folder.is_dir() else folder.parent
            if a.best:
                a.trial = [*a.trial, best_trial(folder)]
            points = [("baseline", {})] + trial_points(player, folder, a.trial)
        else:
            points = [("baseline", {})] + read_front(a.front)[:a.points]
        cobj = parse_claims_objective(a.objective)
        probe = player.prepare({})
        g, s = player.play(probe, games=30)
        ids = list(claim_scores(player.ruleset, probe.prepared, g, s))
        scored = cobj.selected(ids)
        budget = RespondBudget(a.trials, a.games)
        cseed = player.seed + 1 if a.confirm_seed is None else a.confirm_seed
        t0, c0 = time.perf_counter(), time.process_time()
        claims, factions = respond_check(
            player, points, scored=scored, weight=cobj.weight, penalty=UNMEASURED_PENALTY,
            budget=budget, confirm_games=a.confirm_games, confirm_seed=cseed,
            progress=lambda i, n, what: print(f"[{i + 1}/{n}] {what}", flush=True))
    except InputError as exc:
        print(f"error: {exc}")
        return 2
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"kind": "respond-check", "scenario": player.name, "seed": player.seed}
    write_parquet(out / "respond_claims.parquet", claims, meta)
    write_parquet(out / "respond_factions.parquet", factions, meta)
    md = respond_md(claims, factions, scored, budget)
    which = (f"trial(s) {', '.join(str(t) for t in a.trial)} of `{a.front}`" if a.trial
             else f"the first {a.points} of `{a.front}`")
    md = md.replace("\n\n", f"\n\nPoints: the defaults and {which} "
                    f"(scenario {player.name}, search seed {player.seed}).\n\n", 1)
    if a.trial:  # points off the front: the shipped field here is their confirmation
        md = md.replace("### Do the points survive a best response?",
                        f"### Trial {', '.join(str(t) for t in a.trial)} of "
                        f"`{Path(a.front).name}` on fresh paired games and with best "
                        "responses", 1)
    md += (f"\nWall {time.perf_counter() - t0:.0f} s, CPU {time.process_time() - c0:.0f} s "
           f"(this process).\n")
    atomic_write_text(out / "respond.md", md)
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
