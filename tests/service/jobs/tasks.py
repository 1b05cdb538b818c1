"""Job functions of the worker tests (importable by a worker process from the repository)."""

from __future__ import annotations

import os
import time

import redis


class PlannedFailure(RuntimeError):
    """What a test job raises on purpose."""


def _client() -> redis.Redis:
    return redis.Redis.from_url(os.environ["REDIS_URL"], decode_responses=True)


def fail_times(key: str, failures: int) -> int:
    """Fails the first ``failures`` runs (counted under ``key``), then returns the count."""
    with _client() as client:
        runs = int(client.incr(key))
    if runs <= failures:
        raise PlannedFailure(f"planned failure {runs} of {failures} for {key}")
    return runs


def mark(key: str, value: str) -> str:
    """Records that the job ran (``key`` = ``value``, with the worker's pid)."""
    with _client() as client:
        client.set(key, f"{value}:{os.getpid()}")
    return value


def hold(key: str, seconds: float) -> str:
    """Records the work horse's pid under ``key``, then holds it for ``seconds``."""
    with _client() as client:
        client.set(key, str(os.getpid()))
    time.sleep(seconds)
    return key
