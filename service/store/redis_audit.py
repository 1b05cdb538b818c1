"""Redis adapter of the audit log port.

Keys (``P`` is the key prefix):

- ``P:ops:audit``              hash: ``runs``, ``games_checked``, ``mismatches`` (counters)
                                and ``last_run_at``, ``last_run_games``,
                                ``last_run_mismatches``, ``last_run_ms``
- ``P:ops:audit:mismatches``   list: the last mismatches, newest first (JSON)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import redis
from redis.cluster import RedisCluster

from service.store.port import AuditLog, AuditRun, AuditSummary


class RedisAuditLog(AuditLog):
    def __init__(self, client: redis.Redis | RedisCluster, *, prefix: str = "tigris") -> None:
        self.client: Any = client
        self.key = f"{prefix}:ops:audit"
        self.recent_key = f"{prefix}:ops:audit:mismatches"

    def record_run(self, run: AuditRun, mismatches: Sequence[dict[str, Any]]) -> None:
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hincrby(self.key, "runs", 1)
            pipe.hincrby(self.key, "games_checked", run.games)
            pipe.hincrby(self.key, "mismatches", run.mismatches)
            pipe.hset(
                self.key,
                mapping={
                    "last_run_at": run.at,
                    "last_run_games": str(run.games),
                    "last_run_mismatches": str(run.mismatches),
                    "last_run_ms": f"{run.duration_ms:.1f}",
                },
            )
            for mismatch in mismatches:
                pipe.lpush(self.recent_key, json.dumps(mismatch))
            pipe.ltrim(self.recent_key, 0, self.RECENT - 1)
            pipe.execute()

    def read(self) -> AuditSummary:
        raw = self.client.hgetall(self.key)
        fields = {_text(k): _text(v) for k, v in raw.items()}
        recent = self.client.lrange(self.recent_key, 0, self.RECENT - 1)
        last_run = None
        if "last_run_at" in fields:
            last_run = AuditRun(
                at=fields["last_run_at"],
                games=int(fields["last_run_games"]),
                mismatches=int(fields["last_run_mismatches"]),
                duration_ms=float(fields["last_run_ms"]),
            )
        return AuditSummary(
            runs=int(fields.get("runs", 0)),
            games_checked=int(fields.get("games_checked", 0)),
            mismatches=int(fields.get("mismatches", 0)),
            last_run=last_run,
            recent=tuple(json.loads(item) for item in recent),
        )


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
