"""Player feed projection benchmark (a script, not a test).

What the feed costs per write: a fresh embedded Redis, one game of each kind with both seats
bound to players, played by random legal commands through the application service; after
every command the projection (``PlayerFeeds.project``, the body of the ``project_feed`` job,
run here in the process) derives and writes the new entries. Prints, per kind, the
projection's p50 / p99 / max in ms, the commands and the entries written.

Run:  .venv/bin/python -m tests.benchmarks.bench_feed [--commands 300]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from service.application.game_service import build_service
from service.application.mapper import CommandMeta
from service.config import StoreSettings
from service.embedded_redis import EmbeddedRedis


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=300)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedRedis(Path(tmp) / "redis", appendfsync="everysec") as server,
    ):
        settings = StoreSettings(redis_url=server.url, key_prefix=f"bench-{uuid.uuid4().hex[:8]}")
        games, connection = build_service(settings)
        try:
            for kind in ("board", "cards"):
                ann, _ = games.players.create("Ann")
                bob, _ = games.players.create("Bob")
                players = {0: ann.player_id, 1: bob.player_id}
                meta = CommandMeta(command_id=uuid.uuid4().hex, actor="system", seat=None)
                game = games.commands.create_game(
                    kind, ["Ann", "Bob"], {}, 7, meta, players=players
                )
                rng = random.Random(1)
                took: list[float] = []
                entries = 0
                for n in range(args.commands):
                    if game.rules.is_over(game.state):
                        break
                    seat = min(game.rules.awaited(game.state))
                    options = list(game.rules.legal_commands(game.state, seat))
                    command = options[rng.randrange(len(options))]
                    meta = CommandMeta(command_id=f"{kind}{n}", actor=f"seat:{seat}", seat=seat)
                    game = games.commands.handle(game.game_id, command, meta=meta).game
                    started = time.perf_counter()
                    written = games.feeds.project(game.game_id)
                    took.append((time.perf_counter() - started) * 1000)
                    entries += sum(len(seqs) for seqs in written.values())
                print(
                    f"{kind}: {len(took)} commands, {entries} entries; projection per write "
                    f"p50 {statistics.median(took):.2f} ms, p99 {percentile(took, 0.99):.2f} ms, "
                    f"max {max(took):.2f} ms"
                )
        finally:
            connection.close()


if __name__ == "__main__":
    main()
