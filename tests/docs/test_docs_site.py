"""The documentation site (mkdocs.yml, docs/): it builds with --strict, the built pages load
no script, stylesheet or font from another host (the site is read offline), the Guide's
commands run, and a real browser (headless Chromium from Debian's packages) renders the
home page, a Guide page and the CLI reference with their navigation.

The build needs the docs extra (``make docs`` installs it); without it, or without
Chromium, the tests that need them skip and say why. ``.ci/run`` installs both.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _mkdocs() -> str | None:
    exe = Path(sys.executable).with_name("mkdocs")
    if exe.is_file():
        return str(exe)
    return shutil.which("mkdocs")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    exe = _mkdocs()
    if exe is None:
        pytest.skip("mkdocs is not installed: `make docs` (or pip install -e '.[docs]') "
                    "installs the docs extra")
    out = tmp_path_factory.mktemp("site")
    res = subprocess.run([exe, "build", "--strict", "--site-dir", str(out)], check=False, cwd=ROOT,
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return out


# ---------------------------------------------------------------------------------------
# offline: no asset from another host

class _Assets(HTMLParser):
    """Every script, stylesheet, font, image and frame a page loads, and its inline CSS."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self.css: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "embed") and a.get("src"):
            self.urls.append(a["src"])
        if tag == "link" and a.get("href"):
            rel = (a.get("rel") or "").lower()
            if any(r in rel for r in ("stylesheet", "preload", "prefetch", "icon",
                                      "modulepreload", "preconnect", "dns-prefetch")):
                self.urls.append(a["href"])
        if a.get("style"):
            self.css.append(a["style"])
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.css.append(data)


_REMOTE = re.compile(r"^(https?:)?//", re.IGNORECASE)
_CSS_REMOTE = re.compile(r"(@import\s+(url\()?|url\()\s*['\"]?(https?:)?//", re.IGNORECASE)


def remote_assets(site: Path) -> list[str]:
    """``file: url`` for every asset of the built site that another host would serve."""
    found = []
    for page in sorted(site.rglob("*.html")):
        parser = _Assets()
        parser.feed(page.read_text(encoding="utf-8"))
        rel = page.relative_to(site)
        found += [f"{rel}: {u}" for u in parser.urls if _REMOTE.match(u.strip())]
        found += [f"{rel}: inline CSS {m.group(0)}" for css in parser.css
                  for m in _CSS_REMOTE.finditer(css)]
    for sheet in sorted(site.rglob("*.css")):
        found += [f"{sheet.relative_to(site)}: {m.group(0)}"
                  for m in _CSS_REMOTE.finditer(sheet.read_text(encoding="utf-8"))]
    return found


def test_the_remote_asset_check_can_fail(tmp_path):
    (tmp_path / "a.html").write_text(
        '<html><head><link rel="stylesheet" href="https://fonts.example/x.css">'
        '<script src="//cdn.example/shim"></script><style>@import url("https://x/y.css");'
        '</style></head><body><a href="https://example.org">a link is fine</a>'
        '<script src="assets/local.js"></script></body></html>')
    (tmp_path / "b.css").write_text("@font-face{src:url(https://fonts.example/f.woff2)}")
    found = remote_assets(tmp_path)
    assert len(found) == 4, found
    assert not any("example.org" in f or "local.js" in f for f in found)


def test_site_builds_strict_and_offline(site):
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    for page in ("index.html", "guide/first-hour.html", "reference/cli.html",
                 "reference/api.html", "reference/parameters.html", "games/deepfall.html",
                 "develop/performance.html", "develop/changelog.html"):
        assert page in pages
    assert remote_assets(site) == []
    # the offline plugin's search index is inlined, its shim served from the site
    assert (site / "search" / "search_index.js").is_file()
    assert "assets/iframe-worker-shim.js" in (site / "index.html").read_text()


def test_generated_reference_pages(site):
    cli = (site / "reference" / "cli.html").read_text()
    for command in ("run", "check", "compare", "tune", "respond", "meta", "ladder", "odds"):
        assert f'id="deepsim-{command}"' in cli
    assert "--games" in cli and "&lt;bool&gt;" not in cli
    api = (site / "reference" / "api.html").read_text()
    assert "simulate" in api and "paired_change" in api and "InputError" in api
    assert not re.search(r":(class|func|meth|mod|data):", api)     # Sphinx roles read as text
    params = (site / "reference" / "parameters.html").read_text()
    assert "maw.steps_per_floor" in params and "combat.hit_faces" in params
    perf = (site / "develop" / "performance.html").read_text()
    assert "games/s, 1 thread" in perf


