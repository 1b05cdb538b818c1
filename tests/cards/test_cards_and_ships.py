"""Given/when/then: playing cards, points, ships (C-CARD, C-SCORE, C-SHIP)."""

from __future__ import annotations

from domain.cards import (
    BuildShip,
    Decline,
    Pass,
    PlaceLeader,
    PlayCard,
    PlayCatastrophe,
    PointScored,
    ShipBuilt,
    TakePoint,
    build,
    display_text,
    legal_commands,
    pending,
)
from domain.cards.model import Card
from domain.common.colours import Colour
from domain.common.errors import NotAwaited
from tests.cards.helpers import awaiting, decision, play, refused

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


# rule C-CARD-1
def test_a_card_goes_below_the_lowest_card_of_a_column_of_fewer_than_eight() -> None:
    state = build("c0: T k r\nc1: T k r b g k r b g", hands={0: "gg"})
    after, _ = play(state, PlayCard(0, G, column=0))
    assert display_text(after).splitlines()[0] == "c0: T k r g"
    after, _ = play(state, PlayCard(0, G, column=2))
    assert display_text(after).splitlines()[2] == "c2: T g"  # directly below the treasure*
    refused(state, PlayCard(0, G, column=1), "C-CARD-1")  # 8 cards below the treasure*


# rule C-CARD-2
def test_a_bridge_needs_an_empty_slot_and_three_cards_on_both_sides() -> None:
    state = build("c0: T k r b\nc1: T k r b\nc2: T k r\nc3: T k r b\nb2: g", hands={0: "gg"})
    after, _ = play(state, PlayCard(0, G, bridge=0))
    assert after.bridges[0] is Card.GREEN
    refused(state, PlayCard(0, G, bridge=1), "C-CARD-2")  # column 2 holds only 2 cards
    refused(state, PlayCard(0, G, bridge=2), "C-CARD-2")  # the slot is taken
    refused(state, PlayCard(0, G, bridge=4), "C-CARD-2")


# rule C-SCORE-1
def test_the_owner_of_the_matching_leader_may_score_from_hand_even_when_not_active() -> None:
    state = build("c0: T r:1g", hands={0: "g", 1: "gk"})
    offered, _ = play(state, PlayCard(0, G, column=0))
    assert pending(offered) == {
        "kind": "cards",
        "awaiting": [1],
        "decision": "point",
        "colour": "green",
        "reason": "card",
    }
    refused(offered, TakePoint(0, G), "C-SCORE-1", NotAwaited)  # not seat 0's point
    refused(offered, TakePoint(1, K), "C-SCORE-1")  # only the colour of the card
    taken, events = play(offered, TakePoint(1, G))
    assert PointScored(1, G) in events and taken.vp[1] == (Card.GREEN,) and taken.hands[1][3] == 0
    declined, _ = play(offered, Decline(1))
    assert declined.vp[1] == () and declined.hand_size(1) == 2


# rule C-SCORE-1
def test_a_point_needs_a_card_of_that_colour_in_hand() -> None:
    state = build("c0: T r:1g", hands={0: "g", 1: "k"})
    offered, _ = play(state, PlayCard(0, G, column=0))
    assert list(legal_commands(offered, 1)) == [Decline(1)]
    refused(offered, TakePoint(1, G), "C-SCORE-1")
    empty = build("c0: T r:1g", hands={0: "g"})  # an empty hand: nothing to offer
    after, _ = play(empty, PlayCard(0, G, column=0))
    assert decision(after) == "action"


# rule C-SCORE-2
def test_the_king_is_a_joker_only_without_a_leader_of_the_colour() -> None:
    state = build("c0: T k:1k", hands={0: "bb", 1: "bb"})
    offered, _ = play(state, PlayCard(0, B, column=0))
    assert awaiting(offered) == [1] and pending(offered)["colour"] == "blue"
    with_farmer = build("c0: T k:1k r:0b", hands={0: "bb", 1: "bb"})
    offered, _ = play(with_farmer, PlayCard(0, B, column=0))
    assert awaiting(offered) == [0]  # the farmer's owner, not the king's
    no_king = build("c0: T r:1r", hands={0: "bb", 1: "bb"})
    after, _ = play(no_king, PlayCard(0, B, column=0))
    assert decision(after) == "action"


# rule C-SCORE-3
def test_a_bridge_card_scores_nothing() -> None:
    state = build("c0: T b:0b k b\nc1: T k k k", hands={0: "bb"})
    bridged, _ = play(state, PlayCard(0, B, bridge=0))
    assert decision(bridged) == "action" and bridged.vp[0] == ()
    column, _ = play(state, PlayCard(0, B, column=0))
    assert decision(column) == "point"


