"""Given/when/then tests of the leader action (B-LEADER-*)."""

from __future__ import annotations

from domain.board import LeaderMoved, LeaderPlaced, PlaceCatastrophe, PlaceLeader, WithdrawLeader
from domain.board.model import COMMIT
from domain.common.colours import Colour
from domain.common.errors import FormatError, NotAwaited
from tests.board.helpers import allowed, cell, pos, refused, run

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


def test_only_own_leaders_on_empty_land() -> None:
    # rule B-LEADER-1
    state = pos({(6, 7): "k."}, ("kkkkkk", "kkkkkk"))
    # allows: the active seat places its own leader from the supply on empty land
    after, events = run(state, PlaceLeader(0, K, (5, 8)))
    assert events == [LeaderPlaced(0, K, (5, 8))]
    assert cell(after, (5, 8)) == "0k"
    # forbids: another seat's command, a river square, an occupied square
    refused(state, PlaceLeader(1, K, (5, 8)), "B-TURN-1", NotAwaited)
    refused(state, PlaceLeader(0, K, (2, 4)), "B-LEADER-1")  # river next to temple (2,5)
    refused(state, PlaceLeader(0, K, (6, 7)), "B-LEADER-1")  # a tile stands there
    try:
        run(state, PlaceLeader(0, K, (11, 0)))
    except FormatError as exc:
        assert exc.field == "at"
    else:
        raise AssertionError("off-board square accepted")


def test_leader_next_to_face_up_temple() -> None:
    # rule B-LEADER-2
    state = pos(
        {(3, 6): "R.", (3, 7): "R.", (4, 6): "R.", (4, 7): "R."},
        ("k", "k"),
        monuments=[("red-blue", (3, 6))],
    )
    allowed(state, PlaceLeader(0, G, (5, 8)))  # next to the temple on (6,8)
    refused(state, PlaceLeader(0, G, (4, 9)), "B-LEADER-2")  # no temple around
    refused(state, PlaceLeader(0, G, (2, 7)), "B-LEADER-2")  # only a face-down temple


def test_leader_never_joins_two_kingdoms() -> None:
    # rule B-LEADER-3
    pieces = {(4, 6): "r.", (3, 6): "0k", (4, 8): "r.", (3, 8): "1k"}
    state = pos(pieces, ("k", "k"))
    refused(state, PlaceLeader(0, R, (4, 7)), "B-LEADER-3")
    # allows: one kingdom with a leaderless region, or two leaderless regions
    lone = pos({(4, 6): "r.", (3, 6): "0k", (4, 8): "r."}, ("k", "k"))
    allowed(lone, PlaceLeader(0, R, (4, 7)))
    bare = pos({(4, 6): "r.", (4, 8): "r."}, ("k", "k"))
    allowed(bare, PlaceLeader(0, R, (4, 7)))


def test_a_move_lifts_the_leader_first() -> None:
    # rule B-LEADER-4
    state = pos({(4, 6): "r.", (3, 6): "0r", (4, 8): "r.", (3, 8): "1k"}, ("k", "k"))
    # allows: without the moving priest (4,6) is leaderless, so (4,7) touches one kingdom
    after, events = run(state, PlaceLeader(0, R, (4, 7)))
    assert events == [LeaderMoved(0, R, (3, 6), (4, 7))]
    assert cell(after, (3, 6)) == ".." and cell(after, (4, 7)) == "0r"
    # forbids: staying on the same square, moving onto a river, a move joining two kingdoms
    refused(state, PlaceLeader(0, R, (3, 6)), "B-LEADER-4")
    refused(state, PlaceLeader(0, R, (2, 4)), "B-LEADER-1")
    two = pos({(4, 6): "r.", (3, 6): "0k", (4, 8): "r.", (3, 8): "1k", (5, 5): "0r"}, ("k", "k"))
    refused(two, PlaceLeader(0, R, (4, 7)), "B-LEADER-3")


def test_withdraw_returns_leader_to_supply() -> None:
    # rule B-LEADER-5
    state = pos({(5, 8): "0b", (7, 8): "1g"}, ("k", "k"))
    after, _ = run(state, WithdrawLeader(0, B))
    assert after.leader_at(0, 2) == -1 and cell(after, (5, 8)) == ".."
    refused(state, WithdrawLeader(0, G), "B-LEADER-5")  # seat 1's trader is not ours
    refused(state, WithdrawLeader(0, K), "B-LEADER-5")


def test_same_colour_leader_in_kingdom_starts_revolt() -> None:
    # rule B-LEADER-6
    state = pos({(5, 8): "1r"}, ("k", "k"))
    after, _ = run(state, PlaceLeader(0, R, (7, 8)))
    assert after.decision == COMMIT
    calm, _ = run(state, PlaceLeader(0, K, (7, 8)))
    assert calm.decision == "action" and calm.conflict is None


def test_leader_without_temple_returns_at_once() -> None:
    # rule B-LEADER-7
    state = pos({(4, 6): "r.", (3, 6): "0k", (4, 5): "0b", (5, 5): "r."}, ("k", "k"))
    after, _ = run(state, PlaceCatastrophe(0, (4, 6)))
    assert after.leader_at(0, 0) == -1  # the king lost its only temple
    assert after.leader_at(0, 2) == 4 * 16 + 5  # the farmer on (4,5) still has (5,5)


def test_placing_leaders_scores_nothing() -> None:
    # rule B-LEADER-8
    state = pos({(5, 8): "1k"}, ("k", "k"))
    after, _ = run(state, PlaceLeader(0, B, (7, 8)), PlaceLeader(0, G, (6, 7)))
    assert after.points == state.points
