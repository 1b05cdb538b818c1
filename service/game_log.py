"""``python -m service.game_log GAME_ID [--lang de] [--url URL] [--token TOKEN] [--seat N]``:
print a game's whole move log in words, one line per event the caller may see, in English,
German, Hungarian or Italian.

A client of the HTTP API only, as any client would be: it pages through
``GET /games/{id}/events`` with ``Accept-Language`` and prints each event's version, who
acted and its ``description``, which the server renders in the language asked for (the
catalogs of ``service.i18n``). Without a token it reads as a spectator (another seat's hand
stays hidden until the game is over); ``--token`` reads as that seat, player or the admin
(``--seat`` names the seat of a player key holding several). HTTP through urllib3, a
dependency of the service already.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO
from urllib.parse import quote, urlencode

import urllib3

LANGUAGES = ("en", "de", "hu", "it")
PAGE = 500
DEFAULT_URL = "http://127.0.0.1:8000"


class LogError(Exception):
    """The service refused a read (its problem's detail) or could not be reached."""


def events(
    url: str,
    game_id: str,
    language: str,
    *,
    token: str | None = None,
    seat: int | None = None,
    http: urllib3.PoolManager | None = None,
) -> Iterator[dict[str, Any]]:
    """Every event of the game as the caller may see it, oldest first, described in
    ``language``."""
    pool = http or urllib3.PoolManager(retries=urllib3.Retry(total=3, backoff_factor=0.2))
    headers = {"Accept-Language": language, "Accept": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    after: int | None = 0
    while after is not None:
        query: dict[str, Any] = {"after": after, "limit": PAGE}
        if seat is not None:
            query["seat"] = seat
        path = f"{url.rstrip('/')}/games/{quote(game_id, safe='')}/events?{urlencode(query)}"
        try:
            answer = pool.request("GET", path, headers=headers, timeout=30.0)
        except urllib3.exceptions.HTTPError as exc:
            raise LogError(f"cannot read {path}: {exc}") from exc
        body = json.loads(answer.data or b"null")
        if answer.status != 200:
            detail = body.get("detail") if isinstance(body, dict) else None
            raise LogError(f"{answer.status} from {path}: {detail or answer.data[:200]!r}")
        yield from body["items"]
        after = body["next_after"]


def line(event: dict[str, Any]) -> str:
    """One event as one line: its version, who acted, and its description."""
    return f"{event['version']:>5}  {event['actor']:<9} {event['description']}"


def print_log(
    url: str,
    game_id: str,
    language: str,
    *,
    token: str | None = None,
    seat: int | None = None,
    out: TextIO = sys.stdout,
) -> int:
    """Print the game's log to ``out``; the number of lines printed."""
    count = 0
    for event in events(url, game_id, language, token=token, seat=seat):
        print(line(event), file=out)
        count += 1
    return count


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.game_log", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("game_id")
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="the log's language")
    parser.add_argument("--url", default=DEFAULT_URL, help=f"the service (default {DEFAULT_URL})")
    parser.add_argument("--token", help="a seat token, player key or the admin token")
    parser.add_argument("--seat", type=int, help="the seat of a player key holding several")
    args = parser.parse_args(argv)
    try:
        print_log(args.url, args.game_id, args.lang, token=args.token, seat=args.seat)
    except LogError as exc:
        print(f"game_log: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
