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

import time
from datetime import UTC, datetime

from rq import Queue

from service.application.bots import BotSeat
from service.application.clocks import ClockReading, read_clock
from service.application.game_service import GameService
from service.application.repository import LoadedGame
from service.jobs.bots import bot_command, submit_decision, waiting_for_players
from service.jobs.queues import enqueue_once
from service.jobs.settings import JobSettings


def clock_reading(games: GameService, game: LoadedGame, now: float | None = None) -> ClockReading:
    """``game``'s clock now (it must have one): from its events' metadata."""
    spec = game.info.clock
    assert spec is not None
    metadata = [event.metadata for event in games.events(game.game_id, 0, game=game)]
    awaited = () if game.rules.is_over(game.state) else game.rules.awaited(game.state)
    return read_clock(
        spec, len(game.info.seat_names), awaited, metadata, time.time() if now is None else now
    )


def enqueue_deadlines(
    queue: Queue, settings: JobSettings, games: GameService, game: LoadedGame
) -> int:
    """Schedule the deadline of every seat ``game`` awaits (nothing without a clock, nor
    while the game waits for players: its clock starts with the last claim)."""
    if game.info.clock is None or waiting_for_players(game) or game.rules.is_over(game.state):
        return 0
    enqueued = 0
    for seat, deadline in clock_reading(games, game).deadlines.items():
        job = enqueue_once(
            queue,
            settings,
            clock_expired,
            f"clock-{game.game_id}-{game.version}-{seat}",
            game.game_id,
            game.version,
            seat,
            at=datetime.fromtimestamp(deadline, UTC),
        )
        enqueued += job is not None
    return enqueued


def clock_expired(game_id: str, version: int, seat: int) -> str:
    """The job: ``seat``'s time at ``version`` ran out; its clock policy moves for it."""
    from service.jobs.context import job_context

    context = job_context()
    game = context.games.load(game_id)
    spec = game.info.clock
    if game.version != version:
        return f"moved in time: the game is at version {game.version}"
    if waiting_for_players(game):  # queued by an older version: the claim queues it again
        return "waiting for players: the clock starts with the last claim"
    if spec is None or game.rules.is_over(game.state) or seat not in game.rules.awaited(game.state):
        return f"seat {seat} is not awaited"
    policy = BotSeat(spec.on_expiry, think_ms=0)
    command = bot_command(game.rules, game.state, seat, policy, game_id, version)
    key = f"clock-{version}-{seat}"
    outcome = submit_decision(context, game, command, seat=seat, key=key, actor="clock")
    if isinstance(outcome, str):
        return f"moved in time: {outcome}"
    return f"the clock moved for seat {seat}: version {outcome.game.version}"
