"""The incremental labelling for a lifted leader agrees with labelling from scratch, and
the kingdom count of one square agrees with the whole map's."""

from __future__ import annotations

import dataclasses

from domain.board import RULES
from domain.board.model import EMPTY
from domain.board.regions import Regions, kingdom_count, kingdom_counts, regions
from tests.autoplay import play_random_game


def partition(reg: Regions) -> set[frozenset[int]]:
    return {frozenset(m) for m in reg.members if m}


def test_lifted_regions_match_a_full_labelling() -> None:
    checked = 0
    for seed in (31, 32):
        played = play_random_game(RULES, 4, seed, keep_states=True)
        for state in played.states[::4]:
            for sq in state.leaders:
                if sq < 0:
                    continue
                fast = Regions.lifted(regions(state), state.board, sq)
                board = list(state.board)
                board[sq] = EMPTY
                slow = Regions(board)
                assert partition(fast) == partition(slow)
                assert {frozenset(x) for x in fast.leaders if x} == {
                    frozenset(x) for x in slow.leaders if x
                }
                assert [label >= 0 for label in fast.label] == [label >= 0 for label in slow.label]
                checked += 1
    assert checked > 100


def test_one_squares_kingdom_count_matches_the_whole_map() -> None:
    """B-TILE-2 asks how many kingdoms one square touches: counted for that square alone
    (a state whose map is not known yet) it equals the whole map's count."""
    checked = joining = 0
    for seed in (41, 42):
        played = play_random_game(RULES, 3, seed, keep_states=True)
        for state in played.states[::5]:
            whole = kingdom_counts(dataclasses.replace(state, cache=None))
            for sq in range(len(state.board)):
                # a fresh copy each time: no map in its memo, so the one-square count runs
                alone = kingdom_count(dataclasses.replace(state, cache=None), sq)
                assert alone == whole[sq], (seed, sq)
                checked += 1
            joining += max(whole) >= 2
    assert checked > 5000
    assert joining > 5  # squares next to two kingdoms were among those checked
