"""Where a ruleset's kernel spends its time: `perf` samples mapped to numba functions and,
with debug info, to source lines.

numba's compiled code carries no symbols `perf` can see, but numba's cache keeps the
object code of each entry point, symbol table included. This script plays GAMES games of
the ruleset's bench scenario on one thread under ``perf record``, finds ``play_block``'s
address in the process and the cached object file, and reports the share of kernel
samples per compiled function (functions numba or LLVM inlined count in their caller),
and the share spent pushing call arguments (every call passes each array of the game
state).

``--lines N`` compiles the kernel with line tables (``NUMBA_DEBUGINFO=1``, directives
only: full debug info of the inlined turn needs tens of GB to compile) into a cache folder
of its own (``--cache``, default ``/tmp/deepsim-perf-cache``; the first run compiles for
minutes: ~30 min of CPU and ~15 GB of memory for DEEPFALL, measured on a copy whose
``play_game`` leaves out the search bot's branch; with it the build may not fit in memory)
and maps each sample through the object's
line table: the N hottest source lines (the line of the instruction, inside whatever was
inlined) with their text, and the N hottest Python functions by the lines they contain
(self time: a line of ``_room_score`` inlined into ``choose_room`` counts for
``_room_score``). Caveat: a helper inlined by numba itself (``inline="always"``) keeps
its line numbers but is filed under its caller's file (e.g. ``board.strength_of``'s
lines show as ``bots.py:275``); read such a line against board.py, events.py or
deepsim/rng.py. The line-table build plays at the normal build's speed (measured for
DEEPFALL, docs/performance.md); a full debug build does not.

Usage (Linux with ``perf`` and binutils; run from the checkout)::

    PYTHONPATH=$PWD python tools/kernel_perf.py deepfall [GAMES] [--players 4] [--lines 40]
    PYTHONPATH=$PWD python tools/kernel_perf.py atlantis 1000 --hot swim_phase

``--hot FUNCTION`` also prints the hottest instructions of the function whose symbol
contains FUNCTION. docs/performance.md has readings.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

CHILD = """
import os, sys, numba, numpy as np, importlib
if os.environ.get("NUMBA_DEBUGINFO") == "1":
    # line tables only (DWARF directives): full debug info of the inlined turn takes
    # tens of GB to compile
    from numba.core import compiler
    compiler.Flags.options["dbg_directives_only"]._default = True
from deepsim.bench import _prepare
numba.set_num_threads(1)
ruleset, players, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rs, prep = _prepare(ruleset, players)
K = importlib.import_module(f"deepsim.rulesets.{ruleset}.kernel")
args = prep.compiled["arrays"].kernel_args()
K.play_games(np.int64(1), np.int64(0), np.int64(8), *args)
cres = K.play_block.overloads[K.play_block.signatures[0]]
name = cres.fndesc.llvm_cpython_wrapper_name
print("ENTRY", cres.library.get_pointer_to_function(name), flush=True)
K.play_games(np.int64(1), np.int64(1000), np.int64(games), *args)
"""


def _object_file(tmp: Path, ruleset: str, env: dict) -> Path:
    """The ELF object of the newest cached ``play_block`` (numba's .nbc holds it)."""
    code = ("import numba, deepsim; print(numba.config.CACHE_DIR)")
    root = Path(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                               text=True, check=True).stdout.strip())
    files = sorted(root.glob(f"deepsim.rulesets.{ruleset}.kernel/kernel.play_block-*.nbc"),
                   key=lambda p: p.stat().st_mtime)
    if not files:
        sys.exit(f"error: no cached play_block in {root} (run the kernel once)")
    data = files[-1].read_bytes()
    out = tmp / "play_block.o"
    out.write_bytes(data[data.index(b"\x7fELF"):])
    return out


