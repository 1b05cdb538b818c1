"""The documentation page in a real browser: Debian's Chromium driven by Playwright (no
browser download; ``scripts/install-test-deps.sh`` installs Chromium), against the real
service (gunicorn). "Try it out" offers an input box for every path parameter of every
operation, and a game operation executed from ``/docs/`` reaches the server that serves the
page (the spec's ``servers`` is relative) and answers what a direct request answers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import yaml
from playwright.sync_api import Browser, Page

from tests.service.api.conftest import LiveServer

SPEC = Path(__file__).resolve().parents[3] / "openapi.yaml"
TIMEOUT_MS = 20_000


@pytest.fixture
def docs(browser: Browser, live_server: LiveServer) -> Iterator[Page]:
    page = browser.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{live_server.url}/docs/")
    page.wait_for_selector(".opblock")
    yield page
    page.close()


def operations() -> list[tuple[str, str, list[str]]]:
    """(tag, operationId, path parameter names) of every operation of the spec."""
    spec: dict[str, Any] = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    found = []
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in {"get", "post", "put", "patch", "delete"}:
                names = re.findall(r"\{(\w+)\}", path)
                found.append((operation["tags"][0], operation["operationId"], names))
    return found


def try_it_out(page: Page, tag: str, operation_id: str) -> str:
    block = f"#operations-{tag}-{operation_id}"
    page.click(f"{block} .opblock-summary")
    page.click(f"{block} .try-out__btn")
    return block


def test_try_it_out_offers_a_box_for_every_path_parameter(docs: Page) -> None:
    expected = sum(len(names) for _, _, names in operations())
    assert expected >= 19  # every game operation has at least its game_id
    checked = 0
    for tag, operation_id, names in operations():
        block = try_it_out(docs, tag, operation_id)
        for name in names:
            # (a text box, or a list where the parameter is an enum, such as a game's kind)
            box = docs.locator(f"{block} tr[data-param-name='{name}'] :is(input, select)")
            assert box.count() == 1, (operation_id, name)
            assert box.is_editable(), (operation_id, name)
            checked += 1
        # close it again: a page with every operation open grows too heavy to click in
        docs.click(f"{block} .opblock-summary")
        docs.wait_for_selector(f"{block} .try-out__btn", state="detached")
    assert checked == expected


def test_a_game_operation_runs_from_the_docs_page(docs: Page, live_server: LiveServer) -> None:
    # given a game, and what a direct request answers for its state
    created = requests.post(
        f"{live_server.url}/games", json={"kind": "board", "seats": ["Ann", "Bob"]}, timeout=10
    )
    assert created.status_code == 201
    game_id = created.json()["game"]["game_id"]
    direct = requests.get(f"{live_server.url}/games/{game_id}/state", timeout=10)
    sent: list[str] = []
    docs.on("request", lambda request: sent.append(request.url))
    # when the docs page's "Try it out" of getState runs with that game id
    block = try_it_out(docs, "views", "getState")
    docs.fill(f"{block} tr[data-param-name='game_id'] input", game_id)
    docs.click(f"{block} .execute")
    status = docs.locator(f"{block} .live-responses-table tbody .response-col_status")
    status.wait_for()
    # then it asked the server that serves the page, with the id in the path
    url = f"{live_server.url}/games/{game_id}/state"
    assert url in sent, sent
    assert not any("%7B" in s or "127.0.0.1:8000" in s for s in sent), sent
    assert docs.locator(f"{block} .request-url pre").inner_text().strip() == url
    # and shows the server's answer
    assert status.inner_text().strip() == "200"
    shown = docs.locator(f"{block} .live-responses-table .response-col_description pre")
    assert game_id in shown.first.inner_text()
    assert direct.json()["game_id"] == game_id
