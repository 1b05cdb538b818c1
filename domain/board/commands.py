"""Commands of the board game: imperative, frozen, each carrying its ``seat``.

Squares are ``(row, col)`` tuples (JSON ``[row, col]``). Wire names are the
bare class names; the service prefixes ``board.``.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.board.model import Monument
from domain.board.schemas import Square
from domain.common.codec import TypeRegistry
from domain.common.colours import Colour


class Command:
    """Base of every board-game command."""

    __slots__ = ()
    seat: int


COMMANDS: TypeRegistry[Command] = TypeRegistry("command")


@COMMANDS.register("PlaceLeader", 1)
@dataclass(frozen=True, slots=True)
class PlaceLeader(Command):
    """Place a leader from the supply, or move it if it is on the board (B-LEADER-1..4)."""

    seat: int
    leader: Colour
    at: Square


@COMMANDS.register("WithdrawLeader", 1)
@dataclass(frozen=True, slots=True)
class WithdrawLeader(Command):
    """Return a leader from the board to its owner's supply (B-LEADER-5)."""

    seat: int
    leader: Colour


@COMMANDS.register("PlaceTile", 1)
@dataclass(frozen=True, slots=True)
class PlaceTile(Command):
    """Place a tile from hand (B-TILE-*)."""

    seat: int
    colour: Colour
    at: Square


@COMMANDS.register("PlaceCatastrophe", 1)
@dataclass(frozen=True, slots=True)
class PlaceCatastrophe(Command):
    """Place a catastrophe tile (B-CAT-*)."""

    seat: int
    at: Square


@COMMANDS.register("SwapTiles", 1)
@dataclass(frozen=True, slots=True)
class SwapTiles(Command):
    """Discard 1 to 6 tiles from hand, given as counts per colour, and draw as many (B-SWAP-*)."""

    seat: int
    black: int = 0
    red: int = 0
    blue: int = 0
    green: int = 0

    @property
    def counts(self) -> tuple[int, int, int, int]:
        return (self.black, self.red, self.blue, self.green)


@COMMANDS.register("Pass", 1)
@dataclass(frozen=True, slots=True)
class Pass(Command):
    """Forgo one action (B-TURN-1)."""

    seat: int


@COMMANDS.register("CommitSupport", 1)
@dataclass(frozen=True, slots=True)
class CommitSupport(Command):
    """Commit ``count`` tiles of the conflict's colour from hand (B-REVOLT-3, B-WAR-5)."""

    seat: int
    count: int


@COMMANDS.register("ChooseWar", 1)
@dataclass(frozen=True, slots=True)
class ChooseWar(Command):
    """Choose which pending war is resolved next (B-WAR-2)."""

    seat: int
    colour: Colour


@COMMANDS.register("BuildMonument", 1)
@dataclass(frozen=True, slots=True)
class BuildMonument(Command):
    """Build ``monument`` on the 2x2 square whose top-left corner is ``at`` (B-MONUMENT-1)."""

    seat: int
    monument: Monument
    at: Square


@COMMANDS.register("DeclineMonument", 1)
@dataclass(frozen=True, slots=True)
class DeclineMonument(Command):
    """Build no monument on the squares offered (B-MONUMENT-3)."""

    seat: int


@COMMANDS.register("TakeTreasures", 1)
@dataclass(frozen=True, slots=True)
class TakeTreasures(Command):
    """Take these treasures from the trader's kingdom (B-TREASURE-1, B-TREASURE-2)."""

    seat: int
    squares: tuple[Square, ...]


@COMMANDS.register("Resign", 1)
@dataclass(frozen=True, slots=True)
class Resign(Command):
    """Give up the game (B-RESIGN-1): accepted at any time while the game runs, awaited or
    not; the seat's later decisions are made for it, and it ranks last (B-RESIGN-2)."""

    seat: int
