"""Given/when/then tests of revolts and wars (B-REVOLT-*, B-WAR-*), with the rulebook examples."""

from __future__ import annotations

from domain.board import (
    ChooseWar,
    CommitSupport,
    PlaceLeader,
    PlaceTile,
    TilesDrawn,
    WarChosen,
    legal_commands,
)
from domain.board.geometry import square
from domain.board.model import CHOOSE_WAR, COMMIT, REVOLT, WAR
from domain.common.colours import Colour
from domain.common.errors import NotAwaited
from tests.board.helpers import allowed, cell, pos, refused, run

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN

# A kingdom whose priest (seat 1, on (3,6)) has one temple; (5,8) touches two temples.
REVOLT_BOARD = {(4, 6): "r.", (4, 7): "k.", (4, 8): "r.", (3, 6): "1r"}


def test_rulebook_revolt_example() -> None:
    # rule B-REVOLT-4
    # Given the attacker's priest next to 2 temples and the defender's next to 1,
    state = pos(REVOLT_BOARD, ("rrkkbg", "rrrkbg"))
    after, _ = run(state, PlaceLeader(0, R, (5, 8)))
    assert after.conflict is not None
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (2, 1)
    # when the attacker commits 2 temples and the defender 3,
    after, _ = run(after, CommitSupport(0, 2), CommitSupport(1, 3))
    # then 4 against 4 is a tie, the defender wins and scores 1 red,
    assert after.leader_at(0, 1) == -1 and cell(after, (3, 6)) == "1r"
    assert after.points[1] == (0, 1, 0, 0) and after.points[0] == (0, 0, 0, 0)
    # and the 5 committed temples leave the game.
    assert after.out[1] == 5 and after.hands[0][1] == 0 and after.hands[1][1] == 0


def test_revolt_sides() -> None:
    # rule B-REVOLT-1
    state = pos(REVOLT_BOARD, ("rr", "rr", "rr"), active=2)
    after, _ = run(state, PlaceLeader(2, R, (5, 8)))
    assert after.conflict is not None
    assert (after.conflict.kind, after.conflict.attacker, after.conflict.defender) == (REVOLT, 2, 1)
    refused(after, CommitSupport(1, 0), "B-REVOLT-3", NotAwaited)  # the attacker goes first
    refused(after, CommitSupport(0, 0), "B-REVOLT-3", NotAwaited)  # seat 0 is not involved


def test_revolt_strength_counts_adjacent_temples() -> None:
    # rule B-REVOLT-2
    board = dict(REVOLT_BOARD)
    board[(5, 7)] = "r."  # a temple next to both (5,8) and nothing of the defender's
    after, _ = run(pos(board, ("r", "r")), PlaceLeader(0, R, (5, 8)))
    assert after.conflict is not None
    # (4,8), (6,8) and (5,7) for the attacker; the black tile (4,7) does not count
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (3, 1)


def test_revolt_commitments_red_tiles_once_each() -> None:
    # rule B-REVOLT-3
    after, _ = run(pos(REVOLT_BOARD, ("rrkkbg", "rrrkbg")), PlaceLeader(0, R, (5, 8)))
    assert {c.count for c in legal_commands(after, 0) if isinstance(c, CommitSupport)} == {
        0,
        1,
        2,
    }  # red tiles only
    refused(after, CommitSupport(0, 3), "B-REVOLT-3")
    after, _ = run(after, CommitSupport(0, 2))
    assert after.conflict is not None and after.conflict.attacker_commit == 2
    refused(after, CommitSupport(0, 0), "B-REVOLT-3", NotAwaited)  # only once
    allowed(after, CommitSupport(1, 3))


def test_revolt_outcome() -> None:
    # rule B-REVOLT-5
    after, _ = run(pos(REVOLT_BOARD, ("rrr", "r")), PlaceLeader(0, R, (5, 8)))
    after, _ = run(after, CommitSupport(0, 1), CommitSupport(1, 1))  # 3 against 2
    assert after.leader_at(1, 1) == -1 and cell(after, (5, 8)) == "0r"
    assert after.points[0] == (0, 1, 0, 0) and after.out[1] == 2
    assert after.decision == "action" and after.actions_left == 1


# The rulebook's war: lion (seat 3) unites its kingdom (trader, 1 green; bull's king)
# with pot's (trader, 2 green; archer's king) by a black tile on (4,8).
WAR_BOARD = {
    (4, 5): "r.",
    (3, 5): "0k",
    (5, 5): "2g",
    (4, 6): "g.",
    (4, 7): "g.",
    (4, 9): "g.",
    (4, 10): "r.",
    (3, 10): "3g",
    (5, 10): "1k",
}


