"""Studies: the scripts that play or read many runs and write the findings pages
(``reports/FINDINGS.md``, ``reports/abyss/``, ``reports/atlantis/``). Each is run as
``python -m deepsim.studies.NAME`` by the Makefile's findings targets.

A study is a face (docs/contract.md, "Layers"): it may use every layer, and nothing in the
package imports a study. What a study measures with belongs below it (the report kit, the
tools); a study only chooses the runs and writes the page.
"""
