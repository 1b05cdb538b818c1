"""Events of the card game: past tense, frozen, in the order they happened.

Wire names are the bare class names; the service prefixes ``cards.``. Card
positions are named as in the commands (``column`` and ``depth``, or ``bridge``).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.cards.model import Options
from domain.common.codec import JSON, TypeRegistry
from domain.common.colours import Colour

EVENTS: TypeRegistry[Event] = TypeRegistry("event")


@EVENTS.register("GameStarted", 2)
@dataclass(frozen=True, slots=True)
class GameStarted:
    """Setup (C-SETUP-4): the pile (and the 2-player set-aside) derive from ``seed``.

    Version 2 records the fourth variant, ``trader_takes_one``, in ``options``."""

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


@EVENTS.register("ConflictResolved", 2)
@dataclass(frozen=True, slots=True)
class ConflictResolved:
    """The outcome of the current conflict (`kind`: revolt or war; `colour`: the two
    leaders'); the loser's leader goes home. Each side's strength is its base (a red card
    under the leader in a revolt, C-REVOLT-2; cards of the colour in its kingdom in a war,
    C-WAR-3) plus the cards it committed. Version 2 names the `loser` and splits each
    strength into `_base` and `_committed`, as the board game's event does; for a conflict
    stored at version 1 the split is unknown (null)."""

    kind: str  # "revolt" or "war"
    colour: Colour
    attacker: int
    defender: int
    attacker_strength: int
    defender_strength: int
    winner: int
    loser: int
    attacker_base: int | None
    attacker_committed: int | None
    defender_base: int | None
    defender_committed: int | None


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


@EVENTS.register("SeatResigned", 1)
@dataclass(frozen=True, slots=True)
class SeatResigned:
    """``seat`` resigned (C-RESIGN-1): it stays at the table, its decisions made for it by
    the service, and it ranks below every seat that did not resign (C-RESIGN-2). When only
    one seat is left that has not resigned, ``GameEnded("resigned")`` follows at once."""

    seat: int


@EVENTS.register("GameEnded")
@dataclass(frozen=True, slots=True)
class GameEnded:
    # "pile" (C-END-1), "treasures" (C-END-2), "blocked" (no card playable) or "resigned"
    # (C-RESIGN-2)
    reason: str


@EVENTS.upcaster("GameStarted", 1)
def _game_started_v1(data: JSON) -> JSON:
    """Version 1 knew three variants: a game stored then plays the trader's swap as the
    German text has it (``trader_takes_one`` off), as it did when it was played."""
    options = data.get("options")
    if isinstance(options, dict):  # anything else is left for the decoder to refuse
        return {**data, "options": {**options, "trader_takes_one": False}}
    return data


@EVENTS.upcaster("ConflictResolved", 1)
def _conflict_resolved_v1(data: JSON) -> JSON:
    """Version 1 named the winner only: the loser is the other side; how each strength
    split into base and committed cards was not recorded (the event alone cannot tell)."""
    winner, attacker, defender = data.get("winner"), data.get("attacker"), data.get("defender")
    loser = defender if winner == attacker else attacker
    unknown = dict.fromkeys(
        ("attacker_base", "attacker_committed", "defender_base", "defender_committed")
    )
    return {**data, "loser": loser, **unknown}


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
    | SeatResigned
    | GameEnded
)


def is_draw(event: Event) -> bool:
    """A draw from the pile: it reveals hidden cards (``GameRules.is_draw``)."""
    return isinstance(event, CardsDrawn)
