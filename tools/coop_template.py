"""Write (or check) the co-operative scaffold's game files from Bank.

``deepsim new-ruleset NAME --cooperative`` writes the files of
``deepsim/newruleset/template_coop/src/__package__/``: Bank's folder
(``deepsim/rulesets/bank/``) with its names turned into the scaffold's tokens. This script
makes them (``python tools/coop_template.py``) or checks they are current (``--check``,
what ``tests/newruleset/test_plugins.py`` runs), so the scaffold never drifts from the game the tests
prove against its exact answer.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "deepsim" / "rulesets" / "bank"
TARGET = ROOT / "deepsim" / "newruleset" / "template_coop" / "src" / "__package__"
FILES = ("__init__.py", "bots.yaml", "data.py", "exact.py", "golden.yaml", "kernel.py",
         "rules.md", "ruleset.py", "ruleset.yaml", "scenario.py", "schema.py", "trace.py")


def tokenised(text: str) -> str:
    """Bank's text with the scaffold's tokens for its package, name and title."""
    text = text.replace("deepsim.rulesets.bank", "{{PACKAGE}}")
    text = text.replace("deepsim golden --digests tests/golden.json --update bank",
                        "deepsim golden --digests tests/golden.json --update {{NAME}}")
    text = re.sub(r'"bank"', '"{{NAME}}"', text)
    text = re.sub(r"\bruleset: bank\b", "ruleset: {{NAME}}", text)
    text = re.sub(r"\bparams bank\b", "params {{NAME}}", text)
    text = re.sub(r"\bBankRuleset\b", "GameRuleset", text)
    text = re.sub(r"\bBankScenario\b", "GameScenario", text)
    text = re.sub(r"\bBankData\b", "GameData", text)
    return re.sub(r"\bBank\b", "{{TITLE}}", text)


def main(argv: list[str]) -> int:
    stale = []
    for name in FILES:
        want = tokenised((SOURCE / name).read_text(encoding="utf-8"))
        dest = TARGET / f"{name}.tmpl"
        if "--check" in argv:
            if not dest.exists() or dest.read_text(encoding="utf-8") != want:
                stale.append(name)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(want, encoding="utf-8")
    if stale:
        print("stale co-op scaffold files (run python tools/coop_template.py): "
              + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
