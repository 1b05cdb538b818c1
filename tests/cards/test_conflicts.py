"""Given/when/then: catastrophes, revolts, joins, wars and the trader
(C-CAT, C-REVOLT, C-JOIN, C-WAR, C-TRADER)."""

from __future__ import annotations

from domain.cards import (
    ChooseWar,
    CommitCards,
    ConflictResolved,
    Decline,
    PlaceLeader,
    PlayCard,
    PlayCatastrophe,
    SwapTreasure,
    TakePoint,
    build,
    display_text,
    legal_commands,
    pending,
    view,
)
from domain.cards.display import regions
from domain.cards.model import Card, Options
from domain.common.colours import Colour
from domain.common.errors import NotAwaited
from tests.cards.helpers import awaiting, decision, play, refused

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


# rule C-CAT-1
def test_catastrophe_removes_one_free_card_once_per_game() -> None:
    state = build("c0: T k:1k r b\nc1: T k r b\nb0: g", hands={0: "k"})
    after, _ = play(state, PlayCatastrophe(0, column=0, depth=2))
    assert after.destroyed == (Card.RED,) and after.catastrophes == (False, True)
    bridged, _ = play(state, PlayCatastrophe(0, bridge=0))  # a joining card may go
    assert bridged.bridges[0] is None
    refused(after, PlayCatastrophe(0, column=0, depth=2), "C-CAT-1")  # used already
    refused(state, PlayCatastrophe(0, column=0, depth=1), "C-CAT-1")  # a leader stands there
    refused(state, PlayCatastrophe(0, column=0, depth=0), "C-CAT-1")  # a treasure*
    refused(build("c0: r k"), PlayCatastrophe(0, column=0, depth=0), "C-CAT-1")  # swapped treasure*
    refused(build("c0: T k Sk"), PlayCatastrophe(0, column=0, depth=2), "C-SHIP-3")
    refused(state, PlayCatastrophe(0, column=0, depth=4), "C-CAT-1")  # no card there


# rule C-CAT-2
def test_catastrophe_gaps_close_upward_and_kingdoms_may_split() -> None:
    state = build("c0: T k:0k r b:1b\nc1: T g:1g r b\nb0: b")
    after, _ = play(state, PlayCatastrophe(0, column=0, depth=2))
    assert display_text(after).splitlines()[0] == "c0: T k:0k b:1b"
    assert regions(after)[0] == regions(after)[1]  # still joined by the bridge
    split, _ = play(state, PlayCatastrophe(0, bridge=0))
    assert regions(split)[0] != regions(split)[1]


# rule C-REVOLT-1
def test_revolt_attacker_is_the_active_player_defender_the_leader_already_there() -> None:
    state = build("c0: T k:2r b", seats=3, active=1, hands={1: "rr", 2: "r"})
    revolt, _ = play(state, PlaceLeader(1, R, column=0, depth=2))
    assert revolt.conflict is not None
    assert (revolt.conflict.attacker, revolt.conflict.defender) == (1, 2)
    assert awaiting(revolt) == [1]  # the attacker commits first
    refused(revolt, CommitCards(2, 0), "C-REVOLT-3", NotAwaited)


# rule C-REVOLT-2
def test_revolt_counts_red_cards_only_plus_one_for_a_leader_on_a_red_card() -> None:
    state = build("c0: T r:1k b k", hands={0: "rrkk", 1: "rk"})
    revolt, _ = play(state, PlaceLeader(0, K, column=0, depth=3))
    assert [c.count for c in legal_commands(revolt, 0)] == [0, 1, 2]  # type: ignore[union-attr]
    refused(revolt, CommitCards(0, 3), "C-REVOLT-2")  # only two red cards in hand
    attack, _ = play(revolt, CommitCards(0, 2))
    assert pending(attack)["conflict"]["attacker_strength"] == 2  # on a black card: no bonus
    assert pending(attack)["conflict"]["defender_strength"] == 1  # on a red card: +1
    _, events = play(attack, CommitCards(1, 1))
    outcome = next(e for e in events if isinstance(e, ConflictResolved))
    assert (outcome.attacker_strength, outcome.defender_strength) == (2, 2)
    # the record splits each strength as the board game's does: base plus committed
    assert (outcome.attacker_base, outcome.attacker_committed) == (0, 2)
    assert (outcome.defender_base, outcome.defender_committed) == (1, 1)
    assert (outcome.winner, outcome.loser) == (1, 0)  # a tie goes to the defender


