"""Which of the project's modules one command's request enters more than once on its path.

One ``POST /games/{id}/commands`` (a board game's first legal command, and the card game's)
runs through the Flask test client of a real app on an embedded Redis, under
``sys.setprofile``. A module of ``domain`` or ``service`` is *entered* when one of its
functions is called from a function of another module (or from outside the project); the
script prints, per game, how many of the modules the request touched were entered more
than once, and with ``--list`` which and how often.

    .venv/bin/python scripts/request_path.py [--list] [--kind board|cards]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import uuid
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.api import create_app
from service.embedded_redis import EmbeddedRedis

PROJECT = ("domain", "service")
ADMIN = "admin-" + "x" * 40


def _module(frame: FrameType | None) -> str | None:
    if frame is None:
        return None
    name = frame.f_globals.get("__name__", "")
    return name if isinstance(name, str) and name.split(".")[0] in PROJECT else None


def entries_of(call: Any) -> Counter[str]:
    """Entries per project module while ``call()`` runs."""
    entries: Counter[str] = Counter()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        module = _module(frame)
        if module is not None and _module(frame.f_back) != module:
            entries[module] += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return entries


def measure(redis_url: str, kind: str) -> Counter[str]:
    app = create_app(
        {"REDIS_URL": redis_url, "TIGRIS_KEY_PREFIX": uuid.uuid4().hex, "TIGRIS_ADMIN_TOKEN": ADMIN}
    )
    auth = {"Authorization": f"Bearer {ADMIN}"}
    with app.test_client() as client:
        body = {"kind": kind, "seats": ["Ann", "Bob"], "options": {}, "seed": 7}
        created = client.post("/games", json=body, headers=auth).get_json()
        game_id = created["game"]["game_id"]
        tokens = [s["token"] for s in created["seats"]]
        awaited = client.get(f"/games/{game_id}/pending").get_json()["awaited"][0]
        seat = {"Authorization": f"Bearer {tokens[awaited]}"}
        legal = client.get(f"/games/{game_id}/legal-commands", headers=seat).get_json()
        command = legal["commands"][0]
        version = legal["version"]
        headers = {**seat, "If-Match": f'"{version}"'}
        response: list[Any] = []

        def post() -> None:
            response.append(
                client.post(f"/games/{game_id}/commands", json=command, headers=headers)
            )

        entries = entries_of(post)
        assert response[0].status_code in (200, 201), response[0].get_json()
    return entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list the modules entered twice+")
    parser.add_argument("--kind", choices=("board", "cards"), action="append")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as server:
        for kind in args.kind or ("board", "cards"):
            entries = measure(server.url, kind)
            again = sorted((m for m, n in entries.items() if n > 1), key=lambda m: -entries[m])
            print(f"{kind}: {len(again)} of {len(entries)} modules entered more than once")
            if args.list:
                for module in again:
                    print(f"  {entries[module]:4d}  {module}")


if __name__ == "__main__":
    main()
