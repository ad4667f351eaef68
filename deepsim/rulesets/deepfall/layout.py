"""Column layouts shared by the DEEPFALL kernel and its Python side.

The kernel sees rules, effects, room tiles, bot knobs and outputs as plain arrays; these
module-level integers name their columns (numba reads them as compile-time constants).
Every constant is defined once here, by name, from a name tuple: the schema's (``SYMBOLS``,
``DICE``, ``ROOMS``, ``EFFECTS``, the ``Room`` model's fields, the player and room bounds)
or this module's own (``RULES``, ``KNOBS``, ``GAME_INT``, ``SEAT_INT``...). Reordering a
tuple moves the columns with it; a name missing from its tuple fails at import.
"""

from __future__ import annotations

from deepsim.rulesets.deepfall.schema import (
    CALLINGS,
    DICE,
    EFFECTS,
    FACES,
    LINEAGES,
    MAX_PLAYERS,
    MAX_ROOMS_PER_FLOOR,
    ROOMS,
    SYMBOLS,
    Room,
)
from deepsim.rulesets.deepfall.schema import N_FLOORS as _N_FLOORS


def columns(names) -> dict[str, int]:
    """``{name: column}`` of a name tuple (its order is the column order)."""
    return {name: i for i, name in enumerate(names)}


# ---- sizes (from the schema) -------------------------------------------------------------
N_SYMBOLS = len(SYMBOLS)
N_DICE = len(DICE)
N_ROOMS = len(ROOMS)
N_LINEAGES = len(LINEAGES)
N_CALLINGS = len(CALLINGS)
N_FACES = FACES
N_FLOORS = _N_FLOORS
MAX_SEATS = MAX_PLAYERS
MAX_SLOTS = MAX_ROOMS_PER_FLOOR

# ---- symbols (§2) and room themes (§7.2) -------------------------------------------------
_SYM = columns(SYMBOLS)
STEEL = _SYM["steel"]
CUNNING = _SYM["cunning"]
FAITH = _SYM["faith"]
GREED = _SYM["greed"]
METTLE = _SYM["mettle"]
DREAD = _SYM["dread"]
VAULT_THEME = ROOMS.index("vault")
THRONE_THEME = ROOMS.index("throne")

# ---- room table: int64[N_ROOMS, N_ROOM_COLUMNS], one column per field of schema.Room -----
ROOM_COLUMNS = tuple(Room.model_fields)
_RM = columns(ROOM_COLUMNS)
RM_VALUE = _RM["value"]
RM_THREAT = _RM["threat"]
RM_LOCK = _RM["lock"]
RM_PRODUCES = _RM["produces"]       # symbol index, -1 = none
RM_COMBAT = _RM["combat"]           # 0/1
RM_TRINITY = _RM["trinity"]         # 0/1
N_ROOM_COLUMNS = len(ROOM_COLUMNS)

