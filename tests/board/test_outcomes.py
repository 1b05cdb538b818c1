"""The record of a conflict's outcome, ``ConflictResolved`` (B-REVOLT-*, B-WAR-*): what it
names, who may see its points, its rule trail, and that it changes no state."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.board import (
    RULES,
    ChooseWar,
    CommitSupport,
    ConflictResolved,
    Event,
    PlaceLeader,
    PlaceTile,
    State,
    SupportCommitted,
    evolve,
    fold,
)
from domain.board.events import PieceRemoved, PointsScored
from domain.board.explain import explain
from domain.board.views import event_view
from domain.common.colours import Colour
from tests.autoplay import play_random_game
from tests.board.helpers import pos, run
from tests.board.test_conflicts import REVOLT_BOARD, WAR_BOARD

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


def outcome_of(events: list[Event]) -> ConflictResolved:
    found = [e for e in events if isinstance(e, ConflictResolved)]
    assert len(found) == 1, events
    return found[0]


def revolt_settled() -> tuple[State, list[Event]]:
    """The rulebook's revolt: priests, 2 + 2 temples against 1 + 3: a tie."""
    state = pos(REVOLT_BOARD, ("rrkkbg", "rrrkbg"))
    revolt, _ = run(state, PlaceLeader(0, R, (5, 8)), CommitSupport(0, 2))
    return revolt, run(revolt, CommitSupport(1, 3))[1]


# rule B-REVOLT-4
def test_the_defenders_commitment_is_followed_by_the_revolts_outcome() -> None:
    # given a revolt whose attacker committed 2 temples on a base of 2
    _, events = revolt_settled()
    # when the defender commits 3 on a base of 1
    # then the commitment comes first, the record of the outcome right after it
    assert events[0] == SupportCommitted(1, R, 3)
    assert isinstance(events[1], ConflictResolved)
    # and the record names the sides, each strength as base plus committed, and the winner
    outcome = events[1]
    assert (outcome.kind, outcome.colour) == ("revolt", R)
    assert (outcome.attacker, outcome.defender) == (0, 1)
    assert (outcome.attacker_base, outcome.attacker_committed) == (2, 2)
    assert (outcome.defender_base, outcome.defender_committed) == (1, 3)
    assert (outcome.attacker_strength, outcome.defender_strength) == (4, 4)
    assert (outcome.winner, outcome.loser) == (1, 0)  # a tie goes to the defender


# rule B-REVOLT-5
def test_a_revolts_outcome_names_the_leader_removed_and_the_red_point() -> None:
    # given a revolt the attacker wins 3 against 2
    state = pos(REVOLT_BOARD, ("rrr", "r"))
    revolt, _ = run(state, PlaceLeader(0, R, (5, 8)), CommitSupport(0, 1))
    # when the defender commits its one temple
    after, events = run(revolt, CommitSupport(1, 1))
    # then the defender's priest is the one piece removed, and the winner scored 1 red
    outcome = outcome_of(events)
    assert (outcome.winner, outcome.loser) == (0, 1)
    assert outcome.removed == (PieceRemoved("leader", R, (3, 6), 1),)
    assert outcome.points == (PointsScored(0, R, 1),)
    assert after.leader_at(1, 1) == -1 and after.points[0] == (0, 1, 0, 0)


# rule B-REVOLT-5
def test_a_revolt_of_kings_names_black_leaders_and_scores_red() -> None:
    # given a king arriving in a kingdom whose king stands by one temple
    board = {(4, 6): "r.", (3, 6): "1k"}
    revolt, _ = run(pos(board, ("rk", "r")), PlaceLeader(0, K, (5, 6)), CommitSupport(0, 1))
    assert revolt.conflict is not None
    bases = (revolt.conflict.attacker_base, revolt.conflict.defender_base)
    # when the defender commits nothing
    _, events = run(revolt, CommitSupport(1, 0))
    # then the record names the kings' colour, and the point is red all the same
    outcome = outcome_of(events)
    assert outcome.colour == K and (outcome.attacker_base, outcome.defender_base) == bases
    assert outcome.winner == 0 and outcome.points == (PointsScored(0, R, 1),)
    assert outcome.removed == (PieceRemoved("leader", K, (3, 6), 1),)


# rule B-WAR-6
def test_a_wars_outcome_names_every_supporter_removed_and_the_points() -> None:
    # given the rulebook's war of traders, lion (seat 3, base 1) attacking pot (seat 2, base 2)
    state = pos(WAR_BOARD, ("", "", "gbbrrk", "kggggr"), active=3)
    war, _ = run(state, PlaceTile(3, K, (4, 8)), ChooseWar(3, G), CommitSupport(3, 4))
    # when pot commits 1: 5 against 3
    after, events = run(war, CommitSupport(2, 1))
    # then the record names the war, both strengths, pot's trader and its two supporters
    outcome = outcome_of(events)
    assert (outcome.kind, outcome.colour, outcome.attacker, outcome.defender) == ("war", G, 3, 2)
    assert (outcome.attacker_base, outcome.attacker_committed) == (1, 4)
    assert (outcome.defender_base, outcome.defender_committed) == (2, 1)
    assert (outcome.attacker_strength, outcome.defender_strength) == (5, 3)
    assert (outcome.winner, outcome.loser) == (3, 2)
    assert outcome.removed == (
        PieceRemoved("leader", G, (5, 5), 2),
        PieceRemoved("tile", G, (4, 6), None),
        PieceRemoved("tile", G, (4, 7), None),
    )
    # and the 3 green points: the leader and each tile removed, as the score has them
    assert outcome.points == (PointsScored(3, G, 3),)
    assert after.points[3] == (0, 0, 0, 3)


# rule B-WAR-5
def test_a_tied_war_goes_to_the_defender_in_the_record() -> None:
    # given a war of traders: lion attacks with 1 + 1, pot defends with a base of 2
    state = pos(WAR_BOARD, ("", "", "ggb", "kgggr"), active=3)
    war, _ = run(state, PlaceTile(3, K, (4, 8)), ChooseWar(3, G), CommitSupport(3, 1))
    # when pot commits nothing: 2 against 2
    _, events = run(war, CommitSupport(2, 0))
    # then the defender wins, the attacker's trader and its supporter are removed
    outcome = outcome_of(events)
    assert (outcome.attacker_strength, outcome.defender_strength) == (2, 2)
    assert (outcome.winner, outcome.loser) == (2, 3)
    assert outcome.removed == (
        PieceRemoved("leader", G, (3, 10), 3),
        PieceRemoved("tile", G, (4, 9), None),
    )
    assert outcome.points == (PointsScored(2, G, 2),)


# rule B-WAR-7
def test_a_red_wars_record_leaves_out_the_temples_the_priest_exception_keeps() -> None:
    # given a red war whose attacker's temples include a treasure and one by its own king
    board = {
        (4, 5): "r.",
        (3, 5): "0r",
        (4, 6): "r.",
        (5, 6): "0k",
        (4, 7): "r.",
        (4, 9): "r.",
        (3, 9): "1r",
    }
    war, _ = run(pos(board, ("k", "rrrr")), PlaceTile(0, K, (4, 8)), CommitSupport(0, 0))
    # when the defender commits 4: 4 against 5
    _, events = run(war, CommitSupport(1, 4))
    # then only the two temples that left the board are named, and scored
    outcome = outcome_of(events)
    assert outcome.removed == (
        PieceRemoved("leader", R, (3, 5), 0),
        PieceRemoved("tile", R, (4, 5), None),
        PieceRemoved("tile", R, (4, 7), None),
    )
    assert outcome.points == (PointsScored(1, R, 3),)


# rule B-REVOLT-3
def test_the_attackers_commitment_settles_nothing_and_has_no_record() -> None:
    state = pos(REVOLT_BOARD, ("rrkkbg", "rrrkbg"))
    revolt, _ = run(state, PlaceLeader(0, R, (5, 8)))
    _, events = run(revolt, CommitSupport(0, 2))
    assert events == [SupportCommitted(0, R, 2)]


