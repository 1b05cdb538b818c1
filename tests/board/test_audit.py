"""An independent audit of the rare rules: given/when/then edge cases, each naming its rule."""

from __future__ import annotations

from domain.board import (
    RULES,
    BuildMonument,
    ChooseWar,
    Command,
    CommitSupport,
    DeclineMonument,
    Event,
    GameEnded,
    GameStarted,
    LeaderPlaced,
    Monument,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    State,
    SwapTiles,
    TakeTreasures,
    TilesDrawn,
    TilesSwapped,
    TurnEnded,
    decide,
    evolve,
    legal_commands,
    view,
)
from domain.board.geometry import square
from domain.board.model import CHOOSE_WAR, COMMIT, MONUMENT, TREASURE, WAR
from domain.common.colours import Colour
from tests.board.helpers import cell, pos, refused

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


def play(state: State, *commands: Command) -> tuple[State, list[Event]]:
    """Like ``run``, but every command must also be listed by ``legal_commands``."""
    events: list[Event] = []
    for command in commands:
        assert command in set(legal_commands(state, command.seat)), command
        new = decide(state, command)
        events.extend(new)
        for event in new:
            state = evolve(state, event)
    return state, events


# -- wars ----------------------------------------------------------------------------

# Seat 0's priest (3,6) with temples (4,6) (4,7); a red tile on (4,8) joins seat 1's
# priest (3,9) whose side also holds seat 2's king (5,10) and the treasure temple (6,8).
PRIEST_WAR = {
    (4, 6): "r.",
    (4, 7): "r.",
    (3, 6): "0r",
    (3, 9): "1r",
    (4, 9): "r.",
    (5, 9): "r.",
    (5, 8): "r.",
    (4, 10): "r.",
    (4, 11): "r.",
    (5, 10): "2k",
}


def test_priest_exception_spares_temples_by_any_other_leader_or_with_treasure() -> None:
    # rule B-WAR-7
    # Given a red war where the defender's side has six temples,
    state = pos(PRIEST_WAR, ("rrrrrr", "", ""))
    after, _ = play(state, PlaceTile(0, R, (4, 8)))
    assert after.conflict is not None and after.conflict.kind == WAR
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (2, 6)
    # when the attacker commits five and wins 7 to 6,
    after, _ = play(after, CommitSupport(0, 5), CommitSupport(1, 0))
    # then the temples by seat 2's king and the treasure temple stay,
    assert after.leader_at(1, 1) == -1
    assert cell(after, (4, 10)) == "r." and cell(after, (5, 9)) == "r."
    assert cell(after, (6, 8)) == "r*"
    # the others leave, including the one only the losing priest touched,
    assert [cell(after, sq) for sq in ((4, 9), (5, 8), (4, 11))] == ["..", "..", ".."]
    # the winner scores the leader and the three removed temples only,
    assert after.points[0] == (0, 4, 0, 0) and after.points[2] == (0, 0, 0, 0)
    # and the king keeps its temples, so it stays (B-LEADER-7 does not strike).
    assert after.leader_at(2, 0) == square(5, 10)
    assert after.out[1] == 5 + 3 and after.unification == -1 and after.actions_left == 1


# Seat 0 (king, priest, trader) on the left, seat 1 (king, priest, trader) on the right;
# a black tile on (4,8) starts three wars. Seat 1's trader hangs on (4,10) only.
CHAIN = {
    (4, 6): "r.",
    (4, 7): "r.",
    (3, 7): "0k",
    (5, 7): "0r",
    (3, 6): "0g",
    (4, 9): "k.",
    (3, 9): "1k",
    (3, 10): "r.",
    (4, 10): "r.",
    (5, 10): "r.",
    (5, 9): "1r",
    (4, 11): "r.",
    (4, 12): "1g",
}


def test_war_chain_voids_a_split_war_and_starts_the_last_one_by_itself() -> None:
    # rule B-WAR-8
    state = pos(CHAIN, ("krrrr", ""))
    after, _ = play(state, PlaceTile(0, K, (4, 8)))
    assert after.decision == CHOOSE_WAR and sorted(after.wars) == [0, 1, 3]
    after, _ = play(after, ChooseWar(0, R))
    assert after.conflict is not None
    # (2,5) is not connected; (4,13) carries a treasure but still supports
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (2, 5)
    # when seat 0 wins the priests' war 6 to 5,
    after, _ = play(after, CommitSupport(0, 4), CommitSupport(1, 0))
    # then only (4,10) and (5,10) leave: the others touch a leader or carry a treasure,
    assert cell(after, (4, 10)) == ".." and cell(after, (5, 10)) == ".."
    assert cell(after, (3, 10)) == "r." and cell(after, (4, 11)) == "r."
    assert after.points[0] == (0, 3, 0, 0)
    # the traders are now apart (their war is void) and the kings' war starts at once.
    assert after.decision == COMMIT and after.conflict is not None
    assert after.conflict.colour == 0 and after.wars == ()
    assert (after.conflict.attacker, after.conflict.attacker_base) == (0, 0)
    assert after.conflict.defender_base == 1
    after, _ = play(after, CommitSupport(0, 0), CommitSupport(1, 0))  # tie: defender
    assert after.leader_at(0, 0) == -1 and after.points[1] == (1, 0, 0, 0)
    assert after.leader_at(0, 3) >= 0 and after.leader_at(1, 3) >= 0  # no traders' war
    assert after.unification == -1 and after.decision == "action" and after.actions_left == 1


