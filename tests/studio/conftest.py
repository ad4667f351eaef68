"""The studio's tests' fixtures: Starlette's test client and a DEEPFALL parameter's bound."""

import warnings

import pytest


@pytest.fixture
def test_client():
    """Starlette's ``TestClient`` class (the test is skipped when httpx, a dev extra, is
    missing; Starlette's warning about httpx is a warning about the test tool: kept quiet)."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    return TestClient


@pytest.fixture
def spf_max() -> str:
    """``<= N`` of DEEPFALL's ``maw.steps_per_floor``, as ``deepsim params`` prints it (its
    schema's): what a message about an out-of-bounds value must name."""
    from deepsim import runner

    row = next(r for r in runner.get_ruleset("deepfall").parameters()
               if r["path"] == "maw.steps_per_floor")
    return next(b for b in row["bounds"].split(", ") if b.startswith("<="))
