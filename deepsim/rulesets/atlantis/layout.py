"""Column layouts shared by the Atlantis kernel, its data compiler and its Python side.

This module is the contract between ``ruleset.yaml``/``schema.py``/``compile.py`` (data),
``maps.py`` (hex geometry and the map generator), ``kernel.py``/``bots.py`` (rules and bots)
and ``__init__.py`` (frames, trace). The kernel sees the rules as plain arrays; these
module-level integers name their rows and columns (numba reads them as compile-time
constants). Each name tuple is the single source of its order: add new names at the END of
a tuple, never rename one another module uses.

Rule ids (AT-*) and ambiguity ids (AMB-T*) are those of
``../shared/digests/atlantis_sea_king_vs_sea_witch.md``.
"""

from __future__ import annotations

# ---- sides (AT-T1: the Sea Witch moves first by default) --------------------------------
SIDES = ("sea_witch", "sea_king")
SIDE_TITLES = ("Sea Witch", "Sea King")
WITCH, KING, NEUTRAL = 0, 1, 2

# ---- terrain (§1.3): row order of the terrain table -------------------------------------
TERRAINS = (
    "open_ocean", "mountain_peaks", "upwelling", "pack_ice", "current", "vortex", "sargasso",
    "mud_flats", "sandy_surf", "land", "shoreline", "river_outflow", "coral_reef",
    "kelp_forest", "mangrove_estuary", "ruins", "buildings", "whirl_pool",
    "hydrothermal_vent", "lava_flow", "clam_bed", "sunken_ship", "crevasse", "sea_temple",
    "spawning_bed",
)
(TR_OPEN_OCEAN, TR_MOUNTAIN, TR_UPWELLING, TR_PACK_ICE, TR_CURRENT, TR_VORTEX, TR_SARGASSO,
 TR_MUD_FLATS, TR_SANDY_SURF, TR_LAND, TR_SHORELINE, TR_RIVER_OUTFLOW, TR_CORAL, TR_KELP,
 TR_MANGROVE, TR_RUINS, TR_BUILDINGS, TR_WHIRL_POOL, TR_VENT, TR_LAVA, TR_CLAM_BED,
 TR_SUNKEN_SHIP, TR_CREVASSE, TR_SEA_TEMPLE, TR_SPAWNING_BED) = range(len(TERRAINS))
N_TERRAIN = len(TERRAINS)

# terrain table columns: int64 array ``terrain[N_TERRAIN, N_TCOL]`` (compile.py fills it
# from ruleset.yaml; derived columns are resolved there, e.g. T_LARGE_OK from depth and cost
# (AT-M5) and T_DEEP of the Crevasse from AMB-T12)
TCOLS = (
    "cost",            # moves to enter (AT-M1); 0 when impassable
    "passable",        # 0 = no unit may enter (AT-M8)
    "deep",            # 1 deep water, 0 shallow (Crevasse per AMB-T12)
    "hide",            # hide-roll bonus (AT-A7)
    "large_ok",        # 1 = Large units may enter (AT-M5)
    "entry_death",     # 1 = a unit entering is destroyed (Vortex, Lava; AT-M7)
    "entry_attack",    # AD of the attack on a unit entering (Whirl Pool, Vent; AT-M7), 0 none
    "adj_death_faces", # End phase: adjacent units destroyed on d6 <= this (Vortex: 1), 0 none
    "adj_attack",      # End phase: AD of the attack on each adjacent unit (Lava: 1), 0 none
    "attack_penalty",  # AD lost by attacks into or out of the hex (Upwelling, Whirl Pool)
    "current",         # 1 = pushes units 1 hex along the hex's direction in the End phase
    "bonus_side",      # side whose units get +bonus_ad AD here (AMB-T9): -1 none
    "bonus_ad",        # the AD bonus (Sea Temple: Sea King +1; Spawning Bed: Sea Witch +1)
)
(T_COST, T_PASSABLE, T_DEEP, T_HIDE, T_LARGE_OK, T_ENTRY_DEATH, T_ENTRY_ATTACK,
 T_ADJ_DEATH_FACES, T_ADJ_ATTACK, T_ATTACK_PENALTY, T_CURRENT, T_BONUS_SIDE,
 T_BONUS_AD) = range(len(TCOLS))
