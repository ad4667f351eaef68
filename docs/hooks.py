"""mkdocs hooks of the documentation site (mkdocs.yml ``hooks:``).

``<!-- deepsim:params RULESET -->`` in a page becomes the table of that ruleset's
parameters, read from its data at build time (what ``deepsim params RULESET`` prints), so
the Reference never drifts from the data files; ``<!-- deepsim:params all -->`` gives a
section per ruleset deepsim plays (a new game's table appears by itself).
"""

from __future__ import annotations

import re

_PARAMS = re.compile(r"<!-- deepsim:params (\w+) -->")


def _cell(value) -> str:
    text = str(value).replace("|", "\\|").replace("\n", " ")
    return text if text else " "


def params_table(name: str) -> str:
    """The Markdown table of ruleset ``name``'s parameters: path, default, type, bounds,
    rulebook section or gap."""
    from deepsim import runner

    rs = runner.get_ruleset(name)
    rows = rs.parameters()
    out = [(f"{len(rows)} parameters of {rs.title} (`deepsim params {name}`; "
           "change one with `--set PATH=VALUE` or a scenario's `overrides:`)."), "",
           "| Path | Default | Type | Bounds | Rulebook / gap |",
           "| --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append("| `{}` | `{}` | {} | {} | {} |".format(
            r["path"], _cell(r["default"]), _cell(r["type"]), _cell(r["bounds"]),
            _cell(r["section"])))
    return "\n".join(out)


def _params(name: str) -> str:
    if name != "all":
        return params_table(name)
    from deepsim import rulesets

    parts = []
    # the main ruleset first, then the others by name
    for rs_name in sorted(rulesets.playable(), key=lambda n: (n != "deepfall", n)):
        title = rulesets.get(rs_name).title
        parts.append(f"## {title}\n\n{params_table(rs_name)}\n")
    return "\n".join(parts)


_BENCH = re.compile(r"<!-- deepsim:bench ([\w./-]+) -->")


def bench_table(path: str) -> str:
    """The Markdown table of a ``deepsim bench --out`` JSON file (the committed reference
    run, ``reports/bench.json``): games/s per core per player count, JIT against plain
    Python, 2-thread scaling, compile and end-to-end times, peak memory."""
    import json
    from pathlib import Path

    b = json.loads(Path(path).read_text())
    m = b["machine"]
    out = [(f"{b['title']}, `deepsim bench {b['ruleset']} --out {path}` on a "
           f"{m['cpu_count']}-core machine (Python {m['python']}, numba {m['numba']})."), "",
           ("| players | games/s, 1 thread | games/s, 2 threads | 2T / 1T | plain Python "
           "games/s | JIT / Python | RNG draws per game |"),
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for n, p in sorted(b["players"].items(), key=lambda kv: int(kv[0])):
        out.append(f"| {n} | {p['games_per_s_1_thread']:,.0f} | {p['games_per_s_2_threads']:,.0f}"
                   f" | {p['scaling_2_threads']:.2f}x | {p['python_games_per_s']:,.1f} | "
                   f"{p['jit_vs_python']:,.0f}x | {p['rng_draws_per_game']:,.0f} |")
    s = b.get("split", {})
    rss = ", ".join(f"{int(k):,} games {v:,.0f} MiB" for k, v in b.get("peak_rss_mb", {}).items())
    out += ["", (f"- compile on an empty cache: {b['cold_compile_s']:.1f} s "
            f"({b['cold_functions']} functions); the traced variant "
            f"{b.get('cold_trace_cpu_s', float('nan')):.0f} s of CPU more; a cached start "
            f"{b['cached_start_s']:.1f} s"),
            f"- RNG alone: {b['rng_ns_per_draw']:.2f} ns per draw",
            (f"- {s.get('games', 0):,} games on {s.get('threads', 0)} threads: kernel "
            f"{s.get('kernel_s', 0):.1f} s, writing {s.get('write_s', 0):.1f} s, the "
            f"report {s.get('report_s', 0):.1f} s"),
            f"- peak memory: {rss}"]
    return "\n".join(out)


#: the offline plugin's file:// search shim, served from the site itself (see the file)
SHIM = "assets/iframe-worker-shim.js"


def on_config(config):
    """Serve the offline search shim from the site instead of a CDN: mkdocs-material's
    offline plugin appends ``https://unpkg.com/iframe-worker/shim`` to the page's
    polyfills, which an offline site must not load (this hook runs after the plugins')."""
    polyfills = config.extra.get("polyfills", [])
    config.extra["polyfills"] = [SHIM if "iframe-worker" in str(url) else url
                                 for url in polyfills]
    return config


# a Sphinx role in a docstring (":class:`~deepsim.errors.InputError`") as mkdocstrings
# renders it: the role's name left as text before the code span
_ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj|const):(<code[^>]*>)(~?)([\w.]+)")


def on_page_content(html: str, page, config, files) -> str:
    """Drop the Sphinx role names the API docstrings use (numpy and scipy style):
    ``:func:`simulate``` reads ``simulate``; a ``~`` keeps the last name only."""
    return _ROLE.sub(lambda m: m.group(1) + (m.group(3).rsplit(".", 1)[-1] if m.group(2)
                                              else m.group(3)), html)


_GROUPS = "<!-- deepsim:cli-groups -->"


def cli_groups() -> str:
    """The Markdown table of ``deepsim --help``'s command groups (``deepsim.cli.help``)."""
    from deepsim.cli.help import GROUPS

    rows = ["| Group | Commands |", "| --- | --- |"]
    rows += [f"| {title} | {', '.join(f'`{n}`' for n in names)} |"
             for title, names in GROUPS.items()]
    return "\n".join(rows)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if _GROUPS in markdown:
        markdown = markdown.replace(_GROUPS, cli_groups())
    markdown = _BENCH.sub(lambda m: bench_table(m.group(1)), markdown)
    return _PARAMS.sub(lambda m: _params(m.group(1)), markdown)


#: committed study reports shown on the site as they are (generated by `make findings`,
#: `make atlantis-findings`, `make abyss-findings`, `make rove-findings`), with their
#: figures, under reports/
REPORTS = ("FINDINGS.md", "findings", "atlantis", "abyss", "reconstruct", "rove")


def on_files(files, config):
    """Mount the committed reports (Markdown, PNG figures and their JSON figures, e.g.
    ``findings/figures.json``) into the site under ``reports/``, so Games pages link to the
    findings without copying them."""
    from pathlib import Path

    from mkdocs.structure.files import File

    root = Path(config["config_file_path"]).parent / "reports"
    for name in REPORTS:
        base = root / name
        paths = [base] if base.is_file() else sorted(base.rglob("*"))
        for path in paths:
            if path.suffix not in (".md", ".png", ".json"):
                continue
            uri = "reports/" + path.relative_to(root).as_posix()
            if files.get_file_from_path(uri) is None:
                files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files
