"""Adversarial audit against the German rulebook: edge cases and traps the
other given/when/then tests leave out (one rule id per test)."""

from __future__ import annotations

from domain.cards import (
    RULES,
    BuildShip,
    CardPlayed,
    CardsDrawn,
    ChooseWar,
    CommitCards,
    Decline,
    GameEnded,
    Options,
    Pass,
    PlaceLeader,
    PlayCard,
    PlayCatastrophe,
    State,
    SwapTreasure,
    TakePoint,
    TurnBegan,
    WithdrawLeader,
    build,
    decide,
    display_text,
    event_view,
    legal_commands,
    pending,
    view,
)
from domain.cards.display import regions
from domain.cards.model import Card, update
from domain.common.colours import Colour
from domain.common.errors import RulesError
from tests.cards.helpers import awaiting, decision, play, refused

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


def legal_all_accepted(state: State) -> None:
    """Every command ``legal_commands`` offers is accepted by ``decide``."""
    for seat in range(state.seat_count):
        for command in legal_commands(state, seat):
            try:
                decide(state, command)
            except RulesError as error:  # pragma: no cover - the failure message
                raise AssertionError(f"legal {command} refused: {error}") from error


# --- points from hand --------------------------------------------------------


# rule C-SCORE-1
def test_a_point_reaches_the_leader_across_a_bridge_not_across_equal_depth() -> None:
    # column 0 and 1 are joined by bridge 0; column 2 is its own kingdom
    state = build("c0: T:1g k k\nc1: T k k k\nc2: T k k\nb0: b", hands={0: "gg", 1: "g"})
    joined, _ = play(state, PlayCard(0, G, column=1))
    assert pending(joined)["awaiting"] == [1] and decision(joined) == "point"
    apart, _ = play(state, PlayCard(0, G, column=2))
    assert decision(apart) == "action" and apart.actions_left == 1


# rule C-SCORE-1
def test_the_matching_leaders_owner_with_an_empty_hand_gets_nothing_not_the_king() -> None:
    # seat 1's trader is there but seat 1 holds no card; the king of seat 0 is no joker then
    state = build("c0: T:1g k:0k", hands={0: "gg"})
    after, _ = play(state, PlayCard(0, G, column=0))
    assert decision(after) == "action" and after.vp == ((), ())


# rule C-SCORE-1
def test_the_offer_comes_even_without_a_card_of_that_colour_and_allows_only_decline() -> None:
    state = build("c0: T:1g", hands={0: "g", 1: "kk"})
    offered, _ = play(state, PlayCard(0, G, column=0))
    assert awaiting(offered) == [1]
    assert list(legal_commands(offered, 1)) == [Decline(1)]
    refused(offered, TakePoint(1, G), "C-SCORE-1")


# rule C-SCORE-2
def test_the_king_of_another_player_scores_the_joker_point() -> None:
    state = build("c0: T r:1k", hands={0: "b", 1: "b"})
    offered, _ = play(state, PlayCard(0, B, column=0))
    assert pending(offered) == {
        "kind": "cards",
        "awaiting": [1],
        "decision": "point",
        "colour": "blue",
        "reason": "card",
    }
    took, _ = play(offered, TakePoint(1, B))
    assert took.vp == ((), (Card.BLUE,)) and took.active == 0 and took.actions_left == 1


# rule C-SCORE-2
def test_a_black_card_without_a_king_scores_nothing_even_with_other_leaders() -> None:
    state = build("c0: T:1g r:1r", hands={0: "k", 1: "k"})
    after, _ = play(state, PlayCard(0, K, column=0))
    assert decision(after) == "action"


# --- columns, bridges, ships ---------------------------------------------------


# rule C-CARD-1
def test_a_ship_counts_as_one_of_the_eight_cards_of_a_column() -> None:
    full = build("c0: T k r Sk k r b g k", hands={0: "g"})
    refused(full, PlayCard(0, G, column=0), "C-CARD-1")
    assert PlayCard(0, G, column=0) not in list(legal_commands(full, 0))


