"""Given/when/then tests of monuments (B-MONUMENT-*), with the rulebook example."""

from __future__ import annotations

from domain.board import (
    BuildMonument,
    CommitSupport,
    DeclineMonument,
    Monument,
    MonumentBuilt,
    Pass,
    PlaceLeader,
    PlaceTile,
    dump_position,
    legal_commands,
    load_position,
)
from domain.board.geometry import square
from domain.board.model import MONUMENT
from domain.common.colours import Colour
from domain.common.errors import NotAwaited
from tests.board.helpers import Square, allowed, cell, pos, refused, run, version_2_position

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN

# Three temples of a 2x2 square; archer's farmer (2,7) leans on (3,7) only, archer's
# priest (3,8) also has (4,8); bull's king (4,9) stands by (4,8).
EXAMPLE = {
    (3, 6): "r.",
    (3, 7): "r.",
    (4, 6): "r.",
    (4, 8): "r.",
    (2, 7): "0b",
    (3, 8): "0r",
    (4, 9): "1k",
}


def test_rulebook_monument_example() -> None:
    # rule B-MONUMENT-5
    state = pos(EXAMPLE, ("", "rkkkkk"), active=1, actions_left=1)
    after, _ = run(state, PlaceTile(1, R, (4, 7)))
    assert after.points[0] == (0, 1, 0, 0)  # archer's priest scores the temple
    assert after.decision == MONUMENT and after.candidates == (square(3, 6),)
    after, events = run(after, BuildMonument(1, Monument.BLACK_RED, (3, 6)))
    assert events[0] == MonumentBuilt(1, Monument.BLACK_RED, (3, 6))
    assert [cell(after, sq) for sq in ((3, 6), (3, 7), (4, 6), (4, 7))] == ["R."] * 4
    assert after.leader_at(0, 2) == -1  # the farmer lost its last temple
    assert after.leader_at(0, 1) >= 0 and after.leader_at(1, 0) >= 0
    # the end of bull's turn: its king is in the monument's kingdom
    assert after.points[1] == (1, 0, 0, 0) and after.active == 0
    # the end of archer's next turn: its priest scores red
    after, _ = run(after, Pass(0), Pass(0))
    assert after.points[0] == (0, 2, 0, 0) and after.points[1] == (1, 0, 0, 0)


def test_build_a_monument_of_the_tiles_colour() -> None:
    # rule B-MONUMENT-1
    state = pos(EXAMPLE, ("", "r"), active=1)
    after, _ = run(state, PlaceTile(1, R, (4, 7)))
    builds = {c for c in legal_commands(after, 1) if isinstance(c, BuildMonument)}
    assert {c.monument for c in builds} == {
        Monument.BLACK_RED,
        Monument.RED_BLUE,
        Monument.RED_GREEN,
    }
    refused(after, BuildMonument(1, Monument.BLUE_GREEN, (3, 6)), "B-MONUMENT-1")
    refused(after, BuildMonument(1, Monument.RED_BLUE, (3, 7)), "B-MONUMENT-1")
    refused(after, Pass(1), "B-MONUMENT-1", NotAwaited)
    allowed(after, BuildMonument(1, Monument.RED_GREEN, (3, 6)))
    quiet = pos({(3, 6): "r.", (3, 7): "r.", (4, 6): "k."}, ("r", ""))
    after, _ = run(quiet, PlaceTile(0, R, (4, 7)))  # not four of one colour
    assert after.decision == "action"


def test_no_monument_left_of_the_colour() -> None:
    # rule B-MONUMENT-2
    built = {
        (9, 0): "K.",
        (9, 1): "K.",
        (10, 0): "K.",
        (10, 1): "K.",
        (9, 2): "R.",
        (9, 3): "R.",
        (10, 2): "R.",
        (10, 3): "R.",
        (9, 7): "G.",
        (9, 8): "G.",
        (10, 7): "G.",
        (10, 8): "G.",
    }
    monuments = [("black-red", (9, 0)), ("red-blue", (9, 2)), ("red-green", (9, 7))]
    state = pos({**EXAMPLE, **built}, ("", "r"), active=1, monuments=monuments)
    after, _ = run(state, PlaceTile(1, R, (4, 7)))
    assert after.decision == "action" and cell(after, (3, 6)) == "r."
    assert not after.declined


def test_declined_square_never_again_and_one_square_at_most() -> None:
    # rule B-MONUMENT-3
    state = pos(EXAMPLE, ("", "r"), active=1)
    after, _ = run(state, PlaceTile(1, R, (4, 7)), DeclineMonument(1))
    assert after.declined == frozenset({square(3, 6)}) and cell(after, (3, 6)) == "r."
    again = pos(EXAMPLE, ("", "r"), active=1, declined=[(3, 6)])
    after, _ = run(again, PlaceTile(1, R, (4, 7)))
    assert after.decision == "action"  # the declined square is not offered again
    double = pos(
        {(3, 6): "r.", (3, 7): "r.", (4, 6): "r.", (5, 6): "r.", (5, 7): "r.", (4, 5): "0r"},
        ("r", ""),
    )
    after, _ = run(double, PlaceTile(0, R, (4, 7)))
    assert after.candidates == (square(3, 6), square(4, 6))
    after, _ = run(after, BuildMonument(0, Monument.RED_BLUE, (4, 6)))
    assert cell(after, (3, 6)) == "r." and after.decision == "action"  # only one built


