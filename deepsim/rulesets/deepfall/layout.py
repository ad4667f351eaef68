"""Column layouts shared by the DEEPFALL kernel and its Python side.

The kernel sees rules, effects, bot knobs and outputs as plain arrays; these module-level
integers name their columns (numba reads them as compile-time constants). Each name list
(``RULES``, ``GAME_INT``...) is the single source of the order.
"""

from __future__ import annotations

from deepsim.rulesets.deepfall.schema import EFFECTS, ROOMS, SYMBOLS

# ---- symbols (§2) and effects (§4) -------------------------------------------------------
STEEL, CUNNING, FAITH, GREED, METTLE, DREAD = range(6)
N_SYMBOLS = len(SYMBOLS)
N_DICE = 7
N_ROOMS = 10
N_FLOORS = 6
MAX_SEATS = 6
MAX_SLOTS = 8
THRONE_THEME = 9
VAULT_THEME = 8

(E_HAND, E_MOVES, E_CUNNING_BONUS, E_THREAT_IGNORE, E_FAITH_PENALTY, E_DREAD_CANCEL,
 E_NO_FAITH_CANCEL, E_DREAD_TO_METTLE, E_SETBACK_EXTRA, E_SETBACK_IMMUNE, E_SETBACK_HEAL,
 E_COMBAT_LOOT, E_CLAIM_LOOT, E_SOLO_VAULT, E_FREE_LAST_STAND, E_WORTHY_MULT,
 E_MARKER_STRENGTH, E_MARKER_WEIGHT, E_PRODUCTION_MULT, E_RECRUIT_COST) = range(len(EFFECTS))
N_EFFECTS = len(EFFECTS)

