"""One representation, one validator, over a real shared cache: Debian's Squid as a reverse
proxy (accel mode, RFC 9111) on a loopback port in front of the live service. Whatever it
stores, revalidates or answers with a 304, a spectator never gets a seat's body and a seat
never gets another viewer's (``Vary: Authorization``, ``Cache-Control: private, no-cache``
and per-viewer ETags: ``service.api.http``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.service.api.conftest import LiveServer, free_port

SQUID = shutil.which("squid") or next(
    (p for p in ("/usr/sbin/squid", "/sbin/squid") if os.access(p, os.X_OK)), None
)

# The shared cache as an operator would set it in front of the service: memory only, every
# response it may store kept fresh for a minute by heuristic when the origin says nothing
# (so a response it must not reuse would be reused at once, not only after revalidation).
# ``login=PASSTHRU``: the client's Authorization goes on to the service (Squid drops it else).
SQUID_CONF = """\
http_port 127.0.0.1:{port} accel defaultsite=127.0.0.1:{origin_port} no-vhost
cache_peer 127.0.0.1 parent {origin_port} 0 no-query no-digest originserver login=PASSTHRU \
  name=origin
cache_peer_access origin allow all
http_access allow all
cache_mem 16 MB
maximum_object_size_in_memory 1 MB
refresh_pattern . 1 100% 1
pid_filename {dir}/squid.pid
access_log stdio:{dir}/access.log squid
cache_log {dir}/cache.log
cache_store_log none
coredump_dir {dir}
shutdown_lifetime 0 seconds
via off
"""


@dataclass
class Squid:
    url: str
    log: Path


@pytest.fixture(scope="module")
def squid(live_server: LiveServer) -> Iterator[Squid]:
    if SQUID is None:
        pytest.skip("squid is not installed (scripts/install-test-deps.sh installs it as root)")
    # Squid started as root drops to its own user, which must reach and write its files:
    # a directory of its own under the system's temporary directory, open to it.
    workdir = Path(tempfile.mkdtemp(prefix="tigris-squid-"))
    workdir.chmod(0o777)
    port = free_port()
    origin_port = int(live_server.url.rsplit(":", 1)[1])
    conf = workdir / "squid.conf"
    conf.write_text(SQUID_CONF.format(port=port, origin_port=origin_port, dir=workdir))
    process = subprocess.Popen(
        [SQUID, "-N", "-f", str(conf)],
        stdout=subprocess.DEVNULL,
        stderr=(workdir / "stderr.log").open("wb"),
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if requests.get(f"{url}/healthz", timeout=2).status_code == 200:
                break
        except requests.RequestException:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            log = (workdir / "stderr.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"squid did not start:\n{log}")
        time.sleep(0.2)
    try:
        yield Squid(url, workdir / "access.log")
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(workdir, ignore_errors=True)


def _create(live_server: LiveServer) -> tuple[str, list[str]]:
    created = requests.post(
        f"{live_server.url}/games", json={"kind": "cards", "seats": ["Ann", "Bob"]}, timeout=10
    )
    assert created.status_code == 201
    body = created.json()
    return body["game"]["game_id"], [seat["token"] for seat in body["seats"]]


def _as(token: str | None, **extra: str) -> dict[str, str]:
    headers = {"Accept-Encoding": "gzip", **extra}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _viewer(response: requests.Response) -> Any:
    assert response.status_code == 200, (response.status_code, response.text[:300])
    return response.json()["viewer"]


def test_a_shared_cache_never_serves_one_viewers_state_to_another(
    live_server: LiveServer, squid: Squid
) -> None:
    """Given Squid in front of the service; when a spectator, then seat 0, then seat 1 read
    the same state (at the same version) through it, each in turn and again, each gets the
    body of its own view: never the one stored for the viewer before it."""
    game_id, tokens = _create(live_server)
    path = f"{squid.url}/games/{game_id}/state"
    viewers = [(None, "spectator"), (None, "spectator"), (tokens[0], "seat:0")]
    viewers += [(tokens[1], "seat:1"), (tokens[0], "seat:0"), (None, "spectator")]
    answers = [requests.get(path, headers=_as(token), timeout=10) for token, _ in viewers]
    assert [_viewer(got) for got in answers] == [viewer for _, viewer in viewers]
    # and every answer tells caches why: it varies with the token, and is no shared one's
    for got in answers:
        assert "Authorization" in got.headers["Vary"]
        assert "Accept-Encoding" in got.headers["Vary"]
        assert got.headers["Cache-Control"] == "private, no-cache"


def test_another_viewers_etag_through_a_shared_cache_is_no_304(
    live_server: LiveServer, squid: Squid
) -> None:
    """Given the spectator's ETag, read through Squid; when seat 0 sends it in
    If-None-Match through Squid, it gets its own body (200), not a 304 that would have it
    keep the spectator's; with its own ETag it gets a 304, and the spectator still gets the
    spectator's body after that."""
    game_id, tokens = _create(live_server)
    path = f"{squid.url}/games/{game_id}/state"
    spectator = requests.get(path, headers=_as(None), timeout=10)
    assert _viewer(spectator) == "spectator"
    crossed = requests.get(
        path, headers=_as(tokens[0], **{"If-None-Match": spectator.headers["ETag"]}), timeout=10
    )
    assert crossed.status_code == 200
    assert _viewer(crossed) == "seat:0"
    own = requests.get(
        path, headers=_as(tokens[0], **{"If-None-Match": crossed.headers["ETag"]}), timeout=10
    )
    assert own.status_code == 304 and own.headers["ETag"] == crossed.headers["ETag"]
    assert _viewer(requests.get(path, headers=_as(None), timeout=10)) == "spectator"


def test_a_shared_cache_never_serves_one_languages_words_to_another(
    live_server: LiveServer, squid: Squid
) -> None:
    """Given Squid in front of the service; when a spectator reads the event log in German,
    English, Hungarian, then German again through it, and then asks for English with the
    German ETag, each answer is in the language asked for (``Content-Language`` and the
    words), never the one stored for the request before it, and the German ETag brings no
    304 for English."""
    game_id, _ = _create(live_server)
    path = f"{squid.url}/games/{game_id}/events"
    asked = ["de", "en", "hu", "de", "it", "en"]
    answers = [
        requests.get(path, headers=_as(None, **{"Accept-Language": language}), timeout=10)
        for language in asked
    ]
    assert [got.headers["Content-Language"] for got in answers] == asked
    started = [
        next(e for e in got.json()["items"] if e["type"] == "cards.GameStarted")["description"]
        for got in answers
    ]
    assert started[0] == started[3] != started[1] == started[5]
    assert len({started[0], started[1], started[2], started[4]}) == 4
    for got in answers:
        assert "Accept-Language" in got.headers["Vary"]
        assert got.headers["Cache-Control"] == "private, no-cache"
    crossed = requests.get(
        path,
        headers=_as(None, **{"Accept-Language": "en", "If-None-Match": answers[0].headers["ETag"]}),
        timeout=10,
    )
    assert crossed.status_code == 200 and crossed.headers["Content-Language"] == "en"
