"""Given/when/then tests of treasures (B-TREASURE-*), the game end and scoring (B-END-*)."""

from __future__ import annotations

from dataclasses import replace

from domain.board import (
    GameEnded,
    Pass,
    PlaceLeader,
    PlaceTile,
    SwapTiles,
    TakeTreasures,
    TreasuresTaken,
    TurnEnded,
    legal_commands,
    result,
    view,
)
from domain.board.geometry import square
from domain.board.model import TREASURE
from domain.common.colours import Colour
from domain.common.errors import FormatError, GameOver, NotAwaited
from tests.board.helpers import cell, pos, refused, run

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN

# Lion's trader (3,7) and bull's farmer (8,1) by the border treasure (7,1); a leaderless
# row of tiles leads to the treasure (9,5). A blue tile on the river (7,3) joins them.
BORDER = {(7, 2): "3g", (8, 1): "1b", (8, 3): "k.", (8, 4): "k.", (8, 5): "k."}


def test_rulebook_border_treasure_example() -> None:
    # rule B-TREASURE-2
    state = pos(BORDER, ("", "", "", "b"), active=3)
    after, _ = run(state, PlaceTile(3, B, (7, 3)))
    assert after.points[1] == (0, 0, 1, 0)  # first bull's farmer scores the blue tile
    assert square(7, 1) not in after.treasures and square(9, 5) in after.treasures
    assert after.taken == (0, 0, 0, 1)  # the border treasure had to be taken: no choice
    assert after.decision == "action"


def test_border_treasures_first_among_a_choice() -> None:
    # rule B-TREASURE-2
    board = {
        (0, 1): "k.",
        (0, 2): "k.",
        (0, 3): "k.",
        (1, 2): "3g",
        (0, 9): "k.",
        (1, 9): "k.",
        (1, 8): "k.",
        (1, 7): "k.",
        (1, 6): "k.",
        (1, 5): "k.",
        (1, 4): "b.",
        (1, 3): "k.",
    }
    # (1,1) border, (0,10) and (2,5) inner: take 2 of 3, the border one among them
    state = pos(board, ("", "", "", "k"), active=3)
    after, _ = run(state, PlaceTile(3, K, (0, 0)))  # the tile itself changes nothing
    assert after.decision == TREASURE and after.treasure_take == 2
    choices = set(legal_commands(after, 3))
    assert choices == {
        TakeTreasures(3, ((0, 10), (1, 1))),
        TakeTreasures(3, ((1, 1), (2, 5))),
    }
    refused(after, TakeTreasures(3, ((0, 10), (2, 5))), "B-TREASURE-2")


def test_trader_takes_all_treasures_but_one() -> None:
    # rule B-TREASURE-1
    board = {
        (0, 9): "k.",
        (1, 9): "k.",
        (1, 8): "k.",
        (1, 7): "k.",
        (1, 6): "k.",
        (1, 5): "k.",
        (3, 5): "0k",
    }
    state = pos(board, ("", "", "", "k"), active=3)
    after, _ = run(state, PlaceLeader(3, G, (0, 11)))
    assert after.decision == TREASURE and after.treasure_seat == 3
    assert after.treasure_squares == (square(0, 10), square(2, 5))
    refused(after, TakeTreasures(3, ((0, 10), (2, 5))), "B-TREASURE-1")  # not both
    refused(after, TakeTreasures(3, ((6, 8),)), "B-TREASURE-1")  # not of this kingdom
    refused(after, Pass(3), "B-TREASURE-1", NotAwaited)
    taken, events = run(after, TakeTreasures(3, ((2, 5),)))
    assert events[0] == TreasuresTaken(3, ((2, 5),))
    assert taken.taken[3] == 1 and square(0, 10) in taken.treasures
    assert cell(taken, (2, 5)) == "r."  # the temple stays
    try:
        run(after, TakeTreasures(3, ((2, 5), (2, 5))))
    except FormatError as exc:
        assert exc.field == "squares"
    else:
        raise AssertionError("duplicate square accepted")


def test_treasures_wait_for_a_trader() -> None:
    # rule B-TREASURE-3
    board = {
        (0, 9): "k.",
        (1, 9): "k.",
        (1, 8): "k.",
        (1, 7): "k.",
        (1, 6): "k.",
        (1, 5): "k.",
        (3, 5): "0k",
    }
    state = pos(board, ("", "k"), active=1)
    after, _ = run(state, PlaceLeader(1, B, (0, 11)))
    assert after.decision == "action" and len(after.treasures) == 10  # no trader: they stay
    after, _ = run(after, PlaceLeader(1, G, (2, 6)))  # a trader arrives later
    assert after.decision == TREASURE and after.treasure_seat == 1


