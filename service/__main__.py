"""``python -m service``: the real service in the foreground.

Gunicorn (gevent workers, see ``service.api.server``) on 127.0.0.1:8000 by default, on the
Redis named by ``REDIS_URL``; without one, on the embedded Redis of ``service.embedded_redis``
(data in ``TIGRIS_REDIS_DIR``, default ./var/redis), which is stopped again on exit.
"""

from __future__ import annotations

import argparse
import os
import sys

from service.api.server import GunicornServer, gunicorn_options
from service.api.worker import raise_open_files_limit
from service.config import StoreSettings
from service.embedded_redis import EmbeddedRedis


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
    settings = StoreSettings.from_env()
    server: EmbeddedRedis | None = None
    if not settings.redis_url:
        server = EmbeddedRedis(
            settings.redis_dir, binary=settings.redis_server, appendfsync=settings.appendfsync
        ).start()
        # The workers (forked later) find the Redis through the environment.
        os.environ["REDIS_URL"] = server.url
        print(f"embedded Redis at {server.url}", file=sys.stderr, flush=True)
    try:
        GunicornServer(gunicorn_options(env), {"REDIS_URL": os.environ["REDIS_URL"]}).run()
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