# ---- scalar rules: (name, dotted path in ruleset.yaml) -----------------------------------
RULES = (
    ("hand_size", "turn.hand_size"),
    ("free_moves", "turn.free_moves"),
    ("move_cost", "turn.move_cost"),
    ("press_on_dread", "turn.press_on_dread"),
    ("setback_threshold", "turn.setback_threshold"),
    ("setback_dice", "turn.setback_dice"),
    ("dread_per_uncanceled", "turn.dread_per_uncanceled"),
    ("bag_returns", "turn.bag_returns"),
    ("start_floor", "turn.start_floor"),
    ("claims_per_turn", "claims.per_turn"),
    ("base_strength", "claims.base_strength"),
    ("surplus_adds_strength", "claims.surplus_adds_strength"),
    ("max_surplus", "claims.max_surplus"),
    ("assault_progress", "claims.assault_progress"),
    ("trinity_counts_bonus", "claims.trinity_counts_bonus"),
    ("reinforce_own", "claims.reinforce_own"),
    ("fallen_strength", "claims.fallen_strength"),
    ("warden_doubles_fallen", "claims.warden_doubles_fallen"),
    ("production_per_room", "production.per_room"),
    ("production_counts_for_trinity", "production.counts_for_trinity"),
    ("loot_per_greed", "loot.per_greed"),
    ("glory_per_loot", "loot.glory_per_loot"),
    ("cash_out_dividend", "exits.cash_out_dividend"),
    ("worthy_end_multiplier", "exits.worthy_end_multiplier"),
    ("worthy_end_basis_depth", "exits.worthy_end_basis"),
    ("worthy_end_keeps_loot", "exits.worthy_end_keeps_loot"),
    ("last_stand_cost", "exits.last_stand_cost"),
    ("last_stand_consumes", "exits.last_stand_consumes"),
    ("taken_loses_markers", "exits.taken_loses_markers"),
    ("recruit_cost", "recruit.cost"),
    ("recruit_min_cost", "recruit.min_cost"),
    ("recruit_pool", "recruit.pool_per_type"),
    ("steps_per_floor", "maw.steps_per_floor"),
    ("steps_per_round", "maw.steps_per_round"),
    ("dread_full_steps", "maw.dread_full_steps"),
    ("max_collapses", "maw.max_collapses_per_round"),
    ("defer_extra_steps", "maw.defer_extra_steps"),
    ("dread_overflow_carries", "maw.dread_overflow_carries"),
    ("rise_fraction", "maw.rise_fraction"),
    ("rise_includes_plunder", "maw.rise_includes_plunder"),
    ("tie_share", "end.tie_rule"),
    ("max_rounds", "end.max_rounds"),
    ("throne_on_floor_6", "dungeon.throne_on_floor_6"),
    ("vault_on_floor_6", "dungeon.vault_on_floor_6"),
    ("unspent_symbols_lost", "turn.unspent_symbols_lost"),
    ("setback_from_bag", "turn.setback_from_bag"),
    ("must_beat_leader", "claims.must_beat_leader"),
    ("loot_best_floor", "loot.best_floor_of_turn"),
    ("muster_bag_current", "turn.muster_bag"),
)
(R_HAND, R_FREE_MOVES, R_MOVE_COST, R_PRESS_DREAD, R_SETBACK_AT, R_SETBACK_DICE,
 R_DREAD_PER_UNCANCELED, R_BAG_RETURNS, R_START_FLOOR, R_CLAIMS_PER_TURN, R_BASE_STRENGTH,
 R_SURPLUS_STRENGTH, R_MAX_SURPLUS, R_ASSAULT, R_TRINITY_BONUS, R_REINFORCE, R_FALLEN_STR,
 R_WARDEN_FALLEN, R_PROD_PER_ROOM, R_PROD_TRINITY, R_LOOT_PER_GREED, R_GLORY_PER_LOOT,
 R_DIVIDEND, R_WORTHY_MULT, R_WORTHY_DEPTH_BASIS, R_WORTHY_KEEPS_LOOT, R_LS_COST,
 R_LS_CONSUMES, R_TAKEN_LOSES, R_RECRUIT_COST, R_RECRUIT_MIN, R_RECRUIT_POOL,
 R_STEPS_PER_FLOOR, R_STEPS_PER_ROUND, R_DREAD_FULL_STEPS, R_MAX_COLLAPSES, R_DEFER,
 R_OVERFLOW_CARRIES, R_RISE_FRACTION, R_RISE_PLUNDER, R_TIE_SHARE, R_MAX_ROUNDS,
 R_THRONE_F6, R_VAULT_F6, R_UNSPENT_LOST, R_SETBACK_FROM_BAG, R_MUST_BEAT, R_LOOT_BEST_FLOOR,
 R_MUSTER_CURRENT) = range(len(RULES))
N_RULES = len(RULES)

# ---- bot knobs (see bots.yaml) -----------------------------------------------------------
KNOBS = (
    "random",          # 1 = every decision uniform over legal choices
    "press_max",       # Press Ons per turn at most
    "dread_stop",      # stop pressing when uncanceled Dread >= setback threshold - this
    "press_when_short",# 1 = press only while the target room is out of reach
    "target_depth",    # floor the crew heads for (1 = top, 6 = bottom)
    "safety_rounds",   # stay on floors the Maw needs more than this many rounds to reach
    "cash_loot",       # Cash Out once unbanked Loot reaches this
    "cash_depth",      # ... and only if the crew reached at least this floor (0 = any)
    "last_stand",      # 0 never, 1 when about to be Taken deep, 2 as soon as at target depth
    "recruit_max",     # recruits per turn at most
    "contest",         # 1 = claim rooms a rival leads
    "reinforce",       # 1 = add markers to rooms the crew already leads
    "maw_margin",      # Maw forecast: safety margin, in sds of the Dread still to come
    "assault_reach",   # assault when the rest is within this x the turns' expected yield
    "press_risk",      # press on only while the next hand's Setback chance is at most this
)
(K_RANDOM, K_PRESS_MAX, K_DREAD_STOP, K_PRESS_SHORT, K_TARGET_DEPTH, K_SAFETY, K_CASH_LOOT,
 K_CASH_DEPTH, K_LAST_STAND, K_RECRUIT_MAX, K_CONTEST, K_REINFORCE, K_MAW_MARGIN,
 K_ASSAULT_REACH, K_PRESS_RISK) = range(len(KNOBS))
