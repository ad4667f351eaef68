"""Array layouts shared by the Rove kernel, its data compiler and its Python side.

The contract between ``rove.yaml``/``schema.py``/``compile.py`` (data), ``kernel.py``
(rules, the adversary AI and the Rover bots) and the ruleset class (tables, trace). The
kernel sees the content as int64 rows; these module-level integers name their columns
(numba reads them as compile-time constants). Each name tuple is the single source of its
order: add new names at the END.

Rule ids (RO-*) and ambiguity ids (AMB-R*) are those of the project's digest of the Rove
core rulebook (AMB-R19.. from the scope, part B); docs/RULES.md, "Rove", lists them with
their parameters.
"""

from __future__ import annotations

from deepsim.rulesets.rove.schema import (
    BONUSES,
    MAX_ACTIONS,
    MAX_BLOCKS,
    MAX_CARDS,
    MAX_ITEMS,
    MAX_TYPES,
    OPS,
)

__all__ = ["MAX_ACTIONS", "MAX_BLOCKS", "MAX_CARDS", "MAX_ITEMS", "MAX_TYPES"]

# ---- capacities ---------------------------------------------------------------------------
MAX_R = 4                 # The Value of R: 2-4 Rovers
MAX_PLACED = 32           # adversaries of one encounter
MAX_UNITS = MAX_R + MAX_PLACED
MAX_CELLS = 256           # spaces of one map

# ---- terrain (rulebook "Map Spaces") -------------------------------------------------------
TERRAIN = {".": 0, "F": 0, "E": 0, "T": 0, "#": 1, "o": 2, "~": 3, "!": 4, "^": 5}
T_NORMAL, T_BARRIER, T_OPEN, T_DIFFICULT, T_DANGEROUS, T_OBJECT = range(6)

# ---- tiles (Tiles; RO-TI1, RO-TI4): one tile a space, int64[C] ``tile`` ------------------------
# 0 none, 1 a trap, 2.. an ether field; an Aura or Miasma keeps its value:
# tile = kind + 16 * (value + 64) (kernel.tile_kind / tile_value)
TL_NONE, TL_TRAP = 0, 1
TL_AURA, TL_MIASMA, TL_WINDSCREEN, TL_SNAPFROST, TL_EVERBLOOM, TL_WILDFIRE = range(2, 8)

# ---- the action grammar: one row per action, int64[actions, A_N] ---------------------------
OP = {name: i for i, name in enumerate(OPS)}
(OP_DASH, OP_JUMP, OP_TELEPORT, OP_MATTACK, OP_RATTACK, OP_HEAL, OP_DEFENSE, OP_PUSH,
 OP_PULL, OP_GENERATE, OP_SUFFER, OP_RECOVER, OP_REVIVE, OP_RETREAT) = range(len(OPS))
# field: an ether field the action places into each target's space (RO-TI5; the tile code,
# 0 none)
A_COLS = ("op", "x", "rmin", "rmax", "targets", "push", "pull", "ignore_def", "defense",
          "flow", "element", "field")
(A_OP, A_X, A_RMIN, A_RMAX, A_TGT, A_PUSH, A_PULL, A_IGN, A_DEF, A_FLOW,
 A_ELEM, A_FIELD) = range(len(A_COLS))
A_N = len(A_COLS)

# blocks (an ability, a card face, an item's actions, an adversary block): int64[n, 2]
# = [first action row, one past the last]

# ---- augments (rulebook "Skill Cards", Augment / Ether Check) -------------------------------
BONUS = {name: i for i, name in enumerate(BONUSES)}
B_DAMAGE, B_PUSH, B_PULL, B_TARGET, B_RANGE, B_IGNORE, B_X = range(len(BONUSES))

# ---- skill card faces: int64[faces, F_N] ------------------------------------------------------
# an augment is (need, action, bonus, value, drain): drain 1 = met by draining a die of
# ``need`` (Skill Cards, Drain), 0 = an ether check among the dice spent (Ether Check)
MAX_AUG = 2
F_COLS = ("block", "type", "cost", "ability_cost", "n_aug",
          "aug0_need", "aug0_action", "aug0_bonus", "aug0_value", "aug0_drain",
          "aug1_need", "aug1_action", "aug1_bonus", "aug1_value", "aug1_drain",
          "other")
(F_BLOCK, F_TYPE, F_COST, F_ABCOST, F_NAUG, F_AUG0) = range(6)
AUG_N = 5                 # need, action, bonus, value, drain
F_OTHER = F_COLS.index("other")   # the row of the card's other face (Flip)
F_N = len(F_COLS)
FACE_RALLY, FACE_RAVE, FACE_REACT = 0, 1, 2
#: reaction cards a Rover brings (RO-R3: 2, react on both faces); in ``cls_card`` they
#: follow the skill cards, at columns MAX_CARDS .. MAX_CARDS + MAX_REACT - 1
MAX_REACT = 2
CARD_COLS = MAX_CARDS + MAX_REACT

