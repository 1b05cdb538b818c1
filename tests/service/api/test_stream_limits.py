"""The per-process stream accounting (``service.api.streams``): limits per client address,
per game and in all, releases that count once, and the slots bounding batch building."""

from __future__ import annotations

import threading
import time

import pytest

from service.api.problems import ApiProblem
from service.api.settings import ApiSettings
from service.api.streams import StreamGate, WorkSlots


def _gate(**limits: int) -> StreamGate:
    return StreamGate(ApiSettings(**limits))  # type: ignore[arg-type]


def test_a_client_over_its_limit_gets_429_and_others_do_not() -> None:
    gate = _gate(streams_per_client=2)
    gate.enter("10.0.0.1", "g1")
    release = gate.enter("10.0.0.1", "g2")
    with pytest.raises(ApiProblem) as refused:
        gate.enter("10.0.0.1", "g3")
    assert refused.value.status == 429
    assert refused.value.slug == "too-many-streams"
    assert refused.value.headers["Retry-After"] == "30"
    gate.enter("10.0.0.2", "g3")  # another client is not affected
    # When one of the first client's streams ends (twice: the release counts once)
    release()
    release()
    gate.enter("10.0.0.1", "g3")
    assert gate.open_streams == 3


def test_a_game_over_its_limit_gets_429() -> None:
    gate = _gate(streams_per_game=2)
    gate.enter("a", "g1")
    gate.enter("b", "g1")
    with pytest.raises(ApiProblem) as refused:
        gate.enter("c", "g1")
    assert refused.value.status == 429
    gate.enter("c", "g2")


def test_a_full_process_answers_503() -> None:
    gate = _gate(max_streams=2)
    gate.enter("a", "g1")
    gate.enter("b", "g2")
    with pytest.raises(ApiProblem) as refused:
        gate.enter("c", "g3")
    assert refused.value.status == 503
    assert refused.value.headers["Retry-After"]


def test_work_slots_never_admit_more_than_their_size() -> None:
    slots = WorkSlots(2)
    inside = 0
    most = 0
    lock = threading.Lock()

    def work() -> None:
        nonlocal inside, most
        for _ in range(5):
            with slots:
                with lock:
                    inside += 1
                    most = max(most, inside)
                time.sleep(0.002)
                with lock:
                    inside -= 1

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert most == 2
    assert inside == 0