N_TCOL = len(TCOLS)

# ---- spells (§1.14): row order of the spell table; the chit pool holds `chits` of each ---
SPELLS = ("oyster", "anemone", "strangle_weed", "sirens_song", "freeze", "whirlpool",
          "vortex", "eruption", "healing", "resurrection", "tangle_kelp", "murky_depths",
          "water_elemental", "luminescence")
(SP_OYSTER, SP_ANEMONE, SP_STRANGLE_WEED, SP_SIRENS_SONG, SP_FREEZE, SP_WHIRLPOOL, SP_VORTEX,
 SP_ERUPTION, SP_HEALING, SP_RESURRECTION, SP_TANGLE_KELP, SP_MURKY_DEPTHS,
 SP_WATER_ELEMENTAL, SP_LUMINESCENCE) = range(len(SPELLS))
N_SPELLS = len(SPELLS)

# spell table columns: int64 ``spells[N_SPELLS, N_SPCOL]``
SPCOLS = (
    "chits",           # copies in the common pool (AT-C4: 2)
    "range",           # hexes from the caster (0 = caster only, 1 = adjacent)
    "amount",          # counters given / hides placed / die size of the effect (see yaml)
    "base",            # fixed part of a duration (Sirens Song: 3 of 3 + 1d3)
    "creates_unit",    # unit type row created (Oyster, Anemone, ...), -1 none
    "target_terrain",  # terrain the target hex must have (Clam Bed, ...), -1 any
    "sets_terrain",    # terrain the target hex becomes (Freeze -> Pack Ice, ...), -1 none
    "needs_empty",     # 1 = the target hex must hold no unit (AMB-T26: hidden ones count)
    "needs_depth",     # -1 any, 0 shallow, 1 deep
)
(SPC_CHITS, SPC_RANGE, SPC_AMOUNT, SPC_BASE, SPC_CREATES, SPC_TARGET_TERRAIN,
 SPC_SETS_TERRAIN, SPC_NEEDS_EMPTY, SPC_NEEDS_DEPTH) = range(len(SPCOLS))
N_SPCOL = len(SPCOLS)

# ---- unit types (§1.9-1.11): int64 ``units[N_TYPES, N_UCOL]``, Sea King's types, then the
# Sea Witch's, then the neutrals (order of ruleset.yaml) ---------------------------------
UCOLS = (
    "side",            # WITCH, KING or NEUTRAL
    "count",           # copies in the Basic game (after `forces:` overrides); 0 neutrals
    "ad", "dr", "large", "mv",
    "hf",              # Hide Factor (0 for "-")
    "hf_dash",         # 1 = HF printed as "-" (AMB-T6)
    "leader",          # 1 = Sea King / Sea Witch (AT-V1)
    "spells",          # spell chits drawn at setup (AT-S3)
    "hidden_ad",       # extra AD for hidden attacks (Merman Assassin +1; AT-A4)
    "hf_terrain",      # terrain row where the unit gets an extra hide bonus, -1 none
    "hf_terrain_bonus",# that bonus (Coral Warriors +2 in Coral, Tritons +1 in Kelp)
    "poison", "sting", "entangle", "mesmerize", "ranged", "martyr", "siren", "net",
    "split",           # special effects AT-X1..AT-X9 (0/1)
)
(U_SIDE, U_COUNT, U_AD, U_DR, U_LARGE, U_MV, U_HF, U_HF_DASH, U_LEADER, U_SPELLS,
 U_HIDDEN_AD, U_HF_TERRAIN, U_HF_TERRAIN_BONUS, U_POISON, U_STING, U_ENTANGLE,
 U_MESMERIZE, U_RANGED, U_MARTYR, U_SIREN, U_NET, U_SPLIT) = range(len(UCOLS))
