# deepsim: `make run` plays the default scenario, `make test` runs the test suite.
# Both create .venv (if missing) and install the package with its dev extras first.

PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
SCENARIO ?= scenarios/deepfall-4p.yaml

# numba's compile cache is per user and shared by every checkout of the same kernel sources:
# ~/.cache/deepsim/src-<hash of the sources>/, or $(NUMBA_CACHE_DIR) when set in the
# environment (deepsim/jitcache.py). The first `make run` compiles (the run says so), later
# runs of any checkout of the same sources load it in about a second.

.PHONY: run test test-slow test-all clean venv bench findings findings-ladder findings-ladder-runs \
	findings-calibration findings-balance findings-balance-run findings-reconstruct findings-reconstruct-runs findings-press-runs \
	findings-reconstruct-best findings-fields-runs findings-reconstruct-section \
	atlantis-findings abyss-findings rivals-findings rove-findings golden warmup meta atlantis-skill docs readme-sample

venv: $(STAMP)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall whenever pyproject.toml changes. The installer is uv (from PyPI, put in the
# venv first), pip where uv cannot be installed: both resolve the same versions, uv in
# parallel (a clean clone with empty caches, 6 December: uv 17 s, pip 43 s). Neither
# byte-compiles (pip would, on one core); compileall on every core then writes the .pyc
# files (PIP_COMPILE), but not of the packages' own test folders, which nothing imports
# (16 s instead of 23). Bytecode matters here: with PYTHONDONTWRITEBYTECODE set (as on
# this machine) every process would otherwise compile each module it imports, every time.
PIP_INSTALL := if $(VENV)/bin/python -m pip install -q uv >/dev/null 2>&1; \
	then installer="$(VENV)/bin/uv pip install --python $(VENV)/bin/python"; \
	else installer="$(VENV)/bin/python -m pip install --no-compile"; fi; $$installer
PIP_COMPILE := $(VENV)/bin/python -m compileall -q -q -j 0 -x '/tests?/' \
	"$$($(VENV)/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(PIP_INSTALL) -e '.[dev]'
	$(PIP_COMPILE)
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/deepsim run $(SCENARIO)

# The documentation site: mkdocs-material from docs/ (mkdocs.yml) into site/ (not in
# git), --strict (a broken link or reference fails), offline (no fonts or scripts from
# other hosts: open site/index.html from disk). Installs the docs extra on first use, with
# the dev one (one pip run where neither is installed yet: .ci/run's first step).
DOCS_STAMP := $(VENV)/.installed-docs
$(DOCS_STAMP): pyproject.toml | $(VENV)/bin/python
	$(PIP_INSTALL) -e '.[dev,docs]'
	$(PIP_COMPILE)
	touch $(STAMP) $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

# README.md's sample of what `make run` prints (between its readme-sample markers),
# regenerated from a fresh run at the stated seed and games; tests/test_readme.py fails
# when the README's copy differs from a fresh run.
readme-sample: $(STAMP)
	$(VENV)/bin/python -m deepsim.studies.readme_sample --write README.md

# the quick tier: the suite without the tests marked slow (pyproject addopts); test-slow
# runs only those, test-all both (.ci/run runs test, then test-slow).
# Each runs in one process per core (pytest-xdist; TEST_WORKERS=0 runs in this process,
# as plain `pytest -q` does). --dist loadfile keeps each file's tests in one worker, so a
# kernel variant that a file's tests compile is compiled (or loaded) once, not per worker.
# --no-loadscope-reorder deals the files in collection order, which tests/conftest.py
# starts with the heaviest (HEAVY_FIRST), so no heavy file is left running last.
TEST_WORKERS ?= auto
# Python's bytecode caches are written even where the environment turns them off (some CI
# images set PYTHONDONTWRITEBYTECODE=1): without them every test worker re-does pytest's
# assert rewriting of every test module (collection 13.4 -> 7.1 s a worker), and every
# `deepsim` subprocess a test starts compiles the package from source again
unexport PYTHONDONTWRITEBYTECODE
PYTEST_XDIST = -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
test: $(STAMP)
	$(VENV)/bin/pytest -q $(PYTEST_XDIST)

test-slow: $(STAMP)
	$(VENV)/bin/pytest -q -m slow $(PYTEST_XDIST)

test-all: $(STAMP)
	$(VENV)/bin/pytest -q -m "slow or not slow" $(PYTEST_XDIST)

# Compile every ruleset's kernels into the cache ahead of time (e.g. in a CI image).
warmup: $(STAMP)
	$(VENV)/bin/deepsim warmup

# Refresh tests/golden.json (the result digests tests/rulesets/test_golden.py pins) after a change
# that alters what the games produce; the commit says why. Without --update, `deepsim golden`
# only checks (exit 1 when a digest differs); `--update deepfall/4p` refreshes one case.
golden: $(STAMP)
	$(VENV)/bin/deepsim golden --digests tests/golden.json --update \
	    $$($(VENV)/bin/python -c "from deepsim.rulesets import builtin; print(*builtin())")

# The per-user numba cache is shared with other checkouts: `deepsim warmup --prune` trims it.
clean:
	rm -rf $(VENV) .numba_cache .pytest_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# Every playable ruleset's kernel speed on its pinned bench scenario (docs/performance.md);
# nothing is written (`deepsim bench RULESET --out reports/bench.json` on an idle machine).
bench: $(STAMP)
	$(VENV)/bin/deepsim bench deepfall
	$(VENV)/bin/deepsim bench atlantis
	$(VENV)/bin/deepsim bench abyss
	$(VENV)/bin/deepsim bench rivals
	$(VENV)/bin/deepsim bench rove

# The meta fields: `deepsim meta` at its default budget (3 rounds; README,
# "deepsim meta"), its faction bots files copied to scenarios/meta/ (committed; played by
# scenarios/deepfall-meta.yaml, deepfall-mixed-meta.yaml and atlantis-meta.yaml). The
# output folders go to $(META_RUNS) (not in git). META_ARGS adds options (e.g. a budget).
META_RUNS ?= reports/meta
META_ROUNDS ?= 3
META_ARGS ?=

meta: $(STAMP)
	$(VENV)/bin/deepsim meta scenarios/deepfall-4p.yaml --rounds $(META_ROUNDS) $(META_ARGS) \
		--out $(META_RUNS)/deepfall-4p --force --quiet
	cp $(META_RUNS)/deepfall-4p/meta-bots.yaml scenarios/meta/deepfall-4p-bots.yaml
	$(VENV)/bin/deepsim meta scenarios/atlantis.yaml --rounds $(META_ROUNDS) $(META_ARGS) \
		--out $(META_RUNS)/atlantis --force --quiet
	cp $(META_RUNS)/atlantis/meta-bots.yaml scenarios/meta/atlantis-bots.yaml

# reports/FINDINGS.md: the rulebook's claims B1-B8 measured on 1,000,000 mixed games (2-6
# players, random companies, the shipped heuristics balanced/greedy/martyr), a 2-player run
# (matchups), the literal Maw (maw.steps_per_floor=1, B1/B8), Wardancer's Worthy End read
# as "instead of" (A20), B5's paired games (scenarios/claims/b5-*.yaml: each deal played by
# two arms with the behaviours swapped between the seats), and the same mixed field played
# by the meta styles (scenarios/deepfall-mixed-meta.yaml): every claim's and company's
# verdict under both fields side by side, a flip marked "depends on play skill".
# The instruments' calibration (deepsim/rulesets/deepfall/calibration.yaml) is made apart,
# by `make findings-calibration` on seeds of its own, and committed before `make findings`
# (which reads it: the mirror margins of B6 and each instrument's calibration figure).
# Runs go to $(FINDINGS_RUNS) (not in git); FINDINGS.md, its PNGs and figures.json (every
# committed figure, which tests/rulesets/deepfall/test_findings.py recomputes at a small budget) are committed.
FINDINGS_RUNS ?= reports/runs/findings
FINDINGS_GAMES ?= 1000000
FINDINGS_VARIANT_GAMES ?= 200000
FINDINGS_PAIRED_GAMES ?= 200000
FINDINGS_META_GAMES ?= 1000000
# the largest reference (mirror games, the A/A crossover); the exact ones play a tenth. Each
# of the 200 relabellings of the mirror games costs ~1 s of CPU per 40,000 games.
CALIBRATION_GAMES ?= 50000
DEEPSIM_QUIET := --force --quiet --no-report
# Each claim's verdict per rung of the skill ladder (issue 21): deepsim ladder on the
# mixed field (random < strongest heuristic < search-8 < search-32), every rung's field
# kept as a run; $(FINDINGS_LADDER_GAMES) games per rung and $(FINDINGS_LADDER_DEPTH) deals
# per head-to-head: the ladder's own default budget (178,000 games, 88 CPU minutes on one
# thread: docs/performance.md; FINDINGS_LADDER_GAMES=4000 FINDINGS_LADDER_DEPTH=1000 is a
# 15-minute look). FINDINGS compares it with the ladder the search before its paired
# rollouts played ($(FINDINGS_LADDER_BEFORE), 2,000 games, same seed).
FINDINGS_LADDER_GAMES ?= 20000
FINDINGS_LADDER_DEPTH ?= 10000
FINDINGS_LADDER_BEFORE ?= reports/findings/ladder-before
# "Readings under which the claims hold" (issue 22): the claims tunes' budgets. The readings
# tune checks its baseline and 3 confirmed points with every company's best response
# (RECONSTRUCT_RESPOND_TRIALS x RECONSTRUCT_RESPOND_GAMES per company); rounding,
# placeholders and readings+rounding run at the smaller space budget. The ladder's and the
# tunes' budgets are sized so that the whole of `make findings` ends in about an hour on the
# shared 2-core machine (the search rungs and the tunes are most of it); FINDINGS prints the
# budgets it was made with, and tests/rulesets/deepfall/test_findings.py checks they are these.
# The tunes run at 200 trials x 20,000 games (2.3-4.7 s a trial on the shared machine,
# by its load: 8-16 min a space, ~75 min for the four with confirmation and the best
# responses); `make findings-reconstruct` re-runs only them and replaces FINDINGS' section.
# A tune confirms its point holding the most claims first; `findings-reconstruct-best`
# confirms and checks the joint space's one alone (respond_check --best: the committed
# joint run predates that order), and `findings-fields-runs` judges the claims in fields of
# admissible play (deepsim/studies/deepfall_fields.py) at the defaults and at the
# readings tune's best point.
RECONSTRUCT_TRIALS ?= 200
RECONSTRUCT_GAMES ?= 20000
RECONSTRUCT_SPACE_TRIALS ?= 200
RECONSTRUCT_SPACE_GAMES ?= 20000
RECONSTRUCT_ROUNDING_TRIALS ?= 200
RECONSTRUCT_CONFIRM_GAMES ?= 20000
RECONSTRUCT_RESPOND_TRIALS ?= 20
RECONSTRUCT_RESPOND_GAMES ?= 500
RC := scenarios/deepfall-mixed.yaml --objective claims --force --quiet \
	--confirm-games $(RECONSTRUCT_CONFIRM_GAMES) --confirm-points 3
RESPOND := --respond-trials $(RECONSTRUCT_RESPOND_TRIALS) \
	--respond-games $(RECONSTRUCT_RESPOND_GAMES)
RECONSTRUCT_DIRS := $(foreach s,reconstruct reconstruct-joint reconstruct-placeholders \
	reconstruct-rounding,$(FINDINGS_RUNS)/$(s))

# only the four claims tunes and FINDINGS' section "Readings under which the claims hold"
# (the rest of FINDINGS.md as the last make findings left it)
findings-reconstruct-runs: $(STAMP)
	$(VENV)/bin/deepsim tune $(RC) --space readings \
		--games $(RECONSTRUCT_GAMES) --trials $(RECONSTRUCT_TRIALS) $(RESPOND) \
		--out $(FINDINGS_RUNS)/reconstruct
	$(VENV)/bin/deepsim tune $(RC) --space readings,rounding --games $(RECONSTRUCT_SPACE_GAMES) \
		--trials $(RECONSTRUCT_SPACE_TRIALS) $(RESPOND) --out $(FINDINGS_RUNS)/reconstruct-joint
	$(VENV)/bin/deepsim tune $(RC) --space placeholders --games $(RECONSTRUCT_SPACE_GAMES) \
		--trials $(RECONSTRUCT_SPACE_TRIALS) --out $(FINDINGS_RUNS)/reconstruct-placeholders
	$(VENV)/bin/deepsim tune $(RC) --space rounding --games $(RECONSTRUCT_SPACE_GAMES) \
		--trials $(RECONSTRUCT_ROUNDING_TRIALS) --out $(FINDINGS_RUNS)/reconstruct-rounding

# game length against how often the table presses on, with the admissible pressing
# (deepsim/studies/deepfall_press.py: 11 runs of PRESS_GAMES games)
PRESS_GAMES ?= 20000
findings-press-runs: $(STAMP)
	$(VENV)/bin/python -m deepsim.studies.deepfall_press --games $(PRESS_GAMES) \
		--out $(FINDINGS_RUNS)/press --image findings/press.png
	mkdir -p reports/findings && cp $(FINDINGS_RUNS)/press/press.png reports/findings/press.png

# the point holding the most claims of the joint, rounding and placeholders spaces (the
# tunes check only readings' and the joint's front with best responses), and the one
# point of all that holds B1 (trial 104 of the committed runs: FINDINGS' conflicts), on
# fresh paired games and with every company's best response
RECONSTRUCT_B1_TRIAL ?= 104
RCHECK := $(VENV)/bin/python -m deepsim.studies.respond_check scenarios/deepfall-mixed.yaml \
	$(FINDINGS_RUNS)/reconstruct-joint --trials $(RECONSTRUCT_RESPOND_TRIALS) \
	--games $(RECONSTRUCT_RESPOND_GAMES) --confirm-games $(RECONSTRUCT_CONFIRM_GAMES) --force
findings-reconstruct-best: $(STAMP)
	$(RCHECK) --best --out $(FINDINGS_RUNS)/reconstruct-joint-best
	$(RCHECK) --trial $(RECONSTRUCT_B1_TRIAL) --out $(FINDINGS_RUNS)/reconstruct-joint-b1
	for s in rounding placeholders; do $(subst reconstruct-joint,reconstruct-$$s,$(RCHECK)) \
		--best --out $(FINDINGS_RUNS)/reconstruct-$$s-best || exit 1; done

# the claims in fields of admissible play (every searchable bot knob, alone over its
# bounds and FIELDS_JOINT joint draws per company, kept within 2 points of win rate of the
# company's best response; FIELDS_DRAWN random admissible fields and the two pressing
# corners), at the defaults and at the readings tune's best point
FIELDS_EVAL_GAMES ?= 2000
FIELDS_JOINT ?= 24
FIELDS_DRAWN ?= 16
FIELDS := --trials $(RECONSTRUCT_RESPOND_TRIALS) --search-games $(RECONSTRUCT_RESPOND_GAMES) \
	--eval-games $(FIELDS_EVAL_GAMES) --joint $(FIELDS_JOINT) --fields $(FIELDS_DRAWN) \
	--confirm-games $(RECONSTRUCT_CONFIRM_GAMES)
findings-fields-runs: $(STAMP)
	$(VENV)/bin/python -m deepsim.studies.deepfall_fields $(FIELDS) \
		--out $(FINDINGS_RUNS)/fields
	$(VENV)/bin/python -m deepsim.studies.deepfall_fields $(FIELDS) \
		--tune $(FINDINGS_RUNS)/reconstruct --trial best --out $(FINDINGS_RUNS)/fields-best
	$(VENV)/bin/python -m deepsim.studies.deepfall_fields $(FIELDS) --reference found \
		--reuse-settings $(FINDINGS_RUNS)/fields --out $(FINDINGS_RUNS)/fields-found
	$(VENV)/bin/python -m deepsim.studies.deepfall_fields $(FIELDS) --reference found \
		--tune $(FINDINGS_RUNS)/reconstruct --trial best \
		--reuse-settings $(FINDINGS_RUNS)/fields-best --out $(FINDINGS_RUNS)/fields-best-found

RECONSTRUCT_APPEND := reports/findings/reconstruct-reading.md \
	$(FINDINGS_RUNS)/reconstruct-joint-best/respond.md \
	$(FINDINGS_RUNS)/reconstruct-joint-b1/respond.md $(FINDINGS_RUNS)/fields/fields.md \
	$(FINDINGS_RUNS)/fields-found/fields.md $(FINDINGS_RUNS)/fields-best/fields.md \
	$(FINDINGS_RUNS)/fields-best-found/fields.md $(FINDINGS_RUNS)/press/press.md
RECONSTRUCT_SECTION := $(VENV)/bin/python -m deepsim.studies.claims_summary $(RECONSTRUCT_DIRS) \
	--refresh \
	$(foreach s,joint rounding placeholders,\
		--check $(FINDINGS_RUNS)/reconstruct-$(s)=$(FINDINGS_RUNS)/reconstruct-$(s)-best) \
	$(foreach f,$(RECONSTRUCT_APPEND),--append $(f)) --replace reports/FINDINGS.md

findings-reconstruct: findings-reconstruct-runs findings-reconstruct-best findings-fields-runs \
		findings-press-runs
	$(RECONSTRUCT_SECTION)

# only the section "Readings under which the claims hold" from the runs on disk (no games)
findings-reconstruct-section: $(STAMP)
	$(RECONSTRUCT_SECTION)

findings-ladder-runs: $(STAMP)
	rm -rf $(FINDINGS_RUNS)/ladder $(FINDINGS_RUNS)/ladder-rungs
	$(VENV)/bin/deepsim ladder scenarios/deepfall-mixed.yaml --games $(FINDINGS_LADDER_GAMES) \
		--depth-games $(FINDINGS_LADDER_DEPTH) --runs $(FINDINGS_RUNS)/ladder-rungs --out $(FINDINGS_RUNS)/ladder --quiet

findings-calibration: $(STAMP)
	$(VENV)/bin/python -m deepsim.studies.calibration \
		--runs $(FINDINGS_RUNS)/calibration --games $(CALIBRATION_GAMES)

# only the ladder's section of reports/FINDINGS.md, the rest as the last make findings left it
findings-ladder: findings-ladder-runs
	$(VENV)/bin/python -m deepsim.studies.deepfall_findings --ladder $(FINDINGS_RUNS)/ladder \
		--ladder-before $(FINDINGS_LADDER_BEFORE) --ladder-only --out reports

findings: $(STAMP) findings-ladder-runs findings-press-runs
	$(VENV)/bin/deepsim run scenarios/deepfall-mixed.yaml --games $(FINDINGS_GAMES) \
		--out $(FINDINGS_RUNS)/mixed $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/deepfall-2p.yaml --out $(FINDINGS_RUNS)/2p $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/deepfall-mixed.yaml --games $(FINDINGS_VARIANT_GAMES) \
		--set maw.steps_per_floor=1 --out $(FINDINGS_RUNS)/mixed-spf1 $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/deepfall-mixed.yaml --games $(FINDINGS_VARIANT_GAMES) \
		--set callings.wardancer.worthy_end_multiplier=0.88 \
		--out $(FINDINGS_RUNS)/mixed-a20 $(DEEPSIM_QUIET)
	for arm in exits-a exits-b aggression-a aggression-b; do \
		$(VENV)/bin/deepsim run scenarios/claims/b5-$$arm.yaml --games $(FINDINGS_PAIRED_GAMES) \
			--out $(FINDINGS_RUNS)/b5-$$arm $(DEEPSIM_QUIET) || exit 1; done
	$(VENV)/bin/deepsim run scenarios/deepfall-mixed-meta.yaml --games $(FINDINGS_META_GAMES) \
		--out $(FINDINGS_RUNS)/mixed-meta $(DEEPSIM_QUIET)
	$(MAKE) findings-reconstruct-runs findings-reconstruct-best findings-fields-runs
	$(VENV)/bin/python -m deepsim.studies.deepfall_findings $(FINDINGS_RUNS)/mixed $(FINDINGS_RUNS)/2p \
		$(FINDINGS_RUNS)/mixed-spf1 $(FINDINGS_RUNS)/mixed-a20 \
		$(foreach a,exits-a exits-b aggression-a aggression-b,$(FINDINGS_RUNS)/b5-$(a)) \
		--meta $(FINDINGS_RUNS)/mixed-meta \
		$(foreach d,$(RECONSTRUCT_DIRS),--reconstruct $(d)) --ladder $(FINDINGS_RUNS)/ladder \
		--ladder-before $(FINDINGS_LADDER_BEFORE) --out reports
	$(RECONSTRUCT_SECTION)
	$(BALANCE_SECTION)

# FINDINGS' section "The smallest fix to the printed numbers": deepsim balance on the
# default 4-player field, the Calling and Lineage numbers that are not placeholders as
# levers (docs/guide/balance.md "Demonstrations": 21 min on the shared 2-core machine, ~6
# on an idle one). The folder is committed: `make findings-balance` only rewrites the
# section from it; `make findings-balance-run` plays it again first.
BALANCE_DEEPFALL ?= reports/balance/deepfall
BALANCE_SECTION := $(VENV)/bin/python -m deepsim.studies.balance_findings $(BALANCE_DEEPFALL) \
	--replace reports/FINDINGS.md
BL := lineages
BALANCE_LINEAGE_LEVERS := $(BL).dvergar.threat_ignore,$(BL).dvergar.faith_penalty
BALANCE_LINEAGE_LEVERS := $(BALANCE_LINEAGE_LEVERS),$(BL).wisp.hand_size
BALANCE_LINEAGE_LEVERS := $(BALANCE_LINEAGE_LEVERS),$(BL).gnoll.combat_claim_loot:1
BALANCE_LINEAGE_LEVERS := $(BALANCE_LINEAGE_LEVERS),$(BL).gnoll.faith_penalty,$(BL).sylphid.moves
BALANCE_LINEAGE_LEVERS := $(BALANCE_LINEAGE_LEVERS),$(BL).sylphid.cunning_bonus
BALANCE_LINEAGE_LEVERS := $(BALANCE_LINEAGE_LEVERS),$(BL).sylphid.setback_extra_loss
BALANCE_LINEAGE_LEVERS := $(BALANCE_LINEAGE_LEVERS),$(BL).golem_born.hand_size

findings-balance-run: $(STAMP)
	$(VENV)/bin/deepsim balance scenarios/deepfall-4p.yaml \
		--levers 'callings.*.worthy_end_multiplier:0.1' --levers '$(BALANCE_LINEAGE_LEVERS)' \
		-k 2 --games 5000 --trials 20 --grid-max 20 --confirm 3 --confirm-games 100000 \
		--respond-trials 8 --respond-games 2000 --out $(BALANCE_DEEPFALL) --force --quiet

findings-balance:
	$(BALANCE_SECTION)

# reports/atlantis/: Atlantis side shares, first-move advantage and hit-rule sensitivity
# (the digest's balance questions 1-3): the default field under hit rules [1], [5,6],
# [4,5,6], each side moving first, and the same on mirrored (point-symmetric) maps.
# Then atlantis-skill: the side shares under the shipped bots and under the meta field.
# Runs go to $(ATLANTIS_RUNS) (not in git); the reports are committed.
ATLANTIS_RUNS ?= reports/runs/atlantis
AR := $(ATLANTIS_RUNS)
KING_FIRST := --set setup.first_side=sea_king
MIRRORED := --set map.generator.mirrored=true
# Game budgets: games last until a leader dies (the safety cap end.max_turns is 1,000
# player-turns; about 70 player-turns a game); on the shared 2-core machine the default
# field played ~50 games/s, so: 10,000 games for the main runs (Wilson half-width about
# 1 point of a side's share, 0.02 x fair), 5,000 for the variants, 2,500 per mirrored-map
# run (55,000 games in all). Larger budgets: `make atlantis-findings ATLANTIS_GAMES=...`.
ATLANTIS_GAMES ?= 10000
ATLANTIS_VARIANT_GAMES ?= 5000
ATLANTIS_MIRROR_GAMES ?= 2500
ATLANTIS_SKILL_GAMES ?= $(ATLANTIS_GAMES)

# reports/atlantis/skill.md: each side's verdict under the shipped bots
# (scenarios/atlantis.yaml) and under the meta field (scenarios/atlantis-meta.yaml), side by
# side, on $(ATLANTIS_SKILL_GAMES) games each.
atlantis-skill: $(STAMP)
	$(VENV)/bin/deepsim run scenarios/atlantis.yaml --games $(ATLANTIS_SKILL_GAMES) \
		--out $(AR)/skill-shipped $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/atlantis-meta.yaml --games $(ATLANTIS_SKILL_GAMES) \
		--out $(AR)/skill-meta $(DEEPSIM_QUIET)
	$(VENV)/bin/python -m deepsim.studies.sidebyside $(AR)/skill-shipped --meta $(AR)/skill-meta \
		--out reports/atlantis/skill.md

# the default field's run is atlantis-skill's shipped one (the same scenario, seed and games)
atlantis-findings: $(STAMP) atlantis-skill
	$(VENV)/bin/deepsim run scenarios/atlantis-hit56.yaml --games $(ATLANTIS_GAMES) \
		--out $(AR)/hit56 $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/atlantis.yaml --games $(ATLANTIS_VARIANT_GAMES) \
		--set 'combat.hit_faces=[4,5,6]' --out $(AR)/hit456 $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/atlantis.yaml --games $(ATLANTIS_VARIANT_GAMES) $(KING_FIRST) \
		--out $(AR)/hit1-kingfirst $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/atlantis-hit56.yaml --games $(ATLANTIS_VARIANT_GAMES) \
		$(KING_FIRST) --out $(AR)/hit56-kingfirst $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/atlantis.yaml --games $(ATLANTIS_MIRROR_GAMES) $(MIRRORED) \
		--out $(AR)/mirror-hit1 $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/atlantis.yaml --games $(ATLANTIS_MIRROR_GAMES) $(MIRRORED) \
		$(KING_FIRST) --out $(AR)/mirror-hit1-kingfirst $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/atlantis-hit56.yaml --games $(ATLANTIS_MIRROR_GAMES) \
		$(MIRRORED) --out $(AR)/mirror-hit56 $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/atlantis-hit56.yaml --games $(ATLANTIS_MIRROR_GAMES) \
		$(MIRRORED) $(KING_FIRST) --out $(AR)/mirror-hit56-kingfirst $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim report $(AR)/skill-shipped $(AR)/hit56 $(AR)/hit456 $(AR)/hit1-kingfirst \
		$(AR)/hit56-kingfirst --format md --out reports/atlantis
	$(VENV)/bin/deepsim report $(AR)/mirror-hit1 $(AR)/mirror-hit1-kingfirst $(AR)/mirror-hit56 \
		$(AR)/mirror-hit56-kingfirst --format md --out reports/atlantis/symmetric

# reports/abyss/: the digest's balance questions (E1-E6, E8-E10) on PLACEHOLDER data: the
# default field (2-4 players), 4 players with the random baseline, hunters
# that differ only in when they fight (E4) and merchants that differ only in what they pay
# in the auction (E2). Runs go to $(ABYSS_RUNS) (not in git); the reports and README.md (the
# measured answers, written by deepsim/studies/abyss_findings.py) are committed.
ABYSS_RUNS ?= reports/runs/abyss
BR := $(ABYSS_RUNS)

# Game budgets (the machine is shared: ~70 games/s on 2 threads when idle, far less when
# shared): 10,000 games per run, 5,000 for the 4-player baseline run (35,000 in all).
ABYSS_GAMES ?= 10000
ABYSS_4P_GAMES ?= 5000

abyss-findings: $(STAMP)
	$(VENV)/bin/deepsim run scenarios/abyss.yaml --games $(ABYSS_GAMES) --out $(BR)/mixed \
		$(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/abyss-4p.yaml --games $(ABYSS_4P_GAMES) --out $(BR)/4p \
		$(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/abyss-threat.yaml --games $(ABYSS_GAMES) --out $(BR)/threat \
		$(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/abyss-auction.yaml --games $(ABYSS_GAMES) \
		--out $(BR)/auction $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim report $(BR)/mixed --format md --out reports/abyss/mixed
	$(VENV)/bin/deepsim report $(BR)/4p --format md --out reports/abyss/4p
	$(VENV)/bin/deepsim report $(BR)/threat --format md --out reports/abyss/threat
	$(VENV)/bin/deepsim report $(BR)/auction --format md --out reports/abyss/auction
	$(VENV)/bin/python -m deepsim.studies.abyss_findings $(BR) --out reports/abyss/README.md

# reports/rove/: the Rove designer's questions (scope part B, §B1) on PLACEHOLDER content:
# scenarios/rove.yaml (the skirmish at 2-4 Rovers) and the same games replayed with one
# setting changed each (Story, Hard and Challenge steps, the response checks, the tie rule:
# the list is deepsim/studies/rove_findings.py's VARIANTS). Runs go to $(ROVE_RUNS) (not in
# git); the base run's report and README.md are committed. ROVE_GAMES games per run (12
# runs; the issue's response checks ask 20,000); a larger budget: `make rove-findings
# ROVE_GAMES=100000`.
ROVE_RUNS ?= reports/runs/rove
ROVE_GAMES ?= 20000
VRO := $(ROVE_RUNS)
ROVE_VARIANTS := story-personal:story.personal_die=true story-infusion:story.infusion_die=true \
	hard-hp:hard.start_hp_fraction=0.7 hard-tie:hard.tiebreak_fewest_hp=true \
	tougher:scale.adversary_hp=1.5 hurried:scale.round_limit_add=-1 \
	rover-hp2:scale.rover_hp=2 adversary-hp2:scale.adversary_hp=2 \
	limit-plus2:scale.round_limit_add=2 tie-adversarial:ai.tiebreak=adversarial \
	tie-first:ai.tiebreak=first

rove-findings: $(STAMP)
	$(VENV)/bin/deepsim run scenarios/rove.yaml --games $(ROVE_GAMES) --out $(VRO)/base $(DEEPSIM_QUIET)
	for v in $(ROVE_VARIANTS); do \
		$(VENV)/bin/deepsim run scenarios/rove.yaml --games $(ROVE_GAMES) \
			--set $${v#*:} --out $(VRO)/$${v%%:*} $(DEEPSIM_QUIET) || exit 1; \
	done
	$(VENV)/bin/deepsim report $(VRO)/base --format md --out reports/rove/base
	$(VENV)/bin/python -m deepsim.studies.rove_findings $(VRO) --out reports/rove/README.md

# reports/rivals/: the designer's questions of the scope (part A, §A1) on PLACEHOLDER data:
# the default field (scenarios/rivals.yaml, 2-4 players), the same seeds without Lurkers,
# without the map mulligan and without chained explosions (paired games), each heuristic
# style against random, four copies of one build, and one build with +1 heart (paired).
# Runs go to $(RIVALS_RUNS) (not in git); the reports and README.md (the measured answers,
# written by deepsim/studies/rivals.py) are committed.
# The budget: RIVALS_GAMES mixed games, RIVALS_PAIRED_GAMES per paired variant, and
# RIVALS_CHECK_GAMES per competence run (vs-random, mirror, hearts; the issue's checks ask
# 20,000). A smaller budget for a loaded machine, e.g. `make rivals-findings
# RIVALS_GAMES=30000 RIVALS_PAIRED_GAMES=10000 RIVALS_CHECK_GAMES=10000` (~6 min of CPU);
# README.md says which budget made it (its "Runs" table lists every run's games).
RIVALS_RUNS ?= reports/runs/rivals
RIVALS_GAMES ?= 100000
RIVALS_PAIRED_GAMES ?= 40000
RIVALS_CHECK_GAMES ?= 20000
VR := $(RIVALS_RUNS)

rivals-findings: $(STAMP)
	$(VENV)/bin/deepsim run scenarios/rivals.yaml --games $(RIVALS_GAMES) --out $(VR)/mixed $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/rivals.yaml --games $(RIVALS_PAIRED_GAMES) \
		--set lurkers.enabled=false --out $(VR)/no-lurkers $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/rivals.yaml --games $(RIVALS_PAIRED_GAMES) \
		--set map.mulligan.tries=0 --out $(VR)/no-mulligan $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/rivals.yaml --games $(RIVALS_PAIRED_GAMES) \
		--set explode.recursive=false --out $(VR)/no-chains $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/rivals-vs-random.yaml --games $(RIVALS_CHECK_GAMES) --out $(VR)/vs-random $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/rivals-mirror.yaml --games $(RIVALS_CHECK_GAMES) --out $(VR)/mirror $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/rivals-hearts.yaml --games $(RIVALS_CHECK_GAMES) --out $(VR)/hearts $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim run scenarios/rivals-hearts.yaml --games $(RIVALS_CHECK_GAMES) \
		--set roster.builds.balanced_b.hearts_bonus=1 --out $(VR)/hearts-plus $(DEEPSIM_QUIET)
	$(VENV)/bin/deepsim report $(VR)/mixed --format md --out reports/rivals/mixed
	$(VENV)/bin/deepsim report $(VR)/vs-random --format md --out reports/rivals/vs-random
	$(VENV)/bin/python -m deepsim.studies.rivals $(VR) --out reports/rivals/README.md