# ---- classes: int64[classes, CL_N] -----------------------------------------------------------
CL_COLS = ("hp", "ether_limit", "starting_ether", "aura", "miasma", "n_cards", "n_items")
CL_HP, CL_LIMIT, CL_START, CL_AURA, CL_MIASMA, CL_NCARDS, CL_NITEMS = range(len(CL_COLS))
CL_N = len(CL_COLS)

# ---- items: int64[items, IT_N] ---------------------------------------------------------------
IT_COLS = ("consumable", "cost", "attack", "bonus", "value", "block")
IT_CONS, IT_COST, IT_ATTACK, IT_BONUS, IT_VALUE, IT_BLOCK = range(len(IT_COLS))
IT_N = len(IT_COLS)
ITEM_BONUS = {"damage": 0, "target": 1, "range": 2}
IB_DAMAGE, IB_TARGET, IB_RANGE = 0, 1, 2
ITEM_ATTACK = {"any": 0, "m_attack": 1, "r_attack": 2}

# ---- adversary types: int64[types, AD_N] -----------------------------------------------------
AD_COLS = ("hp", "hp_per_rover", "defense", "flying", "ignores_dangerous", "n_blocks", "boss")
AD_HP, AD_HPR, AD_DEF, AD_FLY, AD_IGN, AD_NBLK, AD_BOSS = range(len(AD_COLS))
AD_N = len(AD_COLS)

# ---- placements: int64[placed, PL_N] ---------------------------------------------------------
PL_TYPE, PL_CELL, PL_MIN = 0, 1, 2
PL_N = 3

# ---- the rules array -------------------------------------------------------------------------
RULE_NAMES = ("round_limit", "objective", "objective_type", "dangerous_suffer",
              "trap_suffer", "abilities", "skill_cards", "tiebreak", "closest",
              "unreachable", "fewest_hp", "start_hp_pm", "story_personal",
              "story_infusion", "story_item", "rover_hp_pm", "adversary_hp_pm",
              "round_limit_add", "clamp_zero", "n_flags", "n_placed", "n_types",
              "n_cells", "reactions", "drain_first", "dim_supply", "fields_scope",
              "windscreen", "aura_adversary", "miasma_adversary", "snapfrost", "everbloom",
              "wildfire")
(R_LIMIT, R_OBJECTIVE, R_OBJ_TYPE, R_DANGER, R_TRAP, R_ABIL, R_CARDS, R_TIE, R_CLOSEST,
 R_UNREACH, R_FEWEST, R_START_HP, R_STORY_P, R_STORY_I, R_STORY_ITEM, R_RHP, R_AHP,
 R_LIMIT_ADD, R_CLAMP, R_NFLAGS, R_NPLACED, R_NTYPES, R_NCELLS, R_REACT, R_DRAIN_FIRST,
 R_DIM, R_FSCOPE, R_WINDSCREEN, R_AURA_ADV, R_MIASMA_ADV, R_SNAPFROST, R_EVERBLOOM,
 R_WILDFIRE) = range(len(RULE_NAMES))
FIELD_SCOPES = ("each_target_of_first_action", "first_target")
N_RULES = len(RULE_NAMES)
OBJECTIVES = ("slay_all", "slay_type", "reach_exit")
OBJ_SLAY_ALL, OBJ_SLAY_TYPE, OBJ_EXIT = range(3)
TIEBREAKS = ("rover_favoured", "adversarial", "first")
TIE_ROVER, TIE_ADVERSARIAL, TIE_FIRST = range(3)

# ---- outcomes (Winning / Losing an Encounter), in the ruleset's declared order ---------------
OUTCOMES = {"victory": "won", "all_downed": "lost", "round_limit": "lost"}
O_VICTORY, O_DOWNED, O_LIMIT = range(3)

# ---- units in play: int64[MAX_UNITS, U_N] ----------------------------------------------------
# a Rover's reaction state (RO-R5): its reaction tokens, the face up of each reaction card
# (-1: none) and its bot's reaction policy (1: the random bot's coin)
U_COLS = ("faction", "kind", "cell", "hp", "max_hp", "def_tokens", "base_def", "flying",
          "ignores_dangerous", "state", "aff_row", "turn_cell", "react_tokens", "react0",
          "react1", "react_coin", "aura", "miasma")
(U_FACTION, U_KIND, U_CELL, U_HP, U_MAXHP, U_DEFTOK, U_BASEDEF, U_FLY, U_IGN, U_STATE,
 U_AFF, U_TURNCELL, U_RTOK, U_REACT0, U_REACT1, U_RCOIN, U_AURA,
 U_MIASMA) = range(len(U_COLS))
U_N = len(U_COLS)
ROVER, ADVERSARY = 0, 1
ST_ACTIVE, ST_DOWNED, ST_GONE = 0, 1, 2      # gone: slain or never placed

# ---- bot knobs (bots.yaml: every knob, in this order) -----------------------------------------
KNOBS = ("random", "focus_weakest", "caution", "revive_first", "heal_below", "runner")
K_RANDOM, K_WEAKEST, K_CAUTION, K_REVIVE, K_HEAL_BELOW, K_RUNNER = range(len(KNOBS))

