"""Given/when/then tests of the tile action (B-TILE-*) and regions (B-REGION-*)."""

from __future__ import annotations

from domain.board import ChooseWar, CommitSupport, PlaceTile, TilePlaced
from domain.board.geometry import square
from domain.board.model import CHOOSE_WAR, COMMIT
from domain.board.regions import Regions
from domain.common.colours import Colour
from tests.board.helpers import allowed, cell, pos, refused, run

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


def test_tile_from_hand_on_empty_square_blue_on_river_only() -> None:
    # rule B-TILE-1
    state = pos({(6, 7): "k."}, ("kb", "rr"))
    assert allowed(state, PlaceTile(0, K, (5, 5))) == [TilePlaced(0, K, (5, 5))]
    allowed(state, PlaceTile(0, B, (3, 0)))
    refused(state, PlaceTile(0, R, (5, 5)), "B-TILE-1")  # no red tile in hand
    refused(state, PlaceTile(0, K, (6, 7)), "B-TILE-1")  # occupied
    refused(state, PlaceTile(0, B, (5, 5)), "B-TILE-1")  # blue on land
    refused(state, PlaceTile(0, K, (3, 0)), "B-TILE-1")  # black on a river


def test_tile_joins_at_most_two_kingdoms() -> None:
    # rule B-TILE-2
    three = {(4, 6): "r.", (4, 5): "0k", (4, 8): "r.", (4, 9): "1k", (3, 7): "r.", (2, 7): "1r"}
    refused(pos(three, ("r", "r")), PlaceTile(0, R, (4, 7)), "B-TILE-2")
    two = dict(three)
    two[(2, 7)] = ".."
    after, _ = run(pos(two, ("rk", "r")), PlaceTile(0, R, (4, 7)))
    assert after.decision == COMMIT  # two kingdoms with a king each
    allowed(pos({}, ("k", "")), PlaceTile(0, K, (5, 3)))  # standing alone is fine


def test_tile_scoring() -> None:
    # rule B-TILE-3
    pieces = {(5, 8): "1b", (7, 8): "0k"}
    state = pos(pieces, ("bkrg", ""))
    after, _ = run(state, PlaceTile(0, B, (6, 12)))  # a river tile outside any kingdom
    assert after.points == state.points
    after, _ = run(state, PlaceTile(0, K, (6, 9)))  # the king's own colour
    assert after.points[0] == (1, 0, 0, 0)
    after, _ = run(state, PlaceTile(0, R, (6, 7)))  # no priest: the king's owner scores red
    assert after.points[0] == (0, 1, 0, 0)
    blue = pos({(7, 7): "k.", (7, 8): "1b"}, ("b", ""))
    after, _ = run(blue, PlaceTile(0, B, (7, 6)))  # next to (7,7): the farmer's owner scores
    assert after.points[1] == (0, 0, 1, 0) and after.points[0] == (0, 0, 0, 0)
    nobody = pos({(5, 8): "1g"}, ("k", ""))
    after, _ = run(nobody, PlaceTile(0, K, (6, 9)))  # neither a black leader nor a king
    assert after.points == nobody.points


def test_joining_two_kingdoms_scores_nothing_and_marks_unification() -> None:
    # rule B-TILE-4
    calm = {(4, 6): "r.", (4, 5): "0k", (4, 8): "r.", (4, 9): "1b"}
    after, _ = run(pos(calm, ("r", "")), PlaceTile(0, R, (4, 7)))
    assert after.points == pos(calm, ("r", "")).points
    assert after.unification == -1 and after.decision == "action"  # no war: marker removed
    war = {(4, 6): "r.", (4, 5): "0k", (4, 8): "r.", (4, 9): "1k"}
    after, _ = run(pos(war, ("r", "")), PlaceTile(0, R, (4, 7)))
    assert after.unification == square(4, 7) and cell(after, (4, 7)) == "rU"
    done, _ = run(after, CommitSupport(0, 0), CommitSupport(1, 0))
    assert done.unification == -1


def test_unification_tile_supports_nobody() -> None:
    # rule B-TILE-5
    war = {(4, 6): "r.", (4, 5): "0r", (4, 8): "r.", (4, 9): "1r", (3, 9): "r."}
    after, _ = run(pos(war, ("r", "")), PlaceTile(0, R, (4, 7)))
    assert after.conflict is not None
    assert (after.conflict.attacker_base, after.conflict.defender_base) == (1, 2)


def test_regions_connect_orthogonally_through_tiles_leaders_and_face_down_tiles() -> None:
    # rule B-REGION-1
    state = pos(
        {(4, 4): "k.", (4, 5): "0k", (4, 6): "R.", (4, 7): "XX", (4, 8): "k.", (5, 9): "k."}
    )
    reg = Regions(state.board)
    label = reg.label
    assert label[square(4, 4)] == label[square(4, 5)] == label[square(4, 6)]  # joined
    assert label[square(4, 8)] != label[square(4, 6)]  # a catastrophe cuts
    assert label[square(5, 9)] != label[square(4, 8)]  # diagonal squares do not connect
    assert label[square(4, 7)] == -1 and label[square(3, 3)] == -1


def test_kingdom_is_a_region_with_a_leader() -> None:
    # rule B-REGION-2
    state = pos({(4, 6): "r.", (4, 5): "0k", (4, 9): "r."}, ("kk", ""))
    after, _ = run(state, PlaceTile(0, K, (4, 7)))  # joins the kingdom: the king scores
    assert after.points[0] == (1, 0, 0, 0)
    after, _ = run(after, PlaceTile(0, K, (4, 10)))  # next to a leaderless region: nothing
    assert after.points[0] == (1, 0, 0, 0)


def test_no_kingdom_keeps_two_leaders_of_a_colour_after_conflicts() -> None:
    # rule B-REGION-3
    war = {(4, 6): "r.", (4, 5): "0k", (3, 5): "0g", (4, 8): "r.", (4, 9): "1k", (3, 9): "1g"}
    after, _ = run(pos(war, ("r", "")), PlaceTile(0, R, (4, 7)))
    assert after.decision == CHOOSE_WAR  # two wars pending: duplicates allowed meanwhile
    after, _ = run(after, ChooseWar(0, K), CommitSupport(0, 0), CommitSupport(1, 0))
    assert after.decision == "action"  # the king's removal cut the traders apart
    reg = Regions(after.board)
    for lead in reg.leaders:
        colours = [(after.board[sq] - 16) & 3 for sq in lead]
        assert len(colours) == len(set(colours))
