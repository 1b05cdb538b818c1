"""Marshmallow schemas of every request body and query string (their JSON Schema twins, for
the contract, are in ``service.api.shapes``).

Types are exact, as in JSON Schema: JSON ``true``, ``1.0`` or ``"3"`` is not an integer,
``1`` or ``"yes"`` is not a boolean, a number is not a string. A query-string integer is
written canonically: decimal digits without sign, point, exponent or leading zeros (``0``,
``7``, ``42``; not ``007``, ``+7``, ``7.0``, ``1e3`` or ``-1``).

Free text (seat names, undo reasons) is one line of visible text: see :mod:`service.text`.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from domain.bots import BOT_KINDS
from domain.common.exact import is_int
from domain.games import all_games, seat_range
from service.api.settings import MAX_HOLD_S
from service.application.bots import DEFAULT_THINK_MS, MAX_THINK_MS
from service.application.clocks import EXPIRY_POLICIES, MAX_SECONDS
from service.store.port import PLAYER_ID_PATTERN, PLAYER_LISTS, STATUSES
from service.text import TEXT_REFUSED, text_problem

MAX_SEED = 2**53 - 1  # the largest integer every JSON client can represent exactly
GAME_PAGE_MAX = 100
EVENT_PAGE_MAX = 500
MAX_VERSION = 10**12  # far beyond any game; keeps query integers bounded
_DIGITS = re.compile(r"0|[1-9][0-9]{0,14}")
_DECIMAL = re.compile(r"(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,6})?")
# One line of visible text, as far as a JSON Schema pattern can say (the BMP part of the
# characters service.text refuses; ``Text`` checks the rest): the contract's ``pattern``.
_REFUSED_BMP = TEXT_REFUSED.partition(r"\ud800")[0]
TEXT_PATTERN = f"^[^{_REFUSED_BMP}]*[^\\s{_REFUSED_BMP}][^{_REFUSED_BMP}]*$"
TEXT_DESCRIPTION = (
    "One line of visible text: no control character (C0/C1, so no tab or newline), no bidi "
    "control (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069) and no invisible format "
    "character (U+00AD, U+180E, U+200B, U+2028/9, U+2060-U+206F, U+FEFF, U+FFF9-U+FFFB, tag "
    "characters U+E0000-U+E007F); U+200C/U+200D (joiners) are allowed. At least one visible "
    "character: a letter, digit, punctuation mark or symbol that is not default-ignorable (so "
    "not only spaces, Hangul fillers U+115F/U+1160/U+3164/U+FFA0, variation selectors, "
    "private-use or unassigned characters) and not a blank symbol (U+2800, U+1D159, U+FFFC). "
    "At most 4 combining marks on one character. Kept as sent (no Unicode normalization). A "
    "refused character is a 422 naming the field."
)


class Text(fields.String):
    """One line of visible text, ``min_length`` to ``max_length`` code points, by the rules
    of :mod:`service.text`: no control, bidi-control or invisible format character, at least
    one visible character, a few combining marks per character at most. Every field taking a
    seat name or an undo reason is one. Stored as sent (not normalized): names are shown,
    never compared."""

    def __init__(self, *, min_length: int = 1, max_length: int, **kwargs: Any) -> None:
        # The contract's JSON Schema of the field (apispec reads ``metadata``); a
        # ``component`` names the schema component the field is instead (``SeatName``).
        metadata = {"pattern": TEXT_PATTERN, "description": TEXT_DESCRIPTION}
        super().__init__(
            validate=validate.Length(min=min_length, max=max_length),
            metadata=metadata | kwargs.pop("metadata", {}),
            **kwargs,
        )

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if not isinstance(value, str):
            raise ValidationError("Not a valid string.")
        problem = text_problem(value) if value else None
        if problem is not None:
            raise ValidationError(problem)
        return value


class StrictInteger(fields.Integer):
    """A JSON integer only: not a boolean, not ``1.0``, not ``"1"``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not is_int(value):
            raise ValidationError("Not a valid integer.")
        return value


class StrictBoolean(fields.Boolean):
    """JSON ``true``/``false`` only (not ``1`` or ``"yes"``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise ValidationError("Not a valid boolean.")
        return value


class QueryInteger(fields.Integer):
    """A query-string integer written canonically: ``0`` or digits without a leading zero
    (no sign, point, exponent, spaces or underscores)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str) or not _DIGITS.fullmatch(value):
            raise ValidationError("Not a canonical non-negative integer.")
        return int(value)


