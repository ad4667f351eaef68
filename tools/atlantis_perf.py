"""Where the Atlantis kernel spends its time: `perf` samples mapped to numba functions.

numba's compiled code carries no symbols `perf` can see, but numba's cache keeps the
object code of each entry point, symbol table included. This script plays GAMES games of
the bench scenario on one thread under ``perf record``, finds ``play_block``'s address in
the process and the cached object file, and reports the share of kernel samples per
compiled function (functions numba or LLVM inlined count in their caller), and the share
spent pushing call arguments (every call passes each array of the game state).

Usage (Linux with ``perf``; run from the checkout, the kernel compiled or cached)::

    PYTHONPATH=$PWD python tools/atlantis_perf.py [GAMES] [--hot FUNCTION]

``--hot FUNCTION`` also prints the hottest instructions of the function whose symbol
contains FUNCTION (e.g. ``swim_phase``). docs/performance.md ("Atlantis") has readings.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import sys, numba, numpy as np
from deepsim.bench import _prepare
numba.set_num_threads(1)
rs, prep = _prepare("atlantis", 2)
rs.warm_up(prep)
from deepsim.rulesets.atlantis import kernel as K
args = prep.compiled["arrays"].kernel_args()
K.play_games(np.int64(1), np.int64(0), np.int64(8), *args)
cres = K.play_block.overloads[K.play_block.signatures[0]]
name = cres.fndesc.llvm_cpython_wrapper_name
print("ENTRY", cres.library.get_pointer_to_function(name), flush=True)
K.play_games(np.int64(1), np.int64(1000), np.int64(int(sys.argv[1])), *args)
"""


def _object_file(tmp: Path) -> Path:
    """The ELF object of the newest cached ``play_block`` (numba's .nbc holds it)."""
    import numba

    import deepsim  # noqa: F401  (sets numba's cache folder)
    root = Path(numba.config.CACHE_DIR)
    files = sorted(root.glob("deepsim.rulesets.atlantis.kernel/kernel.play_block-*.nbc"),
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="?", type=int, default=1000)
    ap.add_argument("--hot", default=None)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        data = tmp / "perf.data"
        run = subprocess.run(["perf", "record", "-F", "4000", "-o", str(data), "--",
                              sys.executable, "-c", CHILD, str(a.games)],
                             check=False, capture_output=True, text=True)
        entry = [ln for ln in run.stdout.splitlines() if ln.startswith("ENTRY")]
        if run.returncode != 0 or not entry:
            sys.exit("error: perf record failed:\n" + run.stderr[-2000:])
        obj = _object_file(tmp)
        syms = _symbols(obj)
        wrapper = [s for s in syms if s[2].startswith("_ZN7cpython") and "play_block" in s[2]]
        base = int(entry[0].split()[1]) - wrapper[0][0]
        ips = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"],
                             capture_output=True, text=True, check=True).stdout.split()
        cnt = collections.Counter(int(x, 16) - base for x in ips)
        starts = [s[0] for s in syms]
        per = collections.Counter()
        for off, c in cnt.items():
            k = bisect.bisect_right(starts, off) - 1
            if k >= 0 and off < syms[k][0] + syms[k][1]:
                per[syms[k][2]] += c
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


if __name__ == "__main__":
    main()
