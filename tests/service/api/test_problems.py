"""Every error is one of our own problem documents with the same fields: ``type``
(``/problems/<slug>``, never ``about:blank``), ``title``, ``status``, ``detail``,
``instance``, and ``field`` (with ``errors``) when a part of the input is to blame."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.service.api.conftest import Api, problem

FRAMEWORK_WORDS = ("The requested URL", "werkzeug", "The method is not allowed", "browser")


def own(body: dict[str, object], slug: str) -> None:
    assert body["type"] == f"/problems/{slug}"
    assert {"type", "title", "status", "detail", "instance"} <= set(body)
    assert not any(word in str(body["detail"]) for word in FRAMEWORK_WORDS), body


def test_an_unknown_path_is_our_404(client: FlaskClient) -> None:
    for path in ("/nowhere", "/games/not:a:game", "/games/abc/states/007", "/games/abc/nope"):
        body = problem(client.get(path), 404)
        own(body, "not-found")
        assert body["instance"] == path


def test_a_wrong_method_is_our_405(client: FlaskClient) -> None:
    response = client.delete("/games")
    own(problem(response, 405), "method-not-allowed")
    assert "GET" in response.headers["Allow"] and "POST" in response.headers["Allow"]


def test_a_body_over_the_limit_is_our_413(client: FlaskClient) -> None:
    big = b'{"kind": "board", "seats": ["' + b"x" * 70_000 + b'"]}'
    body = problem(client.post("/games", data=big, content_type="application/json"), 413)
    own(body, "too-large")
    assert "65536" in str(body["detail"])


def test_a_bad_command_field_names_the_field(api: Api, client: FlaskClient) -> None:
    game = api.create("board", 2)
    seat = api.awaited(game)[0]
    cases: list[tuple[dict[str, object], str]] = [
        ({"type": "Nope"}, "type"),
        ({"type": "PlaceTile", "colour": "pink", "at": [1, 1]}, "colour"),
        ({"type": "PlaceTile", "colour": "red"}, "at"),
        ({"type": "PlaceTile", "colour": "red", "at": [1, 1], "x": 1}, "x"),
        ({}, "type"),
    ]
    for command, field in cases:
        body = problem(api.command(game, seat, command), 422)
        own(body, "invalid-request")
        assert body["field"] == field, (command, body)
        assert isinstance(body["errors"], dict) and field in body["errors"]
    not_an_object = client.post(
        f"/games/{game.game_id}/commands",
        json=[1],
        headers={**game.seat(seat), "If-Match": "*"},
    )
    body = problem(not_an_object, 422)
    assert body["field"] == "body" and "errors" in body
