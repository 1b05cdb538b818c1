"""Events of the board game: past tense, frozen, in the order they happened.

Events record what was decided; the consequences that follow from the rules
alone (points, conflicts resolved, leaders returned, forced treasures) are
derived again by ``evolve``, so an event never duplicates the rules.

The one record of a consequence is :class:`ConflictResolved`: ``decide`` appends it to
the commitment that settles a revolt or a war, for readers (a client, the explanation),
and ``evolve`` leaves the state as it is: the commitment already settled the conflict.
So a stream stored before the event existed, which lacks it, folds to the same states.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.board.model import Monument, Options
from domain.board.schemas import Square
from domain.common.codec import JSON, TypeRegistry
from domain.common.colours import Colour


class Event:
    """Base of every board-game event."""

    __slots__ = ()


EVENTS: TypeRegistry[Event] = TypeRegistry("event")


@EVENTS.register("GameStarted", 1)
@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """Setup (B-SETUP-*): the bag order derives from ``seed``, which is secret."""

    seats: tuple[str, ...]
    seed: int
    start_player: int
    options: Options = field(default_factory=Options)


@EVENTS.register("TilesDrawn", 1)
@dataclass(frozen=True, slots=True)
class TilesDrawn(Event):
    """``seat`` drew these tiles from the front of the bag (B-SETUP-5, B-TURN-4)."""

    seat: int
    tiles: tuple[Colour, ...]


@EVENTS.register("LeaderPlaced", 1)
@dataclass(frozen=True, slots=True)
class LeaderPlaced(Event):
    seat: int
    leader: Colour
    at: Square


@EVENTS.register("LeaderMoved", 1)
@dataclass(frozen=True, slots=True)
class LeaderMoved(Event):
    seat: int
    leader: Colour
    origin: Square
    at: Square


@EVENTS.register("LeaderWithdrawn", 1)
@dataclass(frozen=True, slots=True)
class LeaderWithdrawn(Event):
    seat: int
    leader: Colour


@EVENTS.register("TilePlaced", 1)
@dataclass(frozen=True, slots=True)
class TilePlaced(Event):
    seat: int
    colour: Colour
    at: Square


@EVENTS.register("CatastrophePlaced", 1)
@dataclass(frozen=True, slots=True)
class CatastrophePlaced(Event):
    seat: int
    at: Square


@EVENTS.register("TilesSwapped", 1)
@dataclass(frozen=True, slots=True)
class TilesSwapped(Event):
    """Discarded tiles (counts per colour) leave the game; ``drawn`` came from the bag."""

    seat: int
    black: int
    red: int
    blue: int
    green: int
    drawn: tuple[Colour, ...]

    @property
    def counts(self) -> tuple[int, int, int, int]:
        return (self.black, self.red, self.blue, self.green)


@EVENTS.register("Passed", 1)
@dataclass(frozen=True, slots=True)
class Passed(Event):
    seat: int


@EVENTS.register("SupportCommitted", 2)
@dataclass(frozen=True, slots=True)
class SupportCommitted(Event):
    """``seat`` committed ``count`` tiles of ``colour`` to the conflict (B-REVOLT-3, B-WAR-5):
    red in a revolt, the war's colour in a war; null in games stored before it was recorded.

    Version 2 added the colour; version 1 is read with ``colour`` null. The fold takes the
    colour from the conflict either way, so a stored game folds as it was played."""

    seat: int
    colour: Colour | None
    count: int


@dataclass(frozen=True, slots=True)
class PieceRemoved:
    """A piece a conflict took off the board: a `leader` (back to its owner, `seat`) or a
    `tile` (out of the game; `seat` null)."""

    piece: str  # "leader" or "tile"
    colour: Colour
    at: Square
    seat: int | None


@dataclass(frozen=True, slots=True)
class PointsScored:
    """`seat` scored `count` victory points of `colour`."""

    seat: int
    colour: Colour
    count: int


@EVENTS.register("ConflictResolved", 1)
@dataclass(frozen=True, slots=True)
class ConflictResolved(Event):
    """The outcome of a revolt or a war (`kind`), recorded right after the defender's
    commitment that settled it; `colour` is the two leaders'. Each side's strength is its
    base (adjacent temples in a revolt, B-REVOLT-2; supporters in a war, B-WAR-4) plus the
    tiles it committed; the higher wins, a tie goes to the defender (B-REVOLT-4, B-WAR-5).
    `removed`: every piece that left the board with it (the loser's leader, a war's lost
    supporters, leaders left without a temple); `points`: what the winner scored (left out
    for the other seats while victory points are secret). A record only: the state is the
    same with or without it, so games stored before it existed are unchanged."""

    kind: str  # "revolt" or "war"
    colour: Colour
    attacker: int
    defender: int
    attacker_strength: int
    defender_strength: int
    winner: int
    loser: int
    attacker_base: int
    attacker_committed: int
    defender_base: int
    defender_committed: int
    removed: tuple[PieceRemoved, ...]
    points: tuple[PointsScored, ...]


@EVENTS.register("WarChosen", 1)
@dataclass(frozen=True, slots=True)
class WarChosen(Event):
    seat: int
    colour: Colour


@EVENTS.register("MonumentBuilt", 1)
@dataclass(frozen=True, slots=True)
class MonumentBuilt(Event):
    seat: int
    monument: Monument
    at: Square


@EVENTS.register("MonumentDeclined", 1)
@dataclass(frozen=True, slots=True)
class MonumentDeclined(Event):
    seat: int


@EVENTS.register("TreasuresTaken", 1)
@dataclass(frozen=True, slots=True)
class TreasuresTaken(Event):
    seat: int
    squares: tuple[Square, ...]


@EVENTS.register("TurnEnded", 1)
@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    """The active seat's turn is over (monument VP and refills done); the next seat plays."""

    seat: int


@EVENTS.register("GameEnded", 1)
@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """``reason``: "treasures" (B-END-1), "bag" (B-END-2) or "resigned" (B-RESIGN-2)."""

    reason: str


@EVENTS.register("SeatResigned", 1)
@dataclass(frozen=True, slots=True)
class SeatResigned(Event):
    """``seat`` resigned (B-RESIGN-1): it stays at the table, its decisions made for it by
    the service, and it ranks below every seat that did not resign (B-RESIGN-2). When only
    one seat is left that has not resigned, ``GameEnded("resigned")`` follows at once."""

    seat: int


@EVENTS.upcaster("SupportCommitted", 1)
def _support_committed_v1(data: JSON) -> JSON:
    """Version 1 (``seat``, ``count``) had no colour: null, derived from the conflict."""
    return {**data, "colour": None}


def is_draw(event: Event) -> bool:
    """A draw from the bag: it reveals hidden tiles (``GameRules.is_draw``)."""
    return isinstance(event, TilesDrawn | TilesSwapped)
