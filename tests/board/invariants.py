"""Invariants of every reachable board-game position, shared by the property tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from domain.board import State, view
from domain.board.geometry import NEIGHBOURS, block
from domain.board.model import (
    CATASTROPHE,
    CHOOSE_WAR,
    COMMIT,
    FACE_DOWN,
    FACE_UP,
    LEADER,
    MONUMENT_COLOURS,
    TEMPLE,
    TILE_COUNTS,
)
from domain.board.notation import diagram
from domain.board.regions import Regions


def check_tiles_accounted(state: State) -> None:
    """All 153 tiles are on the board, in hands, in the bag or out of the game (B-SETUP-4)."""
    for c in range(4):
        on_board = sum(1 for code in state.board if code in (FACE_UP + c, FACE_DOWN + c))
        in_hands = sum(h[c] for h in state.hands)
        total = on_board + in_hands + state.bag.count(c) + state.out[c]
        assert total == TILE_COUNTS[c], f"colour {c}: {total} tiles\n{diagram(state)}"


def check_no_double_leaders(state: State) -> None:
    """B-REGION-3: without a conflict pending no kingdom has two leaders of one colour."""
    if state.decision in (COMMIT, CHOOSE_WAR) or state.unification >= 0:
        return
    reg = Regions(state.board)
    for lead in reg.leaders:
        colours = [(state.board[sq] - LEADER) & 3 for sq in lead]
        assert len(colours) == len(set(colours)), f"two leaders of a colour\n{diagram(state)}"


def check_leaders_by_temples(state: State) -> None:
    """B-LEADER-2, B-LEADER-7: every leader stands next to a face-up temple."""
    for idx, sq in enumerate(state.leaders):
        if sq >= 0:
            assert state.board[sq] == LEADER + idx
            assert any(state.board[n] == TEMPLE for n in NEIGHBOURS[sq]), f"{sq}\n{diagram(state)}"


def check_views_hide(state: State, viewers: Sequence[int | None] | None = None) -> None:
    """B-HIDDEN-1: a seat's view does not change when other seats' secrets change."""
    if state.decision == "over":
        return
    n = state.seat_count
    for viewer in [None, *range(n)] if viewers is None else viewers:
        scrambled = replace(
            state,
            hands=tuple(
                h if s == viewer else (h[3], h[2], h[1], h[0]) for s, h in enumerate(state.hands)
            ),
            points=tuple(
                p if s == viewer else (p[0] + 7, 1, 2, 3) for s, p in enumerate(state.points)
            ),
            taken=tuple(t if s == viewer else t + 5 for s, t in enumerate(state.taken)),
            bag=tuple(reversed(state.bag)),
            out=(state.out[3], state.out[2], state.out[1], state.out[0]),  # swaps are secret
            seed=state.seed + 1,
            cache=None,
        )
        assert view(scrambled, viewer) == view(state, viewer), f"viewer {viewer}\n{diagram(state)}"


def check_bookkeeping(state: State) -> None:
    """Treasures, catastrophes, monuments and hands add up (B-SETUP-3, B-CAT-4, B-TURN-4)."""
    assert len(state.treasures) + sum(state.taken) == 10
    on_board = sum(1 for code in state.board if code == CATASTROPHE)
    assert on_board + sum(state.catastrophes) == 2 * state.seat_count
    for m, tl in state.monuments:
        colours = {state.board[sq] - FACE_DOWN for sq in block(tl)}
        assert len(colours) == 1 and colours <= set(MONUMENT_COLOURS[m]), f"{m}\n{diagram(state)}"
    face_down = sum(1 for code in state.board if FACE_DOWN <= code < CATASTROPHE)
    assert face_down == 4 * len(state.monuments)
    assert all(sum(h) <= 6 for h in state.hands)
    war = state.conflict is not None and state.conflict.kind == "war"
    assert (state.unification >= 0) == (war or state.decision == CHOOSE_WAR)


def check_treasures_collected(state: State) -> None:
    """B-TREASURE-1: between actions, no trader's kingdom keeps two treasures."""
    if state.decision not in ("action", "over"):
        return
    reg = Regions(state.board)
    for idx in range(3, len(state.leaders), 4):  # the traders
        sq = state.leaders[idx]
        if sq >= 0:
            rid = reg.label[sq]
            kept = sum(1 for t in state.treasures if reg.label[t] == rid)
            assert kept <= 1, f"a trader's kingdom keeps {kept} treasures\n{diagram(state)}"


def check_all(state: State) -> None:
    check_tiles_accounted(state)
    check_treasures_collected(state)
    check_bookkeeping(state)
    check_no_double_leaders(state)
    check_leaders_by_temples(state)
