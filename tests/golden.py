"""Golden result digests: check them, or refresh them after a change that alters results.

    python -m tests.golden            # play every case, print which digests differ (exit 1)
    python -m tests.golden --update   # the same, then store the new digests
    python -m tests.golden --update deepfall/4p atlantis   # only these cases / rulesets

(``make golden`` runs the update.) A commit that changes a stored digest says in its message
why the games changed; a commit that claims "identical results" changes none.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

DIGEST_FILE = Path(__file__).with_name("golden.json")
REFRESH = "python -m tests.golden --update"


def all_cases(selected: list[str] | None = None):
    """(ruleset object, case) for every built-in ruleset that declares golden cases (a
    plugin keeps its digests in its own package: ``deepsim.testing.golden.check_case``)."""
    from deepsim.rulesets import builtin, get
    out = []
    for name in builtin():
        rs = get(name)
        cases = rs.golden_cases() if hasattr(rs, "golden_cases") else []
        for case in cases:
            if selected and name not in selected and case.key not in selected:
                continue
            out.append((rs, case))
    return out


def check_case(rs, case, stored: dict | None = None) -> str | None:
    """The failure message of one golden case, or None when its digests are unchanged."""
    from deepsim.testing.golden import compare, digest_tables, play_case, read_digests
    stored = read_digests(DIGEST_FILE) if stored is None else stored
    games, seats = play_case(rs, case)
    diff = compare(stored.get(case.key), digest_tables(games, seats))
    if not diff:
        return None
    return (f"golden case {case.key} ({case.source}) changed:\n  " + "\n  ".join(diff)
            + f"\nIf intended, run `{REFRESH} {case.key}` and say why in the commit message.")


def main(argv: list[str] | None = None) -> int:
    from deepsim.testing.golden import (
        compare,
        digest_tables,
        play_case,
        read_digests,
        write_digests,
    )
    ap = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="store the new digests")
    ap.add_argument("only", nargs="*", help="ruleset names or ruleset/case keys")
    args = ap.parse_args(argv)
    stored = read_digests(DIGEST_FILE)
    fresh = dict(stored)
    changed = 0
    for rs, case in all_cases(args.only):
        t0 = time.perf_counter()
        games, seats = play_case(rs, case)
        now = digest_tables(games, seats)
        diff = compare(stored.get(case.key), now)
        dt = time.perf_counter() - t0
        if diff:
            changed += 1
            print(f"{case.key}: CHANGED ({dt:.1f} s)")
            for line in diff:
                print(f"    {line}")
        else:
            print(f"{case.key}: same ({dt:.1f} s)")
        fresh[case.key] = now
    if args.update:
        if changed or set(fresh) != set(stored):
            write_digests(DIGEST_FILE, fresh)
            print(f"{changed} digest(s) refreshed in {DIGEST_FILE}")
        else:
            print("nothing to refresh")
        return 0
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
