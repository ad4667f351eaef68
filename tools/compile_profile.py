"""Where a ruleset's cold compile goes: CPU seconds per numba function and type signature.

Usage::

    python tools/compile_profile.py RULESET [--scenario FILE] [--trace] [--all]
                                    [--top N] [--json OUT] [--passes] [--cache DIR]

In a fresh process with an empty numba cache (``NUMBA_CACHE_DIR`` a new temporary folder)
it imports deepsim, prepares the scenario (default: the ruleset's default scenario) and
calls ``Ruleset.warm_up`` as ``deepsim run`` does (``--trace``: as ``deepsim trace`` too;
``--all``: as ``deepsim warmup``, every version), listening to numba's events:

- ``numba:compile`` (one per function and signature compiled): inclusive and exclusive
  CPU time (exclusive: minus the compiles it triggered while typing its calls);
- ``numba:run_pass`` (numba's compiler passes, ``--passes``): exclusive CPU time per pass,
  summed over functions, and the largest passes of the costliest functions
  (``NativeLowering`` holds the LLVM optimisation and code generation of a function's
  library);
- ``numba:llvm_lock`` (time inside LLVM), per function.

Time is ``time.process_time()`` of the process (compiling is single-threaded), which a
busy machine disturbs less than wall time. Prints a table; ``--json`` writes every row.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

_CHILD = r"""
import json, sys, time
from collections import defaultdict
from numba.core import event

args = json.loads(sys.argv[1])
clock = time.process_time
stack = []          # [kind, key, start, nested compile time, nested pass time]
funcs = defaultdict(lambda: {"n": 0, "incl": 0.0, "excl": 0.0, "llvm": 0.0, "sigs": [],
                             "args": []})
passes = defaultdict(float)
llvm_total = [0.0]
cur_func = []


def fname(ev):
    disp = ev.data.get("dispatcher")
    fn = getattr(disp, "py_func", None)
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"


class L(event.Listener):
    def on_start(self, ev):
        if ev.kind == "numba:compile":
            key = fname(ev)
            cur_func.append(key)
            sig = ", ".join(str(a) for a in ev.data.get("args", ()))
            funcs[key]["sigs"].append(sig if len(sig) <= 300 else sig[:100] + " ... " + sig[-200:])
            funcs[key]["args"].append([str(a)[:120] for a in ev.data.get("args", ())])
        elif ev.kind == "numba:run_pass":
            key = ev.data["name"].split(" [")[0]
        else:
            key = None
        stack.append([ev.kind, key, clock(), 0.0, 0.0])

    def on_end(self, ev):
        kind, key, t0, n_compile, n_pass = stack.pop()
        dt = clock() - t0
        parent = stack[-1] if stack else None
        if kind == "numba:compile":
            cur_func.pop()
            f = funcs[key]
            f["n"] += 1
            f["incl"] += dt
            f["excl"] += dt - n_compile
            if parent:
                parent[3] += dt
        elif kind == "numba:run_pass":
            passes[key] += dt - n_compile - n_pass
            if cur_func:                    # the pass's own time, per function compiled
                fp = funcs[cur_func[-1]].setdefault("passes", {})
                fp[key] = fp.get(key, 0.0) + dt - n_compile - n_pass
            if parent:
                parent[3] += n_compile
                parent[4] += dt - n_compile
        else:   # numba:llvm_lock
            llvm_total[0] += dt
            if cur_func:
                funcs[cur_func[-1]]["llvm"] += dt
            if parent:
                parent[3] += n_compile


t0, c0 = time.perf_counter(), clock()
from deepsim import jitcache
from deepsim.rulesets import get
rs = get(args["ruleset"])
prepared = None
if args["scenario"]:
    from deepsim import runner
    rs, _, prepared = runner.resolve(args["scenario"])
t_import, c_import = time.perf_counter() - t0, clock() - c0
kinds = ["numba:compile", "numba:run_pass", "numba:llvm_lock"] if args["passes"] else \
        ["numba:compile", "numba:llvm_lock"]
lst = L()
for k in kinds:
    event.register(k, lst)
t1, c1 = time.perf_counter(), clock()
if args["all"]:
    rs.warm_up(None, trace=True)
else:
    rs.warm_up(prepared, trace=False)
    t_run, c_run = time.perf_counter() - t1, clock() - c1
    if args["trace"]:
        rs.warm_up(prepared, trace=True)
t_warm, c_warm = time.perf_counter() - t1, clock() - c1
out = {"import_s": t_import, "import_cpu_s": c_import, "warm_s": t_warm, "warm_cpu_s": c_warm,
       "llvm_cpu_s": llvm_total[0], "functions": dict(funcs), "passes": dict(passes)}
