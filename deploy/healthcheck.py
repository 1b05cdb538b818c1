"""Health checks of the two container roles, for the image's ``HEALTHCHECK``, the compose file
and the Kubernetes worker probe (the API's Kubernetes probes are plain HTTP probes):

    python healthcheck.py api      GET /healthz of the API in this container answers 200
    python healthcheck.py worker   an RQ worker of this host is registered on the queue Redis

Exit status 0 when healthy, 1 when not (with the reason on stderr).

``api`` asks ``TIGRIS_HOST``:``TIGRIS_PORT`` (defaults 127.0.0.1:8000; a wildcard listen
address is asked on loopback). It checks liveness, not readiness: a Redis outage must not get
every API container restarted, since restarting cannot fix it (``/readyz`` tells a balancer).

``worker`` looks in ``RQ_REDIS_URL`` (default ``REDIS_URL``) for an RQ worker whose hostname is
this container's. RQ keeps a worker's key only while its heartbeats come, so a hung or dead
worker process stops counting once its key expires.
"""

from __future__ import annotations

import os
import socket
import sys
import urllib.error
import urllib.request

TIMEOUT_S = 3.0
_WILDCARDS = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1", "[::]": "::1"}


def api_url() -> str:
    host = os.environ.get("TIGRIS_HOST", "127.0.0.1").strip()
    host = _WILDCARDS.get(host, host)
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    port = os.environ.get("TIGRIS_PORT", "8000").strip() or "8000"
    return f"http://{host}:{port}/healthz"


def check_api() -> str | None:
    """None when ``/healthz`` answers 200, else why not."""
    url = api_url()
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
            status: int = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    except (OSError, ValueError) as error:
        return f"{url}: {error}"
    return None if status == 200 else f"{url} answered {status}"


def check_worker() -> str | None:
    """None when an RQ worker of this host is registered, else why not."""
    import redis
    from rq import Worker

    url = os.environ.get("RQ_REDIS_URL") or os.environ.get("REDIS_URL")
    if not url:
        return "neither RQ_REDIS_URL nor REDIS_URL is set"
    hostname = socket.gethostname()
    try:
        with redis.Redis.from_url(
            url, socket_connect_timeout=TIMEOUT_S, socket_timeout=TIMEOUT_S
        ) as connection:
            workers = Worker.all(connection=connection)
    except (redis.RedisError, OSError) as error:
        return f"the queue Redis is not reachable: {error}"
    if any(worker.hostname == hostname for worker in workers):
        return None
    return f"no RQ worker of host {hostname!r} is registered ({len(workers)} of other hosts)"


CHECKS = {"api": check_api, "worker": check_worker}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in CHECKS:
        print(f"usage: healthcheck.py {{{','.join(CHECKS)}}}", file=sys.stderr)
        return 2
    problem = CHECKS[argv[0]]()
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
