"""deepfall_findings' section-only options rewrite one section of FINDINGS.md and keep
the others (other studies write them)."""

from __future__ import annotations


def test_readings_only_replaces_that_section_alone(tmp_path):
    """deepfall_findings --readings-only: the Conjuncts and readings table from claims.py,
    every other section as it was."""
    from deepsim.studies.deepfall_findings import main

    md = tmp_path / "FINDINGS.md"
    md.write_text("# F\n\n## Before\n\nkeep 1\n\n## Conjuncts and readings\n\nstale words\n\n"
                  "## After\n\nkeep 2\n")
    assert main(["--readings-only", "--out", str(tmp_path)]) == 0
    text = md.read_text()
    assert "stale words" not in text and "keep 1" in text and text.endswith("## After\n\nkeep 2\n")
    assert "| B1 |" in text and "`pace`" in text
    md.write_text("# F\n")
    assert main(["--readings-only", "--out", str(tmp_path)]) == 2
