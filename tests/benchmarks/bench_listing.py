"""Listing benchmark (a script, not a test): ``GameQueries.list_games`` with filters at
10,000 games, on a fresh embedded Redis.

10,000 games are created through the application service (board and cards alternately);
``--over`` of the card games are then played to their end with seeded random commands
through ``CommandHandler.handle``, so that ``kind=cards&status=over`` matches only a few
games among many (the case the hostile-input issue measured at 0.96 s per call). Each
listing is timed ``--repeat`` times from one client, and with 8 parallel callers.

Run:  .venv/bin/python -m tests.benchmarks.bench_listing [--games 10000] [--over 10]
The script only uses the application service's public methods, so the same file runs
against an older checkout (``PYTHONPATH=<checkout> python bench_listing.py``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.embedded_redis import EmbeddedRedis
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.autoplay import choose_command

QUERIES: list[tuple[str, dict[str, str | None], int]] = [
    ("newest 50, no filter", {"kind": None, "status": None}, 50),
    ("kind=cards&status=over&limit=1", {"kind": "cards", "status": "over"}, 1),
    ("kind=cards&status=over&limit=50", {"kind": "cards", "status": "over"}, 50),
    ("status=active&limit=50", {"kind": None, "status": "active"}, 50),
    ("kind=board&limit=200", {"kind": "board", "status": None}, 200),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--over", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendfsync="everysec").start()
        try:
            run(server, args.games, args.over, args.repeat)
        finally:
            server.stop()


def run(server: EmbeddedRedis, games: int, over: int, repeat: int) -> None:
    client = server.client(decode_responses=True)
    service = GameService(RedisEventStore(client), RedisSnapshotStore(client))
    meta = CommandMeta(command_id="bench", actor="system", seat=None)
    started = time.perf_counter()
    cards: list[str] = []
    for n in range(games):
        kind = ("board", "cards")[n % 2]
        game = service.commands.create_game(kind, ["Ann", "Bob"], {}, n, meta)
        if kind == "cards" and len(cards) < over:
            cards.append(game.game_id)
    rng = random.Random(5)
    for game_id in cards:  # played to the end: the few matches of the filtered listing
        game = service.repository.get(game_id)
        while not game.rules.is_over(game.state):
            command = choose_command(game.rules, game.state, rng)
            seat = command.seat
            seat_meta = CommandMeta(command_id="bench", actor=f"seat:{seat}", seat=seat)
            game = service.commands.handle(game_id, command, meta=seat_meta).game
    print(
        f"set-up: {games} games ({over} card games over) in {time.perf_counter() - started:.0f} s"
    )
    print(f"{'query':34} {'p50 ms':>8} {'p99 ms':>8} {'8 callers p50 ms':>17}")
    for name, filters, limit in QUERIES:

        def once(filters: dict[str, str | None] = filters, limit: int = limit) -> float:
            t0 = time.perf_counter()
            service.queries.list_games(kind=filters["kind"], status=filters["status"], limit=limit)
            return time.perf_counter() - t0

        alone = sorted(once() for _ in range(repeat))
        with ThreadPoolExecutor(8) as pool:
            together = sorted(pool.map(lambda _: once(), range(8 * max(repeat // 4, 2))))
        p99 = alone[min(len(alone) - 1, int(len(alone) * 0.99))]
        print(
            f"{name:34} {statistics.median(alone) * 1000:8.2f} {p99 * 1000:8.2f}"
            f" {statistics.median(together) * 1000:17.2f}"
        )
    client.close()


if __name__ == "__main__":
    main()
