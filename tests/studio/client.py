"""Starlette's test client for the studio's tests (skips when the studio's packages are
missing; quiet about Starlette's warning on httpx: a warning about the test tool)."""

import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

__all__ = ["TestClient"]
