"""The worked examples of the German rulebook (Hans im Glück, 2005) as tests.

Seats follow ``RULES.dynasties`` (lion 0, vase 1, bow 2, bull 3) except in the
war example, whose seating (the lion sits clockwise before the bull, seen from
the vase) is impossible in that order; there the seats are named explicitly.
"""

from __future__ import annotations

from domain.cards import (
    RULES,
    BuildShip,
    ChooseWar,
    CommitCards,
    ConflictResolved,
    Decline,
    Pass,
    PlaceLeader,
    PlayCard,
    PlayCatastrophe,
    SwapTreasure,
    TakePoint,
    build,
    display_text,
    pending,
)
from domain.cards.display import regions
from domain.cards.model import Card, update
from domain.common.colours import Colour
from tests.cards.helpers import awaiting, decision, play

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN
LION, VASE, BOW, BULL = 0, 1, 2, 3


# rule C-SCORE-1
def test_example_trader_point_lion_trader_on_a_red_card_green_card_below() -> None:
    state = build("c2: T r", seats=4, active=LION, hands={LION: "gg"})
    state, _ = play(state, PlaceLeader(LION, G, column=2, depth=1))  # 1st action
    state, _ = play(state, PlayCard(LION, G, column=2))  # 2nd action
    assert pending(state) == {
        "kind": "cards",
        "awaiting": [LION],
        "decision": "point",
        "colour": "green",
        "reason": "card",
    }
    state, _ = play(state, TakePoint(LION, G))
    assert state.vp[LION] == (Card.GREEN,)


# rule C-SCORE-2
def test_example_king_as_joker_two_green_points() -> None:
    state = build("c1: T k:0k b", seats=4, active=LION, hands={LION: "gggg"})
    for _ in range(2):
        state, _ = play(state, PlayCard(LION, G, column=1))
        assert awaiting(state) == [LION]
        state, _ = play(state, TakePoint(LION, G))
    assert state.vp[LION] == (Card.GREEN, Card.GREEN)


# rule C-TRADER-1
def test_example_treasure_swap_after_joining() -> None:
    state = build("c3: T g:0g k r\nc4: T b b k", seats=4, active=LION, hands={LION: "kr"})
    state, _ = play(state, PlayCard(LION, K, bridge=3))  # the black card between the treasures
    assert decision(state) == "treasure_swap" and awaiting(state) == [LION]
    state, _ = play(state, SwapTreasure(LION, 4))
    assert state.vp[LION] == (Card.TREASURE,)  # a joker at the end
    assert display_text(state).splitlines()[4] == "c4: r b b k"
    assert decision(state) == "action"  # one treasure stays


# rule C-CAT-2
def test_example_catastrophe_splits_a_kingdom() -> None:
    state = build("c5: T k:0k r g\nc6: T g g:1g r\nb5: b", seats=4, active=LION, hands={LION: "gg"})
    assert regions(state)[5] == regions(state)[6]
    state, _ = play(state, PlayCatastrophe(LION, bridge=5))  # removes the blue card
    assert state.destroyed == (Card.BLUE,) and state.catastrophes[LION] is False
    assert regions(state)[5] != regions(state)[6]  # two kingdoms again
    state, _ = play(state, PlayCard(LION, G, column=5))
    assert awaiting(state) == [LION]  # the lion's king, no longer the bull's trader


# rule C-REVOLT-3
def test_example_revolt_bow_three_red_against_lion_one_plus_zero() -> None:
    state = build("c0: T r:0g k", seats=4, active=BOW, hands={BOW: "rrrk", LION: "rk"})
    state, _ = play(state, PlaceLeader(BOW, G, column=0, depth=2))  # (A)
    assert pending(state)["conflict"]["defender_strength"] == 1  # the lion's trader on a red card
    state, _ = play(state, CommitCards(BOW, 3))  # (B) 3:1
    state, events = play(state, CommitCards(LION, 0))  # (C) keeps his one red card
    outcome = next(e for e in events if isinstance(e, ConflictResolved))
    assert (outcome.attacker_strength, outcome.defender_strength, outcome.winner) == (3, 1, BOW)
    assert state.vp[BOW] == (Card.RED,) and state.discard == (0, 2, 0, 0)  # (D)
    assert state.leader_spot(LION, G) == -1 and state.hands[LION] == (1, 1, 0, 0)  # (E)


