"""Child processes that die with their parent: Linux's ``PR_SET_PDEATHSIG``.

A process killed with SIGKILL cannot stop its children; they are re-parented and run on.
For the embedded Redis that is an orphan server, for ``python -m service worker`` orphan
RQ workers, schedulers (still holding the scheduler lock, enqueueing scheduled jobs) and
work horses (running a job that is also retried as abandoned). Linux can send a child a
signal when its parent dies (``prctl(PR_SET_PDEATHSIG, sig)``, through ``ctypes``: the
standard library has no binding). Two ways of asking for it:

- :func:`die_with_parent`: a ``preexec_fn`` for ``subprocess`` (a program started by exec);
- :func:`forked_children_die_with_parent`: an ``os.register_at_fork`` hook, for processes
  forked by Python code we do not own (RQ's ``WorkerPool`` forks its workers, each worker
  its scheduler and a work horse per job). Registered hooks live on in forked children, so
  one call covers the whole tree: every fork, at every level, dies with its parent.

The signal is SIGTERM, which every one of these processes answers by stopping: Redis
flushes its AOF; an RQ worker stops warm (after its current job); RQ's scheduler releases
its locks within its one-second interval; a work horse has SIGTERM's default action. The
kernel sends it when the *thread* that forked ends, so only a fork from the main thread
(which lives as long as its process) asks for it, or a thread the caller vouches for. A
parent that died between the fork and the ``prctl`` call is caught by comparing
``getppid()`` with the parent's pid. Elsewhere than Linux with glibc nothing is asked.
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
from collections.abc import Callable

PR_SET_PDEATHSIG = 1
SIGNAL = signal.SIGTERM


def _prctl() -> Callable[..., int] | None:
    try:
        prctl: Callable[..., int] = ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux/glibc
        return None
    return prctl


def die_with_parent(*, long_lived_thread: bool = False) -> Callable[[], None] | None:
    """A pre-exec hook asking Linux to SIGTERM the new program when its parent dies, so a
    killed test run or service leaves no orphan (Redis, a worker) behind. Only the main
    thread asks, or a thread that the caller says lives as long as the child (a
    supervisor's, which outlives its restarts); None where it cannot be asked."""
    if not long_lived_thread and threading.current_thread() is not threading.main_thread():
        return None
    prctl = _prctl()
    if prctl is None:
        return None

    def hook() -> None:
        prctl(PR_SET_PDEATHSIG, SIGNAL)

    return hook


class _Fork:
    """What the parent knew just before a fork (copied into the child with its memory)."""

    parent = 0
    from_main_thread = False
    prctl: Callable[..., int] | None = None
    registered = False


def _before_fork() -> None:
    _Fork.parent = os.getpid()
    _Fork.from_main_thread = threading.current_thread() is threading.main_thread()


def _after_fork_in_child() -> None:
    if _Fork.prctl is None or not _Fork.from_main_thread:
        return
    _Fork.prctl(PR_SET_PDEATHSIG, SIGNAL)
    if os.getppid() != _Fork.parent:  # the parent died before prctl: no signal will come
        os._exit(1)


def forked_children_die_with_parent() -> bool:
    """From now on every process forked here (and, the hooks being inherited, in any of
    its forked descendants) gets SIGTERM when its parent dies. Idempotent; False where
    Linux's ``prctl`` is not available."""
    if _Fork.prctl is None:
        _Fork.prctl = _prctl()
    if _Fork.prctl is None:
        return False
    if not _Fork.registered:
        os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
        _Fork.registered = True
    return True
