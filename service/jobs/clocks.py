"""Turn clocks as jobs (the time control itself: ``service.application.clocks``).

A clock starts when the game does (at its creation, or at the claim of its last open
seat: no deadline is scheduled while it waits for players). After each append to a game
with a clock, every awaited seat's deadline becomes an RQ
scheduled job ``clock_expired(game, version, seat)`` (job id ``clock-<game>-<version>-<seat>``,
enqueued once, by the API's fast path, by the jobs that append, and by the periodic sweep).
When it runs and the game is still at that version with the seat awaited, the clock's
policy (a ``random`` or ``greedy`` bot, from the seat's view) moves for the seat, as an event
whose actor is ``clock``, with that version expected and the idempotency key
``clock-<version>-<seat>``. A move made in time moved the game on: the job then finds
another version and does nothing (the check is the version, not the job's cancellation).
"""

from __future__ import annotations

from service.application.bots import BotSeat
from service.application.clocks import CLOCK_ACTOR, timeouts_in_a_row
from service.application.repository import LoadedGame
from service.jobs.bots import bot_command, submit_decision
from service.jobs.context import JobContext, job_context
from service.jobs.enqueue import clock_reading, enqueue_deadlines, waiting_for_players

__all__ = ["clock_expired", "clock_reading", "enqueue_deadlines", "expire"]


def clock_expired(game_id: str, version: int, seat: int) -> str:
    """The old dotted name of the job ``service.jobs.tasks.clock_expired``: jobs queued
    under it before the job bodies moved there still run."""
    return expire(job_context(), game_id, version, seat)


def expire(context: JobContext, game_id: str, version: int, seat: int) -> str:
    """The clock job: ``seat``'s time at ``version`` ran out; its clock policy moves for it."""
    game = context.games.repository.get(game_id)
    spec = game.info.clock
    if game.version != version:
        return f"moved in time: the game is at version {game.version}"
    if waiting_for_players(game):  # queued by an older version: the claim queues it again
        return "waiting for players: the clock starts with the last claim"
    if spec is None or game.rules.is_over(game.state) or seat not in game.rules.awaited(game.state):
        return f"seat {seat} is not awaited"
    key = f"clock-{version}-{seat}"
    if resigns(context, game, seat):
        resign = {"type": "Resign"}  # both games name it so (domain/RESIGNATION.md)
        outcome = submit_decision(context, game, resign, seat=seat, key=key, actor=CLOCK_ACTOR)
        if isinstance(outcome, str):
            return f"moved in time: {outcome}"
        return f"the clock resigned seat {seat}: version {outcome.game.version}"
    policy = BotSeat(spec.on_expiry, think_ms=0)
    command = bot_command(game.rules, game.state, seat, policy, game_id, version)
    outcome = submit_decision(context, game, command, seat=seat, key=key, actor=CLOCK_ACTOR)
    if isinstance(outcome, str):
        return f"moved in time: {outcome}"
    return f"the clock moved for seat {seat}: version {outcome.game.version}"


def resigns(context: JobContext, game: LoadedGame, seat: int) -> bool:
    """The clock's policy (domain/RESIGNATION.md): a seat whose time ran out
    ``TIGRIS_CLOCK_RESIGN_AFTER`` times in a row, this time included, resigns instead of
    moving; a seat that resigned already (the server plays it) never does again, nor a bot
    seat (0: the policy is off)."""
    limit = context.settings.clock_resign_after
    if limit == 0 or seat in game.rules.resigned(game.state) or seat in game.info.bots:
        return False
    metadata = [e.metadata for e in context.games.queries.events(game.game_id, 0, game=game)]
    return timeouts_in_a_row(metadata, seat) + 1 >= limit
