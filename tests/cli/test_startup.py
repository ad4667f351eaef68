"""The command line starts light: ``deepsim --help`` and every command's ``--help`` load no
numerical library (numba, pandas, scipy, statsmodels, matplotlib, pyarrow, optuna), which
is what kept every command 3-4 s from its first line. Each command imports what it needs
when it runs. (Timings are measured, not tested: docs/performance.md.)"""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numba", "pandas", "scipy", "statsmodels", "matplotlib", "pyarrow", "optuna",
         "dask", "icepool")

PROBE = r"""
import sys
import typer.main
from deepsim.cli import app

heavy = {heavy!r}
cmd = typer.main.get_command(app)
names = [None] + sorted(cmd.list_commands(None))
for name in names:
    argv = ([name] if name else []) + ["--help"]
    try:
        app(argv, prog_name="deepsim", standalone_mode=False)
    except SystemExit:
        pass
    loaded = [m for m in heavy if m in sys.modules]
    if loaded:
        print("LOADED", name, loaded)
        break
else:
    print("OK", len(names))
"""


def test_every_help_loads_no_numerical_library():
    out = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY)], check=False,
                         capture_output=True, text=True, timeout=300,
                         env={"COLUMNS": "80", "PATH": ""})
    last = out.stdout.strip().splitlines()[-1]
    assert last.startswith("OK"), (last, out.stderr[-2000:])
    assert int(last.split()[1]) >= 15           # the top level and every command


def test_the_odds_help_lists_rulesets_without_importing_them():
    probe = ("import sys\nfrom deepsim.cli import app\n"
             "try:\n    app(['odds', '--help'], prog_name='deepsim', standalone_mode=False)\n"
             "except SystemExit:\n    pass\n"
             "print([m for m in sys.modules if m.startswith('deepsim.rulesets.')])")
    out = subprocess.run([sys.executable, "-c", probe], check=False, capture_output=True,
                         text=True, timeout=300, env={"COLUMNS": "80", "PATH": ""})
    assert "deepfall" in out.stdout and "atlantis" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout
