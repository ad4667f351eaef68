"""README.md's sample of what ``make run`` prints: the headline of a fresh run.

``python -m deepsim.studies.readme_sample --write README.md`` (``make readme-sample``)
plays :data:`SCENARIO` at its own seed and game count exactly as ``make run`` does (at 80
columns, no colour), cuts the headline out of what it prints (:func:`headline`) and puts
it between the README's ``readme-sample`` markers; ``--check README.md`` exits 1 when the
README's copy differs from a fresh run (``tests/test_readme.py``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

#: the scenario of ``make run`` (the Makefile's SCENARIO)
SCENARIO = "scenarios/deepfall-4p.yaml"
START = "<!-- readme-sample: start -->"
END = "<!-- readme-sample: end -->"


def run_output(scenario: str = SCENARIO, games: int | None = None,
               cwd: str | Path | None = None) -> str:
    """What ``deepsim run SCENARIO`` prints at 80 columns without colour (its own seed;
    ``games`` replaces the scenario's count). The run folder goes to a scratch folder and
    the HTML report is skipped (it prints nothing the headline shows).

    Raises ``RuntimeError`` with the command's output when it fails."""
    with tempfile.TemporaryDirectory(prefix="readme-sample-") as tmp:
        argv = [sys.executable, "-c", "from deepsim.cli import entry; entry()", "run",
                scenario, "--out", str(Path(tmp) / "run"), "--no-report"]
        if games is not None:
            argv += ["--games", str(games)]
        env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
        env.pop("FORCE_COLOR", None)
        res = subprocess.run(argv, capture_output=True, text=True, env=env, check=False,
                             cwd=cwd)
    if res.returncode != 0:
        raise RuntimeError(f"deepsim run {scenario} failed (exit {res.returncode}):\n"
                           f"{res.stdout[-2000:]}{res.stderr[-2000:]}")
    return res.stdout


def headline(output: str) -> str:
    """The headline block of a run summary: from the title rule (``── NAME (ruleset),
    seed S ──``) to the line before the caution panel or the first table.

    Raises ``ValueError`` when the output has no headline."""
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines)
                  if re.match(r"^─+ .+ seed \d+ ─+$", line.strip())), None)
    if start is None:
        raise ValueError("no run summary title line (── NAME (ruleset), seed S ──) in the "
                         "output")
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith(("╭", "Win share per", "Rounds per"))), len(lines))
    block = [line.rstrip() for line in lines[start:end]]
    while block and not block[-1]:
        block.pop()
    return "\n".join(block)


def readme_excerpt(readme: str) -> str:
    """The sample text between the README's markers (inside its ``text`` fence).

    Raises ``ValueError`` when the markers are missing."""
    if START not in readme or END not in readme:
        raise ValueError(f"README has no {START} ... {END} block")
    inner = readme.split(START, 1)[1].split(END, 1)[0]
    m = re.search(r"```text\n(.*?)\n```", inner, re.DOTALL)
    if m is None:
        raise ValueError("the readme-sample block has no ```text fence")
    return m.group(1)


def with_excerpt(readme: str, excerpt: str) -> str:
    """``readme`` with the sample between its markers replaced by ``excerpt``."""
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n```text\n{excerpt}\n```\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m deepsim.studies.readme_sample",
                                 description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=Path, metavar="README", help="refresh the sample")
    mode.add_argument("--check", type=Path, metavar="README",
                      help="exit 1 when the sample differs from a fresh run")
    args = ap.parse_args(argv)
    path = args.write or args.check
    readme = path.read_text(encoding="utf-8")
    fresh = headline(run_output())
    if args.write:
        new = with_excerpt(readme, fresh)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(path)
        print(f"{path}: sample refreshed ({len(fresh.splitlines())} lines)")
        return 0
    if readme_excerpt(readme) != fresh:
        print(f"{path}: the sample differs from a fresh run; `make readme-sample` "
              f"refreshes it. Fresh run:\n{fresh}")
        return 1
    print(f"{path}: the sample matches a fresh run")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