# Seat 0's trader (5,7) by the temple (4,7); seat 1's trader (5,10) by (4,10), with three
# black tiles (3,8) (3,9) (4,9): a tile on (4,8) may complete a 2x2 with them.
MONUMENT_WAR = {
    (4, 7): "r.",
    (4, 6): "g.",
    (5, 7): "0g",
    (3, 8): "k.",
    (3, 9): "k.",
    (4, 9): "k.",
    (4, 10): "r.",
    (5, 10): "1g",
}


def test_monument_is_offered_only_after_the_wars() -> None:
    # rule B-MONUMENT-1
    # Given a black tile that unites two kingdoms and completes a black 2x2,
    state = pos(MONUMENT_WAR, ("k", "g"))
    after, _ = play(state, PlaceTile(0, K, (4, 8)))
    # then the traders' war comes first (no choice: one war),
    assert after.decision == COMMIT and after.conflict is not None
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (1, 0)
    refused(after, BuildMonument(0, Monument.BLACK_GREEN, (3, 8)), "B-WAR-5")
    after, _ = play(after, CommitSupport(0, 0), CommitSupport(1, 1))  # 1 against 1: defender
    assert after.leader_at(0, 3) == -1 and cell(after, (4, 6)) == ".."
    # and then, the square still whole, the monument is offered.
    assert after.decision == MONUMENT and after.candidates == (square(3, 8),)
    after, _ = play(after, BuildMonument(0, Monument.BLACK_RED, (3, 8)))
    assert cell(after, (4, 8)) == "K." and after.actions_left == 1


def test_a_war_that_removes_part_of_the_square_leaves_no_monument() -> None:
    # rule B-MONUMENT-1
    board = dict(MONUMENT_WAR)
    board[(5, 7)] = "0k"
    board[(5, 10)] = "1k"
    board[(4, 6)] = "k."
    state = pos(board, ("kkkk", ""))
    after, _ = play(state, PlaceTile(0, K, (4, 8)))
    assert after.conflict is not None and after.conflict.colour == 0
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (1, 3)
    after, _ = play(after, CommitSupport(0, 3), CommitSupport(1, 0))  # 4 against 3
    assert [cell(after, sq) for sq in ((3, 8), (3, 9), (4, 9))] == ["..", "..", ".."]
    assert after.points[0] == (4, 0, 0, 0)
    assert after.decision == "action" and after.candidates == () and after.actions_left == 1


def test_unification_tile_and_regions_joined_only_through_it_belong_to_no_side() -> None:
    # rule B-TILE-5
    # Given a green tile uniting the traders' kingdoms and leaderless green tiles
    # (3,8) (2,8) that touch only the unification square,
    board = dict(MONUMENT_WAR)
    board.update({(3, 8): "g.", (2, 8): "g.", (3, 9): ".."})
    state = pos(board, ("g", "gg"))
    after, _ = play(state, PlaceTile(0, G, (4, 8)))
    # then neither the marked tile nor (5,8) supports anybody,
    assert after.conflict is not None
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (1, 0)
    # and when the defender wins, only the loser's own supporter leaves.
    after, _ = play(after, CommitSupport(0, 0), CommitSupport(1, 2))
    assert cell(after, (4, 6)) == ".." and cell(after, (3, 8)) == "g."
    assert cell(after, (4, 8)) == "g." and after.points[1] == (0, 0, 0, 2)


def test_war_attacker_with_four_seats_is_first_involved_clockwise() -> None:
    # rule B-WAR-3
    board = dict(MONUMENT_WAR)
    board[(5, 7)] = "1g"
    board[(5, 10)] = "3g"
    state = pos(board, ("", "", "k", ""), active=2)
    after, _ = play(state, PlaceTile(2, K, (4, 8)))
    assert after.conflict is not None
    assert (after.conflict.attacker, after.conflict.defender) == (3, 1)  # 2 -> 3 -> 0 -> 1
    assert after.conflict.attacker_base == 0 and after.conflict.defender_base == 1


# -- leaders losing their temples -------------------------------------------------------


