"""Array layouts shared by the Abyss kernel, its data compiler and its Python side.

This module is the contract between ``ruleset.yaml``/``schema.py``/``compile.py`` (data),
``state.py`` (the game state), ``kernel.py``/``bots.py`` (rules and decisions) and
``__init__.py`` (frames, trace). The kernel sees the rules as plain arrays; these
module-level integers name their rows and columns (numba reads them as compile-time
constants). Each name tuple is the single source of its order: add new names at the END.

Rule ids (AB-*) and ambiguity ids (AMB-A*) are those of ``../shared/digests/abyss.md``.

**Information.** The game state is split in three groups of arrays (state.py): what every
player sees (the public view: row, Court, Council stack sizes, each player's pearls, lords,
locations, key tokens and affiliated allies), what only the rules see (hands, Council stack
contents, the order of every deck and pile) and the engine's own (random stream, trace,
counters). A bot function receives the public view, its own hand and its knobs, never the
hidden arrays.
"""

from __future__ import annotations

# ---- races and lord colours (AB-C1, AB-C2) ----------------------------------------------
RACES = ("jellyfish", "crab", "seahorse", "shellfish", "kraken")
RACE_TITLES = ("Jellyfish", "Crab", "Seahorse", "Shellfish", "Kraken")
N_RACES = len(RACES)
#: lord colours: colour i < 5 is race i's (purple jellyfish ... blue kraken); white has none
COLOURS = ("purple", "red", "yellow", "green", "blue", "white")
WHITE = 5
EFFECTS = ("none", "passive", "immediate")
EFF_NONE, EFF_PASSIVE, EFF_IMMEDIATE = range(3)

#: ally values run 1..MAX_VALUE; hands and stacks are counts indexed [race, value]
MAX_VALUE = 9
NV = MAX_VALUE + 1

# ---- capacities -------------------------------------------------------------------------
MAX_P = 4                 # AMB-A19: 2-4 players (4 pearl trays)
MAX_ROW = 12              # Depth row slots (explore.row_length <= MAX_ROW)
MAX_COURT = 12            # Court slots (court.slots <= MAX_COURT)
MAX_LORDS = 64            # lords in the deck
MAX_OWN = 20              # lords one player can own (end.lords_to_end <= MAX_OWN)
MAX_LOCS = 40             # location tiles
MAX_DEPTH = 256           # Depth cards (allies + monsters)
MAX_THREAT = 10           # Threat track positions
MAX_TOKENS = 64           # Monster tokens

# ---- card codes (Depth deck, row, discard) ---------------------------------------------
#: an ally is race * 16 + value; a monster is MONSTER; an empty place is -1
MONSTER = 1000
CODE_RACE_MUL = 16

# ---- lord table: int64 ``lords[n_lords, LC_N]`` (compile.py, from lords.deck) ----------
LCOLS = ("colour", "vp", "cost", "n_races", "required", "keys", "effect")
LC_COLOUR, LC_VP, LC_COST, LC_NRACES, LC_REQ, LC_KEYS, LC_EFFECT = range(len(LCOLS))
LC_N = len(LCOLS)
# required: bit r set = race r must be among the paying races (AB-L1); keys: AB-L5

# ---- Threat track: int64 ``threat[n_positions, TH_N]`` (AB-E6, AMB-A5) ------------------
THCOLS = ("tokens", "pearls", "keys")
TH_TOKENS, TH_PEARLS, TH_KEYS = range(len(THCOLS))
TH_N = len(THCOLS)

