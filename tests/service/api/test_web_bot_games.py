"""Games against a server bot in a real browser (issue 26): Debian's Chromium driven by
Playwright against the real service (gunicorn, Redis) with a real RQ worker playing the bot
seat. The human seat makes each move by clicking what its page offers (a piece of the rack
then one of its highlighted targets, or a decision's button; chosen by a seeded random
rule); the bot's moves come from the worker and reach the page live. A board game at a
phone's width (390 px) and a card game at a laptop's (1,400 px): no sideways scroll at any
of the human's turns; each ``ConflictResolved`` event, read afterwards through the API, was
announced in the page's news panel with its version, strengths, winner and the API's words.

Each game is played to the end its rules give it (a board game against the greedy bot is
about 60 clicks and 40-55 s, a card game usually about 120 clicks and 60-70 s, on a loaded
2-core machine). A card game can also run on for a thousand versions and more, so after
``MAX_CLICKS`` of the human's clicks the human resigns with the page's "Resign…" button to
reach the final screen. The bot seeds its decisions from the game's id, so each run is
another game: every conflict it had is checked, and none told that it did not have (a game
without a conflict is possible, if rare; the seeded two-player games of ``test_web_client``
always have some). Screenshots go to ``var/screenshots/`` (ignored by git)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.service.api.conftest import ADMIN_TOKEN, LiveServer
from tests.service.api.test_web_client import (  # noqa: F401 (bot_server is a fixture)
    api,
    bot_server,
    every_event,
    move,
    ready,
    shown_result,
)
from tests.service.api.web_audit import (
    SeatPages,
    conflicts_of,
    conflicts_told,
    no_sideways_scroll,
    screenshot,
)

TIMEOUT_MS = 20_000
MAX_CLICKS = 150  # then the human resigns (a whole game is usually 60-130 clicks)
MAX_STEPS = 800  # a bound on the human's clicks and the bot's turns waited for
HARD_CAP_S = 300  # a bound on the whole game (40-90 s on a loaded machine)
SEEDS = {"board": 2, "cards": 3}


def bot_game(server: LiveServer, kind: str, bot: str) -> tuple[str, str]:
    """A seeded game (the admin's privilege): Ann in seat 0, a server bot that thinks no
    longer than it must in seat 1; the game and Ann's token."""
    created = requests.post(
        f"{server.url}/games",
        json={
            "kind": kind,
            "seats": [{"type": "human", "name": "Ann"}, {"bot": bot, "think_ms": 0}],
            "seed": SEEDS[kind],
        },
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    body = created.json()
    token = next(s["token"] for s in body["seats"] if s["seat"] == 0)
    game_id: str = body["game"]["game_id"]
    return game_id, str(token)


@pytest.fixture
def open_page(browser: Browser, bot_server: LiveServer) -> Iterator[Any]:  # noqa: F811
    """Opens a game's page holding one seat at the given width; no script error may happen."""
    pages = SeatPages(browser, bot_server.url, height=844, timeout_ms=TIMEOUT_MS)
    yield pages
    errors = pages.close()
    assert errors == [], errors


def told_conflicts(page: Page) -> int:
    return page.locator("[data-news] [data-announce=ConflictResolved]").count()


def play_against_the_bot(server: LiveServer, game_id: str, page: Page) -> dict[str, int]:
    """The human (seat 0) clicks its moves, the bot's come from the worker, until the game
    is over, or the human resigns after ``MAX_CLICKS`` clicks. Sideways scroll is checked
    at each of the human's turns. Bounded by ``MAX_STEPS`` steps and ``HARD_CAP_S``
    seconds; each failure says where the game stood."""
    rng = random.Random(20261127)
    used: set[str] = set()
    deadline = time.monotonic() + HARD_CAP_S
    figures = {"clicked": 0, "waited_for_bot": 0, "checked_widths": 0, "resigned": 0}
    for _ in range(MAX_STEPS):
        pending = api(server, f"/games/{game_id}/pending")
        version = pending["version"]
        if pending["over"]:
            return figures
        if time.monotonic() > deadline:
            pytest.fail(
                f"hard cap: no end after {HARD_CAP_S} s at version {version} "
                f"({figures}, {told_conflicts(page)} conflicts told)"
            )
        if 0 in pending["awaited"]:
            ready(page, version)
            assert no_sideways_scroll(page), f"sideways scroll at version {version}"
            figures["checked_widths"] += 1
            if figures["clicked"] >= MAX_CLICKS:
                page.once("dialog", lambda dialog: dialog.accept())
                page.click("[data-section=controls] [data-action=resign]")
                page.wait_for_selector("[data-section=result] [data-result-seat]")
                figures["resigned"] = 1
                return figures
            choice = move(page, rng, used)
            figures["clicked"] += 1
            try:
                page.wait_for_selector(f"[data-game]:not([data-version='{version}'])")
            except PlaywrightTimeout:
                status = page.locator("#status").inner_text()
                pytest.fail(f"no move at version {version} after {choice}: {status!r}")
        else:
            # the bot is awaited: its move comes from the worker, and the page follows live
            try:
                page.wait_for_function(
                    "v => { const g = document.querySelector('[data-game]');"
                    " return g && Number(g.dataset.version) > v; }",
                    arg=version,
                    timeout=60_000,
                )
            except PlaywrightTimeout:
                pytest.fail(f"the bot did not move in 60 s at version {version}")
            figures["waited_for_bot"] += 1
    pytest.fail(f"no end in {MAX_STEPS} steps ({figures}, {told_conflicts(page)} told)")


def check_the_end_and_the_conflicts(
    server: LiveServer, game_id: str, token: str, kind: str, page: Page
) -> None:
    # the page shows the API's final result on its final screen
    result = api(server, f"/games/{game_id}/result")["result"]
    final = api(server, f"/games/{game_id}/pending")
    page.wait_for_selector(f"[data-game][data-version='{final['version']}'] [data-result-seat]")
    assert page.locator("[data-section=turn]").get_attribute("data-over") == "true"
    assert shown_result(page) == {
        seat["seat"]: (seat["place"], seat["winner"], seat["score"]) for seat in result["seats"]
    }
    # the bot played its seat through the worker
    events = every_event(server, game_id, token)
    assert [e for e in events if e["actor"] == "bot:1"], "the bot made no move"
    # each conflict of the events was told in the news panel: its version, both sides'
    # strengths, the winner and the API's words for it
    assert conflicts_told(page) == conflicts_of(events, kind)
    assert page.locator("[data-news] [data-announce=GameEnded]").count() == 1
    assert no_sideways_scroll(page), "sideways scroll on the final screen"


def test_a_board_game_against_a_server_bot_is_played_to_its_end_by_clicking_on_a_phone(
    open_page: Any,
    bot_server: LiveServer,  # noqa: F811
) -> None:
    # given a seeded board game of Ann against the greedy server bot, on a 390 px phone
    game_id, token = bot_game(bot_server, "board", "greedy")
    page = open_page(game_id, 0, token, 390)
    # when Ann clicks her moves from the page's highlighted targets until the game ends
    # (or resigns after MAX_CLICKS clicks)
    figures = play_against_the_bot(bot_server, game_id, page)
    # then the final screen shows the API's result, each conflict was told as the events
    # have it, and the page never scrolled sideways
    assert figures["clicked"] > 0 and figures["waited_for_bot"] > 0, figures
    check_the_end_and_the_conflicts(bot_server, game_id, token, "board", page)
    screenshot(page, "bot-game-board-390.png")


def test_a_card_game_against_a_server_bot_is_played_to_its_end_by_clicking(
    open_page: Any,
    bot_server: LiveServer,  # noqa: F811
) -> None:
    # given a seeded card game of Ann against the greedy server bot, on a 1,400 px laptop
    game_id, token = bot_game(bot_server, "cards", "greedy")
    page = open_page(game_id, 0, token, 1400)
    # when Ann clicks her moves until the game ends (or resigns after MAX_CLICKS clicks)
    figures = play_against_the_bot(bot_server, game_id, page)
    # then the final screen shows the API's result and each conflict was told
    assert figures["clicked"] > 0 and figures["waited_for_bot"] > 0, figures
    check_the_end_and_the_conflicts(bot_server, game_id, token, "cards", page)
    screenshot(page, "bot-game-cards-1400.png")
