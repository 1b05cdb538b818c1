"""A brute-force superset of commands, to check that ``legal_commands`` is exact."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product

from domain.board import (
    BuildMonument,
    ChooseWar,
    Command,
    CommitSupport,
    DeclineMonument,
    Monument,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    State,
    SwapTiles,
    TakeTreasures,
    WithdrawLeader,
)
from domain.board.geometry import COLS, ROWS, START_TEMPLES, coords
from domain.common.colours import COLOURS

SQUARES = [(r, c) for r in range(ROWS) for c in range(COLS)]


def candidates(state: State, seat: int) -> Iterator[Command]:
    """Every command of every kind with every plausible argument."""
    yield Pass(seat)
    yield DeclineMonument(seat)
    for colour in COLOURS:
        yield WithdrawLeader(seat, colour)
        yield ChooseWar(seat, colour)
        for at in SQUARES:
            yield PlaceTile(seat, colour, at)
            yield PlaceLeader(seat, colour, at)
    for at in SQUARES:
        yield PlaceCatastrophe(seat, at)
        for monument in Monument:
            yield BuildMonument(seat, monument, at)
    for counts in product(range(7), repeat=4):
        if sum(counts) <= 7:
            yield SwapTiles(seat, *counts)
    for n in range(8):
        yield CommitSupport(seat, n)
    treasures = [coords(sq) for sq in START_TEMPLES]
    for k in range(len(treasures) + 1):
        for chosen in combinations(sorted(treasures), k):
            yield TakeTreasures(seat, chosen)
