"""Final scoring shared by both games: weakest colour, free jokers, tie-breaks."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from domain.common import COLOURS, Colour, best_assignment, rank_players


def test_jokers_raise_the_weakest_colour_first() -> None:
    # given 5 black, 2 red, 3 blue, 4 green and 3 jokers
    points = {Colour.BLACK: 5, Colour.RED: 2, Colour.BLUE: 3, Colour.GREEN: 4}
    # when the jokers are assigned
    score = best_assignment(0, points, 3)
    # then red and blue are lifted to 4 (red +2, blue +1): the weakest colour is 4
    assert score.score == 4
    assert score.key == (4, 4, 4, 5)
    assert sum(score.jokers.values()) == 3


@given(
    st.lists(st.integers(min_value=0, max_value=6), min_size=4, max_size=4),
    st.integers(min_value=0, max_value=5),
)
def test_greedy_assignment_is_optimal(values: list[int], jokers: int) -> None:
    # the greedy assignment equals the best of all assignments, compared by sorted key
    points = dict(zip(COLOURS, values, strict=True))
    best = max(
        tuple(sorted(v + extra.count(i) for i, v in enumerate(values)))
        for extra in itertools.combinations_with_replacement(range(4), jokers)
    )
    assert best_assignment(0, points, jokers).key == best


def test_ties_break_on_second_weakest_then_share() -> None:
    a = best_assignment(0, {Colour.BLACK: 3, Colour.RED: 3, Colour.BLUE: 4, Colour.GREEN: 9}, 0)
    b = best_assignment(1, {Colour.BLACK: 3, Colour.RED: 5, Colour.BLUE: 5, Colour.GREEN: 5}, 0)
    c = best_assignment(2, {Colour.BLACK: 5, Colour.RED: 5, Colour.BLUE: 5, Colour.GREEN: 3}, 0)
    d = best_assignment(3, {Colour.BLACK: 1, Colour.RED: 9, Colour.BLUE: 9, Colour.GREEN: 9}, 0)
    # b and c tie in every position: a shared place ahead of a (3,3,...) and d (1,...)
    assert rank_players([a, b, c, d]) == [[1, 2], [0], [3]]
