"""The archive tier's counters, kept in Redis (``P:archive:stats``, a hash) so that every
process (the workers that archive, the servers that read) adds to the same figures, and a
scrape of any server reports them (``service.api.metrics``)."""

from __future__ import annotations

import contextlib
from typing import Any

import redis

FIELDS = ("games", "events", "bytes", "failures", "reads")


class RedisArchiveStats:
    def __init__(self, client: Any, *, prefix: str = "tigris") -> None:
        self.client = client
        self.key = f"{prefix}:archive:stats"

    def archived(self, kind: str, events: int, size: int, seconds: float) -> None:
        pipe = self.client.pipeline(transaction=False)
        pipe.hincrby(self.key, "games", 1)
        pipe.hincrby(self.key, f"games:{kind}", 1)
        pipe.hincrby(self.key, "events", events)
        pipe.hincrby(self.key, "bytes", size)
        self._run(pipe)

    def archive_read(self, kind: str, seconds: float) -> None:
        self._run(self.client.pipeline(transaction=False).hincrby(self.key, "reads", 1))

    def archive_failed(self, reason: str) -> None:
        self._run(self.client.pipeline(transaction=False).hincrby(self.key, "failures", 1))

    @staticmethod
    def _run(pipe: Any) -> None:
        with contextlib.suppress(redis.RedisError):  # counters only: the work is done
            pipe.execute()

    def read(self) -> dict[str, int]:
        raw = self.client.hgetall(self.key)
        return {(k.decode() if isinstance(k, bytes) else k): int(v) for k, v in raw.items()}