# rule C-SHIP-1
def test_four_in_a_run_offer_a_ship_blue_any_other_colour_its_own() -> None:
    blue = build("c0: T b b b", hands={0: "b"})
    offered, _ = play(blue, PlayCard(0, B, column=0))
    assert pending(offered) == {
        "kind": "cards",
        "awaiting": [0],
        "decision": "ship",
        "column": 0,
        "ships": ["black", "red", "green"],
        "run": "blue",
    }
    green = build("c0: T g g g", hands={0: "g"})
    offered, _ = play(green, PlayCard(0, G, column=0))
    assert pending(offered)["ships"] == ["green"]
    refused(offered, BuildShip(0, R), "C-SHIP-1")
    gone = build("c0: T g g g", hands={0: "g"}, ships=(Card.SHIP_BLACK, Card.SHIP_RED))
    after, _ = play(gone, PlayCard(0, G, column=0))
    assert decision(after) == "action"  # the blue-green ship is built already
    for text in ("c0: T g g", "c0: T g g b g", "c0: T g g g Sk"):
        after, _ = play(build(text, hands={0: "g"}), PlayCard(0, G, column=0))
        assert decision(after) == "action", text  # no run of four (ships break runs)
    treasure_run = build("c0: T r r r", hands={0: "r"})
    after, _ = play(treasure_run, PlayCard(0, R, column=0))
    assert decision(after) == "ship"  # four red below the treasure*


# rule C-SHIP-1
def test_the_treasure_star_does_not_count_in_a_run() -> None:
    state = build("c0: r r r", hands={0: "r"})  # a swapped treasure* and two red cards
    after, _ = play(state, PlayCard(0, R, column=0))
    assert decision(after) == "action"


# rule C-SHIP-2
def test_building_a_ship_replaces_the_lowest_four_and_sends_their_leaders_home() -> None:
    state = build("c0: T b b b:1r b b:1g", hands={0: "b", 1: "k"})
    state, _ = play(state, PlaceLeader(0, K, column=0, depth=1))
    offered, _ = play(state, PlayCard(0, B, column=0))
    assert decision(offered) == "ship"
    built, events = play(offered, BuildShip(0, K))
    assert ShipBuilt(0, K, 0) in events
    assert display_text(built).splitlines()[0] == "c0: T b:0k b Sk"
    assert built.leader_spot(1, R) == -1 and built.leader_spot(1, G) == -1
    assert built.discard == (0, 0, 4, 0) and Card.SHIP_BLACK not in built.ships
    declined, _ = play(offered, Decline(0))
    assert declined.columns[0].count(Card.BLUE) == 6


# rule C-SHIP-3
def test_cards_go_below_a_ship_but_no_leader_on_it_and_no_catastrophe_on_it() -> None:
    state = build("c0: T k Sr", hands={0: "k"})
    after, _ = play(state, PlayCard(0, K, column=0))
    assert display_text(after).splitlines()[0] == "c0: T k Sr k"
    refused(state, PlaceLeader(0, K, column=0, depth=2), "C-SHIP-3")
    refused(state, PlayCatastrophe(0, column=0, depth=2), "C-SHIP-3")
    play(state, PlayCatastrophe(0, column=0, depth=1))


# rule C-SHIP-4
def test_the_point_comes_before_the_ship() -> None:
    state = build("c0: T:0b b b b", hands={0: "bb"})
    offered, _ = play(state, PlayCard(0, B, column=0))
    assert decision(offered) == "point"
    after, _ = play(offered, TakePoint(0, B))
    assert decision(after) == "ship"
    refused(offered, BuildShip(0, K), "C-SCORE-1", NotAwaited)


# rule C-SHIP-5
def test_ship_points_at_the_end_of_the_own_turn_per_leader_without_king_joker() -> None:
    text = "c0: T k:0k Sk\nc1: T r:0b\nc2: T Sg g:0r\nc3: T r:1b Sr"
    state = build(text, hands={0: "kkbbr", 1: "bb"})
    end, _ = play(state, Pass(0))
    # king with the blue-black ship; the priest's kingdom has a blue-green ship: no point
    assert pending(end) == {
        "kind": "cards",
        "awaiting": [0],
        "decision": "ship_points",
        "colours": ["black"],
    }
    refused(end, TakePoint(0, R), "C-SHIP-5")
    after, _ = play(end, TakePoint(0, K))
    assert after.active == 1 and after.vp[0] == (Card.BLACK,)
    # seat 1's farmer next to the blue-red ship scores at the end of seat 1's turn only
    after, _ = play(after, Pass(1))
    assert pending(after)["colours"] == ["blue"]
    declined, _ = play(after, Decline(1))
    assert declined.active == 0 and declined.vp[1] == ()
