"""The JSON Schemas of the board game's state view, pending decision and result.

They describe what ``views.py`` returns; ``tests/board/test_schemas.py`` checks every
view, pending decision and result of random games against them, and
``python -m service.contract`` writes them into ``openapi.yaml``.
"""

from __future__ import annotations

from typing import Annotated

from domain.board.geometry import COLS, ROWS
from domain.board.model import DECISIONS, DYNASTIES, MONUMENTS
from domain.common.codec import JSON
from domain.common.schema import (
    BOOLEAN,
    COLOUR,
    COUNT,
    INTEGER,
    SEAT,
    STRING,
    Typed,
    array,
    const,
    nullable,
    record,
    ref,
)

SQUARE: JSON = {
    "type": "array",
    "description": f"A square `[row, col]` of the board: row 0-{ROWS - 1} (top to bottom), "
    f"column 0-{COLS - 1} (left to right).",
    "minItems": 2,
    "maxItems": 2,
    "prefixItems": [
        {"type": "integer", "minimum": 0, "maximum": ROWS - 1, "description": "The row."},
        {"type": "integer", "minimum": 0, "maximum": COLS - 1, "description": "The column."},
    ],
    # Past the two prefixItems nothing is allowed (maxItems); generators that do not read
    # prefixItems still see a list of integers.
    "items": {"type": "integer", "minimum": 0, "maximum": max(ROWS, COLS) - 1},
}
Square = Annotated[tuple[int, int], Typed(SQUARE)]
"""A square of the board, ``(row, col)`` (JSON ``[row, col]``), typed in the contract as
:data:`SQUARE`, bounds included: what the commands and events hold."""
MONUMENT: JSON = {"type": "string", "enum": [str(m) for m in MONUMENTS]}
REASON: JSON = {
    "type": "string",
    "enum": ["treasures", "bag", "resigned"],
    "description": "Why it ended.",
}

CONFLICT: JSON = record(
    {
        "kind": {"type": "string", "enum": ["revolt", "war"]},
        "colour": COLOUR,
        "attacker": SEAT,
        "defender": SEAT,
        "attacker_at": SQUARE,
        "defender_at": SQUARE,
        "attacker_base": COUNT,
        "defender_base": COUNT,
        "attacker_commit": nullable(COUNT),
        "defender_commit": nullable(COUNT),
        "attacker_strength": {**COUNT, "description": "The base plus the tiles committed."},
        "defender_strength": {**COUNT, "description": "The base plus the tiles committed."},
    },
    description="The conflict being fought; a side's commitment is null until sent.",
)

PENDING: JSON = record(
    {
        "kind": const("board"),
        "awaiting": array(SEAT, description="The seats whose command is awaited."),
        "decision": {"type": "string", "enum": list(DECISIONS)},
        "conflict": nullable(ref("BoardConflict")),
        "wars": array(
            COLOUR, description="While a war is fought: the colours of the wars still to fight."
        ),
        "colours": array(COLOUR, description="The wars to choose from (`choose_war`)."),
        "squares": array(SQUARE, description="Monument squares offered (top-left corners)."),
        "monuments": array(MONUMENT, description="Monuments still available."),
        "treasures": array(SQUARE, description="Treasures to choose from."),
        "take": COUNT,
        "reason": REASON,
        "unification": SQUARE,
        "turn": INTEGER,
        "active": SEAT,
        "actions_left": COUNT,
    },
    optional=(
        "conflict",
        "wars",
        "colours",
        "squares",
        "monuments",
        "treasures",
        "take",
        "reason",
        "unification",
        "turn",
        "active",
        "actions_left",
    ),
    description="Who is awaited, on what decision, and its details.",
)

RESULT: JSON = record(
    {
        "kind": const("board"),
        "reason": REASON,
        "seats": array(ref("ResultSeat")),
        "places": array(array(SEAT), description="Seats by place; ties share a place."),
    },
    description="The final table (B-END-2).",
)

VIEW_SEAT: JSON = record(
    {
        "seat": SEAT,
        "name": STRING,
        "dynasty": {"type": "string", "enum": list(DYNASTIES)},
        "hand_size": COUNT,
        "supply": array(COLOUR, description="Leaders in the supply."),
        "catastrophes": COUNT,
        "hand": nullable(ref("ColourCounts")),
        "points": nullable(ref("ColourCounts")),
        "treasures": nullable(COUNT),
    },
    description="A seat; `hand` is null to others, `points` and `treasures` (taken) are "
    "null to others unless the game is complete or `open_scoring` is on.",
)

