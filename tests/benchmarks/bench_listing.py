"""Listing benchmark (a script, not a test): ``GET /games`` filters at 10,000 games.

Creates ``--games`` games through ``GameService.create_game`` on a fresh embedded Redis
(``appendfsync everysec``), half board and half cards; one game in 100 is then marked over
(its info's status, and, where the store has filtered indexes, moved between them through
the store port as the status change does), so ``status=over`` is a needle in a haystack.
Then times ``list_games`` for each filter (limit 1 and 50, first page), median of ``--runs``.

Runs on any checkout with the same application API: to measure main's code, run it with
``PYTHONPATH=/path/to/main`` from that checkout's venv or this one.

Run:  .venv/bin/python -m tests.benchmarks.bench_listing [--games 10000] [--runs 20]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import redis

from service.application import CommandMeta, GameService
from service.embedded_redis import EmbeddedRedis
from service.store.redis_streams import RedisEventStore

FILTERS: list[tuple[str | None, str | None]] = [
    (None, None),
    ("cards", None),
    (None, "over"),
    ("cards", "over"),
    ("board", "active"),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp), appendfsync="everysec").start()
        try:
            client = redis.Redis.from_url(server.url, decode_responses=True)
            store = RedisEventStore(client, prefix="bench")
            service = GameService(store)
            meta = CommandMeta(command_id="bench", actor="system", seat=None)
            started = time.perf_counter()
            games = []
            for n in range(args.games):
                kind = ("board", "cards")[n % 2]
                game = service.create_game(kind, ["Ann", "Bob"], {}, n, meta)
                games.append((game.game_id, kind, game.info.created_ms))
            print(f"created {args.games} games in {time.perf_counter() - started:.1f} s")
            over = games[::100]
            for game_id, kind, created_ms in over:
                client.hset(store.keys.info(game_id), "status", "over")
                if hasattr(store, "unindex_game"):  # a store with filtered indexes
                    store.index_game(game_id, created_ms, kind=kind, status="over")
                    store.unindex_game(game_id, created_ms, [(None, "active"), (kind, "active")])
            print(f"marked {len(over)} games over")
            print(f"{'kind':>6} {'status':>7} {'limit':>5}  {'median ms':>9}  {'max ms':>8}  found")
            for want_kind, want_status in FILTERS:
                for limit in (1, 50):
                    times = []
                    found = 0
                    for _ in range(args.runs):
                        t0 = time.perf_counter()
                        page, _cursor = service.list_games(
                            kind=want_kind, status=want_status, limit=limit
                        )
                        times.append((time.perf_counter() - t0) * 1000)
                        found = len(page)
                    print(
                        f"{want_kind or '*':>6} {want_status or '*':>7} {limit:>5}  "
                        f"{statistics.median(times):>9.2f}  {max(times):>8.2f}  {found}"
                    )
            client.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
