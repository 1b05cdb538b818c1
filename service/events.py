"""Domain-neutral service events, stored in a game's stream beside the domain events.

Their wire names are ``service.<Name>`` (the registry holds the bare name; the
stream prefixes it, like ``board.TilePlaced``).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.common.codec import TypeRegistry

SERVICE_KIND = "service"
SERVICE_EVENTS: TypeRegistry[ServiceEvent] = TypeRegistry("event")


@dataclass(frozen=True, slots=True)
class GameReverted:
    """The game continues from its state at ``to_version`` (the stream keeps every event,
    so an audit shows both the disputed moves and their reversal)."""

    to_version: int
    reason: str
    requested_by: str
    approved_by: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class UndoRequested:
    """Someone asked to take the game back to ``to_version``; changes no state."""

    request_id: str
    to_version: int
    reason: str
    requested_by: str


@dataclass(frozen=True, slots=True)
class UndoAnswered:
    """A seat (or the admin) consented to or refused an undo request; changes no state."""

    request_id: str
    by: str
    approve: bool


@dataclass(frozen=True, slots=True)
class SeatClaimed:
    """An open seat was claimed in the lobby and is now played by ``name``; the game
    starts with the claim of its last open seat."""

    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """The player of ``seat`` left the game before it started: the seat is open again, named
    ``name`` until it is claimed; its token and its player's binding no longer count."""

    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class RematchCreated:
    """A rematch of this finished game was asked for: it is the game ``game_id`` (same kind,
    options and players); changes no state."""

    game_id: str


@dataclass(frozen=True, slots=True)
class SeatReserved:
    """Open ``seat`` is reserved for the invited ``player``: only that player may claim it
    (with its key, or by redeeming the invitation's code); changes no state. The players'
    live feeds read it as "invitation received" (``service.application.invitations``)."""

    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class ReservationRevoked:
    """The invitation to ``seat`` was revoked: the seat is open to anyone again."""

    seat: int


ServiceEvent = (
    GameReverted
    | UndoRequested
    | UndoAnswered
    | SeatClaimed
    | SeatLeft
    | RematchCreated
    | SeatReserved
    | ReservationRevoked
)
SERVICE_EVENT_TYPES = (
    GameReverted,
    UndoRequested,
    UndoAnswered,
    SeatClaimed,
    SeatLeft,
    RematchCreated,
    SeatReserved,
    ReservationRevoked,
)

SERVICE_EVENTS.register("GameReverted")(GameReverted)
SERVICE_EVENTS.register("UndoRequested")(UndoRequested)
SERVICE_EVENTS.register("UndoAnswered")(UndoAnswered)
SERVICE_EVENTS.register("SeatClaimed")(SeatClaimed)
SERVICE_EVENTS.register("SeatLeft")(SeatLeft)
SERVICE_EVENTS.register("RematchCreated")(RematchCreated)
SERVICE_EVENTS.register("SeatReserved")(SeatReserved)
SERVICE_EVENTS.register("ReservationRevoked")(ReservationRevoked)
