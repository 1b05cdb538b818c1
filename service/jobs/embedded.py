"""The worker beside the API: ``python -m service`` on the embedded Redis also runs
``python -m service worker`` as a child process, restarts it if it dies, and stops it (warm
shutdown: a job in progress finishes, up to a time limit) when the API stops."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping

from service.lifeline import die_with_parent

STOP_TIMEOUT_S = 30.0
RESTART_BACKOFF_MAX_S = 5.0


class WorkerProcess:
    """``python -m service worker`` as a supervised child process."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = dict(env)
        self._process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="rq-supervisor", daemon=True)
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def start(self) -> WorkerProcess:
        self._spawn()
        self._thread.start()
        return self

    def _spawn(self) -> None:
        with self._lock:
            if self._stopping.is_set():
                return
            self._process = subprocess.Popen(
                [sys.executable, "-m", "service", "worker"],
                env=self._env,
                preexec_fn=die_with_parent(long_lived_thread=True),  # noqa: PLW1509
                start_new_session=True,  # its own process group: stopped (or killed) as one
            )

    def _watch(self) -> None:
        backoff = 0.1
        while not self._stopping.wait(0.5):
            process = self._process
            if process is None or process.poll() is None:
                backoff = 0.1
                continue
            print(
                f"python -m service: the RQ worker exited ({process.returncode}); restarting",
                file=sys.stderr,
                flush=True,
            )
            if self._stopping.wait(backoff):
                return
            backoff = min(backoff * 2, RESTART_BACKOFF_MAX_S)
            self._spawn()

    def stop(self) -> None:
        """SIGTERM to the pool (RQ's warm shutdown), then SIGKILL to its whole process group
        after the time limit."""
        self._stopping.set()
        with self._lock:
            process = self._process
        if process is None or process.poll() is not None:
            return
        try:
            process.send_signal(signal.SIGTERM)  # the pool stops its workers (warm)
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        except ProcessLookupError:
            pass