class QueryNumber(fields.Float):
    """A query-string number: a canonical integer with up to six decimals (``2``, ``0.5``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        if not isinstance(value, str) or not _DECIMAL.fullmatch(value):
            raise ValidationError("Not a plain decimal number.")
        return float(value)


class BotSeatSchema(Schema):
    """A seat played by a server-side bot (``service.application.bots``)."""

    class Meta:
        unknown = RAISE

    bot = fields.String(required=True, validate=validate.OneOf(BOT_KINDS))
    think_ms = StrictInteger(
        validate=validate.Range(min=0, max=MAX_THINK_MS), load_default=DEFAULT_THINK_MS
    )
    name = Text(max_length=40, load_default=None, allow_none=False)


class HumanSeatSchema(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(required=True, validate=validate.Equal("human"))
    name = Text(max_length=40, required=True)


class OpenSeatSchema(Schema):
    class Meta:
        unknown = RAISE

    type = fields.String(required=True, validate=validate.Equal("open"))
    name = Text(max_length=40, load_default=None)


class PlayerSeatSchema(Schema):
    """A seat bound to a player (``service.application.players``): its key plays it."""

    class Meta:
        unknown = RAISE

    type = fields.String(required=True, validate=validate.Equal("player"))
    player = fields.String(required=True, validate=validate.Regexp(f"^{PLAYER_ID_PATTERN}\\Z"))
    name = Text(max_length=40, load_default=None)


SEAT_TYPES: dict[str, type[Schema]] = {
    "human": HumanSeatSchema,
    "open": OpenSeatSchema,
    "player": PlayerSeatSchema,
}

_NAME = Text(max_length=40)


class SeatSpec(fields.Field[dict[str, Any]]):
    """One seat of a new game: a name (a named player, whose token comes back at once),
    ``{"type": "human", "name": …}`` (the same), ``{"type": "open", "name"?: …}`` (a seat
    for a player to claim later) or ``{"bot": …, "think_ms"?: …, "name"?: …}`` (a seat a
    server-side bot plays). Loads as ``{"type": …, "name": str | None}`` (a bot seat with
    its ``bot`` and ``think_ms`` too)."""

    def _deserialize(
        self, value: Any, attr: str | None, data: Any, **kwargs: Any
    ) -> dict[str, Any]:
        if isinstance(value, str):  # a bare name: its errors are the seat's own
            return {"type": "human", "name": _NAME.deserialize(value)}
        if not isinstance(value, dict):
            raise ValidationError("A seat is a name or an object with a 'type' or a 'bot'.")
        if "bot" in value and "type" not in value:
            bot: dict[str, Any] = BotSeatSchema().load(value)
            return {"type": "bot", **bot}
        kind = value.get("type")
        schema = SEAT_TYPES.get(kind) if isinstance(kind, str) else None
        if schema is None:
            raise ValidationError({"type": [f"Must be one of: {', '.join(SEAT_TYPES)}."]})
        loaded: dict[str, Any] = schema().load(value)
        return loaded


class ClockSchema(Schema):
    """A turn clock (``service.application.clocks``): per decision, or a game clock."""

    class Meta:
        unknown = RAISE

    per_decision_s = StrictInteger(validate=validate.Range(min=1, max=MAX_SECONDS))
    initial_s = StrictInteger(validate=validate.Range(min=1, max=MAX_SECONDS))
    increment_s = StrictInteger(validate=validate.Range(min=0, max=MAX_SECONDS), load_default=0)
    on_expiry = fields.String(validate=validate.OneOf(EXPIRY_POLICIES), load_default="random")

    @validates_schema(pass_original=True)
    def _one_kind(self, data: dict[str, Any], original: Any, **kwargs: Any) -> None:
        """A ``DecisionClock`` or a ``GameClock`` (service.api.shapes): an increment belongs to a
        game clock only."""
        if isinstance(original, dict) and "increment_s" in original and "initial_s" not in original:
            raise ValidationError("increment_s belongs to a game clock (initial_s)", "increment_s")


class OfferedKind(validate.Validator):
    """A kind of a game on offer (``domain.games``, asked at each call, so a game registered
    later is offered too), with ``OneOf``'s message."""

    def __call__(self, value: Any) -> Any:
        kinds = tuple(all_games())
        if value not in kinds:
            raise ValidationError(f"Must be one of: {', '.join(kinds)}.")
        return value