# rule C-CARD-2
def test_a_bridge_needs_three_cards_on_both_sides_ships_counting() -> None:
    state = build("c0: T k Sk b\nc1: T k r", hands={0: "g"})
    refused(state, PlayCard(0, G, bridge=0), "C-CARD-2")  # only 2 on the right
    ok = build("c0: T k Sk b\nc1: T k r g", hands={0: "g"})
    after, _ = play(ok, PlayCard(0, G, bridge=0))
    assert after.bridges[0] is Card.GREEN
    assert PlayCard(0, G, bridge=0) in list(legal_commands(ok, 0))
    assert PlayCard(0, G, bridge=0) not in list(legal_commands(state, 0))


# rule C-SHIP-1
def test_a_run_of_four_counts_below_a_ship_but_not_across_it() -> None:
    across = build("c0: T b b Sk b b", hands={0: "b"})
    after, _ = play(across, PlayCard(0, B, column=0))
    assert decision(after) == "action"
    below = build("c0: T b Sk b b b", hands={0: "b"})
    after, _ = play(below, PlayCard(0, B, column=0))
    assert pending(after)["ships"] == ["red", "green"]  # the blue-black ship is built


# rule C-SHIP-1
def test_a_run_of_four_red_below_a_swapped_treasure_offers_the_red_ship() -> None:
    state = build("c0: r r r r", hands={0: "r"})
    after, _ = play(state, PlayCard(0, R, column=0))
    assert pending(after)["ships"] == ["red"]


# rule C-SHIP-1
def test_a_run_that_does_not_end_with_the_card_just_played_builds_no_ship() -> None:
    state = build("c0: T g g g g", hands={0: "k"})  # a ship was declined before
    after, _ = play(state, PlayCard(0, K, column=0))
    assert decision(after) == "action"


# rule C-SHIP-2
def test_a_run_of_five_loses_its_lowest_four_the_top_card_and_its_leader_stay() -> None:
    state = build("c0: T k g:1k g g g:1g", hands={0: "g"})
    offered, _ = play(state, PlayCard(0, G, column=0))
    built, _ = play(offered, BuildShip(0, G))
    assert display_text(built).splitlines()[0] == "c0: T k g:1k Sg"
    assert built.leader_spot(1, K) >= 0 and built.leader_spot(1, G) == -1
    assert built.discard == (0, 0, 0, 4) and built.ships == (Card.SHIP_BLACK, Card.SHIP_RED)
    # the ship is built by the active player; any further card goes below it
    assert decision(built) == "action" and built.actions_left == 1


# rule C-SHIP-2
def test_a_ship_shortens_a_column_below_three_but_its_bridge_stays() -> None:
    state = build("c0: T k b b b\nc1: T k k k\nb0: r", hands={0: "b"})
    offered, _ = play(state, PlayCard(0, B, column=0))
    built, _ = play(offered, BuildShip(0, R))
    assert display_text(built).splitlines()[0] == "c0: T k Sr"
    assert built.bridges[0] is Card.RED and regions(built)[0] == regions(built)[1]


# rule C-SHIP-5
def test_ship_points_are_one_per_leader_however_many_matching_ships() -> None:
    state = build("c0: T b:0b Sk\nc1: T k Sr k\nb0: k", hands={0: "bbbk"})
    end, _ = play(state, Pass(0))
    assert pending(end) == {
        "kind": "cards",
        "awaiting": [0],
        "decision": "ship_points",
        "colours": ["blue"],
    }
    after, _ = play(end, TakePoint(0, B))
    assert after.vp[0] == (Card.BLUE,) and after.active == 1


# rule C-SHIP-5
def test_ship_points_reach_a_ship_across_a_bridge_for_each_matching_leader() -> None:
    state = build("c0: T k:0k b:0b\nc1: T g Sk g\nb0: r", hands={0: "kb"})
    end, _ = play(state, Pass(0))
    assert pending(end)["colours"] == ["black", "blue"]
    once, _ = play(end, TakePoint(0, B))
    assert pending(once)["colours"] == ["black"]
    twice, _ = play(once, TakePoint(0, K))
    assert twice.vp[0] == (Card.BLUE, Card.BLACK) and twice.active == 1