# ---- scalar rules: float64 ``rules[N_RULES]``; (name, dotted path in ruleset.yaml) -------
# Booleans are 0/1; enumerations are the index of the value in schema.ENUMS.
RULES = (
    ("start_pearls", "setup.start_pearls"),                   # AB-S4: 1
    ("locations_face_up", "setup.locations_face_up"),         # AB-S2: 1
    ("reshuffle", "depth.reshuffle"),                         # AMB-A6
    ("row_length", "explore.row_length"),                     # AMB-A7: K
    ("last_slot_pearls", "explore.last_slot_pearls"),         # AB-E3: 1
    ("first_price", "explore.first_price"),                   # AB-E2: the first buy costs 1
    ("price_step", "explore.price_step"),                     # AB-E2: each later buy +1
    ("buys_per_player", "explore.buys_per_player"),           # AB-E2: one per turn
    ("bought_frees_slot", "explore.bought_frees_slot"),       # AMB-A2
    ("last_slot_monster", "explore.last_slot_monster"),       # AMB-A1: 0 must_fight,
                                                              #   1 must_fight_no_bonus, 2 may_leave
    ("must_continue", "explore.must_continue_after_monster"), # AMB-A8
    ("court_slots", "court.slots"),                           # AB-C4: 6
    ("refill_slot", "court.refill_slot"),                     # AB-L4: slot 4
    ("refill_pearls", "court.refill_pearls"),                 # AB-L4: 2
    ("plot_cost", "court.plot_cost"),                         # AB-T0: 1 pearl
    ("plot_timing", "court.plot_timing"),                     # AMB-A4: 0 pre_action,
                                                              #   1 with_recruit, 2 never
    ("keys_per_location", "keys.per_location"),               # AB-K1: 3
    ("key_supply", "keys.token_supply"),                      # AMB-A16: 10
    ("spend_policy", "keys.spend_policy"),                    # AMB-A10: 0 tokens_first,
                                                              #   1 lords_first
    ("multi_location", "keys.multi_location"),                # AMB-A10
    ("max_draw", "keys.max_draw"),                            # AB-K2: 1-4
    ("hand_limit", "hand_limit"),                             # AMB-A14: 0 = none
    ("pearl_supply", "pearl_supply"),                         # AMB-A16: -1 = unlimited
    ("lords_to_end", "end.lords_to_end"),                     # AB-G1: 7
    ("final_affiliation", "end.final_affiliation"),           # AMB-A3: 0 lowest, 1 highest
    ("tiebreak_metric", "end.tiebreak_lord_metric"),          # AMB-A15: 0 cost_value, 1 vp
    ("max_turns", "end.max_turns"),                           # deepsim safety cap
    ("rotate", "<scenario rotate>"),                          # seat specs rotate per game
    ("ally_mean", "<derived>"),                               # mean ally value of the deck
)
(R_START_PEARLS, R_LOC_FACE_UP, R_RESHUFFLE, R_ROW_LEN, R_LAST_PEARLS, R_FIRST_PRICE,
 R_PRICE_STEP, R_BUYS_PER_PLAYER, R_BOUGHT_FREES, R_LAST_MONSTER, R_MUST_CONTINUE,
 R_COURT_SLOTS, R_REFILL_SLOT, R_REFILL_PEARLS, R_PLOT_COST, R_PLOT_TIMING,
 R_KEYS_PER_LOC, R_KEY_SUPPLY, R_SPEND_POLICY, R_MULTI_LOC, R_MAX_DRAW, R_HAND_LIMIT,
 R_PEARL_SUPPLY, R_LORDS_TO_END, R_FINAL_AFF, R_TIEBREAK, R_MAX_TURNS, R_ROTATE,
 R_ALLY_MEAN) = range(len(RULES))
N_RULES = len(RULES)
LAST_MUST_FIGHT, LAST_MUST_FIGHT_NO_BONUS, LAST_MAY_LEAVE = range(3)
PLOT_PRE_ACTION, PLOT_WITH_RECRUIT, PLOT_NEVER = range(3)

# ---- bot knobs (bots.yaml) --------------------------------------------------------------
KNOBS = (
    "random",         # 1 = every decision uniform over the legal choices (the baseline)
    "buy_value",      # auction: most pearls paid per point of an ally's worth
    "need_bonus",     # worth added to an ally of a race the bot lacks or its target needs
    "pearl_reserve",  # pearls kept back (never spent on buying allies or plotting)
    "take_min",       # active player: takes an unsold ally worth at least this
    "fight_min",      # fights a monster at Threat position >= this (1 = first)
    "council_min",    # takes a Council stack holding at least this many cards
    "recruit_min",    # recruits when a lord's net worth reaches this
    "spend_weight",   # cost of one point of ally value or one pearl spent on a lord
    "key_weight",     # worth of a lord's key (VP)
    "affil_weight",   # worth of one point gained on an affiliated race's best ally
    "pearl_vp",       # worth of one pearl gained (the slot-4 refill bonus)
    "topup_max",      # most pearls paid by choice instead of another ally card (AB-L2)
    "plot_max",       # most lords put into the Court per turn for a pearl each (AB-T0)
    "loc_gift",       # weight on the locations a draw turns face up for the others
)
(K_RANDOM, K_BUY_VALUE, K_NEED_BONUS, K_PEARL_RESERVE, K_TAKE_MIN, K_FIGHT_MIN,
 K_COUNCIL_MIN, K_RECRUIT_MIN, K_SPEND_WEIGHT, K_KEY_WEIGHT, K_AFFIL_WEIGHT, K_PEARL_VP,
 K_TOPUP_MAX, K_PLOT_MAX, K_LOC_GIFT) = range(len(KNOBS))
N_KNOBS = len(KNOBS)

