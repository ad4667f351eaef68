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
MAX_PER_TILE = 6          # models on one tile (terrain.small_per_tile <= MAX_PER_TILE)
MAX_SPEED = 24            # tiles one move may take (speed + Swim + Charge bonuses)

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
#: a den's state in the tile table: a Lurker slot (>= 0) while its creature lives, else
DEN_HIDDEN, DEN_CAVE, DEN_INERT = -1, -2, -3
# hidden: unsearched (its Lurker unrevealed); cave: cleared (a creature killed, or treasure
# taken, RV-T1/FAQ, AMB-34), enterable per AMB-33; inert: searched with no Lurker card left
# (AMB-16) or Lurkers switched off

# ---- scalar rules: float64 ``rules[N_RULES]``; (name, dotted path in rivals.yaml) -------
# Booleans are 0/1; enumerations are the index of the value in schema.ENUMS; colours their
# index strongest first.
RULES = (
    ("start_aether", "setup.start_aether"),                   # RV-S3
    ("aether_bank", "setup.aether_bank"),                     # AMB-24
    ("loot_supply", "setup.loot_supply"),                     # RV-S4
    ("tokens", "activation.tokens"),                          # RV-A1
    ("act_model", "activation.model"),                        # AMB-27: 0 tokens, 1 budgets
    ("allow_pass", "activation.allow_pass"),                  # AMB-13
    ("move_repeat", "activation.move_repeat"),                # AMB-06: 0 unlimited, 1 twice
    ("attackers", "activation.attackers"),                    # AMB-14: 0 any_subset, 1 one
    ("reinforce_then_move", "activation.reinforce_then_move"),  # AMB-35
    ("swim_bonus", "movement.swim_bonus"),                    # RV-M4
    ("charge_bonus", "movement.charge_bonus"),                # RV-M4
    ("swim_persistent", "movement.swim_persistent"),          # AMB-11
    ("land_timing", "movement.land_timing"),                  # AMB-28: 0 after, 1 before
    ("land_on_rock", "movement.land_on_rock"),                # AMB-29: 0 stays, 1 not_allowed
    ("charge_scope", "movement.charge_scope"),                # AMB-12: 0 turn, 1 activation
    ("charge_stacks", "movement.charge_stacks"),              # AMB-30
    ("rock_needs_swim", "movement.rock_entry_requires_swim"),  # AMB-08
    ("rock_die", "movement.rock_die"),                        # RV-T1 (colour index)
    ("coral_die", "terrain.coral_search_die"),                # RV-X2 (colour index)
    ("coral_flip_on_fail", "terrain.coral_flip_on_fail"),     # AMB-20
    ("den_enterable", "terrain.den_enterable"),               # AMB-33: 0 cleared_only, 1 never
    ("focus_upgrades", "abilities.focus.upgrades"),           # RV-C4 placeholder Focus
    ("minion_pay_once", "abilities.focus.minion_pay_once"),   # RV-C9, AMB-41
    ("lurkers_enabled", "lurkers.enabled"),                   # RV-P
    ("unrevealed_dens", "lurkers.unrevealed_dens"),           # AMB-15: 0 inert, 1 reveal
    ("lurker_reshuffle", "lurkers.reshuffle"),                # AMB-16
    ("lurker_def_aether", "lurkers.defender_aether"),         # AMB-32
    ("slot_weapon", "loot.slots.weapon"),                     # AMB-23
    ("slot_armour", "loot.slots.armour"),                     # AMB-23
    ("slot_item", "loot.slots.item"),                         # AMB-23
    ("overflow", "loot.overflow"),                            # AMB-37: 0 sell, 1 drop, 2 supply
    ("wounds_per_hit", "combat.wounds_per_hit"),              # AMB-04
    ("max_rounds", "end.max_rounds"),                         # AMB-26
    ("cap_result", "end.cap_result"),                         # AMB-26: 0 unresolved, 1 cost_left
    ("reserve_alive", "end.reserve_counts_alive"),            # AMB-22
    ("rotate", "<scenario rotate>"),                          # seat specs rotate per game
    ("small_per_tile", "terrain.small_per_tile"),             # RV-T2
)
(R_START_AETHER, R_AETHER_BANK, R_LOOT_SUPPLY, R_TOKENS, R_ACT_MODEL, R_ALLOW_PASS,
 R_MOVE_REPEAT, R_ATTACKERS, R_REINFORCE_MOVE, R_SWIM_BONUS, R_CHARGE_BONUS,
 R_SWIM_PERSISTENT, R_LAND_TIMING, R_LAND_ON_ROCK, R_CHARGE_SCOPE, R_CHARGE_STACKS,
 R_ROCK_NEEDS_SWIM, R_ROCK_DIE, R_CORAL_DIE, R_CORAL_FLIP, R_DEN_ENTERABLE,
 R_FOCUS_UPGRADES, R_MINION_PAY_ONCE, R_LURKERS, R_UNREVEALED_DENS, R_LURKER_RESHUFFLE,
 R_LURKER_DEF_AETHER, R_SLOT_WEAPON, R_SLOT_ARMOUR, R_SLOT_ITEM, R_OVERFLOW,
 R_WOUNDS_PER_HIT, R_MAX_ROUNDS, R_CAP_RESULT, R_RESERVE_ALIVE, R_ROTATE,
 R_SMALL_PER_TILE) = range(len(RULES))
