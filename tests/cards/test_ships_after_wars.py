"""C-SHIP-1 read as the German rulebook has it: a ship is offered as soon as *through* an
action "lay a civilization card" four or more cards of one colour lie directly one below
another in a column — also when the run forms because a war of that action removed the
loser's cards and the gaps closed up. Never after a catastrophe."""

from __future__ import annotations

from domain.cards import (
    BuildShip,
    CommitCards,
    Decline,
    PlayCard,
    PlayCatastrophe,
    State,
    build,
    display_text,
    pending,
)
from domain.cards.model import Card
from domain.common.colours import Colour
from tests.cards.helpers import decision, play, refused

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN

# Seat 0's trader (3 green) beside columns 0-1; seat 1's trader (1 green) on column 2.
# A black card on bridge 1 joins them: a green war that seat 0 wins 3 to 1.
ATTACKER = "c0: T g:0g g g\nc1: T k k k\nb0: k"


def _fight(state: State) -> State:
    """Join on bridge 1, both commit nothing, the winner declines its point and the swap."""
    state, _ = play(state, PlayCard(0, K, bridge=1), CommitCards(0, 0), CommitCards(1, 0))
    while decision(state) in ("point", "treasure_swap"):
        state, _ = play(state, Decline(0))
    return state


# rule C-SHIP-1 rule C-WAR-5
def test_a_war_that_closes_up_a_run_of_four_in_the_losers_column_offers_a_ship() -> None:
    # given the loser's column holds blue, blue, green, blue, blue
    state = build(ATTACKER + "\nc2: T:1g b b g b b", hands={0: "kr", 1: "r"})
    # when the war removes the loser's green card and the gap closes
    after = _fight(state)
    # then four blue cards lie one below another, and the active player is offered a ship
    assert display_text(after).splitlines()[2] == "c2: T b b b b"
    assert pending(after) == {
        "kind": "cards",
        "awaiting": [0],
        "decision": "ship",
        "column": 2,
        "ships": ["black", "red", "green"],
        "run": "blue",
    }
    built, _ = play(after, BuildShip(0, R))
    assert display_text(built).splitlines()[2] == "c2: T Sr"
    assert decision(built) == "action" and Card.SHIP_RED not in built.ships


# rule C-SHIP-1
def test_no_offer_for_a_closed_up_run_whose_own_ship_is_already_built() -> None:
    # given the run that forms is black, and the blue-black ship is built already
    text = ATTACKER + "\nc2: T:1g k k g k k"
    state = build(text, hands={0: "kr", 1: "r"}, ships=(Card.SHIP_RED, Card.SHIP_GREEN))
    # when the war closes it up, then no ship is offered
    after = _fight(state)
    assert display_text(after).splitlines()[2] == "c2: T k k k k"
    assert decision(after) == "action"


# rule C-SHIP-1
def test_two_columns_closing_up_at_once_are_offered_one_after_the_other() -> None:
    # given the loser's kingdom spans columns 2 and 3, each with a green card in a blue run
    text = ATTACKER + "\nc2: T:1g b b g b b\nc3: T b g b b b\nb2: b"
    state = build(text, hands={0: "kr", 1: "r"}, ships=(Card.SHIP_BLACK,))
    after = _fight(state)
    # when the one ship left goes to neither column 2 (declined) ...
    assert (pending(after)["column"], pending(after)["ships"]) == (2, ["black"])
    refused(after, BuildShip(0, G), "C-SHIP-1")
    after, _ = play(after, Decline(0))
    # ... then column 3 is offered it next, and takes it
    assert (pending(after)["column"], pending(after)["ships"]) == (3, ["black"])
    after, _ = play(after, BuildShip(0, K))
    assert display_text(after).splitlines()[2:4] == ["c2: T b b b b", "c3: T Sk"]
    assert decision(after) == "action"
    # and had column 2 taken the ship, column 3 would have had nothing left to take
    first = _fight(state)
    first, _ = play(first, BuildShip(0, K))
    assert decision(first) == "action" and display_text(first).splitlines()[3] == "c3: T b b b b"


# rule C-SHIP-1
def test_a_run_that_existed_before_the_action_is_not_offered_again() -> None:
    # given column 2 already holds four blue (a ship declined earlier) under the green card
    state = build(ATTACKER + "\nc2: T:1g b b b b g", hands={0: "kr", 1: "r"})
    # when the war removes the green card below it, then the run is the same: no offer
    after = _fight(state)
    assert display_text(after).splitlines()[2] == "c2: T b b b b"
    assert decision(after) == "action"


# rule C-SHIP-1 rule C-CAT-2
def test_a_catastrophe_that_closes_up_a_run_never_offers_a_ship() -> None:
    state = build("c0: T b b r b b", hands={0: "k"})
    after, _ = play(state, PlayCatastrophe(0, column=0, depth=3))
    assert display_text(after).splitlines()[0] == "c0: T b b b b"
    assert decision(after) == "action"