# ---- output tables ------------------------------------------------------------------------------
GAME_INT = ("players", "rovers", "rounds", "truncated", "outcome", "round_limit",
            "objective_round", "downs", "revives", "max_downed", "placed", "slain",
            "rover_damage", "adversary_damage", "zero_attacks", "pushes", "impact_damage",
            "falls", "traps", "dangerous", "ether_generated", "ether_wasted", "raves",
            "rallies", "augments_met", "augments_missed", "ai_ties", "ai_tie_choices",
            "items_used")
(G_PLAYERS, G_ROVERS, G_ROUNDS, G_TRUNC, G_OUTCOME, G_LIMIT, G_OBJ_ROUND, G_DOWNS,
 G_REVIVES, G_MAXDOWN, G_PLACED, G_SLAIN, G_RDMG, G_ADMG, G_ZERO, G_PUSHES, G_IMPACT,
 G_FALLS, G_TRAPS, G_DANGER, G_ETHER, G_WASTED, G_RAVES, G_RALLIES, G_AUGMET, G_AUGMISS,
 G_TIES, G_TIECHOICE, G_ITEMS) = range(len(GAME_INT))
# who made the party lose (scope's adv{i}_* / blk{i}_{j}_damage): per adversary type t of
# the encounter (first-placement order, compile.Compiled.types) the damage its units dealt to
# Rovers, the Rovers they downed, its units still standing at the end, its track's path (the
# block it performs in round r's Adversary Phase, 4 bits a round for rounds 1-8: slot of round
# r = ((track >> 4 * (r - 1)) & 15) - 1, -1 when the round's Adversary Phase was not reached
# or the type had no unit left); per type and track
# slot j the damage dealt while performing that block (On Advance damage counts in the
# type's total only). Types and slots an encounter does not have stay 0.
ADV_STATS = ("damage", "downs", "left", "track")
GAME_INT = GAME_INT + tuple(f"adv{t}_{k}" for k in ADV_STATS for t in range(MAX_TYPES)) \
    + tuple(f"blk{t}_{j}_damage" for t in range(MAX_TYPES) for j in range(MAX_BLOCKS))
G_ADV_DMG = GAME_INT.index("adv0_damage")
G_ADV_DOWNS = GAME_INT.index("adv0_downs")
G_ADV_LEFT = GAME_INT.index("adv0_left")
G_ADV_TRACK = GAME_INT.index("adv0_track")
TRACK_ROUNDS = 8
G_BLK_DMG = GAME_INT.index("blk0_0_damage")
# reaction cards played (RO-R5) and dice drained (Skill Cards, Drain)
GAME_INT = GAME_INT + ("reactions", "drains")
G_REACTS = GAME_INT.index("reactions")
G_DRAINS = GAME_INT.index("drains")
# ether fields placed by actions and fields that took effect (RO-TI4)
GAME_INT = GAME_INT + ("fields_placed", "fields_triggered")
G_FPLACED = GAME_INT.index("fields_placed")
G_FTRIG = GAME_INT.index("fields_triggered")
GAME_FLT = ()
SEAT_INT = ("bot", "class", "hp_end", "downed_end", "downs", "revived", "first_down_round",
            "damage_dealt", "damage_taken", "kills", "heals", "abilities_used", "rallies",
            "raves", "augments_met", "items_used", "drakaen_used", "ether_generated",
            "ether_spent", "ether_wasted", "moved", "turns_acted", "reactions", "drains")
(S_BOT, S_CLASS, S_HP, S_DOWNED, S_DOWNS, S_REVIVED, S_FIRSTDOWN, S_DEALT, S_TAKEN,
 S_KILLS, S_HEALS, S_ABIL, S_RALLIES, S_RAVES, S_AUGMET, S_ITEMS, S_DRAKAEN, S_ETHER,
 S_SPENT, S_WASTED, S_MOVED, S_TURNS, S_REACTS, S_DRAINS) = range(len(SEAT_INT))
SEAT_FLT = ("win",)
SF_WIN = 0

# ---- trace events: int64[k, EV_COLS] = (round, code, a, b, c, d) ------------------------------
EV_COLS = 6
(EV_SETUP, EV_PLACE, EV_ROUND, EV_TURN, EV_ABILITY, EV_CARD, EV_MOVE, EV_ATTACK, EV_FOCUS,
 EV_PUSH, EV_DOWNED, EV_SLAIN, EV_HEAL, EV_REVIVE, EV_TRACK, EV_GENERATE, EV_TERRAIN,
 EV_FALL, EV_END, EV_ITEM, EV_DEFENSE, EV_WASTE, EV_BLOCK, EV_REACT, EV_DRAIN,
 EV_FIELD) = range(26)
# why the AI chose its focus (EV_FOCUS's d)
WHY_ONLY, WHY_CLOSEST, WHY_HP, WHY_TIE, WHY_MOST, WHY_HEAL_MOST, WHY_HEAL_SELF, \
    WHY_APPROACH = range(8)