N_UCOL = len(UCOLS)

#: unit slots per game: both Basic forces (65) plus room for created creatures
MAX_UNITS = 128
#: spell chits one unit can carry
MAX_CHITS = 8

# ---- scalar rules: float64 ``rules[N_RULES]``; (name, dotted path in ruleset.yaml) -------
# Booleans are 0/1; enumerations are the index of the value in the schema's Literal, as
# named in the comment.
RULES = (
    ("hit_mask", "combat.hit_faces"),                 # AMB-T1: bit f set = face f hits
    ("search_min", "combat.search_min"),              # AT-A3: 5 (search succeeds on >= 5)
    ("failed_search_consumes", "combat.failed_search_consumes_attack"),  # AMB-T2
    ("search_reveals", "combat.search_reveals"),      # AMB-T3
    ("ranged_min", "combat.ranged_min"),              # AMB-T4
    ("ranged_max", "combat.ranged_max"),              # AT-X5: 2
    ("los", "combat.los"),                            # AMB-T5
    ("paralyzed_bonus", "combat.paralyzed_bonus"),    # AT-A4: +2
    ("hidden_bonus", "combat.hidden_bonus"),          # AT-A4: +2
    ("penalty_floor", "combat.penalty_floor"),        # AT-A4: min 1 AD
    ("penalty_floor_scope", "combat.penalty_floor_scope"),  # AMB-T24: 0 terrain_only, 1 all
    ("temple_scope", "combat.temple_bonus_scope"),    # AMB-T9: 0 attacker_in_hex,
                                                      #   1 target_in_hex, 2 either
    ("split_one_search", "combat.split_one_search"),  # AMB-T19
    ("hide_min", "hide.success_min"),                 # AT-A7: 5
    ("dash_can_hide", "hide.dash_can_hide"),          # AMB-T6
    ("entangle_max", "specials.entangle_max"),        # AT-X3: 4 (d6 <= 4)
    ("net_max", "specials.net_max"),                  # AT-X8: 3
    ("mesmerize_max", "specials.mesmerize_max"),      # AT-X4: 4
    ("mesmerize_range", "specials.mesmerize_range"),  # AT-X4: 2
    ("siren_max", "specials.siren_max"),              # AT-X7: 3
    ("siren_range", "specials.siren_range"),          # AT-X7: 2
    ("specials_any_target", "specials.any_target"),   # AMB-T11
    ("specials_without_attack", "specials.without_attack"),  # AMB-T11
    ("sting_counters", "specials.sting_counters_per_attack"),  # AMB-T18: 1
    ("entangle_release", "specials.entangle_release"),  # AMB-T21: 0 own_counter, 1 all
    ("martyr_forces_ranged", "specials.martyr_forces_ranged"),  # AMB-T20
    ("martyr_forces_specials", "specials.martyr_forces_specials"),  # AMB-T20
    ("siren_full_move", "specials.siren_full_move"),  # AMB-T8
    ("siren_keep", "specials.siren_counter_on_source_death"),  # AMB-T8: 0 keep, 1 remove
    ("recovery_max", "end.recovery_max"),             # AT-E3: 4
    ("terrain_scope", "end.terrain_scope"),           # AMB-T7: 0 active, 1 all
    ("current_blocked", "end.current_blocked"),       # AMB-T17: 0 stay
    ("max_turns", "end.max_turns"),                   # AMB-T23: safety cap, player-turns
    ("spells_per_caster", "spells.per_caster_per_end"),  # AMB-T10
    ("chit_single_use", "spells.single_use"),         # AMB-T10
    ("murky_friendly_only", "spells.murky_depths_friendly_only"),  # AMB-T13
    ("resurrect_full_health", "spells.resurrection_full_health"),  # AMB-T15
    ("resurrect_gets_chits", "spells.resurrection_gets_chits"),    # AMB-T15
    ("healing_pool", "spells.healing_pool"),          # AMB-T16
    ("hidden_occupies", "spells.hidden_occupies"),    # AMB-T26
    ("sirens_song_turns", "spells.sirens_song_turns"),  # AMB-T27: 0 own, 1 all
    ("luminescence_timing", "spells.luminescence_timing"),  # AMB-T25: 0 any_time, 1 end_phase
    ("deploy_rows", "setup.deploy_rows"),             # AMB-T22
    ("first_side", "setup.first_side"),               # AT-T1: 0 sea_witch, 1 sea_king
    ("neutrals", "setup.neutrals_in_scenario"),       # AMB-T14
    ("brain_coral", "setup.brain_coral"),             # AMB-T14: copies placed if neutrals
    ("island_fish", "setup.island_fish"),             # AMB-T14: copies placed if neutrals
    ("map_source", "map.source"),                     # 0 generated per game, 1 fixed grid
    ("map_width", "map.width"),
    ("map_height", "map.height"),
    ("at_cap", "end.at_cap"),                         # 0 unresolved, 1 material (opt-in)
    ("special_discards_hide", "specials.special_discards_hide"),  # AMB-T28
)
(R_HIT_MASK, R_SEARCH_MIN, R_FAILED_SEARCH_CONSUMES, R_SEARCH_REVEALS, R_RANGED_MIN,
 R_RANGED_MAX, R_LOS, R_PARALYZED_BONUS, R_HIDDEN_BONUS, R_PENALTY_FLOOR,
 R_PENALTY_FLOOR_SCOPE, R_TEMPLE_SCOPE, R_SPLIT_ONE_SEARCH, R_HIDE_MIN, R_DASH_CAN_HIDE,
 R_ENTANGLE_MAX, R_NET_MAX, R_MESMERIZE_MAX, R_MESMERIZE_RANGE, R_SIREN_MAX, R_SIREN_RANGE,
 R_SPECIALS_ANY_TARGET, R_SPECIALS_WITHOUT_ATTACK, R_STING_COUNTERS, R_ENTANGLE_RELEASE,
 R_MARTYR_RANGED, R_MARTYR_SPECIALS, R_SIREN_FULL_MOVE, R_SIREN_KEEP, R_RECOVERY_MAX,
 R_TERRAIN_SCOPE, R_CURRENT_BLOCKED, R_MAX_TURNS, R_SPELLS_PER_CASTER, R_CHIT_SINGLE_USE,
 R_MURKY_FRIENDLY, R_RESURRECT_FULL, R_RESURRECT_CHITS, R_HEALING_POOL, R_HIDDEN_OCCUPIES,
 R_SIRENS_SONG_TURNS, R_LUMINESCENCE_TIMING, R_DEPLOY_ROWS, R_FIRST_SIDE, R_NEUTRALS,
 R_BRAIN_CORAL, R_ISLAND_FISH, R_MAP_SOURCE, R_MAP_WIDTH, R_MAP_HEIGHT, R_AT_CAP,
 R_SPECIAL_DISCARDS_HIDE) = range(len(RULES))