# rule C-SHIP-5
def test_ship_points_only_for_the_player_whose_turn_ends_and_before_the_refill() -> None:
    state = build("c0: T b:1b Sk", hands={0: "k", 1: "bbbbbbbb"}, pile="kkkkkkkkkkkkkkkk")
    after, _ = play(state, Pass(0))
    assert after.active == 1 and after.vp == ((), ())  # seat 1 scores at its own turn end
    end, _ = play(after, Pass(1))
    assert decision(end) == "ship_points" and end.hands[1][2] == 8
    took, events = play(end, TakePoint(1, B))
    assert took.vp[1] == (Card.BLUE,) and took.hands[1][2] == 7
    # the refill comes after the point: seat 1 draws the card it just spent
    drawn = [e for e in events if isinstance(e, CardsDrawn)]
    assert [e.seat for e in drawn] == [1] and len(drawn[0].cards) == 1


# --- leaders -------------------------------------------------------------------


# rule C-LEADER-1
def test_a_leader_may_move_within_its_own_kingdom_without_a_revolt() -> None:
    state = build("c0: T r:0r k k", hands={0: "r"})
    moved, _ = play(state, PlaceLeader(0, R, column=0, depth=3))
    assert moved.conflict is None and moved.leader_spot(0, R) == 3 and moved.actions_left == 1


# rule C-LEADER-1
def test_variant_leader_colour_must_differ_treats_any_treasure_star_as_red() -> None:
    state = build(
        "c0: T k\nc1: r g", options=Options(leader_colour_must_differ=True), hands={0: "k"}
    )
    refused(state, PlaceLeader(0, R, column=0, depth=0), "C-LEADER-1")
    refused(state, PlaceLeader(0, R, column=1, depth=0), "C-LEADER-1")
    refused(state, PlaceLeader(0, K, column=0, depth=1), "C-LEADER-1")
    play(state, PlaceLeader(0, K, column=0, depth=0))
    play(state, PlaceLeader(0, G, column=1, depth=0))
    places = {
        (c.leader, c.column, c.depth)
        for c in legal_commands(state, 0)
        if isinstance(c, PlaceLeader)
    }
    assert (R, 0, 0) not in places and (R, 1, 0) not in places and (K, 0, 0) in places
    legal_all_accepted(state)


# rule C-LEADER-2
def test_variant_allow_withdraw_costs_an_action_and_needs_a_leader_in_the_display() -> None:
    state = build("c0: T k:0k", options=Options(allow_withdraw=True), hands={0: "k"})
    after, _ = play(state, WithdrawLeader(0, K))
    assert after.leader_spot(0, K) == -1 and after.actions_left == 1
    refused(after, WithdrawLeader(0, K), "C-LEADER-2")
    assert WithdrawLeader(0, K) not in list(legal_commands(after, 0))
    refused(build("c0: T k:0k"), WithdrawLeader(0, K), "C-LEADER-2")


# rule C-LEADER-4
def test_a_catastrophe_above_a_leader_lifts_it_and_it_still_blocks_its_card() -> None:
    state = build("c0: T k r b:1b g", hands={0: "k"})
    after, _ = play(state, PlayCatastrophe(0, column=0, depth=1))
    assert display_text(after).splitlines()[0] == "c0: T r b:1b g"
    refused(after, PlaceLeader(0, K, column=0, depth=2), "C-LEADER-1")
    play(after, PlaceLeader(0, K, column=0, depth=3))


# --- revolts -------------------------------------------------------------------


# rule C-REVOLT-2
def test_the_red_bonus_counts_for_treasures_swapped_treasures_and_red_bridges() -> None:
    for text, spot in (
        ("c0: T:1k k k k\nc1: T k k k\nb0: r", PlaceLeader(0, K, bridge=0)),
        ("c0: r:1k k k k\nc1: T k k k\nb0: r", PlaceLeader(0, K, bridge=0)),
        ("c0: T k:1k k k\nc1: T k k k\nb0: r", PlaceLeader(0, K, bridge=0)),
    ):
        revolt, _ = play(build(text, hands={0: "k", 1: "k"}), spot)
        conflict = pending(revolt)["conflict"]
        assert conflict["attacker_strength"] == 1, text  # on the red bridge card
        defender_on_red = not text.startswith("c0: T k:1k")
        assert conflict["defender_strength"] == int(defender_on_red), text


