"""The running app and openapi.yaml agree: same routes and methods, and the response
checker used by every API test does catch a disagreement."""

from __future__ import annotations

import re

import pytest
from flask import Flask, Response
from flask.testing import FlaskClient

from domain.games import all_games
from service.store.port import GAME_ID_PATTERN, STATUSES
from tests.service.api.contract import SPEC_PATH, check_response, spec

_CONVERTER = re.compile(r"<(?:[a-z]+:)?([a-z_]+)>")
SPEC_METHODS = {"get", "post", "put", "patch", "delete"}


def _app_routes(app: Flask) -> set[tuple[str, str]]:
    routes = set()
    for rule in app.url_map.iter_rules():
        path = _CONVERTER.sub(r"{\1}", rule.rule)
        if rule.endpoint == "static" or path.startswith(("/docs", "/play")):
            continue
        for method in rule.methods or ():
            if method.lower() in SPEC_METHODS:
                routes.add((method.lower(), path))
    return routes


def _spec_routes() -> set[tuple[str, str]]:
    paths = spec().raw_schema["paths"]
    return {
        (method, path) for path, item in paths.items() for method in item if method in SPEC_METHODS
    }


def test_every_route_is_documented_and_every_operation_exists(app: Flask) -> None:
    assert _app_routes(app) == _spec_routes()


def test_the_spec_is_served_and_a_docs_page_is_browsable(client: FlaskClient) -> None:
    served = client.get("/openapi.yaml")
    assert served.status_code == 200
    assert served.data == SPEC_PATH.read_bytes()
    docs = client.get("/docs/")
    assert docs.status_code == 200 and b"<html" in docs.data.lower()
    for src in re.findall(rb'src="([^"]+)"', docs.data):
        assert not src.startswith(b"http"), "the docs page must not load from a CDN"
        assert client.get(src.decode()).status_code == 200


def test_the_checker_catches_a_body_that_breaks_the_schema(client: FlaskClient) -> None:
    wrong = client.get("/healthz")
    wrong.set_data(b'{"status": "sleepy"}')
    with pytest.raises(Exception, match=r"sleepy|status"):
        check_response("GET", "/healthz", wrong)


def test_the_checker_catches_an_undocumented_status(client: FlaskClient) -> None:
    teapot = client.get("/healthz")
    teapot.status_code = 418
    with pytest.raises(AssertionError, match="undocumented"):
        check_response("GET", "/healthz", teapot)


def test_the_checker_catches_an_undocumented_route(app: Flask) -> None:
    app.add_url_rule("/secret-route", "secret", lambda: Response("{}", mimetype="application/json"))
    with app.test_client() as client, pytest.raises(AssertionError, match=r"not in openapi\.yaml"):
        client.get("/secret-route")
    assert ("get", "/secret-route") in _app_routes(app) - _spec_routes()


def test_every_command_of_both_games_has_a_decodable_example() -> None:
    operation = spec().raw_schema["paths"]["/games/{game_id}/commands"]["post"]
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    expected = set()
    for kind, rules in all_games().items():
        for name in rules.commands.names:
            expected.add(f"{kind}.{name}")
            example = examples[f"{kind}.{name}"]["value"]
            assert example["type"] == name
            rules.commands.from_json({**example, "seat": 0})  # every field present and valid
    assert set(examples) == expected


def test_the_spec_names_game_kinds_statuses_and_ids_as_the_service_defines_them() -> None:
    document = spec().raw_schema
    schemas = document["components"]["schemas"]
    assert schemas["Kind"]["enum"] == list(all_games())
    assert schemas["Status"]["enum"] == list(STATUSES)
    assert schemas["GameId"]["pattern"] == f"^{GAME_ID_PATTERN}$"
    (cursor,) = (
        parameter
        for parameter in document["paths"]["/games"]["get"]["parameters"]
        if parameter["name"] == "cursor"
    )
    assert cursor["schema"]["pattern"] == f"^[0-9]{{15}}:{GAME_ID_PATTERN}$"
