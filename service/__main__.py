"""``python -m service``: the real service in the foreground.

Gunicorn (gevent workers, see ``service.api.server``) on 127.0.0.1:8000 by default, on the
Redis named by ``REDIS_URL``; without one, on the embedded Redis of ``service.embedded_redis``
(data in ``TIGRIS_REDIS_DIR``, default ./var/redis), which is supervised (restarted on its
data if it dies) and stopped again on exit. A ``REDIS_URL`` that does not answer or is of
the wrong kind (a cluster named as a single server or the reverse) stops the start with a
one-line message and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys

from service.api import STORE_CHECKED
from service.api.server import GunicornServer, gunicorn_options
from service.api.worker import raise_open_files_limit
from service.config import SettingsError, StoreSettings
from service.embedded_redis import EmbeddedRedis, RedisSupervisor
from service.store.connect import check_store


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service", description=__doc__)
    parser.add_argument("--host", help="listen address (default 127.0.0.1, env TIGRIS_HOST)")
    parser.add_argument("--port", type=int, help="listen port (default 8000, env TIGRIS_PORT)")
    parser.add_argument("--workers", type=int, help="gunicorn workers (env TIGRIS_WORKERS)")
    parser.add_argument(
        "--connections",
        type=int,
        help="open connections per worker (env TIGRIS_WORKER_CONNECTIONS)",
    )
    args = parser.parse_args(argv)
    env = dict(os.environ)
    for name, value in (
        ("TIGRIS_HOST", args.host),
        ("TIGRIS_PORT", args.port),
        ("TIGRIS_WORKERS", args.workers),
        ("TIGRIS_WORKER_CONNECTIONS", args.connections),
    ):
        if value is not None:
            env[name] = str(value)

    raise_open_files_limit()  # inherited by the workers: a socket per open stream
    try:
        settings = StoreSettings.from_env()
        check_store(settings)
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
    app_config = {"REDIS_URL": os.environ["REDIS_URL"], STORE_CHECKED: True}
    try:
        GunicornServer(gunicorn_options(env), app_config).run()
    finally:
        if supervisor is not None:
            supervisor.stop()
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
