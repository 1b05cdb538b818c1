"""The registry of games the service offers, by their stable ``kind``."""

from __future__ import annotations

from typing import Any

from domain.common.protocol import GameRules


def all_games() -> dict[str, GameRules[Any, Any, Any]]:
    """``{"board": ..., "cards": ...}``; imported lazily to keep imports cheap."""
    from domain.board import RULES as BOARD
    from domain.cards import RULES as CARDS

    return {BOARD.kind: BOARD, CARDS.kind: CARDS}