class SeatCount(validate.Validator):
    """As many seats as some game on offer takes (each kind's own range is the
    application's to check), with ``Length``'s message."""

    def __call__(self, value: Any) -> Any:
        low, high = seat_range()
        if not low <= len(value) <= high:
            raise ValidationError(f"Length must be between {low} and {high}.")
        return value


class SeatNumber(validate.Validator):
    """A seat number some game on offer has (``0`` to its most seats less one), with
    ``Range``'s message."""

    def __call__(self, value: Any) -> Any:
        last = seat_range()[1] - 1
        if not 0 <= value <= last:
            raise ValidationError(
                f"Must be greater than or equal to 0 and less than or equal to {last}."
            )
        return value


class GameCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    kind = fields.String(required=True, validate=OfferedKind())
    seats = fields.List(SeatSpec(), required=True, validate=SeatCount())
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seed = StrictInteger(
        validate=validate.Range(min=0, max=MAX_SEED), load_default=None, allow_none=False
    )
    clock = fields.Nested(ClockSchema, load_default=None, allow_none=False)
    rated = StrictBoolean(
        load_default=False,
        metadata={
            "description": "The result updates the players' ratings of the kind (`GET "
            "/ratings/{kind}`). Every seat must then be bound to a player of its own "
            "(`{type: player}`); otherwise 422 naming `rated`."
        },
    )


