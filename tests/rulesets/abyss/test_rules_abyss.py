"""Abyss rules, one test per rule (AB-*) or reading (AMB-A*), on hand-built states.

Each test builds a state with the ``new_state`` fixture of this folder's conftest.py (cards
in hands, decks in a known order, bots whose knobs force the choice under test), calls one
rule function of the kernel and checks the outcome the digest
(``../shared/digests/abyss.md``) describes, usually with a case where the rule applies and
one where it must not.
"""

from __future__ import annotations

import numpy as np
import pytest

from deepsim.rulesets.abyss import bots as B
from deepsim.rulesets.abyss import kernel as K
from deepsim.rulesets.abyss import layout as L
from deepsim.rulesets.abyss import state as S

MONSTER = "monster"
#: race name -> index, as the conftest's State reads card names
RACE = {name: i for i, name in enumerate(L.RACES)}


def offers(s) -> list[tuple[int, int, int]]:
    """(opponent, price, answer) of each auction offer of state ``s``, in order."""
    return [(int(e[3]), int(e[5]), int(e[6])) for e in s.events(L.EV_OFFER)]


def out_arrays():
    return (np.zeros((1, L.N_GAME_INT), np.int64), np.zeros((1, L.N_GAME_FLT)),
            np.zeros((1, L.MAX_P, L.N_SEAT_INT), np.int64),
            np.zeros((1, L.MAX_P, L.N_SEAT_FLT)))


# ---------------------------------------------------------------------------------------
# components and setup (AB-C*, AB-S*)
# ---------------------------------------------------------------------------------------