VIEW: JSON = record(
    {
        "kind": const("board"),
        "viewer": nullable(SEAT),
        "complete": {**BOOLEAN, "description": "Everything is shown (the admin, or the end)."},
        "over": BOOLEAN,
        "options": ref("BoardOptions"),
        "turn": INTEGER,
        "active": SEAT,
        "start_player": SEAT,
        "resigned": array(
            SEAT,
            description="The seats that resigned, in order (B-RESIGN-1): the service makes "
            "their decisions; they rank last (B-RESIGN-2).",
        ),
        "actions_left": COUNT,
        "board": array(
            STRING,
            description="The board in the text notation of the board's position format "
            "(`domain/board/POSITION_FORMAT.md`), one row per string; the board's size, rivers "
            "and temples are in the game's map (`GET /games/{game_id}/map`), structured.",
        ),
        "tiles": array(
            record({"colour": COLOUR, "at": SQUARE, "face_up": BOOLEAN}),
            description="Tiles on the board (face down: under a monument).",
        ),
        "catastrophes": array(SQUARE, description="Catastrophe tiles."),
        "leaders": array(record({"seat": SEAT, "colour": COLOUR, "at": SQUARE})),
        "treasures": array(SQUARE, description="Treasures still on the board."),
        "monuments": array(record({"monument": MONUMENT, "at": SQUARE})),
        "unbuilt_monuments": array(MONUMENT),
        "declined_monument_squares": array(SQUARE),
        "declined_monuments": array(record({"at": SQUARE, "tiles": array(SQUARE)})),
        "unification": nullable(SQUARE),
        "bag_size": COUNT,
        "out_of_game": COUNT,
        "seats": array(ref("BoardViewSeat")),
        "pending": ref("BoardPending"),
        "seed": nullable(INTEGER),
        "bag": nullable(array(COLOUR)),
        "result": nullable(ref("BoardResult")),
    },
    description="A board game as one caller may see it; the same keys for every caller.",
)

MAP: JSON = record(
    {
        "kind": const("board"),
        "options": ref("BoardOptions"),
        "rows": {
            "type": "integer",
            "minimum": 1,
            "description": "Rows of squares, numbered from 0 at the top (B-SETUP-1).",
        },
        "columns": {
            "type": "integer",
            "minimum": 1,
            "description": "Squares per row, numbered from 0 at the left (B-SETUP-1).",
        },
        "rivers": array(SQUARE, description="The river squares; every other square is land."),
        "temples": array(SQUARE, description="The starting temples (B-SETUP-3)."),
        "treasures": array(
            SQUARE, description="The treasures at the start: one on each starting temple."
        ),
        "border_treasures": array(
            SQUARE,
            description="The special treasures, on the border temples: taken before the "
            "others (B-SETUP-3, B-TREASURE-2).",
        ),
        "monuments": array(
            record({"monument": MONUMENT, "colours": array(COLOUR, minItems=2, maxItems=2)}),
            description="The six monuments beside the board and their two colours (B-SETUP-6).",
        ),
        "tiles": {
            **ref("ColourCounts"),
            "description": "The civilisation tiles of each colour, the starting temples among "
            "the red (B-SETUP-4).",
        },
        "hand_size": {**COUNT, "description": "Tiles in a hand (B-SETUP-5)."},
        "catastrophes": {**COUNT, "description": "Catastrophe tiles each seat starts with."},
    },
    description="The board a game begins with, the same for every game of these options: "
    "its size, rivers, starting temples and treasures, and the monuments and tiles beside "
    "it. Squares are `[row, col]`.",
)

SCHEMAS: dict[str, JSON] = {
    "BoardMap": MAP,
    "BoardConflict": CONFLICT,
    "BoardPending": PENDING,
    "BoardResult": RESULT,
    "BoardViewSeat": VIEW_SEAT,
    "BoardView": VIEW,
}
"""Component name → schema; the shared ones (``ColourCounts``, ``ResultSeat``) are in
``domain.common.schema.SHARED``."""