N_RULES = len(RULES)

# ---- map generator settings: float64 ``gen[N_GEN]`` (maps.py; all invented, §3 of the
# digest: the rulebook leaves the map to the players) ------------------------------------
GEN = (
    ("open_share", "map.generator.open_share"),      # Open Ocean / Mud Flats
    ("cover_share", "map.generator.cover_share"),    # 2-cost or hide terrain
    ("impassable_share", "map.generator.impassable_share"),
    ("hazard_share", "map.generator.hazard_share"),  # Current, Whirl Pool, Vent, Vortex, Lava
    ("deep_share", "map.generator.deep_share"),      # deep vs shallow among the open hexes
    ("lethal_hazards", "map.generator.lethal_hazards"),  # 0/1: Vortex and Lava allowed
    ("hazard_free_rows", "map.generator.hazard_free_rows"),  # rows from each edge kept clear
    ("temples", "map.generator.temples"),            # Sea Temples near the Sea King edge
    ("spawning_beds", "map.generator.spawning_beds"),  # near the Sea Witch edge
    ("feature_depth", "map.generator.feature_depth"),  # rows from its edge a temple/bed sits
    ("mirrored", "map.generator.mirrored"),          # 0/1: point-symmetric terrain
    ("deploy_rows", "setup.deploy_rows"),            # AMB-T22: rows kept safe and Large-ok
)
(GN_OPEN, GN_COVER, GN_IMPASSABLE, GN_HAZARD, GN_DEEP, GN_LETHAL, GN_HAZARD_FREE_ROWS,
 GN_TEMPLES, GN_BEDS, GN_FEATURE_DEPTH, GN_MIRRORED, GN_DEPLOY_ROWS) = range(len(GEN))