# ---- company effects (§4): float64[seat, N_EFFECTS] --------------------------------------
_E = columns(EFFECTS)
E_HAND = _E["hand_size"]
E_MOVES = _E["moves"]
E_CUNNING_BONUS = _E["cunning_bonus"]
E_THREAT_IGNORE = _E["threat_ignore"]
E_FAITH_PENALTY = _E["faith_penalty"]
E_DREAD_CANCEL = _E["dread_cancel"]
E_NO_FAITH_CANCEL = _E["no_faith_cancel"]
E_DREAD_TO_METTLE = _E["dread_to_mettle"]
E_SETBACK_EXTRA = _E["setback_extra_loss"]
E_SETBACK_IMMUNE = _E["setback_immune"]
E_SETBACK_HEAL = _E["setback_heal"]
E_COMBAT_LOOT = _E["combat_claim_loot"]
E_CLAIM_LOOT = _E["claim_loot"]
E_SOLO_VAULT = _E["solo_vault"]
E_FREE_LAST_STAND = _E["free_last_stand"]
E_WORTHY_MULT = _E["worthy_end_multiplier"]
E_MARKER_STRENGTH = _E["marker_strength"]
E_MARKER_WEIGHT = _E["marker_weight"]
E_PRODUCTION_MULT = _E["production_multiplier"]
E_RECRUIT_COST = _E["recruit_cost"]
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
_R = columns(name for name, _ in RULES)
R_HAND = _R["hand_size"]
R_FREE_MOVES = _R["free_moves"]
R_MOVE_COST = _R["move_cost"]
R_PRESS_DREAD = _R["press_on_dread"]
R_SETBACK_AT = _R["setback_threshold"]
R_SETBACK_DICE = _R["setback_dice"]
R_DREAD_PER_UNCANCELED = _R["dread_per_uncanceled"]
R_BAG_RETURNS = _R["bag_returns"]
R_START_FLOOR = _R["start_floor"]
R_CLAIMS_PER_TURN = _R["claims_per_turn"]
R_BASE_STRENGTH = _R["base_strength"]
R_SURPLUS_STRENGTH = _R["surplus_adds_strength"]
R_MAX_SURPLUS = _R["max_surplus"]
R_ASSAULT = _R["assault_progress"]
R_TRINITY_BONUS = _R["trinity_counts_bonus"]
R_REINFORCE = _R["reinforce_own"]
R_FALLEN_STR = _R["fallen_strength"]
R_WARDEN_FALLEN = _R["warden_doubles_fallen"]
R_PROD_PER_ROOM = _R["production_per_room"]
R_PROD_TRINITY = _R["production_counts_for_trinity"]
R_LOOT_PER_GREED = _R["loot_per_greed"]
R_GLORY_PER_LOOT = _R["glory_per_loot"]
R_DIVIDEND = _R["cash_out_dividend"]
R_WORTHY_MULT = _R["worthy_end_multiplier"]
R_WORTHY_DEPTH_BASIS = _R["worthy_end_basis_depth"]
R_WORTHY_KEEPS_LOOT = _R["worthy_end_keeps_loot"]
R_LS_COST = _R["last_stand_cost"]
R_LS_CONSUMES = _R["last_stand_consumes"]
R_TAKEN_LOSES = _R["taken_loses_markers"]
R_RECRUIT_COST = _R["recruit_cost"]
R_RECRUIT_MIN = _R["recruit_min_cost"]
R_RECRUIT_POOL = _R["recruit_pool"]
R_STEPS_PER_FLOOR = _R["steps_per_floor"]
R_STEPS_PER_ROUND = _R["steps_per_round"]
R_DREAD_FULL_STEPS = _R["dread_full_steps"]
R_MAX_COLLAPSES = _R["max_collapses"]
R_DEFER = _R["defer_extra_steps"]
R_OVERFLOW_CARRIES = _R["dread_overflow_carries"]
R_RISE_FRACTION = _R["rise_fraction"]
R_RISE_PLUNDER = _R["rise_includes_plunder"]
R_TIE_SHARE = _R["tie_share"]
R_MAX_ROUNDS = _R["max_rounds"]
R_THRONE_F6 = _R["throne_on_floor_6"]
R_VAULT_F6 = _R["vault_on_floor_6"]
R_UNSPENT_LOST = _R["unspent_symbols_lost"]
R_SETBACK_FROM_BAG = _R["setback_from_bag"]
R_MUST_BEAT = _R["must_beat_leader"]
R_LOOT_BEST_FLOOR = _R["loot_best_floor"]
R_MUSTER_CURRENT = _R["muster_bag_current"]
N_RULES = len(RULES)

#: a search event's mean (percent x100) of an option the decision did not have (a value
#: is at least -100 x 100 x the bot's search_glory, well above it)
NOT_AN_OPTION = -1_000_000

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
    "rollouts",        # search bot: rollouts per option (0 = no search, the heuristic alone)
    "search_room",     # search bot: 1 = also search the room on arrival
    "search_press",    # search bot: 1 = also search each Press On
    "search_margin",   # search bot: override the heuristic only by this many standard errors
    "exit_via",        # 0 the heuristic's exit; 1 always Cash Out, 2 a Last Stand (B5)
    "search_extra",    # search bot: extra batches of rollouts while the lead is unclear
    "search_glory",    # search bot: weight of the relative Glory margin in a rollout's value
    "search_opponents",  # search bot: 0 = rollouts play every seat as the searcher, 1 = as seated
    "search_paired",   # search bot: 1 = a rollout's dice keyed per hand (round, seat, hand)
)
_K = columns(KNOBS)
K_RANDOM = _K["random"]
K_PRESS_MAX = _K["press_max"]
K_DREAD_STOP = _K["dread_stop"]
K_PRESS_SHORT = _K["press_when_short"]
K_TARGET_DEPTH = _K["target_depth"]
K_SAFETY = _K["safety_rounds"]
K_CASH_LOOT = _K["cash_loot"]
K_CASH_DEPTH = _K["cash_depth"]
K_LAST_STAND = _K["last_stand"]
K_RECRUIT_MAX = _K["recruit_max"]
K_CONTEST = _K["contest"]
K_REINFORCE = _K["reinforce"]
K_MAW_MARGIN = _K["maw_margin"]
K_ASSAULT_REACH = _K["assault_reach"]
K_PRESS_RISK = _K["press_risk"]
K_ROLLOUTS = _K["rollouts"]
K_SEARCH_ROOM = _K["search_room"]
K_SEARCH_PRESS = _K["search_press"]
K_SEARCH_MARGIN = _K["search_margin"]
K_EXIT_VIA = _K["exit_via"]
K_SEARCH_EXTRA = _K["search_extra"]
K_SEARCH_GLORY = _K["search_glory"]
K_SEARCH_OPPONENTS = _K["search_opponents"]
K_SEARCH_PAIRED = _K["search_paired"]
N_KNOBS = len(KNOBS)