if not args["all"]:
    out.update(run_s=t_run, run_cpu_s=c_run)
print("@@" + json.dumps(out))
"""


def profile(ruleset: str, scenario: str | None = None, *, trace: bool = False,
            everything: bool = False, passes: bool = False, cache: str | None = None) -> dict:
    """Run the probe in a fresh process with an empty cache; return its JSON record.

    ``cache``: an empty folder to compile into and keep (tests run afterwards with
    ``NUMBA_CACHE_DIR`` set to it load what was compiled); default a temporary folder."""
    if cache is not None:
        os.makedirs(cache, exist_ok=True)
        if os.listdir(cache):
            raise SystemExit(f"--cache {cache}: not empty (a cold compile needs an empty cache)")
    with tempfile.TemporaryDirectory(prefix="deepsim-compile-") as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache or tmp)
        env.pop("NUMBA_DISABLE_JIT", None)
        arg = json.dumps({"ruleset": ruleset, "scenario": scenario, "trace": trace,
                          "all": everything, "passes": passes})
        out = subprocess.run([sys.executable, "-c", _CHILD, arg], env=env, check=True,
                             capture_output=True, text=True)
    line = [x for x in out.stdout.splitlines() if x.startswith("@@")][-1]
    return json.loads(line[2:])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ruleset")
    ap.add_argument("--scenario")
    ap.add_argument("--trace", action="store_true", help="also what deepsim trace compiles")
    ap.add_argument("--all", action="store_true", help="every version (deepsim warmup)")
    ap.add_argument("--passes", action="store_true", help="numba pass timings too")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--json")
    ap.add_argument("--cache", help="an empty folder to compile into and keep (NUMBA_CACHE_DIR "
                    "for tests afterwards); default a temporary folder")
    a = ap.parse_args(argv)
    rec = profile(a.ruleset, a.scenario, trace=a.trace, everything=a.all, passes=a.passes,
                  cache=a.cache)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rec, fh, indent=1)
    funcs = rec["functions"]
    n_sigs = sum(f["n"] for f in funcs.values())
    print(f"import+prepare {rec['import_cpu_s']:.1f} s CPU; "
          + (f"run {rec['run_cpu_s']:.1f} s CPU ({rec['run_s']:.1f} s wall); "
             if "run_cpu_s" in rec else "")
          + f"all warm_up {rec['warm_cpu_s']:.1f} s CPU ({rec['warm_s']:.1f} s wall); "
          f"LLVM {rec['llvm_cpu_s']:.1f} s; {len(funcs)} functions, {n_sigs} compiles")
    print(f"{'function':60} {'n':>3} {'excl':>7} {'incl':>7} {'llvm':>7}")
    for name, f in sorted(funcs.items(), key=lambda kv: -kv[1]["excl"])[:a.top]:
        short = name.replace("deepsim.rulesets.", "")
        print(f"{short[-60:]:60} {f['n']:>3} {f['excl']:7.2f} {f['incl']:7.2f} {f['llvm']:7.2f}")
    several = [(n, f) for n, f in funcs.items() if f["n"] > 1 and f.get("args")]
    if several:
        # a second signature usually comes from a literal argument (a constant, or a
        # variable first typed as its literal initial value): name the arguments that differ
        print("\ncompiled more than once (the arguments that differ):")
        for name, f in sorted(several, key=lambda kv: -kv[1]["excl"]):
            sigs = f["args"]
            differ = [k for k in range(min(len(s) for s in sigs))
                      if len({s[k] for s in sigs}) > 1]
            what = "; ".join(f"arg {k}: " + " / ".join(s[k] for s in sigs) for k in differ)
            print(f"  {name.replace('deepsim.rulesets.', '')}: {what or 'argument count'}")
    if rec["passes"]:
        print("\nnumba passes (exclusive CPU s):")
        for name, t in sorted(rec["passes"].items(), key=lambda kv: -kv[1])[:15]:
            print(f"  {name:40} {t:7.2f}")
        print("\nthe largest passes of the five costliest functions (exclusive CPU s):")
        for name, f in sorted(funcs.items(), key=lambda kv: -kv[1]["excl"])[:5]:
            top = sorted(f.get("passes", {}).items(), key=lambda kv: -kv[1])[:6]
            print(f"  {name.replace('deepsim.rulesets.', '')}: "
                  + ", ".join(f"{k} {t:.2f}" for k, t in top))


if __name__ == "__main__":
    main()