N_GEN = len(GEN)

# ---- hex geometry: "odd-r" offset rows (pointy-top hexes; odd rows shifted right).
# cell = row * width + col. The Sea Witch's edge is row 0, the Sea King's row height-1.
# neighbours[cell, d] for d in 0..5 = E, NE, NW, W, SW, SE; -1 off the map. A current's
# direction is such a d.
N_DIRS = 6

# ---- bot knobs (bots.yaml) --------------------------------------------------------------
KNOBS = (
    "random",          # 1 = every decision uniform over legal choices
    "advance",         # weight on closing distance to the enemy leader
    "focus_damaged",   # weight on targets' damage already taken
    "focus_value",     # weight on targets' AD x DR
    "leader_hunt",     # weight on attacking the enemy leader when reachable
    "screen",          # weight on keeping Martyr / high-DR units next to the own leader
    "leader_keep_back",# hexes the own leader keeps from the nearest enemy
    "hide",            # propensity to hide in cover instead of attacking a poor target
    "spell_aggr",      # weight on offensive spells vs protective ones
    "caution",         # weight on the enemy's expected hits on a cell (moves, retreats)
    "deploy_random",   # 1 = deploy at random in the zone (AMB-T22), 0 = by the heuristic
    "standoff_turns",  # standoff breaker: player-turns without an attack before advancing
    "standoff_lead",   # ... and a side this much further ahead on material at once
    "edge_moves",      # approximation: score only the own hex, reach's edge, hexes by foes
)
(K_RANDOM, K_ADVANCE, K_FOCUS_DAMAGED, K_FOCUS_VALUE, K_LEADER_HUNT, K_SCREEN,
 K_LEADER_KEEP_BACK, K_HIDE, K_SPELL_AGGR, K_CAUTION, K_DEPLOY_RANDOM, K_STANDOFF_TURNS,
 K_STANDOFF_LEAD, K_EDGE_MOVES) = range(len(KNOBS))
N_KNOBS = len(KNOBS)

# ---- how a game ended (games.end_cause) -------------------------------------------------
END_CAUSES = ("attack", "poison", "hazard", "spell", "turn_cap")
(END_ATTACK, END_POISON, END_HAZARD, END_SPELL, END_TURN_CAP) = range(len(END_CAUSES))
# attack: a leader destroyed by an attack's damage (not poison); poison: by AT-X1;
# hazard: by map terrain (entry, End phase, current); spell: by terrain a spell created or a
# spell's effect; turn_cap: the safety cap end.max_turns stopped the game (AMB-T23; not a
# rule): unresolved, or adjudicated by material when end.at_cap asks for it.

# ---- per-game output (games table): int64 ``gi[games, N_GAME_INT]`` ---------------------
GAME_INT = ("turns", "rounds", "winner_side", "first_side", "end_cause", "truncated",
            "killer_type", "units_left_witch", "units_left_king", "kills", "attacks",
            "paralysis_counters", "siren_counters", "hides", "searches", "spells_cast",
            "created_units", "hazard_losses", "rng_draws", "adjudicated")
