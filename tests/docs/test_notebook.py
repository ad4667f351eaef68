"""The example notebook (docs/notebooks/rule-change.ipynb) runs top to bottom."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "notebooks" / "rule-change.ipynb"


@pytest.mark.slow
def test_rule_change_notebook_runs_and_shows_the_paired_change():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # the notebook plays 2 x 6,000 games; a smaller count keeps the test fast
    nb.cells[1].source = nb.cells[1].source.replace("GAMES = 6000", "GAMES = 1500")
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("text", ""))
                   for o in outputs)
    assert "Wardancer" in text and "change" in text
    assert any("image/png" in o.get("data", {}) for o in outputs)
