"""What a polling client pays: bytes and time of a board game's ``legal-commands``,
``state`` and ``events`` replies, in full, compressed (gzip, br, zstd) and as a 304
(``If-None-Match`` with the current ETag).

``.venv/bin/python -m tests.benchmarks.bench_polling [--games 5] [--repeat 50]``

Seeded board games are played through the application service (embedded Redis, a real
app, Flask's test client, so no socket time is counted) to several positions; at each, every
reply is read ``repeat`` times per variant; the script prints median bytes and median ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from flask.testing import FlaskClient

from service.api import create_app
from service.api.context import EXTENSION
from service.application.mapper import CommandMeta
from service.embedded_redis import EmbeddedRedis
from tests.autoplay import choose_command

ADMIN = "bench-admin-" + "x" * 30
VARIANTS: dict[str, dict[str, str]] = {
    "identity": {},
    "gzip": {"Accept-Encoding": "gzip"},
    "br": {"Accept-Encoding": "br"},
    "zstd": {"Accept-Encoding": "zstd"},
}


def _measure(
    client: FlaskClient, url: str, headers: dict[str, str], repeat: int
) -> tuple[int, float]:
    sizes, times = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.get(url, headers=headers)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code in (200, 304), response.status_code
        sizes.append(len(response.data))
    return int(statistics.median(sizes)), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    rows: dict[tuple[str, str], list[tuple[int, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendfsync="everysec").start()
        try:
            app = create_app({"REDIS_URL": server.url, "TIGRIS_ADMIN_TOKEN": ADMIN})
            client = FlaskClient(app, app.response_class)  # no contract checks: raw bytes
            games = app.extensions[EXTENSION].games
            for n in range(args.games):
                created = client.post(
                    "/games",
                    json={"kind": "board", "seats": ["Ann", "Bob", "Cy"], "seed": 1000 + n},
                    headers={"Authorization": f"Bearer {ADMIN}"},
                ).get_json()
                game_id = created["game"]["game_id"]
                tokens = [s["token"] for s in created["seats"]]
                rng = random.Random(n)
                game = games.repository.get(game_id)
                for _ in range(20 + 10 * n):  # positions further and further into a game
                    command = choose_command(game.rules, game.state, rng)
                    meta = CommandMeta(
                        command_id="b", actor=f"seat:{command.seat}", seat=command.seat
                    )
                    game = games.commands.handle(game_id, command, meta=meta).game
                    if game.rules.is_over(game.state):
                        break
                seat = sorted(game.rules.awaited(game.state) or {0})[0]
                auth = {"Authorization": f"Bearer {tokens[seat]}"}
                etag = f'"{game.version}-seat{seat}"'  # this seat's view (per-viewer ETags)
                for resource in ("legal-commands", "state", "events?limit=100"):
                    url = f"/games/{game_id}/{resource}"
                    for name, headers in VARIANTS.items():
                        measured = _measure(client, url, {**auth, **headers}, args.repeat)
                        rows.setdefault((resource, name), []).append(measured)
                    not_modified = {**auth, "If-None-Match": etag, "Accept-Encoding": "gzip"}
                    measured = _measure(client, url, not_modified, args.repeat)
                    rows.setdefault((resource, "304"), []).append(measured)
        finally:
            server.stop()
    print(f"{'resource':<18} {'variant':<9} {'bytes (median)':>15} {'ms (median)':>12}")
    for (resource, name), values in rows.items():
        size = int(statistics.median(v[0] for v in values))
        ms = statistics.median(v[1] for v in values)
        print(f"{resource:<18} {name:<9} {size:>15,} {ms:>12.2f}")


if __name__ == "__main__":
    main()
