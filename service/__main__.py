"""``python -m service [api|worker|rebuild-index]``: the service's processes in the foreground.

- ``api`` (the default with no subcommand): gunicorn (gevent workers, see
  ``service.api.server``) on 127.0.0.1:8000 by default, on the Redis named by ``REDIS_URL``;
  without one, on the embedded Redis of ``service.embedded_redis`` (data in
  ``TIGRIS_REDIS_DIR``, default ./var/redis), which is supervised (restarted on its data if
  it dies) and stopped again on exit. A ``REDIS_URL`` that does not answer or is of the
  wrong kind (a cluster named as a single server or the reverse) stops the start with a
  one-line message and exit status 2.
- ``worker``: RQ workers (with RQ's scheduler) for the service's background jobs, on
  ``RQ_REDIS_URL`` (default ``REDIS_URL``; without either, the embedded Redis), see
  ``service.jobs.worker``. ``api`` on the embedded Redis runs one beside it (a child
  process, restarted if it dies, stopped with the API; ``TIGRIS_EMBEDDED_WORKER=0``: not).
- ``rebuild-index``: recreate the game listing indexes from the games' info hashes
  (``RedisEventStore.rebuild_index``), then the players' game lists from the games with
  players (``PlayerGames.rebuild``), on the same Redis the API would use.
- ``ratings rebuild [KIND ...]``: drop the ratings read model of each kind (default: every
  kind on offer) and count every rated game that is over again, from its events, in the
  projection's order (``service.application.ratings``); archived games are read from the
  archive tier when one is configured.
- ``verify RECORD``: check a game record (``GET /games/{id}/record``) offline
  (``service.verify``).

Before ``api``, ``worker`` or ``rebuild-index`` starts anything, every setting is checked
(``service.settings``, the table in ``docs/configuration.md``): bad ones stop the start
with one line each on stderr, naming the variable, and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from service.api import STORE_CHECKED
from service.api.server import (
    GunicornServer,
    ServerSettings,
    gunicorn_options,
    prepare_metrics_dir,
)
from service.api.worker import raise_open_files_limit
from service.config import SettingsError, StoreSettings, redact_url
from service.embedded_redis import EmbeddedRedis, RedisSupervisor
from service.jobs.embedded import WorkerProcess
from service.jobs.settings import JobSettings
from service.settings import problems
from service.store.connect import StoreConnection, check_store, connect


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m service",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _api_options(parser)
    commands = parser.add_subparsers(
        dest="command", metavar="{api,worker,rebuild-index,ratings,verify}"
    )
    _api_options(commands.add_parser("api", help="serve the HTTP API (default)"))
    commands.add_parser("worker", help="run RQ workers")
    commands.add_parser("rebuild-index", help="recreate the game listing indexes")
    ratings = commands.add_parser("ratings", help="the ratings read model")
    ratings.add_argument("action", choices=["rebuild"], help="rebuild it from the rated games")
    ratings.add_argument("kinds", nargs="*", help="the kinds to rebuild (default: all)")
    verify = commands.add_parser("verify", help="check a game record offline")
    verify.add_argument("record", help="the record's file (JSON Lines), or - for stdin")
    verify.add_argument("--head", help="the last hash the record must end with")
    return parser


def _api_options(parser: argparse.ArgumentParser) -> None:
    """The API's options, on the main parser (no subcommand) and on ``api``. Unset options
    stay absent (SUPPRESS), so ``--port 9 api`` is not reset by the subparser's defaults."""
    default = argparse.SUPPRESS
    parser.add_argument(
        "--host", default=default, help="listen address (default 127.0.0.1, env TIGRIS_HOST)"
    )
    parser.add_argument(
        "--port", type=int, default=default, help="listen port (default 8000, env TIGRIS_PORT)"
    )
    parser.add_argument(
        "--workers", type=int, default=default, help="gunicorn workers (env TIGRIS_WORKERS)"
    )
    parser.add_argument(
        "--connections",
        type=int,
        default=default,
        help="open connections per worker (env TIGRIS_WORKER_CONNECTIONS)",
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command != "verify":
        bad = problems(values={ServerSettings: _api_values(args)})
        if bad:
            for line in bad:
                print(line, file=sys.stderr, flush=True)
            return 2
    if args.command == "worker":
        return run_worker()
    if args.command == "rebuild-index":
        return rebuild_index()
    if args.command == "ratings":
        return rebuild_ratings(args.kinds)
    if args.command == "verify":
        from service.verify import run

        return run(args.record, args.head)
    return serve_api(args)


def _api_values(args: argparse.Namespace) -> dict[str, Any]:
    """The command line's API options, as ``ServerSettings`` fields (given ones only)."""
    return {
        field: getattr(args, option)
        for field, option in (
            ("host", "host"),
            ("port", "port"),
            ("workers", "workers"),
            ("worker_connections", "connections"),
        )
        if getattr(args, option, None) is not None
    }


def rebuild_index() -> int:
    """Rebuild the listing indexes; with no ``REDIS_URL``, on the embedded Redis (attached to
    if the service is running on that data directory, else started and stopped again)."""
    connection = connect()
    try:
        count = connection.events.rebuild_index()
        entries = rebuild_player_lists(connection)
    finally:
        connection.close()
    print(f"indexed {count} games ({entries} player entries)", flush=True)
    return 0


def rebuild_ratings(kinds: list[str]) -> int:
    """``ratings rebuild``: each kind's ratings dropped and counted again from its rated
    games (with no ``REDIS_URL``, on the embedded Redis, as ``rebuild-index``)."""
    from domain.games import all_games
    from service.application.game_service import build_service

    offered = sorted(all_games())
    unknown = [kind for kind in kinds if kind not in offered]
    if unknown:
        print(f"unknown kinds {unknown}; offered: {offered}", file=sys.stderr, flush=True)
        return 2
    service, connection = build_service()
    try:
        for kind in kinds or offered:
            counted = service.ratings.rebuild(kind)
            if counted < 0:
                print(f"{kind}: another rebuild is running", file=sys.stderr, flush=True)
                return 1
            print(f"{kind}: {counted} rated games counted", flush=True)
    finally:
        connection.close()
    return 0


def rebuild_player_lists(connection: StoreConnection, page: int = 200) -> int:
    """The players' game lists written again from the games that have players (after the
    game index is whole again: it is how the games are found)."""
    from service.application.game_service import GameService
    from service.store.redis_players import RedisPlayerStore

    settings = StoreSettings.from_env()
    players = RedisPlayerStore(connection.client, prefix=settings.key_prefix)
    service = GameService(connection.events, connection.snapshots, players=players)
    entries, cursor = 0, None
    while True:
        ids, cursor = connection.events.list_game_ids(cursor, page)
        infos = connection.events.infos(ids)
        bound = [r.game_id for r in infos if r is not None and r.fields.get("players")]
        games = (service.repository.get(game_id) for game_id in bound)
        entries += service.player_games.rebuild(games)
        if cursor is None:
            return entries


def run_worker() -> int:
    """The RQ workers; with neither ``RQ_REDIS_URL`` nor ``REDIS_URL``, on the embedded Redis
    (attached to if the API runs on that data directory, else started and stopped again)."""
    from service.jobs.worker import run_workers

    try:
        jobs = JobSettings.from_env()
        settings = StoreSettings.from_env()
        check_store(settings)
    except SettingsError as exc:
        print(f"python -m service worker: {exc}", file=sys.stderr, flush=True)
        return 2
    if settings.redis_url or jobs.rq_redis_url:
        return run_workers(jobs)
    with EmbeddedRedis(
        settings.redis_dir, binary=settings.redis_server, appendfsync=settings.appendfsync
    ) as server:
        os.environ["REDIS_URL"] = server.url
        return run_workers()


def serve_api(args: argparse.Namespace) -> int:
    raise_open_files_limit()  # inherited by the workers: a socket per open stream
    try:
        settings = StoreSettings.from_env()
        check_store(settings)
        jobs = JobSettings.from_env()
    except SettingsError as exc:
        print(f"python -m service: {exc}", file=sys.stderr, flush=True)
        return 2
    server: EmbeddedRedis | None = None
    supervisor: RedisSupervisor | None = None
    if not settings.redis_url:
        server = EmbeddedRedis(
            settings.redis_dir, binary=settings.redis_server, appendfsync=settings.appendfsync
        ).start()
        # The workers (forked later) find the Redis through the environment.
        os.environ["REDIS_URL"] = server.url
        print(f"embedded Redis at {server.url}", file=sys.stderr, flush=True)
        if server.owned:  # else another process started it and supervises it
            supervisor = RedisSupervisor(server).start()
    app_config = {
        "REDIS_URL": server.url if server is not None else settings.redis_url,
        STORE_CHECKED: True,
    }
    remove_metrics_dir = prepare_metrics_dir()
    worker = _embedded_worker(server, jobs)
    options = gunicorn_options(**_api_values(args))
    print(where_to_go(options["bind"], settings), flush=True)
    try:
        GunicornServer(options, app_config).run()
    finally:
        if worker is not None:
            worker.stop()
        remove_metrics_dir()
        if supervisor is not None:
            supervisor.stop()
        if server is not None:
            server.stop()
    return 0


def where_to_go(bind: str, settings: StoreSettings) -> str:
    """The lines the run command prints: where to play, read and call, where the data is
    and how to stop."""
    host, _, port = bind.rpartition(":")
    if host in ("0.0.0.0", "::", "[::]", ""):  # every interface: this machine's loopback works
        host = "127.0.0.1"
    base = f"http://{host}:{port}"
    data = (
        f"Redis at {redact_url(settings.redis_url)}"
        if settings.redis_url
        else f"{settings.redis_dir.resolve()} (embedded Redis)"
    )
    return "\n".join(
        (
            "Tigris & Euphrates rules service",
            f"  play in the browser:  {base}/play/",
            f"  API documentation:    {base}/docs/",
            f"  API:                  {base}/games  (contract: {base}/openapi.yaml)",
            f"  data:                 {data}",
            "  stop:                 Ctrl+C",
        )
    )


def _embedded_worker(server: EmbeddedRedis | None, jobs: JobSettings) -> WorkerProcess | None:
    """On the embedded Redis, one ``python -m service worker`` beside the API."""
    if server is None or not jobs.embedded_worker:
        return None
    env = {**os.environ, "REDIS_URL": server.url, "TIGRIS_RQ_WORKERS": "1"}
    worker = WorkerProcess(env).start()
    print(f"RQ worker started (pid {worker.pid})", file=sys.stderr, flush=True)
    return worker


if __name__ == "__main__":
    sys.exit(main())
