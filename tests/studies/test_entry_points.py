"""The studies' command lines (``python -m deepsim.studies.NAME``): bad input exits 2 with
the file named, before any game; no library module below the faces has a ``__main__``."""

import subprocess
import sys
from pathlib import Path

import deepsim


def test_claims_summary_names_a_folder_that_is_no_tune(tmp_path, capsys):
    from deepsim.studies.claims_summary import main

    assert main([str(tmp_path / "nope")]) == 2
    assert "not a finished claims tune" in capsys.readouterr().err


def test_the_page_writers_refuse_a_missing_runs_folder(tmp_path):
    res = subprocess.run([sys.executable, "-m", "deepsim.studies.rivals",
                          str(tmp_path / "nope"), "--out", str(tmp_path / "p.md")],
                         check=False, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and not (tmp_path / "p.md").exists()
    assert res.stderr.startswith("error: ") and "run directory not found" in res.stderr


def test_only_faces_and_the_warmup_worker_run_as_python_m():
    """Entry points live in the CLI or in studies; ``deepsim.warmup``'s is the worker
    process its parallel compile starts (not a user's command)."""
    root = Path(deepsim.__file__).parent
    mains = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                   if '__name__ == "__main__"' in p.read_text(encoding="utf-8"))
    allowed = ("cli/", "studies/", "warmup.py")
    assert [m for m in mains if not m.startswith(allowed)] == []