# rule C-REVOLT-3
def test_a_revolt_cannot_be_declined_zero_cards_stay_out() -> None:
    state = build("c0: T k:1g b", hands={0: "rk", 1: "r"})
    revolt, _ = play(state, PlaceLeader(0, G, column=0, depth=2))
    refused(revolt, Decline(0), "C-REVOLT-3")
    assert [c.count for c in legal_commands(revolt, 0)] == [0, 1]  # type: ignore[union-attr]


# rule C-REVOLT-4
def test_a_revolt_lost_by_the_attacker_sends_the_newcomer_home_and_the_defender_scores() -> None:
    state = build("c0: T r:1g b", hands={0: "r", 1: "r"})
    revolt, _ = play(state, PlaceLeader(0, G, column=0, depth=2), CommitCards(0, 1))
    done, _ = play(revolt, CommitCards(1, 0))  # 1 against 0 + 1: the defender wins the tie
    assert done.leader_spot(0, G) == -1 and done.leader_spot(1, G) == 1
    assert done.vp == ((), (Card.RED,)) and done.discard == (0, 0, 0, 0)


# --- joins, wars, the trader ------------------------------------------------------


WAR = "c0: T k:0g g g\nc1: T g k k\nc2: T k k k\nc3: T k:1g g k\nb0: k\nb2: k"


# rule C-WAR-3
def test_the_face_down_bridge_counts_for_neither_side_and_is_not_taken() -> None:
    state = build(WAR, hands={0: "g", 1: "ggg"})
    war, _ = play(state, PlayCard(0, G, bridge=1))
    conflict = pending(war)["conflict"]
    assert (conflict["attacker_strength"], conflict["defender_strength"]) == (3, 1)
    done, _ = play(war, CommitCards(0, 0), CommitCards(1, 2))  # 3 against 3: defender
    assert done.bridges[1] is Card.GREEN and done.face_down == -1
    # the played card kept, the other discarded; the three on seat 0's side taken
    assert done.vp[1] == (Card.GREEN,) * 4 and done.discard == (0, 0, 0, 1)
    assert display_text(done).splitlines()[:2] == ["c0: T k", "c1: T k k"]


# rule C-WAR-4
def test_war_attacker_commits_first_and_cannot_decline() -> None:
    state = build(WAR, hands={0: "g", 1: "g"})
    war, _ = play(state, PlayCard(0, G, bridge=1))
    assert awaiting(war) == [0]
    refused(war, Decline(0), "C-REVOLT-3")
    refused(war, CommitCards(1, 0), "C-REVOLT-3")


# rule C-WAR-5
def test_the_losers_leader_goes_home_first_so_its_card_of_the_colour_is_taken() -> None:
    state = build(
        "c0: T k g:0g g\nc1: T g k k\nc2: T k k k\nc3: T k g:1g k\nb0: k\nb2: k",
        hands={0: "k", 1: "g"},
    )
    war, _ = play(state, PlayCard(0, K, bridge=1), CommitCards(0, 0))
    done, _ = play(war, CommitCards(1, 1))  # 3 against 1 + 1: seat 0 wins
    assert done.leader_spot(1, G) == -1
    assert display_text(done).splitlines()[3] == "c3: T k k"  # the loser's own card went
    assert done.vp[0] == (Card.GREEN, Card.GREEN)  # the played card, then the removed one


# rule C-WAR-5
def test_a_red_war_never_takes_a_treasure_star_but_counts_it() -> None:
    state = build("c0: T:0r k k\nc1: r r k k\nc2: T:1r r r k\nb0: k", hands={0: "k", 1: "k"})
    war, _ = play(state, PlayCard(0, K, bridge=1))
    conflict = pending(war)["conflict"]
    # seat 0: two treasures* (one swapped) + one red card; seat 1: a treasure + two red
    assert (conflict["attacker_strength"], conflict["defender_strength"]) == (3, 3)
    done, _ = play(war, CommitCards(0, 0), CommitCards(1, 0))
    assert done.leader_spot(0, R) == -1
    assert display_text(done).splitlines()[:2] == ["c0: T k k", "c1: r k k"]
    assert done.vp[1] == (Card.RED,)  # the red card at c1.1; both treasures* stay
    assert pending(done) == {
        "kind": "cards",
        "awaiting": [1],
        "decision": "point",
        "colour": "red",
        "reason": "conflict",
    }
    assert list(legal_commands(done, 1)) == [Decline(1)]  # no red card in hand
    refused(done, TakePoint(1, R), "C-WAR-5")