# rule C-WAR-5
def test_example_war_lion_3_plus_2_against_bull_1_plus_4() -> None:
    vase, lion, bull, bow = 0, 1, 2, 3  # the example's seating, clockwise from the vase
    text = "\n".join(
        [
            "c0: T:1g g b",  # kingdom 1: the lion's trader, green cards at c0, c1 and bridge 0
            "c1: T g k r:3r",
            "b0: g",
            "c2: r:2g g r:2r k",  # kingdom 2: the bull's trader on a swapped treasure*, 1 green
        ]
    )
    state = build(text, seats=4, active=vase, hands={vase: "g", lion: "gg", bull: "gggg", bow: "k"})
    state, _ = play(state, PlayCard(vase, G, bridge=1))  # (A) joins kingdoms 1 and 2
    assert pending(state)["colours"] == ["red", "green"]  # two external conflicts
    state, _ = play(state, ChooseWar(vase, G))  # the vase is not part of the green one
    assert state.conflict is not None and (state.conflict.attacker, state.conflict.defender) == (
        lion,
        bull,
    )
    assert pending(state)["conflict"]["attacker_strength"] == 3  # 3 green cards in kingdom 1
    state, _ = play(state, CommitCards(lion, 2))  # (B) 5:1
    assert pending(state)["conflict"]["defender_strength"] == 1
    state, events = play(state, CommitCards(bull, 4))  # (C) 5:5, the defender wins
    outcome = next(e for e in events if isinstance(e, ConflictResolved))
    assert (outcome.attacker_strength, outcome.defender_strength, outcome.winner) == (5, 5, bull)
    # (D) one played green card, then the 3 green cards of kingdom 1
    assert state.vp[bull] == (Card.GREEN,) * 4 and state.discard == (0, 0, 0, 5)
    # (E) the blue and the black card move up; the lion's trader goes home; kingdom 1 splits
    assert display_text(state).splitlines()[:3] == ["c0: T b", "c1: T k r:3r", "c2: r:2g g r:2r k"]
    assert state.leader_spot(lion, G) == -1 and state.bridges[0] is None
    assert regions(state)[0] != regions(state)[1]
    # the red conflict is still fought; then the bridge turns face up and no swap follows
    assert decision(state) == "commit" and state.conflict is not None and state.conflict.colour is R
    state, _ = play(
        state, CommitCards(state.conflict.attacker, 0), CommitCards(state.conflict.defender, 0)
    )
    if decision(state) == "point":
        state, _ = play(state, Decline(awaiting(state)[0]))
    assert state.face_down == -1 and decision(state) == "action"  # no treasure swap for the bull


# rule C-SHIP-1
def test_example_ship_fourth_blue_card_blue_black_ship_and_end_of_turn_points() -> None:
    state = build("c5: T:3k r b b b", seats=4, active=BULL, hands={BULL: "bkk", BOW: "bb"})
    state, _ = play(state, PlayCard(BULL, B, column=5))  # the 4th blue card
    assert decision(state) == "point"  # the king is the joker for blue (C-SCORE-2)
    state, _ = play(state, Decline(BULL))
    assert pending(state)["ships"] == ["black", "red", "green"]
    state, _ = play(state, BuildShip(BULL, K))  # the blue-black ship
    assert display_text(state).splitlines()[5] == "c5: T:3k r Sk"
    state, _ = play(state, Pass(BULL))
    assert pending(state) == {
        "kind": "cards",
        "awaiting": [BULL],
        "decision": "ship_points",
        "colours": ["black"],
    }
    state, _ = play(state, TakePoint(BULL, K))  # one more black card at the end of his turn
    assert state.vp[BULL] == (Card.BLACK,) and state.active == LION
    # later a farmer enters the kingdom: its owner scores blue after each own turn
    state = update(state, active=BOW)
    state, _ = play(state, PlaceLeader(BOW, B, column=5, depth=1), Pass(BOW))
    assert pending(state)["colours"] == ["blue"] and awaiting(state) == [BOW]


# rule C-END-3
def test_example_final_table_bow_wins_with_weakest_five_then_lion_bull_vase() -> None:
    piles = {
        BOW: "g" * 5 + "r" * 7 + "b" * 6 + "k" * 5,
        LION: "g" * 6 + "r" * 4 + "b" * 6 + "k" * 6,
        BULL: "g" * 4 + "r" * 9 + "b" * 5 + "k" * 6,
        VASE: "g" * 9 + "r" * 7 + "b" * 8 + "k" * 3,
    }
    state = update(build("", seats=4, vp=piles), over="pile")
    result = RULES.result(state)
    assert result is not None
    assert result["places"] == [[BOW], [LION], [BULL], [VASE]]
    scores = {p["seat"]: (p["score"], p["key"]) for p in result["seats"]}
    assert scores[BOW] == (5, [5, 5, 6, 7]) and scores[LION] == (4, [4, 6, 6, 6])
    assert scores[BULL] == (4, [4, 5, 6, 9]) and scores[VASE] == (3, [3, 7, 8, 9])