# rule B-HIDDEN-1
def test_the_points_of_an_outcome_are_seen_by_the_winner_only_while_scores_are_secret() -> None:
    # given a settled revolt that seat 1 won
    _, events = revolt_settled()
    outcome = outcome_of(events)
    state = fold_after(events)
    # when each seat and a spectator read it
    seen = {viewer: event_view(outcome, viewer, state) for viewer in (0, 1, None)}
    # then the winner reads its points; the others read all but the points
    assert seen[1]["points"] == [{"seat": 1, "colour": "red", "count": 1}]
    for viewer in (0, None):
        assert "points" not in seen[viewer]
        assert seen[viewer] == {k: v for k, v in seen[1].items() if k != "points"}
    # and the committed tiles, public once committed, are there for everybody
    assert seen[0]["attacker_committed"] == 2 and seen[0]["defender_committed"] == 3


# rule B-HIDDEN-1
def test_the_points_of_an_outcome_are_public_with_open_scoring() -> None:
    _, events = revolt_settled()
    open_game = replace(fold_after(events), options=(("open_scoring", True),), cache=None)
    assert "points" in event_view(outcome_of(events), 0, open_game)
    assert "points" in event_view(outcome_of(events), None, open_game)


def fold_after(events: list[Event]) -> State:
    """A state after ``events`` (a settled revolt): the game is running."""
    state, _ = revolt_settled()
    for event in events:
        state = evolve(state, event)
    assert not RULES.is_over(state)
    return state


# rule B-REVOLT-5
def test_the_rule_trail_of_an_outcome_names_the_rules_that_settled_it() -> None:
    revolt, events = revolt_settled()
    trails = explain(revolt, events)
    assert {"B-REVOLT-4", "B-REVOLT-5"} <= set(trails[1])
    state = pos(WAR_BOARD, ("", "", "gbbrrk", "kggggr"), active=3)
    war, _ = run(state, PlaceTile(3, K, (4, 8)), ChooseWar(3, G), CommitSupport(3, 4))
    _, events = run(war, CommitSupport(2, 1))
    trails = explain(war, events)
    assert {"B-WAR-5", "B-WAR-6"} <= set(trails[events.index(outcome_of(events))])


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), seats=st.integers(2, 4))
def test_outcomes_account_for_every_conflict_point_and_removal(seed: int, seats: int) -> None:
    # given a random game, each event with the states before and after it
    steps: list[tuple[State, Event, State]] = []
    played = play_random_game(RULES, seats, seed, on_event=lambda *step: steps.append(step))
    # when the settling commitments are paired with the records that follow them
    recorded = [0] * (seats * 4)
    scored = [0] * (seats * 4)
    for i, (before, event, after) in enumerate(steps):
        if not isinstance(event, ConflictResolved):
            continue
        settled_before, commitment, settled = steps[i - 1]
        assert isinstance(commitment, SupportCommitted) and settled == before == after
        for points in event.points:
            recorded[points.seat * 4 + list(Colour).index(points.colour)] += points.count
        for seat in range(seats):
            for colour in range(4):
                delta = settled.points[seat][colour] - settled_before.points[seat][colour]
                scored[seat * 4 + colour] += delta
        # then the pieces named are the ones that left the board
        gone = {
            (i >> 2, i & 3, sq)
            for i, sq in enumerate(settled_before.leaders)
            if sq >= 0 and settled.leaders[i] < 0
        }
        leaders = {
            (r.seat, list(Colour).index(r.colour), r.at[0] * 16 + r.at[1])
            for r in event.removed
            if r.piece == "leader"
        }
        assert leaders == gone
        tiles = [r for r in event.removed if r.piece == "tile"]
        assert all(settled.board[r.at[0] * 16 + r.at[1]] == 0 for r in tiles)
    # then the points the records name are the conflict points the score holds
    assert recorded == scored
    # and the game without its records folds to the same final state
    assert fold(e for e in played.events if not isinstance(e, ConflictResolved)) == played.final