# rule C-WAR-5
def test_cards_holding_other_leaders_stay_and_the_other_leaders_move_up() -> None:
    war_state = build(
        "c0: T g g:0r g b:0b\nc1: T k:0g k k\nc2: T k:1g g k\nb0: k",
        hands={0: "k", 1: "k"},
    )
    war, _ = play(war_state, PlayCard(0, K, bridge=1))
    done, _ = play(war, CommitCards(0, 0), CommitCards(1, 0))  # 3 against 1: seat 0 wins
    assert display_text(done).splitlines()[:3] == [
        "c0: T g g:0r g b:0b",
        "c1: T k:0g k k",
        "c2: T k k",
    ]
    lost = build(
        "c0: T g g:0r g b:0b\nc1: T k:0g k k\nc2: T k:1g g g g k\nb0: k",
        hands={0: "k", 1: "k"},
    )
    war, _ = play(lost, PlayCard(0, K, bridge=1))
    done, _ = play(war, CommitCards(0, 0), CommitCards(1, 0))  # 3 against 3: seat 1 wins
    assert display_text(done).splitlines()[:2] == ["c0: T g:0r b:0b", "c1: T k k k"]
    assert done.leader_spot(0, R) == 1 and done.leader_spot(0, B) == 2


# rule C-WAR-6
def test_a_later_war_is_fought_with_strengths_after_the_first_one() -> None:
    text = "c0: T:0g k:0k g\nc1: T k k k\nc2: T k k k\nc3: T:1g k:1k g\nb0: k\nb2: k"
    state = build(text, hands={0: "b", 1: ""})
    joined, _ = play(state, PlayCard(0, B, bridge=1))
    assert pending(joined)["colours"] == ["black", "green"]
    green, _ = play(joined, ChooseWar(0, G), CommitCards(0, 0), CommitCards(1, 0))
    # seat 1 defended the green tie (1 against 1); seat 0's green card left column 0
    assert display_text(green).splitlines()[0] == "c0: T k:0k"
    black = pending(green)["conflict"]
    assert black["colour"] == "black"
    assert (black["attacker_strength"], black["defender_strength"]) == (5, 5)


# rule C-TRADER-1
def test_swapped_treasures_do_not_count_for_the_two_treasures() -> None:
    state = build("c0: r k k k\nc1: T:0g k k k\nc2: T b b b", hands={0: "rk"})
    joined, _ = play(state, PlayCard(0, K, bridge=0))
    assert decision(joined) == "action"  # one treasure card and one swapped: no swap
    two, _ = play(state, PlayCard(0, K, bridge=1))
    assert pending(two)["columns"] == [1, 2]  # two treasure cards: a swap


# rule C-TRADER-1
def test_the_war_winners_trader_swaps_after_the_wars() -> None:
    state = build("c0: T:0g k k k\nc1: T k k k\nc2: T:1g k k k\nb0: k", hands={0: "k", 1: "rr"})
    war, _ = play(state, PlayCard(0, K, bridge=1), CommitCards(0, 0))
    done, _ = play(war, CommitCards(1, 0))  # 0 against 0: the defender, seat 1, wins
    assert done.leader_spot(0, G) == -1
    assert pending(done)["decision"] == "point"  # the winner's card from hand first
    declined, _ = play(done, Decline(1))
    assert pending(declined) == {
        "kind": "cards",
        "awaiting": [1],
        "decision": "treasure_swap",
        "bridge": 1,
        "columns": [0, 1, 2],
    }
    swapped, _ = play(declined, SwapTreasure(1, 2))
    assert swapped.columns[2][0] is Card.RED and swapped.leader_spot(1, G) == 18
    assert pending(swapped)["columns"] == [0, 1]
    twice, _ = play(swapped, SwapTreasure(1, 0))
    assert decision(twice) == "action" and twice.vp[1] == (Card.TREASURE,) * 2


