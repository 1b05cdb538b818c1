"""Webhook delivery latency benchmark (a script, not a test).

From an event's append to its arrival at a receiver: a fresh embedded Redis, a real
``python -m service worker`` (RQ workers in their own processes), a real HTTP receiver on
loopback that verifies every signature with ``standardwebhooks``, and one board game with a
spectator's subscription (made through the store, as the admin's). Commands go through the
application service, whose write observer enqueues (``JobTriggers.appended``: the
delivery), one every ``--pace`` ms; the latency of an event is its arrival at the receiver
minus its ``recorded_at`` (both the same machine's clock). Prints p50 / p90 / p99 / max, and
the deliveries beside their distinct ``webhook-id`` s.

Run:  .venv/bin/python -m tests.benchmarks.bench_webhooks [--commands 200] [--pace 50]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

from service.application.game_service import build_service
from service.application.mapper import CommandMeta
from service.application.webhooks import new_secret
from service.config import StoreSettings
from service.embedded_redis import EmbeddedRedis
from service.jobs.queues import job_queue
from service.jobs.settings import JobSettings
from service.jobs.triggers import JobTriggers
from service.store.port import Subscription
from service.store.redis_webhooks import RedisWebhookStore
from tests.service.jobs.receiver import start_receiver

ROOT = Path(__file__).resolve().parents[2]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--pace", type=float, default=50, help="ms between commands")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedRedis(Path(tmp) / "redis", appendfsync="everysec") as server,
    ):
        env = {
            **os.environ,
            "REDIS_URL": server.url,
            "TIGRIS_KEY_PREFIX": f"bench-{uuid.uuid4().hex[:8]}",
            "TIGRIS_RQ_QUEUE": "bench",
            "TIGRIS_RQ_WORKERS": str(args.workers),
            "TIGRIS_WEBHOOK_ALLOW_PRIVATE": "1",
            "TIGRIS_JOB_SWEEP_S": "3600",
        }
        env.pop("RQ_REDIS_URL", None)
        store_settings = StoreSettings.from_env(env)
        settings = JobSettings.from_env(env)
        games, connection = build_service(store_settings)
        hooks = RedisWebhookStore(connection.client, prefix=store_settings.key_prefix)
        games.writes.add(JobTriggers(settings, hooks, games, job_queue(settings)))
        receiver, http = start_receiver()
        worker = subprocess.Popen(
            [sys.executable, "-m", "service", "worker"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            time.sleep(3)  # the workers register
            meta = CommandMeta(command_id="create", actor="system", seat=None)
            game = games.commands.create_game("board", ["a", "b"], {}, 7, meta)
            sub = Subscription(
                sub_id=uuid.uuid4().hex,
                game_id=game.game_id,
                url=receiver.url("/bench"),
                events=(),
                seat=None,
                secret=new_secret(),
                status="active",
                failures=0,
                cursor=game.version,
                created_at="2026-01-01T00:00:00+00:00",
                owner="admin",
            )
            hooks.create(sub, per_game=20, per_owner=5)
            receiver.secrets["/bench"] = sub.secret
            rng = random.Random(1)
            appended: dict[int, float] = {}
            for n in range(args.commands):
                if game.rules.is_over(game.state):
                    break
                seat = min(game.rules.awaited(game.state))
                options = list(game.rules.legal_commands(game.state, seat))
                command = options[rng.randrange(len(options))]
                meta = CommandMeta(command_id=f"c{n}", actor=f"seat:{seat}", seat=seat)
                outcome = games.commands.handle(game.game_id, command, meta=meta)
                for event in outcome.events:
                    appended[event.version] = datetime.fromisoformat(
                        event.metadata["recorded_at"]
                    ).timestamp()
                game = outcome.game
                time.sleep(args.pace / 1000)
            deadline = time.monotonic() + 60
            arrived: dict[int, float] = {}
            while time.monotonic() < deadline:
                for delivery in receiver.of("/bench"):
                    assert delivery.error is None, delivery.error
                    for event in delivery.payload["data"]["events"]:
                        arrived.setdefault(event["version"], delivery.arrived)
                if set(appended) <= set(arrived):
                    break
                time.sleep(0.2)
        finally:
            worker.send_signal(signal.SIGTERM)
            worker.wait(timeout=60)
            http.shutdown()
            connection.close()
    latencies = [(arrived[v] - appended[v]) * 1000 for v in appended if v in arrived]
    deliveries = len(receiver.of("/bench"))
    ids = {delivery.headers["webhook-id"] for delivery in receiver.of("/bench")}
    print(
        f"{len(appended)} events in {args.commands} commands, one every {args.pace:.0f} ms; "
        f"{deliveries} signed deliveries ({len(ids)} webhook-ids), all verified; "
        f"{len(appended) - len(latencies)} missing"
    )
    print(
        f"append -> receiver: p50 {statistics.median(latencies):.1f} ms, "
        f"p90 {percentile(latencies, 0.9):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms, "
        f"max {max(latencies):.1f} ms"
    )


if __name__ == "__main__":
    main()
