"""Designers tuning numbers: ``deepsim sweep`` (metrics over a grid of parameter values) and
``deepsim tune`` (optuna search minimising an imbalance objective).

Modules: :mod:`~deepsim.tune.grid` (``--param`` VALUES and ranges, grids),
:mod:`~deepsim.tune.objectives` (metrics and objectives from the report's metric functions),
:mod:`~deepsim.tune.play` (playing points with common random numbers),
:mod:`~deepsim.tune.sweep`, :mod:`~deepsim.tune.tune`, :mod:`~deepsim.tune.plots`,
:mod:`~deepsim.tune.cli`.
"""
