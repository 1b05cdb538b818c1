"""The running app and openapi.yaml agree: same routes and methods, and the response
checker used by every API test does catch a disagreement."""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import requests
from flask import Flask, Response, request
from flask.testing import FlaskClient

from domain.games import all_games
from service.store.port import GAME_ID_PATTERN, STATUSES
from tests.service.api import contract
from tests.service.api.contract import SPEC_PATH, check_response, httpx_hooks, off_contract, spec

_CONVERTER = re.compile(r"<(?:[a-z]+:)?([a-z_]+)>")
SPEC_METHODS = {"get", "post", "put", "patch", "delete"}


def _app_routes(app: Flask) -> set[tuple[str, str]]:
    routes = set()
    for rule in app.url_map.iter_rules():
        path = _CONVERTER.sub(r"{\1}", rule.rule)
        if rule.endpoint == "static" or contract.undocumented(path):
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


def test_a_created_webhook_is_a_webhook_and_its_secret() -> None:
    """Issue 21, point 6: ``WebhookCreated`` closed its ``Webhook`` part and then added
    ``secret`` (an ``allOf`` no answer could match); it is the webhook's fields and the
    secret, closed."""
    schemas = spec().raw_schema["components"]["schemas"]
    webhook, created = schemas["Webhook"], schemas["WebhookCreated"]
    assert {k: v for k, v in created["properties"].items() if k != "secret"} == webhook[
        "properties"
    ]
    assert created["properties"]["secret"]["pattern"] == "^whsec_"
    assert created["required"] == [*webhook["required"], "secret"]
    assert created["additionalProperties"] is False


# --- issue 21, point 6: every client the tests make checks the answers it gets ----------

SURPRISE = b'{"status": "ok", "surprise": true}'


def test_the_flask_test_client_fails_on_an_extra_property(app: Flask) -> None:
    # given a route that answers a property its closed schema does not have
    @app.after_request
    def add_a_property(response: Response) -> Response:
        if request.path == "/healthz":
            response.set_data(SURPRISE)
        return response

    # when a test gets it through any test client of the app; then the test fails
    with app.test_client() as client, pytest.raises(AssertionError, match="surprise"):
        client.get("/healthz")
    # unless it says it means to get an off-contract answer
    with app.test_client() as client, off_contract("the route is broken on purpose") as noted:
        assert client.get("/healthz").status_code == 200
    assert len(noted) == 1 and "surprise" in noted[0]


def test_an_off_contract_marker_that_catches_nothing_fails(client: FlaskClient) -> None:
    # given a block marked off-contract whose answers all keep the contract; then it fails
    with pytest.raises(AssertionError, match="drop the marker"), off_contract("stale marker"):
        assert client.get("/healthz").status_code == 200


class _Surprising(http.server.BaseHTTPRequestHandler):
    """A server on loopback that answers /healthz with a property the contract lacks."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(SURPRISE)))
        self.end_headers()
        self.wfile.write(SURPRISE)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def surprising() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Surprising)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    contract.serve(url)  # as service_env registers every service the tests start
    yield url
    server.shutdown()
    server.server_close()


def test_requests_to_a_started_service_fail_on_an_extra_property(surprising: str) -> None:
    # given a started service whose /healthz answers an extra property
    # when a test calls it with requests (a function or a session); then the test fails
    with pytest.raises(AssertionError, match="surprise"):
        requests.get(f"{surprising}/healthz", timeout=10)
    with requests.Session() as session, pytest.raises(AssertionError, match="surprise"):
        session.get(f"{surprising}/healthz", timeout=10)
    with off_contract("the server is broken on purpose"):
        assert requests.get(f"{surprising}/healthz", timeout=10).json()["surprise"] is True


def test_httpx_clients_with_the_hooks_fail_on_an_extra_property(surprising: str) -> None:
    # given the same service, and an httpx client with the contract's hooks (as the
    # generated client of tests/clients gets them); then its answer fails the test
    with (
        httpx.Client(base_url=surprising, event_hooks=httpx_hooks()) as client,
        pytest.raises(AssertionError, match="surprise"),
    ):
        client.get("/healthz")
