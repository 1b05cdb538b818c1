"""Commands (imperative) and events (past tense) of the card game.

Wire names are the bare class names; the service prefixes ``cards.``.
Card positions: ``column`` 0..7 with ``depth`` (0 is the treasure*, 1..8
below it), or ``bridge`` 0..6 — exactly one of ``column`` / ``bridge``.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.cards.model import Options
from domain.common.codec import TypeRegistry
from domain.common.colours import Colour

COMMANDS: TypeRegistry[Command] = TypeRegistry("command")
EVENTS: TypeRegistry[Event] = TypeRegistry("event")


# --- commands ---------------------------------------------------------------


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
)


# --- events -----------------------------------------------------------------


@EVENTS.register("GameStarted")
@dataclass(frozen=True, slots=True)
class GameStarted:
    """Setup (C-SETUP-4): the pile (and the 2-player set-aside) derive from ``seed``."""

    seats: tuple[str, ...]
    options: Options
    seed: int
    start_player: int


@EVENTS.register("CardsDrawn")
@dataclass(frozen=True, slots=True)
class CardsDrawn:
    """``seat`` draws ``cards`` from the top of the pile (secret to the others)."""

    seat: int
    cards: tuple[Colour, ...]


@EVENTS.register("LeaderPlaced")
@dataclass(frozen=True, slots=True)
class LeaderPlaced:
    seat: int
    leader: Colour
    column: int | None = None
    depth: int = 0
    bridge: int | None = None


@EVENTS.register("LeaderWithdrawn")
@dataclass(frozen=True, slots=True)
class LeaderWithdrawn:
    seat: int
    leader: Colour


@EVENTS.register("CardPlayed")
@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A card from hand into a column, or face down onto a bridge (C-JOIN-1)."""

    seat: int
    colour: Colour
    column: int | None = None
    bridge: int | None = None


@EVENTS.register("CatastrophePlayed")
@dataclass(frozen=True, slots=True)
class CatastrophePlayed:
    seat: int
    column: int | None = None
    depth: int = 0
    bridge: int | None = None


@EVENTS.register("Passed")
@dataclass(frozen=True, slots=True)
class Passed:
    seat: int


@EVENTS.register("PointScored")
@dataclass(frozen=True, slots=True)
class PointScored:
    """A card of ``colour`` went from ``seat``'s hand onto their VP pile."""

    seat: int
    colour: Colour


@EVENTS.register("Declined")
@dataclass(frozen=True, slots=True)
class Declined:
    """``seat`` refused the offered decision (its name as in ``pending``)."""

    seat: int
    decision: str


@EVENTS.register("ShipBuilt")
@dataclass(frozen=True, slots=True)
class ShipBuilt:
    seat: int
    ship: Colour
    column: int


@EVENTS.register("WarChosen")
@dataclass(frozen=True, slots=True)
class WarChosen:
    seat: int
    colour: Colour


@EVENTS.register("CardsCommitted")
@dataclass(frozen=True, slots=True)
class CardsCommitted:
    seat: int
    colour: Colour
    count: int


@EVENTS.register("ConflictResolved")
@dataclass(frozen=True, slots=True)
class ConflictResolved:
    """The outcome of the current conflict; the loser's leader goes home."""

    kind: str  # "revolt" or "war"
    colour: Colour
    attacker: int
    defender: int
    attacker_strength: int
    defender_strength: int
    winner: int


@EVENTS.register("TreasureSwapped")
@dataclass(frozen=True, slots=True)
class TreasureSwapped:
    seat: int
    column: int


@EVENTS.register("TurnBegan")
@dataclass(frozen=True, slots=True)
class TurnBegan:
    turn: int
    seat: int


@EVENTS.register("GameEnded")
@dataclass(frozen=True, slots=True)
class GameEnded:
    reason: str  # "pile" (C-END-1), "treasures" (C-END-2) or "blocked" (no card playable)


Event = (
    GameStarted
    | CardsDrawn
    | LeaderPlaced
    | LeaderWithdrawn
    | CardPlayed
    | CatastrophePlayed
    | Passed
    | PointScored
    | Declined
    | ShipBuilt
    | WarChosen
    | CardsCommitted
    | ConflictResolved
    | TreasureSwapped
    | TurnBegan
    | GameEnded
)