# ---- actions (AB-T1) --------------------------------------------------------------------
ACTIONS = ("explore", "council", "recruit", "pass")
A_EXPLORE, A_COUNCIL, A_RECRUIT, A_PASS = range(len(ACTIONS))

# ---- how a game ended (games.end) -------------------------------------------------------
END_CAUSES = ("lords", "court", "both", "turn_cap")
END_LORDS, END_COURT, END_BOTH, END_CAP = range(len(END_CAUSES))
# lords: a player owns end.lords_to_end lords; court: a Court refill could not be completed
# (AB-G1); both in the same turn; turn_cap: the safety cap end.max_turns (truncated: the
# game is unresolved, no winner)

#: how the winner was decided (games.tiebreak, AB-G5)
TIEBREAKS = ("score", "pearls", "lords", "shared", "unresolved")
TB_SCORE, TB_PEARLS, TB_LORDS, TB_SHARED, TB_OPEN = range(len(TIEBREAKS))
# unresolved: the safety cap end.max_turns stopped the game (not a rule): no winner, the
# seats' win NaN (deepsim.rulesets.base.UNRESOLVED); the scores at the cap are kept

# ---- per-game output (games table): int64 ``gi[games, N_GAME_INT]`` ---------------------
#: rounds at whose end the pearls held by all players are recorded (the pearl curve)
PEARL_ROUNDS = (5, 10, 15, 20)
GAME_INT = (("players", "turns", "rounds", "truncated", "n_winners", "winner_seat",
             "end_cause", "trigger_seat", "tiebreak", "explores", "councils", "recruits",
             "plots", "passes", "reveals", "allies_revealed", "monsters_revealed", "offers",
             "buys", "buys_p1", "buys_p2", "buys_p3", "buys_p4plus", "takes",
             "last_slot_takes", "declined", "fights", "leaves", "last_slot_fights",
             "refills", "refill_bonuses", "refill_failed", "locations", "loc_face_up",
             "loc_drawn", "reshuffles", "lord_deck_left", "council_cards", "pearls_from_bank",
             "pearls_to_bank", "pearls_auction", "topups", "winner_differs_other_reading",
             "depth_exhausted")
            + tuple(f"fights_pos{i + 1}" for i in range(MAX_THREAT))
            + tuple(f"loc_draw{i + 1}" for i in range(4))
            + tuple(f"pearls_r{r}" for r in PEARL_ROUNDS)
            + ("loc_vp_face_up",) + tuple(f"loc_vp_draw{i + 1}" for i in range(4)))
(G_PLAYERS, G_TURNS, G_ROUNDS, G_TRUNCATED, G_N_WINNERS, G_WINNER_SEAT, G_END_CAUSE,
 G_TRIGGER_SEAT, G_TIEBREAK, G_EXPLORES, G_COUNCILS, G_RECRUITS, G_PLOTS, G_PASSES,
 G_REVEALS, G_ALLIES_REVEALED, G_MONSTERS_REVEALED, G_OFFERS, G_BUYS, G_BUYS_P1, G_BUYS_P2,
 G_BUYS_P3, G_BUYS_P4PLUS, G_TAKES, G_LAST_TAKES, G_DECLINED, G_FIGHTS, G_LEAVES,
 G_LAST_FIGHTS, G_REFILLS, G_REFILL_BONUSES, G_REFILL_FAILED, G_LOCATIONS, G_LOC_FACE_UP,
 G_LOC_DRAWN, G_RESHUFFLES, G_LORD_DECK_LEFT, G_COUNCIL_CARDS, G_PEARLS_FROM_BANK,
 G_PEARLS_TO_BANK, G_PEARLS_AUCTION, G_TOPUPS, G_WINNER_DIFFERS,
 G_DEPTH_EXHAUSTED) = range(44)
G_FIGHTS_POS0 = 44                        # fights_pos<i>: fights at Threat position i
G_LOC_DRAW0 = G_FIGHTS_POS0 + MAX_THREAT  # loc_draw<n>: locations taken by drawing n
G_PEARLS_R0 = G_LOC_DRAW0 + 4             # pearls_r<k>: pearls held after round k, -1 if over
G_LOC_VP_FACE_UP = G_PEARLS_R0 + len(PEARL_ROUNDS)  # VP of locations taken face up
G_LOC_VP_DRAW0 = G_LOC_VP_FACE_UP + 1     # loc_vp_draw<n>: VP of those taken by drawing n
N_GAME_INT = len(GAME_INT)
# winner_seat: -1 when the win is shared or the game unresolved (n_winners 0); trigger_seat: seat whose turn triggered the end
# (-1 none: turn cap); winner_differs_other_reading: 1 when the winners under the other
# end.final_affiliation reading (AMB-A3) would differ (same play, other final tally)
GAME_FLT = ("margin", "margin_rel", "mean_score")
GF_MARGIN, GF_MARGIN_REL, GF_MEAN_SCORE = range(len(GAME_FLT))
N_GAME_FLT = len(GAME_FLT)

