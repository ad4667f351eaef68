"""Test helpers every ruleset shares: golden result digests (:mod:`deepsim.testing.golden`)
and the conformance suite every ruleset with a kernel passes
(:mod:`deepsim.testing.conformance`).

Importable by a ruleset's own tests (``deepsim.testing``), so a game in a folder or package
of its own is tested the same way as the games deepsim ships.
"""
