"""Event-log read benchmark (a script, not a test): what a page of ``GET /games/{id}/events``
and a whole catch-up cost at 1,500 and 4,500 events, before and after a consented undo,
for a spectator, a seat and the admin.

A seeded random two-player card game long enough is found with tests/autoplay.py,
then played through the application service of a real app (Flask test client, embedded
Redis). At each size the log is read: the first page of 100, a page of 100 in the middle,
and the whole log in pages of 200 (a stream's catch-up reads the same way). Then the game
is taken back to the middle (``UndoWorkflow.revert``) and the same reads are timed again.

Run:  .venv/bin/python -m tests.benchmarks.bench_reads
Only HTTP and public service methods are used, so the same file also runs against an
older checkout (``cd <checkout> && .venv/bin/python <path>/bench_reads.py``).
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from domain.cards import RULES
from service.api import create_app
from service.api.context import EXTENSION
from service.application.mapper import CommandMeta
from service.embedded_redis import EmbeddedRedis
from tests.autoplay import choose_command, play_random_game

ADMIN = "admin-" + "b" * 40
SIZES = (1500, 4500)


def _long_seed(events: int) -> int:
    for seed in range(1, 400):
        if len(play_random_game(RULES, 2, seed).events) >= events + 10:
            return seed
    raise SystemExit("no seed gives a game that long")


def _timed(client: Any, url: str, headers: dict[str, str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        response = client.get(url, headers=headers)
        times.append(time.perf_counter() - t0)
        assert response.status_code == 200, response.get_json()
    return statistics.median(times) * 1000


def _catch_up(client: Any, game_id: str, headers: dict[str, str]) -> float:
    t0 = time.perf_counter()
    after: int | None = 0
    while after is not None:
        body = client.get(f"/games/{game_id}/events?after={after}&limit=200", headers=headers)
        after = body.get_json()["next_after"]
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    seed = _long_seed(max(SIZES))
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendfsync="everysec").start()
        try:
            app = create_app({"REDIS_URL": server.url, "TIGRIS_ADMIN_TOKEN": ADMIN})
            client = app.test_client()
            games = app.extensions[EXTENSION].games
            print(
                f"{'events':>7} {'undo':>5} {'caller':>9} {'first 100':>10} "
                f"{'middle 100':>11} {'all, pages of 200':>18}   (ms, median of 5)"
            )
            for size in SIZES:  # a fresh game per size, played to that many events
                created = client.post(
                    "/games",
                    json={"kind": "cards", "seats": ["Ann", "Bob"], "seed": seed},
                    headers={"Authorization": f"Bearer {ADMIN}"},
                ).get_json()
                game_id = created["game"]["game_id"]
                seat1 = {"Authorization": f"Bearer {created['seats'][1]['token']}"}
                callers = {
                    "spectator": {},
                    "seat": seat1,
                    "admin": {"Authorization": f"Bearer {ADMIN}"},
                }
                rng = random.Random(seed ^ 0x5EED)
                game = games.repository.get(game_id)
                while game.version < size:
                    command = choose_command(game.rules, game.state, rng)
                    seat = command.seat
                    meta = CommandMeta(command_id="b", actor=f"seat:{seat}", seat=seat)
                    game = games.commands.handle(game_id, command, meta=meta).game
                for undone in (False, True):
                    if undone:
                        game = games.repository.get(game_id)
                        middle = game.version // 2
                        while True:
                            try:
                                games.undo.revert(
                                    game_id,
                                    middle,
                                    reason="bench",
                                    requested_by="seat:0",
                                    approved_by=("seat:1",),
                                    meta=CommandMeta(command_id="u", actor="admin", seat=None),
                                    expected_version=game.version,
                                )
                                break
                            except ValueError:
                                middle -= 1  # not between two commands: one earlier
                    mid = games.repository.get(game_id).version // 2
                    for name, headers in callers.items():
                        url = f"/games/{game_id}/events"
                        first = _timed(client, f"{url}?limit=100", headers, 5)
                        middle_page = _timed(client, f"{url}?after={mid}&limit=100", headers, 5)
                        whole = statistics.median(
                            _catch_up(client, game_id, headers) for _ in range(3)
                        )
                        print(
                            f"{size:>7} {'yes' if undone else 'no':>5} {name:>9} "
                            f"{first:>10.1f} {middle_page:>11.1f} {whole:>18.1f}"
                        )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
