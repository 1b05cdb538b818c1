"""``sample_command``: one legal command drawn at random, without enumerating them all.

The bots' playouts need a random legal command per position, thousands of times
a second; ``legal_commands`` builds every one (about 300 in mid-game, half of
them catastrophes) just for one to be picked. Here the commands of an action
are split into kinds (tiles, leaders, withdrawals, catastrophes, swaps, pass),
a kind is drawn by a fixed weight (a playout that mostly places tiles and
leaders looks like a game; uniform over commands, it is mostly catastrophes),
and then a command of that kind uniformly: a candidate is drawn from a cheap
superset and checked by the same predicates as ``legal_commands`` (rejection),
so no command object but the chosen one is built. Other decisions have a few
commands: one of them uniformly.

:func:`support` lists what :func:`sample_command` can return, built from the
same groups, so a test can check it against ``legal_commands``: every sampled
command is legal and every legal command can be sampled.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from domain.board.commands import (
    Command,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    SwapTiles,
    WithdrawLeader,
)
from domain.board.flow import awaited_seat
from domain.board.geometry import NEIGHBOURS, RIVER, SQUARES, coords
from domain.board.legal import legal_commands
from domain.board.model import ACTION, BLACK, BLUE, EMPTY, FACE_DOWN, LEADER, TEMPLE, State
from domain.board.regions import kingdoms_next_to, lifted_regions, regions
from domain.common.colours import COLOURS
from domain.common.sampling import Group, draw, members

COORDS = tuple(coords(sq) for sq in range(SQUARES))
LAND = tuple(sq for sq in range(SQUARES) if not RIVER[sq])
WATER = tuple(sq for sq in range(SQUARES) if RIVER[sq])
LAND_COLOURS = (0, 1, 3)

# Weights of the kinds of action (renormalised over the kinds that have a command).
TILE_WEIGHT = 0.25
SCORING_WEIGHT = 0.35
LEADER_WEIGHT = 0.25
WITHDRAW_WEIGHT = 0.03
CATASTROPHE_WEIGHT = 0.03
SWAP_WEIGHT = 0.06
PASS_WEIGHT = 0.03


def _scoring_tiles(
    state: State, seat: int, label: list[int], lead: list[list[int]]
) -> list[tuple[int, int]]:
    """(colour in hand, empty square of its terrain) next to a kingdom where a tile of that
    colour scores for ``seat``: its leader of the colour, or its king if the kingdom has no
    leader of the colour."""
    board = state.board
    hand = state.hands[seat]
    members = regions(state).members
    found: list[tuple[int, int]] = []
    seen: set[int] = set()
    for own in range(4):
        at = state.leaders[seat * 4 + own]
        if at < 0 or label[at] in seen:
            continue
        rid = label[at]
        seen.add(rid)
        by_colour = {(board[x] - LEADER) & 3: (board[x] - LEADER) >> 2 for x in lead[rid]}
        colours = [
            c for c in range(4) if hand[c] and by_colour.get(c, by_colour.get(BLACK, -1)) == seat
        ]
        if not colours:
            continue
        squares: set[int] = set()
        for x in members[rid]:
            for n in NEIGHBOURS[x]:
                if board[n] == EMPTY:
                    squares.add(n)
        for sq in sorted(squares):
            found += [(c, sq) for c in colours if RIVER[sq] == (c == BLUE)]
    return found


def _action_groups(state: State, seat: int) -> list[Group[Command]]:
    board = state.board
    hand = state.hands[seat]
    groups: list[Group[Command]] = []
    reg = regions(state)
    label = reg.label
    lead = reg.leaders

    # Tiles (B-TILE-1, B-TILE-2): (colour, empty square of its terrain), at most two kingdoms.
    colours = [c for c in LAND_COLOURS if hand[c]]
    land = [sq for sq in LAND if board[sq] == EMPTY] if colours else []
    water = [sq for sq in WATER if board[sq] == EMPTY] if hand[BLUE] else []
    n_land = len(colours) * len(land)

    def tile(i: int) -> Command | None:
        if i < n_land:
            colour, sq = colours[i % len(colours)], land[i // len(colours)]
        else:
            colour, sq = BLUE, water[i - n_land]
        if kingdoms_next_to(label, lead, sq) > 2:
            return None
        return PlaceTile(seat, COLOURS[colour], COORDS[sq])

    groups.append(Group(TILE_WEIGHT, n_land + len(water), tile))

    # The same, next to a kingdom where the tile would score for ``seat`` (B-TILE-3).
    scoring = _scoring_tiles(state, seat, label, lead)

    def score(i: int) -> Command | None:
        colour, sq = scoring[i]
        if kingdoms_next_to(label, lead, sq) > 2:
            return None
        return PlaceTile(seat, COLOURS[colour], COORDS[sq])

    groups.append(Group(SCORING_WEIGHT, len(scoring), score))

    # Leaders (B-LEADER-1..4): (leader, empty land square next to a temple), one kingdom.
    near: list[int] = []
    for sq in range(SQUARES):
        if board[sq] == TEMPLE:
            for n in NEIGHBOURS[sq]:
                if board[n] == EMPTY and not RIVER[n] and n not in near:
                    near.append(n)
    near.sort()
    origins = [state.leaders[seat * 4 + c] for c in range(4)]

    def leader(i: int) -> Command | None:
        colour, sq = i % 4, near[i // 4]
        origin = origins[colour]
        if origin < 0:
            if kingdoms_next_to(label, lead, sq) > 1:
                return None
        else:
            lifted = lifted_regions(state, origin)
            if kingdoms_next_to(lifted.label, lifted.leaders, sq) > 1:
                return None
        return PlaceLeader(seat, COLOURS[colour], COORDS[sq])

    groups.append(Group(LEADER_WEIGHT, 4 * len(near), leader))

    placed = [c for c in range(4) if origins[c] >= 0]
    groups.append(
        Group(WITHDRAW_WEIGHT, len(placed), lambda i: WithdrawLeader(seat, COLOURS[placed[i]]))
    )

    # Catastrophes (B-CAT-1, B-CAT-2, B-CAT-4): no leader, monument, catastrophe or treasure.
    if state.catastrophes[seat] > 0:
        treasures = state.treasures

        def catastrophe(sq: int) -> Command | None:
            if board[sq] < FACE_DOWN and sq not in treasures:
                return PlaceCatastrophe(seat, COORDS[sq])
            return None

        groups.append(Group(CATASTROPHE_WEIGHT, SQUARES, catastrophe))

    # Swaps (B-SWAP-1): counts per colour, mixed radix over the hand, at least one tile.
    radix = [n + 1 for n in hand]
    size = radix[0] * radix[1] * radix[2] * radix[3]

    def swap(i: int) -> Command | None:
        i += 1  # index 0 would swap nothing
        counts = []
        for r in radix:
            i, n = divmod(i, r)
            counts.append(n)
        return SwapTiles(seat, *counts)

    groups.append(Group(SWAP_WEIGHT, size - 1, swap))
    groups.append(Group(PASS_WEIGHT, 1, lambda _: Pass(seat)))
    return groups


def groups(state: State, seat: int) -> list[Group[Command]]:
    """The commands of ``seat`` now, as weighted groups of candidates (empty if not awaited)."""
    if seat != awaited_seat(state):
        return []
    if state.decision == ACTION:
        return _action_groups(state, seat)
    options = list(legal_commands(state, seat))
    return [Group(1.0, len(options), options.__getitem__)]


def support(state: State, seat: int) -> Iterator[Command]:
    """Every command :func:`sample_command` can return for ``seat`` now."""
    return members(groups(state, seat))


def sample_command(state: State, seat: int, rng: random.Random) -> Command:
    """A random legal command of ``seat`` (awaited): a kind by weight, then one of it uniformly."""
    return draw(groups(state, seat), rng)