# rule C-REVOLT-3
def test_revolt_higher_wins_and_a_tie_goes_to_the_defender() -> None:
    state = build("c0: T k:1g b", hands={0: "rr", 1: "rr"})
    revolt, _ = play(state, PlaceLeader(0, G, column=0, depth=2))
    attack, _ = play(revolt, CommitCards(0, 1))
    tie, _ = play(attack, CommitCards(1, 1))
    assert tie.leader_spot(1, G) >= 0 and tie.leader_spot(0, G) == -1
    win, _ = play(attack, CommitCards(1, 0))
    assert win.leader_spot(0, G) >= 0 and win.leader_spot(1, G) == -1


# rule C-REVOLT-4
def test_revolt_winner_keeps_one_played_red_card_others_discarded() -> None:
    state = build("c0: T k:1g b", hands={0: "rrr", 1: "rr"})
    revolt, _ = play(state, PlaceLeader(0, G, column=0, depth=2), CommitCards(0, 3))
    done, _ = play(revolt, CommitCards(1, 2))
    assert done.vp == ((Card.RED,), ()) and done.discard == (0, 4, 0, 0)
    assert decision(done) == "action" and done.actions_left == 1


# rule C-REVOLT-4
def test_revolt_without_cards_the_winner_may_score_a_red_card_from_hand() -> None:
    state = build("c0: T k:1g b", hands={0: "k", 1: "rk"})
    revolt, _ = play(state, PlaceLeader(0, G, column=0, depth=2), CommitCards(0, 0))
    done, _ = play(revolt, CommitCards(1, 0))
    assert pending(done) == {
        "kind": "cards",
        "awaiting": [1],
        "decision": "point",
        "colour": "red",
        "reason": "conflict",
    }
    refused(done, TakePoint(1, K), "C-REVOLT-4")
    took, _ = play(done, TakePoint(1, R))
    assert took.vp[1] == (Card.RED,) and decision(took) == "action"
    declined, _ = play(done, Decline(1))
    assert declined.vp[1] == ()


JOIN = "c0: T g:0g g k\nc1: T k:0r r b\nc2: T g:1g r r\nc3: T k:1r b r:1k\nb0: k\nb2: k"


# rule C-JOIN-1
def test_a_join_lays_the_bridge_face_down_and_every_doubled_colour_is_a_war() -> None:
    state = build(JOIN, hands={0: "b", 1: "g"})
    joined, _ = play(state, PlayCard(0, B, bridge=1))
    assert joined.face_down == 1
    assert pending(joined) == {
        "kind": "cards",
        "awaiting": [0],
        "decision": "choose_war",
        "colours": ["red", "green"],
    }
    assert view(joined, 1)["display"]["bridges"][1]["card"] == "face-down"
    quiet = build("c0: T g:0g g k\nc1: T k r b\nc2: T k:1k r r", hands={0: "b"})
    after, _ = play(quiet, PlayCard(0, B, bridge=1))  # no colour twice: no war
    assert decision(after) == "action" and after.face_down == -1


# rule C-WAR-1
def test_the_active_player_chooses_the_order_of_the_wars() -> None:
    state = build(JOIN, hands={0: "b", 1: "g"})
    joined, _ = play(state, PlayCard(0, B, bridge=1))
    refused(joined, ChooseWar(0, B), "C-WAR-1")  # no blue war
    refused(joined, ChooseWar(1, R), "C-WAR-1", NotAwaited)
    refused(joined, Decline(0), "C-WAR-1", NotAwaited)
    red, _ = play(joined, ChooseWar(0, R))
    assert red.conflict is not None and red.conflict.colour is R
    green, _ = play(joined, ChooseWar(0, G))
    assert green.conflict is not None and green.conflict.colour is G


# rule C-WAR-2
def test_the_attacker_is_the_active_player_or_the_nearest_clockwise() -> None:
    text = "c0: T g:2g g k\nc1: T k r b\nc2: T g:3g r r\nc3: T k r b\nb0: k"
    state = build(text, seats=4, active=0, hands={0: "b"})
    joined, _ = play(state, PlayCard(0, B, bridge=1))
    assert joined.conflict is not None and (joined.conflict.attacker, joined.conflict.defender) == (
        2,
        3,
    )
    state = build(text, seats=4, active=3, hands={3: "b"})
    joined, _ = play(state, PlayCard(3, B, bridge=1))
    assert joined.conflict is not None and (joined.conflict.attacker, joined.conflict.defender) == (
        3,
        2,
    )
    state = build(
        text.replace(":2g", ":3x").replace(":3g", ":1g").replace(":3x", ":3g"),
        seats=4,
        active=2,
        hands={2: "b"},
    )
    joined, _ = play(state, PlayCard(2, B, bridge=1))
    assert joined.conflict is not None and joined.conflict.attacker == 3  # 3 before 1 from seat 2