# ---- per-game output (games table) -------------------------------------------------------
GAME_INT = ("players", "rounds", "truncated", "n_winners", "winner_seat", "maw_steps",
            "floors_collapsed", "dread_fills", "deferred_steps", "press_ons", "setbacks",
            "rooms_scored", "rooms_contested", "contested_markers", "rooms_unclaimed",
            "rooms_consumed", "warned", "taken_after_warning", "taken_moved_in",
            "taken_mustered", "taken_blindsided", "rooms_per_floor",
            "dread_track_length", "rng_draws")
_G = columns(GAME_INT)
G_PLAYERS = _G["players"]
G_ROUNDS = _G["rounds"]
G_TRUNCATED = _G["truncated"]
G_N_WINNERS = _G["n_winners"]
G_WINNER = _G["winner_seat"]
G_MAW_STEPS = _G["maw_steps"]
G_COLLAPSED = _G["floors_collapsed"]
G_DREAD_FILLS = _G["dread_fills"]
G_DEFERRED = _G["deferred_steps"]
G_PRESS_ONS = _G["press_ons"]
G_SETBACKS = _G["setbacks"]
G_ROOMS_SCORED = _G["rooms_scored"]
G_CONTESTED = _G["rooms_contested"]
G_CONTESTED_MARKERS = _G["contested_markers"]
G_UNCLAIMED = _G["rooms_unclaimed"]
G_CONSUMED = _G["rooms_consumed"]
G_WARNED = _G["warned"]
G_TAKEN_WARNED = _G["taken_after_warning"]
# every Taking is one of four (B8): the crew stood on the floor at the start of the round
# (taken_after_warning), moved onto it during the round, was mustered onto it during the
# round, or stood on a floor that was not the next to fall when the round began
# (blindsided: only when the Maw eats more than one floor in a round)
G_TAKEN_MOVED_IN = _G["taken_moved_in"]
G_TAKEN_MUSTERED = _G["taken_mustered"]
G_TAKEN_BLINDSIDED = _G["taken_blindsided"]
G_ROOMS_PER_FLOOR = _G["rooms_per_floor"]
G_DREAD_LEN = _G["dread_track_length"]
G_RNG_DRAWS = _G["rng_draws"]
N_GAME_INT = len(GAME_INT)
GAME_FLT = ("margin", "margin_rel", "top_glory")
_GF = columns(GAME_FLT)
GF_MARGIN = _GF["margin"]
GF_MARGIN_REL = _GF["margin_rel"]
GF_TOP = _GF["top_glory"]
N_GAME_FLT = len(GAME_FLT)

# ---- per-seat output (seats table) -------------------------------------------------------
SEAT_INT = (("lineage", "calling", "bot", "place", "cash_outs", "last_stands", "worthy_ends",
             "taken_no_stand", "taken_no_stand_final", "taken_unplayed", "crews",
             "rooms_claimed", "dice_recruited", "setbacks", "dice_lost", "press_ons",
             "deepest", "turns", "lineage_ability", "calling_ability", "assaults", "moves",
             "rooms_consumed")
            + tuple(f"use_{e}" for e in EFFECTS)      # times each §4 ability changed the play
            + tuple(f"claims_{r}" for r in ROOMS))    # claims per room theme
