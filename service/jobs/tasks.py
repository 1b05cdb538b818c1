"""The job bodies: every function RQ runs, by its dotted name ``service.jobs.tasks.<name>``
(``service.jobs.enqueue`` enqueues them by that name, so no module below this one imports
it). Each builds the process's job context and hands over to the module that does the work.

Jobs queued before the bodies moved here name their old places
(``service.jobs.bots.play_bot``, ``service.jobs.clocks.clock_expired``,
``service.jobs.webhooks.deliver_webhook``, ``service.jobs.sweep.sweep``,
``service.jobs.audit.audit``); those names stay importable and run the same work.
"""

from __future__ import annotations

from service.jobs import archiving, bots, clocks, feed, ratings, webhooks
from service.jobs import audit as audits
from service.jobs import sweep as sweeps
from service.jobs.context import job_context


def play_bot(game_id: str, version: int, seat: int) -> str:
    """A bot seat's move at ``version`` (``service.jobs.bots``)."""
    return bots.play(job_context(), game_id, version, seat)


def clock_expired(game_id: str, version: int, seat: int) -> str:
    """``seat``'s time at ``version`` ran out (``service.jobs.clocks``)."""
    return clocks.expire(job_context(), game_id, version, seat)


def deliver_webhook(game_id: str, sub_id: str) -> str:
    """A subscription's next batch of events (``service.jobs.webhooks``)."""
    return webhooks.deliver(job_context(), game_id, sub_id)


def sweep() -> dict[str, int]:
    """The periodic sweep (``service.jobs.sweep``)."""
    return sweeps.run(job_context())


def audit() -> dict[str, int]:
    """The periodic audit (``service.jobs.audit``)."""
    return audits.run(job_context())


def archive_game(game_id: str) -> str:
    """Move a game past retention into the archive tier (``service.jobs.archiving``)."""
    return archiving.archive(job_context(), game_id)


def rate_game(game_id: str) -> str:
    """Count a rated game that ended into its players' ratings (``service.jobs.ratings``)."""
    return ratings.rate(job_context(), game_id)


def rebuild_ratings(kind: str) -> int:
    """Drop a kind's ratings and count its rated games again (``service.jobs.ratings``)."""
    return ratings.rebuild(job_context(), kind)


def project_feed(game_id: str) -> str:
    """The players' feed entries of ``game_id``'s new versions (``service.jobs.feed``)."""
    return feed.project(job_context(), game_id)


def deliver_player_webhook(player_id: str, sub_id: str) -> str:
    """A player's webhook's next batch of feed entries (``service.jobs.feed``)."""
    return feed.deliver(job_context(), player_id, sub_id)
