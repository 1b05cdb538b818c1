"""The fixed board: 11 x 16 squares, rivers, starting temples (B-SETUP-1..3).

Squares are numbered ``row * 16 + col`` so the board is a flat tuple; the
neighbour lists and masks are computed once at import.
"""

from __future__ import annotations

ROWS = 11
COLS = 16
SQUARES = ROWS * COLS

# B-SETUP-3 map: ``x`` river, ``t`` treasure temple, ``T`` border treasure temple.
MAP = (
    "....xxxxx.t.x...",
    ".T..x.......x..T",
    "...xxt......xx..",
    "xxxx.........xxx",
    ".............txx",
    "..............x.",
    "xxxx....t...xxx.",
    ".T.xxxx.....x...",
    "......xxxxxxx.T.",
    ".....t..........",
    "..........t.....",
)

RIVER: tuple[bool, ...] = tuple(ch == "x" for row in MAP for ch in row)
START_TEMPLES: tuple[int, ...] = tuple(i for i, ch in enumerate("".join(MAP)) if ch in "tT")
BORDER_TREASURES: frozenset[int] = frozenset(i for i, ch in enumerate("".join(MAP)) if ch == "T")


def square(row: int, col: int) -> int:
    return row * COLS + col


def coords(sq: int) -> tuple[int, int]:
    return divmod(sq, COLS)


def on_board(row: int, col: int) -> bool:
    return 0 <= row < ROWS and 0 <= col < COLS


def _neighbours(sq: int) -> tuple[int, ...]:
    row, col = coords(sq)
    steps = ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
    return tuple(square(r, c) for r, c in steps if on_board(r, c))


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(sq) for sq in range(SQUARES))


def _blocks(sq: int) -> tuple[int, ...]:
    """Top-left squares of the 2x2 blocks that contain ``sq`` (B-MONUMENT-1)."""
    row, col = coords(sq)
    tops = []
    for r in (row - 1, row):
        for c in (col - 1, col):
            if 0 <= r < ROWS - 1 and 0 <= c < COLS - 1:
                tops.append(square(r, c))
    return tuple(tops)


BLOCKS_OF: tuple[tuple[int, ...], ...] = tuple(_blocks(sq) for sq in range(SQUARES))


def block(top_left: int) -> tuple[int, int, int, int]:
    """The four squares of the 2x2 block with this top-left corner."""
    return (top_left, top_left + 1, top_left + COLS, top_left + COLS + 1)


def is_block_top_left(sq: int) -> bool:
    row, col = coords(sq)
    return row < ROWS - 1 and col < COLS - 1


assert len(START_TEMPLES) == 10 and sum(RIVER) == 41