N_RULES = len(RULES)
OVERFLOW_SELL, OVERFLOW_DROP, OVERFLOW_SUPPLY = range(3)

# ---- the unit table: int64 ``units[n_units, U_N + 2 C]`` (then attack, defence dice) ----
UCOLS = ("minion", "large", "cost", "speed", "range", "hearts", "ability_cost")
U_MINION, U_LARGE, U_COST, U_SPEED, U_RANGE, U_HEARTS, U_ABILITY = range(len(UCOLS))
U_N = len(UCOLS)

# ---- the Lurker deck: int64 ``lurk[n_cards, LK_N + 2 C]`` (then attack, defence dice) ----
LKCOLS = ("treasure", "hearts", "loot", "aether")
LK_TREASURE, LK_HEARTS, LK_LOOT, LK_AETHER = range(len(LKCOLS))
LK_N = len(LKCOLS)

# ---- the loot deck: int64 ``loot[n_cards, LT_N]`` (copies expanded) ---------------------
LTCOLS = ("slot", "effect", "value")
LT_SLOT, LT_EFFECT, LT_VALUE = range(len(LTCOLS))
LT_N = len(LTCOLS)
SLOT_WEAPON, SLOT_ARMOUR, SLOT_ITEM, SLOT_NONE = range(4)
EFF_UP_ATT, EFF_UP_DEF, EFF_HEART, EFF_NONE = range(4)

# ---- the event deck: int64 ``events[n_cards, 2]`` (effect, value; copies expanded) -------
EVENT_EFFECTS = ("none", "lurker_phase", "aether_each", "wound_random", "reveal_den",
                 "loot_active")
EE_NONE, EE_LURKER_PHASE, EE_AETHER_EACH, EE_WOUND_RANDOM, EE_REVEAL_DEN, EE_LOOT = range(6)

# ---- bot knobs (bots.yaml) --------------------------------------------------------------
KNOBS = (
    "random",          # 1 = every decision uniform over the legal choices (the baseline)
    "advance",         # value per tile closer to the nearest rival
    "caution",         # penalty per expected wound a model may take next round where it ends
    "focus_kill",      # value of a kill per 10 Aether of the victim's cost
    "focus_wound",     # value per expected wound dealt
    "ready",           # value of the best attack a model could make from where it ends
    "keep_range",      # ranged models stay at least this far from the nearest rival
    "rock_pref",       # value of ending on a rock
    "coral_avoid",     # penalty for ending on coral
    "move_bonus_min",  # Swim or Charge only when they gain at least this
    "search_coral",    # value of a loot card
    "lurker_hunt",     # value of revealing or killing a Lurker, relative to a rival kill
    "den_avoid",       # penalty per expected wound from revealed Lurkers
    "ability_min_gain",  # pay for Focus when the expected gain reaches this
    "aether_reserve",  # Aether never spent
    "target_leader",   # 3-4 players: + the rival with most cost left, - the weakest
    "standoff_rounds",  # rounds without an attack before the standoff breaker acts
    "act_min",         # least value of an activation worth taking (else pass)
    "reinforce",       # value of bringing a model in from reserve
)
(K_RANDOM, K_ADVANCE, K_CAUTION, K_FOCUS_KILL, K_FOCUS_WOUND, K_READY, K_KEEP_RANGE,
 K_ROCK_PREF, K_CORAL_AVOID, K_MOVE_BONUS_MIN, K_SEARCH_CORAL, K_LURKER_HUNT, K_DEN_AVOID,
 K_ABILITY_MIN_GAIN, K_AETHER_RESERVE, K_TARGET_LEADER, K_STANDOFF, K_ACT_MIN,
 K_REINFORCE) = range(len(KNOBS))