(G_TURNS, G_ROUNDS, G_WINNER_SIDE, G_FIRST_SIDE, G_END_CAUSE, G_TRUNCATED, G_KILLER_TYPE,
 G_UNITS_LEFT_WITCH, G_UNITS_LEFT_KING, G_KILLS, G_ATTACKS, G_PARALYSIS, G_SIREN, G_HIDES,
 G_SEARCHES, G_SPELLS_CAST, G_CREATED, G_HAZARD_LOSSES, G_RNG_DRAWS,
 G_ADJUDICATED) = range(len(GAME_INT))
# winner_side: -1 no winner (the safety cap stopped the game: unresolved), else WITCH/KING.
# turns: player-turns played; rounds: ceil(turns / 2). killer_type: unit type row whose
# action destroyed the leader, -1 none. adjudicated: 1 when end.at_cap = material decided a
# stopped game (truncated stays 1).
GAME_FLT = ("material_witch", "material_king", "material_margin")
GF_MATERIAL_WITCH, GF_MATERIAL_KING, GF_MATERIAL_MARGIN = range(len(GAME_FLT))
# material (AMB-T23): sum over surviving units of AD x (DR - damage); margin = the
# first-moving side's minus the other's.

# ---- per-seat output: 2 seats per game, seat 0 moves first: ``si[games, 2, N_SEAT_INT]`` --
SEAT_INT = (("side", "bot", "units_start", "units_left", "units_lost", "kills",
             "leader_damage_dealt", "attacks", "damage_dealt", "hides_tried", "hides_ok",
             "searches", "searches_ok", "paralyses_given", "sirens_given", "poison_kills",
             "hazard_losses", "spells_cast", "created_units", "resurrections", "turns")
            + tuple(f"cast_{s}" for s in SPELLS))
(S_SIDE, S_BOT, S_UNITS_START, S_UNITS_LEFT, S_UNITS_LOST, S_KILLS, S_LEADER_DAMAGE,
 S_ATTACKS, S_DAMAGE, S_HIDES_TRIED, S_HIDES_OK, S_SEARCHES, S_SEARCHES_OK, S_PARALYSES,
 S_SIRENS, S_POISON_KILLS, S_HAZARD_LOSSES, S_SPELLS_CAST, S_CREATED, S_RESURRECTIONS,
 S_TURNS) = range(21)
S_CAST0 = 21                      # cast_<spell>: casts of each spell
N_SEAT_INT = len(SEAT_INT)
SEAT_FLT = ("win", "material")
SF_WIN, SF_MATERIAL = range(len(SEAT_FLT))
# win: 1 winner, 0 loser (the rules know no draw, AT-V1); 0 for both in a game the safety
# cap stopped, which the Python side makes NaN (unresolved: common.mark_unresolved); the
# report's side shares (Sea King / Sea Witch / unresolved) come from games.winner_side.

# ---- trace events: int64 ``ev[n, EVENT_WIDTH]`` ------------------------------------------
EVENT_WIDTH = 10   # turn, side, kind, a, b, c, d, e, f, g
EVENTS = ("setup", "deploy", "chits", "move", "enter_hazard", "attack", "search", "hide",
          "special", "damage", "destroyed", "current", "terrain_end", "spell", "recover",
          "turn", "end")
(EV_SETUP, EV_DEPLOY, EV_CHITS, EV_MOVE, EV_ENTER_HAZARD, EV_ATTACK, EV_SEARCH, EV_HIDE,
 EV_SPECIAL, EV_DAMAGE, EV_DESTROYED, EV_CURRENT, EV_TERRAIN_END, EV_SPELL, EV_RECOVER,
 EV_TURN, EV_END) = range(len(EVENTS))
