"""Region labelling (B-REGION-1, B-REGION-2), memoised once per state.

A region is a maximal orthogonally connected group of tiles and leaders; a
kingdom is a region with a leader. Labelling the 176 squares is the one
expensive derived fact, so each state computes it at most once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.board.geometry import NEIGHBOURS, SQUARES
from domain.board.model import CONNECTS, LEADER, State


def fill(
    board: Sequence[int],
    starts: Iterable[int],
    label: list[int],
    members: list[list[int]],
    leaders: list[list[int]],
    *,
    cut: int = -1,
) -> None:
    """Label the regions (B-REGION-1) that hold ``starts``, one after another.

    A square of a region is reached through tiles and leaders, ``cut`` taken as
    empty; a square already labelled (``label[sq] >= 0``) is not visited again. Each
    new region takes the next id, ``len(members)``: its squares are appended to
    ``members`` and those of them holding a leader to ``leaders``.

    The one flood fill of the board game: the labelling of the whole board, its
    relabelling after a leader is lifted, and the engine's single regions
    (``region``; a shared ``label`` when it looks at several) all run it.
    """
    connects = CONNECTS
    neighbours = NEIGHBOURS
    for start in starts:
        if label[start] >= 0 or not connects[board[start]] or start == cut:
            continue
        rid = len(members)
        label[start] = rid
        stack = [start]
        mem: list[int] = []
        lead: list[int] = []
        while stack:
            sq = stack.pop()
            mem.append(sq)
            if board[sq] >= LEADER:
                lead.append(sq)
            for n in neighbours[sq]:
                if label[n] < 0 and connects[board[n]] and n != cut:
                    label[n] = rid
                    stack.append(n)
        members.append(mem)
        leaders.append(lead)


def region(board: Sequence[int], start: int, cut: int = -1) -> tuple[list[int], list[int]]:
    """The squares of the region holding ``start`` (a tile or a leader), and those of
    them holding a leader; ``cut`` is taken as empty."""
    members: list[list[int]] = []
    leaders: list[list[int]] = []
    fill(board, (start,), [-1] * SQUARES, members, leaders, cut=cut)
    return members[0], leaders[0]


class Regions:
    """``label[sq]``: region id or -1; ``members``/``leaders`` per region id."""

    __slots__ = ("label", "leaders", "members")

    def __init__(self, board: tuple[int, ...] | list[int]) -> None:
        label = [-1] * SQUARES
        members: list[list[int]] = []
        leaders: list[list[int]] = []
        fill(board, range(SQUARES), label, members, leaders)
        self.label = label
        self.members = members
        self.leaders = leaders

    @classmethod
    def lifted(cls, base: Regions, board: tuple[int, ...] | list[int], sq: int) -> Regions:
        """The labelling of ``board`` with the piece on ``sq`` lifted (B-LEADER-4).

        Only the region that held ``sq`` can change, so only it is labelled again.
        """
        new = cls.__new__(cls)
        label = base.label.copy()
        members = list(base.members)
        leaders = list(base.leaders)
        rid = label[sq]
        old = members[rid]
        for m in old:
            label[m] = -1
        members[rid] = []  # the id stays, unused
        leaders[rid] = []
        fill(board, old, label, members, leaders, cut=sq)
        new.label = label
        new.members = members
        new.leaders = leaders
        return new

    def kingdoms_next_to(self, sq: int) -> set[int]:
        """Ids of the distinct kingdoms orthogonally adjacent to ``sq``."""
        label = self.label
        leaders = self.leaders
        found: set[int] = set()
        for n in NEIGHBOURS[sq]:
            rid = label[n]
            if rid >= 0 and leaders[rid]:
                found.add(rid)
        return found

    def kingdom_count_map(self) -> list[int]:
        """For every square, how many distinct kingdoms it touches."""
        label = self.label
        leaders = self.leaders
        return [kingdoms_next_to(label, leaders, sq) for sq in range(SQUARES)]


def regions(state: State) -> Regions:
    memo = state.memo()
    found = memo.get("regions")
    if found is None:
        found = Regions(state.board)
        memo["regions"] = found
    assert isinstance(found, Regions)
    return found


def kingdom_counts(state: State) -> list[int]:
    memo = state.memo()
    found = memo.get("kcount")
    if found is None:
        found = regions(state).kingdom_count_map()
        memo["kcount"] = found
    assert isinstance(found, list)
    return found


def kingdom_count(state: State, sq: int) -> int:
    """How many kingdoms square ``sq`` touches (``kingdoms_next_to``): from the whole map
    when it is known already, else for this square alone (one move's check needs one)."""
    known = state.memo().get("kcount")
    if isinstance(known, list):
        return int(known[sq])
    found = regions(state)
    return kingdoms_next_to(found.label, found.leaders, sq)


def lifted_regions(state: State, leader_sq: int) -> Regions:
    """Regions of the board with the leader at ``leader_sq`` lifted (B-LEADER-4), memoised."""
    memo = state.memo()
    key = f"lift{leader_sq}"
    found = memo.get(key)
    if found is None:
        found = Regions.lifted(regions(state), state.board, leader_sq)
        memo[key] = found
    assert isinstance(found, Regions)
    return found


def kingdoms_next_to(label: list[int], leaders: list[list[int]], sq: int) -> int:
    """How many kingdoms (regions with a leader) the neighbours of ``sq`` belong to: exact
    up to 2, and above 2 whenever there are more (the rules only ask "more than 1 / 2?")."""
    a = b = -1
    n = 0
    for nb in NEIGHBOURS[sq]:
        rid = label[nb]
        if rid >= 0 and leaders[rid] and rid not in (a, b):
            n += 1
            if a < 0:
                a = rid
            else:
                b = rid
    return n
