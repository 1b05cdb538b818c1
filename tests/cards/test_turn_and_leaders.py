"""Given/when/then: setup, kingdoms, the turn, the leader action
(C-SETUP, C-KINGDOM, C-TURN, C-LEADER)."""

from __future__ import annotations

import pytest

from domain.cards import (
    RULES,
    CardsDrawn,
    LeaderPlaced,
    Options,
    Pass,
    PlaceLeader,
    PlayCard,
    PlayCatastrophe,
    TurnBegan,
    WithdrawLeader,
    build,
    display_text,
    fold,
)
from domain.cards.model import Card
from domain.common.colours import Colour
from domain.common.errors import FormatError, IllegalCommand, NotAwaited
from tests.cards.helpers import decision, play, refused
from tests.cards.invariants import accounted

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


# rule C-SETUP-1
def test_each_dynasty_has_four_leaders_and_two_to_four_players_may_play() -> None:
    state = fold(RULES.start(["a", "b", "c", "d"], {}, 1))
    assert RULES.dynasties == ("lion", "vase", "bow", "bull")
    assert all(
        RULES.view(state, 0)["seats"][s]["supply"] == ["black", "red", "blue", "green"]
        for s in range(4)
    )
    for seats in (["solo"], ["a", "b", "c", "d", "e"]):
        with pytest.raises(FormatError) as caught:
            RULES.start(seats, {}, 1)
        assert caught.value.field == "seats"


# rule C-SETUP-2
def test_193_civilization_cards_three_ships_four_catastrophes() -> None:
    for seats in (2, 3, 4):
        state = fold(RULES.start([f"p{i}" for i in range(seats)], {}, 7))
        accounted(state)  # 40 black, 65 red, 40 blue, 40 green, 8 treasures, 3 ships
        assert len(state.pile) + len(state.set_aside) == 185
        assert state.ships == (Card.SHIP_BLACK, Card.SHIP_RED, Card.SHIP_GREEN)
    # a 194th card would not be accounted for
    broken = build("c0: T k", hands={0: "k" * 40})
    with pytest.raises(AssertionError):
        accounted(broken)


# rule C-SETUP-3
def test_eight_treasures_in_a_row_with_seven_bridges_and_eight_spots_below() -> None:
    state = fold(RULES.start(["a", "b"], {}, 3))
    assert [column for column in state.columns] == [(Card.TREASURE,)] * 8
    assert len(state.bridges) == 7
    seat = state.active
    state, _ = play(state, PlaceLeader(seat, K, column=7, depth=0))
    assert state.leader_spot(seat, K) >= 0
    with pytest.raises(FormatError) as caught:
        RULES.decide(state, PlaceLeader(seat, R, column=8, depth=0))
    assert caught.value.field == "column"
    with pytest.raises(FormatError) as caught:
        RULES.decide(state, PlayCard(seat, R, bridge=7))
    assert caught.value.field == "bridge"
    with pytest.raises(FormatError):
        RULES.decide(state, PlaceLeader(seat, R, column=1, depth=9))


# rule C-SETUP-4
def test_deal_eight_cards_one_catastrophe_thirty_removed_with_two_random_start() -> None:
    two = RULES.start(["a", "b"], {}, 11)
    three = fold(RULES.start(["a", "b", "c"], {}, 11))
    state = fold(two)
    assert [sum(h) for h in state.hands] == [8, 8]
    assert state.catastrophes == (True, True)
    assert len(state.set_aside) == 30 and len(three.set_aside) == 0
    assert state.pile_size == 185 - 30 - 16 and three.pile_size == 185 - 24
    assert [type(e) for e in two[1:]] == [CardsDrawn, CardsDrawn]
    assert fold(RULES.start(["a", "b"], {}, 11)) == state  # the seed fixes everything
    starts = {fold(RULES.start(["a", "b", "c"], {}, seed)).start_player for seed in range(30)}
    assert starts == {0, 1, 2}
    assert fold(RULES.start(["a", "b"], {}, 12)).pile != state.pile


