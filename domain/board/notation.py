"""Text notation of a board position: one two-character token per square.

Tokens (rows top to bottom, 16 tokens per row, spaces between tokens optional):

- ``..`` empty land, ``~~`` empty river (either is accepted for an empty square);
- ``k.`` ``r.`` ``b.`` ``g.`` a face-up tile (black, red, blue, green);
  ``r*`` a temple carrying a treasure; ``bU`` a tile under the unification marker;
- ``K.`` ``R.`` ``B.`` ``G.`` a face-down tile under a monument (``R*`` with a treasure);
- ``0k`` .. ``3g`` a leader: seat digit then colour letter;
- ``XX`` a catastrophe.

Hands and bags are strings of tile letters (``"rrkbg"``). ``build`` sets up a
position for tests from the notation, as the card game's ``notation.build`` does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from domain.board.events import GameStarted
from domain.board.geometry import COLS, RIVER, ROWS, SQUARES, block, coords, square
from domain.board.model import (
    CATASTROPHE,
    CATASTROPHES_PER_SEAT,
    EMPTY,
    FACE_DOWN,
    FACE_UP,
    LEADER,
    MONUMENTS,
    TILE_COUNTS,
    Monument,
    State,
)
from domain.board.setup import initial_state
from domain.common.errors import FormatError

LETTERS = "krbg"


def square_name(sq: int) -> str:
    row, col = coords(sq)
    return f"[{row}, {col}]"


def token(code: int, treasure: bool = False, marker: bool = False) -> str:
    if code == EMPTY:
        return ".."
    if code == CATASTROPHE:
        return "XX"
    if code >= LEADER:
        idx = code - LEADER
        return f"{idx >> 2}{LETTERS[idx & 3]}"
    letter = LETTERS[code - FACE_DOWN].upper() if code >= FACE_DOWN else LETTERS[code - FACE_UP]
    return letter + ("*" if treasure else "U" if marker else ".")


def format_board(
    board: tuple[int, ...] | list[int], treasures: Iterable[int] = (), unification: int = -1
) -> list[str]:
    """The board as 11 rows of 16 space-separated tokens."""
    marked = set(treasures)
    rows = []
    for r in range(ROWS):
        cells = []
        for c in range(COLS):
            sq = r * COLS + c
            code = board[sq]
            if code == EMPTY:
                cells.append("~~" if RIVER[sq] else "..")
            else:
                cells.append(token(code, sq in marked, sq == unification))
        rows.append(" ".join(cells))
    return rows


def parse_board(text: str | Iterable[str]) -> tuple[list[int], set[int], int]:
    """``(board, treasure squares, unification square or -1)`` from the notation."""
    raw = text.splitlines() if isinstance(text, str) else list(text)
    if not all(isinstance(ln, str) for ln in raw):
        raise FormatError("rows must be strings", "board")
    lines = [ln for ln in raw if ln.strip()]
    if len(lines) != ROWS:
        raise FormatError(f"expected {ROWS} rows, got {len(lines)}", "board")
    board = [EMPTY] * SQUARES
    treasures: set[int] = set()
    unification = -1
    for r, line in enumerate(lines):
        compact = "".join(line.split())
        if len(compact) != 2 * COLS:
            raise FormatError(f"row {r}: expected {COLS} two-character tokens: {line!r}", "board")
        for c in range(COLS):
            sq = r * COLS + c
            tok = compact[2 * c : 2 * c + 2]
            board[sq] = _code(tok, r, c)
            if tok[1] == "*":
                treasures.add(sq)
            if tok[1] == "U":
                if unification >= 0:
                    raise FormatError("two unification markers", "board")
                unification = sq
    return board, treasures, unification


def _code(tok: str, r: int, c: int) -> int:
    if tok in ("..", "~~"):
        return EMPTY
    if tok == "XX":
        return CATASTROPHE
    first, second = tok[0], tok[1]
    if first in "0123" and second in LETTERS:
        return LEADER + int(first) * 4 + LETTERS.index(second)
    if second in ".*U" and first in LETTERS:
        if second == "*" and first != "r":
            raise FormatError(f"[{r}, {c}]: only temples carry treasures: {tok!r}", "board")
        return FACE_UP + LETTERS.index(first)
    if second in ".*" and first in LETTERS.upper():
        if second == "*" and first != "R":
            raise FormatError(f"[{r}, {c}]: only temples carry treasures: {tok!r}", "board")
        return FACE_DOWN + LETTERS.upper().index(first)
    raise FormatError(f"[{r}, {c}]: unknown token {tok!r}", "board")


def diagram(state: State) -> str:
    """A full text picture of a position (hidden parts included), for tests and debugging."""
    header = "    " + " ".join(f"{c:02d}" for c in range(COLS))
    rows = format_board(state.board, state.treasures, state.unification)
    lines = [header, *(f"{r:2d}  {row}" for r, row in enumerate(rows))]
    for seat, name in enumerate(state.seats):
        hand = "".join(LETTERS[c] * n for c, n in enumerate(state.hands[seat]))
        lines.append(
            f"seat {seat} {name}: hand {hand or '-'} points {list(state.points[seat])} "
            f"treasures {state.taken[seat]} catastrophes {state.catastrophes[seat]}"
        )
    lines.append(
        f"turn {state.turn} active {state.active} actions left {state.actions_left} "
        f"decision {state.decision} bag {len(state.bag)}"
    )
    return "\n".join(lines)


def build(
    board: str | Sequence[str],
    hands: Sequence[str] = ("", ""),
    *,
    active: int = 0,
    bag: str | None = None,
    points: Sequence[Sequence[int]] | None = None,
    catastrophes: Sequence[int] | None = None,
    monuments: Sequence[tuple[str, tuple[int, int]]] = (),
    declined: Sequence[tuple[int, int]] = (),
    actions_left: int = 2,
    taken: Sequence[int] | None = None,
    bag_size: int | None = None,
) -> State:
    """A position for tests in the action phase: the board in the notation above,
    hands like ``"rrkbg"`` (one per seat), all else as at the start unless given.

    The bag is ``bag`` (letters, drawing order) followed by whatever tiles are
    left so that all 153 are accounted for, by colour; with ``bag_size`` only that
    many stay in the bag and the others are out of the game. Each ``declined`` 2x2
    square (B-MONUMENT-3) is banned by those of its four tiles that are on the board.
    """
    n = len(hands)
    cells, treasures, _ = parse_board(board)
    counts = [[0, 0, 0, 0] for _ in range(n)]
    for seat, text in enumerate(hands):
        for ch in text:
            counts[seat][LETTERS.index(ch)] += 1
    front = [LETTERS.index(ch) for ch in (bag or "")]
    left = list(TILE_COUNTS)
    for code in cells:
        if FACE_UP <= code < FACE_DOWN + 4:
            left[(code - FACE_UP) % 4] -= 1
    for hand in counts:
        for c in range(4):
            left[c] -= hand[c]
    for c in front:
        left[c] -= 1
    if min(left) < 0:
        raise FormatError("more tiles than the game has", "board")
    bag_tiles = front + [c for c in range(4) for _ in range(left[c])]
    out = [0, 0, 0, 0]
    if bag_size is not None:
        for c in bag_tiles[bag_size:]:
            out[c] += 1
        bag_tiles = bag_tiles[:bag_size]
    leaders = [-1] * (4 * n)
    for sq, code in enumerate(cells):
        if code >= LEADER:
            if (code - LEADER) >> 2 >= n:
                raise FormatError(f"a leader of seat {(code - LEADER) >> 2} at {square_name(sq)}")
            leaders[code - LEADER] = sq
    declined_squares = {square(*at) for at in declined}
    declined_tiles = {
        (tl, sq)
        for tl in declined_squares
        for sq in block(tl)
        if FACE_UP <= cells[sq] < CATASTROPHE
    }
    base = initial_state(GameStarted(tuple(f"p{i}" for i in range(n)), 0, 0))
    return replace(
        base,
        board=tuple(cells),
        treasures=frozenset(treasures),
        leaders=tuple(leaders),
        hands=tuple((h[0], h[1], h[2], h[3]) for h in counts),
        bag=tuple(bag_tiles),
        points=tuple((p[0], p[1], p[2], p[3]) for p in (points or [[0] * 4] * n)),
        taken=tuple(taken or [0] * n),
        catastrophes=tuple(catastrophes or [CATASTROPHES_PER_SEAT] * n),
        monuments=tuple((MONUMENTS.index(Monument(m)), square(*tl)) for m, tl in monuments),
        declined=frozenset(tl for tl, _ in declined_tiles),
        declined_tiles=frozenset(declined_tiles),
        out=(out[0], out[1], out[2], out[3]),
        active=active,
        actions_left=actions_left,
    )
