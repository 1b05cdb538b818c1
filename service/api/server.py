"""Production serving: gunicorn with the ``gthread`` worker.

Why gthread: every open server-sent-event stream holds one thread that sleeps in a
blocking Redis read, so the server needs many cheap threads rather than a few busy
processes; gthread gives each worker a thread pool (and keep-alive), needs nothing beyond
gunicorn itself, and leaves the code plain synchronous Flask. gevent would also do but is
not among the dependencies. With 2 workers x 256 threads, 200 open streams still leave
threads free for commands on a 2-core machine (tests/service/api/test_server.py checks it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from flask import Flask
from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def gunicorn_options(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Gunicorn settings, overridable by ``TIGRIS_HOST``, ``TIGRIS_PORT``,
    ``TIGRIS_WORKERS`` and ``TIGRIS_THREADS``."""
    env = os.environ if env is None else env
    host = env.get("TIGRIS_HOST", DEFAULT_HOST)
    port = int(env.get("TIGRIS_PORT", str(DEFAULT_PORT)))
    return {
        "bind": f"{host}:{port}",
        "worker_class": "gthread",
        "workers": int(env.get("TIGRIS_WORKERS", str(min(os.cpu_count() or 1, 4)))),
        "threads": int(env.get("TIGRIS_THREADS", "256")),
        "worker_connections": 2000,
        "keepalive": 5,
        "timeout": 30,  # the heartbeat runs in the main thread: long streams do not trip it
        "graceful_timeout": 10,
        "backlog": 2048,
        "limit_request_line": 8190,
        "accesslog": env.get("TIGRIS_ACCESS_LOG") or None,
        "errorlog": "-",
        "loglevel": env.get("TIGRIS_LOG_LEVEL", "info"),
        "proc_name": "tigris-rules",
    }


class GunicornServer(BaseApplication):  # type: ignore[misc]  # gunicorn is untyped
    """Gunicorn in this process; each worker builds its own app (own Redis connections)."""

    def __init__(self, options: Mapping[str, Any], config: Mapping[str, Any] | None = None):
        self._options = dict(options)
        self._app_config = dict(config or {})
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            if value is not None and key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self) -> Flask:
        from service.api import create_app

        return create_app(self._app_config)