# rule C-TRADER-1
def test_no_swap_when_the_trader_left_the_kingdom_of_the_bridge() -> None:
    # as in the German example: the loser's green bridge goes, its side splits
    # off, and the kingdom of the bridge keeps one treasure card only
    text = "c0: T:0g k k k\nc1: T k k k\nc2: r:1g k k k\nb0: g"
    state = build(text, hands={0: "k", 1: "grr"})
    war, _ = play(state, PlayCard(0, K, bridge=1), CommitCards(0, 0))
    done, _ = play(war, CommitCards(1, 1))  # 1 against 1: the defender wins
    assert done.leader_spot(0, G) == -1 and done.bridges[0] is None
    assert done.vp[1] == (Card.GREEN, Card.GREEN)
    assert decision(done) == "action" and done.face_down == -1


# --- catastrophe, turn, end ------------------------------------------------------


# rule C-CAT-1
def test_the_catastrophe_takes_a_bridge_or_column_card_but_not_a_leaders_bridge() -> None:
    state = build("c0: T k k k\nc1: T k k k\nb0: g:1k", hands={0: "k"})
    refused(state, PlayCatastrophe(0, bridge=0), "C-CAT-1")
    assert PlayCatastrophe(0, bridge=0) not in list(legal_commands(state, 0))
    refused(state, PlayCatastrophe(0, bridge=1), "C-CAT-1")  # no card there
    legal_all_accepted(state)


# rule C-TURN-1
def test_pass_ends_the_turn_even_with_two_actions_left() -> None:
    state = build("", hands={0: "k"}, pile="kkkkkkkkkkkkkkkk")
    after, events = play(state, Pass(0))
    assert after.active == 1 and after.actions_left == 2
    assert TurnBegan(2, 1) in events


# rule C-TURN-3
def test_hands_refill_from_the_active_player_on_clockwise() -> None:
    state = build(
        "",
        seats=3,
        active=1,
        hands={0: "kkkkkkk", 1: "kkkkkkkb", 2: "kkkkkkk"},
        pile="rgbbbbbb",
    )
    after, _ = play(state, PlayCard(1, B, column=0))
    end, events = play(after, Pass(1))
    assert end.active == 2
    drawn = [(e.seat, e.cards) for e in events if isinstance(e, CardsDrawn)]
    assert drawn == [(1, (R,)), (2, (G,)), (0, (B,))]


# rule C-END-1
def test_an_exactly_sufficient_pile_refills_and_play_goes_on() -> None:
    state = build("", hands={0: "kkkkkkkr", 1: "kkkkkkk"}, pile="bg")
    after, events = play(state, PlayCard(0, R, column=0), Pass(0))
    assert after.over is None and after.pile_size == 0 and after.active == 1
    short = build("", hands={0: "kkkkkkkr", 1: "kkkkkkk"}, pile="b")
    over, events = play(short, PlayCard(0, R, column=0), Pass(0))
    assert over.over == "pile" and events[-1] == GameEnded("pile")
    assert not any(isinstance(e, CardsDrawn) for e in events)  # nobody draws
    assert over.hands[0] == (7, 0, 0, 0)


# rule C-END-2
def test_only_unswapped_treasures_count_for_the_end() -> None:
    two = build("c0: T\nc1: T\nc2: r\nc3: r\nc4: r\nc5: r\nc6: r\nc7: r", hands={0: "k"})
    after, _ = play(two, Pass(0))
    assert after.over is None
    one = build("c0: T\nc1: r\nc2: r\nc3: r\nc4: r\nc5: r\nc6: r\nc7: r", hands={0: "k"})
    after, events = play(one, Pass(0))
    assert after.over == "treasures" and isinstance(events[-1], GameEnded)
    assert any(isinstance(e, CardsDrawn) for e in events)  # hands are refilled first