def test_no_issue_numbers_in_docs_and_readme():
    hits = []
    for path in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bissues? \d+", line, re.IGNORECASE):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not hits, "history belongs in the changelog and git:\n" + "\n".join(hits)


# ---------------------------------------------------------------------------------------
# the Guide's commands

#: game budgets the Guide's commands are capped to (options the command line accepts)
CAPS = {"--games": 300, "-n": 300, "--confirm-games": 300, "--trials": 2, "--rounds": 1,
        "--depth-games": 0, "--max-games": 800, "--min-games": 400, "--batch": 400}
#: commands that play games take --games; those without it get the cap added
PLAYS = {"run", "compare", "check", "sweep", "tune", "respond", "meta", "ladder"}
_SKIP = re.compile(r"<!--\s*commands:\s*skip\s*\((?P<reason>[^)]+)\)\s*-->")
_SHELL = ("sh", "bash", "shell", "console")


def guide_pages() -> list[Path]:
    """The pages of the site's Guide section, in nav order."""
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    guide = next(item["Guide"] for item in nav if isinstance(item, dict) and "Guide" in item)
    return [DOCS / next(iter(entry.values())) for entry in guide]


def guide_commands(pages: list[Path], root: Path = ROOT
                   ) -> tuple[list[tuple[str, int, str]], list[str]]:
    """Every ``deepsim`` line of a fenced shell block (continuations joined, comments
    dropped) as (page, line, command), and the skipped blocks with their reasons."""
    commands, skipped = [], []
    for page in pages:
        lines = page.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            m = re.match(r"^\s*```\s*(\w*)", lines[i])
            if not m:
                i += 1
                continue
            lang, start = m.group(1), i
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```"))
            skip = _SKIP.search(lines[start - 1]) if start else None
            if lang in _SHELL:
                body, buf, first = [], "", None
                for j in range(start + 1, end):
                    text = lines[j].rstrip()
                    first = j if first is None else first
                    if text.endswith("\\"):
                        buf += text[:-1] + " "
                        continue
                    body.append((first + 1, buf + text))
                    buf, first = "", None
                runs = [(n, t.strip()) for n, t in body
                        if re.match(r"^(\$ )?(\.venv/bin/)?deepsim\s", t.strip())]
                if skip and runs:
                    skipped.append(f"{page.relative_to(root)}:{start + 1}: "
                                   f"{skip.group('reason').strip()}")
                elif runs:
                    commands += [(str(page.relative_to(root)), n, t) for n, t in runs]
            i = end + 1
    return commands, skipped


def capped(command: str) -> list[str]:
    """``command`` as argv with its budgets capped (:data:`CAPS`), ``--games`` added to a
    command that plays games without naming a count."""
    argv = shlex.split(command, comments=True)
    if argv[0] == "$":
        argv = argv[1:]
    argv[0] = "deepsim"
    out = []
    k = 0
    while k < len(argv):
        word = argv[k]
        name, eq, value = word.partition("=")
        if name in CAPS and (eq or k + 1 < len(argv)):
            value = value if eq else argv[k + 1]
            try:
                value = str(min(int(value), CAPS[name]))
            except ValueError:
                pass
            out += [name, value]
            k += 1 if eq else 2
            continue
        out.append(word)
        k += 1
    sub = out[1] if len(out) > 1 else ""
    if sub in PLAYS and not {"--games", "-n"} & set(out) and "--sprt" not in out \
            and "--init" not in out:
        out += ["--games", str(CAPS["--games"])]
    if sub == "compare" and "--sprt" in out and "--max-games" not in out:
        out += ["--min-games", str(CAPS["--min-games"]), "--max-games",
                str(CAPS["--max-games"]), "--batch", str(CAPS["--batch"])]
    return out


def test_capping_commands():
    assert capped("deepsim run s.yaml --games 20000 --set a=1  # note") == \
        ["deepsim", "run", "s.yaml", "--games", "300", "--set", "a=1"]
    assert capped("deepsim tune s.yaml --trials=40 --confirm-games 100000")[3:] == \
        ["--trials", "2", "--confirm-games", "300", "--games", "300"]
    assert capped("deepsim params deepfall") == ["deepsim", "params", "deepfall"]
    assert "--max-games" in capped("deepsim compare s.yaml --sprt 0 2")


def test_guide_commands_are_found_and_skips_give_a_reason(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("```sh\ndeepsim run a.yaml \\\n    --games 5\nls\n```\n\n"
                    "<!-- commands: skip (needs a cluster) -->\n```sh\ndeepsim run b.yaml\n```\n"
                    "```text\ndeepsim run SCENARIO [--games N]\n```\n")
    commands, skipped = guide_commands([page], root=tmp_path)
    assert commands == [("p.md", 2, "deepsim run a.yaml      --games 5")]
    assert skipped == ["p.md:8: needs a cluster"]


@pytest.mark.slow
def test_the_guide_commands_run(tmp_path, capsys, monkeypatch):
    """Each command of the Guide runs as typed (budgets capped), through the CLI's own
    app in this process: a subprocess per command cost ~0.6 s of imports each, 26 times
    (the installed ``deepsim`` script runs in tests/test_disk_errors.py, the CLI's entry
    point in a process of its own in the conformance suite's command tests)."""
    from typer.testing import CliRunner

    from deepsim.cli import app

    commands, skipped = guide_commands(guide_pages())
    assert len(commands) >= 20, commands
    # each command runs in a scratch folder that sees the repository's scenarios, so the
    # runs' default output folders land there and not in the checkout
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    (tmp_path / "reports").mkdir()
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    failed = []
    for page, line, command in commands:
        argv = capped(command)
        res = runner.invoke(app, argv[1:], env={"COLUMNS": "80"})
        # check and compare answer with 1 (fail / H1) and 3 (inconclusive) too; an
        # exception other than the CLI's exit is a failure whatever its code
        ok = {0, 1, 3} if argv[1] in ("check", "compare") else {0}
        crashed = res.exception is not None and not isinstance(res.exception, SystemExit)
        if crashed or res.exit_code not in ok:
            failed.append(f"{page}:{line}: {' '.join(argv)} -> exit {res.exit_code}"
                          f"{f' ({res.exception!r})' if crashed else ''}\n"
                          f"{res.output[-1500:]}")
    message = (f"Guide commands: ran {len(commands)}, {len(failed)} failed; "
               f"{len(skipped)} blocks skipped: {'; '.join(skipped) or 'none'}")
    with capsys.disabled():         # the count shows in the test log, captured or not
        print(f"\n{message}")
    assert not failed, "\n\n".join(failed)


# ---------------------------------------------------------------------------------------
# a real browser

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]
SHOTS = {"home": "index.html", "guide": "guide/first-hour.html",
         "cli-reference": "reference/cli.html"}


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _dom(exe: str, page: Path, profile: Path) -> str:
    res = subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                          "--virtual-time-budget=3000", "--dump-dom", page.as_uri()],
                         check=False, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


def test_pages_render_in_chromium(site, tmp_path):
    exe = chromium()
    if exe is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run "
                    "installs it): the browser screenshots were not taken")
    shots = Path(os.environ.get("DEEPSIM_SCREENSHOTS", tmp_path / "screenshots"))
    shots.mkdir(parents=True, exist_ok=True)
    for name, rel in SHOTS.items():
        page = site / rel
        # the rendered DOM: the theme's navigation (tabs, the section's pages) is there
        # after the scripts ran from file://, and the page's own content
        dom = _dom(exe, page, tmp_path / f"profile-dom-{name}")
        assert 'class="md-tabs' in dom and 'class="md-nav' in dom, name
        for label in ("Guide", "Games", "Reference", "Develop"):
            assert f">{label}" in dom or f"> {label}" in dom or label in dom, (name, label)
        png = shots / f"{name}.png"
        res = subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / name}",
                              "--window-size=1280,900", "--virtual-time-budget=3000",
                              f"--screenshot={png}", page.as_uri()],
                             check=False, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0 and png.is_file(), res.stderr[-2000:]
        _assert_not_blank(png)


def _assert_not_blank(png: Path) -> None:
    """A rendered page, not a blank or error screen: many distinct colours."""
    from PIL import Image

    with Image.open(png) as im:
        assert im.size == (1280, 900), im.size
        colours = im.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 50, f"{png.name}: {len(colours)} colours"


def test_ci_builds_the_docs_and_installs_chromium():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # a step may run through the recipe's timer (`step make docs`)
    steps = [line.strip().removeprefix("step ") for line in ci.splitlines()
             if not line.lstrip().startswith("#")]
    assert "make docs" in steps
    assert any("apt-get install" in s and "chromium" in s for s in steps)
    # the site is built before the tests that read it
    assert steps.index("make docs") < steps.index("make test")
