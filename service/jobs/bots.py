"""Bot seats' moves as jobs.

Whenever a game awaits a seat that a bot plays, a job ``play_bot(game_id, version, seat)``
computes the bot's command from **that seat's view** (``rules.view(state, seat)``: the bot
samples what it cannot see, see ``domain.bots``) and submits it through the application
service as that seat, with the version as the expected one and an idempotency key derived
from game, version and seat. So duplicate jobs, two workers, or a retry after a worker died
mid-job, all yield at most one move per decision: the first append wins, and any other
attempt finds the key used (the same move: replayed), or the game moved on (a version
conflict, or a different move under the same key): nothing to do.

No job is enqueued for a game still waiting for players (a seat to claim: it accepts no
command); the last claim, which starts the game, enqueues the first. Jobs are enqueued
right after each append that leaves a bot awaited (``enqueue_bot_moves``, by the
application's write observer ``service.jobs.triggers``, whoever appended: a request or a
bot job itself, so bot-only games play to the end on the workers),
and by the periodic sweep (``service.jobs.sweep``), which re-enqueues what a process that
died between an append and its enqueue left undone.

A bot seat also answers the undo requests that await it: it approves them (a server bot
has no stake in a misclick), as actor ``bot:<seat>`` answering for its seat. The same job
does it, enqueued by the request (``bots_to_answer``), or, when the bot is to move, instead
of the move: an open request would lapse under the bot's next move. A request is open only
while nothing but undo events followed it, so one read of the last event tells the job
whether to look.
"""

from __future__ import annotations

import hashlib
import logging
import time
from typing import Any

from domain.bots import Budget, choose_command
from domain.common.protocol import GameRules
from service.application.bots import BotSeat
from service.application.commands import CommandOutcome
from service.application.game_service import GameService
from service.application.mapper import CommandMeta
from service.application.repository import LoadedGame
from service.errors import ConcurrencyError, IdempotencyConflict, UndoConflict
from service.events import UndoAnswered, UndoRequested
from service.jobs.context import JobContext, job_context
from service.jobs.enqueue import (
    JOB_TIMEOUT_MARGIN_S,
    actor_of,
    awaited_bots,
    bots_to_answer,
    enqueue_bot_moves,
    job_id_of,
    server_seats,
    waiting_for_players,
)

__all__ = [
    "JOB_TIMEOUT_MARGIN_S",
    "awaited_bots",
    "bots_to_answer",
    "enqueue_bot_moves",
    "job_id_of",
    "play",
    "play_bot",
    "waiting_for_players",
]

log = logging.getLogger("tigris.jobs.bots")