# ---- per-seat output: ``si[games, MAX_P, N_SEAT_INT]`` (seat 0 plays first) -------------
SEAT_INT = ("bot", "place", "score", "lord_vp", "loc_vp", "ally_vp", "monster_vp", "pearls",
            "lords", "locations", "lords_covered", "key_tokens_won", "key_tokens_used",
            "monster_tokens", "explores", "councils", "recruits", "plots", "passes", "buys",
            "buy_pearls", "sale_pearls", "takes", "last_slot_takes", "fights", "leaves",
            "council_cards", "council_value", "bought_value", "topup_pearls",
            "refill_bonus_pearls", "last_slot_pearls", "monster_pearls", "cards_spent",
            "value_spent", "final_aff_gain", "ally_vp_other_reading", "hand_left", "turns",
            "triggered", "loc_face_up", "loc_drawn", "lords_keyed", "plot_pearls",
            "take_value", "buys_after_final")
(S_BOT, S_PLACE, S_SCORE, S_LORD_VP, S_LOC_VP, S_ALLY_VP, S_MONSTER_VP, S_PEARLS, S_LORDS,
 S_LOCATIONS, S_LORDS_COVERED, S_KEY_TOKENS_WON, S_KEY_TOKENS_USED, S_MONSTER_TOKENS,
 S_EXPLORES, S_COUNCILS, S_RECRUITS, S_PLOTS, S_PASSES, S_BUYS, S_BUY_PEARLS,
 S_SALE_PEARLS, S_TAKES, S_LAST_TAKES, S_FIGHTS, S_LEAVES, S_COUNCIL_CARDS,
 S_COUNCIL_VALUE, S_BOUGHT_VALUE, S_TOPUP_PEARLS, S_REFILL_PEARLS, S_LAST_PEARLS,
 S_MONSTER_PEARLS, S_CARDS_SPENT, S_VALUE_SPENT, S_FINAL_AFF_GAIN, S_ALLY_VP_OTHER,
 S_HAND_LEFT, S_TURNS, S_TRIGGERED, S_LOC_FACE_UP, S_LOC_DRAWN, S_LORDS_KEYED,
 S_PLOT_PEARLS, S_TAKE_VALUE, S_BUYS_AFTER_FINAL) = range(len(SEAT_INT))
N_SEAT_INT = len(SEAT_INT)
SEAT_FLT = ("win",)
SF_WIN = 0
N_SEAT_FLT = len(SEAT_FLT)
# win: 1 for the sole winner, 1/k each for k seats sharing the win (AB-G5 exhausted)

# ---- trace events: int64 ``ev[n, EVENT_WIDTH]`` ------------------------------------------
EVENT_WIDTH = 9   # turn, player, kind, a, b, c, d, e, f
EVENTS = ("setup", "turn", "plot", "reveal", "offer", "take", "decline", "monster", "fight",
          "leave", "stop", "council", "recruit", "pay", "affiliate", "court", "location",
          "cover", "trigger", "final_aff", "score", "end", "reshuffle", "hand_limit", "pass",
          "cleanup", "bot", "court_init", "keys_paid")
(EV_SETUP, EV_TURN, EV_PLOT, EV_REVEAL, EV_OFFER, EV_TAKE, EV_DECLINE, EV_MONSTER,
 EV_FIGHT, EV_LEAVE, EV_STOP, EV_COUNCIL, EV_RECRUIT, EV_PAY, EV_AFFILIATE, EV_COURT,
 EV_LOCATION, EV_COVER, EV_TRIGGER, EV_FINAL_AFF, EV_SCORE, EV_END, EV_RESHUFFLE,
 EV_HAND_LIMIT, EV_PASS, EV_CLEANUP, EV_BOT, EV_COURT_INIT, EV_KEYS_PAID) = range(len(EVENTS))
#: answers to an auction offer (EV_OFFER's c)
OFFER_ANSWERS = ("refuses", "buys", "already bought this turn", "cannot pay")
OF_REFUSE, OF_BUY, OF_ALREADY, OF_CANNOT = range(len(OFFER_ANSWERS))
#: why an Explore stopped without a card (EV_STOP's a)
STOPS = ("the Depth deck and discard are empty", "the row is full",
         "chose to stop after leaving a monster", "left the monster in the last slot")
STOP_EMPTY, STOP_ROW_FULL, STOP_CHOSE, STOP_LEFT_LAST = range(len(STOPS))