N_KNOBS = len(KNOBS)

# ---- per-game output (games table) -------------------------------------------------------
GAME_INT = ("players", "rounds", "truncated", "n_winners", "winner_seat", "maw_steps",
            "floors_collapsed", "dread_fills", "deferred_steps", "press_ons", "setbacks",
            "rooms_scored", "rooms_contested", "contested_markers", "rooms_unclaimed",
            "rooms_consumed", "warned", "taken_after_warning", "rooms_per_floor",
            "dread_track_length", "rng_draws")
(G_PLAYERS, G_ROUNDS, G_TRUNCATED, G_N_WINNERS, G_WINNER, G_MAW_STEPS, G_COLLAPSED,
 G_DREAD_FILLS, G_DEFERRED, G_PRESS_ONS, G_SETBACKS, G_ROOMS_SCORED, G_CONTESTED,
 G_CONTESTED_MARKERS, G_UNCLAIMED, G_CONSUMED, G_WARNED, G_TAKEN_WARNED, G_ROOMS_PER_FLOOR,
 G_DREAD_LEN, G_RNG_DRAWS) = range(len(GAME_INT))
GAME_FLT = ("margin", "margin_rel", "top_glory")
GF_MARGIN, GF_MARGIN_REL, GF_TOP = range(len(GAME_FLT))

# ---- per-seat output (seats table) -------------------------------------------------------
SEAT_INT = (("lineage", "calling", "bot", "place", "cash_outs", "last_stands", "worthy_ends",
            "taken_no_stand", "taken_no_stand_final", "taken_unplayed", "crews",
            "rooms_claimed",
            "dice_recruited", "setbacks", "dice_lost",
            "press_ons", "deepest", "turns", "lineage_ability", "calling_ability",
            "assaults", "moves", "rooms_consumed") + tuple(f"use_{e}" for e in EFFECTS)
            + tuple(f"claims_{r}" for r in ROOMS))
(S_LINEAGE, S_CALLING, S_BOT, S_PLACE, S_CASH_OUTS, S_LAST_STANDS, S_WORTHY_ENDS,
 S_TAKEN_NO_STAND, S_TAKEN_FINAL, S_TAKEN_UNPLAYED, S_CREWS, S_ROOMS_CLAIMED, S_RECRUITED,
 S_SETBACKS, S_DICE_LOST, S_PRESS_ONS, S_DEEPEST, S_TURNS, S_LIN_ABILITY, S_CAL_ABILITY,
 S_ASSAULTS, S_MOVES, S_CONSUMED) = range(23)
# taken_no_stand / taken_no_stand_final count crews that played at least one turn (B4);
# taken_unplayed the crews Taken before their first turn (mustered after a Cash Out in the
# last round, they never had a chance to declare a Last Stand)
S_USE0 = 23                        # use_<effect>: times each §4 ability changed the play
S_CLAIMS0 = S_USE0 + N_EFFECTS     # claims_<theme>: claims per room theme
N_SEAT_INT = len(SEAT_INT)
SEAT_FLT = ("glory", "glory_rooms", "glory_cash_out", "glory_worthy_end", "win", "loot_lost",
            "loot_gained")
SF_GLORY, SF_ROOMS, SF_CASH, SF_WORTHY, SF_WIN, SF_LOOT_LOST, SF_LOOT_GAINED = range(7)

# ---- trace events ------------------------------------------------------------------------
EVENT_WIDTH = 10   # round, seat, kind, a, b, c, d, e, f, g
(EV_ROUND, EV_ROLL, EV_PRESS, EV_DREAD, EV_SETBACK, EV_PRODUCE, EV_MOVE, EV_CLAIM, EV_ASSAULT,
 EV_LOOT, EV_RECRUIT, EV_CASH_OUT, EV_LAST_STAND, EV_STAY, EV_MAW, EV_SCORE, EV_RISE,
 EV_TAKEN, EV_CONSUMED, EV_MUSTER, EV_END, EV_SETUP, EV_DEFER) = range(23)