def test_taken_treasures_are_secret_wild_points() -> None:
    # rule B-TREASURE-4
    state = pos({}, ("", ""), taken=[2, 0], points=[[3, 1, 2, 2], [5, 5, 5, 5]])
    assert view(state, 0)["seats"][0]["treasures"] == 2
    assert view(state, 1)["seats"][0]["treasures"] is None
    over = replace(state, agenda=(), ended="bag")
    scored = result(over)
    assert scored is not None
    assert scored["seats"][0]["key"] == [2, 2, 3, 3]  # both treasures went to the weakest
    assert scored["seats"][0]["treasures_assigned"] == {"red": 2}


def test_fewer_than_three_treasures_end_the_game_at_turn_end() -> None:
    # rule B-END-1
    three = {
        (1, 1): "r.",
        (1, 15): "r.",
        (7, 1): "r.",
        (8, 14): "r.",
        (4, 13): "r.",
        (6, 8): "r.",
        (10, 10): "r.",
        (1, 9): "k.",
        (1, 8): "k.",
        (1, 7): "k.",
        (1, 6): "k.",
        (1, 5): "k.",
        (0, 9): "k.",
    }
    state = pos(three, ("k", "k"), taken=[3, 4])
    after, _ = run(state, PlaceLeader(0, G, (0, 11)))  # takes 1 of (0,10), (2,5): 2 left
    after, _ = run(after, TakeTreasures(0, ((2, 5),)))
    assert len(after.treasures) == 2 and after.decision == "action"  # the turn goes on
    after, events = run(after, Pass(0))
    assert events[-2:] == [TurnEnded(0), GameEnded("treasures")]
    assert after.decision == "over"
    refused(after, Pass(1), "B-END-1", GameOver)
    enough, events = run(state, Pass(0), Pass(0))  # still 3 treasures: the game goes on
    assert enough.decision == "action" and not isinstance(events[-1], GameEnded)


def test_empty_bag_ends_the_game_at_once() -> None:
    # rule B-END-2
    state = pos({}, ("kkkkkk", "kkkk"), bag_size=1, actions_left=1)
    after, events = run(state, PlaceTile(0, K, (5, 5)))
    assert isinstance(events[-2], type(events[-2])) and events[-1] == GameEnded("bag")
    assert after.decision == "over" and after.ended == "bag"
    refused(after, Pass(1), "B-END-2", GameOver)
    enough = pos({}, ("kkkkkk", "kkkkkk"), bag_size=1, actions_left=1)
    after, _ = run(enough, PlaceTile(0, K, (5, 5)))  # one tile is all it needs
    assert after.decision == "action" and after.bag == ()
    _, events = run(pos({}, ("kkkkkk", ""), bag_size=0), SwapTiles(0, black=1))
    assert events == [GameEnded("bag")]


def test_rulebook_final_scoring_example() -> None:
    # rule B-END-3
    points = [[22, 6, 14, 12], [10, 10, 11, 15], [12, 9, 11, 13], [12, 10, 10, 14]]
    state = pos({}, ("", "", "", ""), points=points, taken=[3, 0, 2, 0])
    scored = result(replace(state, agenda=(), ended="treasures"))
    assert scored is not None
    by_seat = {s["dynasty"]: s for s in scored["seats"]}
    assert by_seat["pot"]["score"] == 11 and by_seat["pot"]["place"] == 1
    assert by_seat["lion"]["key"] == [10, 10, 12, 14] and by_seat["lion"]["place"] == 2
    assert by_seat["bull"]["key"] == [10, 10, 11, 15] and by_seat["bull"]["place"] == 3
    assert by_seat["archer"]["score"] == 9 and by_seat["archer"]["place"] == 4  # 22 black!
    assert scored["places"] == [[2], [3], [1], [0]]
    tie = pos({}, ("", ""), points=[[1, 2, 3, 4], [4, 3, 2, 1]])
    shared = result(replace(tie, agenda=(), ended="bag"))
    assert shared is not None and shared["places"] == [[0, 1]]  # still tied: shared victory
    assert result(tie) is None