# rule C-WAR-3
def test_war_strength_is_played_cards_plus_own_side_cards_of_the_colour_ships_never() -> None:
    text = "c0: T:0r r r Sr\nc1: T k b r\nc2: r:1r r g k\nc3: T k b b\nb0: r"
    state = build(text, hands={0: "rk", 1: "rr"})
    joined, _ = play(state, PlayCard(0, K, bridge=1))
    conflict = pending(joined)["conflict"]
    # seat 0's side, columns 0-1 and bridge 0: two treasures (as red), r, r, r, bridge r = 6;
    # the blue-red ship does not count
    assert conflict["attacker_strength"] == 6
    assert conflict["defender_strength"] == 2  # swapped treasure* (red) and one red card
    refused(joined, CommitCards(0, 2), "C-WAR-3")  # one red card in hand
    after, _ = play(joined, CommitCards(0, 1))
    assert pending(after)["conflict"]["attacker_strength"] == 7


# rule C-WAR-4
def test_war_higher_wins_a_tie_goes_to_the_defender_the_loser_leader_goes_home() -> None:
    text = "c0: T g:0g k k\nc1: T k b b\nc2: T g:1g k k\nc3: T k b b\nb0: k"
    state = build(text, hands={0: "gk", 1: "g"})
    war, _ = play(state, PlayCard(0, K, bridge=1), CommitCards(0, 1))
    tie, _ = play(war, CommitCards(1, 1))
    assert tie.leader_spot(0, G) == -1 and tie.leader_spot(1, G) >= 0
    win, _ = play(war, CommitCards(1, 0))
    assert win.leader_spot(1, G) == -1 and win.leader_spot(0, G) >= 0


# rule C-WAR-5
def test_war_winner_takes_a_played_card_and_the_losers_side_cards_of_the_colour() -> None:
    text = "c0: T:0g g k g:0k\nc1: T g b b\nc2: T:1g g g g\nb0: g"
    state = build(text, hands={0: "gk", 1: "ggg"})
    war, _ = play(state, PlayCard(0, K, bridge=1), CommitCards(0, 1))
    # 1 + 4 (g, the g under the king, g, bridge g) against 3 + 3
    assert pending(war)["conflict"]["attacker_strength"] == 5
    done, _ = play(war, CommitCards(1, 3))
    assert done.leader_spot(0, G) == -1
    # one played card, then the loser's green cards except the one holding seat 0's king
    assert done.vp[1].count(Card.GREEN) == 1 + 3 and done.discard == (0, 0, 0, 3)
    assert display_text(done).splitlines()[:2] == ["c0: T k g:0k", "c1: T b b"]
    assert done.bridges[0] is None  # the green bridge went too
    empty = build(text, hands={0: "gk", 1: "k"})  # 0 + 4 against 0 + 3
    war, _ = play(empty, PlayCard(0, K, bridge=1), CommitCards(0, 0))
    done, _ = play(war, CommitCards(1, 0))
    assert pending(done) == {
        "kind": "cards",
        "awaiting": [0],
        "decision": "point",
        "colour": "green",
        "reason": "conflict",
    }


# rule C-WAR-6
def test_wars_whose_leaders_no_longer_share_a_kingdom_are_void() -> None:
    # green war first: seat 1 loses, column 3's green bridge card goes, column 4 splits off
    text = (
        "c0: T:0r k k\nc1: T:0g k k k\nc2: T k k k\nc3: T:1g g b\nc4: T:1r b b\nb0: k\nb2: k\nb3: g"
    )
    state = build(text, hands={0: "kggg", 1: "k"})
    joined, _ = play(state, PlayCard(0, K, bridge=1))
    assert pending(joined)["colours"] == ["red", "green"]
    green, _ = play(joined, ChooseWar(0, G), CommitCards(0, 3), CommitCards(1, 0))  # 3 against 2
    assert green.leader_spot(1, G) == -1 and green.bridges[3] is None
    # the red leaders are now in separate kingdoms: no red war; the bridge turns face up
    assert decision(green) == "action" and green.face_down == -1 and green.conflict is None
    red_first, _ = play(joined, ChooseWar(0, R))
    assert red_first.conflict is not None and red_first.conflict.colour is R


