"""Small request/response helpers shared by the blueprints."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify, request
from marshmallow import Schema, ValidationError

from service.api.context import identified_caller
from service.api.language import etag_suffix
from service.api.problems import ApiProblem, bad_request
from service.application.mapper import CommandMeta

# A strong ETag this API sends: the quoted decimal version without leading zeros, the viewer
# whose view the body is (``spectator``, ``seat0``.., ``admin``: bodies differ per viewer),
# the language of a body with words when it is not English (``"3-seat0-de"``,
# ``service.api.language``), and the content-coding flask-compress appends when it compresses
# (``"3-seat0:gzip"``).
# ``If-Match`` takes any of them, and the bare version (``"3"``) clients build themselves.
_ETAG = re.compile(
    r'"(0|[1-9][0-9]{0,14})(?:-(?:spectator|admin|seat(?:0|[1-9][0-9]?))(?:-(?:de|hu|it))?)?'
    r'(?::(?:gzip|br|zstd|deflate))?"'
)
# The content-codings flask-compress may choose (service.api.compression).
CODINGS = ("br", "gzip", "zstd", "deflate")
_CLIENT_KEY = re.compile(r"^[!-~]{1,100}\Z")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
ANY_VERSION = None


def json_response(body: Any, status: int = 200, *, version: int | None = None) -> Response:
    """``body`` as JSON, with the game's ``version`` and the viewer as its ETag
    (``viewer_etag``); a read whose ``If-None-Match`` names that ETag is a 304 without a
    body instead."""
    if version is not None and status == 200:
        unchanged = not_modified(version)
        if unchanged is not None:
            return unchanged
    response = jsonify(body)
    response.status_code = status
    if version is not None:
        response.headers["ETag"] = f'"{viewer_etag(version)}"'
    return response


def install(app: Flask) -> None:
    """Every answer to a request whose caller was identified (``caller_for``) may differ
    with the token: ``Vary: Authorization`` and, unless the view chose its own,
    ``Cache-Control: private, no-cache`` (no shared cache stores it; a browser's may, and
    revalidates it with ``If-None-Match`` each time)."""

    @app.after_request
    def _per_viewer(response: Response) -> Response:
        if identified_caller() is not None:
            response.vary.add("Authorization")
            if "Cache-Control" not in response.headers:
                response.headers["Cache-Control"] = "private, no-cache"
        return response


def viewer_etag(version: int) -> str:
    """The opaque tag (unquoted) of this request's view of a game at ``version``: the same
    version reads differently for a spectator, each seat and the admin, so one viewer's
    validator never matches another's body (RFC 9110 8.8.3); nor does one language's match
    another's, for a body with words (``service.api.language``)."""
    caller = identified_caller()
    if caller is None or caller.is_spectator:
        viewer = "spectator"
    elif caller.admin:
        viewer = "admin"
    else:
        viewer = f"seat{caller.seat}"
    return f"{version}-{viewer}{etag_suffix()}"


def not_modified(version: int) -> Response | None:
    """A 304 for a ``GET`` whose ``If-None-Match`` names this viewer's ETag at ``version``
    (weak comparison, as RFC 9110 asks for this header; ``*`` matches any), plain or with
    the content-coding flask-compress appends, else None. The 304 carries the ETag that
    matched, so a cache holding several codings refreshes the one it asked about. Views
    call it before building a costly body; ``json_response`` calls it for every game
    resource."""
    if request.method not in ("GET", "HEAD"):
        return None
    etag = viewer_etag(version)
    held = request.if_none_match
    matched = next(
        (
            tag
            for tag in (etag, *(f"{etag}:{coding}" for coding in CODINGS))
            if held.contains_weak(tag)
        ),
        None,
    )
    if matched is None:
        return None
    response = Response(status=304)
    response.headers["ETag"] = f'"{matched}"'
    return response


def load_query(schema: Schema) -> dict[str, Any]:
    """The query string through ``schema``; a bad parameter is a 400 naming it."""
    repeated = [name for name, values in request.args.lists() if len(values) > 1]
    if repeated:
        raise bad_request(f"query parameter {repeated[0]!r} is repeated", repeated[0])
    try:
        args = request.args.to_dict(flat=True)
        args.pop("seat", None)  # a player key's choice of seat (``service.api.auth``)
        loaded: dict[str, Any] = schema.load(args)
    except ValidationError as exc:
        messages = exc.messages if isinstance(exc.messages, dict) else {}
        field = str(next(iter(messages), "query"))
        detail = f"invalid query parameter {field!r}: {messages.get(field)}"
        raise bad_request(detail, field) from None
    return loaded