def test_depth_deck_lords_tokens_and_board(new_state):
    """AB-C1 71 Depth cards: 13 allies per race (1s most, 5s fewest) and 6 monsters; AB-C2
    35 lords, passive ones carry a key (AB-L5); AB-C3 20 Monster tokens 2x4 9x3 9x2 and 20
    locations; AB-C4 6 Court slots."""
    a = new_state().a
    assert a.depth.size == 71 and (a.depth == L.MONSTER).sum() == 6
    allies = a.depth[a.depth != L.MONSTER]
    for r in range(L.N_RACES):
        vals = allies[allies // 16 == r] % 16
        counts = [int((vals == v).sum()) for v in range(1, 6)]
        assert sum(counts) == 13 and counts == sorted(counts, reverse=True)
    assert a.lords.shape[0] == 35
    colours = np.bincount(a.lords[:, L.LC_COLOUR], minlength=6)
    assert list(colours) == [6, 6, 6, 6, 6, 5]
    passive = a.lords[:, L.LC_EFFECT] == L.EFF_PASSIVE
    assert (a.lords[passive, L.LC_KEYS] == 1).all() and (a.lords[~passive, L.LC_KEYS] == 0).all()
    yellow = a.lords[:, L.LC_COLOUR] == 2
    assert (a.lords[yellow, L.LC_EFFECT] == L.EFF_NONE).all()          # seahorses: no effect
    assert sorted(a.tokens.tolist()) == [2] * 9 + [3] * 9 + [4] * 2
    assert a.locations.size == 20
    assert a.rules[L.R_COURT_SLOTS] == 6 and a.rules[L.R_REFILL_SLOT] == 4


def test_setup(new_state):
    """AB-S1 deck shuffled, Court filled with 6 lords from the shuffled lord deck; AB-S2 one
    location face up; AB-S3 Threat on position 1, tokens shuffled, Key tokens out; AB-S4 one
    pearl each, empty hands; two games differ in their shuffles."""
    s = new_state(4)
    orders = []
    for game in (0, 1):
        K.reset(s.scr)
        s.scr[S.X_KEY][0] = np.uint64(1000 + game)
        K.setup(s.scr, s.dat, game)
        ps = s.ps
        n = int(ps[S.PS_PLAYERS])
        assert ps[S.PS_COURT_N] == 6 and ps[S.PS_LDECK_N] == 29
        court = set(s.scr[S.X_COURT][:6].tolist())
        deck = set(s.scr[S.X_LDECK][:29].tolist())
        assert court | deck == set(range(35)) and not court & deck
        assert ps[S.PS_LVIS_N] == 1 and ps[S.PS_LSTACK_N] == 19
        assert ps[S.PS_THREAT] == 0 and ps[S.PS_TOKENS_LEFT] == 20
        assert ps[S.PS_KEY_SUPPLY] == 10
        assert ps[S.PS_DEPTH_N] == 71
        assert sorted(s.scr[S.X_DECK][:71].tolist()) == sorted(s.a.depth.tolist())
        assert (s.pl[:n, S.PL_PEARLS] == 1).all() and s.hands.sum() == 0
        assert ps[S.PS_ROW_N] == 0 and s.scr[S.X_CN].sum() == 0
        orders.append(s.scr[S.X_DECK][:71].copy())
    assert not np.array_equal(orders[0], orders[1])


def test_seat_specs_rotate_over_games():
    """AMB-A18: the start player is seat 1; with `rotate: true` the seat specs move one seat
    per game, so each style plays every seat equally often."""
    from deepsim.rulesets.abyss import RULESET
    sc = {"name": "r", "ruleset": "abyss", "players": 3, "seed": 1, "games": 3,
          "seats": [{"bot": "courtier"}, {"bot": "merchant"}, {"bot": "hunter"}]}
    for rotate in (True, False):
        prep = RULESET.prepare(dict(sc, rotate=rotate))
        _, seats = RULESET.run_chunk(prep, 0, 3)
        by_game = seats.pivot(index="game", columns="seat", values="bot").astype(str)
        if rotate:
            assert list(by_game.loc[0]) == ["courtier", "merchant", "hunter"]
            assert list(by_game.loc[1]) == ["merchant", "hunter", "courtier"]
            assert list(by_game.loc[2]) == ["hunter", "courtier", "merchant"]
        else:
            assert (by_game == ["courtier", "merchant", "hunter"]).all().all()


# ---------------------------------------------------------------------------------------
# AB-T0 plotting at Court (AMB-A4)
# ---------------------------------------------------------------------------------------

def test_plot_pays_a_pearl_per_lord_while_a_slot_is_free(new_state):
    """AB-T0: 1 pearl to the bank reveals the lord deck's top card into a free Court slot,
    repeatable while a slot is free, the deck has a card and the player can pay."""
    s = new_state(3).court(["purple-1", "red-1", "green-1", "blue-1"])
    s.lord_deck(["white-1", "white-2", "white-3"]).pearls(0, 3)
    s.set_knobs(0, plot_max=5, recruit_min=1e9)
    assert K.plots(s.scr, s.dat, 0) == 2                     # two free slots
    assert s.court_names()[-2:] == ["white-1", "white-2"]
    assert s.pl[0, S.PL_PEARLS] == 1 and s.ps[S.PS_LDECK_N] == 1
    assert s.gstat("pearls_to_bank") == 2
    # a full Court: nothing; no pearl: nothing
    assert K.plots(s.scr, s.dat, 0) == 0
    s2 = new_state(3).court(["purple-1"]).lord_deck(["white-1"]).pearls(0, 0)
    s2.set_knobs(0, plot_max=5, recruit_min=1e9)
    assert K.plots(s2.scr, s2.dat, 0) == 0


@pytest.mark.parametrize("timing,plotted", [("pre_action", 1), ("never", 0)])
def test_plot_timing(timing, plotted, new_state):
    """AMB-A4 `court.plot_timing`: pre_action lets a player plot before its action; never
    never."""
    s = new_state(2, [f"court.plot_timing={timing}"]).court(["purple-1", "red-1"])
    s.lord_deck(["white-1", "white-2"]).pearls(0, 5).deck([("crab", 1)] * 6)
    s.set_knobs(0, plot_max=1, take_min=0)
    s.turn(0)
    assert len(s.events(L.EV_PLOT)) == plotted


# ---------------------------------------------------------------------------------------
# exploring (AB-E*)
# ---------------------------------------------------------------------------------------

def test_offers_run_clockwise_price_escalates_and_goes_to_the_active_player(new_state):
    """AB-E2 each ally is offered to the opponents clockwise from the active player's left;
    the first to accept pays and takes it; each opponent buys at most one per turn; the k-th
    purchase of a turn costs k pearls (b+1); AB-E7 the price goes to the active player."""
    s = new_state(4).deck([("crab", 3), ("kraken", 5), ("jellyfish", 2), ("seahorse", 1)])
    for p in range(4):
        s.pearls(p, 5)
    s.set_knobs(3, buy_value=10)       # buys whatever it is offered
    s.set_knobs(0, buy_value=10)
    s.set_knobs(1, take_min=0)         # the active player takes the first unsold ally
    s.explore(1)
    assert offers(s) == [
        (2, 1, L.OF_REFUSE), (3, 1, L.OF_BUY),                         # crab 3, 1 pearl
        (2, 2, L.OF_REFUSE), (3, 2, L.OF_ALREADY), (0, 2, L.OF_BUY),   # kraken 5, 2 pearls
        (2, 3, L.OF_REFUSE), (3, 3, L.OF_ALREADY), (0, 3, L.OF_ALREADY)]  # jellyfish 2
    assert list(s.pl[:4, S.PL_PEARLS]) == [3, 8, 5, 4]
    assert s.hand_cards(3) == [("crab", 3)] and s.hand_cards(0) == [("kraken", 5)]
    assert s.hand_cards(1) == [("jellyfish", 2)]                     # taken free: ends
    assert s.ps[S.PS_DEPTH_N] == 1 and s.row() == []
    assert s.gstat("buys_p1") == 1 and s.gstat("buys_p2") == 1


def test_an_opponent_who_cannot_pay_is_skipped(new_state):
    """AB-E2 an opponent buys only if it can pay the price."""
    s = new_state(3).deck([("crab", 3)]).pearls(1, 0).pearls(2, 0)
    s.set_knobs(1, buy_value=10).set_knobs(2, buy_value=10).set_knobs(0, take_min=0)
    s.explore(0)
    assert offers(s) == [(1, 1, L.OF_CANNOT), (2, 1, L.OF_CANNOT)]
    assert s.hand_cards(0) == [("crab", 3)]


def test_declined_allies_stay_and_the_last_slot_must_be_taken_with_its_pearl(new_state):
    """AB-E2.4 an unsold ally may be declined (it stays in its slot and the next card is
    revealed); AB-E3 in the last slot the active player must take it and gains 1 pearl from
    the bank; AB-E9 at the end of the turn declined allies go to their Council stacks."""
    cards = [("crab", 1), ("crab", 2), ("kraken", 1), ("seahorse", 4), ("jellyfish", 5),
             ("shellfish", 3)]
    s = new_state(2).deck(cards).pearls(0, 0)
    s.explore(0)                                      # STILL: never takes by choice
    assert s.hand_cards(0) == [("jellyfish", 5)]      # the 5th card, in the last slot
    assert s.pl[0, S.PL_PEARLS] == 1 and s.gstat("pearls_from_bank") == 1
    take = s.events(L.EV_TAKE)
    assert len(take) == 1 and take[0, 4] == 5 and take[0, 5] == 1   # slot 5, forced
    assert len(s.row()) == 4 and s.ps[S.PS_DEPTH_N] == 1
    K.cleanup_row(s.scr)
    assert s.council_sizes() == [0, 2, 1, 0, 1] and s.row() == []
    assert s.scr[S.X_CNCL][1, 1] == 1 and s.scr[S.X_CNCL][1, 2] == 1


@pytest.mark.parametrize("frees,slots", [(True, [1, 1, 2]), (False, [1, 2, 3])])
def test_a_bought_ally_frees_its_slot(frees, slots, new_state):
    """AMB-A2 `explore.bought_frees_slot`: true, the next card goes into the slot a bought
    ally left; false, into the next slot."""
    s = new_state(2, [f"explore.bought_frees_slot={str(frees).lower()}"])
    s.deck([("crab", 1), ("crab", 2), ("kraken", 1), ("seahorse", 4)]).pearls(1, 5)
    s.set_knobs(1, buy_value=10)                     # buys the first ally
    s.set_knobs(0, take_min=3)                       # takes the first worth >= 3 (kraken 1
    s.explore(0)                                     # worth 1 + 0: declined; seahorse no)
    rev = s.events(L.EV_REVEAL)
    assert [int(r[4]) for r in rev[:3]] == slots


def test_monster_fight_takes_the_reward_and_resets_the_threat(new_state):
    """AB-E4 a monster is not offered; fighting takes the reward at the Threat position,
    resets the token to position 1 and ends the action (AB-E6: position 3 pays a key)."""
    s = new_state(2).deck([MONSTER, ("crab", 1)]).pearls(1, 5)
    s.set_knobs(1, buy_value=10).set_knobs(0, fight_min=1)
    s.ps[S.PS_THREAT] = 2                            # position 3: {keys: 1}
    s.explore(0)
    assert offers(s) == []
    assert s.pl[0, S.PL_KEYTOK] == 1 and s.ps[S.PS_KEY_SUPPLY] == 9
    assert s.ps[S.PS_THREAT] == 0 and s.ps[S.PS_DEPTH_N] == 1
    assert s.discards() == [L.MONSTER]               # G-A2: the fought monster discarded
    assert s.sstat(0, "fights") == 1 and s.gstat("fights_pos3") == 1


def test_leaving_a_monster_moves_the_threat_on_and_the_turn_goes_on(new_state):
    """AB-E4 leaving: the Threat token moves one position on (AMB-A5: capped at the last),
    the monster stays in the row and the player reveals the next card (AMB-A8); AB-E9
    left monsters go to the discard at clean-up."""
    s = new_state(2).deck([MONSTER, ("crab", 4)]).set_knobs(0, take_min=0)
    s.explore(0)
    assert s.ps[S.PS_THREAT] == 1 and len(s.events(L.EV_LEAVE)) == 1
    assert s.hand_cards(0) == [("crab", 4)] and s.row() == [L.MONSTER]
    K.cleanup_row(s.scr)
    assert s.discards() == [L.MONSTER] and s.council_sizes() == [0] * 5
    last = len(s.a.threat) - 1
    s2 = new_state(2).deck([MONSTER, ("crab", 4)]).set_knobs(0, take_min=0)
    s2.ps[S.PS_THREAT] = last
    s2.explore(0)
    assert s2.ps[S.PS_THREAT] == last                # capped


def test_threat_rewards_tokens_pearls_and_keys_while_they_last(new_state):
    """AB-E6 Monster tokens are drawn from the pile's top (their VP is the owner's), pearls
    come from the bank, Key tokens from the supply; AMB-A16 none when the supply is out."""
    s = new_state(2).deck([MONSTER]).tokens([4, 2, 3]).set_knobs(0, fight_min=1)
    s.ps[S.PS_THREAT] = 3                            # position 4: 1 token + 2 pearls
    s.explore(0)
    assert s.ph[0, S.PH_MVP] == 4 and s.pl[0, S.PL_MTOK] == 1
    assert s.pl[0, S.PL_PEARLS] == 2 and s.ps[S.PS_TOKENS_LEFT] == 2
    s2 = new_state(2).deck([MONSTER]).tokens([]).set_knobs(0, fight_min=1)
    s2.ps[S.PS_THREAT] = 4                           # position 5: 1 token + 1 key
    s2.ps[S.PS_KEY_SUPPLY] = 0
    s2.explore(0)
    assert s2.pl[0, S.PL_MTOK] == 0 and s2.pl[0, S.PL_KEYTOK] == 0   # nothing left
    assert s2.ps[S.PS_THREAT] == 0


@pytest.mark.parametrize("mode,fights,pearls", [("must_fight", 1, 1),
                                                ("must_fight_no_bonus", 1, 0),
                                                ("may_leave", 0, 0)])
def test_a_monster_in_the_last_slot(mode, fights, pearls, new_state):
    """AB-E5 / AMB-A1 `explore.last_slot_monster`: must_fight (and the last slot's pearl),
    must_fight_no_bonus, may_leave (a bot that never fights leaves it; the action ends)."""
    s = new_state(2, [f"explore.last_slot_monster={mode}"])
    s.deck([("crab", 1), ("crab", 2), ("crab", 3), ("kraken", 1), MONSTER, ("jellyfish", 1)])
    s.explore(0)
    assert s.sstat(0, "fights") == fights
    assert s.pl[0, S.PL_PEARLS] == pearls
    assert s.ps[S.PS_DEPTH_N] == 1 and s.hand_cards(0) == []


@pytest.mark.parametrize("must,stops", [(True, False), (False, True)])
def test_going_on_after_leaving_a_monster(must, stops, new_state):
    """AMB-A8 `explore.must_continue_after_monster`: false lets the player stop after
    leaving a monster (the random style stops on a coin); true never."""
    seen = False
    for seed in range(40):
        s = new_state(2, [f"explore.must_continue_after_monster={str(must).lower()}"])
        s.deck([MONSTER, ("crab", 4), ("crab", 4), ("crab", 4), ("crab", 4)]).random_bot(0)
        s.scr[S.X_KEY][0] = np.uint64(seed)
        s.explore(0)
        seen |= any(int(e[3]) == L.STOP_CHOSE for e in s.events(L.EV_STOP))
    assert seen == stops


@pytest.mark.parametrize("reshuffle", [True, False])
def test_an_empty_depth_deck(reshuffle, new_state):
    """AMB-A6 `depth.reshuffle`: the discard pile is shuffled into a new deck; without it (or
    with both empty) the action ends with no card (G-A1)."""
    s = new_state(2, [f"depth.reshuffle={str(reshuffle).lower()}"]).deck([])
    s.discard_pile([("crab", 4)]).set_knobs(0, take_min=0)
    s.explore(0)
    if reshuffle:
        assert s.hand_cards(0) == [("crab", 4)] and s.ps[S.PS_DISC_N] == 0
        assert s.gstat("reshuffles") == 1
    else:
        assert s.hand_cards(0) == [] and s.events(L.EV_STOP)[0, 3] == L.STOP_EMPTY
        assert s.gstat("depth_exhausted") == 1


# ---------------------------------------------------------------------------------------
# the Council (AB-U1, AMB-A13)
# ---------------------------------------------------------------------------------------

def test_council_takes_the_whole_stack(new_state):
    """AB-U1 the whole stack of one race into the hand; the bot sees only the sizes and
    takes the largest."""
    s = new_state(2).council("jellyfish", [1, 1, 4]).council("crab", [5])
    r = B.choose_council(S.view(s.scr), s.hands[0], s.dat, s.knobs[0], S.bot_rng(s.scr), 0)
    assert r == 0
    K.council(s.scr, s.dat, 0, r)
    assert sorted(s.hand_cards(0)) == [("jellyfish", 1), ("jellyfish", 1), ("jellyfish", 4)]
    assert s.council_sizes() == [0, 1, 0, 0, 0] and s.sstat(0, "council_value") == 6


def test_no_council_action_on_empty_stacks(new_state):
    """AMB-A13 the Council needs a non-empty stack: with no card to reveal, no stack and no
    payable lord the player passes (G-A4)."""
    s = new_state(2).random_bot(0).court(["purple-1"])
    for seed in range(8):
        s.scr[S.X_KEY][0] = np.uint64(seed)
        a = B.choose_action(S.view(s.scr), s.hands[0], s.dat, s.knobs[0], S.bot_rng(s.scr), 0)
        assert a == L.A_PASS
    s.council("crab", [1])
    acts = set()
    for seed in range(8):
        s.scr[S.X_KEY][0] = np.uint64(seed)
        acts.add(int(B.choose_action(S.view(s.scr), s.hands[0], s.dat, s.knobs[0],
                                     S.bot_rng(s.scr), 0)))
    assert acts == {L.A_COUNCIL}


# ---------------------------------------------------------------------------------------
# recruiting (AB-L*)
# ---------------------------------------------------------------------------------------

def payable(s, p: int, name: str) -> bool:
    """Player ``p`` of state ``s`` can pay lord ``name`` from its hand and pearls."""
    return bool(B.lord_payable(s.hands[p], int(s.pl[p, S.PL_PEARLS]), s.a.lords, s.lid(name)))


def test_exactly_n_races_including_the_required_ones(new_state):
    """AB-L1 a lord of N races and required races R is paid with cards of exactly N races,
    every race of R among them; AB-L2 pearls make up missing value, never missing races."""
    s = new_state(2).hand(0, [("seahorse", 5), ("crab", 5), ("kraken", 2)])
    lid = s.lid("yellow-3")                      # 10 VP, cost 10, exactly 2 races, seahorse
    lords = s.a.lords
    ok = B.payment_ok(s.hands[0], s.payment([("seahorse", 5), ("crab", 5)]), 0, 0, lords, lid)
    assert ok == 0
    for bad in ([("seahorse", 5)],                                  # one race
                [("seahorse", 5), ("crab", 5), ("kraken", 2)],      # three races
                [("crab", 5), ("kraken", 2)],                       # no seahorse
                [("seahorse", 5), ("seahorse", 5)]):                # not in the hand
        assert B.payment_ok(s.hands[0], s.payment(bad), 0, 10, lords, lid) == -1
    # value short: pearls top up; no pearls, no purchase
    assert B.payment_ok(s.hands[0], s.payment([("seahorse", 5), ("kraken", 2)]), 0, 3,
                        lords, lid) == 3
    assert B.payment_ok(s.hands[0], s.payment([("seahorse", 5), ("kraken", 2)]), 0, 2,
                        lords, lid) == -1
    assert payable(s, 0, "yellow-3")
    # white-3: all five races, cost 8: four races never do, whatever the pearls
    s.pearls(0, 50)
    assert not payable(s, 0, "white-3")
    s.hand(0, [("jellyfish", 1), ("shellfish", 1)])
    assert payable(s, 0, "white-3")
    # a single coloured bubble: all in that race (purple-1: jellyfish, cost 6)
    s2 = new_state(2).hand(0, [("jellyfish", 1), ("jellyfish", 2), ("crab", 5)])
    assert not payable(s2, 0, "purple-1")
    s2.pearls(0, 3)
    assert payable(s2, 0, "purple-1")


def test_recruit_pays_pearls_to_the_bank_and_affiliates_the_lowest_card(new_state, code):
    """AB-L2 the shortfall in pearls goes to the bank (overpaying gives no refund); AB-L3
    the lowest paid card is kept in front of the player, the rest are discarded."""
    s = new_state(2).court(["purple-1", "red-1", "green-1", "blue-1", "yellow-3", "white-1"])
    s.hand(0, [("seahorse", 4), ("crab", 2), ("crab", 3)]).pearls(0, 2)
    s.recruit(0, "yellow-3", [("seahorse", 4), ("crab", 2), ("crab", 3)])  # 9 + 1 pearl
    assert s.pl[0, S.PL_PEARLS] == 1 and s.gstat("pearls_to_bank") == 1
    assert s.aff(0) == [("crab", 2)]
    assert sorted(s.discards()) == sorted([code(("seahorse", 4)), code(("crab", 3))])
    assert s.hand_cards(0) == [] and s.pl[0, S.PL_LORDS] == 1 and s.pl[0, S.PL_LORD_VP] == 10
    # overpaying: no refund
    s.hand(1, [("jellyfish", 5), ("jellyfish", 4)]).pearls(1, 3)
    s.recruit(1, "purple-1", [("jellyfish", 5), ("jellyfish", 4)])          # 9 for cost 6
    assert s.pl[1, S.PL_PEARLS] == 3 and s.aff(1) == [("jellyfish", 4)]


def test_a_tie_for_the_lowest_card_is_the_players_choice(new_state):
    """AB-L3 several paid cards tie for the lowest: the player picks the race; the heuristic
    keeps the one that raises its affiliated best the most."""
    s = new_state(2).court(["yellow-2", "red-1", "green-1", "blue-1"])
    s.scr[S.X_AFF][0, 1, 4] = 1                       # a Crab 4 already affiliated
    s.hand(0, [("seahorse", 4), ("crab", 4)])
    s.recruit(0, "yellow-2", [("seahorse", 4), ("crab", 4)])               # 8 for cost 8
    assert sorted(s.aff(0)) == [("crab", 4), ("seahorse", 4)]             # seahorse kept
    assert int(s.events(L.EV_AFFILIATE)[0, 3]) == 2
    # both tied races already have better allies: one of them is still kept
    s2 = new_state(2).court(["yellow-2", "red-1", "green-1", "blue-1"])
    s2.scr[S.X_AFF][0, 1, 5] = 1
    s2.scr[S.X_AFF][0, 2, 5] = 1
    s2.hand(0, [("seahorse", 1), ("crab", 1), ("seahorse", 3), ("crab", 3)])
    s2.recruit(0, "yellow-2", [("seahorse", 1), ("crab", 1), ("seahorse", 3), ("crab", 3)])
    assert sorted(s2.aff(0)) == [("crab", 1), ("crab", 5), ("seahorse", 5)]
    assert len(s2.discards()) == 3


def test_court_shift_slot_four_bonus_and_refill(new_state):
    """AB-L4 the other lords shift toward slot 6; when slot 4 is empty (at most 2 lords
    left) the player gains 2 pearls and the Court is refilled to 6; otherwise neither."""
    s = new_state(2).court(["purple-1", "red-1", "green-1", "yellow-1"])
    s.lord_deck(["white-1", "white-2", "white-3", "white-4", "white-5"])
    s.hand(0, [("seahorse", 3), ("seahorse", 3)])
    s.recruit(0, "yellow-1", [("seahorse", 3), ("seahorse", 3)])
    assert s.court_names() == ["purple-1", "red-1", "green-1"]      # 3 left: slot 4 filled
    assert s.pl[0, S.PL_PEARLS] == 0 and s.ps[S.PS_LDECK_N] == 5
    s.hand(1, [("crab", 5), ("crab", 1)])
    s.recruit(1, "red-1", [("crab", 5), ("crab", 1)])
    assert s.pl[1, S.PL_PEARLS] == 2                                 # slot 4 emptied
    assert s.court_names() == ["purple-1", "green-1", "white-1", "white-2", "white-3",
                               "white-4"]
    assert s.ps[S.PS_LDECK_N] == 1 and s.ps[S.PS_REFILL_FAILED] == 0


def test_the_slot_four_bonus_is_paid_only_when_this_purchase_empties_slot_four(new_state):
    """AB-L4 "check whether this purchase freed the fourth place; if so, take two pearls
    and refill": a purchase from a Court whose slot 4 was already empty (a refill the deck
    could not complete left 2 lords) pays no pearls and refills nothing."""
    s = new_state(2).court(["purple-1", "red-1"]).lord_deck([])       # slot 4 empty already
    s.hand(1, [("crab", 5), ("crab", 1)])
    s.recruit(1, "red-1", [("crab", 5), ("crab", 1)])
    assert s.court_names() == ["purple-1"]
    assert s.pl[1, S.PL_PEARLS] == 0                                 # no bonus
    assert s.ps[S.PS_REFILL_FAILED] == 0                            # no refill tried
    # the same purchase when slot 4 held a lord before it: the bonus (and a refill that
    # the empty deck cannot complete, G-A10)
    t = new_state(2).court(["purple-1", "red-1", "green-1"]).lord_deck([])
    t.hand(1, [("crab", 5), ("crab", 1)])
    t.recruit(1, "red-1", [("crab", 5), ("crab", 1)])
    assert t.pl[1, S.PL_PEARLS] == 2 and t.ps[S.PS_REFILL_FAILED] == 1


def test_a_refill_the_deck_cannot_complete_triggers_the_end(new_state):
    """AB-L4 / AB-G1 a Court refill with too few lords in the deck places what is left and
    triggers the end of the game."""
    s = new_state(2).court(["purple-1", "red-1", "yellow-1"]).lord_deck(["white-1"])
    s.hand(0, [("seahorse", 3), ("seahorse", 3)])
    s.recruit(0, "yellow-1", [("seahorse", 3), ("seahorse", 3)])
    assert s.court_names() == ["purple-1", "red-1", "white-1"]
    assert s.ps[S.PS_REFILL_FAILED] == 1 and s.pl[0, S.PL_PEARLS] == 2
    assert K.end_trigger(s.scr, s.dat) == 1 + L.END_COURT


def test_passive_lords_carry_a_key(new_state):
    """AB-L5 a passive lord shows a key; immediate and no-effect lords do not."""
    s = new_state(2).court(["purple-2", "purple-1", "red-1", "green-1"])
    s.hand(0, [("jellyfish", 4), ("crab", 4)])
    s.recruit(0, "purple-2", [("jellyfish", 4), ("crab", 4)])        # passive, cost 8
    assert s.pl[0, S.PL_KEYS] == 1
    s.hand(1, [("jellyfish", 3), ("jellyfish", 3)])
    s.recruit(1, "purple-1", [("jellyfish", 3), ("jellyfish", 3)])   # immediate
    assert s.pl[1, S.PL_KEYS] == 0


# ---------------------------------------------------------------------------------------
# locations (AB-K*)
# ---------------------------------------------------------------------------------------

def tile(s, vp: int, skip=()) -> int:
    """A location tile index of state ``s`` with this VP (not in ``skip``)."""
    return next(i for i, v in enumerate(s.a.locations) if v == vp and i not in skip)


def test_three_keys_take_a_face_up_location_and_cover_the_lords_used(new_state):
    """AB-K1 at the end of the turn 3 keys (tokens + uncovered keyed lords) must take a
    location; AB-K3 (AMB-A10 tokens first) the Key tokens go back to the supply and each
    keyed lord used is covered: it keeps its VP and still counts as owned."""
    s = new_state(2).give_lord(0, "purple-2").give_lord(0, "red-2")
    s.pl[0, S.PL_KEYTOK] = 2
    s.ps[S.PS_KEY_SUPPLY] = 8
    t10 = tile(s, 10)
    s.locations(face_up=[t10], stack=[tile(s, 5)])
    K.locations(s.scr, s.dat, 0)
    assert s.pl[0, S.PL_LOCS] == 1 and s.pl[0, S.PL_LOC_VP] == 10
    assert s.pl[0, S.PL_KEYTOK] == 0 and s.ps[S.PS_KEY_SUPPLY] == 10
    assert list(s.scr[S.X_PCOV][0, :2]) == [1, 0]              # one lord covered
    assert s.pl[0, S.PL_KEYS] == 1 and s.pl[0, S.PL_LORDS] == 2
    assert s.pl[0, S.PL_LORD_VP] == 12
    assert s.ps[S.PS_LVIS_N] == 0


def test_two_keys_take_nothing(new_state):
    """AB-K1 fewer than 3 keys: no location."""
    s = new_state(2).give_lord(0, "purple-2")
    s.pl[0, S.PL_KEYTOK] = 1
    s.locations(face_up=[tile(s, 10)])
    K.locations(s.scr, s.dat, 0)
    assert s.pl[0, S.PL_LOCS] == 0


def test_drawing_n_keeps_one_and_turns_the_rest_face_up(new_state):
    """AB-K2 name n, draw n tiles, keep one; the rest join the face-up locations."""
    s = new_state(2)
    s.pl[0, S.PL_KEYTOK] = 3
    t5 = tile(s, 5)
    stack = [tile(s, 6), tile(s, 10), tile(s, 7), tile(s, 8)]
    s.locations(face_up=[t5], stack=stack)
    K.locations(s.scr, s.dat, 0)                # draws (face-up 5 < expected best)
    ev = s.events(L.EV_LOCATION)
    assert ev[0, 3] >= 1 and s.pl[0, S.PL_LOC_VP] == max(
        s.a.locations[t] for t in stack[:ev[0, 3]])
    assert s.ps[S.PS_LVIS_N] == 1 + ev[0, 3] - 1


@pytest.mark.parametrize("policy,covered,tokens_left", [("tokens_first", 1, 0),
                                                        ("lords_first", 2, 1)])
def test_key_spend_policy(policy, covered, tokens_left, new_state):
    """AMB-A10 `keys.spend_policy`: Key tokens first, or keyed lords first."""
    s = new_state(2, [f"keys.spend_policy={policy}"]).give_lord(0, "purple-2")
    s.give_lord(0, "red-2")
    s.pl[0, S.PL_KEYTOK] = 2
    s.locations(face_up=[tile(s, 10)])
    K.locations(s.scr, s.dat, 0)
    assert int(s.scr[S.X_PCOV][0, :2].sum()) == covered
    assert s.pl[0, S.PL_KEYTOK] == tokens_left


@pytest.mark.parametrize("multi,locs", [(True, 2), (False, 1)])
def test_six_keys(multi, locs, new_state):
    """AMB-A10 `keys.multi_location`: with 6 keys, two locations in one turn (or one, the
    other 3 keys kept)."""
    s = new_state(2, [f"keys.multi_location={str(multi).lower()}"])
    s.pl[0, S.PL_KEYTOK] = 6
    s.locations(face_up=[tile(s, 10), tile(s, 9)])
    K.locations(s.scr, s.dat, 0)
    assert s.pl[0, S.PL_LOCS] == locs and s.pl[0, S.PL_KEYTOK] == 6 - 3 * locs


def test_no_location_left_keeps_the_keys(new_state):
    """AMB-A11 no tile face up or in the stack: the keys stay unused."""
    s = new_state(2).locations()
    s.pl[0, S.PL_KEYTOK] = 3
    K.locations(s.scr, s.dat, 0)
    assert s.pl[0, S.PL_LOCS] == 0 and s.pl[0, S.PL_KEYTOK] == 3


# ---------------------------------------------------------------------------------------
# the end (AB-G*)
# ---------------------------------------------------------------------------------------

def test_seven_lords_trigger_the_end(new_state):
    """AB-G1 a player owning 7 lords (covered ones count) triggers the end."""
    s = new_state(3)
    for i, name in enumerate(["purple-1", "purple-2", "purple-3", "red-1", "red-2", "red-3"]):
        s.give_lord(1, name, covered=i < 2)
    assert K.end_trigger(s.scr, s.dat) == 0
    s.give_lord(1, "red-4", covered=True)
    assert K.end_trigger(s.scr, s.dat) == 1 + L.END_LORDS
    s.ps[S.PS_REFILL_FAILED] = 1
    assert K.end_trigger(s.scr, s.dat) == 1 + L.END_BOTH


def test_after_the_trigger_every_other_player_takes_one_last_turn():
    """AB-G2 after the triggering turn each other player plays once more, clockwise; the
    trigger player does not play again."""
    from deepsim.rulesets.abyss import RULESET
    prep = RULESET.prepare({"name": "g", "ruleset": "abyss", "players": 4, "seed": 3,
                            "games": 5, "bots": ["courtier", "merchant", "hunter"]})
    for game in range(5):
        lines = RULESET.trace(prep, game)
        k = next(i for i, ln in enumerate(lines) if ln.startswith("END TRIGGER"))
        before = [ln for ln in lines[:k] if ln.startswith("turn ")]
        after = [ln for ln in lines[k:] if ln.startswith("turn ")]
        seat = int(before[-1].split("seat ")[1].split(" ")[0])
        assert [int(a.split("seat ")[1].split(" ")[0]) for a in after] == [
            (seat - 1 + i) % 4 + 1 for i in range(1, 4)]


def score(s, n: int):
    """Final scoring of state ``s``: its game and first ``n`` seats' rows."""
    gi, gf, si, sf = out_arrays()
    s.ps[S.PS_TURN] = 10
    K.final_scoring(s.scr, s.dat, 0, gi, gf, si, sf)
    return gi[0], gf[0], si[0, :n], sf[0, :n]


@pytest.mark.parametrize("reading,added", [("lowest", [("crab", 2), ("kraken", 1)]),
                                           ("highest", [("crab", 5), ("kraken", 1)])])
def test_final_affiliation(reading, added, new_state):
    """AB-G3 / AMB-A3 before scoring one hand card per race joins the affiliated allies:
    the lowest (literal) or the highest."""
    s = new_state(2, [f"end.final_affiliation={reading}"])
    s.hand(0, [("crab", 2), ("crab", 5), ("kraken", 1)])
    score(s, 2)
    assert sorted(s.aff(0)) == sorted(added)


def test_scoring_counts_lords_locations_best_ally_per_race_and_monsters(new_state):
    """AB-G4 score = lords' VP (covered too) + locations' VP + the highest affiliated ally
    of each race + Monster tokens."""
    s = new_state(2).give_lord(0, "yellow-5").give_lord(0, "purple-2", covered=True)
    s.pl[0, S.PL_LOC_VP] = 9
    s.scr[S.X_AFF][0, 1, 2] = 1
    s.scr[S.X_AFF][0, 1, 4] = 1                     # crab: best 4
    s.scr[S.X_AFF][0, 3, 1] = 1                     # shellfish 1
    s.ph[0, S.PH_MVP] = 5
    g, _, si, sf = score(s, 2)
    assert si[0, L.S_SCORE] == 12 + 6 + 9 + 5 + 5
    assert si[0, L.S_ALLY_VP] == 5 and si[0, L.S_MONSTER_VP] == 5
    assert sf[0, L.SF_WIN] == 1.0 and sf[1, L.SF_WIN] == 0.0 and g[L.G_WINNER_SEAT] == 0


def test_tie_breaks_pearls_then_lords_by_cost_then_shared(new_state):
    """AB-G5 level scores: the most pearls wins; then the most expensive lord (cost value,
    AMB-A15), the second, ...; level throughout: a shared win."""
    def level():
        s = new_state(3)
        for p, names in enumerate([["yellow-5", "purple-1"], ["yellow-5", "purple-1"],
                                   ["purple-1", "purple-1"]]):
            for n in names:
                s.give_lord(p, n)
        s.pl[2, S.PL_LOC_VP] = 7                     # seat 3 level on score too
        return s
    s = level()
    s.pearls(1, 2)
    g, _, _, sf = score(s, 3)
    assert g[L.G_TIEBREAK] == L.TB_PEARLS and list(sf[:, 0]) == [0, 1, 0]
    s = level()
    g, _, _, sf = score(s, 3)                        # seats 1-2 have cost 12 > seat 3's 6
    assert g[L.G_TIEBREAK] == L.TB_SHARED and list(sf[:, 0]) == [0.5, 0.5, 0]
    s = level()
    s.scr[S.X_PLORD][1, 1] = s.lid("red-1")          # same VP and cost as purple-1: level
    g, _, _, sf = score(s, 3)
    assert g[L.G_N_WINNERS] == 2
    s = level()
    s.scr[S.X_PLORD][1, 0] = s.lid("purple-5")       # seat 2's best lord costs 12 too, its
    s.scr[S.X_PLORD][1, 1] = s.lid("red-2")          # second 8 > 6: the lords decide
    g, _, _, sf = score(s, 3)
    assert g[L.G_TIEBREAK] == L.TB_LORDS and list(sf[:, 0]) == [0, 1, 0]


def test_tiebreak_by_lord_vp(new_state):
    """AMB-A15 `end.tiebreak_lord_metric: vp` compares the lords' VP instead of cost."""
    for metric, winner in (("cost_value", 0), ("vp", 1)):
        s = new_state(2, [f"end.tiebreak_lord_metric={metric}"])
        s.give_lord(0, "purple-5")                   # cost 12, VP 10
        s.give_lord(1, "yellow-6")                   # cost 11, VP 11
        s.pl[0, S.PL_LOC_VP] = 1                     # level scores: 11 and 11
        g, _, _, sf = score(s, 2)
        assert g[L.G_TIEBREAK] == L.TB_LORDS and sf[winner, 0] == 1.0


# ---------------------------------------------------------------------------------------
# further readings (AMB-A14, AMB-A16)
# ---------------------------------------------------------------------------------------

def test_hand_limit(new_state):
    """AMB-A14 `hand_limit`: 0 = none; k > 0 discards down to k at the end of the turn,
    lowest values first (G-A5)."""
    s = new_state(2, ["hand_limit=2"]).hand(0, [("crab", 5), ("crab", 1), ("kraken", 2)])
    K.hand_limit(s.scr, s.dat, 0)
    assert sorted(s.hand_cards(0)) == [("crab", 5), ("kraken", 2)]
    s0 = new_state(2).hand(0, [("crab", 5)] * 30)
    K.hand_limit(s0.scr, s0.dat, 0)
    assert len(s0.hand_cards(0)) == 30


def test_a_finite_pearl_bank(new_state):
    """AMB-A16 `pearl_supply`: a finite bank pays what it has (the last-slot pearl here)."""
    s = new_state(2, ["pearl_supply=0"]).deck([("crab", 1)] * 5)
    s.ps[S.PS_BANK] = 0
    s.explore(0)
    assert s.pl[0, S.PL_PEARLS] == 0 and len(s.hand_cards(0)) == 1
    s.ps[S.PS_BANK] = 3
    s.pearls(0, 2)
    K.pay_bank(s.scr, 0, 2)
    assert s.ps[S.PS_BANK] == 5


# ---- bots: buying after the final turn, drawing 2 or 3 locations -------------------------------

def test_bots_buy_after_their_final_turn_when_it_raises_the_final_affiliation(new_state, code):
    """Bots (AB-G2 the rules let a player buy in the others' last turns; AB-G3 one hand card
    per race joins the affiliated allies): after its final turn the heuristic buys an ally
    of a race missing from its hand that beats its best affiliated ally of that race, and
    nothing that cannot count (a race it holds a lower card of, under the lowest-card
    reading; no better than its affiliated best)."""
    from deepsim.rulesets.abyss import bots as BT
    s = new_state(3).deck([("crab", 4), ("kraken", 3), ("jellyfish", 2)])
    for p in range(3):
        s.pearls(p, 5)
    s.hand(1, [("kraken", 1)])                           # kraken 3 would not be affiliated
    s.scr[S.X_AFF][1, RACE["jellyfish"], 4] = 1          # a jellyfish 4 affiliated already
    s.pearls(2, 0)                                       # seat 2 cannot buy
    s.ps[S.PS_FINAL] = 1
    s.ps[S.PS_TRIGGER_SEAT] = 2
    s.pl[1, S.PL_DONE] = 1                               # seat 1 has played its last turn
    s.set_knobs(0, take_min=1e9)
    V = S.view(s.scr)
    assert BT.final_gain(V, s.hands[1], s.dat, 1, code(("crab", 4))) == 4
    assert BT.final_gain(V, s.hands[1], s.dat, 1, code(("kraken", 3))) == 0
    assert BT.final_gain(V, s.hands[1], s.dat, 1, code(("jellyfish", 2))) == 0
    s.explore(0)
    bought = [(int(r[3]), int(r[4])) for r in s.events(L.EV_OFFER) if r[6] == L.OF_BUY]
    assert bought == [(1, code(("crab", 4)))]
    assert s.sstat(1, "buys_after_final") == 1
    hi = new_state(3, overrides=("end.final_affiliation=highest",)).hand(1, [("kraken", 1)])
    V = S.view(hi.scr)
    assert BT.final_gain(V, hi.hands[1], hi.dat, 1, code(("kraken", 3))) == 2


def test_a_location_draw_weighs_only_what_it_adds_to_the_face_up_tiles(new_state):
    """Bots (AB-K2: draw n, keep one, the rest face up): the tiles turned face up are a
    gift to the others only where they beat the best tile already face up; so with a good
    tile showing, drawing 2 or 3 can be the best choice (it never was when every second
    best counted as a gift)."""
    from deepsim.rulesets.abyss import bots as BT
    wi = np.zeros(64, np.int64)
    vals = [5, 6, 7, 8, 9, 10]
    wi[:6] = vals
    _, gift = BT.draw_values(wi, 0, 6, 2, 0.0)
    assert gift == pytest.approx(np.mean([min(a, b) for i, a in enumerate(vals)
                                          for b in vals[i + 1:]]))
    _, gift8 = BT.draw_values(wi, 0, 6, 2, 8.0)
    assert gift8 == pytest.approx(1 / 15)               # only the pair (9, 10) adds a point
    # near the end of the stack: three tiles left unseen (5, 9, 10), an 8 face up, the rest
    # owned. Drawing all three keeps the 10 and shows only a 9 (worth 1 more than the 8 to
    # the others): the best choice; counting the whole second best as a gift it was the 8
    locs = [int(v) for v in new_state(2).a.locations]
    pick = {v: [t for t in range(len(locs)) if locs[t] == v] for v in set(locs)}
    stack = [pick[5][0], pick[9][0], pick[10][0]]
    shown = pick[8][0]
    owned = [t for t in range(len(locs)) if t not in stack + [shown]]
    u = new_state(2).locations(face_up=[shown], stack=stack).set_knobs(0, loc_gift=0.3)
    u.scr[S.X_PLOC][1, :len(owned)] = owned
    u.pl[1, S.PL_LOCS] = len(owned)
    choice = int(BT.choose_location(S.view(u.scr), u.hands[0], u.dat, u.knobs[0],
                                    K.bot_rng(u.scr), 0))
    assert choice == -3