_S = columns(SEAT_INT)
S_LINEAGE = _S["lineage"]
S_CALLING = _S["calling"]
S_BOT = _S["bot"]
S_PLACE = _S["place"]
S_CASH_OUTS = _S["cash_outs"]
S_LAST_STANDS = _S["last_stands"]
S_WORTHY_ENDS = _S["worthy_ends"]
# taken_no_stand / taken_no_stand_final count crews that played at least one turn (B4);
# taken_unplayed the crews Taken before their first turn (mustered after a Cash Out in the
# last round, they never had a chance to declare a Last Stand)
S_TAKEN_NO_STAND = _S["taken_no_stand"]
S_TAKEN_FINAL = _S["taken_no_stand_final"]
S_TAKEN_UNPLAYED = _S["taken_unplayed"]
S_CREWS = _S["crews"]
S_ROOMS_CLAIMED = _S["rooms_claimed"]
S_RECRUITED = _S["dice_recruited"]
S_SETBACKS = _S["setbacks"]
S_DICE_LOST = _S["dice_lost"]
S_PRESS_ONS = _S["press_ons"]
S_DEEPEST = _S["deepest"]
S_TURNS = _S["turns"]
S_LIN_ABILITY = _S["lineage_ability"]
S_CAL_ABILITY = _S["calling_ability"]
S_ASSAULTS = _S["assaults"]
S_MOVES = _S["moves"]
S_CONSUMED = _S["rooms_consumed"]
S_USE0 = _S[f"use_{EFFECTS[0]}"]       # use_<effect e> is column S_USE0 + e
S_CLAIMS0 = _S[f"claims_{ROOMS[0]}"]   # claims_<theme t> is column S_CLAIMS0 + t
N_SEAT_INT = len(SEAT_INT)
SEAT_FLT = ("glory", "glory_rooms", "glory_cash_out", "glory_worthy_end", "win", "loot_lost",
            "loot_gained")
_SF = columns(SEAT_FLT)
SF_GLORY = _SF["glory"]
SF_ROOMS = _SF["glory_rooms"]
SF_CASH = _SF["glory_cash_out"]
SF_WORTHY = _SF["glory_worthy_end"]
SF_WIN = _SF["win"]
SF_LOOT_LOST = _SF["loot_lost"]
SF_LOOT_GAINED = _SF["loot_gained"]
N_SEAT_FLT = len(SEAT_FLT)

