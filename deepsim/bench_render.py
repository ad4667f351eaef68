"""Rich rendering of `deepsim bench` results (numbers from :mod:`deepsim.bench`)."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table


def _opt(value, spec: str) -> str:
    return "n/a" if value is None else spec.format(value)


def bench_table(res: dict) -> Group:
    """Tables of a bench result dict: speed per player count, then start-up, split, memory."""
    t = Table(title=f"{res['title']}: kernel speed on the bench scenario", title_justify="left",
              box=box.SIMPLE_HEAD)
    for col in ("n", "1T g/s", "2T g/s", "2T/1T", "Py g/s", "JIT/Py", "draws", "floor g/s",
                "of floor"):
        t.add_column(col, justify="right", no_wrap=True, min_width=len(col))
    t.caption = ("n players. 1T: games/s per core, 1 thread. Py: the same code as plain\n"
                 "Python (NUMBA_DISABLE_JIT=1). draws: random draws a game. floor: games/s\n"
                 "if only the draws cost.")
    t.caption_justify = "left"
    for n, r in res["players"].items():
        t.add_row(n, f"{r['games_per_s_per_core_1_thread']:,.0f}",
                  f"{r['games_per_s_2_threads']:,.0f}", f"{r['scaling_2_threads']:.2f}x",
                  f"{r['python_games_per_s']:,.1f}", f"{r['jit_vs_python']:,.0f}x",
                  _opt(r["rng_draws_per_game"], "{:,.0f}"),
                  _opt(r["rng_floor_games_per_s"], "{:,.0f}"),
                  _opt(r["fraction_of_floor"], "{:.1%}"))
    o = Table(title="Start-up, end-to-end split and memory", title_justify="left")
    o.add_column("Measure")
    o.add_column("Value", justify="right")
    o.add_row("RNG alone (vectorisation off)", f"{res['rng_ns_per_draw']:.2f} ns/draw")
    cold = res.get("cold_compile_s")
    cpu = res.get("cold_compile_cpu_s")
    o.add_row("cold compile, run (empty cache)", "not measured" if cold is None else
              f"{cold:.1f} s" + ("" if cpu is None else f" ({cpu:.1f} s CPU)"))
    trace = res.get("cold_trace_cpu_s")
    if trace is not None:
        o.add_row("  then the trace entry point", f"{trace:.1f} s CPU")
    o.add_row("cached start", f"{res['cached_start_s']:.1f} s")
    sp = res["split"]
    total = sp.get("total_s")
    o.add_row(f"run of {sp['games']:,} games (no report)",
              "n/a" if total is None else f"{total:.1f} s")
    o.add_row("  of which play and frames", f"{sp['kernel_s']:.1f} s")
    o.add_row("  writing not hidden by play", f"{sp['write_s']:.1f} s")
    o.add_row("  report", "n/a" if sp.get("report_s") is None else f"{sp['report_s']:.1f} s")
    for n, mb in res["peak_rss_mb"].items():
        o.add_row(f"peak memory, {int(n):,} games", f"{mb:,.0f} MiB")
    return Group(t, o)
