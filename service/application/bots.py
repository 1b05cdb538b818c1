"""Bot seats: which seats of a game a server-side bot plays, and how long it may think.

A game's bot seats are fixed at creation and kept in its info record (field ``bots``, a JSON
object seat → ``{"bot": kind, "think_ms": n}``), written by the same atomic write as the
start events. The moves themselves are background jobs (``service.jobs.bots``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.bots import BOT_KINDS
from domain.common.errors import FormatError

MAX_THINK_MS = 10_000
DEFAULT_THINK_MS = 500  # well under the 1 s per move the service promises by default


@dataclass(frozen=True, slots=True)
class BotSeat:
    bot: str  # "random" | "greedy" | "mcts"
    think_ms: int = DEFAULT_THINK_MS

    def __post_init__(self) -> None:
        if self.bot not in BOT_KINDS:
            raise FormatError(f"unknown bot {self.bot!r}; expected one of {BOT_KINDS}", "bot")
        if not 0 <= self.think_ms <= MAX_THINK_MS:
            raise FormatError(f"think_ms must be 0-{MAX_THINK_MS}", "think_ms")

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "think_ms": self.think_ms}


def bots_field(bots: Mapping[int, BotSeat]) -> str:
    """The info record's ``bots`` field."""
    return json.dumps({str(seat): bots[seat].to_json() for seat in sorted(bots)})


def parse_bots(raw: str | None) -> dict[int, BotSeat]:
    if not raw:
        return {}
    return {int(seat): BotSeat(**spec) for seat, spec in json.loads(raw).items()}
