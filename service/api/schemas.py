"""Marshmallow schemas of every request body and query string (their twins in openapi.yaml).

Numbers are strict: JSON ``true`` or ``"3"`` is not an integer here, as in JSON Schema.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate

MAX_SEED = 2**53 - 1  # the largest integer every JSON client can represent exactly
GAME_PAGE_MAX = 100
EVENT_PAGE_MAX = 500
MAX_VERSION = 10**12  # far beyond any game; keeps query integers bounded
_DIGITS = re.compile(r"[0-9]{1,15}")


class StrictInteger(fields.Integer):
    """An integer that refuses booleans (JSON Schema's ``integer`` does too)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, bool):
            raise ValidationError("Not a valid integer.")
        result: int = super()._deserialize(value, attr, data, **kwargs)
        return result


class StrictBoolean(fields.Boolean):
    """JSON ``true``/``false`` only (not ``1`` or ``"yes"``)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise ValidationError("Not a valid boolean.")
        return value


class QueryInteger(fields.Integer):
    """A query-string integer: decimal digits only (no sign, point or exponent)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str) or not _DIGITS.fullmatch(value):
            raise ValidationError("Not a valid integer.")
        return int(value)


class GameCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    kind = fields.String(required=True, validate=validate.OneOf(["board", "cards"]))
    seats = fields.List(
        fields.String(validate=validate.Length(min=1, max=40)),
        required=True,
        validate=validate.Length(min=2, max=4),
    )
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seed = StrictInteger(
        validate=validate.Range(min=0, max=MAX_SEED), load_default=None, allow_none=False
    )


class CommandEnvelopeSchema(Schema):
    """The generic part of a command; the domain's codec checks the rest by ``type``."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True, validate=validate.Length(min=1, max=100))
    seat = StrictInteger(validate=validate.Range(min=0, max=3))


class UndoRequestCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    to_version = StrictInteger(required=True, validate=validate.Range(min=1))
    reason = fields.String(required=True, validate=validate.Length(min=1, max=500))


class UndoAnswerSchema(Schema):
    class Meta:
        unknown = RAISE

    approve = StrictBoolean(required=True)


class GameListQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    kind = fields.String(validate=validate.OneOf(["board", "cards"]), load_default=None)
    status = fields.String(validate=validate.OneOf(["active", "over"]), load_default=None)
    cursor = fields.String(validate=validate.Regexp(r"^[!-~]{1,200}\Z"), load_default=None)
    limit = QueryInteger(validate=validate.Range(min=1, max=GAME_PAGE_MAX), load_default=20)


class EventListQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = QueryInteger(validate=validate.Range(min=0, max=MAX_VERSION), load_default=0)
    limit = QueryInteger(validate=validate.Range(min=1, max=EVENT_PAGE_MAX), load_default=100)


class StreamQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    after = QueryInteger(validate=validate.Range(min=0, max=MAX_VERSION), load_default=None)
    wait = fields.Float(validate=validate.Range(min=0, max=600), load_default=300.0)
    # A stream ticket (service.api.streams) in place of an Authorization header.
    ticket = fields.String(validate=validate.Length(min=1, max=128), load_default=None)