def test_rulebook_war_example() -> None:
    # rule B-WAR-6
    state = pos(WAR_BOARD, ("", "", "gbbrrk", "kggggr"), active=3)
    after, _ = run(state, PlaceTile(3, K, (4, 8)))
    assert after.decision == CHOOSE_WAR and set(after.wars) == {0, 3}
    after, events = run(after, ChooseWar(3, G))
    assert events == [WarChosen(3, G)]
    assert after.conflict is not None
    assert (after.conflict.attacker, after.conflict.defender) == (3, 2)
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (1, 2)
    after, _ = run(after, CommitSupport(3, 4), CommitSupport(2, 1))  # 5 against 3
    # the loser's trader and both its supporters leave; the winner scores 3 green
    assert after.leader_at(2, 3) == -1
    assert cell(after, (4, 6)) == ".." and cell(after, (4, 7)) == ".."
    assert after.points[3] == (0, 0, 0, 3)
    assert after.out[3] == 7  # 5 committed + 2 removed
    # the kingdom fell apart, so the kings' war is void and the marker is gone
    assert after.unification == -1 and after.decision == "action" and after.actions_left == 1
    assert after.leader_at(0, 0) >= 0 and after.leader_at(1, 0) >= 0


def test_every_doubled_colour_is_a_war() -> None:
    # rule B-WAR-1
    state = pos(WAR_BOARD, ("", "", "gbbrrk", "kggggr"), active=3)
    after, _ = run(state, PlaceTile(3, K, (4, 8)))
    assert sorted(after.wars) == [0, 3]
    quiet = dict(WAR_BOARD)
    quiet[(5, 10)] = "1b"  # no second king: only the traders fight
    after, _ = run(pos(quiet, ("", "", "g", "kg"), active=3), PlaceTile(3, K, (4, 8)))
    assert after.decision == COMMIT and after.conflict is not None
    assert after.conflict.colour == 3


def test_active_player_chooses_the_next_war() -> None:
    # rule B-WAR-2
    state = pos(WAR_BOARD, ("", "", "g", "kg"), active=3)
    after, _ = run(state, PlaceTile(3, K, (4, 8)))
    assert set(legal_commands(after, 3)) == {ChooseWar(3, K), ChooseWar(3, G)}
    refused(after, ChooseWar(3, R), "B-WAR-2")
    refused(after, ChooseWar(2, K), "B-WAR-2", NotAwaited)
    after, _ = run(after, ChooseWar(3, K))
    assert after.conflict is not None and after.conflict.colour == 0


def test_war_attacker_is_active_or_first_clockwise() -> None:
    # rule B-WAR-3
    state = pos(WAR_BOARD, ("k", "", "", ""), active=0)
    after, _ = run(state, PlaceTile(0, K, (4, 8)), ChooseWar(0, G))
    assert after.conflict is not None
    assert (after.conflict.attacker, after.conflict.defender) == (2, 3)  # seat 0 not involved
    after, _ = run(state, PlaceTile(0, K, (4, 8)), ChooseWar(0, K))
    assert after.conflict is not None
    assert (after.conflict.attacker, after.conflict.defender) == (0, 1)  # seat 0 is involved
    wrap = pos(WAR_BOARD, ("", "", "", "k"), active=3)
    after, _ = run(wrap, PlaceTile(3, K, (4, 8)), ChooseWar(3, K))
    assert after.conflict is not None
    assert (after.conflict.attacker, after.conflict.defender) == (0, 1)  # 3 -> 0 -> 1


def test_war_strength_counts_own_side_tiles_of_the_colour() -> None:
    # rule B-WAR-4
    board = dict(WAR_BOARD)
    board[(5, 6)] = "g."  # not adjacent to the trader, still on its side
    board[(3, 6)] = "G."  # face down under a monument: no support
    board[(3, 7)] = "G."
    board[(2, 6)] = "G."
    board[(2, 7)] = "G."
    state = pos(board, ("", "", "", "kg"), active=3, monuments=[("blue-green", (2, 6))])
    after, _ = run(state, PlaceTile(3, K, (4, 8)), ChooseWar(3, G))
    assert after.conflict is not None
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (1, 3)


def test_war_commitments_of_the_war_colour() -> None:
    # rule B-WAR-5
    state = pos(WAR_BOARD, ("", "", "ggb", "kgggr"), active=3)
    after, _ = run(state, PlaceTile(3, K, (4, 8)), ChooseWar(3, G))
    assert {c.count for c in legal_commands(after, 3) if isinstance(c, CommitSupport)} == {
        0,
        1,
        2,
        3,
    }
    refused(after, CommitSupport(3, 4), "B-WAR-5")
    refused(after, CommitSupport(2, 0), "B-WAR-5", NotAwaited)
    after, _ = run(after, CommitSupport(3, 1))  # 1 + 1 against 2 + 0: defender leads
    after, _ = run(after, CommitSupport(2, 0))  # a tie goes to the defender
    assert after.leader_at(3, 3) == -1 and after.points[2] == (0, 0, 0, 2)
    assert cell(after, (4, 9)) == ".."  # the lion's supporter left the board