def bot_seed(game_id: str, version: int, seat: int) -> int:
    """The bot's own seed for one decision: from what the decision is, never the game's seed."""
    digest = hashlib.sha256(f"bot:{game_id}:{version}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def bot_budget(rules: GameRules[Any, Any, Any], bot: BotSeat) -> Budget:
    """How long ``bot`` searches: a playout count for its think time (at the game's
    ``playouts_per_ms``, its engine's rate on one core, so a choice does not depend on how
    busy the machine is), capped by a deadline (twice the think time, at least half a second
    more): 1 s for the default 500 ms."""
    think_s = bot.think_ms / 1000
    stop_at = time.monotonic() + max(2 * think_s, think_s + 0.5)
    playouts = max(1, round(bot.think_ms * rules.playouts_per_ms))
    return Budget(playouts=playouts, deadline=lambda: time.monotonic() >= stop_at)


def bot_command(  # noqa: PLR0917 (one decision: where, who, with what)
    rules: GameRules[Any, Any, Any],
    state: Any,
    seat: int,
    bot: BotSeat,
    game_id: str,
    version: int,
) -> Any:
    """The command ``bot`` chooses for ``seat`` in ``state`` (a game's, at ``version``),
    from the seat's view only: the full state goes no further than ``rules.view``."""
    view = rules.view(state, seat)
    return choose_command(
        bot.bot,
        rules,
        view,
        seat=seat,
        seed=bot_seed(game_id, version, seat),
        budget=bot_budget(rules, bot),
    )


def idempotency_key_of(version: int, seat: int) -> str:
    return f"bot-{version}-{seat}"


def play_bot(game_id: str, version: int, seat: int) -> str:
    """The old dotted name of the job ``service.jobs.tasks.play_bot``: jobs queued under
    it before the job bodies moved there still run."""
    return play(job_context(), game_id, version, seat)


def play(context: JobContext, game_id: str, version: int, seat: int) -> str:
    """The bot move job: if ``game_id`` is still at ``version`` and awaits the bot of
    ``seat``, make its move. Returns what happened (kept as the job's result)."""
    game = context.games.repository.get(game_id)
    if game.version != version:
        return f"moved on: the game is at version {game.version}"
    if waiting_for_players(game):  # queued by an older version: the claim queues it again
        return "waiting for players: no move before the last seat is claimed"
    request_id = undo_awaiting(context.games, game, seat)
    if request_id is not None:
        return approve_undo(context, game, request_id, seat)
    if seat not in awaited_bots(game):
        return f"seat {seat} is not an awaited bot seat"
    bot = server_seats(game)[seat]  # a bot seat's bot, or a resigned seat's ZOMBIE
    command = bot_command(game.rules, game.state, seat, bot, game_id, game.version)
    outcome = submit_decision(
        context,
        game,
        command,
        seat=seat,
        key=idempotency_key_of(version, seat),
        actor=actor_of(game, seat),
    )
    if isinstance(outcome, str):  # another attempt at this decision won (a worker, a retry)
        return f"already decided: {outcome}"
    if outcome.replayed:
        return f"replayed: the move was made at version {outcome.game.version}"
    return f"moved to version {outcome.game.version}"


def submit_decision(
    context: JobContext, game: LoadedGame, command: Any, *, seat: int, key: str, actor: str
) -> CommandOutcome | str:
    """A job's ``command`` for ``seat`` of ``game`` (decided at its version), submitted once
    under the idempotency key ``key`` as ``actor`` (the game's background work follows the
    append: ``service.jobs.triggers``).
    Returns the outcome, or why another attempt won (the game moved on, the key was used)."""
    meta = CommandMeta.for_actor(actor, seat, command_id=f"{game.game_id}-{key}")
    try:
        outcome = context.games.commands.handle(
            game.game_id, command, meta=meta, expected_version=game.version, idempotency_key=key
        )
    except (ConcurrencyError, IdempotencyConflict) as exc:
        return type(exc).__name__
    return outcome


def undo_awaiting(games: GameService, game: LoadedGame, seat: int) -> str | None:
    """The id of ``game``'s open undo request that awaits the answer of bot ``seat``, if any."""
    if seat not in server_seats(game) or game.version <= game.info.start_version:
        return None
    last = games.queries.events(game.game_id, game.version - 1, 1, game=game)
    if not last or not isinstance(last[-1].event, UndoRequested | UndoAnswered):
        return None  # any other event closes a request: none is open
    _, records = games.undo.requests(game.game_id)
    for record in records:
        if record.status == "open" and seat in bots_to_answer(
            game, record.awaiting(len(game.info.seat_names))
        ):
            return record.request_id
    return None


def approve_undo(context: JobContext, game: LoadedGame, request_id: str, seat: int) -> str:
    """Bot ``seat`` approves undo request ``request_id`` of ``game`` (at its version)."""
    meta = CommandMeta.for_actor(
        actor_of(game, seat), seat, command_id=f"{game.game_id}-undo-{request_id}-{seat}"
    )
    try:
        outcome = context.games.undo.answer_undo(
            game.game_id, request_id, True, meta=meta, expected_version=game.version
        )
    except (ConcurrencyError, UndoConflict) as exc:
        return f"already answered or moved on: {type(exc).__name__}"
    # Other bots' answers, if the request still awaits them, follow the append.
    return f"approved undo request {request_id}: {outcome.record.status}"
