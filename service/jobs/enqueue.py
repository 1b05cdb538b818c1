"""What a game needs done in the background, and its enqueueing: a bot seat's move, a
clock's deadline, a webhook's delivery (or its retry), the next sweep and audit, the
archiving of the games past retention.

Jobs are enqueued by the dotted name of their body in ``service.jobs.tasks`` (the one
module RQ imports to run them), so nothing here imports the bodies: the modules below
``tasks`` never import it (no import cycle in ``service.jobs``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime

from rq import Queue

from service.application.bots import BotSeat
from service.application.clocks import ClockReading, read_clock
from service.application.game_service import GameService
from service.application.repository import LoadedGame
from service.jobs.queues import enqueue_once
from service.jobs.settings import JobSettings
from service.store.port import Subscription, WebhookStore

TASKS = "service.jobs.tasks"
PLAY_BOT = f"{TASKS}.play_bot"
CLOCK_EXPIRED = f"{TASKS}.clock_expired"
DELIVER_WEBHOOK = f"{TASKS}.deliver_webhook"
DELIVER_PLAYER_WEBHOOK = f"{TASKS}.deliver_player_webhook"
PROJECT_FEED = f"{TASKS}.project_feed"
SWEEP = f"{TASKS}.sweep"
AUDIT = f"{TASKS}.audit"
ARCHIVE_GAME = f"{TASKS}.archive_game"
RATE_GAME = f"{TASKS}.rate_game"
REBUILD_RATINGS = f"{TASKS}.rebuild_ratings"

JOB_TIMEOUT_MARGIN_S = 30


def waiting_for_players(game: LoadedGame) -> bool:
    """Whether ``game`` still has a seat to claim: it accepts no command yet, so no bot
    moves and no clock runs (their jobs come with the last claim, which starts it)."""
    return bool(game.info.open_seats)


# A seat that resigned ("zombie"): the simplest bot plays it at once (domain/RESIGNATION.md).
ZOMBIE = BotSeat("random", think_ms=0)


def server_seats(game: LoadedGame) -> dict[int, BotSeat]:
    """The seats of ``game`` the server plays: its bot seats, and the seats that resigned
    (each played by ``ZOMBIE``; a bot seat that resigned keeps its bot)."""
    resigned = game.rules.resigned(game.state)
    if not resigned:
        return dict(game.info.bots)
    return {**{seat: ZOMBIE for seat in resigned}, **game.info.bots}


def actor_of(game: LoadedGame, seat: int) -> str:
    """Who a server seat's writes are by: ``bot:<seat>``, or ``zombie:<seat>`` for a seat
    that resigned (not a bot seat)."""
    return f"bot:{seat}" if seat in game.info.bots else f"zombie:{seat}"


def awaited_bots(game: LoadedGame) -> list[int]:
    """The server seats (bots and resigned seats) ``game`` awaits now (none while it waits
    for players)."""
    seats = server_seats(game)
    if not seats or waiting_for_players(game) or game.rules.is_over(game.state):
        return []
    return sorted(seat for seat in game.rules.awaited(game.state) if seat in seats)


def job_id_of(game_id: str, version: int, seat: int) -> str:
    return f"bot-{game_id}-{version}-{seat}"


def bots_to_answer(game: LoadedGame, awaiting: Sequence[str]) -> list[int]:
    """The bot seats among ``awaiting`` (an open undo request's ``seat:<n>`` answerers)."""
    seats = (int(actor[5:]) for actor in awaiting if actor.startswith("seat:"))
    return sorted(seat for seat in seats if seat in server_seats(game))


def enqueue_bot_moves(
    queue: Queue, settings: JobSettings, game: LoadedGame, answering: Sequence[int] = ()
) -> int:
    """Enqueue a job for every bot seat ``game`` awaits, and for the ``answering`` bot
    seats (an undo request awaits their answer): one job per game, version and seat."""
    enqueued = 0
    bots = server_seats(game)
    for seat in sorted({*awaited_bots(game), *answering}):
        timeout = bots[seat].think_ms // 1000 + JOB_TIMEOUT_MARGIN_S
        job = enqueue_once(
            queue,
            settings,
            PLAY_BOT,
            job_id_of(game.game_id, game.version, seat),
            game.game_id,
            game.version,
            seat,
            timeout_s=timeout,
        )
        enqueued += job is not None
    return enqueued


def clock_reading(games: GameService, game: LoadedGame, now: float | None = None) -> ClockReading:
    """``game``'s clock now (it must have one): from its events' metadata."""
    spec = game.info.clock
    assert spec is not None
    metadata = [event.metadata for event in games.queries.events(game.game_id, 0, game=game)]
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
            CLOCK_EXPIRED,
            f"clock-{game.game_id}-{game.version}-{seat}",
            game.game_id,
            game.version,
            seat,
            at=datetime.fromtimestamp(deadline, UTC),
        )
        enqueued += job is not None
    return enqueued


def due(sub: Subscription) -> bool:
    """Whether an attempt at ``sub``'s next batch may be made now (no retry scheduled
    later)."""
    return sub.next_attempt_at is None or sub.next_attempt_at <= time.time()


def delivery_timeout_s(settings: JobSettings) -> int:
    return settings.webhook_timeout_s * 3 + 30


