"""Text notation of a board position: one two-character token per square.

Tokens (rows top to bottom, 16 tokens per row, spaces between tokens optional):

- ``..`` empty land, ``~~`` empty river (either is accepted for an empty square);
- ``k.`` ``r.`` ``b.`` ``g.`` a face-up tile (black, red, blue, green);
  ``r*`` a temple carrying a treasure; ``bU`` a tile under the unification marker;
- ``K.`` ``R.`` ``B.`` ``G.`` a face-down tile under a monument (``R*`` with a treasure);
- ``0k`` .. ``3g`` a leader: seat digit then colour letter;
- ``XX`` a catastrophe.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.board.geometry import COLS, RIVER, ROWS, SQUARES, coords
from domain.board.model import CATASTROPHE, EMPTY, FACE_DOWN, FACE_UP, LEADER, State
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
        f"turn {state.turn} active {state.active} actions {state.actions} "
        f"decision {state.decision} bag {len(state.bag)}"
    )
    return "\n".join(lines)
