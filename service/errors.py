"""Errors of the storage and application layer (the domain has its own in domain.common.errors).

The HTTP layer maps them: GameNotFound/VersionNotFound/UndoNotFound -> 404,
ConcurrencyError -> 412, IdempotencyConflict -> 422, RevertNotAllowed/UndoConflict -> 409,
NotAllowedToAnswer -> 403, StoreUnavailable -> 503.
"""

from __future__ import annotations

from domain.common.errors import FormatError


class ServiceError(Exception):
    """Base of the errors raised by service.store and service.application."""


class GameNotFound(ServiceError, LookupError):
    """No game with this id (or the id cannot be one)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id!r}")
        self.game_id = game_id


class VersionNotFound(ServiceError, LookupError):
    """A version outside ``1..current`` was asked for (time travel, ranges, reverts)."""

    def __init__(self, game_id: str, version: int, current: int) -> None:
        super().__init__(f"game {game_id!r} has versions 1..{current}, not {version}")
        self.game_id = game_id
        self.version = version
        self.current = current


class ConcurrencyError(ServiceError):
    """The game moved on: the append expected ``expected`` events, the stream has ``actual``."""

    def __init__(self, expected: int, actual: int, game_id: str | None = None) -> None:
        where = "" if game_id is None else f" in game {game_id!r}"
        super().__init__(f"expected version {expected}, but it is {actual}{where}")
        self.expected = expected
        self.actual = actual
        self.game_id = game_id


class GameExists(ConcurrencyError):
    """A game was created under an id that is already taken."""


class GameArchived(ServiceError):
    """The game is in the archive tier: readable, but nothing is appended to it (an admin
    may bring it back first: ``POST /admin/games/{id}/rehydrate``)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} is archived: it is read-only")
        self.game_id = game_id


class IdempotencyConflict(ServiceError):
    """The idempotency key was already used for a different command."""

    def __init__(self, key: str) -> None:
        super().__init__(f"idempotency key {key!r} was already used for a different command")
        self.key = key


class StoreUnavailable(ServiceError):
    """The event store cannot be reached (or did not answer); the outcome of an append
    in flight is unknown: retry it with the same idempotency key."""


class RevertNotAllowed(FormatError):
    """A revert (or undo request) names a version the game cannot go back to: outside
    ``start_version..current - 1``, or inside the events of one command."""


class UndoNotFound(ServiceError, LookupError):
    """The game has no undo request with this id."""

    def __init__(self, request_id: str) -> None:
        super().__init__(f"no undo request {request_id!r}")
        self.request_id = request_id


class UndoConflict(ServiceError):
    """An undo request or answer that the game's undo state refuses. ``reason``:
    ``game-over``, ``undo-pending`` (another request is open), ``undo-closed`` (the request
    is settled) or ``undo-answered`` (this actor already approved)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class NotAllowedToAnswer(ServiceError):
    """The asking seat may not answer its own undo request."""


class GameNotStarted(ServiceError):
    """A command (or undo) sent while seats of the game are still open."""

    def __init__(self, game_id: str, open_seats: tuple[int, ...]) -> None:
        seats = ", ".join(str(seat) for seat in open_seats)
        super().__init__(
            f"game {game_id!r} has not started: seat(s) {seats} still open; it starts "
            "when every seat is claimed"
        )
        self.game_id = game_id
        self.open_seats = open_seats


class GameAlreadyStarted(ServiceError):
    """A seat asked to leave a game that has started (every seat was claimed): a running
    game is resigned, not left (domain/RESIGNATION.md)."""

    def __init__(self, game_id: str, seat: int) -> None:
        super().__init__(
            f"game {game_id!r} has started: seat {seat} can no longer leave it (send the "
            "command Resign to give it up)"
        )
        self.game_id = game_id
        self.seat = seat


class SeatNotTaken(ServiceError):
    """A seat asked to leave that nobody holds (it is open)."""

    def __init__(self, game_id: str, seat: int) -> None:
        super().__init__(f"seat {seat} of game {game_id!r} is open: nobody holds it to leave")
        self.game_id = game_id
        self.seat = seat


class GameNotOver(ServiceError):
    """A rematch of a game that has not ended."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} is not over: a rematch follows a finished game")
        self.game_id = game_id


class SeatReservedForAnother(ServiceError):
    """A claim of an open seat reserved for an invited player, by anyone else."""

    def __init__(self, game_id: str, seat: int) -> None:
        super().__init__(
            f"seat {seat} of game {game_id!r} is reserved for an invited player: only that "
            "player's key claims it (or redeems the invitation)"
        )
        self.game_id = game_id
        self.seat = seat


class InvitationNotFound(ServiceError):
    """An invitation code that names no current invitation (wrong, revoked or redeemed)."""

    def __init__(self) -> None:
        super().__init__("no such invitation: the code is wrong, revoked or redeemed already")


class NotInvited(ServiceError):
    """An invitation redeemed by another player than the one it invites."""

    def __init__(self) -> None:
        super().__init__("this invitation is for another player")


class NotInviter(ServiceError):
    """An invitation revoked by someone who did not make it (nor the admin)."""

    def __init__(self) -> None:
        super().__init__("only who made the invitation (or the admin) revokes it")


class SeatHasResigned(ServiceError):
    """A command of a seat that resigned, from the seat itself (its token or its player):
    the service makes its decisions now (domain/RESIGNATION.md)."""

    def __init__(self, game_id: str, seat: int) -> None:
        super().__init__(
            f"seat {seat} of game {game_id!r} has resigned: the service makes its decisions "
            "now, and its token (or player key) reads the game but sends no command"
        )
        self.game_id = game_id
        self.seat = seat


class SeatNotOpen(ServiceError):
    """A claim of a seat that is not open (claimed already, or named at creation)."""

    def __init__(self, game_id: str, seat: int) -> None:
        super().__init__(f"seat {seat} of game {game_id!r} is not open")
        self.game_id = game_id
        self.seat = seat


class SeatNotFound(ServiceError, LookupError):
    def __init__(self, game_id: str, seat: int) -> None:
        super().__init__(f"game {game_id!r} has no seat {seat}")
        self.game_id = game_id
        self.seat = seat
