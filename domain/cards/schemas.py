"""The JSON Schemas of the card game's state view, pending decision and result.

They describe what ``views.py`` returns; ``tests/cards/test_schemas.py`` checks every
view, pending decision and result of random games against them, and
``python -m service.contract`` writes them into ``openapi.yaml``.
"""

from __future__ import annotations

from domain.cards.flow import DECISION_NAMES
from domain.cards.model import BRIDGES, COLUMNS, DYNASTIES, Card
from domain.common.codec import JSON
from domain.common.schema import (
    BOOLEAN,
    COLOUR,
    COUNT,
    INTEGER,
    SEAT,
    STRING,
    array,
    const,
    nullable,
    record,
    ref,
)

CARD: JSON = {"type": "string", "enum": [c.value for c in Card]}
COLUMN: JSON = {"type": "integer", "minimum": 0, "maximum": COLUMNS - 1}
BRIDGE: JSON = {"type": "integer", "minimum": 0, "maximum": BRIDGES - 1}
REASON: JSON = {
    "type": "string",
    "enum": ["pile", "treasures", "blocked", "resigned"],
    "description": "Why it ended.",
}
LEADER: JSON = record({"seat": SEAT, "colour": COLOUR})

CONFLICT: JSON = record(
    {
        "kind": {"type": "string", "enum": ["revolt", "war"]},
        "colour": COLOUR,
        "card_colour": {**COLOUR, "description": "The colour of the cards committed."},
        "attacker": SEAT,
        "defender": SEAT,
        "bridge": nullable(BRIDGE),
        "attacker_cards": nullable(COUNT),
        "defender_cards": nullable(COUNT),
        "attacker_strength": COUNT,
        "defender_strength": COUNT,
    },
    description="The conflict being fought; a side's cards are null until committed.",
)

PENDING: JSON = record(
    {
        "kind": const("cards"),
        "awaiting": array(SEAT, description="The seats whose command is awaited."),
        "decision": {
            "type": "string",
            "enum": ["action", *DECISION_NAMES.values(), "over"],
        },
        "actions_left": COUNT,
        "colour": COLOUR,
        "reason": {
            "type": "string",
            "enum": ["card", "conflict", "pile", "treasures", "blocked", "resigned"],
        },
        "column": COLUMN,
        "ships": array(COLOUR),
        "run": COLOUR,
        "colours": array(COLOUR),
        "conflict": nullable(ref("CardsConflict")),
        "bridge": BRIDGE,
        "columns": array(COLUMN),
    },
    optional=(
        "actions_left",
        "colour",
        "reason",
        "column",
        "ships",
        "run",
        "colours",
        "conflict",
        "bridge",
        "columns",
    ),
    description="Who is awaited, on what decision, and its details.",
)

RESULT: JSON = record(
    {
        "kind": const("cards"),
        "reason": REASON,
        "seats": array(ref("ResultSeat")),
        "places": array(array(SEAT), description="Seats by place; ties share a place."),
    },
    description="The final table (C-END-3).",
)

CELL: JSON = record({"card": CARD, "leader": nullable(ref("CardsLeader"))})
BRIDGE_CELL: JSON = record(
    {
        "card": {"type": "string", "enum": [*(c.value for c in Card), "face-down"]},
        "leader": nullable(ref("CardsLeader")),
    }
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
        "vp_count": {**COUNT, "description": "Cards on the VP pile."},
        "vp_top": nullable(CARD),
        "vp_order": nullable(array(CARD)),
    },
    description="A seat; `hand` is null to others; `points` and `treasures` (the VP pile by "
    "colour) are null unless the game is complete or `open_vp_piles` is on; `vp_order` "
    "only when complete.",
)

VIEW: JSON = record(
    {
        "kind": const("cards"),
        "viewer": nullable(SEAT),
        "complete": {**BOOLEAN, "description": "Everything is shown (the admin, or the end)."},
        "over": BOOLEAN,
        "options": ref("CardsOptions"),
        "turn": INTEGER,
        "active": SEAT,
        "start_player": SEAT,
        "resigned": array(
            SEAT,
            description="The seats that resigned, in order (C-RESIGN-1): the service makes "
            "their decisions; they rank last (C-RESIGN-2).",
        ),
        "actions_left": COUNT,
        "display": record(
            {
                "columns": array(array(ref("CardsCell")), minItems=8, maxItems=8),
                "bridges": array(nullable(ref("CardsBridgeCell")), minItems=7, maxItems=7),
            },
            description="Columns from the treasure down, then the bridge slots.",
        ),
        "text": {**STRING, "description": "The display in text notation."},
        "seats": array(ref("CardsViewSeat")),
        "pile_size": COUNT,
        "discard": ref("ColourCounts"),
        "destroyed": array(CARD),
        "set_aside_count": COUNT,
        "ships_available": array(COLOUR),
        "treasures_left": COUNT,
        "conflict": nullable(ref("CardsConflict")),
        "pending": ref("CardsPending"),
        "seed": nullable(INTEGER),
        "pile": nullable(array(CARD)),
        "set_aside": nullable(array(CARD)),
        "result": nullable(ref("CardsResult")),
    },
    description="A card game as one caller may see it; the same keys for every caller.",
)

MAP: JSON = record(
    {
        "kind": const("cards"),
        "options": ref("CardsOptions"),
        "columns": {
            "type": "integer",
            "minimum": 1,
            "description": "Columns of the display, numbered from 0 at the left.",
        },
        "column_cards": {
            **COUNT,
            "description": "Cards a column holds below its treasure (C-CARD-1).",
        },
        "treasures": array(
            COLUMN,
            description="The columns whose top card is a treasure at the start: each one "
            "(C-SETUP-2).",
        ),
        "bridges": array(
            record({"bridge": BRIDGE, "columns": array(COLUMN, minItems=2, maxItems=2)}),
            description="The bridge slots, each between two neighbouring columns.",
        ),
        "ships": array(CARD, description="The ships that may be built (C-SHIP-1)."),
        "cards": {
            **ref("ColourCounts"),
            "description": "The civilisation cards of each colour in the pile (C-SETUP-2).",
        },
        "hand_size": {**COUNT, "description": "Cards in a hand (C-SETUP-4)."},
        "set_aside_for_two": {
            **COUNT,
            "description": "Cards set aside, unseen, in a game of two (C-SETUP-4).",
        },
    },
    description="The display a card game begins with, the same for every game of these "
    "options: its columns, their treasures and the bridge slots between them, and the cards "
    "and ships beside it.",
)

SCHEMAS: dict[str, JSON] = {
    "CardsMap": MAP,
    "CardsLeader": LEADER,
    "CardsCell": CELL,
    "CardsBridgeCell": BRIDGE_CELL,
    "CardsConflict": CONFLICT,
    "CardsPending": PENDING,
    "CardsResult": RESULT,
    "CardsViewSeat": VIEW_SEAT,
    "CardsView": VIEW,
}
"""Component name → schema; the shared ones (``ColourCounts``, ``ResultSeat``) are in
``domain.common.schema.SHARED``."""
