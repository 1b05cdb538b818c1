"""Contract of the audit log port, run against every adapter (see conftest)."""

from __future__ import annotations

import pytest

from service.store.memory import InMemoryAuditLog
from service.store.port import AuditLog, AuditRun, AuditSummary
from service.store.redis_audit import RedisAuditLog
from tests.service.store.conftest import Backend


@pytest.fixture
def audit(backend: Backend, key_prefix: str) -> AuditLog:
    if backend.client is None:
        return InMemoryAuditLog()
    return RedisAuditLog(backend.client, prefix=key_prefix)


def test_an_audit_log_starts_empty(audit: AuditLog) -> None:
    assert audit.read() == AuditSummary()


def test_runs_add_up_and_the_last_mismatches_are_kept(audit: AuditLog) -> None:
    # given two runs, the second with a mismatch
    first = AuditRun(at="2026-01-01T00:00:00+00:00", games=3, mismatches=0, duration_ms=12.5)
    audit.record_run(first, [])
    mismatch = {"game_id": "g1", "version": 4, "reason": "snapshot differs", "at": "t"}
    second = AuditRun(at="2026-01-01T00:01:00+00:00", games=2, mismatches=1, duration_ms=3.0)
    audit.record_run(second, [mismatch])
    # then the counters add up, the last run is the second, its mismatch is kept
    assert audit.read() == AuditSummary(
        runs=2, games_checked=5, mismatches=1, last_run=second, recent=(mismatch,)
    )


def test_only_the_last_mismatches_are_kept_newest_first(audit: AuditLog) -> None:
    found = [{"game_id": f"g{n}", "version": n, "reason": "r"} for n in range(audit.RECENT + 5)]
    run = AuditRun(at="2026-01-01T00:00:00+00:00", games=1, mismatches=len(found), duration_ms=1.0)
    audit.record_run(run, found)
    recent = audit.read().recent
    assert [m["version"] for m in recent] == list(range(audit.RECENT + 4, 4, -1))
