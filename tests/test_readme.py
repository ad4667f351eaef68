"""README.md fits on a page and shows what ``make run`` really prints: its sample (between
the readme-sample markers) is the headline of a fresh run at the scenario's own seed and
game count (``make readme-sample`` refreshes it), and every file it links to exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deepsim.studies import readme_sample

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")

OUTPUT = """\
 ━━━━━━━━━━ 100/100 games 8,892 games/s 0:00:00
──────────────── demo (deepfall), seed 3 ────────────────
Headline (win/fair, 95% Wilson interval)
  Company (36: 6 too strong, 23 not viable)
    strongest Revenant Wardancer 3.81x fair [3.79-3.82] too strong

╭──── Caution ────╮
│ Placeholder     │
╰─────────────────╯
Win share per company (95% Wilson interval)
"""


def test_readme_fits_on_a_page():
    assert len(README.splitlines()) <= 200


def test_headline_is_cut_from_the_run_output():
    assert readme_sample.headline(OUTPUT).splitlines() == OUTPUT.splitlines()[1:5]
    with pytest.raises(ValueError):
        readme_sample.headline("no summary here\n")


def test_the_sample_block_is_replaced_in_place():
    text = f"a\n{readme_sample.START}\n```text\nold\n```\n{readme_sample.END}\nb\n"
    new = readme_sample.with_excerpt(text, "new\nlines")
    assert readme_sample.readme_excerpt(new) == "new\nlines"
    assert new.startswith("a\n") and new.endswith("\nb\n")


def test_readme_sample_is_a_headline_of_make_run():
    excerpt = readme_sample.readme_excerpt(README)
    assert readme_sample.headline(excerpt) == excerpt          # a whole headline block
    assert "deepfall-4p (deepfall), seed 1" in excerpt
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"SCENARIO ?= {readme_sample.SCENARIO}" in makefile


def test_readme_links_exist():
    missing = [target for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
               if "://" not in target and not (ROOT / target).exists()]
    assert not missing, missing


@pytest.mark.slow
def test_readme_sample_matches_a_fresh_run():
    # 100,000 games (make run's own count and seed): about 30 s on two cores
    fresh = readme_sample.headline(readme_sample.run_output(cwd=ROOT))
    assert readme_sample.readme_excerpt(README) == fresh, (
        "README.md's sample differs from a fresh `make run`: run `make readme-sample`\n"
        + fresh)
