"""The audit: every active game folded from its stream and compared with its snapshots
and with its stored info (status and version). Each mismatch is logged with the game and
the version, counted and kept (the ``AuditLog`` port); only the admin reads what it found.
The periodic run is a job (``service.jobs.audit``).
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from typing import Any

from service.application.commands import status_of
from service.application.game_service import GameService
from service.application.repository import replay
from service.errors import ServiceError
from service.store.port import AuditLog, AuditRun, AuditSummary

log = logging.getLogger("tigris.audit")

PAGE = 100


class AuditForbidden(ServiceError):
    """Only the admin reads the audit."""


class AuditUnavailable(ServiceError):
    """No audit log: no audit runs (no queue Redis)."""


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


class Audit:
    def __init__(self, games: GameService, audit_log: AuditLog | None) -> None:
        self.games = games
        self.log = audit_log

    def _log(self) -> AuditLog:
        if self.log is None:
            raise AuditUnavailable("the audit needs a queue Redis (RQ_REDIS_URL)")
        return self.log

    def run(self) -> dict[str, int]:
        """Audit every active game and record the run."""
        started = time.monotonic()
        checked = 0
        mismatches: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            infos, cursor = self.games.queries.list_games(
                status="active", cursor=cursor, limit=PAGE
            )
            for info in infos:
                checked += 1
                for mismatch in audit_game(self.games, info.game_id):
                    log.warning(
                        "audit mismatch: game %s version %s: %s",
                        mismatch["game_id"],
                        mismatch["version"],
                        mismatch["reason"],
                    )
                    mismatches.append({**mismatch, "at": datetime.now(UTC).isoformat()})
            if cursor is None:
                break
        run = AuditRun(
            at=datetime.now(UTC).isoformat(),
            games=checked,
            mismatches=len(mismatches),
            duration_ms=round((time.monotonic() - started) * 1000, 1),
        )
        self._log().record_run(run, mismatches)
        return {"games": checked, "mismatches": len(mismatches)}

    def report(self, *, admin: bool) -> AuditSummary:
        """What the audit found, for the admin only (``AuditForbidden``)."""
        if not admin:
            raise AuditForbidden("only the admin token may read the audit")
        return self._log().read()
