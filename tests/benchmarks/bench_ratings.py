"""Ratings benchmark (a script, not a test): the cost of counting one rated game, of a
rebuild, and of a leaderboard page, on a fresh embedded Redis.

``--games`` rated board games of 2 to 4 seats among ``--players`` players are played to
their end with seeded random commands through the application service; each is counted as
the ``rate_game`` job counts it (``RatingProjection.rate``: load, result, order key,
openskill, one Lua script), then the kind is rebuilt from the games (``rebuild``, as
``python -m service ratings rebuild`` does) and must give the same leaderboard.

Run:  .venv/bin/python -m tests.benchmarks.bench_ratings [--games 100] [--players 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.embedded_redis import EmbeddedRedis
from service.store.port import PlayerRecord
from service.store.redis_players import RedisPlayerStore
from service.store.redis_ratings import RedisRatingStore
from service.store.redis_streams import RedisEventStore, RedisSnapshotStore
from tests.autoplay import choose_command


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendfsync="everysec").start()
        try:
            run(server, args.games, args.players, args.repeat)
        finally:
            server.stop()


def run(server: EmbeddedRedis, games: int, players: int, repeat: int) -> None:
    client = server.client(decode_responses=True)
    service = GameService(
        RedisEventStore(client),
        RedisSnapshotStore(client),
        players=RedisPlayerStore(client),
        ratings=RedisRatingStore(client),
    )
    pool = [uuid.uuid4().hex for _ in range(players)]
    for n, player in enumerate(pool):
        service.players.store.create(PlayerRecord(player, f"P{n}", "0" * 64, "2026-01-01"))
    meta = CommandMeta(command_id="bench", actor="system", seat=None)
    rng = random.Random(7)
    counts: list[float] = []
    started = time.perf_counter()
    for n in range(games):
        seated = rng.sample(pool, 2 + n % 3)
        names = [f"S{seat}" for seat in range(len(seated))]
        game = service.commands.create_game(
            "board", names, {}, n, meta, players=dict(enumerate(seated)), rated=True
        )
        while not game.rules.is_over(game.state):
            command = choose_command(game.rules, game.state, rng)
            seat_meta = CommandMeta(command_id="b", actor=f"seat:{command.seat}", seat=command.seat)
            game = service.commands.handle(game.game_id, command, meta=seat_meta).game
        t0 = time.perf_counter()
        outcome = service.ratings.rate(game.game_id)
        counts.append(time.perf_counter() - t0)
        assert outcome == "applied", outcome
    print(f"set-up: {games} rated board games played in {time.perf_counter() - started:.0f} s")
    store = service.ratings.store
    live = store.leaderboard("board", 0, players)
    t0 = time.perf_counter()
    counted = service.ratings.rebuild("board")
    rebuild_s = time.perf_counter() - t0
    assert counted == games and store.leaderboard("board", 0, players) == live
    pages = []
    for _ in range(repeat):
        t1 = time.perf_counter()
        store.leaderboard("board", 0, 20)
        pages.append(time.perf_counter() - t1)
    ms = 1000
    print(f"count one game (rate_game's work): p50 {statistics.median(counts) * ms:.1f} ms")
    print(f"  p99 {sorted(counts)[int(len(counts) * 0.99) - 1] * ms:.1f} ms")
    print(
        f"rebuild of {games} games: {rebuild_s:.2f} s ({games / rebuild_s:.0f} games/s),"
        " same leaderboard"
    )
    print(f"leaderboard page of 20 (store): p50 {statistics.median(pages) * ms:.2f} ms")


if __name__ == "__main__":
    main()
