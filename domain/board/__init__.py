"""Tigris & Euphrates, the board game, as a pure decider (``decide``/``evolve``/``fold``).

``RULES`` satisfies :class:`domain.common.protocol.GameRules` (kind ``"board"``); the
module-level functions, the state, commands and events are exported for direct use.
Rules digest ids (``B-...``) name every refusal. The modules have the same names and
roles as the card game's (``domain.cards``).
"""

from domain.board.commands import (
    COMMANDS,
    BuildMonument,
    ChooseWar,
    Command,
    CommitSupport,
    DeclineMonument,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    Resign,
    SwapTiles,
    TakeTreasures,
    WithdrawLeader,
)
from domain.board.decide import decide
from domain.board.events import (
    EVENTS,
    CatastrophePlaced,
    ConflictResolved,
    Event,
    GameEnded,
    GameStarted,
    LeaderMoved,
    LeaderPlaced,
    LeaderWithdrawn,
    MonumentBuilt,
    MonumentDeclined,
    Passed,
    SeatResigned,
    SupportCommitted,
    TilePlaced,
    TilesDrawn,
    TilesSwapped,
    TreasuresTaken,
    TurnEnded,
    WarChosen,
    is_draw,
)
from domain.board.evolve import evolve, fold
from domain.board.flow import awaited, is_over, turn
from domain.board.legal import legal_commands
from domain.board.model import Conflict, Monument, State
from domain.board.notation import build, format_board, parse_board
from domain.board.position import dump_position, load_position
from domain.board.rules import RULES, BoardRules
from domain.board.setup import normalize_options, start
from domain.board.views import event_view, pending, result, view

__all__ = [
    "COMMANDS",
    "EVENTS",
    "RULES",
    "BoardRules",
    "BuildMonument",
    "CatastrophePlaced",
    "ChooseWar",
    "Command",
    "CommitSupport",
    "Conflict",
    "ConflictResolved",
    "DeclineMonument",
    "Event",
    "GameEnded",
    "GameStarted",
    "LeaderMoved",
    "LeaderPlaced",
    "LeaderWithdrawn",
    "Monument",
    "MonumentBuilt",
    "MonumentDeclined",
    "Pass",
    "Passed",
    "PlaceCatastrophe",
    "PlaceLeader",
    "PlaceTile",
    "Resign",
    "SeatResigned",
    "State",
    "SupportCommitted",
    "SwapTiles",
    "TakeTreasures",
    "TilePlaced",
    "TilesDrawn",
    "TilesSwapped",
    "TreasuresTaken",
    "TurnEnded",
    "WarChosen",
    "WithdrawLeader",
    "awaited",
    "build",
    "decide",
    "dump_position",
    "event_view",
    "evolve",
    "fold",
    "format_board",
    "is_draw",
    "is_over",
    "legal_commands",
    "load_position",
    "normalize_options",
    "parse_board",
    "pending",
    "result",
    "start",
    "turn",
    "view",
]
