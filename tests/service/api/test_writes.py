"""A request's write reaches the application's write observers through the append itself:
the views call no after-write hook (``service.application.observer``)."""

from __future__ import annotations

from flask import Flask

from service.api.context import EXTENSION, Services
from service.application.writes import Write
from tests.service.api.conftest import Api


class Recorder:
    def __init__(self) -> None:
        self.writes: list[Write] = []

    def appended(self, write: Write) -> None:
        self.writes.append(write)


def test_a_request_write_is_told_once_and_a_refused_or_replayed_one_not(
    app: Flask, api: Api
) -> None:
    # given an app whose application has one more write observer
    recorder = Recorder()
    found: Services = app.extensions[EXTENSION]
    found.games.writes.add(recorder)
    # when a game is created, then its creation is told once
    game = api.create("board", 2)
    assert [(w.game_id, w.version) for w in recorder.writes] == [(game.game_id, game.version)]
    # when the awaited seat sends a legal command (twice, with one Idempotency-Key)
    seat = api.awaited(game)[0]
    command = api.legal(game, seat)[0]
    key = {"Idempotency-Key": "k-1"}
    first = api.command(game, seat, command, headers=key)
    again = api.command(game, seat, command, if_match="*", headers=key)
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.headers["Idempotent-Replayed"] == "true"
    # and the other seat sends one out of turn (refused)
    refused = api.command(game, 1 - seat, command)
    assert refused.status_code >= 400
    # then only the first command was told, with its events
    assert len(recorder.writes) == 2
    assert recorder.writes[1].version == first.get_json()["version"]
    assert [e.version for e in recorder.writes[1].events] == [
        e["version"] for e in first.get_json()["events"]
    ]
