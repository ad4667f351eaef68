"""``deepsim new-ruleset NAME``: write a working ruleset package of one's own (a plugin).

The package (``template/``, files ending ``.tmpl``) is the dice game Pig behind the ruleset
contract: data file and pydantic schema, a numba kernel with counter-based dice, a bot with
knobs and bounds plus a random baseline, a trace, a scenario with an ``expect:`` block,
golden digests, tests running deepsim's conformance suite, a README, and a
``pyproject.toml`` declaring the entry point (group ``deepsim.rulesets``) by which deepsim
finds it once installed. As written it passes the conformance suite.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from pathlib import Path

from deepsim.errors import InputError

__all__ = ["TEMPLATE", "TEMPLATE_COOP", "Scaffold", "check_name", "write_ruleset"]

TEMPLATE = Path(__file__).with_name("template")
#: the co-operative scaffold (``--cooperative``): a small co-op dice game with an exact
#: answer; its game files are made from deepsim's own co-op proof ruleset by
#: ``tools/coop_template.py`` (and checked current by the tests)
TEMPLATE_COOP = Path(__file__).with_name("template_coop")
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")


@dataclass(frozen=True)
class Scaffold:
    """What :func:`write_ruleset` wrote: the folder, the ruleset name, the Python package,
    the distribution and the files (relative paths, sorted)."""

    root: Path
    name: str
    package: str
    dist: str
    files: tuple[str, ...]


def check_name(name: str) -> str:
    """``name`` if it can name a ruleset, a Python package (``deepsim_<name>``) and an entry
    point: lower-case letters, digits and ``_``, starting with a letter, at most 31
    characters, not a Python keyword, not a built-in ruleset's name.

    Raises
    ------
    InputError
        Saying which condition fails.
    """
    from deepsim.rulesets import builtin

    if not _NAME.match(name or ""):
        raise InputError(f"a ruleset name is lower-case letters, digits and '_', starting with "
                         f"a letter, at most 31 characters (got {name!r})", key="NAME")
    if keyword.iskeyword(name):
        raise InputError(f"{name!r} is a Python keyword; choose another name", key="NAME")
    if name in builtin():
        raise InputError(f"'{name}' is a built-in ruleset's name; a plugin by that name would "
                         f"never be loaded: choose another", key="NAME")
    return name


def _title(name: str) -> str:
    return " ".join(w.capitalize() for w in name.split("_") if w)


def write_ruleset(name: str, directory: Path | str | None = None, *,
                  cooperative: bool = False) -> Scaffold:
    """Write the ruleset package ``name`` into ``directory`` (default ``./<name>``): the
    dice game Pig, or with ``cooperative`` a co-operative dice game whose party win
    probability its ``exact.py`` computes exactly (docs/contract.md, "Co-operative
    rulesets").

    The folder must not exist or be empty. Files are written to a sibling temporary folder
    that is renamed into place last, so a failure leaves no half-written package.

    Raises
    ------
    InputError
        A bad name (:func:`check_name`), or a folder that exists and is not empty (or is a
        file).
    """
    import os
    import shutil
    import tempfile

    from deepsim.version import __version__

    check_name(name)
    root = Path(directory) if directory is not None else Path(name)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        what = "is a file" if not root.is_dir() else "is not empty"
        raise InputError(f"{what}: new-ruleset writes into a new or empty folder only, "
                         "so it never overwrites your work", file=str(root))
    package = f"deepsim_{name}"
    tokens = {"{{NAME}}": name, "{{PACKAGE}}": package, "{{DIST}}": f"deepsim-{name}",
              "{{TITLE}}": _title(name), "{{DEEPSIM_VERSION}}": __version__}
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
    written = []
    try:
        template = TEMPLATE_COOP if cooperative else TEMPLATE
        for src in sorted(template.rglob("*.tmpl")):
            rel = src.relative_to(template).as_posix()[:-len(".tmpl")]
            rel = rel.replace("__package__", package).replace("__name__", name)
            text = src.read_text(encoding="utf-8")
            for k, v in tokens.items():
                text = text.replace(k, v)
            dest = tmp / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(text, encoding="utf-8")
            written.append(rel)
        if root.exists():
            root.rmdir()                    # empty: checked above
        os.replace(tmp, root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Scaffold(root, name, package, tokens["{{DIST}}"], tuple(written))
