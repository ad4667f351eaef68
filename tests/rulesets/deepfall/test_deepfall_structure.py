"""The DEEPFALL kernel's shape (issue 20): small signatures on named bundles."""

from __future__ import annotations

import ast
import inspect

import numpy as np
import pytest

from deepsim.rulesets.deepfall import board, bots, kernel, oracle
from deepsim.rulesets.deepfall.layout import EVENT_WIDTH

MAX_PARAMS = 8


def test_no_kernel_function_takes_more_than_8_parameters():
    """Every function of the kernel modules takes at most 8 parameters: state goes in the
    state record (board.new_state) / board.Data / board.Tables bundles, not in separate
    arrays."""
    too_many = []
    for mod in (board, bots, kernel, oracle):
        tree = ast.parse(inspect.getsource(mod))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                a = node.args
                n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                if n > MAX_PARAMS:
                    name = getattr(node, "name", "<lambda>")
                    too_many.append(f"{mod.__name__}.{name}: {n}")
    assert not too_many, too_many


def test_turn_steps_are_functions_named_by_their_rulebook_step():
    """§6A 1-5: play_turn is turn_part's whole sequence (the one sequence of a turn's steps,
    also played in pieces by a search bot's turn): turn_start then the functions of each
    step (§6A.2 and §6A.4 in two parts each), in order, numbered in order."""
    assert "turn_part(st, dat, p, np.int64(STEP_START), np.int64(STEP_EXIT))" in \
        inspect.getsource(kernel.play_turn.py_func)
    body = inspect.getsource(kernel.turn_part.py_func)
    steps = ["turn_start", "step1_roll", "step2_plan", "step2_press_on", "step3_dread",
             "step4_move", "step4_claim", "step5_exit"]
    at = [body.index(f"{s}(st, dat, p") for s in steps]
    assert at == sorted(at)
    for s in steps[1:]:
        doc = getattr(kernel, s).py_func.__doc__
        assert doc.startswith(f"§6A.{s[4]}"), s
    parts = [kernel.STEP_START, kernel.STEP_ROLL, kernel.STEP_PRESS_PLAN, kernel.STEP_PRESS,
             kernel.STEP_DREAD, kernel.STEP_MOVE, kernel.STEP_CLAIM, kernel.STEP_EXIT]
    assert parts == list(range(len(steps)))


def test_data_bundle_fields_match_the_compiled_arrays():
    """compile.Arrays.kernel_data fills every board.Data field from the array of that name."""
    from deepsim.rulesets.deepfall import RULESET
    prep = RULESET.prepare({"name": "t", "ruleset": "deepfall", "players": 4, "seed": 1,
                            "games": 1}, source="<test>")
    arrays = prep.compiled["arrays"]
    dat = arrays.kernel_data()
    assert dat._fields == board.Data._fields
    for name, _, _ in board.BOOK_FIELDS:          # the ruleset's numbers, in one record
        assert np.array_equal(getattr(dat.book, name), getattr(arrays, name)), name
    for name in dat._fields[1:]:
        assert np.array_equal(getattr(dat, name), getattr(arrays, name)), name
    (args,) = arrays.kernel_args()
    assert isinstance(args, board.Data)
    arrays.rooms = arrays.rooms[:-1]              # out of step with the record's layout
    with pytest.raises(ValueError, match="rooms has shape"):
        arrays.kernel_data()


def test_a_state_is_one_record_the_kernel_writes_in_place():
    """board.new_state / new_quiet_state give numpy records of STATE_FIELDS (and the event
    buffer: rows only in a state that can be traced); a kernel function called from Python
    writes the record itself, and copy_state copies every field but the trace."""
    from deepsim.rulesets.deepfall import RULESET
    st, quiet = board.new_state(), board.new_quiet_state()
    assert [f for f, _, _ in board.STATE_FIELDS] + ["ev"] == list(st.dtype.names)
    assert st.ev.shape == (board.TRACE_EVENTS, EVENT_WIDTH)
    assert quiet.ev.shape == (0, EVENT_WIDTH)
    for name, dtype, shape in board.STATE_FIELDS:
        assert getattr(st, name).shape == shape and getattr(st, name).dtype == dtype, name
    dat = RULESET.prepare({"name": "t", "ruleset": "deepfall", "players": 3, "seed": 1,
                           "games": 1}, source="<test>").compiled["arrays"].kernel_data()
    kernel.reset(st, np.int64(1), np.int64(0), np.int64(1))
    kernel.setup(st, dat)
    assert st.g[board.GS_N] == 3 and st.g[board.GS_TRACE] == 1
    assert st.bag[:3].sum() > 0 and st.theme[0, 0] >= 0
    board.copy_state(st, quiet)
    for name, _, _ in board.STATE_FIELDS:
        if name != "g":
            assert np.array_equal(getattr(quiet, name), getattr(st, name)), name
    assert quiet.g[board.GS_TRACE] == 0 and quiet.g[board.GS_N] == 3


def test_plain_python_reads_a_state_through_views_of_its_record(monkeypatch):
    """NUMBA_DISABLE_JIT=1 (the bench's plain-Python reference): board.fields_of gives a
    namedtuple of views of the record's fields, the same memory, not a copy."""
    from numba import config
    monkeypatch.setattr(config, "DISABLE_JIT", True)
    buf = np.zeros(1, board.QUIET_STATE).view(np.recarray)
    st = board.fields_of(buf[0])
    assert st._fields == buf.dtype.names
    st.sd[1, board.SD_FLOOR] = 4
    st.g[board.GS_N] = 3
    assert buf[0].sd[1, board.SD_FLOOR] == 4 and buf[0].g[board.GS_N] == 3
    monkeypatch.setattr(config, "DISABLE_JIT", False)
    assert isinstance(board.fields_of(buf[0]), np.record)      # with the JIT: the record