def test_catastrophe_returns_only_leaders_left_without_a_temple() -> None:
    # rule B-LEADER-7
    # Given a king by two temples and a farmer by one of them,
    state = pos({(9, 7): "r.", (9, 6): "0k", (10, 7): "1b"}, ("", ""))
    # when a catastrophe falls on the shared temple,
    after, _ = play(state, PlaceCatastrophe(0, (9, 7)))
    # then the farmer returns at once, the king keeps the treasure temple (9,5).
    assert after.leader_at(1, 2) == -1 and cell(after, (10, 7)) == ".."
    assert after.leader_at(0, 0) == square(9, 6)
    assert cell(after, (9, 7)) == "XX" and after.out[1] == 1


# Seat 0's trader (10,11) touches only the treasure temple (10,10); red tiles (9,10)
# (10,9) and a red tile on (9,9) complete a red 2x2 and join the row to (9,5).
TRADER_MONUMENT = {
    (9, 10): "r.",
    (10, 9): "r.",
    (10, 11): "0g",
    (9, 6): "k.",
    (9, 7): "k.",
    (9, 8): "k.",
}


def test_monument_strands_the_trader_before_treasures_are_taken() -> None:
    # rule B-MONUMENT-5
    state = pos(TRADER_MONUMENT, ("r", ""))
    after, _ = play(state, PlaceTile(0, R, (9, 9)))
    assert after.decision == MONUMENT and after.points[0] == (0, 0, 0, 0)
    # when the monument is built, the trader loses its only temple and leaves first,
    built, _ = play(after, BuildMonument(0, Monument.RED_GREEN, (9, 9)))
    assert built.leader_at(0, 3) == -1 and cell(built, (10, 10)) == "R*"
    # so nobody takes the two treasures of the kingdom (rule B-TURN-3's order).
    assert built.taken == (0, 0) and len(built.treasures) == 10
    assert built.decision == "action" and built.actions_left == 1
    # Declining instead leaves the trader, who must choose one of the two treasures.
    declined, _ = play(after, DeclineMonument(0))
    assert declined.decision == TREASURE and declined.treasure_take == 1
    assert declined.declined == frozenset({square(9, 9)})


# -- treasures ----------------------------------------------------------------------


def test_two_border_treasures_among_three_are_taken_without_a_choice() -> None:
    # rule B-TREASURE-2
    # Given a region joining the border treasures (1,1) and (7,1) and the inner (2,5),
    board = {
        (2, 1): "k.",
        (3, 1): "b.",
        (4, 1): "k.",
        (5, 1): "k.",
        (6, 1): "b.",
        (2, 2): "k.",
        (2, 3): "b.",
        (2, 4): "b.",
    }
    state = pos(board, ("", ""))
    # when a trader arrives,
    after, events = play(state, PlaceLeader(0, G, (1, 2)))
    # then it takes both border treasures at once, with no decision awaited.
    assert events == [LeaderPlaced(0, G, (1, 2))]
    assert after.taken == (2, 0) and after.decision == "action"
    assert square(2, 5) in after.treasures
    assert square(1, 1) not in after.treasures and square(7, 1) not in after.treasures


# -- the end of the turn and of the game ---------------------------------------------

# Seat 0's king (10,6) in the kingdom of the black-red monument on (9,7).
MONUMENT_KINGDOM = {
    (9, 7): "K.",
    (9, 8): "K.",
    (10, 7): "K.",
    (10, 8): "K.",
    (9, 6): "r.",
    (10, 6): "0k",
}


def test_monument_points_before_a_refill_that_ends_the_game() -> None:
    # rule B-TURN-4
    state = pos(
        MONUMENT_KINGDOM,
        ("kkkkk", "kkkk"),
        monuments=[("black-red", (9, 7))],
        bag_size=1,
        actions_left=1,
    )
    after, events = play(state, Pass(0))
    # the active player scores the monument, draws first, then seat 1 cannot draw 2
    assert after.points[0] == (1, 0, 0, 0)
    assert [type(e).__name__ for e in events] == ["Passed", "TilesDrawn", "GameEnded"]
    assert isinstance(events[1], TilesDrawn) and events[1].seat == 0
    assert events[-1] == GameEnded("bag") and after.decision == "over"
    assert not any(isinstance(e, TurnEnded) for e in events)


def test_swap_the_bag_cannot_supply_ends_the_game_before_monument_points() -> None:
    # rule B-SWAP-2
    state = pos(
        MONUMENT_KINGDOM,
        ("kkkkkk", "kkkkkk"),
        monuments=[("black-red", (9, 7))],
        bag_size=2,
        actions_left=1,
    )
    after, events = play(state, SwapTiles(0, black=3))
    assert events == [GameEnded("bag")]
    assert after.points[0] == (0, 0, 0, 0) and after.hands[0] == (6, 0, 0, 0)
    exact, events = play(state, SwapTiles(0, black=2))  # exactly enough: the game goes on
    assert isinstance(events[0], TilesSwapped) and events[-1] == TurnEnded(0)
    assert exact.bag == () and exact.points[0] == (1, 0, 0, 0)