class _DuplicateKey(Exception):
    """A JSON object of the body names a key twice (raised by the decoder's hook)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: the object as a dict, unless a key repeats (RFC 8259 leaves
    the meaning of a repeated name open; Python keeps the last, another parser the first)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _DuplicateKey
    return obj


class _Repeats(dict[str, Any]):
    """An object of the body, with the first key it names twice (the slow path's hook)."""

    repeated: str | None = None


def _marking_repeats(pairs: list[tuple[str, Any]]) -> _Repeats:
    obj = _Repeats(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                obj.repeated = key
                break
            seen.add(key)
    return obj


# Built once: json.loads with a hook would build a decoder per call (about 1 µs more).
_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)
_MARKING_DECODER = json.JSONDecoder(object_pairs_hook=_marking_repeats)


def _decode(raw: bytes, decoder: json.JSONDecoder) -> Any:
    """``raw`` as json.loads reads bytes (UTF-8, -16 or -32, as RFC 8259 and Flask allow)."""
    return decoder.decode(raw.decode(json.detect_encoding(raw), "surrogatepass"))


def _repeated_key(raw: bytes) -> tuple[str, str]:
    """The first key that an object of ``raw`` names twice, in document order, and the
    path of that object (``""`` at the top, ``seats[1]``, ``options``); only called once
    the fast decoder has refused the body."""
    stack: list[tuple[str, Any]] = [("", _decode(raw, _MARKING_DECODER))]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            if isinstance(value, _Repeats) and value.repeated is not None:
                return value.repeated, path
            stack.extend(
                (f"{path}.{key}" if path else key, item) for key, item in reversed(value.items())
            )
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(value))))
    raise AssertionError("the fast decoder refused a body without a repeated key")


def json_body() -> Any:
    """The request's JSON document: 415 if it is not JSON, 400 if it cannot be parsed or
    an object in it names a key twice (the problem's ``field`` is that key's path)."""
    if not request.is_json:
        raise ApiProblem(
            415,
            "unsupported-media-type",
            "Unsupported media type",
            "the body must be application/json",
        )
    raw = request.get_data(cache=True)
    try:
        data = _decode(raw, _DECODER)
    except RecursionError:  # nested too deep for the parser
        raise bad_request("the body is nested too deeply", "body") from None
    except ValueError:  # not JSON, or not text in UTF-8/16/32
        raise bad_request("the body is not valid JSON", "body") from None
    except _DuplicateKey:
        key, inside = (_printable(part) for part in _repeated_key(raw))
        where = f"the object at {inside!r}" if inside else "the top-level object"
        raise bad_request(
            f"the key {key!r} appears more than once in {where}",
            f"{inside}.{key}" if inside else key,
        ) from None
    # Only a \u escape or raw non-ASCII bytes can bring a surrogate in: most bodies have
    # neither, and need no walk. A NUL byte means UTF-16 or UTF-32 text (which the JSON
    # parser also reads, its escapes split by NULs): always walked.
    plain = raw.isascii() and b"\\u" not in raw and b"\x00" not in raw
    path = None if plain else _lone_surrogate(data)
    if path is not None:
        raise bad_request(
            "the body holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not text",
            # the path itself may hold the surrogate (a key): echo it escaped, as text
            _printable(path) or "body",
        )
    return data


def _printable(text: str) -> str:
    """``text`` with any lone surrogate escaped (``\\udc80``), so that it can be sent."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _lone_surrogate(data: Any) -> str | None:
    """The path (``seats[1]``, ``reason``) of the first string or key holding a lone
    surrogate, which JSON's ``\\uXXXX`` escapes can express but no UTF-8 text can;
    None if there is none. Iterative: a deep document cannot exhaust the stack."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and _SURROGATE.search(value):
                return path
        elif isinstance(value, dict):
            items = []
            for key, item in value.items():
                inner = f"{path}.{key}" if path else str(key)
                if not key.isascii() and _SURROGATE.search(key):
                    return inner
                items.append((inner, item))
            stack.extend(reversed(items))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(value))))
    return None


def load_body(schema: Schema) -> dict[str, Any]:
    """The JSON body through ``schema``; a bad field is a 422 naming it."""
    data = json_body()
    if not isinstance(data, Mapping):
        raise ValidationError({"_schema": ["the body must be a JSON object"]})
    loaded: dict[str, Any] = schema.load(data)
    return loaded


def expected_version() -> int | None:
    """The version ``If-Match`` names: 428 without it, None for ``*``, -1 for anything but
    one strong ETag this API sends (any viewer's, any coding: ``"3-seat0:gzip"``) or the bare
    ``"<version>"`` (a weak ``W/"3"``, an unquoted ``3``, ``"03"``, a list), which then
    matches no version: a 412."""
    header = request.headers.get("If-Match")
    if header is None:
        raise ApiProblem(
            428,
            "precondition-required",
            "Precondition required",
            "send If-Match with the game's current ETag (or *)",
        )
    header = header.strip()
    if header == "*":
        return ANY_VERSION
    match = _ETAG.fullmatch(header)
    return int(match.group(1)) if match else -1


def idempotency_key() -> str | None:
    return _client_key("Idempotency-Key")


def request_id() -> str | None:
    """``X-Request-ID``: stored in every event of the command as its correlation id."""
    return _client_key("X-Request-ID")


def _client_key(header: str) -> str | None:
    key = request.headers.get(header)
    if key is None:
        return None
    if not _CLIENT_KEY.match(key):
        raise bad_request(f"{header} must be 1-100 printable ASCII characters", header)
    return key


def command_meta(actor: str, seat: int | None) -> CommandMeta:
    """The metadata of this request's write, as ``actor`` for ``seat``: its
    ``X-Request-ID`` becomes its events' correlation id."""
    return CommandMeta.for_actor(actor, seat, correlation_id=request_id())
