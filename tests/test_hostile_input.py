"""Hostile input: never a hang, never a traceback, always one ``error:`` line and exit 2.

- Hand-made cases through ``deepsim run`` (alias bomb, recursive alias, 400-level nesting,
  control characters, ``/dev/zero``, a FIFO nobody writes to, symbolic link loops, huge
  numbers, bad ``!!tags``, booleans for counts, flags past their bounds, ``--out`` below a
  file): exit 2, one line naming the file (and line) or the flag, no output folder.
- The loader's bounds are checked by counting what it did (bytes read, nodes composed and
  built, nesting depth, memory), never by timing it.
- Strict types over every schema of every ruleset, found by walking the pydantic models
  (so keys added later are covered): a boolean or a quoted number in any numeric key of a
  scenario, and ``--set path=true`` for every numeric ruleset parameter, is refused.
- A hypothesis property test feeds generated hostile YAML (aliases, deep nesting, odd
  scalars, control bytes, huge numbers, wrong types at every key of every schema: scenario
  keys, ``expect:`` keys, ruleset parameters under ``overrides:``) to each ruleset's
  scenario loader (``runner.resolve``: load, check, prepare; then ``parse_expect``) and
  accepts only an :class:`InputError` or a prepared scenario. 1,000 examples per ruleset
  (derandomized; ``DEEPSIM_FUZZ_EXAMPLES=20000`` for a deeper run).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import tracemalloc
import types
import typing
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from typer.testing import CliRunner

from deepsim import rulesets, runner, safeload
from deepsim.cli import app
from deepsim.errors import InputError
from deepsim.gate.expect import ExpectBlock, parse_expect
from deepsim.safeload import MAX_DEPTH, MAX_INPUT_BYTES, MAX_NODES, last_stats, load_yaml
from deepsim.scenario import LINES, ScenarioBase

cli = CliRunner(env={"COLUMNS": "400"})

OK = "name: x\nruleset: deepfall\ngames: 10\nseed: 1\n"
ATLANTIS = "name: x\nruleset: atlantis\ngames: 10\n"


def bomb(levels: int, width: int = 9) -> str:
    """A YAML alias bomb: level k lists level k-1 ``width`` times (``width**levels``)."""
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for k in range(1, levels):
        lines.append(f"l{k}: &l{k} [{', '.join([f'*l{k - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


#: a --set value that expands to 10**6 values: 6 levels of 10
SET_BOMB = "[&a [1,1,1,1,1,1,1,1,1,1], " + ", ".join(
    f"&{b} [{','.join([f'*{a}'] * 10)}]" for a, b in zip("abcd", "bcde", strict=True)
) + ", [" + ",".join(["*e"] * 10) + "]]"

# id: (scenario text or bytes, extra CLI args, fragments of the one-line message)
CASES: dict[str, tuple[str | bytes, list[str], list[str]]] = {
    "alias_bomb_9_levels": (OK + bomb(9), [],
                            ["{f}:", "expands to more than 100,000 values"]),
    "recursive_alias": (OK + "bots: &b [random, *b]\n", [],
                        ["{f}:5", "recursive alias"]),
    "undefined_alias": (OK + "bots: *nope\n", [], ["{f}:5", "undefined alias"]),
    "nesting_400_flow": (OK + "bots: " + "[" * 400 + "]" * 400 + "\n", [],
                         ["{f}:5", "nested more than 64 levels"]),
    "nesting_400_block": (OK + "".join("  " * i + f"k{i}:\n" for i in range(400)) + "  " * 400
                          + "v\n", [], ["{f}:", "nested more than 64 levels"]),
    "control_esc": (OK.replace("name: x", "name: x\x1b[31m"), [],
                    ["{f}:1", "control character ESC (U+001B) at column 8"]),
    "control_nul": (OK + "description: a\x00b\n", [],
                    ["{f}:5", "control character NUL (U+0000)"]),
    "not_utf8_line": (OK.encode() + b"description: \xff\n", [],
                      ["{f}:5", "not a UTF-8 text file"]),
    "huge_integer": (OK.replace("games: 10", "games: " + "9" * 5000), [],
                     ["{f}:3", "does not fit in 64 bits", "(5000 chars)"]),
    "huge_hex_integer": (OK.replace("games: 10", "games: 0x" + "f" * 4000), [],
                         ["{f}:3", "does not fit in 64 bits"]),
    "seed_past_64_bits": (OK.replace("seed: 1", f"seed: {2**64}"), [],
                          ["{f}:4", "does not fit in 64 bits"]),
    "impossible_date": (OK + "description: 2024-02-30\n", [],
                        ["{f}:5", "cannot read the value '2024-02-30'"]),
    "python_tag": (OK + "description: !!python/object/apply:os.system [ls]\n", [],
                   ["{f}:5", "malformed YAML", "could not determine a constructor"]),
    "bad_int_tag": (OK + "chunk_size: !!int abc\n", [], ["{f}:5", "cannot read the value 'abc'"]),
    # found by the property test below: each was a traceback
    "bool_tag_maybe": (OK + "description: !!bool maybe\n", [],
                       ["{f}:5", "cannot read the value 'maybe'"]),
    "unsigned_64_bit_count": (OK + "overrides:\n  lineages.revenant.start_bag.recruit: "
                              "9999999999999999999\n", [], ["{f}:6", "does not fit in 64 bits"]),
    "atlantis_force_infinite": (ATLANTIS + "forces:\n  sea_witch: {leviathan: .inf}\n", [],
                                ["{f}:4", "key 'forces'", "expected a count", "got inf"]),
    "atlantis_map_file_name_too_long": (ATLANTIS + "map: {file: " + "x" * 5000 + "}\n", [],
                                        ["the path is too long", "chars)"]),
    "duplicate_anchor": (OK + "a: &x 1\nb: &x 2\n", [], ["{f}:6", "duplicate anchor"]),
    "two_documents": (OK + "---\nname: y\n", [], ["{f}:5", "single document"]),
    "games_true": (OK.replace("games: 10", "games: true"), [],
                   ["{f}:3", "key 'games'", "valid integer", "(got True)"]),
    "seed_true": (OK.replace("seed: 1", "seed: true"), [],
                  ["{f}:4", "key 'seed'", "valid integer", "(got True)"]),
    "chunk_size_true": (OK + "chunk_size: true\n", [],
                        ["{f}:5", "key 'chunk_size'", "valid integer", "(got True)"]),
    "games_quoted": (OK.replace("games: 10", 'games: "10"'), [],
                     ["{f}:3", "key 'games'", "valid integer", "(got '10')"]),
    "knob_true": (OK + "players: 2\nseats:\n  - {bot: greedy, knobs: {press_max: true}}\n"
                  "  - {}\n", [], ["{f}:7", "key 'seats.0.knobs.press_max'", "valid number"]),
    "long_unknown_key": (OK + "? " + "k" * 5000 + "\n: 1\n", [],
                         ["{f}:5", "unknown key", "chars)"]),
    "games_flag_past_bound": (OK, ["--games", "10000000001"],
                              ["key '--games'", "1 .. 10000000000, got 10000000001"]),
    "chunk_size_flag_past_bound": (OK, ["--chunk-size", "10000001"],
                                   ["key '--chunk-size'", "1 .. 10000000"]),
    "too_many_chunks_flag": (OK, ["--games", "10000000000", "--chunk-size", "1"],
                             ["key '--chunk-size'", "at most 100,000", "at least 100,000"]),
    "too_many_chunks_file": (OK.replace("games: 10", "games: 1000000") + "chunk_size: 1\n",
                             [], ["{f}:5", "key 'chunk_size'", "at most 100,000"]),
    "set_alias_bomb": (OK, ["--set", "maw.steps_per_round=" + SET_BOMB],
                       ["key '--set'", "expands to more than 100,000 values"]),
    "set_true_for_a_count": (OK, ["--set", "turn.hand_size=true"],
                             ["key 'turn'", "hand_size", "got True"]),
    "out_is_a_file": (OK, ["--out", "{file}"],
                      ["{file}", "key '--out'", "is a file, not a folder"]),
    "out_is_a_file_with_force": (OK, ["--out", "{file}", "--force"],
                                 ["{file}", "key '--out'", "is a file, not a folder"]),
    "out_below_a_file": (OK, ["--out", "{file}/run"],
                         ["key '--out'", "{file} is a file, not a folder"]),
    "out_symlink_loop": (OK, ["--out", "{loop}"], ["{loop}", "key '--out'", "symbolic link loop"]),
    "out_under_proc": (OK, ["--out", "/proc/deepsim-run"],
                       ["/proc/deepsim-run", "key '--out'", "cannot create the folder"]),
}


def _prepare(tmp_path: Path, text: str | bytes) -> dict[str, str]:
    scen = tmp_path / "scenario.yaml"
    if isinstance(text, bytes):
        scen.write_bytes(text)
    else:
        scen.write_text(text)
    (tmp_path / "a_file").write_text("mine")
    loop = tmp_path / "loop"
    os.symlink(tmp_path / "loop2", loop)
    os.symlink(loop, tmp_path / "loop2")
    return {"f": str(scen), "file": str(tmp_path / "a_file"), "loop": str(loop)}


def _one_error_line(res, fill: dict, fragments: list[str]) -> None:
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    assert "Traceback" not in res.output, res.output
    for fragment in fragments:
        assert fragment.format(**fill) in lines[0], (fragment, res.output)


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_input_exits_2_with_one_line(tmp_path, case):
    text, extra, fragments = CASES[case]
    fill = _prepare(tmp_path, text)
    args = [a.format(**fill) for a in extra]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "out")]
    res = cli.invoke(app, ["run", fill["f"], *args, "--threads", "1", "-q"])
    _one_error_line(res, fill, fragments)
    assert not (tmp_path / "out").exists()
    assert (tmp_path / "a_file").read_text() == "mine"


@pytest.mark.parametrize("target, fragment", [
    ("/dev/zero", "holds more than 1,048,576 bytes"),
    ("{loop}", "symbolic link loop"),
    ("{dangling}", "symbolic link to a missing file"),
    ("{fifo}", "the file is empty"),       # nobody writes to it: read as empty, no hang
    ("{big}", "a YAML file may have at most 1,048,576 bytes"),
])
def test_scenario_path_problems_exit_2(tmp_path, target, fragment):
    fill = _prepare(tmp_path, OK)
    fill["dangling"] = str(tmp_path / "dangling.yaml")
    os.symlink(tmp_path / "missing.yaml", fill["dangling"])
    fill["fifo"] = str(tmp_path / "fifo.yaml")
    os.mkfifo(fill["fifo"])
    fill["big"] = str(tmp_path / "big.yaml")
    Path(fill["big"]).write_text(OK + "#" * MAX_INPUT_BYTES + "\n")
    path = target.format(**fill)
    res = cli.invoke(app, ["run", path, "--out", str(tmp_path / "out"), "-q"])
    _one_error_line(res, {}, [path, fragment])
    assert not (tmp_path / "out").exists()


# --- the bounds, counted ---------------------------------------------------------------------

def _load_measured(path: Path) -> tuple[InputError | None, int]:
    """Load ``path``; return the error (or None) and the peak memory in bytes."""
    tracemalloc.start()
    try:
        load_yaml(path)
        err = None
    except InputError as exc:
        err = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return err, peak


@pytest.mark.slow
@pytest.mark.parametrize("loader", safeload._LOADERS, ids=lambda c: c.__name__)
def test_bounds_hold_by_count_for_both_parsers(tmp_path, monkeypatch, loader):
    """The 9-level bomb (9**9 = 387 million values) is refused having composed its ~90
    nodes and built nothing; 400 levels stop at level 65; a 1 MB list stops at 100,000
    values; memory stays small. Checked for libyaml's parser and PyYAML's own."""
    monkeypatch.setattr(safeload, "_Loader", loader)
    built = []
    original = yaml.constructor.BaseConstructor.construct_object

    def counting(self, node, deep=False):
        built.append(1)
        return original(self, node, deep=deep)

    monkeypatch.setattr(yaml.constructor.BaseConstructor, "construct_object", counting)

    path = tmp_path / "bomb.yaml"
    path.write_text(OK + bomb(9))
    assert len(path.read_bytes()) < 600
    err, peak = _load_measured(path)
    stats = last_stats()
    assert err is not None and "expands to more than 100,000" in str(err)
    assert stats.composed < 120 and stats.expanded == MAX_NODES + 1
    assert not built          # refused before one object was built
    assert peak < 4 << 20

    path.write_text(OK + "bots: " + "[" * 400 + "]" * 400 + "\n")
    err, peak = _load_measured(path)
    assert err is not None and "nested more than 64" in str(err)
    assert last_stats().composed <= 12 and not built
    assert peak < 4 << 20

    path.write_text(OK + "bots: [" + "1, " * (MAX_INPUT_BYTES // 3 - 20) + "]\n")
    err, peak = _load_measured(path)
    assert err is not None and "holds more than 100,000 values" in str(err)
    assert last_stats().composed == MAX_NODES + 1 and not built
    assert peak < 160 << 20

    # a valid file within the bounds: built once per value, aliases copied
    path.write_text(OK + "bots: &b [greedy, cautious]\nx: {a: *b, b: *b}\n")
    data, lines = load_yaml(path)
    assert data["x"] == {"a": ["greedy", "cautious"], "b": ["greedy", "cautious"]}
    assert data["x"]["a"] is not data["x"]["b"] and data["x"]["a"] is not data["bots"]
    assert lines["x.a"] == 6 and lines["bots"] == 5
    assert last_stats().built == 15  # values: 1 + 4 + (1 + 2) + 1 + 2 * (1 + 2)


def test_dev_zero_reads_one_byte_past_the_limit():
    with pytest.raises(InputError, match="holds more than 1,048,576 bytes"):
        load_yaml("/dev/zero")
    assert last_stats().bytes == MAX_INPUT_BYTES + 1


def test_yaml_12_floats_and_64_bit_integers():
    data, _ = safeload.load_yaml_text("a: 1e-3\nb: 2E6\nc: 1.5e+2\nd: 0x10\ne: -9223372036854775808"
                                      f"\nf: {2**63 - 1}\ng: 1e3x\n")
    assert data == {"a": 0.001, "b": 2e6, "c": 150.0, "d": 16, "e": -(2**63),
                    "f": 2**63 - 1, "g": "1e3x"}
    with pytest.raises(InputError, match="does not fit in 64 bits"):
        safeload.load_yaml_text(f"a: {2**63}\n")
    assert safeload.parse_value("[1, 2") == "[1, 2"        # not YAML: the text itself
    assert safeload.parse_value("1e-3") == 0.001


# --- strict types over every schema of every ruleset ----------------------------------------

def _scenario_model(name: str) -> type[BaseModel]:
    """The ruleset's scenario schema: the ScenarioBase subclass its package defines
    (``prepare`` of a minimal scenario imports it wherever it lives), a built-in's or an
    installed plugin's (its package is the one its ``RULESET`` comes from)."""
    rs = rulesets.get(name)
    try:
        rs.prepare({"name": "x", "ruleset": name})
    except InputError:
        pass
    module = sys.modules[type(rs).__module__]
    package = module.__name__ if hasattr(module, "__path__") else module.__package__

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    found = [c for c in subclasses(ScenarioBase)
             if c.__module__ == package or c.__module__.startswith(package + ".")]
    assert len(found) == 1, found
    return found[0]


