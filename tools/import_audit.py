"""The package's import structure in numbers: cycles, upward imports, deferred imports,
imports of another module's private names, game folders' ``__init__`` lengths, ``hasattr``
on a ruleset, and code copied between game folders.

The layers are read from the ``layers`` contract of ``[tool.importlinter]`` in the
checkout's ``pyproject.toml`` (or from ``--layers-from``, another pyproject, to measure an
older checkout against today's layers); the import graph is grimp's (every import
statement, those inside functions included), the statement counts come from the source's
syntax trees. ``lint-imports`` is what enforces the contract; this script measures, so a
before/after comparison can be repeated:

    .venv/bin/python tools/import_audit.py                       # this checkout
    git archive 3435998 | tar -x -C /tmp/before
    .venv/bin/python tools/import_audit.py --repo /tmp/before --layers-from pyproject.toml

Exit status 0; ``--json`` prints the numbers as one JSON object.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = "deepsim"
GAMES_DIR = Path(ROOT) / "rulesets"


def layer_map(pyproject: Path) -> tuple[list[list[str]], list[tuple[str, str]]]:
    """(layers bottom first, each a list of top-level names; ignored imports) of the
    pyproject's first ``layers`` contract with container ``deepsim``."""
    conf = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]
    for c in conf["contracts"]:
        if c["type"] == "layers" and c.get("containers") == [ROOT]:
            layers = [[m.strip() for m in re.split(r"[:|]", line)] for line in c["layers"]]
            ignored = [tuple(x.strip() for x in i.split("->"))
                       for i in c.get("ignore_imports", [])]
            return list(reversed(layers)), ignored
    raise SystemExit(f"{pyproject}: no layers contract with containers = ['{ROOT}']")


def module_name(path: Path, repo: Path) -> str:
    parts = list(path.relative_to(repo).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(node: ast.ImportFrom, mod: str, is_pkg: bool) -> str:
    """The absolute module of a ``from X import ...`` (relative ones resolved)."""
    if not node.level:
        return node.module or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def scan_sources(repo: Path) -> dict:
    """Import statements of the package from its syntax trees."""
    stmts = deferred = 0
    private, hasattrs = [], []
    for path in sorted((repo / ROOT).rglob("*.py")):
        mod = module_name(path, repo)
        is_pkg = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parent = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
        aliases: dict[str, str] = {}          # local name -> deepsim module it names
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [(a.name, a.asname) for a in node.names]
                names = []
            elif isinstance(node, ast.ImportFrom):
                targets = [(resolve(node, mod, is_pkg), None)]
                names = [(a.name, a.asname) for a in node.names]
            else:
                continue
            for target, asname in targets:
                if not target.startswith(ROOT):
                    continue
                stmts += 1
                up, inside = node, False
                while up in parent:
                    up = parent[up]
                    if isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        inside = True
                        break
                deferred += inside
                if asname:
                    aliases[asname] = target
                for name, nm_as in names:
                    if name.startswith("_") and not name.startswith("__"):
                        private.append(f"{mod}: from {target} import {name}")
                    else:   # ``from deepsim.x import y``: y may be a module
                        aliases[nm_as or name] = f"{target}.{name}"
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.attr.startswith("_") and not node.attr.startswith("__")
                    and node.attr not in NAMEDTUPLE_API
                    and node.value.id in aliases and aliases[node.value.id] != mod):
                private.append(f"{mod}: {aliases[node.value.id]}.{node.attr}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "hasattr" and len(node.args) == 2
                    and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in RULESET_NAMES):
                hasattrs.append(f"{mod}:{node.lineno} hasattr(..., {node.args[1].value!r})")
    return {"statements": stmts, "deferred": deferred, "private": sorted(set(private)),
            "hasattr": hasattrs}


#: a named tuple's public methods and attributes (their names start with an underscore)
NAMEDTUPLE_API = {"_fields", "_field_defaults", "_replace", "_asdict", "_make"}

#: attribute names of the ruleset contract (a ``hasattr`` with one of them is a hook found
#: by probing rather than declared)
RULESET_NAMES = {
    "prepare", "run_chunk", "run_games", "trace", "trace_result", "trace_records",
    "bot_data", "golden_cases", "parameters", "factions", "warm_up", "odds",
    "report_sections", "report_claims", "report_roles", "method_text", "language_rows",
    "search_spaces", "bench_scenario", "bench_players", "compile_estimate_s",
}