FULL = (
    "\n".join(f"c{c}: T k k k k k k k k" for c in range(8))
    + "\n"
    + "\n".join(f"b{b}: k" for b in range(7))
)


# rule C-END-1
def test_a_frozen_display_ends_the_game_only_when_no_card_can_leave_a_hand() -> None:
    hands = {0: "kkkkkkkk", 1: "kkkkkkkk"}
    frozen = build(FULL, hands=hands, catastrophes=(False, False))
    after, events = play(frozen, Pass(0))
    assert after.over == "blocked" and events[-1] == GameEnded("blocked")
    # a red card can still be spent in a revolt: the game goes on
    red = build(FULL, hands={0: "kkkkkkkk", 1: "kkkkkkkr"}, catastrophes=(False, False))
    after, _ = play(red, Pass(0))
    assert after.over is None
    # a catastrophe card can still make room: the game goes on
    cat = build(FULL, hands=hands, catastrophes=(False, True))
    after, _ = play(cat, Pass(0))
    assert after.over is None
    # a red card drawn in the refill counts too
    drawn = build(FULL, hands={0: "kkkkkkk", 1: "kkkkkkkk"}, catastrophes=(False, False), pile="rk")
    after, _ = play(drawn, Pass(0))
    assert after.over is None and after.hands[0] == (7, 1, 0, 0)
    # a colour a built ship serves can still score ship points
    ship = FULL.replace("c0: T k k k k k k k k", "c0: T k k k k k k k Sr")
    shipped = build(ship, hands={0: "kkkkkkkb", 1: "kkkkkkkk"}, catastrophes=(False, False))
    after, _ = play(shipped, Pass(0))
    assert after.over is None


# --- hidden information ------------------------------------------------------------


# rule C-VP-1
def test_no_view_reveals_a_vp_pile_below_its_top_card_until_the_end() -> None:
    a = build("c0: T:0g", vp={0: "kkrbT", 1: "gg"}, hands={0: "g"})
    b = build("c0: T:0g", vp={0: "gbgbT", 1: "kg"}, hands={0: "g"})
    for viewer in (0, 1, None):
        assert view(a, viewer) == view(b, viewer), viewer
    assert view(update(a, over="pile"), 0) != view(update(b, over="pile"), 0)
    opened = Options(open_vp_piles=True)
    c = build("c0: T:0g", vp={0: "kkrbT"}, hands={0: "g"}, options=opened)
    assert view(c, None)["seats"][0]["points"] == {"black": 2, "red": 1, "blue": 1, "green": 0}
    assert view(c, None)["seats"][0]["treasures"] == 1


# rule C-HIDDEN-1
def test_the_face_down_bridge_card_stays_hidden_in_views_and_events() -> None:
    state = build(WAR, hands={0: "g", 1: "g"})
    war, events = play(state, PlayCard(0, G, bridge=1))
    played = next(e for e in events if isinstance(e, CardPlayed))
    assert war.face_down == 1
    assert "colour" not in event_view(played, 1, war)
    assert "colour" not in event_view(played, None, war)
    assert event_view(played, 0, war)["colour"] == "green"  # the player knows it
    for viewer in (1, None):
        seen = view(war, viewer)
        assert seen["display"]["bridges"][1]["card"] == "face-down"
        assert "g?" not in seen["text"]
    done, _ = play(war, CommitCards(0, 0), CommitCards(1, 1))
    assert view(done, 1)["display"]["bridges"][1]["card"] == "green"
    column, events = play(state, PlayCard(0, G, column=0))
    shown = event_view(next(e for e in events if isinstance(e, CardPlayed)), 1, column)
    assert shown["colour"] == "green"


# rule C-HIDDEN-1
def test_hand_counts_are_public_and_a_random_game_start_shows_no_other_hand() -> None:
    events = RULES.start(["a", "b"], {}, 11)
    state = RULES.fold(events)
    for viewer in (0, 1, None):
        players = view(state, viewer)["seats"]
        assert [(p["hand"] is not None) for p in players] == [viewer == 0, viewer == 1]
        assert [p["hand_size"] for p in players] == [8, 8]
        assert view(state, viewer)["set_aside_count"] == 30
        assert view(state, viewer)["set_aside"] is None