def _fields(ann, path: str, out: list[tuple[str, object]]) -> None:
    """Every key path of a schema with its annotation (list items as ``.0``, dict keys by
    their Literal names, or ``x`` for free keys)."""
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        for name, field in ann.model_fields.items():
            _fields(field.annotation, f"{path}.{name}" if path else name, out)
        return
    out.append((path, ann))
    if origin in (typing.Union, types.UnionType):
        for a in args:
            if a is not type(None) and typing.get_origin(a) is not None or (
                    isinstance(a, type) and issubclass(a, BaseModel)):
                _fields(a, path, out)
    elif origin is list:
        _fields(args[0], f"{path}.0", out)
    elif origin is dict:
        keys = (typing.get_args(args[0]) if typing.get_origin(args[0]) is typing.Literal
                else ("x",))
        for key in keys:
            _fields(args[1], f"{path}.{key}", out)


def _numeric(ann) -> bool:
    members = typing.get_args(ann) if typing.get_origin(ann) in (typing.Union,
                                                                   types.UnionType) else (ann,)
    return any(m in (int, float) for m in members)


def _set_path(data: dict, path: str, value) -> None:
    parts = path.split(".")
    node = data
    for part, nxt in itertools.pairwise(parts):
        child = [] if nxt.isdigit() else {}
        if isinstance(node, list):
            while len(node) <= int(part):
                node.append(child)
            node = node[int(part)]
        else:
            node = node.setdefault(part, child)
    if isinstance(node, list):
        node.append(value)
    else:
        node[parts[-1]] = value