# rule C-TRADER-1
def test_after_a_join_the_trader_may_swap_all_treasures_but_one_for_red_cards() -> None:
    text = "c0: T k k k\nc1: T:0g k k k\nc2: T b b b\nb0: b"
    state = build(text, hands={0: "rrrk"})
    joined, _ = play(state, PlayCard(0, K, bridge=1))
    assert pending(joined) == {
        "kind": "cards",
        "awaiting": [0],
        "decision": "treasure_swap",
        "bridge": 1,
        "columns": [0, 1, 2],
    }
    once, _ = play(joined, SwapTreasure(0, 1))
    assert once.columns[1][0] is Card.RED and once.vp[0] == (Card.TREASURE,)
    assert once.leader_spot(0, G) >= 0  # the trader stays on the red card
    twice, _ = play(once, SwapTreasure(0, 0))
    assert decision(twice) == "action"  # one treasure must stay
    refused(once, SwapTreasure(0, 1), "C-TRADER-1")  # already swapped
    refused(once, SwapTreasure(0, 5), "C-TRADER-1")  # not in the joined kingdom
    no_red = build(text, hands={0: "kk"})
    joined, _ = play(no_red, PlayCard(0, K, bridge=1))
    refused(joined, SwapTreasure(0, 0), "C-TRADER-1")
    assert list(legal_commands(joined, 0)) == [Decline(0)]


# rule C-TRADER-1: the two readings of the trader (issue 21, point 16; DECISIONS.md 7 and 14)
THREE_TREASURES = "c0: T k k k\nc1: T:0g k k k\nc2: T b b b\nb0: b"


def test_by_default_the_trader_swaps_treasures_until_one_is_left_as_in_the_german_text() -> None:
    # given a game with the default options: a join that puts three treasures in the
    # trader's kingdom, and three red cards in the trader's owner's hand
    state = build(THREE_TREASURES, hands={0: "rrrk"})
    assert state.options.trader_takes_one is False
    joined, _ = play(state, PlayCard(0, K, bridge=1))

    # when the owner swaps one treasure
    once, _ = play(joined, SwapTreasure(0, 1))

    # then a second swap is offered, and after it none (one treasure stays)
    assert pending(once)["decision"] == "treasure_swap"
    assert pending(once)["columns"] == [0, 2]
    twice, _ = play(once, SwapTreasure(0, 0))
    assert decision(twice) == "action" and twice.vp[0] == (Card.TREASURE, Card.TREASURE)


def test_with_trader_takes_one_the_trader_swaps_one_treasure_as_in_the_translations() -> None:
    # given the same join in a game with the variant of the Hungarian and Italian texts
    state = build(THREE_TREASURES, hands={0: "rrrk"}, options=Options(trader_takes_one=True))
    joined, _ = play(state, PlayCard(0, K, bridge=1))
    assert pending(joined)["decision"] == "treasure_swap"  # offered as in the German text
    assert pending(joined)["columns"] == [0, 1, 2]

    # when the owner swaps one treasure
    once, events = play(joined, SwapTreasure(0, 1))

    # then the swap is over: the turn goes on with two treasures left in the kingdom
    assert [type(e).__name__ for e in events] == ["TreasureSwapped"]
    assert decision(once) == "action" and once.vp[0] == (Card.TREASURE,)
    assert [c for c in range(8) if once.columns[c][0] is Card.TREASURE] == [0, 2, 3, 4, 5, 6, 7]
    refused(once, SwapTreasure(0, 0), "C-TURN-1", NotAwaited)  # no swap awaited any more
    assert not any(isinstance(c, SwapTreasure) for c in legal_commands(once, 0))


def test_with_trader_takes_one_the_trader_may_still_decline() -> None:
    state = build(THREE_TREASURES, hands={0: "rrrk"}, options=Options(trader_takes_one=True))
    joined, _ = play(state, PlayCard(0, K, bridge=1))
    declined, _ = play(joined, Decline(0))
    assert decision(declined) == "action" and declined.vp[0] == ()


# rule C-TRADER-1
def test_no_swap_without_a_trader_or_outside_a_join() -> None:
    king = build("c0: T k k k\nc1: T:0k k k k\nc2: T b b b", hands={0: "rrk"})
    joined, _ = play(king, PlayCard(0, K, bridge=1))
    assert decision(joined) == "action"  # the king is no joker here
    column = build("c0: T:0g k k\nc1: T k k k\nb0: k", hands={0: "rrgg"})
    played, _ = play(column, PlayCard(0, G, column=0), TakePoint(0, G))
    assert decision(played) == "action"  # only when kingdoms are joined
    other = build("c0: T k k k\nc1: T:1g k k k\nc2: T b b b", hands={0: "k", 1: "rr"})
    joined, _ = play(other, PlayCard(0, K, bridge=1))
    assert awaiting(joined) == [1]  # the trader's owner decides, active or not
