"""The DEEPFALL kernel's shape (issue 20): small signatures on named bundles."""

from __future__ import annotations

import ast
import inspect

import numpy as np

from deepsim.rulesets.deepfall import board, bots, kernel, oracle

MAX_PARAMS = 8


def test_no_kernel_function_takes_more_than_8_parameters():
    """Every function of the kernel modules takes at most 8 parameters: state goes in the
    board.State / board.Data / board.Tables bundles, not in separate arrays."""
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
    for name in dat._fields:
        assert np.array_equal(getattr(dat, name), getattr(arrays, name)), name
    (args,) = arrays.kernel_args()
    assert isinstance(args, board.Data)
