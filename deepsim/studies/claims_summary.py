"""The reconstruction section of FINDINGS from finished claims tunes:
``python -m deepsim.studies.claims_summary DIR... [--append MD] [--replace FINDINGS.md]``
(the Makefile's ``findings-reconstruct``). What it writes is
:func:`deepsim.tune.claimsummary.summary_md`; this is its command line.
"""

from __future__ import annotations

from pathlib import Path

from deepsim.errors import InputError
from deepsim.tune.claimsummary import load_tune, space_label, summary_md


def main(argv: list[str] | None = None) -> int:
    """``python -m deepsim.studies.claims_summary DIR... [--append MD] [--replace
    FINDINGS.md]``: print the section (with the ``--append`` files after it), or put it in
    place of the last section of that title in an existing FINDINGS.md (from its heading
    to the next ``## `` heading or the end: the sections after it are kept), with the
    first folder's front plot copied beside it (``findings/claims_front.png``)."""
    import argparse
    import sys

    from deepsim.atomic import atomic_write_bytes, atomic_write_text

    ap = argparse.ArgumentParser(prog="python -m deepsim.studies.claims_summary")
    ap.add_argument("folders", nargs="+", help="finished claims tune folders")
    ap.add_argument("--replace", default=None, help="a FINDINGS.md whose section to replace")
    ap.add_argument("--append", action="append", default=[],
                    help="a markdown file appended to the section (e.g. the respond.md of "
                         "python -m deepsim.studies.respond_check); repeatable")
    ap.add_argument("--check", action="append", default=[], metavar="TUNE_DIR=CHECK_DIR",
                    help="a respond_check run of points of one of the tunes (respond_check "
                         "--trial/--best): the table's confirmation and best responses of "
                         "a best point the tune did not confirm itself; repeatable")
    ap.add_argument("--refresh", action="store_true",
                    help="first write each tune's findings.md again from its files with "
                         "today's wording (deepsim.tune.reconstruct.refresh_findings)")
    a = ap.parse_args(argv)
    try:
        if a.refresh:
            from deepsim.tune.reconstruct import refresh_findings
            for f in a.folders:
                refresh_findings(f)
        checks = {}
        for c in a.check:
            tune_dir, sep, check_dir = c.partition("=")
            if not sep:
                raise InputError(f"expected TUNE_DIR=CHECK_DIR, got {c!r}", key="--check")
            checks[tune_dir] = check_dir
        md = summary_md(a.folders, checks=checks)
        for extra in a.append:
            if not Path(extra).is_file():
                raise InputError("no such file", file=str(extra), key="--append")
            md = md.rstrip("\n") + "\n\n" + Path(extra).read_text(encoding="utf-8")
        if a.replace is None:
            print(md)
            return 0
        path = Path(a.replace)
        if not path.is_file():
            raise InputError("no such file", file=str(path))
        text = path.read_text(encoding="utf-8")
        head = "## Readings under which the claims hold"
        at = text.rfind("\n" + head)
        if at < 0:
            raise InputError(f"no section {head!r} to replace", file=str(path))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    front = Path(a.folders[0]) / "front.png"
    if front.is_file():
        (path.parent / "findings").mkdir(exist_ok=True)
        atomic_write_bytes(path.parent / "findings" / "claims_front.png", front.read_bytes())
        label = space_label(load_tune(a.folders[0]))
        md += (f"\n![Pareto set over the claims' distances, --space {label}]"
               "(findings/claims_front.png)\n")
    # only this section: a later section (another study's) stays where it is
    end = text.find("\n## ", at + 1)
    tail = text[end:] if end >= 0 else ""
    atomic_write_text(path, text[:at + 1] + md.rstrip("\n") + "\n" + tail)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