# rule C-KINGDOM-1
def test_cards_at_equal_depth_in_neighbouring_columns_are_not_connected() -> None:
    apart = build("c0: T k:0k k k\nc1: T g b g", hands={0: "gg"})
    state, _ = play(apart, PlayCard(0, G, column=1))
    assert decision(state) == "action"  # no king in column 1's kingdom: no point
    joined = build("c0: T k:0k k k\nc1: T g b g\nb0: r", hands={0: "gg"})
    state, _ = play(joined, PlayCard(0, G, column=1))
    assert decision(state) == "point"  # the bridge links treasure 0 and 1: the king scores


# rule C-KINGDOM-2
def test_leaders_of_different_colours_share_a_kingdom_but_never_two_of_one_colour() -> None:
    state = build("c0: T g:1g r", hands={0: "r"})
    calm, _ = play(state, PlaceLeader(0, K, column=0, depth=2))
    assert decision(calm) == "action" and calm.conflict is None
    clash, _ = play(state, PlaceLeader(0, G, column=0, depth=2))
    assert decision(clash) == "commit"
    after, _ = play(clash, RULES.commands.from_json({"type": "CommitCards", "seat": 0, "count": 1}))
    after, _ = play(after, RULES.commands.from_json({"type": "CommitCards", "seat": 1, "count": 0}))
    greens = [s for s in (after.leader_spot(0, G), after.leader_spot(1, G)) if s >= 0]
    assert len(greens) == 1


# rule C-TURN-1
def test_two_actions_the_same_twice_and_passing() -> None:
    state = build("c0: T", hands={0: "kkrr", 1: "kk"})
    state, _ = play(state, PlayCard(0, K, column=1))
    assert state.actions_left == 1 and state.active == 0
    state, events = play(state, PlayCard(0, K, column=2))
    assert state.active == 1 and any(isinstance(e, TurnBegan) for e in events)
    refused(state, PlayCard(0, R, column=3), "C-TURN-1", NotAwaited)  # a third action
    state, _ = play(state, Pass(1))  # passing a whole turn is allowed
    assert state.active == 0 and state.turn == 3


# rule C-TURN-2
def test_the_actions_are_leader_card_and_catastrophe_from_own_resources() -> None:
    state = build("c0: T k", hands={0: "k", 1: "r"})
    for command in (
        PlaceLeader(0, R, column=0, depth=1),
        PlayCard(0, K, column=3),
        PlayCatastrophe(0, column=0, depth=1),
    ):
        after, _ = play(state, command)
        assert after.actions_left == 1
    refused(state, PlayCard(0, R, column=3), "C-TURN-2")  # no red card in hand
    refused(
        state, PlaceLeader(1, R, column=0, depth=1), "C-TURN-1", NotAwaited
    )  # not seat 1's turn


# rule C-TURN-3
def test_hands_refill_only_at_the_end_of_the_turn_for_every_player() -> None:
    state = build("c0: T", hands={0: "kkkkkkkk", 1: "rrrrrrr"})
    state, events = play(state, PlayCard(0, K, column=1))
    assert state.hand_size(0) == 7 and not any(isinstance(e, CardsDrawn) for e in events)
    state, events = play(state, PlayCard(0, K, column=2))
    drawn = [e for e in events if isinstance(e, CardsDrawn)]
    assert [(e.seat, len(e.cards)) for e in drawn] == [(0, 2), (1, 1)]  # active player first
    assert state.hand_size(0) == 8 and state.hand_size(1) == 8
    assert isinstance(events[-1], TurnBegan)


