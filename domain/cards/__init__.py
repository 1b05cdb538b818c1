"""Euphrat & Tigris: Wettstreit der Könige, the card game, as a pure decider.

``RULES`` satisfies :class:`domain.common.protocol.GameRules` (kind ``"cards"``); the
module-level functions, the state, commands and events are exported for direct use.
Rules digest ids (``C-...``) name every refusal. The modules have the same names and
roles as the board game's (``domain.board``).
"""

from domain.cards.commands import (
    COMMANDS,
    BuildShip,
    ChooseWar,
    Command,
    CommitCards,
    Decline,
    Pass,
    PlaceLeader,
    PlayCard,
    PlayCatastrophe,
    Resign,
    SwapTreasure,
    TakePoint,
    WithdrawLeader,
)
from domain.cards.decide import decide
from domain.cards.events import (
    EVENTS,
    CardPlayed,
    CardsCommitted,
    CardsDrawn,
    CatastrophePlayed,
    ConflictResolved,
    Declined,
    Event,
    GameEnded,
    GameStarted,
    LeaderPlaced,
    LeaderWithdrawn,
    Passed,
    PointScored,
    SeatResigned,
    ShipBuilt,
    TreasureSwapped,
    TurnBegan,
    WarChosen,
    is_draw,
)
from domain.cards.evolve import evolve, fold
from domain.cards.flow import awaited, is_over, turn
from domain.cards.legal import legal_commands
from domain.cards.model import Card, Options, State
from domain.cards.notation import build, display_text, parse_display
from domain.cards.position import dump_position, load_position
from domain.cards.rules import RULES, CardRules
from domain.cards.setup import normalize_options, start
from domain.cards.views import event_view, pending, result, view

__all__ = [
    "COMMANDS",
    "EVENTS",
    "RULES",
    "BuildShip",
    "Card",
    "CardPlayed",
    "CardRules",
    "CardsCommitted",
    "CardsDrawn",
    "CatastrophePlayed",
    "ChooseWar",
    "Command",
    "CommitCards",
    "ConflictResolved",
    "Decline",
    "Declined",
    "Event",
    "GameEnded",
    "GameStarted",
    "LeaderPlaced",
    "LeaderWithdrawn",
    "Options",
    "Pass",
    "Passed",
    "PlaceLeader",
    "PlayCard",
    "PlayCatastrophe",
    "PointScored",
    "Resign",
    "SeatResigned",
    "ShipBuilt",
    "State",
    "SwapTreasure",
    "TakePoint",
    "TreasureSwapped",
    "TurnBegan",
    "WarChosen",
    "WithdrawLeader",
    "awaited",
    "build",
    "decide",
    "display_text",
    "dump_position",
    "event_view",
    "evolve",
    "fold",
    "is_draw",
    "is_over",
    "legal_commands",
    "load_position",
    "normalize_options",
    "parse_display",
    "pending",
    "result",
    "start",
    "turn",
    "view",
]
