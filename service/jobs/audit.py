"""The periodic audit: every ``TIGRIS_AUDIT_S`` seconds one job folds every active game from
its stream and compares the fold with the game's snapshots and with its stored info (status
and version). Each mismatch is logged with the game and the version and counted; the counts
and the last mismatches are kept in Redis (``AuditLog``) and shown by ``GET /ops/audit``.

The audits form a chain like the sweeps (job id ``audit-<queue>-<slot>``, scheduled once
per slot by whoever gets there first, again at every worker start).
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime
from typing import Any

from rq import Queue

from service.application.commands import status_of
from service.application.game_service import GameService
from service.application.repository import replay
from service.jobs.queues import enqueue_once
from service.jobs.settings import JobSettings

log = logging.getLogger("tigris.audit")

PAGE = 100
RECENT = 100


class AuditLog:
    """The audit's counters and its last mismatches, under ``<prefix>:ops:audit``."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.client = client
        self.key = f"{prefix}:ops:audit"
        self.recent_key = f"{prefix}:ops:audit:mismatches"

    def record_run(self, games: int, mismatches: list[dict[str, Any]], duration_ms: float) -> None:
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hincrby(self.key, "runs", 1)
            pipe.hincrby(self.key, "games_checked", games)
            pipe.hincrby(self.key, "mismatches", len(mismatches))
            pipe.hset(
                self.key,
                mapping={
                    "last_run_at": datetime.now(UTC).isoformat(),
                    "last_run_games": str(games),
                    "last_run_mismatches": str(len(mismatches)),
                    "last_run_ms": f"{duration_ms:.1f}",
                },
            )
            for mismatch in mismatches:
                pipe.lpush(self.recent_key, json.dumps(mismatch))
            pipe.ltrim(self.recent_key, 0, RECENT - 1)
            pipe.execute()

    def read(self) -> dict[str, Any]:
        fields: dict[str, str] = self.client.hgetall(self.key)
        recent: list[str] = self.client.lrange(self.recent_key, 0, RECENT - 1)
        return {
            "runs": int(fields.get("runs", 0)),
            "games_checked": int(fields.get("games_checked", 0)),
            "mismatches": int(fields.get("mismatches", 0)),
            "last_run": None
            if "last_run_at" not in fields
            else {
                "at": fields["last_run_at"],
                "games": int(fields["last_run_games"]),
                "mismatches": int(fields["last_run_mismatches"]),
                "duration_ms": float(fields["last_run_ms"]),
            },
            "recent": [json.loads(item) for item in recent],
        }


def audit_game(games: GameService, game_id: str) -> list[dict[str, Any]]:
    """The mismatches of one game: its snapshots against a full fold, its stored status
    and version against the fold's."""
    info = games.queries.game_info(game_id)
    found = [
        {"game_id": game_id, "version": m.version, "reason": f"snapshot {m.reason}"}
        for m in games.queries.check_snapshots(game_id)
    ]
    events = games.queries.events(game_id, 0)
    loaded = games.repository.get(game_id)  # from the latest snapshot and the events after it
    rules = loaded.rules
    state, version = replay(rules, events)
    if loaded.version == version and rules.dump_position(loaded.state) != rules.dump_position(
        state
    ):
        found.append(
            {
                "game_id": game_id,
                "version": version,
                "reason": "the state loaded from the latest snapshot differs from the full fold",
            }
        )
    if version != info.version:
        found.append(
            {
                "game_id": game_id,
                "version": version,
                "reason": f"the stored version is {info.version}, the stream ends at {version}",
            }
        )
    folded = status_of(rules, state)
    if folded != info.status:
        found.append(
            {
                "game_id": game_id,
                "version": version,
                "reason": f"the stored status is {info.status!r}, the fold's is {folded!r}",
            }
        )
    return found


def schedule_audit(queue: Queue, settings: JobSettings, *, after: float | None = None) -> bool:
    now = time.time() if after is None else after
    slot = int(now // settings.audit_s) + 1
    at = datetime.fromtimestamp(slot * settings.audit_s, UTC)
    job_id = f"audit-{settings.queue}-{slot}"
    return enqueue_once(queue, settings, audit, job_id, timeout_s=3600, at=at) is not None


def audit() -> dict[str, int]:
    """The job: schedule the next audit, then audit every active game."""
    from service.jobs.context import job_context

    context = job_context()
    schedule_audit(context.queue, context.settings)
    return audit_games()


def audit_games() -> dict[str, int]:
    from service.jobs.context import job_context

    context = job_context()
    games = context.games
    started = time.monotonic()
    checked = 0
    mismatches: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        infos, cursor = games.queries.list_games(status="active", cursor=cursor, limit=PAGE)
        for info in infos:
            checked += 1
            for mismatch in audit_game(games, info.game_id):
                log.warning(
                    "audit mismatch: game %s version %s: %s",
                    mismatch["game_id"],
                    mismatch["version"],
                    mismatch["reason"],
                )
                mismatches.append({**mismatch, "at": datetime.now(UTC).isoformat()})
        if cursor is None:
            break
    context.audit.record_run(checked, mismatches, (time.monotonic() - started) * 1000)
    return {"games": checked, "mismatches": len(mismatches)}