# rule C-LEADER-1
def test_a_leader_goes_onto_any_free_civilization_card_but_not_a_taken_one_or_a_ship() -> None:
    state = build("c0: T r:1r k Sk\nc1: T b b b\nc2: T g g g\nb1: g", hands={0: "k"})
    for colour, where in (
        (R, {"column": 0, "depth": 0}),
        (K, {"column": 0, "depth": 2}),
        (B, {"column": 1, "depth": 1}),
        (G, {"bridge": 1}),
    ):
        _, events = play(state, PlaceLeader(0, colour, **where))
        assert isinstance(events[0], LeaderPlaced)
    refused(state, PlaceLeader(0, K, column=0, depth=1), "C-LEADER-1")  # a leader stands there
    refused(state, PlaceLeader(0, K, column=0, depth=3), "C-SHIP-3")  # a ship
    refused(state, PlaceLeader(0, K, column=0, depth=4), "C-LEADER-1")  # no card
    refused(state, PlaceLeader(0, K, bridge=0), "C-LEADER-1")  # empty bridge slot
    # moving a leader from one kingdom to another
    moved, _ = play(build("c0: T k:0g\nc1: T b"), PlaceLeader(0, G, column=1, depth=1))
    assert display_text(moved).splitlines()[:2] == ["c0: T k", "c1: T b:0g"]


# rule C-LEADER-1
def test_variant_leader_colour_must_differ() -> None:
    text = "c0: T r b g k"
    plain = build(text)
    strict = build(text, options=Options(leader_colour_must_differ=True))
    for colour, depth in ((R, 1), (B, 2), (G, 3), (K, 4), (R, 0)):
        play(plain, PlaceLeader(0, colour, column=0, depth=depth))  # German rule: any colour
        refused(strict, PlaceLeader(0, colour, column=0, depth=depth), "C-LEADER-1")
    play(strict, PlaceLeader(0, B, column=0, depth=1))  # a different colour is fine
    play(strict, PlaceLeader(0, K, column=0, depth=0))  # a treasure counts as red


# rule C-LEADER-2
def test_variant_allow_withdraw() -> None:
    text = "c0: T k:0k"
    refused(build(text), WithdrawLeader(0, K), "C-LEADER-2")
    state = build(text, options=Options(allow_withdraw=True))
    after, _ = play(state, WithdrawLeader(0, K))
    assert after.leader_spot(0, K) == -1 and after.actions_left == 1
    refused(state, WithdrawLeader(0, R), "C-LEADER-2")  # the priest is not in the display


# rule C-LEADER-3
def test_a_same_colour_leader_entering_starts_a_revolt_and_leaders_score_their_colour() -> None:
    state = build("c0: T r:1r b\nc1: T b", hands={0: "bbr", 1: "bb"})
    revolt, _ = play(state, PlaceLeader(0, R, column=0, depth=2))
    assert revolt.conflict is not None and revolt.conflict.kind == "revolt"
    calm, _ = play(state, PlaceLeader(0, R, column=1, depth=1))
    assert calm.conflict is None
    farmer, _ = play(state, PlaceLeader(0, B, column=0, depth=2))
    scored, _ = play(farmer, PlayCard(0, B, column=0))
    assert decision(scored) == "point" and scored.agenda[0].colour is B  # type: ignore[union-attr]


# rule C-LEADER-4
def test_a_leader_moves_up_with_its_card_and_goes_home_when_its_card_leaves() -> None:
    state = build("c0: T k b:0b r:1r\nc1: T b b b:1k", hands={0: "b"})
    state, _ = play(state, PlayCatastrophe(0, column=0, depth=1))
    assert display_text(state).splitlines()[0] == "c0: T b:0b r:1r"
    state, _ = play(state, PlayCard(0, B, column=1))  # the 4th blue card: a ship
    assert decision(state) == "ship"
    built, _ = play(
        state, RULES.commands.from_json({"type": "BuildShip", "seat": 0, "ship": "black"})
    )
    assert built.leader_spot(1, K) == -1  # its card left the display
    kept, _ = play(state, RULES.commands.from_json({"type": "Decline", "seat": 0}))
    assert kept.leader_spot(1, K) >= 0
    with pytest.raises(IllegalCommand):
        RULES.decide(built, PlaceLeader(1, K, column=1, depth=1))  # not seat 1's turn
