"""A long game's history (a script, not a test): stored bytes per event, time travel and
the event log's cost per event served, at 4,500 events.

A seeded random two-player card game is played to 4,500 events through the application
service of a real app (embedded Redis, commands with the metadata the API gives them: a
random command id, the seat's actor, the service clock), then:

- bytes per event: the stored envelope (the ``type``, ``schema``, ``data`` and ``meta``
  values of each stream entry, from a raw ``XRANGE``), its metadata alone, and Redis's
  ``MEMORY USAGE`` of the whole stream divided by its length;
- time travel: ``GET /games/{id}/states/{v}`` (the admin's view) at 60 versions spread over
  the game, through the Flask test client: median, p90 and max;
- the event log: ``GET /games/{id}/events?after=…&limit=200`` for a spectator, a seat and
  the admin at 10 places, in microseconds per event served (median).

Run:  .venv/bin/python -m tests.benchmarks.bench_history [--events 4500]
Only HTTP and public service methods are used, so the same file runs against an older
checkout (``PYTHONPATH=<checkout> .venv/bin/python -m tests.benchmarks.bench_history``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import redis

from domain.cards import RULES
from service.api import create_app
from service.api.context import EXTENSION
from service.application.mapper import CommandMeta
from service.embedded_redis import EmbeddedRedis
from tests.autoplay import choose_command, play_random_game

ADMIN = "admin-" + "h" * 40
PREFIX = "bench-history"


def _long_seed(events: int) -> int:
    for seed in range(1, 400):
        if len(play_random_game(RULES, 2, seed).events) >= events + 10:
            return seed
    raise SystemExit("no seed gives a game that long")


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return (
        f"median {statistics.median(ordered) * 1000:.2f} ms, p90 {p90 * 1000:.2f} ms, "
        f"max {ordered[-1] * 1000:.2f} ms"
    )


def stored_bytes(url: str, game_id: str) -> tuple[float, float, float]:
    """Per event: the entry's field values, its metadata, and Redis's memory for the stream."""
    client: Any = redis.Redis.from_url(url)  # bytes replies
    key = f"{PREFIX}:{{{game_id}}}:events"
    entries: list[tuple[bytes, dict[bytes, bytes]]] = client.xrange(key)
    values = [sum(len(v) for v in fields.values()) for _, fields in entries]
    metas = [len(fields[b"meta"]) for _, fields in entries]
    memory = int(client.memory_usage(key, samples=0) or 0)
    client.close()
    n = len(entries)
    return sum(values) / n, sum(metas) / n, memory / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=4500)
    args = parser.parse_args()
    seed = _long_seed(args.events)
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendfsync="everysec").start()
        try:
            app = create_app(
                {
                    "REDIS_URL": server.url,
                    "TIGRIS_ADMIN_TOKEN": ADMIN,
                    "TIGRIS_KEY_PREFIX": PREFIX,
                    "TIGRIS_REQUEST_LOG": "off",
                    # One request in 50 would carry the rate limits' charge (two Redis
                    # writes, and the first time a new connection): not the reads measured.
                    "TIGRIS_RATE_LIMITS": "off",
                }
            )
            client = app.test_client()
            games = app.extensions[EXTENSION].games
            admin = {"Authorization": f"Bearer {ADMIN}"}
            created = client.post(
                "/games",
                json={"kind": "cards", "seats": ["Ann", "Bob"], "seed": seed},
                headers=admin,
            ).get_json()
            game_id = created["game"]["game_id"]
            seat1 = {"Authorization": f"Bearer {created['seats'][1]['token']}"}
            rng = random.Random(seed ^ 0x5EED)
            game = games.repository.get(game_id)
            while game.version < args.events:
                command = choose_command(game.rules, game.state, rng)
                meta = CommandMeta(
                    command_id=uuid.uuid4().hex, actor=f"seat:{command.seat}", seat=command.seat
                )
                game = games.commands.handle(game_id, command, meta=meta).game
            total = game.version

            per_event, meta_bytes, memory = stored_bytes(server.url, game_id)
            sample = client.get(f"/games/{game_id}/events?limit=1", headers=admin).get_json()
            print(f"game: {total} events (cards, 2 seats, seed {seed})")
            print(
                f"stored bytes per event: {per_event:.0f} (metadata {meta_bytes:.0f}); "
                f"Redis MEMORY USAGE of the stream / events: {memory:.0f}"
            )
            print("  first event as served:", json.dumps(sample["items"][0])[:300])

            versions = [max(1, int(total * (n + 0.5) / 60)) for n in range(60)]
            travel = []
            for version in versions:
                started = time.perf_counter()
                response = client.get(f"/games/{game_id}/states/{version}", headers=admin)
                travel.append(time.perf_counter() - started)
                assert response.status_code == 200, response.get_json()
            print(f"time travel to 60 versions: {_ms(travel)}")

            for name, headers in (("spectator", {}), ("seat", seat1), ("admin", admin)):
                per = []
                for n in range(10):
                    after = int((total - 200) * n / 10)
                    url = f"/games/{game_id}/events?after={after}&limit=200"
                    client.get(url, headers=headers)  # warm
                    started = time.perf_counter()
                    response = client.get(url, headers=headers)
                    elapsed = time.perf_counter() - started
                    served = len(response.get_json()["items"])
                    per.append(elapsed / served * 1e6)
                print(
                    f"event log, pages of 200, {name:>9}: {statistics.median(per):.1f} µs per "
                    f"event served (median of 10 places; max {max(per):.1f})"
                )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