RULESETS = rulesets.playable()   # the odds-only ones have no scenario or kernel


def _schema_keys(name: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    _fields(_scenario_model(name), "", out)
    return out


SCHEMA_KEYS = {name: _schema_keys(name) for name in RULESETS}
#: the keys of a scenario's expect: block (read by deepsim check), as scenario key paths
EXPECT_KEYS: list[tuple[str, object]] = []
_fields(ExpectBlock, "", EXPECT_KEYS)
NUMERIC_KEYS = [(name, path) for name in RULESETS for path, ann in SCHEMA_KEYS[name]
                if _numeric(ann)]
PARAMETERS = {name: rulesets.get(name).parameters() for name in RULESETS}
PARAM_PATHS = {name: [row["path"] for row in rows] for name, rows in PARAMETERS.items()}
NUMERIC_PARAMS = [(name, row["path"]) for name in RULESETS for row in PARAMETERS[name]
                  if row["type"] in ("int", "float")]


def test_the_schema_walk_finds_the_keys():
    """The walk reaches nested keys (so a key added later is covered without listing it)."""
    paths = {(n, p) for n, p in NUMERIC_KEYS}
    assert ("deepfall", "games") in paths and ("atlantis", "seed") in paths
    assert ("deepfall", "seats.0.knobs.press_max") in paths
    assert ("atlantis", "sides.sea_witch.knobs.hide") in paths
    assert len(NUMERIC_PARAMS) > 50


@pytest.mark.parametrize("name, path", NUMERIC_KEYS)
@pytest.mark.parametrize("value", [True, False, "10"], ids=["true", "false", "quoted"])
def test_no_boolean_or_string_is_a_number_in_any_scenario_key(tmp_path, name, path, value):
    data: dict = {"name": "strict", "ruleset": name}
    _set_path(data, path, value)
    scen = tmp_path / "s.yaml"
    scen.write_text(yaml.safe_dump(data))
    with pytest.raises(InputError) as info:
        runner.resolve(scen)
    message = str(info.value)
    # the key named (a list item's error may name the list), and the value shown
    assert path in message or path.rsplit(".", 1)[0] in message, message
    assert repr(value) in message, message


@pytest.mark.parametrize("name, path", NUMERIC_PARAMS)
def test_no_boolean_is_a_number_in_any_ruleset_parameter(tmp_path, name, path):
    scen = tmp_path / "s.yaml"
    scen.write_text(f"name: strict\nruleset: {name}\n")
    with pytest.raises(InputError) as info:
        runner.resolve(scen, overrides=[f"{path}=true"])
    assert "True" in str(info.value), str(info.value)


# --- the property test ------------------------------------------------------------------------

FUZZ = settings(max_examples=int(os.environ.get("DEEPSIM_FUZZ_EXAMPLES", "1000")),
                deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

WORDS = st.sampled_from(["x", "any", "random", "greedy", "aggressive", "sea_witch", "each",
                         "dvergar", "0", "-1", "yes", "no", "on", "~", "''", '""'])
_CONTROL = [chr(c) for c in (*range(9), 11, 12, *range(14, 32), 127, 0x85, 0x9B,
                             0xFFFE, 0xD800)]


@st.composite
def hostile_value(draw, depth: int = 0) -> str:
    """One YAML value in flow style, as text."""
    kinds = ["bool", "int", "bigint", "float", "str", "escape", "tag", "null", "word",
             "nest", "bomb", "alias", "list", "map"]
    kind = draw(st.sampled_from(kinds if depth < 2 else kinds[:9]))
    if kind == "bool":
        return draw(st.sampled_from(["true", "false", "yes", "off", "True"]))
    if kind == "int":
        return str(draw(st.integers(-(2**64), 2**64)))
    if kind == "bigint":
        digits = draw(st.integers(19, 6000))
        return draw(st.sampled_from(["", "-", "0x"])) + "9" * digits
    if kind == "float":
        return draw(st.sampled_from([".inf", "-.inf", ".nan", "1e308", "1e400", "-0.0",
                                     "1e-3", "2.5", "1_000.5", "4e", "0.1e-400", "1:30.5"]))
    if kind == "str":
        return json.dumps(draw(st.text(max_size=30)))  # JSON strings are YAML strings
    if kind == "escape":
        return draw(st.sampled_from(['"\\e[31m"', '"a\\0b"', '"\\x07"', '"\\u2028"', '"10"',
                                     '"\\U0010FFFF"', '"' + "x" * 5000 + '"']))
    if kind == "tag":
        return draw(st.sampled_from(["!!binary aGk=", "!!binary zz", "!!timestamp 2001-12-14",
                                     "2024-02-30", "!!set {a, b}", "!!python/object:os.system {}",
                                     "!!int x", "!!float y", "!!str 5", "!!omap [a: 1]",
                                     "!!bool maybe", "!nonsense 1", "!!null x"]))
    if kind == "null":
        return draw(st.sampled_from(["~", "null", "", "{}", "[]"]))
    if kind == "word":
        return draw(WORDS)
    if kind == "nest":
        d = draw(st.integers(1, 300))
        return "[" * d + "]" * d
    if kind == "bomb":
        levels, width = draw(st.integers(1, 12)), draw(st.integers(1, 12))
        tag = draw(st.integers(0, 10**6))
        parts = [f"&b{tag}x0 [{', '.join(['1'] * width)}]"]
        for k in range(1, levels):
            parts.append(f"&b{tag}x{k} [{', '.join([f'*b{tag}x{k - 1}'] * width)}]")
        return f"[{', '.join(parts)}]"
    if kind == "alias":
        return draw(st.sampled_from(["*nope", "&r [*r]", "&m {a: 1, <<: *m}", "&s [1, 2]",
                                     "{<<: [1]}", "&q 1"]))
    if kind == "list":
        return "[" + ", ".join(draw(st.lists(hostile_value(depth + 1), max_size=3))) + "]"
    keys = draw(st.lists(WORDS, max_size=3))
    vals = [draw(hostile_value(depth + 1)) for _ in keys]
    return "{" + ", ".join(f"{k}: {v}" for k, v in zip(keys, vals, strict=True)) + "}"


PLAUSIBLE = st.one_of(
    st.integers(-3, 12).map(str),
    st.sampled_from(["0", "1", "2", "6", "100", "1000000", "9223372036854775807", "-1",
                     "0.0", "0.5", "1.0", "1e-9", "1e9", ".inf", "true", "false", "[]",
                     "{}", "[1, 2]", "[2, 3, 4]", "any", "random", "greedy", "defensive"]),
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
)


def _render(data: dict, raw: dict[str, str]) -> str:
    """Block YAML of ``data`` with the ``raw`` text values put in at their dotted paths."""
    lines: list[str] = []

    def emit(obj, prefix: str, indent: int) -> None:
        pad = "  " * indent
        for k, v in obj.items():
            path = f"{prefix}.{k}" if prefix else str(k)
            if path in raw:
                lines.append(f"{pad}{k}: {raw[path]}")
            elif isinstance(v, dict):
                lines.append(f"{pad}{k}:")
                emit(v, path, indent + 1)
            else:
                lines.append(f"{pad}{k}: {yaml.safe_dump(v, default_flow_style=True).strip()}"
                             .replace("\n...", ""))

    emit(data, "", 0)
    return "\n".join(lines) + "\n"


def _wrap(parts: list[str], value: str) -> str:
    """``value`` inside flow collections along ``parts`` (a digit is a list item)."""
    for part in reversed(parts):
        value = f"[{value}]" if part.isdigit() else f"{{{part}: {value}}}"
    return value


@st.composite
def hostile_scenario(draw, name: str) -> str:
    """A scenario for ruleset ``name`` with hostile values at 1-4 of its keys (scenario
    schema keys, ruleset parameters under ``overrides:``, unknown keys), sometimes with a
    raw control character put in or cut short."""
    data: dict = {"name": "fuzz", "ruleset": name, "games": 20, "chunk_size": 10}
    # (name and ruleset last: hypothesis tries the first choices most)
    keys = sorted(dict.fromkeys(p for p, _ in SCHEMA_KEYS[name] + EXPECT_KEYS if p != "expect"),
                  key=lambda p: p in ("name", "ruleset"))
    params = PARAM_PATHS[name]
    raw: dict[str, str] = {}
    expectation = {"metric": "win_ratio", "by": "seat", "within": "[0.5, 2.0]"}
    n = draw(st.integers(1, 4))
    # one hostile value in most examples, the others of a plausible type (odd numbers, edge
    # values), so that many scenarios pass the schema and reach the ruleset's own checks
    hostile = draw(st.sampled_from(range(n + 1)))  # == n: none (every value plausible)
    for i in range(n):
        where = draw(st.sampled_from(["key", "key", "param", "param", "unknown"]))
        value = draw(hostile_value() if i == hostile else PLAUSIBLE)
        if where == "param":
            if not isinstance(data.get("overrides"), dict):
                data["overrides"] = {}
                raw.pop("overrides", None)
            param = draw(st.sampled_from(params))
            data["overrides"][param] = 0
            raw[f"overrides.{param}"] = value
            continue
        path = (draw(st.sampled_from(keys)) if where == "key" else
                draw(st.sampled_from(["x", "overrides", "seats.7.bot", "expect.0.metric"])))
        parts = path.split(".")
        if parts[:2] == ["expect", "0"] and len(parts) > 2:
            # one key of an otherwise complete expectation (deepsim check reads it)
            expectation[parts[2]] = _wrap(parts[3:], value)
            data.setdefault("expect", 0)
            raw["expect"] = "[{" + ", ".join(f"{k}: {v}" for k, v in expectation.items()) + "}]"
            continue
        cut = next((i for i, p in enumerate(parts) if p.isdigit()), len(parts))
        head, rest = parts[:cut], parts[cut:]
        node = data
        for part in head[:-1]:
            if not isinstance(node.get(part), dict):
                node[part] = {}
            node = node[part]
        node.setdefault(head[-1], 0)
        raw[".".join(head)] = _wrap(rest, value)
    text = _render(data, raw)
    # (sampled_from: hypothesis draws small integers far more often than uniformly)
    if draw(st.sampled_from([False] * 7 + [True])):  # a raw control character somewhere
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(_CONTROL)) + text[at:]
    if draw(st.sampled_from([False] * 11 + [True])):  # cut short
        text = text[:draw(st.integers(0, len(text)))]
    return text


def _check_bounds(data) -> None:
    """Count what a load returned: within the documented limits."""
    count, depth, stack = 0, 0, [(data, 1)]
    while stack:
        obj, d = stack.pop()
        count += 1
        depth = max(depth, d)
        if isinstance(obj, dict):
            stack.extend((v, d + 1) for v in obj.values())
        elif isinstance(obj, list):
            stack.extend((v, d + 1) for v in obj)
    assert count <= MAX_NODES and depth <= MAX_DEPTH


@pytest.mark.slow
@pytest.mark.parametrize("name", RULESETS)
def test_hostile_yaml_gives_input_error_or_a_valid_scenario(tmp_path, name):
    """Generated hostile YAML to each ruleset's scenario loader: an InputError or a
    prepared scenario, never another exception; within the count bounds either way."""
    path = tmp_path / "fuzz.yaml"
    outcomes = {"input_error": 0, "prepared": 0, "expect_parsed": 0, "expect_refused": 0}

    @FUZZ
    @given(text=hostile_scenario(name))
    def check(text: str) -> None:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            _, scenario, prepared = runner.resolve(path)
        except InputError as exc:
            outcomes["input_error"] += 1
            message = str(exc)
            assert message and "Traceback" not in message
            assert not any(c in message for c in "\x00\x1b\x07\u2028")
        else:
            outcomes["prepared"] += 1
            for key in ("games", "seed", "chunk_size"):
                assert type(scenario[key]) is int  # never a bool
            assert prepared.params_hash
            _check_bounds(load_yaml(path)[0])
            if scenario.get("expect") is not None:  # what deepsim check reads next
                try:
                    parse_expect(scenario, source=str(path), lines=LINES.get(str(path)))
                    outcomes["expect_parsed"] += 1
                except InputError:
                    outcomes["expect_refused"] += 1
        stats = last_stats()
        assert stats.bytes <= MAX_INPUT_BYTES + 1
        assert stats.composed <= MAX_NODES + 1
        assert stats.built <= MAX_NODES

    check()
    print(f"\n{name}: {outcomes}", file=sys.stderr)
    assert outcomes["input_error"] > 0 and outcomes["prepared"] > 0
