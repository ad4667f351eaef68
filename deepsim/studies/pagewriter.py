"""The command line every page-writing study shares: read a folder of runs, write one page.

``python -m deepsim.studies.rivals RUNS_DIR [--out PAGE]`` and the Abyss study are this
function around their own ``build``; the page is written atomically (an interrupted run
leaves the previous page whole).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from deepsim.atomic import atomic_write_text


def page_main(build: Callable[[Path], str], default_out: str, description: str,
              argv: list[str] | None = None) -> int:
    """Parse ``RUNS_DIR [--out PAGE]``, write ``build(RUNS_DIR)`` to PAGE, return 0.

    Parameters
    ----------
    build : callable
        The study's page from the folder of its runs (markdown text).
    default_out : str
        Where the page goes unless ``--out`` says otherwise.
    description : str
        The command's one-line description (``--help``).
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Raises
    ------
    deepsim.errors.InputError
        From ``build`` when a run it needs is missing or unreadable.
    """
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("runs_dir", type=Path, help="folder holding the study's runs")
    ap.add_argument("--out", type=Path, default=Path(default_out),
                    help=f"page to write (default {default_out})")
    args = ap.parse_args(argv)
    text = build(args.runs_dir)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out, text)
    print(f"wrote {args.out}")
    return 0
