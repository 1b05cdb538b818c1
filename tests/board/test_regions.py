"""The incremental labelling for a lifted leader agrees with labelling from scratch."""

from __future__ import annotations

from domain.board import RULES
from domain.board.model import EMPTY
from domain.board.regions import Regions, regions
from domain.common.autoplay import play_random_game


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