N_KNOBS = len(KNOBS)

# ---- movement actions (RV-M4) and activations (RV-A) ------------------------------------
MACTIONS = ("none", "swim", "land", "charge")
MA_NONE, MA_SWIM, MA_LAND, MA_CHARGE = range(len(MACTIONS))
ACTS = ("move", "reinforce", "attack", "search_coral", "search_den", "pass_move",
        "pass_attack", "end")
ACT_MOVE, ACT_REINFORCE, ACT_ATTACK, ACT_CORAL, ACT_DEN, ACT_PASS_M, ACT_PASS_A, ACT_END = \
    range(len(ACTS))

# ---- how a game ended (games.end) -------------------------------------------------------
END_CAUSES = ("elimination", "simultaneous", "cap")
END_ELIM, END_SIMUL, END_CAP = range(len(END_CAUSES))
# elimination: one player left; simultaneous: the last players lost their last models in
# one step and share the win (AMB-38); cap: end.max_rounds reached (truncated, AMB-26)

#: who destroyed a model, in the kernel (seats columns renumber: seat s -> s + 1, Lurker 0,
#: event -2, none -1)
BY_NONE, BY_LURKER, BY_EVENT = -1, -2, -3

# ---- per-game output (games table): int64 ``gi[games, N_GAME_INT]`` ---------------------
GAME_INT = ("players", "rounds", "turns", "truncated", "end_cause", "n_winners",
            "winner_seat", "winner_cost_left", "first_elim_round", "map", "mulligans",
            "attacks", "wounds", "kills", "explosions", "max_extra_dice",
            "kills_by_extra_dice", "lurkers_revealed", "treasures", "lurkers_killed",
            "lurker_attacks", "lurker_wounds", "lurker_kills", "coral_searches",
            "loot_found", "loot_sold", "aether_gained", "aether_spent", "bank_empty_rounds",
            "rock_tries", "rock_fails", "reinforcements", "events_drawn", "passes",
            "longest_quiet", "focus_used", "den_searches", "swims", "charges", "lands",
            "rng_draws")
(G_PLAYERS, G_ROUNDS, G_TURNS, G_TRUNCATED, G_END_CAUSE, G_N_WINNERS, G_WINNER_SEAT,
 G_WINNER_COST_LEFT, G_FIRST_ELIM, G_MAP, G_MULLIGANS, G_ATTACKS, G_WOUNDS, G_KILLS,
 G_EXPLOSIONS, G_MAX_EXTRA, G_KILLS_EXTRA, G_LURKERS_REVEALED, G_TREASURES,
 G_LURKERS_KILLED, G_LURKER_ATTACKS, G_LURKER_WOUNDS, G_LURKER_KILLS, G_CORAL_SEARCHES,
 G_LOOT_FOUND, G_LOOT_SOLD, G_AETHER_GAINED, G_AETHER_SPENT, G_BANK_EMPTY, G_ROCK_TRIES,
 G_ROCK_FAILS, G_REINFORCEMENTS, G_EVENTS, G_PASSES, G_LONGEST_QUIET, G_FOCUS,
 G_DEN_SEARCHES, G_SWIMS, G_CHARGES, G_LANDS, G_RNG_DRAWS) = range(len(GAME_INT))
N_GAME_INT = len(GAME_INT)
# winner_seat: -1 when the win is shared; first_elim_round: -1 when nobody was eliminated;
# rng_draws: draws of the dice stream and the bots' stream (deepsim bench's floor)

