"""Commands of the card game: imperative, frozen, each carrying its ``seat``.

Wire names are the bare class names; the service prefixes ``cards.``.
Card positions: ``column`` 0..7 with ``depth`` (0 is the treasure*, 1..8
below it), or ``bridge`` 0..6 — exactly one of ``column`` / ``bridge``.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.common.codec import TypeRegistry
from domain.common.colours import Colour

COMMANDS: TypeRegistry[Command] = TypeRegistry("command")


@COMMANDS.register("PlaceLeader")
@dataclass(frozen=True, slots=True)
class PlaceLeader:
    """Action: put an own leader from supply, or move it, onto a card (C-LEADER-1)."""

    seat: int
    leader: Colour
    column: int | None = None
    depth: int = 0
    bridge: int | None = None


@COMMANDS.register("WithdrawLeader")
@dataclass(frozen=True, slots=True)
class WithdrawLeader:
    """Action (variant ``allow_withdraw``): take a leader back to supply (C-LEADER-2)."""

    seat: int
    leader: Colour


@COMMANDS.register("PlayCard")
@dataclass(frozen=True, slots=True)
class PlayCard:
    """Action: a card from hand below a column (C-CARD-1) or onto a bridge (C-CARD-2)."""

    seat: int
    colour: Colour
    column: int | None = None
    bridge: int | None = None


@COMMANDS.register("PlayCatastrophe")
@dataclass(frozen=True, slots=True)
class PlayCatastrophe:
    """Action: remove one card from the display with the catastrophe card (C-CAT-1)."""

    seat: int
    column: int | None = None
    depth: int = 0
    bridge: int | None = None


@COMMANDS.register("Pass")
@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn without using the remaining actions (C-TURN-1)."""

    seat: int


@COMMANDS.register("TakePoint")
@dataclass(frozen=True, slots=True)
class TakePoint:
    """Accept an offered point: a card of ``colour`` from hand onto the VP pile."""

    seat: int
    colour: Colour


@COMMANDS.register("Decline")
@dataclass(frozen=True, slots=True)
class Decline:
    """Refuse the optional decision offered to ``seat`` (point, ship, swap, ship points)."""

    seat: int


@COMMANDS.register("BuildShip")
@dataclass(frozen=True, slots=True)
class BuildShip:
    """Build the blue-``ship`` ship (black, red or green) (C-SHIP-1)."""

    seat: int
    ship: Colour


@COMMANDS.register("ChooseWar")
@dataclass(frozen=True, slots=True)
class ChooseWar:
    """Pick the colour of the external conflict fought next (C-WAR-1)."""

    seat: int
    colour: Colour


@COMMANDS.register("CommitCards")
@dataclass(frozen=True, slots=True)
class CommitCards:
    """Lay ``count`` cards of the conflict's colour from hand (C-REVOLT-3, C-WAR-4)."""

    seat: int
    count: int


@COMMANDS.register("SwapTreasure")
@dataclass(frozen=True, slots=True)
class SwapTreasure:
    """Trader: take the treasure of ``column``, a red card from hand replaces it (C-TRADER-1)."""

    seat: int
    column: int


@COMMANDS.register("Resign", 1)
@dataclass(frozen=True, slots=True)
class Resign:
    """Give up the game (C-RESIGN-1): accepted at any time while the game runs, awaited or
    not; the seat's later decisions are made for it, and it ranks last (C-RESIGN-2)."""

    seat: int


Command = (
    PlaceLeader
    | WithdrawLeader
    | PlayCard
    | PlayCatastrophe
    | Pass
    | TakePoint
    | Decline
    | BuildShip
    | ChooseWar
    | CommitCards
    | SwapTreasure
    | Resign
)