def enqueue_deliveries(
    queue: Queue,
    settings: JobSettings,
    hooks: WebhookStore,
    game: LoadedGame,
    *,
    known: int | None = None,
) -> int:
    """Enqueue a delivery for every active subscription of ``game`` that is behind it and
    not waiting for a scheduled retry. ``known``: the game's subscription count, when the
    append that moved it returned it (0: nothing to read)."""
    if known == 0:
        return 0
    enqueued = 0
    for sub in hooks.of_game(game.game_id):
        if sub.status == "active" and sub.cursor < game.version and due(sub):
            job = enqueue_once(
                queue,
                settings,
                DELIVER_WEBHOOK,
                f"hook-{sub.sub_id}-{sub.cursor}-{game.version}",
                game.game_id,
                sub.sub_id,
                timeout_s=delivery_timeout_s(settings),
            )
            enqueued += job is not None
    return enqueued


def enqueue_projection(queue: Queue, settings: JobSettings, game: LoadedGame) -> bool:
    """Enqueue the projection of ``game``'s new versions into its players' feeds (nothing
    for a game without a seat bound to or kept for a player): one job per game and version."""
    if not game.info.players and not game.info.reserved:
        return False
    job = enqueue_once(
        queue, settings, PROJECT_FEED, f"feed-{game.game_id}-{game.version}", game.game_id
    )
    return job is not None


def enqueue_player_deliveries(  # noqa: PLR0917
    queue: Queue,
    settings: JobSettings,
    hooks: WebhookStore,
    player_id: str,
    last: int,
    again: str = "",
) -> int:
    """Enqueue a delivery for every active webhook of ``player_id`` (``hooks``: the
    players' webhook store) that is behind ``last``, the feed's last entry number, and
    not waiting for a scheduled retry. ``again``: a mark that tells this enqueueing from
    an earlier one at the same point (a webhook enabled again)."""
    enqueued = 0
    for sub in hooks.of_game(player_id):
        if sub.status == "active" and sub.cursor < last and due(sub):
            job = enqueue_once(
                queue,
                settings,
                DELIVER_PLAYER_WEBHOOK,
                f"phook-{sub.sub_id}-{sub.cursor}-{last}{again}",
                player_id,
                sub.sub_id,
                timeout_s=delivery_timeout_s(settings),
            )
            enqueued += job is not None
    return enqueued


def schedule_retry(
    queue: Queue,
    settings: JobSettings,
    sub: Subscription,
    failures: int,
    at: float,
    *,
    job: str = DELIVER_WEBHOOK,
) -> bool:
    """The next attempt at ``sub``'s batch, an RQ job (``job``: a game's delivery, or a
    player's) scheduled for ``at``."""
    queued = enqueue_once(
        queue,
        settings,
        job,
        f"hook-{sub.sub_id}-{sub.cursor}-retry-{failures}-{int(at * 1000)}",
        sub.game_id,
        sub.sub_id,
        timeout_s=delivery_timeout_s(settings),
        at=datetime.fromtimestamp(at, UTC),
    )
    return queued is not None


def schedule_sweep(queue: Queue, settings: JobSettings, *, after: float | None = None) -> bool:
    """Schedule the sweep of the next slot after ``after`` (default: now); False if it was."""
    now = time.time() if after is None else after
    slot = int(now // settings.sweep_s) + 1
    at = datetime.fromtimestamp(slot * settings.sweep_s, UTC)
    job_id = f"sweep-{settings.queue}-{slot}"  # job ids are global, queues are not
    job = enqueue_once(queue, settings, SWEEP, job_id, timeout_s=600, at=at)
    return job is not None


def schedule_audit(queue: Queue, settings: JobSettings, *, after: float | None = None) -> bool:
    """Schedule the audit of the next slot after ``after`` (default: now); False if it was."""
    now = time.time() if after is None else after
    slot = int(now // settings.audit_s) + 1
    at = datetime.fromtimestamp(slot * settings.audit_s, UTC)
    job_id = f"audit-{settings.queue}-{slot}"
    return enqueue_once(queue, settings, AUDIT, job_id, timeout_s=3600, at=at) is not None


def enqueue_archiving(
    queue: Queue, settings: JobSettings, games: GameService, limit: int, now: float | None = None
) -> int:
    """An ``archive_game`` job for each game due (at most ``limit``), one per game and
    sweep interval (a failed one is tried again by a later sweep)."""
    archiver = games.archiver
    if archiver is None:
        return 0
    slot = int((time.time() if now is None else now) // settings.sweep_s)
    enqueued = 0
    for game_id in archiver.due(limit):
        job = enqueue_once(
            queue, settings, ARCHIVE_GAME, f"archive-{game_id}-{slot}", game_id, timeout_s=600
        )
        enqueued += job is not None
    return enqueued


def rated_game_over(game: LoadedGame) -> bool:
    """Whether ``game`` is rated and over: its players' ratings are to count it."""
    return game.info.rated and game.rules.is_over(game.state)


def enqueue_rating(
    queue: Queue,
    settings: JobSettings,
    game: LoadedGame,
    at: datetime | None = None,
    *,
    again: str = "",
) -> bool:
    """The ``rate_game`` job of a rated game that is over (one per game; ``at``: a later
    try, while a rebuild held its kind; ``again``: another try's name, the sweep's). False:
    not rated and over, or already queued."""
    if not rated_game_over(game):
        return False
    suffix = "" if at is None else f"-{int(at.timestamp() * 1000)}"
    job_id = f"rate-{game.game_id}{suffix}" + (f"-{again}" if again else "")
    return enqueue_once(queue, settings, RATE_GAME, job_id, game.game_id, at=at) is not None


def enqueue_ratings_rebuild(queue: Queue, settings: JobSettings, kind: str, why: str) -> bool:
    """A ``rebuild_ratings`` job for ``kind`` (one per ``why``: the game found out of
    order)."""
    job_id = f"ratings-rebuild-{kind}-{why}"
    return enqueue_once(queue, settings, REBUILD_RATINGS, job_id, kind, timeout_s=3600) is not None
