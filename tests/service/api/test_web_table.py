"""The web client's table (issue 26) in a real browser: Debian's Chromium driven by
Playwright against the real service. The table fits a phone (390 px) and a laptop
(1,400 px) with no sideways scroll and finger-sized targets; your hand is a rack played
from the keyboard alone; the opponent's last move is marked; every tile and card carries a
symbol (checked with the page seen without colour); the page speaks English, German,
Hungarian and Italian (the client's words and the API's); an axe-core audit finds no
serious or critical violation in the lobby, a board game and a card game (the final screen's
audit is in test_web_client.py, where a game is played to its end).

Screenshots go to ``var/screenshots/`` (ignored by git)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, Page

from tests.service.api.conftest import LiveServer
from tests.service.api.web_audit import (
    SeatPages,
    axe_violations,
    grave,
    no_sideways_scroll,
    record_audit,
    screenshot,
)

STATIC = Path(__file__).resolve().parents[3] / "service" / "web" / "static"
TIMEOUT_MS = 20_000
LANGUAGES = ("en", "de", "hu", "it")


def new_game(server: LiveServer, kind: str) -> tuple[str, dict[int, str]]:
    """A started game of two named seats, and their tokens."""
    created = requests.post(
        f"{server.url}/games", json={"kind": kind, "seats": ["Ann", "Bob"]}, timeout=10
    )
    assert created.status_code == 201, created.text
    body = created.json()
    return body["game"]["game_id"], {s["seat"]: s["token"] for s in body["seats"]}


def get(server: LiveServer, path: str, token: str, language: str = "en") -> dict[str, Any]:
    answer = requests.get(
        f"{server.url}{path}",
        headers={"Authorization": f"Bearer {token}", "Accept-Language": language},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def awaited(server: LiveServer, game_id: str) -> tuple[int, int]:
    pending = requests.get(f"{server.url}/games/{game_id}/pending", timeout=10).json()
    return pending["awaited"][0], pending["version"]


def post(
    server: LiveServer, game_id: str, token: str, command: dict[str, Any], version: int
) -> None:
    sent = requests.post(
        f"{server.url}/games/{game_id}/commands",
        json=command,
        headers={"Authorization": f"Bearer {token}", "If-Match": f'"{version}"'},
        timeout=10,
    )
    assert sent.status_code in (200, 201), sent.text


@pytest.fixture
def open_page(browser: Browser, live_server: LiveServer) -> Iterator[Any]:
    """Opens a game's page holding one seat, in a browser context of the given width and
    language; no script error may happen in it."""
    pages = SeatPages(browser, live_server.url, height=900, timeout_ms=TIMEOUT_MS, language="en")
    yield pages
    errors = pages.close()
    assert errors == [], errors


def boxes(page: Page, selector: str) -> list[dict[str, float]]:
    found: list[dict[str, float]] = page.eval_on_selector_all(
        selector,
        "nodes => nodes.map(n => { const r = n.getBoundingClientRect();"
        " return { width: r.width, height: r.height }; })",
    )
    return found


@pytest.mark.parametrize("width", [390, 1400])
@pytest.mark.parametrize("kind", ["board", "cards"])
def test_the_table_fits_the_width_with_finger_sized_targets(
    kind: str, width: int, open_page: Any, live_server: LiveServer
) -> None:
    # given a new game, seen by the awaited seat at a phone's or a laptop's width
    game_id, tokens = new_game(live_server, kind)
    seat, _ = awaited(live_server, game_id)
    page = open_page(game_id, seat, tokens[seat], width)
    # when a piece of the rack is picked
    page.locator("[data-section=controls] .rack [data-source]").first.click()
    page.locator("[data-picture] [data-target]").first.wait_for()
    # then the page never scrolls sideways (the picture pans inside its own box)
    assert no_sideways_scroll(page)
    # and the targets, the rack's pieces and the buttons are at least 40 px each way
    for selector in (
        "[data-picture] [data-target]",
        ".rack .piece",
        "[data-section=controls] button",
    ):
        found = boxes(page, selector)
        assert found, selector
        assert min(min(b["width"], b["height"]) for b in found) >= 40, (selector, found[:3])
    screenshot(page, f"table-{kind}-{width}.png")


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_a_move_is_made_from_the_keyboard_alone(
    kind: str, open_page: Any, live_server: LiveServer
) -> None:
    # given the awaited seat's page
    game_id, tokens = new_game(live_server, kind)
    seat, version = awaited(live_server, game_id)
    page = open_page(game_id, seat, tokens[seat])
    # when Tab reaches the rack, an arrow key moves along it and Enter picks the piece
    rack = page.locator(".rack [data-source]")
    rack.first.wait_for()
    page.locator(".rack [tabindex='0']").focus()
    page.keyboard.press("ArrowRight")
    picked = page.evaluate("document.activeElement.dataset.source")
    assert picked
    page.keyboard.press("Enter")
    # then the focus goes to the first highlighted target, which Enter chooses
    page.wait_for_function("document.activeElement && document.activeElement.dataset.target")
    target = page.evaluate("document.activeElement.dataset.target")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.target") != target
    page.keyboard.press("Enter")
    page.wait_for_selector(f"[data-game]:not([data-version='{version}'])")
    # and the command went through: the game moved on, with the piece picked
    events = get(live_server, f"/games/{game_id}/events?after={version}", tokens[seat])["items"]
    placed = [
        e
        for e in events
        if re.search(r"(TilePlaced|CardPlayed|LeaderPlaced|CatastrophePla)", e["type"])
    ]
    assert placed and placed[0]["actor"] == f"seat:{seat}"
    colour = picked.split(":")[1] if ":" in picked else None
    if colour:
        assert colour in (placed[0]["data"].get("colour"), placed[0]["data"].get("leader"))


def test_the_opponents_last_move_is_marked(open_page: Any, live_server: LiveServer) -> None:
    # given a board game seen by the seat that is not awaited
    game_id, tokens = new_game(live_server, "board")
    seat, version = awaited(live_server, game_id)
    other = 1 - seat
    page = open_page(game_id, other, tokens[other])
    # when the awaited seat places a tile through the API
    legal = get(live_server, f"/games/{game_id}/legal-commands", tokens[seat])["commands"]
    tile = next(c for c in legal if c["type"] == "PlaceTile")
    post(live_server, game_id, tokens[seat], tile, version)
    # then the other seat's page marks the square it went to
    at = f"{tile['at'][0]},{tile['at'][1]}"
    page.wait_for_selector(f"[data-picture] [data-last-move='{at}']")
    assert page.locator("[data-picture] [data-last-move]").count() == 1
    # and tells the refill and moves in the log in the API's words
    log = page.locator("[data-move-log] [data-description]").all_inner_texts()
    events = get(live_server, f"/games/{game_id}/events?after=0", tokens[other])["items"]
    page.wait_for_selector(f"[data-move-log] [data-event-version='{events[-1]['version']}']")
    log = page.locator("[data-move-log] [data-description]").all_inner_texts()
    assert log == [e["description"] for e in events]


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_every_tile_and_card_carries_a_symbol_seen_without_colour(
    kind: str, open_page: Any, live_server: LiveServer
) -> None:
    # given a game some moves in, its page seen with no colour at all (achromatopsia)
    game_id, tokens = new_game(live_server, kind)
    for i in range(6):
        seat, version = awaited(live_server, game_id)
        legal = get(live_server, f"/games/{game_id}/legal-commands", tokens[seat])["commands"]
        leaders = [c for c in legal if c["type"] == "PlaceLeader"]
        placing = [c for c in legal if c["type"] in ("PlaceTile", "PlayCard")]
        chosen = (leaders or placing or legal)[0] if i < 2 else (placing or legal)[0]
        post(live_server, game_id, tokens[seat], chosen, version)
    seat, _ = awaited(live_server, game_id)
    page = open_page(game_id, seat, tokens[seat])
    page.add_style_tag(content="html { filter: grayscale(1); }")
    # then every face-up tile or coloured card and every rack piece shows its colour's symbol
    colour_of = {"black": "settlement", "red": "temple", "blue": "farm", "green": "market"}
    pieces = (
        "[data-picture] [data-tile][data-face-up=true]"
        if kind == "board"
        else "[data-picture] [data-card]:is("
        "[data-card=black],[data-card=red],[data-card=blue],[data-card=green])"
    )
    symbols = page.eval_on_selector_all(
        pieces,
        "nodes => nodes.map(n => [n.dataset.tile || n.dataset.card,"
        " [...n.querySelectorAll(':scope > [data-symbol]')].map(s => s.dataset.symbol)])",
    )
    assert len(symbols) >= 2
    for colour, found in symbols:
        assert found and set(found) == {colour_of[colour]}, (colour, found)
    rack = page.eval_on_selector_all(
        ".rack .piece",
        "nodes => nodes.map(n => n.querySelectorAll('[data-symbol], [data-dynasty]').length)",
    )
    assert rack and min(rack) >= 1
    # and every leader shows its dynasty's emblem and its colour's symbol
    leaders = page.eval_on_selector_all(
        "[data-picture] [data-leader]",
        "nodes => nodes.map(n => [n.querySelector('[data-dynasty]')?.dataset.dynasty,"
        " n.querySelector('[data-symbol]')?.dataset.symbol])",
    )
    assert leaders and all(dynasty and symbol for dynasty, symbol in leaders), leaders
    screenshot(page, f"table-{kind}-no-colour.png")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_language_switch_translates_the_page_and_the_apis_words(
    language: str, open_page: Any, live_server: LiveServer
) -> None:
    # given a board game's page in English
    game_id, tokens = new_game(live_server, "board")
    seat, _ = awaited(live_server, game_id)
    page = open_page(game_id, seat, tokens[seat], 1400, "en")
    # when the language is chosen in the header's switch
    page.select_option("[data-field=language]", language)
    page.wait_for_function(f"document.documentElement.lang === '{language}'")
    page.wait_for_selector("[data-move-log] [data-description]")
    # then the client's own words are in that language
    words = {} if language == "en" else json.loads((STATIC / f"words-{language}.json").read_text())
    assert page.locator("[data-section=turn] .prompt strong").inner_text().strip() == words.get(
        "Your move.", "Your move."
    )
    assert page.locator("[data-section=points] h2").inner_text() == words.get(
        "Your points", "Your points"
    )
    # and the move log is the API's descriptions asked for in that language
    events = get(live_server, f"/games/{game_id}/events?after=0", tokens[seat], language)["items"]
    assert page.locator("[data-move-log] [data-description]").all_inner_texts() == [
        e["description"] for e in events
    ]
    screenshot(page, f"table-board-{language}.png")


def test_every_word_of_the_client_has_its_translation() -> None:
    # given the words the client's scripts ask for (t("…"))
    script = (STATIC / "app.js").read_text()
    asked = set(re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', script))
    for table in ("const COLOUR_WORDS = ", "const CARD_COLOUR_WORDS = "):
        line = script.split(table)[1].split("\n")[0]
        asked |= set(re.findall(r': "([^"]+)"', line))
    assert {"Your move.", "blue (farm)", "green (trade)"} <= asked
    # then each language's file has every one, with the same {slots}
    for language in ("de", "hu", "it"):
        words = json.loads((STATIC / f"words-{language}.json").read_text())
        missing = sorted(asked - set(words))
        assert missing == [], (language, missing)
        for english, said in words.items():
            slots = set(re.findall(r"\{\w+\}", english))
            assert set(re.findall(r"\{\w+\}", said)) == slots, (language, english, said)


@pytest.mark.parametrize("where", ["lobby", "board", "cards"])
def test_an_accessibility_audit_finds_nothing_serious(
    where: str, open_page: Any, browser: Browser, live_server: LiveServer
) -> None:
    # given the lobby, or a game's page with a piece picked and its targets highlighted
    if where == "lobby":
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(f"{live_server.url}/play/")
        page.wait_for_selector("[data-form=create-game]")
    else:
        game_id, tokens = new_game(live_server, where)
        seat, _ = awaited(live_server, game_id)
        page = open_page(game_id, seat, tokens[seat])
        page.locator(".rack [data-source]").first.click()
        page.locator("[data-picture] [data-target]").first.wait_for()
    # when axe-core audits it
    found = axe_violations(page)
    record_audit(f"table-{where}", found)
    # then no violation is serious or critical
    assert grave(found) == [], grave(found)
    if where == "lobby":
        context.close()
