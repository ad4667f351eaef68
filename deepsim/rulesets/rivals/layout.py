"""Array layouts shared by the Rivals kernel, its data compiler and its Python side.

This module is the contract between ``rivals.yaml``/``schema.py``/``compile.py`` (data),
``state.py`` (the game state), ``kernel.py``/``bots.py`` (rules and decisions) and the
ruleset class (frames, trace). The kernel sees the rules as plain arrays; these
module-level integers name their rows and columns (numba reads them as compile-time
constants). Each name tuple is the single source of its order: add new names at the END.

Rule ids (RV-*) and ambiguity ids (AMB-*) are those of the project's digest of the rulebook
(AMB-27.. from the scope, part A); docs/RULES.md, "Rivals", lists them with their
parameters.

**Information.** Rivals hides only the order of its decks (Lurker, loot, event) and so the
contents of unrevealed dens. Everything else is on the table: models, wounds, equipped
loot, Aether, tiles, tokens. Bots read the public arrays (state.py) and never the decks.
"""

from __future__ import annotations

# ---- capacities -------------------------------------------------------------------------
MAX_P = 4                 # RV-S7: 2-4 players (4 activation cards)
MAX_MODELS = 64           # models of all players in one game
MAX_UNITS = 32            # unit types of a roster (a bit each in the minion-paid mask)
MAX_BUILDS = 32           # builds of a roster
MAX_COLOURS = 6           # dice colours
MAX_FACES = 20            # faces of one die
MAX_DENS = 16             # den tiles of one map
MAX_LURKER_CARDS = 32     # Lurker cards
MAX_LOOT = 200            # loot cards
MAX_EVENTS = 200          # event cards (copies expanded)
MAX_TILES = 128           # tiles of a map
MAX_POOL = 40             # dice of one roll before explosions (bounded by the data)

# ---- faces (RV-D2/D3): the codes of a colour's face table -------------------------------
FACE_NAMES = ("hit", "exploding_hit", "shield", "aether", "exploding_aether", "blank")
F_HIT, F_XHIT, F_SHIELD, F_AETHER, F_XAETHER, F_BLANK = range(6)

# ---- situations (schema.SITUATIONS) and the modifier table: int64[N_SIT, MOD_N + 2 C] -----
SITUATIONS = ("coral", "swim", "charge", "rock", "cave")
SIT_CORAL, SIT_SWIM, SIT_CHARGE, SIT_ROCK, SIT_CAVE = range(len(SITUATIONS))
N_SIT = len(SITUATIONS)
MOD_DEG_ATT, MOD_UP_ATT, MOD_DEG_DEF, MOD_UP_DEF, MOD_AUTO = range(5)
MOD_N = 5
# then the dice added to an attack pool (C columns) and to a defence pool (C columns)

# ---- tiles (RV-T1) ----------------------------------------------------------------------
TILE_TYPES = ("void", "spawn", "sand", "coral", "rock", "den")
TT_VOID, TT_SPAWN, TT_SAND, TT_CORAL, TT_ROCK, TT_DEN = range(len(TILE_TYPES))
