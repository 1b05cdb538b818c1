"""Schemathesis hooks for the contract run (loaded through ``SCHEMATHESIS_HOOKS``).

Seat tokens exist only in the answer to ``POST /games``, so an auth provider hands out the
right credentials: for a game it has seen created, the token of the seat whose input is
awaited (else seat 0); for everything else the admin token. Because the credentials are
supplied by a provider, schemathesis' ``ignored_auth`` check treats them as valid and probes
the endpoints without and with wrong credentials, which must fail with 401/403.
"""

from __future__ import annotations

import json
import os
from typing import Any

import requests
import schemathesis

TOKENS: dict[str, list[str]] = {}
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
        TOKENS[body["game"]["game_id"]] = [seat["token"] for seat in body["seats"]]


@schemathesis.auth(refresh_interval=None)
class SeatTokens:
    def get(self, case: Any, context: Any) -> str:
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