class CommandEnvelopeSchema(Schema):
    """The generic part of a command; the domain's codec checks the rest by ``type``."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True, validate=validate.Length(min=1, max=100))
    seat = StrictInteger(validate=SeatNumber())


class SeatClaimSchema(Schema):
    class Meta:
        unknown = RAISE

    # Required, unless the claim is made with a player key (then the player's name).
    name = Text(max_length=40, load_default=None, metadata={"component": "SeatName"})


class InvitationCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    player = fields.String(
        required=True,
        validate=validate.Regexp(f"^{PLAYER_ID_PATTERN}\\Z"),
        metadata={"component": "PlayerId"},
    )


class PlayerCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    name = Text(max_length=40, required=True, metadata={"component": "SeatName"})


class PlayerGamesQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    filter = fields.String(
        validate=validate.OneOf(PLAYER_LISTS),
        load_default=None,
        metadata={
            "description": "One of the player's lists: `open` (seats still to claim), `active`, "
            "`over`, or `awaiting` (active, and a seat of the player is awaited); unset: all."
        },
    )
    cursor = fields.String(
        validate=validate.Regexp(r"^[0-9]{15}:[A-Za-z0-9_-]{1,64}\Z"),
        load_default=None,
        metadata={
            "pattern": "^[0-9]{15}:[A-Za-z0-9_-]{1,64}$",
            "description": "The `next_cursor` of the previous page, passed back unchanged.",
        },
    )
    limit = QueryInteger(validate=validate.Range(min=1, max=GAME_PAGE_MAX), load_default=20)


class UndoRequestCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    to_version = StrictInteger(required=True, validate=validate.Range(min=1))
    reason = Text(max_length=500, required=True)


class UndoAnswerSchema(Schema):
    class Meta:
        unknown = RAISE

    approve = StrictBoolean(required=True)


class GameListQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    kind = fields.String(validate=OfferedKind(), load_default=None, metadata={"component": "Kind"})
    status = fields.String(
        validate=validate.OneOf(STATUSES), load_default=None, metadata={"component": "Status"}
    )
    # ``open=true``: games with a seat to claim (the same as ``status=open``); ``false``, the
    # default: no such filter. Only the two JSON spellings (no ``1``, ``yes`` or ``True``).
    open = fields.Boolean(
        truthy={"true"},
        falsy={"false"},
        load_default=False,
        metadata={
            "description": "`true`: only games with a seat to claim (the same as `status=open`; "
            "with any other status, no game). `false`, the default: no such filter."
        },
    )
    # Loosely checked here; the game index parses it (a malformed one is a 400 naming it).
    cursor = fields.String(
        validate=validate.Regexp(r"^[!-~]{1,200}\Z"),
        load_default=None,
        metadata={
            "pattern": "^[0-9]{15}:[A-Za-z0-9_-]{1,64}$",
            "description": "The `next_cursor` of the previous page, passed back unchanged. A "
            "malformed cursor is a 400 naming `cursor` (never a silent first page).",
        },
    )
    limit = QueryInteger(validate=validate.Range(min=1, max=GAME_PAGE_MAX), load_default=20)


class EventListQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = QueryInteger(
        validate=validate.Range(min=0, max=MAX_VERSION),
        load_default=0,
        metadata={"description": "Return events with a version greater than this."},
    )
    limit = QueryInteger(validate=validate.Range(min=1, max=EVENT_PAGE_MAX), load_default=100)


class WaitQuerySchema(Schema):
    """``?wait=`` (and ``?after=``) of the reads a client waits on for its turn
    (``service.api.waits``)."""

    class Meta:
        unknown = RAISE

    wait = QueryInteger(
        validate=validate.Range(min=0, max=MAX_HOLD_S),
        load_default=None,
        metadata={
            "description": "Hold the answer until one of the caller's seats is awaited (a "
            "caller holding no seat: until the version passes `after`; without `after`, not "
            "at all), the game is over, or "
            "this many whole seconds have passed (cut to the server's `TIGRIS_MAX_WAIT`, 60 "
            "by default); then answer as without it. Without it: at once."
        },
    )
    after = QueryInteger(
        validate=validate.Range(min=0, max=MAX_VERSION),
        load_default=None,
        metadata={
            "description": "With `wait`: end the wait only at a version greater than this (the "
            "version the client last saw), so that an answer it already has does not end it."
        },
    )


class StreamQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = QueryInteger(validate=validate.Range(min=0, max=MAX_VERSION), load_default=None)
    wait = QueryNumber(
        validate=validate.Range(min=0, max=600),
        load_default=300.0,
        metadata={
            "description": "Seconds to wait for a new event before closing, as a plain decimal "
            "(`30`, `2.5`; up to six decimals, no exponent)."
        },
    )
    # A stream ticket (service.api.streams) in place of an Authorization header.
    ticket = fields.String(
        validate=validate.Length(min=1, max=128),
        load_default=None,
        metadata={
            "description": "A stream ticket of this game, acting as the seat (or admin) it was "
            "issued to. Unknown,\nexpired or another game's ticket: 401.\n"
        },
    )


class RatingPageQuerySchema(Schema):
    """A page of a leaderboard or of a rating history: ``offset`` and ``limit``."""

    class Meta:
        unknown = RAISE

    offset = QueryInteger(
        validate=validate.Range(min=0, max=1_000_000),
        load_default=0,
        metadata={"description": "How many entries to skip (the previous page's `next_offset`)."},
    )
    limit = QueryInteger(validate=validate.Range(min=1, max=GAME_PAGE_MAX), load_default=20)


class FeedQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = QueryInteger(
        validate=validate.Range(min=0, max=MAX_VERSION),
        load_default=0,
        metadata={"description": "Return entries numbered above this (the last `id` seen)."},
    )
    limit = QueryInteger(validate=validate.Range(min=1, max=EVENT_PAGE_MAX), load_default=100)


class FeedStreamQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = QueryInteger(validate=validate.Range(min=0, max=MAX_VERSION), load_default=None)
    # A feed ticket (``POST /players/me/feed/tickets``) in place of an Authorization header.
    ticket = fields.String(
        validate=validate.Regexp(r"^ft_[0-9a-f]{32}_[A-Za-z0-9_-]{43}\Z"),
        load_default=None,
        metadata={
            "pattern": "^ft_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$",
            "description": "A feed ticket, for clients that cannot send an `Authorization` "
            "header (a browser's `EventSource`); not with one.",
        },
    )
    wait = QueryNumber(
        validate=validate.Range(min=0, max=600),
        load_default=300.0,
        metadata={
            "description": "Seconds to wait for a new entry before closing, as a plain decimal "
            "(`30`, `2.5`; up to six decimals, no exponent)."
        },
    )


class PlayerWebhookCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    url = fields.String(required=True, validate=validate.Length(min=1, max=2000))
    events = fields.List(
        fields.String(validate=validate.Length(min=1, max=100)),
        load_default=list,
        validate=validate.Length(max=100),
        metadata={
            "description": "Entry types to deliver (`game_started`, `your_turn`, "
            "`undo_requested`, `game_over`, `invitation_received`); empty: all."
        },
    )