def graph_numbers(repo: Path, layers: list[list[str]], ignored: list[tuple[str, str]]
                  ) -> dict:
    import grimp
    sys.path.insert(0, str(repo))
    for m in [m for m in sys.modules if m == ROOT or m.startswith(ROOT + ".")]:
        del sys.modules[m]
    graph = grimp.build_graph(ROOT, cache_dir=None)
    level = {name: i for i, group in enumerate(layers) for name in group}
    edges = [(a, b) for a in sorted(graph.modules)
             for b in sorted(graph.find_modules_directly_imported_by(a))]

    def layer_of(m: str) -> int | None:
        parts = m.split(".")
        return level.get(parts[1]) if len(parts) > 1 else None

    upward, unplaced = [], set()
    for a, b in edges:
        la, lb = layer_of(a), layer_of(b)
        for m, lm in ((a, la), (b, lb)):
            if lm is None and m != ROOT:
                unplaced.add(m.split(".")[1])
        if la is not None and lb is not None and lb > la:
            upward.append((a, b))
    return {"modules": len(graph.modules), "edges": len(edges),
            "cycles": strongly_connected(graph), "upward": upward,
            "upward_ignored": [e for e in upward if e in set(ignored)],
            "unplaced": sorted(unplaced)}


def strongly_connected(graph) -> list[list[str]]:
    """Import cycles: the strongly connected components of more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(graph.find_modules_directly_imported_by(v))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.find_modules_directly_imported_by(w)))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))

    for m in sorted(graph.modules):
        if m not in index:
            visit(m)
    return sorted(out)


def game_folders(repo: Path) -> list[Path]:
    return sorted(p for p in (repo / GAMES_DIR).iterdir()
                  if p.is_dir() and (p / "__init__.py").is_file())


def init_lengths(repo: Path) -> dict[str, int]:
    return {p.name: len((p / "__init__.py").read_text(encoding="utf-8").splitlines())
            for p in game_folders(repo)}


def cross_game_duplicates(repo: Path, min_lines: int) -> list[str] | None:
    """Pairs of places in two different game folders sharing ``min_lines`` or more lines
    (the ``duplicates`` command of the tool library), or None without it."""
    exe = shutil.which("duplicates")
    if exe is None:
        return None
    out = subprocess.run([exe, "--repo", str(repo / GAMES_DIR), "--min-lines",
                          str(min_lines), "--most", "200", "--seconds", "120"],
                         capture_output=True, text=True, check=False).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"^D\d+ (\S+?)/\S+ ~ (\S+?)/\S+", line)
        if m and m.group(1) != m.group(2):
            rows.append(line)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1],
                    help="checkout to measure (default: this one)")
    ap.add_argument("--layers-from", type=Path, default=None,
                    help="pyproject.toml whose layers contract to use (default: the repo's)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("--dup-lines", type=int, default=11,
                    help="shared lines that make a cross-folder duplicate (default 11: "
                         "'no pair longer than 10 lines')")
    args = ap.parse_args(argv)
    repo = args.repo.resolve()
    layers, ignored = layer_map((args.layers_from or repo / "pyproject.toml").resolve())
    os.chdir(repo)
    src = scan_sources(repo)
    g = graph_numbers(repo, layers, ignored)
    res = {
        "repo": str(repo), "modules": g["modules"], "import_edges": g["edges"],
        "import_statements": src["statements"], "deferred_statements": src["deferred"],
        "cycles": g["cycles"], "upward": [f"{a} -> {b}" for a, b in g["upward"]],
        "upward_ignored_in_contract": [f"{a} -> {b}" for a, b in g["upward_ignored"]],
        "unplaced_top_level": g["unplaced"], "private_imports": src["private"],
        "hasattr_on_ruleset": src["hasattr"], "init_lines": init_lengths(repo),
        "cross_game_duplicates": cross_game_duplicates(repo, args.dup_lines),
    }
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    print(f"checkout: {repo}")
    print(f"modules {res['modules']}, import edges {res['import_edges']}")
    print(f"internal import statements {res['import_statements']}, inside functions "
          f"{res['deferred_statements']}")
    print(f"import cycles: {len(res['cycles'])}")
    for c in res["cycles"]:
        print(f"  ({len(c)}) " + " ".join(m.removeprefix('deepsim.') for m in c))
    print(f"upward imports: {len(res['upward'])} "
          f"({len(res['upward_ignored_in_contract'])} listed as exceptions in the contract)")
    for e in res["upward"]:
        print(f"  {e}" + ("   [exception]" if e in res["upward_ignored_in_contract"] else ""))
    if res["unplaced_top_level"]:
        print("top-level modules in no layer: " + ", ".join(res["unplaced_top_level"]))
    print(f"imports of another module's private names: {len(res['private_imports'])}")
    for p in res["private_imports"]:
        print(f"  {p}")
    print(f"hasattr on a ruleset: {len(res['hasattr_on_ruleset'])}")
    for h in res["hasattr_on_ruleset"]:
        print(f"  {h}")
    print("game folders' __init__.py lines: " + ", ".join(
        f"{k} {v}" for k, v in res["init_lines"].items()))
    dups = res["cross_game_duplicates"]
    if dups is None:
        print("cross-folder duplicates: not measured (no `duplicates` command)")
    else:
        print(f"pairs across two game folders sharing >= {args.dup_lines} lines: {len(dups)}")
        for d in dups:
            print(f"  {d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
