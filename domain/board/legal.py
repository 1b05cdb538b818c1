"""``legal_commands``: every command ``decide`` accepts from a seat, and no other.

Swaps and support commitments are enumerated as counts per colour, never as
orderings. The enumeration mirrors the guard clauses of ``decide``; a test
checks both against a brute-force superset of candidates.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product

from domain.board.commands import (
    BuildMonument,
    ChooseWar,
    Command,
    CommitSupport,
    DeclineMonument,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    SwapTiles,
    TakeTreasures,
    WithdrawLeader,
)
from domain.board.flow import awaited_seat
from domain.board.geometry import BORDER_TREASURES, NEIGHBOURS, RIVER, SQUARES, coords
from domain.board.model import (
    ACTION,
    BLUE,
    CHOOSE_WAR,
    COMMIT,
    EMPTY,
    FACE_DOWN,
    FACE_UP,
    HAND_SIZE,
    MONUMENT,
    MONUMENT_COLOURS,
    MONUMENTS,
    TEMPLE,
    TREASURE,
    State,
)
from domain.board.regions import kingdom_counts, lifted_regions
from domain.common.colours import COLOURS

COORDS = tuple(coords(sq) for sq in range(SQUARES))
LAND = tuple(sq for sq in range(SQUARES) if not RIVER[sq])
WATER = tuple(sq for sq in range(SQUARES) if RIVER[sq])


def legal_commands(state: State, seat: int) -> Iterator[Command]:
    if seat != awaited_seat(state):
        return
    d = state.decision
    if d == ACTION:
        yield from _actions(state, seat)
    elif d == COMMIT:
        assert state.conflict is not None
        for n in range(state.hands[seat][state.conflict.colour] + 1):
            yield CommitSupport(seat, n)
    elif d == CHOOSE_WAR:
        for c in state.wars:
            yield ChooseWar(seat, COLOURS[c])
    elif d == MONUMENT:
        built = {m for m, _ in state.monuments}
        for tl in state.candidates:
            tile_colour = state.board[tl] - FACE_UP
            for i, m in enumerate(MONUMENTS):
                if i not in built and tile_colour in MONUMENT_COLOURS[i]:
                    yield BuildMonument(seat, m, COORDS[tl])
        yield DeclineMonument(seat)
    elif d == TREASURE:
        for choice in treasure_choices(state):
            yield TakeTreasures(seat, tuple(COORDS[sq] for sq in choice))


def treasure_choices(state: State) -> list[tuple[int, ...]]:
    """Every valid set of treasures for the pending choice (sorted squares):
    border treasures first (B-TREASURE-2), then any of the others (B-TREASURE-1)."""
    found = state.treasure_squares
    take = state.treasure_take
    border = [sq for sq in found if sq in BORDER_TREASURES]
    rest = [sq for sq in found if sq not in BORDER_TREASURES]
    if len(border) >= take:
        return [tuple(sorted(c)) for c in combinations(border, take)]
    return [tuple(sorted(border + list(c))) for c in combinations(rest, take - len(border))]


def _actions(state: State, seat: int) -> Iterator[Command]:
    board = state.board
    hand = state.hands[seat]
    # Tiles (B-TILE-1, B-TILE-2).
    counts = kingdom_counts(state)
    land_colours = [COLOURS[c] for c in (0, 1, 3) if hand[c]]
    for sq in LAND:
        if board[sq] == EMPTY and counts[sq] <= 2:
            at = COORDS[sq]
            for colour in land_colours:
                yield PlaceTile(seat, colour, at)
    if hand[BLUE]:
        blue = COLOURS[BLUE]
        for sq in WATER:
            if board[sq] == EMPTY and counts[sq] <= 2:
                yield PlaceTile(seat, blue, COORDS[sq])
    # Leaders (B-LEADER-1..5).
    near_temple = [
        sq for sq in LAND if board[sq] == EMPTY and any(board[n] == TEMPLE for n in NEIGHBOURS[sq])
    ]
    for index in range(4):
        origin = state.leaders[seat * 4 + index]
        leader = COLOURS[index]
        if origin < 0:
            for sq in near_temple:
                if counts[sq] <= 1:
                    yield PlaceLeader(seat, leader, COORDS[sq])
            continue
        label = lifted_regions(state, origin)
        lab = label.label
        lead = label.leaders
        for sq in near_temple:
            found = -1
            ok = True
            for n in NEIGHBOURS[sq]:
                rid = lab[n]
                if rid >= 0 and lead[rid]:
                    if found >= 0 and found != rid:
                        ok = False
                        break
                    found = rid
            if ok:
                yield PlaceLeader(seat, leader, COORDS[sq])
        yield WithdrawLeader(seat, leader)
    # Catastrophes (B-CAT-1, B-CAT-2, B-CAT-4).
    if state.catastrophes[seat] > 0:
        treasures = state.treasures
        for sq in range(SQUARES):
            code = board[sq]
            if code < FACE_DOWN and sq not in treasures:
                yield PlaceCatastrophe(seat, COORDS[sq])
    # Swaps (B-SWAP-1).
    for counts4 in product(*(range(n + 1) for n in hand)):
        if 1 <= sum(counts4) <= HAND_SIZE:
            yield SwapTiles(seat, *counts4)
    yield Pass(seat)