# ---- trace events: int64[k, EVENT_WIDTH] rows (round, seat, kind, a .. j) -----------------
# One entry per event kind, in kind order: (name, rulebook section or gap it reports, the
# names of its values a, b, ...). A name ending in "/100" is stored x100 (Glory, Loot,
# multipliers, chances); trace.py divides it back for the text and the JSON. Seat -1 is
# the table (the Maw, setup). Kinds are emitted only in traced games (GS_TRACE), never
# from a draw or a decision: a traced game is the batch's game.
EVENT_SPECS = (
    ("round", "§6", ("maw_steps", "dread", "dread_track", "next_floor")),
    ("roll", "§6A.1", ("dice", "steel", "cunning", "faith", "greed", "mettle", "dread")),
    ("press", "§6A.2", ("press", "dread")),
    ("dread", "§6A.3", ("dread", "canceled", "uncanceled")),
    ("setback", "§6A.3", ("lost", "healed", "immune")),
    ("produce", "§7.1", ("steel", "cunning", "faith", "greed", "mettle", "produced")),
    ("move", "§6A.4", ("from_floor", "to_floor", "moves")),
    ("claim", "§7.1", ("floor", "slot", "room", "strength/100", "steel", "cunning",
                       "loot/100", "surplus", "marker_bonus/100", "marker_weight/100")),
    ("assault", "§7.1", ("floor", "slot", "room", "progress_steel", "progress_cunning")),
    ("loot", "§6A.4", ("greed", "floor", "loot/100", "unbanked/100", "per_greed/100",
                       "depth")),
    ("recruit", "§8", ("dice", "die", "cost")),
    ("cash_out", "§7.3", ("deepest", "loot/100", "glory/100", "glory_per_loot/100",
                          "dividend/100")),
    ("last_stand", "§7.3", ("floor", "deepest", "paid")),
    ("stay", "§7.3", ("floor", "unbanked/100")),
    ("maw", "§6B.2", ("floor", "maw_steps", "dread")),
    ("score", "§6B.2", ("floor", "slot", "room", "glory", "winners", "share", "claimants",
                        "tile_value", "plunder", "depth")),
    # every unclaimed room of a collapsing floor: its value rising (plunder > 0) or why it
    # cannot (blocked: 0 rises, 1 no floor above, 2 the share rounds to 0, 3 the room
    # above is gone)
    ("rise", "§6B.2", ("floor", "slot", "room", "plunder", "blocked")),
    ("taken", "§6B.2", ("floor", "last_stand", "glory/100", "loot/100", "crew_turns")),
    ("consumed", "§7.3", ("floor", "slot", "room")),
    ("muster", "§7.3", ("floor",)),
    ("end", "§1", ("rounds", "winners", "glory/100", "floors_collapsed", "truncated")),
    ("setup", "§3.1", ("floor", "room_1", "room_2", "room_3", "room_4", "room_5", "room_6")),
    ("defer", "§9", ("held_back", "maw_steps")),
    # -- the audit trace: bags, dice, rooms, Worthy End, forecasts and the bots' reasons
    ("bag", "§6A.1", tuple(f"bag_{d}" for d in DICE) + ("discard", "hand")),
    ("die", "§5", ("die", "face")),
    ("room", "§7.2", ("floor", "slot", "room", "threat", "lock", "threat_ignore",
                      "progress_steel", "progress_cunning", "value", "depth")),
    ("worthy_end", "§7.3", ("deepest", "basis/100", "multiplier/100",
                            "company_multiplier/100", "loot/100", "glory_per_loot/100",
                            "glory/100", "basis_is_depth_value")),
    ("forecast", "§6B.1", ("floor", "verdict", "steps_needed", "steps_per_round",
                           "dread_full_steps", "dread_left", "turns_to_come",
                           "rate/100", "expected/100", "margin/100")),
    ("why_press", "bot", ("press", "reason", "x", "y", "z", "w", "u", "v")),
    ("why_floor", "bot", ("floor", "reason", "x", "y", "z", "w")),
    ("why_room", "bot", ("floor", "slot", "room", "action", "score/100", "next_slot",
                         "next_score/100", "options", "assault", "best_slot")),
    ("why_here", "bot", ("claim_first", "reason", "here/100", "there/100", "keep",
                         "cunning", "current_floor", "arrival_floor")),
    ("why_exit", "bot", ("exit", "reason", "x", "y", "z", "w")),
    ("why_recruit", "bot", ("want", "mettle", "reserve", "cost", "recruit_max")),
    # -- a search bot's decision: decision 0 = target floor, 1 = exit, 2 = room
    # on arrival, 3 = Press On; the mean value of each option over its rollouts (its win
    # share plus the bot's search_glory x its relative Glory margin, kernel.outcome_value),
    # in percent x100 (NOT_AN_OPTION = not an option); options are floors 1..6 (floor),
    # Stay, Cash Out, Last Stand (exit), stop, press (Press On); a room's options (0 = no
    # claim, s + 1 = slot s) are in the search_room events just before it (its means are
    # NOT_AN_OPTION)
    ("search", "bot", ("decision", "chosen", "heuristic", "rollouts", "mean_1/100",
                       "mean_2/100", "mean_3/100", "mean_4/100", "mean_5/100",
                       "mean_6/100")),
    ("search_room", "bot", ("slot", "room", "mean/100")),
)
EVENTS = tuple(name for name, _, _ in EVENT_SPECS)
_EV = columns(EVENTS)
EV_ROUND = _EV["round"]
EV_ROLL = _EV["roll"]
EV_PRESS = _EV["press"]
EV_DREAD = _EV["dread"]
EV_SETBACK = _EV["setback"]
EV_PRODUCE = _EV["produce"]
EV_MOVE = _EV["move"]
EV_CLAIM = _EV["claim"]
EV_ASSAULT = _EV["assault"]
EV_LOOT = _EV["loot"]
EV_RECRUIT = _EV["recruit"]
EV_CASH_OUT = _EV["cash_out"]
EV_LAST_STAND = _EV["last_stand"]
EV_STAY = _EV["stay"]
EV_MAW = _EV["maw"]
EV_SCORE = _EV["score"]
EV_RISE = _EV["rise"]
EV_TAKEN = _EV["taken"]
EV_CONSUMED = _EV["consumed"]
EV_MUSTER = _EV["muster"]
EV_END = _EV["end"]
EV_SETUP = _EV["setup"]
EV_DEFER = _EV["defer"]
EV_BAG = _EV["bag"]
EV_DIE = _EV["die"]
EV_ROOM = _EV["room"]
EV_WORTHY = _EV["worthy_end"]
EV_FORECAST = _EV["forecast"]
EV_WHY_PRESS = _EV["why_press"]
EV_WHY_FLOOR = _EV["why_floor"]
EV_WHY_ROOM = _EV["why_room"]
EV_WHY_HERE = _EV["why_here"]
EV_WHY_EXIT = _EV["why_exit"]
EV_WHY_RECRUIT = _EV["why_recruit"]
EV_SEARCH = _EV["search"]
EV_SEARCH_ROOM = _EV["search_room"]
EVENT_PAYLOAD = 10                  # values a..j of an event
EVENT_WIDTH = 3 + EVENT_PAYLOAD
assert max(len(f) for _, _, f in EVENT_SPECS) <= EVENT_PAYLOAD
assert N_DICE == 7, "events.bag writes one value per die type: seven"