def _symbols(obj: Path) -> list[tuple[int, int, str]]:
    rows = []
    for line in subprocess.run(["objdump", "-t", str(obj)], capture_output=True,
                               text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[2] == "F":
            rows.append((int(parts[0], 16), int(parts[4], 16), parts[-1]))
    return sorted(rows)


def _short(name: str) -> str:
    m = re.match(r"_ZN(?:7cpython)?((?:\d+\w+?)+?)B\d", name)
    if not m:
        return name[:60]
    parts, s = [], m.group(1)
    while s:
        k = re.match(r"(\d+)", s)
        n = int(k.group(1))
        parts.append(s[len(k.group(1)):len(k.group(1)) + n])
        s = s[len(k.group(1)) + n:]
    return ".".join(parts[-2:])


def _lines(obj: Path, offsets: list[int]) -> dict[int, str]:
    """Per offset, ``file:line`` of its instruction, read from the object's line table
    (``objdump --dwarf=decodedline``: the line tables of a directives-only build carry no
    compile unit, so addr2line cannot read them). Line 0 (code the compiler made) counts
    for the line before it."""
    text = subprocess.run(["objdump", "--dwarf=decodedline", str(obj)], capture_output=True,
                          text=True, check=True).stdout
    rows = []
    for line in text.splitlines():
        p = line.split()
        if (len(p) >= 3 and p[0].endswith(".py") and p[1].isdigit()
                and (p[2].startswith("0x") or p[2] == "0")):
            rows.append((int(p[2], 16), p[0], int(p[1])))
    rows.sort()
    addrs = [r[0] for r in rows]
    out: dict[int, str] = {}
    for off in offsets:
        k = bisect.bisect_right(addrs, off) - 1
        j = k
        while j >= 0 and rows[j][2] == 0:
            j -= 1
        out[off] = f"{rows[k][1]}:{rows[j][2] if j >= 0 else 0}" if k >= 0 else "?:0"
    return out


def _enclosing(root: Path, ruleset: str) -> Callable[[str], tuple[str, str]]:
    """``file:line`` -> (the innermost ``def`` holding it, the line's text), looking the
    base name up in the ruleset's folder, then in the package."""
    spans: dict[str, tuple[list[tuple[int, int, str]], list[str]]] = {}

    def lookup(loc: str) -> tuple[str, str]:
        name, _, line = loc.rpartition(":")
        if name not in spans:
            spans[name] = ([], [])
            for f in (root / "rulesets" / ruleset / name, root / name):
                if f.is_file():
                    text = f.read_text()
                    spans[name] = ([(n.lineno, n.end_lineno, n.name)
                                    for n in ast.walk(ast.parse(text))
                                    if isinstance(n, ast.FunctionDef)], text.splitlines())
                    break
        defs, lines = spans[name]
        n = int(line) if line.isdigit() else 0
        best = None
        for lo, hi, fn in defs:
            if lo <= n <= hi and (best is None or lo > best[0]):
                best = (lo, fn)
        code = lines[n - 1].strip() if 0 < n <= len(lines) else ""
        return (f"{Path(name).stem}.{best[1]}" if best else name), code

    return lookup


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ruleset")
    ap.add_argument("games", nargs="?", type=int, default=1000)
    ap.add_argument("--players", type=int, default=None,
                    help="player count of the bench scenario (default: the middle of the "
                         "ruleset's bench player counts)")
    ap.add_argument("--hot", default=None)
    ap.add_argument("--lines", type=int, default=0,
                    help="map samples to source lines (compiles with debug info)")
    ap.add_argument("--cache", default="/tmp/deepsim-perf-cache",
                    help="numba cache folder of the debug-info build (with --lines)")
    a = ap.parse_args()
    if a.players is None:
        from deepsim.bench import bench_ruleset
        counts = tuple(bench_ruleset(a.ruleset).bench_players())
        players = counts[len(counts) // 2]          # the middle count, as the bench's
    else:
        players = a.players
    env = dict(os.environ)
    if a.lines:
        env["NUMBA_DEBUGINFO"] = "1"
        env["NUMBA_CACHE_DIR"] = a.cache
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        data = tmp / "perf.data"
        run = subprocess.run(["perf", "record", "-F", "4000", "-o", str(data), "--",
                              sys.executable, "-c", CHILD, a.ruleset, str(players),
                              str(a.games)],
                             check=False, capture_output=True, text=True, env=env)
        entry = [ln for ln in run.stdout.splitlines() if ln.startswith("ENTRY")]
        if run.returncode != 0 or not entry:
            sys.exit("error: perf record failed:\n" + run.stderr[-2000:])
        obj = _object_file(tmp, a.ruleset, env)
        syms = _symbols(obj)
        wrapper = [s for s in syms if s[2].startswith("_ZN7cpython") and "play_block" in s[2]]
        base = int(entry[0].split()[1]) - wrapper[0][0]
        ips = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"],
                             capture_output=True, text=True, check=True).stdout.split()
        cnt = collections.Counter(int(x, 16) - base for x in ips)
        starts = [s[0] for s in syms]
        per = collections.Counter()
        inside = {}
        for off, c in cnt.items():
            k = bisect.bisect_right(starts, off) - 1
            if k >= 0 and off < syms[k][0] + syms[k][1]:
                per[syms[k][2]] += c
                inside[off] = c
        total = sum(per.values())
        print(f"{total} samples in the kernel ({len(ips)} in the process)")
        for name, c in per.most_common(25):
            print(f"{100 * c / total:6.1f}%  {_short(name)}")
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(obj)],
                             capture_output=True, text=True, check=True).stdout
        push = 0
        hot = []
        target = [s for s in syms if a.hot and a.hot in s[2] and "cpython" not in s[2]]
        for line in dis.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\s*(\S+)(.*)", line)
            if not m:
                continue
            off = int(m.group(1), 16)
            c = cnt.get(off, 0)
            if m.group(2) == "push":
                push += c
            if target and target[0][0] <= off < target[0][0] + target[0][1]:
                hot.append((c, off, (m.group(2) + m.group(3))[:70]))
        print(f"pushing call arguments: {100 * push / max(total, 1):.1f}% of kernel samples")
        if hot:
            print(f"hottest instructions of {_short(target[0][2])}:")
            for c, off, ins in sorted(hot, reverse=True)[:30]:
                print(f"{c:6d} {off:x} {ins}")
        if a.lines:
            where = _lines(obj, sorted(inside))
            enclosing = _enclosing(Path(__file__).resolve().parent.parent / "deepsim",
                                   a.ruleset)
            by_line = collections.Counter()
            by_fn = collections.Counter()
            for off, c in inside.items():
                by_line[where[off]] += c
                by_fn[enclosing(where[off])[0]] += c
            print(f"\nhottest source lines ({a.lines}):")
            for loc, c in by_line.most_common(a.lines):
                print(f"{100 * c / total:6.1f}%  {loc:18s} {enclosing(loc)[1][:52]}")
            print(f"\nPython functions by their lines (self time, {a.lines}):")
            for fn, c in by_fn.most_common(a.lines):
                print(f"{100 * c / total:6.1f}%  {fn}")
            print("\nCaveat: a helper numba inlines itself (inline='always') keeps its line "
                  "numbers but\nis filed under its caller's file: read a line whose text "
                  "does not fit as that\nline of board.py, events.py or deepsim/rng.py.")


if __name__ == "__main__":
    main()