def test_priest_exception_in_red_wars() -> None:
    # rule B-WAR-7
    board = {
        (4, 5): "r.",
        (3, 5): "0r",
        (4, 6): "r.",
        (5, 6): "0k",
        (4, 7): "r.",
        (4, 9): "r.",
        (3, 9): "1r",
    }
    state = pos(board, ("k", "r"))
    after, _ = run(state, PlaceTile(0, K, (4, 8)))
    assert after.conflict is not None and after.conflict.kind == WAR
    assert after.conflict.defender_base == 1 and after.conflict.attacker_base == 4  # (2,5) too
    after, _ = run(after, CommitSupport(0, 0), CommitSupport(1, 1))  # 4 against 2
    assert after.leader_at(1, 1) == -1
    assert cell(after, (4, 9)) == ".."  # removed: no treasure, no other leader
    assert after.points[0] == (0, 2, 0, 0)
    # when the attacker loses, its treasure temple and the temple by its king stay
    lost, _ = run(pos(board, ("k", "rrrr")), PlaceTile(0, K, (4, 8)))
    lost, _ = run(lost, CommitSupport(0, 0), CommitSupport(1, 4))  # 4 against 5
    assert lost.leader_at(0, 1) == -1
    assert cell(lost, (2, 5)) == "r*" and cell(lost, (4, 6)) == "r."  # the exception
    assert cell(lost, (4, 5)) == ".." and cell(lost, (4, 7)) == ".."  # removed
    assert lost.points[1] == (0, 3, 0, 0)  # the leader and the two removed temples only


def test_split_voids_pending_wars_otherwise_they_go_on() -> None:
    # rule B-WAR-8
    state = pos(WAR_BOARD, ("", "", "gbbrrk", "kggggr"), active=3)
    # the kings' war first: the loser's king leaves, the traders stay connected
    after, _ = run(state, PlaceTile(3, K, (4, 8)), ChooseWar(3, K))
    after, _ = run(after, CommitSupport(0, 0), CommitSupport(1, 0))  # seat 0 attacks
    assert after.leader_at(0, 0) == -1  # a tie: the defender (seat 1) keeps its king
    assert after.decision == COMMIT and after.conflict is not None
    assert after.conflict.colour == 3 and after.unification == square(4, 8)
    # the traders' war first (the rulebook's order) splits the kingdom: no kings' war
    split, _ = run(state, PlaceTile(3, K, (4, 8)), ChooseWar(3, G))
    split, _ = run(split, CommitSupport(3, 4), CommitSupport(2, 0))
    assert split.decision == "action" and split.unification == -1


def test_rulebook_sample_game_revolt() -> None:
    # rule B-REVOLT-2
    # Jenő's priest (seat 0) stands by the temple (6,8); Anita (seat 1) holds four temples.
    state = pos({(5, 8): "0r"}, ("kkkbbg", "rrrrkb"), active=1)
    after, _ = run(state, PlaceLeader(1, R, (7, 8)))
    assert after.conflict is not None  # one temple counts for both priests
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (1, 1)
    after, _ = run(after, CommitSupport(1, 3), CommitSupport(0, 0))  # 4 against 1
    assert after.leader_at(0, 1) == -1 and after.points[1] == (0, 1, 0, 0)
    after, events = run(after, PlaceTile(1, R, (7, 7)))  # her fourth temple scores too
    assert after.points[1] == (0, 2, 0, 0)
    drawn = [(e.seat, len(e.tiles)) for e in events if isinstance(e, TilesDrawn)]
    assert drawn == [(1, 4)]  # only Anita is short: 3 committed and 1 placed


def test_three_wars_in_a_chain() -> None:
    # rule B-WAR-2
    board = {
        (4, 5): "r.", (3, 5): "0k", (5, 5): "0r", (4, 4): "0g", (4, 6): "k.", (4, 7): "k.",
        (4, 9): "k.", (4, 10): "r.", (3, 10): "1k", (5, 10): "1r", (4, 11): "1g",
    }  # fmt: skip
    state = pos(board, ("k", ""))
    after, _ = run(state, PlaceTile(0, K, (4, 8)))
    assert after.decision == CHOOSE_WAR and sorted(after.wars) == [0, 1, 3]
    after, _ = run(after, ChooseWar(0, R))
    assert after.conflict is not None  # temples (4,5) and (2,5) against (4,10)
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (2, 1)
    after, _ = run(after, CommitSupport(0, 0), CommitSupport(1, 0))
    assert cell(after, (4, 10)) == "r."  # the priest exception: next to seat 1's king
    assert after.decision == CHOOSE_WAR and sorted(after.wars) == [0, 3]  # choose again
    refused(after, ChooseWar(0, R), "B-WAR-2")  # the red war is settled
    after, _ = run(after, ChooseWar(0, G), CommitSupport(0, 0), CommitSupport(1, 0))
    assert after.leader_at(0, 3) == -1 and after.points[1] == (0, 0, 0, 1)
    assert after.decision == COMMIT and after.conflict is not None  # the last war starts
    assert after.conflict.colour == 0
    after, _ = run(after, CommitSupport(0, 0), CommitSupport(1, 0))  # 2 black against 1
    assert after.leader_at(1, 0) == -1 and cell(after, (4, 9)) == ".."
    assert after.points[0] == (2, 1, 0, 0) and after.unification == -1
    assert after.decision == "action" and after.actions_left == 1
