"""Schemathesis hooks for the contract run (loaded through ``SCHEMATHESIS_HOOKS``).

Seat tokens exist only in the answer to ``POST /games``, so an auth provider hands out the
right credentials: for a game it has seen created, the token of the seat whose input is
awaited (else seat 0); for ``/players/me…`` a player's key; for everything else the admin
token. Because the credentials are
supplied by a provider, schemathesis' ``ignored_auth`` check treats them as valid and probes
the endpoints without and with wrong credentials, which must fail with 401/403.

Commands are generated from the typed schemas (``BoardCommand`` / ``CardsCommand``), valid
ones (positive mode) and invalid ones (negative mode). A custom check reads the game's
version before every command and after its answer: a refused command (any 4xx, and every
command whose body breaks the schema must be one, as an RFC 9457 problem) changes nothing.

A map's options (``GET /rules/{kind}/map``) are declared as the query parameters of every
game's options: OpenAPI cannot tie a query parameter to a path parameter's value, so a
schema-valid query may hold an option of another kind than the path's, which the API refuses
with a 400 naming it (as documented). That refusal, and only that, is not counted against
``positive_data_acceptance``.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import requests
import schemathesis
from schemathesis.core.parameters import ParameterLocation

from domain.games import all_games

TOKENS: dict[str, list[str]] = {}
PLAYER: list[str] = []  # a player's key, for the player's own resources
VERSION_BEFORE: dict[int, int | None] = {}  # id(case) -> the game's version before sending it
COMMANDS_PATH = "/games/{game_id}/commands"
MAP_PATH = "/rules/{kind}/map"
BASE_URL = os.environ.get("TIGRIS_TEST_BASE_URL", "http://127.0.0.1:8000")
ADMIN_TOKEN = os.environ.get("TIGRIS_ADMIN_TOKEN", "")


@schemathesis.serializer("application/jsonl")
def jsonl(context: Any, value: Any) -> bytes:
    """A game record's body (``POST /games/import``): JSON Lines, sent as generated."""
    text = value if isinstance(value, str) else json.dumps(value)
    return text.encode("utf-8")


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    if case.method.upper() == "POST" and case.path == "/games" and response.status_code == 201:
        body = response.json()
        # an open seat has no token until claimed: the admin's stands in for it
        TOKENS[body["game"]["game_id"]] = [
            seat.get("token") or ADMIN_TOKEN for seat in body["seats"]
        ]
    claimed = case.method.upper() == "POST" and case.path.endswith("/claim")
    if claimed and response.status_code == 201:
        body = response.json()
        tokens = TOKENS.get(body["game"]["game_id"])
        if tokens is not None:
            tokens[body["seat"]["seat"]] = body["seat"]["token"]


def _player_key() -> str:
    """One player's key, made on first use (for ``/players/me``)."""
    if not PLAYER:
        made = requests.post(f"{BASE_URL}/players", json={"name": "Fuzz"}, timeout=10)
        PLAYER.append(made.json()["key"])
    return PLAYER[0]


@schemathesis.auth(refresh_interval=None)
class SeatTokens:
    def get(self, case: Any, context: Any) -> str:
        if case.path.startswith("/players/me"):
            return _player_key()
        game_id = (case.path_parameters or {}).get("game_id")
        tokens = TOKENS.get(game_id) if isinstance(game_id, str) else None
        if not tokens:
            return ADMIN_TOKEN
        pending = requests.get(f"{BASE_URL}/games/{game_id}/pending", timeout=10)
        awaited = pending.json().get("awaited") if pending.status_code == 200 else None
        return tokens[awaited[0]] if awaited else tokens[0]

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"


def _version(game_id: Any) -> int | None:
    if not isinstance(game_id, str):
        return None
    response = requests.get(f"{BASE_URL}/games/{game_id}", timeout=10)
    return int(response.json()["version"]) if response.status_code == 200 else None


_PREFER_WAIT = re.compile(r"(?i)(\bwait\s*=\s*)\d+")


def _short_waits(case: Any) -> None:
    """A valid wait (``?wait=``, ``Prefer: wait=``) cut to none: held answers would wait for
    moves nobody makes in this run (the holding is tested in test_one_call.py)."""
    query = case.query or {}
    wait = query.get("wait")
    if type(wait) is int and wait > 0:
        query["wait"] = 0
    headers = case.headers or {}
    prefer = headers.get("Prefer")
    if isinstance(prefer, str):
        headers["Prefer"] = _PREFER_WAIT.sub(r"\g<1>0", prefer)


def _is_command(case: Any) -> bool:
    return bool(case.method.upper() == "POST" and case.path == COMMANDS_PATH)


@schemathesis.hook
def before_call(context: Any, case: Any, **kwargs: Any) -> None:
    _short_waits(case)
    if _is_command(case):
        VERSION_BEFORE[id(case)] = _version((case.path_parameters or {}).get("game_id"))


@schemathesis.check
def refused_command_changes_nothing(ctx: Any, response: Any, case: Any) -> bool | None:
    """A command whose body breaks the typed schema is a 4xx problem; a refused command
    (4xx) leaves the game's version as it was."""
    if not _is_command(case):
        return None
    status = response.status_code
    negative = case.meta is not None and case.meta.is_negative_at(ParameterLocation.BODY)
    if negative and not 400 <= status < 500:
        raise AssertionError(f"an invalid command body was answered {status}, not a 4xx")
    if 400 <= status < 500:
        headers = {str(k).lower(): v for k, v in response.headers.items()}
        content_type = headers.get("content-type", "")
        if isinstance(content_type, list):
            content_type = content_type[0] if content_type else ""
        if not str(content_type).startswith("application/problem+json"):
            raise AssertionError(f"a refused command answered {content_type!r}, not a problem")
        game_id = (case.path_parameters or {}).get("game_id")
        before = VERSION_BEFORE.get(id(case))
        after = _version(game_id)
        if before is not None and after != before:
            raise AssertionError(f"a refused command ({status}) moved the game {before} -> {after}")
    return None


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """Keep every failure but a map's 400 naming an option that is not of the path's kind
    (see the module's docstring)."""
    if failure.code != "ST202" or case.path != MAP_PATH or response.status_code != 400:
        return True
    kind = (case.path_parameters or {}).get("kind")
    games = all_games()
    if kind not in games:
        return True
    field = response.json().get("field")
    foreign = set(case.query or {}) - set(games[kind].normalize_options({}))
    return field not in foreign