# -- hidden information ---------------------------------------------------------------


def test_swaps_and_draws_hide_colours_from_others_until_the_end() -> None:
    # rule B-HIDDEN-1
    events = RULES.start(["a", "b", "c"], {}, 11)
    state = RULES.fold(events)
    seat = state.active
    swap = decide(state, SwapTiles(seat, **_two_of(state, seat)))
    assert isinstance(swap[0], TilesSwapped)
    after = evolve(state, swap[0])
    other = (seat + 1) % 3
    for viewer in (other, None):
        shown = RULES.event_view(swap[0], viewer, after)
        assert shown == {"seat": seat, "count": 2}
        started = RULES.event_view(events[0], viewer, after)
        assert isinstance(events[0], GameStarted) and "seed" not in started
        seen = RULES.view(after, viewer)
        hands = [s["hand"] is not None for s in seen["seats"]]
        assert any(hands) if viewer is not None else not any(hands)
        assert seen["bag"] is None and seen["seed"] is None
        assert seen["seats"][seat]["hand"] is None
        assert seen["seats"][seat]["points"] is None
    own = RULES.event_view(swap[0], seat, after)
    assert own["drawn"] == [str(c) for c in swap[0].drawn]
    # once the game is over, a spectator sees every hand, the bag, the seed and the swap
    from dataclasses import replace

    over = replace(after, agenda=(), ended="bag")
    assert RULES.event_view(swap[0], None, over) == RULES.events.encode(swap[0])[2]
    public = view(over, None)
    assert all("hand" in s and "points" in s for s in public["seats"])
    assert public["seed"] == 11 and len(public["bag"]) == len(over.bag)


def _two_of(state: State, seat: int) -> dict[str, int]:
    """Two tiles of the seat's hand as swap counts."""
    counts = {"black": 0, "red": 0, "blue": 0, "green": 0}
    left = 2
    for name, have in zip(counts, state.hands[seat], strict=True):
        take = min(have, left)
        counts[name] = take
        left -= take
    return counts


# -- revolts and treasures for other seats -----------------------------------------------


def test_a_moved_leader_starts_a_revolt_and_goes_to_supply_when_it_loses() -> None:
    # rule B-REVOLT-1
    # Given seat 2's priest on (9,6) and seat 1's priest in the kingdom of (4,7) (4,8),
    state = pos({(4, 7): "r.", (4, 8): "r.", (3, 7): "1r", (9, 6): "2r"}, ("", "r", ""), active=2)
    # when seat 2 moves its priest to (5,8), between (4,8) and the temple (6,8),
    after, _ = play(state, PlaceLeader(2, R, (5, 8)))
    # then seat 2 attacks with the temples by its new square, seat 1 defends,
    assert after.conflict is not None
    assert (after.conflict.attacker, after.conflict.defender) == (2, 1)
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (2, 1)
    after, _ = play(after, CommitSupport(2, 0), CommitSupport(1, 1))  # 2 against 2
    # and the tie sends the mover's priest to its supply, not back to (9,6).
    assert (
        after.leader_at(2, 1) == -1 and cell(after, (9, 6)) == ".." and cell(after, (5, 8)) == ".."
    )
    assert after.points[1] == (0, 1, 0, 0) and after.active == 2 and after.actions_left == 1


def test_the_traders_owner_chooses_treasures_in_another_players_action() -> None:
    # rule B-TREASURE-1
    # Given seat 1's trader by (0,10) and a black row to (2,5) broken at (1,7),
    board = {(0, 9): "k.", (1, 9): "k.", (1, 8): "k.", (1, 6): "k.", (1, 5): "k.", (0, 11): "1g"}
    state = pos(board, ("k", ""))
    # when seat 0 closes the gap,
    after, _ = play(state, PlaceTile(0, K, (1, 7)))
    # then seat 1 must take one of the two treasures before seat 0 goes on,
    assert after.decision == TREASURE and after.treasure_seat == 1 and after.points == state.points
    refused(after, Pass(0), "B-TREASURE-1")
    taken, events = play(after, TakeTreasures(1, ((0, 10),)))
    assert taken.taken == (0, 1) and taken.decision == "action" and taken.active == 0
    assert taken.actions_left == 1
    # and who took which is public (the board shows it), the count stays in the seat's view.
    assert RULES.event_view(events[0], 0, taken) == RULES.events.encode(events[0])[2]
    assert view(taken, 0)["seats"][1]["treasures"] is None
