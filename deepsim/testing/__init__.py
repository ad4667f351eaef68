"""Test helpers every ruleset shares: golden result digests (and, later, conformance checks).

Importable by a ruleset's own tests (``deepsim.testing``), so a game in a folder or package
of its own is tested the same way as the games deepsim ships.
"""