# ---- per-seat output: ``si[games, MAX_P, N_SEAT_INT]`` (seat 0 moves first) -------------
SEAT_INT = ("bot", "build", "place", "elim_round", "eliminated_by", "killers",
            "models_start", "reserve_start", "models_left", "cost_start", "cost_left",
            "kills", "kill_cost", "wounds_dealt", "wounds_taken", "lurker_wounds_taken",
            "lost_to_lurkers", "attacks", "net_hits", "aether_gained", "aether_spent",
            "aether_end", "focus_used", "move_acts", "attack_acts", "action_acts", "passes",
            "swims", "charges", "lands", "rock_tries", "rock_ok", "model_rounds_on_rock",
            "coral_searches", "loot_found", "loot_sold", "dens_searched", "lurkers_killed",
            "lurker_loot", "reinforcements", "turns", "lurker_kills_made")
(S_BOT, S_BUILD, S_PLACE, S_ELIM_ROUND, S_ELIM_BY, S_KILLERS, S_MODELS_START,
 S_RESERVE_START, S_MODELS_LEFT, S_COST_START, S_COST_LEFT, S_KILLS, S_KILL_COST,
 S_WOUNDS_DEALT, S_WOUNDS_TAKEN, S_LURKER_WOUNDS, S_LOST_TO_LURKERS, S_ATTACKS, S_NET_HITS,
 S_AETHER_GAINED, S_AETHER_SPENT, S_AETHER_END, S_FOCUS, S_MOVE_ACTS, S_ATTACK_ACTS,
 S_ACTION_ACTS, S_PASSES, S_SWIMS, S_CHARGES, S_LANDS, S_ROCK_TRIES, S_ROCK_OK,
 S_ROCK_ROUNDS, S_CORAL_SEARCHES, S_LOOT_FOUND, S_LOOT_SOLD, S_DENS_SEARCHED,
 S_LURKERS_KILLED, S_LURKER_LOOT, S_REINFORCEMENTS, S_TURNS, S_LURKER_KILLS_MADE
 ) = range(len(SEAT_INT))
N_SEAT_INT = len(SEAT_INT)
SEAT_FLT = ("win",)
SF_WIN = 0
N_SEAT_FLT = len(SEAT_FLT)
# killers: distinct rival seats that destroyed one of the seat's models; lurker_kills_made:
# Lurkers it destroyed (also lurkers_killed; kept apart for the Lurker section)

# ---- invariants the kernel checks when asked (kernel.check_state; tests only) -----------
INVARIANTS = ("none", "occupancy", "capacity", "rivals_share", "tile", "attacks", "wounds",
              "aether", "tokens", "counts")
(INV_NONE, INV_OCCUPANCY, INV_CAPACITY, INV_RIVALS_SHARE, INV_TILE, INV_ATTACKS, INV_WOUNDS,
 INV_AETHER, INV_TOKENS, INV_COUNTS) = range(len(INVARIANTS))

# ---- trace events: int64 ``ev[n, EVENT_WIDTH]`` ------------------------------------------
EVENT_WIDTH = 11   # round, player, kind, a .. h
EVENTS = ("setup", "seat", "deploy", "turn", "activation", "move", "step", "rock", "swim",
          "attack", "pool", "die", "result", "kill", "aether", "focus", "search", "loot",
          "lurker_reveal", "lurker_phase", "lurker_attack", "event", "eliminated", "end",
          "reinforce", "land", "charge", "pass", "reshuffle", "bank_empty")
(EV_SETUP, EV_SEAT, EV_DEPLOY, EV_TURN, EV_ACTIVATION, EV_MOVE, EV_STEP, EV_ROCK, EV_SWIM,
 EV_ATTACK, EV_POOL, EV_DIE, EV_RESULT, EV_KILL, EV_AETHER, EV_FOCUS, EV_SEARCH, EV_LOOT,
 EV_LURKER_REVEAL, EV_LURKER_PHASE, EV_LURKER_ATTACK, EV_EVENT, EV_ELIMINATED, EV_END,
 EV_REINFORCE, EV_LAND, EV_CHARGE, EV_PASS, EV_RESHUFFLE, EV_BANK_EMPTY) = range(len(EVENTS))
