"""Given/when/then tests of catastrophes, swaps and the turn (B-CAT-*, B-SWAP-*, B-TURN-*)."""

from __future__ import annotations

from domain.board import (
    CommitSupport,
    GameEnded,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    SwapTiles,
    TilePlaced,
    TilesDrawn,
    TilesSwapped,
    TurnEnded,
    decide,
    dump_position,
    evolve,
    legal_commands,
    load_position,
)
from domain.board.model import COMMIT
from domain.common.colours import Colour
from domain.common.errors import NotAwaited
from tests.board.helpers import allowed, cell, pos, refused, run

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


def test_catastrophe_on_empty_square_or_tile_for_good() -> None:
    # rule B-CAT-1
    state = pos({(5, 5): "k."}, ("kkk", ""))
    after, _ = run(state, PlaceCatastrophe(0, (5, 5)))
    assert cell(after, (5, 5)) == "XX" and after.out == (1, 0, 0, 0)  # the tile left the game
    allowed(state, PlaceCatastrophe(0, (3, 0)))  # an empty river square
    refused(after, PlaceCatastrophe(0, (5, 5)), "B-CAT-1")
    refused(after, PlaceTile(0, K, (5, 5)), "B-TILE-1")  # nothing goes there any more
    refused(after, PlaceLeader(0, K, (5, 5)), "B-LEADER-1")


def test_catastrophe_not_on_treasure_monument_or_leader() -> None:
    # rule B-CAT-2
    monument = {(3, 6): "K.", (3, 7): "K.", (4, 6): "K.", (4, 7): "K.", (5, 8): "0k"}
    state = pos(monument, ("k", ""), monuments=[("black-red", (3, 6))])
    refused(state, PlaceCatastrophe(0, (6, 8)), "B-CAT-2")  # treasure
    refused(state, PlaceCatastrophe(0, (3, 6)), "B-CAT-2")  # monument
    refused(state, PlaceCatastrophe(0, (5, 8)), "B-CAT-2")  # leader
    allowed(state, PlaceCatastrophe(0, (5, 7)))


def test_catastrophe_splits_kingdoms() -> None:
    # rule B-CAT-3
    pieces = {(4, 5): "r.", (4, 6): "k.", (4, 7): "k.", (4, 8): "r.", (3, 5): "0k", (3, 8): "1g"}
    state = pos(pieces, ("gg", ""))
    whole, _ = run(state, PlaceTile(0, G, (5, 5)))
    assert whole.points[1] == (0, 0, 0, 1)  # one kingdom: seat 1's trader scores green
    split, _ = run(state, PlaceCatastrophe(0, (4, 6)), PlaceTile(0, G, (5, 5)))
    assert split.points[1] == (0, 0, 0, 0) and split.points[0] == (0, 0, 0, 1)


def test_two_catastrophes_per_player() -> None:
    # rule B-CAT-4
    state = pos({}, ("k", ""), catastrophes=[1, 2])
    after, _ = run(state, PlaceCatastrophe(0, (5, 5)))
    assert after.catastrophes == (0, 2)
    refused(after, PlaceCatastrophe(0, (5, 6)), "B-CAT-4")
    assert not any(isinstance(c, PlaceCatastrophe) for c in legal_commands(after, 0))


def test_swap_discards_and_draws_usable_at_once() -> None:
    # rule B-SWAP-1
    state = pos({}, ("kkkrrb", ""), bag="gggggg")
    after, events = run(state, SwapTiles(0, black=3))
    assert events == [TilesSwapped(0, 3, 0, 0, 0, (G, G, G))]
    assert after.hands[0] == (0, 2, 1, 3) and after.out == (3, 0, 0, 0)
    allowed(after, PlaceTile(0, G, (5, 5)))  # a drawn tile is used by the second action
    refused(state, SwapTiles(0), "B-SWAP-1")  # nothing to swap
    refused(state, SwapTiles(0, green=1), "B-SWAP-1")  # not in hand


def test_swap_with_short_bag_ends_the_game() -> None:
    # rule B-SWAP-2
    short = pos({}, ("kkkrrb", ""), bag_size=2)
    after, events = run(short, SwapTiles(0, black=3))
    assert events == [GameEnded("bag")] and after.decision == "over"
    allowed(short, SwapTiles(0, black=2))  # two tiles are still there


def test_two_actions_per_turn_then_the_next_seat() -> None:
    # rule B-TURN-1
    state = pos({}, ("kkkkkk", "kkkkkk"))
    after, _ = run(state, PlaceTile(0, K, (5, 5)), PlaceTile(0, K, (5, 6)))
    assert after.active == 1 and after.turn == 2
    refused(after, PlaceTile(0, K, (5, 7)), "B-TURN-1", NotAwaited)  # no third action
    passed, events = run(state, Pass(0), Pass(0))  # passing both actions is allowed
    assert passed.active == 1 and events[-1] == TurnEnded(0)


def test_the_four_actions_and_nothing_else() -> None:
    # rule B-TURN-2
    state = pos({(5, 8): "0k"}, ("kkrbgg", "kkkkkk"))
    kinds = {type(c).__name__ for c in legal_commands(state, 0)}
    assert kinds == {
        "PlaceLeader",
        "WithdrawLeader",
        "PlaceTile",
        "PlaceCatastrophe",
        "SwapTiles",
        "Pass",
    }
    refused(state, CommitSupport(0, 0), "B-TURN-1", NotAwaited)


def test_an_action_ends_when_its_conflict_is_resolved() -> None:
    # rule B-TURN-3
    state = pos({(5, 8): "1r"}, ("rk", "r"), actions_left=1)
    after, events = run(state, PlaceLeader(0, R, (7, 8)))
    assert after.decision == COMMIT and after.active == 0  # the turn is not over yet
    assert not any(isinstance(e, TurnEnded) for e in events)
    done, events = run(after, CommitSupport(0, 1), CommitSupport(1, 0))
    assert isinstance(events[-1], TurnEnded) and done.active == 1


def test_end_of_turn_draws_in_order_from_active_player() -> None:
    # rule B-TURN-4
    state = pos({}, ("kkkk", "kk", "kkk"), active=1, bag="bbbbgggggrrr", actions_left=1)
    after, events = run(state, Pass(1))
    assert events == [
        events[0],
        TilesDrawn(1, (B, B, B, B)),
        TilesDrawn(2, (G, G, G)),
        TilesDrawn(0, (G, G)),
        TurnEnded(1),
    ]
    assert after.active == 2 and all(sum(h) == 6 for h in after.hands)


def test_evolve_reuses_the_states_decide_computed_for_those_very_events_only() -> None:
    # given a command that ends the turn: decide evolves its events to see it
    state = pos({}, ("kkkk", "kk"), bag="bbgggg", actions_left=1)
    events = decide(state, Pass(0))
    assert isinstance(events[-1], TurnEnded)
    # when the caller evolves them, it gets the states a fresh position also leads to
    fresh = load_position(dump_position(state))  # equal, with nothing memoised
    reused, recomputed = state, fresh
    for event in events:
        reused, recomputed = evolve(reused, event), evolve(recomputed, event)
        assert reused == recomputed
    # and decide's state is handed out once, for the event object decide returned
    again = decide(state, Pass(0))
    first = evolve(state, again[0])
    assert evolve(state, again[0]) == first and evolve(state, again[0]) is not first
    # and another event applied to that state is applied, whatever decide left behind
    decide(state, Pass(0))
    placed = evolve(state, TilePlaced(0, K, (10, 15)))
    assert cell(placed, (10, 15)) == "k." and placed.hands[0][0] == 3
