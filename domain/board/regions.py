"""Region labelling (B-REGION-1, B-REGION-2), memoised once per state.

A region is a maximal orthogonally connected group of tiles and leaders; a
kingdom is a region with a leader. Labelling the 176 squares is the one
expensive derived fact, so each state computes it at most once.
"""

from __future__ import annotations

from domain.board.geometry import NEIGHBOURS, SQUARES
from domain.board.model import CONNECTS, LEADER, State


class Regions:
    """``label[sq]``: region id or -1; ``members``/``leaders`` per region id."""

    __slots__ = ("label", "leaders", "members")

    def __init__(self, board: tuple[int, ...] | list[int], cut: int = -1) -> None:
        label = [-1] * SQUARES
        members: list[list[int]] = []
        leaders: list[list[int]] = []
        connects = CONNECTS
        neighbours = NEIGHBOURS
        for start in range(SQUARES):
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
        connects = CONNECTS
        neighbours = NEIGHBOURS
        for start in old:
            if start == sq or label[start] >= 0:
                continue
            nid = len(members)
            label[start] = nid
            stack = [start]
            mem: list[int] = []
            lead: list[int] = []
            while stack:
                cur = stack.pop()
                mem.append(cur)
                if board[cur] >= LEADER:
                    lead.append(cur)
                for n in neighbours[cur]:
                    if n != sq and label[n] < 0 and connects[board[n]]:
                        label[n] = nid
                        stack.append(n)
            members.append(mem)
            leaders.append(lead)
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
        counts = [0] * SQUARES
        for sq in range(SQUARES):
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
            counts[sq] = n
        return counts


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