def test_face_down_tiles_connect_but_are_no_temples() -> None:
    # rule B-MONUMENT-4
    monument = {(3, 6): "K.", (3, 7): "K.", (4, 6): "K.", (4, 7): "K.", (2, 6): "1k", (2, 5): "r*"}
    state = pos(monument, ("k", ""), monuments=[("black-red", (3, 6))])
    after, _ = run(state, PlaceTile(0, K, (5, 7)))  # connected through the monument
    assert after.points[1] == (1, 0, 0, 0)
    refused(state, PlaceLeader(0, K, (3, 8)), "B-LEADER-2")
    refused(state, PlaceLeader(0, K, (5, 6)), "B-LEADER-2")


def test_treasure_stays_on_a_flipped_temple() -> None:
    # rule B-MONUMENT-5
    state = pos({(1, 5): "r.", (2, 6): "r.", (3, 5): "0k", (1, 7): "r.", (0, 7): "~~"}, ("r", ""))
    after, _ = run(state, PlaceTile(0, R, (1, 6)), BuildMonument(0, Monument.RED_GREEN, (1, 5)))
    assert cell(after, (2, 5)) == "R*" and square(2, 5) in after.treasures
    assert after.leader_at(0, 0) == -1  # its only temple (2,5) is face down now


def test_monument_points_for_the_active_player_at_turn_end() -> None:
    # rule B-MONUMENT-6
    monument = {
        (3, 6): "G.",
        (3, 7): "G.",
        (4, 6): "G.",
        (4, 7): "G.",
        (4, 8): "r.",
        (3, 8): "0k",
        (5, 8): "0b",
        (4, 9): "1g",
    }
    state = pos(monument, ("", ""), monuments=[("blue-green", (3, 6))], actions_left=1)
    after, _ = run(state, Pass(0))
    assert after.points[0] == (0, 0, 1, 0)  # the farmer scores blue; the king nothing
    assert after.points[1] == (0, 0, 0, 0)  # seat 1 only scores at the end of its own turn
    after, _ = run(after, Pass(1), Pass(1))
    assert after.points[1] == (0, 0, 0, 1)


# Two kingdoms that a black tile on (9, 4) joins; the 2x2 square at (8, 2) was declined.
DECLINED_SQUARE = ((8, 2), (8, 3), (9, 2), (9, 3))


def _declined_war(colour: str, defender: dict[tuple[int, int], str]) -> dict[Square, str]:
    board: dict[Square, str] = {sq: f"{colour}." for sq in DECLINED_SQUARE}
    board.update(defender)
    board[(9, 6)] = f"0{colour}"  # the attacker's leader, by the start temple (9, 5)
    for sq in ((10, 5), (10, 6), (10, 7), (10, 8), (9, 7)):  # five on the attacker's side
        board[sq] = f"{colour}."
    return board


def test_a_declined_square_is_offered_again_once_all_its_tiles_have_left() -> None:
    # rule B-MONUMENT-3 rule B-MONUMENT-1 rule B-WAR-7
    # given a declined green square in the defender's kingdom
    board = _declined_war("g", {(9, 1): "1g", (10, 1): "r."})
    state = pos(board, ("kggggg", ""), declined=[(8, 2)])
    assert state.declined == frozenset({square(8, 2)})
    # when a war (5 against 4) removes all four declined tiles
    after, _ = run(state, PlaceTile(0, K, (9, 4)), CommitSupport(0, 0), CommitSupport(1, 0))
    assert all(cell(after, sq) == ".." for sq in DECLINED_SQUARE)
    # then the ban is over: nothing of it is left in the state or the position
    assert after.declined == frozenset() and after.declined_tiles == frozenset()
    assert dump_position(after)["declined"] == []
    # (a version-1 position naming that square bare reads the same: its tiles are gone)
    v1 = load_position({**version_2_position(after), "version": 1, "declined": [[8, 2]]})
    assert v1.declined == frozenset() and v1 == after
    # and four new green tiles completing the square there are offered a monument
    after, _ = run(after, PlaceTile(0, G, (8, 2)), Pass(1), Pass(1))
    after, _ = run(after, PlaceTile(0, G, (8, 3)), PlaceTile(0, G, (9, 2)), Pass(1), Pass(1))
    after, _ = run(after, PlaceTile(0, G, (9, 3)))
    assert after.decision == MONUMENT and after.candidates == (square(8, 2),)
    allowed(after, BuildMonument(0, Monument.BLUE_GREEN, (8, 2)))


def test_a_declined_square_stays_banned_while_one_of_its_tiles_remains() -> None:
    # rule B-MONUMENT-3 rule B-WAR-7
    # given a declined red square whose temple on (9, 3) also supports the loser's king
    board = _declined_war("r", {(9, 1): "1r", (10, 3): "1k"})
    state = pos(board, ("krrrrr", ""), declined=[(8, 2)])
    # when a red war removes three of its four temples
    after, _ = run(state, PlaceTile(0, K, (9, 4)), CommitSupport(0, 0), CommitSupport(1, 0))
    assert [cell(after, sq) for sq in DECLINED_SQUARE] == ["..", "..", "..", "r."]
    assert after.declined == frozenset({square(8, 2)})
    assert dump_position(after)["declined"] == [{"at": [8, 2], "tiles": [[9, 3]]}]
    # then three new temples completing the square with the old one are offered nothing
    after, _ = run(after, PlaceTile(0, R, (8, 2)), Pass(1), Pass(1))
    after, _ = run(after, PlaceTile(0, R, (8, 3)), PlaceTile(0, R, (9, 2)))
    assert after.decision != MONUMENT and after.candidates == ()
    # and the position format keeps the ban exactly (version 2), and reads version 1
    assert load_position(dump_position(after)) == after
    old = {**version_2_position(after), "version": 1, "declined": [[8, 2]]}
    assert load_position(old).declined_tiles == {
        (square(8, 2), sq) for sq in map(lambda rc: square(*rc), DECLINED_SQUARE)
    }
