"""The web client (``/play/``) in a real browser: Debian's Chromium driven by Playwright
against the real service (gunicorn, Redis). Two browser contexts are two players: each
claims a seat in the lobby and makes every move of its seat by clicking what its page
offers (a piece, then a highlighted square or slot; or a decision's button), following a
fixed rule, while the other page follows by the event stream. A finished game's result in
the page is the API's; the replay slider shows what time travel answers; a consented undo
(asked in one page, approved in the other) shows the reverted game in both. The move log
explains a move with the API's rule trail, each rule a link to its text; a refused command
links its rule; a bot seat chosen in the lobby's form moves through a real RQ worker and
its move reaches the page live.

Screenshots of each game's final position go to ``var/screenshots/`` (ignored by git)."""

from __future__ import annotations

import json
import os
import random
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from domain.board.geometry import MAP
from tests.service.api.conftest import ADMIN_TOKEN, LiveServer, start_live_server
from tests.service.api.web_audit import (
    axe_violations,
    conflicts_of,
    conflicts_told,
    grave,
    record_audit,
)
from tests.service.jobs.test_bot_workers import worker_process

SCREENSHOTS = Path(__file__).resolve().parents[3] / "var" / "screenshots"
TIMEOUT_MS = 20_000
MAX_MOVES = 900  # a bound: the rule below ends games in about 150-550 commands
SEEDS = {"board": 2, "cards": 3}
AVOIDED = re.compile(r'"type": ?"(Pass|WithdrawLeader)"')


@pytest.fixture
def requested() -> list[str]:
    """Every URL the players' pages requested."""
    return []


@pytest.fixture
def players(browser: Browser, requested: list[str]) -> Iterator[list[Page]]:
    """Two players' pages, each in a browser context of its own (own storage)."""
    contexts: list[BrowserContext] = []
    pages = []
    errors: list[str] = []
    for _ in range(2):
        context = browser.new_context(viewport={"width": 1500, "height": 950})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: requested.append(request.url))
        pages.append(page)
    yield pages
    for context in contexts:
        context.close()
    assert errors == [], errors  # no script error in any page


def api(server: LiveServer, path: str, token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = requests.get(f"{server.url}{path}", headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def seeded_open_game(server: LiveServer, kind: str) -> str:
    """A seeded game (the admin's privilege) whose two seats are open to claim."""
    created = requests.post(
        f"{server.url}/games",
        json={"kind": kind, "seats": [{"type": "open"}, {"type": "open"}], "seed": SEEDS[kind]},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game_id: str = created.json()["game"]["game_id"]
    return game_id


def claim_in_lobby(page: Page, server: LiveServer, game_id: str, seat: int, name: str) -> None:
    page.goto(f"{server.url}/play/")
    page.fill("[data-field=player-name]", name)
    page.click(f"[data-claim='{game_id}:{seat}']")
    page.wait_for_selector(f"[data-game='{game_id}']")


def token_of(page: Page, game_id: str, seat: int) -> str:
    """The seat's token as the page keeps it (in its localStorage, never in a URL)."""
    held = json.loads(page.evaluate(f"localStorage.getItem('tigris.seats.{game_id}')"))
    assert game_id not in page.url or "token" not in page.url
    token: str = held[str(seat)]
    return token


def ready(page: Page, version: int) -> None:
    """Until the page shows ``version`` and offers its moves."""
    page.wait_for_selector(
        f"[data-game][data-version='{version}'] [data-section=controls] "
        ":is([data-source], .prompt [data-command])"
    )


def move(page: Page, rng: random.Random, used: set[str]) -> str:
    """One move by the fixed rule: among the offered pieces and decision buttons (sorted),
    no pass or leader withdrawal while anything else is offered, and each leader colour
    placed once only, one chosen by ``rng``; a piece then goes to one of its highlighted
    targets."""
    sources = page.locator("[data-section=controls] [data-source]")
    buttons = page.locator("[data-section=controls] .prompt [data-command]")
    # Each choice is found again by its own attribute when clicked, never by its position:
    # the page may draw its controls again at the same version (its legal commands
    # arriving), and the n-th button then may be another one.
    offered: dict[str, str] = {}
    for i in range(sources.count()):
        value = str(sources.nth(i).get_attribute("data-source"))
        offered["source " + value] = f"[data-section=controls] [data-source={json.dumps(value)}]"
    for i in range(buttons.count()):
        value = str(buttons.nth(i).get_attribute("data-command"))
        offered["command " + value] = (
            f"[data-section=controls] .prompt [data-command={json.dumps(value)}]"
        )
    keys = sorted(offered)
    preferred = [k for k in keys if not AVOIDED.search(k) and k not in used]
    choice = rng.choice(preferred or keys)
    page.locator(offered[choice]).first.click()
    if choice.startswith("source leader:"):
        used.add(choice)
    if choice.startswith("source "):
        targets = page.locator("[data-picture] [data-target]")
        targets.first.wait_for()
        target = str(targets.nth(rng.randrange(targets.count())).get_attribute("data-target"))
        page.locator(f"[data-picture] [data-target={json.dumps(target)}]").first.click()
    return choice


def play_to_the_end(server: LiveServer, game_id: str, pages: list[Page]) -> int:
    rng = random.Random(20261124)
    used: dict[int, set[str]] = {0: set(), 1: set()}
    for moves in range(MAX_MOVES):
        pending = api(server, f"/games/{game_id}/pending")
        if pending["over"]:
            return moves
        seat = pending["awaited"][0]
        page = pages[seat]
        ready(page, pending["version"])
        choice = move(page, rng, used[seat])
        try:
            page.wait_for_selector(f"[data-game]:not([data-version='{pending['version']}'])")
        except PlaywrightTimeout:
            status = page.locator("#status").inner_text()
            pytest.fail(f"no move at version {pending['version']} after {choice}: {status!r}")
    pytest.fail(f"the game did not end in {MAX_MOVES} moves")


def shown_result(page: Page) -> dict[int, tuple[int, bool, Any]]:
    rows = page.locator("[data-section=result] [data-result-seat]")
    found = {}
    for i in range(rows.count()):
        row = rows.nth(i)
        found[int(str(row.get_attribute("data-result-seat")))] = (
            int(str(row.get_attribute("data-place"))),
            row.get_attribute("data-winner") == "true",
            json.loads(str(row.get_attribute("data-score"))),
        )
    return found


def shown_board(page: Page) -> dict[str, Any]:
    """What the board picture shows, read back from its pieces' data attributes."""

    def all_of(selector: str, *names: str) -> list[tuple[str | None, ...]]:
        found = page.locator(f"[data-picture=board] {selector}")
        rows = [tuple(found.nth(i).get_attribute(n) for n in names) for i in range(found.count())]
        return sorted(rows, key=lambda row: tuple(str(x) for x in row))

    return {
        "tiles": all_of("[data-tile]", "data-tile", "data-at", "data-face-up"),
        "leaders": all_of("[data-leader]", "data-leader", "data-seat", "data-at"),
        "catastrophes": all_of("[data-catastrophe]", "data-catastrophe"),
        "treasures": all_of("[data-treasure]", "data-treasure"),
        "monuments": all_of("[data-monument]", "data-monument", "data-at"),
        "unification": all_of("[data-unification]", "data-unification"),
    }


def board_of(state: dict[str, Any]) -> dict[str, Any]:
    """The same from the API's structured state."""

    def at(square: list[int]) -> str:
        return f"{square[0]},{square[1]}"

    return {
        "tiles": sorted(
            (t["colour"], at(t["at"]), str(t["face_up"]).lower()) for t in state["tiles"]
        ),
        "leaders": sorted(
            (leader["colour"], str(leader["seat"]), at(leader["at"])) for leader in state["leaders"]
        ),
        "catastrophes": sorted((at(c),) for c in state["catastrophes"]),
        "treasures": sorted((at(t),) for t in state["treasures"]),
        "monuments": sorted((m["monument"], at(m["at"])) for m in state["monuments"]),
        "unification": [(at(state["unification"]),)] if state["unification"] else [],
    }


def shown_cards(page: Page) -> dict[str, Any]:
    def all_of(selector: str, *names: str) -> list[tuple[str | None, ...]]:
        found = page.locator(f"[data-picture=cards] {selector}")
        rows = [tuple(found.nth(i).get_attribute(n) for n in names) for i in range(found.count())]
        return sorted(rows, key=lambda row: tuple(str(x) for x in row))

    return {
        "cells": all_of("[data-card][data-column]", "data-card", "data-column", "data-depth"),
        "bridges": all_of("[data-card][data-bridge]", "data-card", "data-bridge"),
        "leaders": all_of(
            "[data-leader]", "data-leader", "data-seat", "data-column", "data-depth", "data-bridge"
        ),
    }


def cards_of(state: dict[str, Any]) -> dict[str, Any]:
    columns, bridges = state["display"]["columns"], state["display"]["bridges"]
    leaders = [
        (cell["leader"]["colour"], str(cell["leader"]["seat"]), str(c), str(d), None)
        for c, column in enumerate(columns)
        for d, cell in enumerate(column)
        if cell["leader"]
    ] + [
        (cell["leader"]["colour"], str(cell["leader"]["seat"]), None, None, str(b))
        for b, cell in enumerate(bridges)
        if cell and cell["leader"]
    ]
    return {
        "cells": sorted(
            (cell["card"], str(c), str(d))
            for c, column in enumerate(columns)
            for d, cell in enumerate(column)
        ),
        "bridges": sorted((cell["card"], str(b)) for b, cell in enumerate(bridges) if cell),
        "leaders": sorted(leaders, key=lambda row: tuple(str(x) for x in row)),
    }


def shown(page: Page, kind: str) -> dict[str, Any]:
    found = shown_board(page) if kind == "board" else shown_cards(page)
    if kind == "cards":
        found["leaders"] = sorted(found["leaders"], key=lambda row: tuple(str(x) for x in row))
    return found


def expected(state: dict[str, Any]) -> dict[str, Any]:
    return board_of(state) if state["kind"] == "board" else cards_of(state)


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_two_players_play_a_seeded_game_to_its_end_by_clicking(
    kind: str, players: list[Page], requested: list[str], live_server: LiveServer
) -> None:
    # given a seeded game with two open seats, each claimed in its player's lobby page
    game_id = seeded_open_game(live_server, kind)
    claim_in_lobby(players[0], live_server, game_id, 0, "Ann")
    claim_in_lobby(players[1], live_server, game_id, 1, "Bob")
    tokens = [token_of(players[seat], game_id, seat) for seat in (0, 1)]
    # when every move is clicked in the page of the awaited seat
    moves = play_to_the_end(live_server, game_id, players)
    # then both pages show the API's final result, and the final position
    result = api(live_server, f"/games/{game_id}/result")["result"]
    final = api(live_server, f"/games/{game_id}/state", tokens[0])
    for page in players:
        page.wait_for_selector(f"[data-game][data-version='{final['version']}'] [data-result-seat]")
        assert shown_result(page) == {
            seat["seat"]: (seat["place"], seat["winner"], seat["score"]) for seat in result["seats"]
        }
        assert page.locator("[data-section=turn]").get_attribute("data-over") == "true"
        assert shown(page, kind) == expected(final["state"])
    assert moves > 20
    # and every conflict was told in both pages as it happened: both sides' strengths, the
    # winner, and the API's words for it as each seat may see them (issue 26)
    for seat, page in enumerate(players):
        events = every_event(live_server, game_id, tokens[seat])
        # (read again at the end: the points another seat scored were secret until then)
        assert conflicts_told(page) == conflicts_of(events, kind)
        ended = page.locator("[data-news] [data-announce=GameEnded]")
        assert ended.count() == 1
    # and the final screen passes an accessibility audit (axe-core): nothing serious
    found = axe_violations(players[0])
    record_audit(f"{kind}-final", found)
    assert grave(found) == [], grave(found)
    # and no seat token ever went into a URL (the stream was opened with tickets)
    assert any("/events/stream?ticket=" in url for url in requested)
    assert not [url for url in requested if any(token in url for token in tokens)]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    players[0].screenshot(path=str(SCREENSHOTS / f"{kind}-final.png"), full_page=True)

    # when the finished game is replayed to a chosen version with the slider
    version = final["version"] // 2
    page = players[1]
    slider = page.locator("[data-replay-slider]")
    slider.fill(str(version))
    slider.dispatch_event("change")
    page.wait_for_selector(f"[data-replay-version='{version}']")
    # then the page shows what time travel answers at that version
    then = api(live_server, f"/games/{game_id}/states/{version}", tokens[1])
    assert page.locator("[data-section=picture]").get_attribute("data-shown-version") == str(
        version
    )
    assert shown(page, kind) == expected(then["state"])
    assert shown(page, kind) != expected(final["state"])
    assert page.locator("[data-section=controls] [data-source]").count() == 0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{kind}-replay-v{version}.png"), full_page=True)
    # and back to live
    page.click("[data-action=live]")
    page.wait_for_selector("[data-section=result]")
    assert shown(page, kind) == expected(final["state"])


def test_a_consented_undo_asked_in_one_page_and_approved_in_the_other(
    players: list[Page], live_server: LiveServer
) -> None:
    ann, bob = players
    # given a board game created in Ann's lobby with seat 1 open, claimed in Bob's lobby
    ann.goto(f"{live_server.url}/play/")
    ann.fill("[data-form=create-game] input[name=seat-0-name]", "Ann")
    ann.click("[data-action=create-game]")
    ann.wait_for_selector("[data-game][data-status=open]")
    game_id = str(ann.locator("[data-game]").get_attribute("data-game"))
    claim_in_lobby(bob, live_server, game_id, 1, "Bob")
    # and a turn played by clicking, so that undoing its last action needs Bob's consent
    rng = random.Random(7)
    while True:
        pending = api(live_server, f"/games/{game_id}/pending")
        seat = pending["awaited"][0]
        decision = pending["pending"]
        turn_over = decision["decision"] == "action" and decision["actions_left"] == 2
        if seat == 1 and turn_over and pending["version"] > 6:
            break  # seat 0's turn is over: its tiles were drawn
        ready(players[seat], pending["version"])
        move(players[seat], rng, set())
        players[seat].wait_for_selector(f"[data-game]:not([data-version='{pending['version']}'])")
    ann_seat = 0
    asker, answerer = ann, bob
    # (each page shows its own points and hides the other's)
    assert asker.locator("[data-seat-row='0'] [data-points]").get_attribute("data-points") == (
        "shown"
    )
    assert asker.locator("[data-seat-row='1'] [data-points]").get_attribute("data-points") == (
        "hidden"
    )
    before_undo = api(live_server, f"/games/{game_id}/state")
    # when the asker requests the undo of the last command in the dialog
    asker.wait_for_selector(f"[data-game][data-version='{before_undo['version']}']")
    asker.click("[data-action=request-undo]")
    target = asker.locator("#undo-request-dialog input[name=to_version]")
    target.wait_for()
    asker.wait_for_function(
        "document.querySelector('#undo-request-dialog input[name=to_version]').value !== ''"
    )
    to_version = int(target.input_value())
    assert 3 < to_version < before_undo["version"]
    asker.fill("#undo-request-dialog input[name=reason]", "I misplaced a tile")
    asker.click("[data-action=send-undo-request]")
    # then the other page asks for an answer, and approving it reverts the game
    answerer.wait_for_selector("#undo-answer-dialog[open]")
    assert "I misplaced a tile" in answerer.locator("[data-undo-question]").inner_text()
    answerer.click("[data-action=approve-undo]")
    then = api(live_server, f"/games/{game_id}/states/{to_version}")
    # (the click's request may still be on its way; the request itself is an event, so a
    # newer version alone does not mean the revert is in: wait for its GameReverted)
    deadline = time.monotonic() + 30
    after = f"/games/{game_id}/events?after={before_undo['version']}"
    while time.monotonic() < deadline:
        if any(e["type"] == "service.GameReverted" for e in api(live_server, after)["items"]):
            break
        time.sleep(0.1)
    now = api(live_server, f"/games/{game_id}/state")
    assert now["version"] > before_undo["version"]
    assert board_of(now["state"]) == board_of(then["state"])
    assert board_of(now["state"]) != board_of(before_undo["state"])
    for page in players:
        page.wait_for_selector(f"[data-game][data-version='{now['version']}']")
        assert shown(page, "board") == board_of(now["state"])
        assert page.locator("[data-undo-status=applied]").count() == 1
    # and the asker's seat is awaited again, with its moves offered
    assert now["state"]["pending"]["awaiting"] == [ann_seat]
    ready(asker, now["version"])


# Keeps each event stream the page opens, so that a test can replay the stream's events.
KEEP_STREAMS = """
const Real = window.EventSource;
window.__streams = [];
window.EventSource = class extends Real {
  constructor(...args) { super(...args); window.__streams.push(this); }
};
"""
# Records the version of each drawing of the game (each time the page replaces its content).
RECORD_DRAWINGS = """
window.__drawn = [];
new MutationObserver(() => {
  const game = document.querySelector('#main > [data-game]');
  window.__drawn.push(game ? game.dataset.version : null);
}).observe(document.getElementById('main'), { childList: true });
"""


def test_a_burst_of_events_is_one_load_and_a_load_with_nothing_new_draws_nothing(
    players: list[Page], live_server: LiveServer
) -> None:
    ann, bob = players
    # given a seeded board game of Ann and Bob, Bob's page following Ann's turn
    bob.add_init_script(KEEP_STREAMS)
    game_id = seeded_open_game(live_server, "board")
    claim_in_lobby(ann, live_server, game_id, 0, "Ann")
    claim_in_lobby(bob, live_server, game_id, 1, "Bob")
    before = api(live_server, f"/games/{game_id}/pending")
    assert before["awaited"] == [0]
    ready(ann, before["version"])
    bob.wait_for_selector(f"[data-game][data-version='{before['version']}']")
    bob.wait_for_function("window.__streams.length > 0")
    bob.evaluate(RECORD_DRAWINGS)
    loads: list[str] = []
    bob.on("request", lambda r: loads.append(r.url) if r.url.endswith("/state") else None)
    # when five events reach Bob's stream at once with nothing new in the game (as a bot's
    # turn's events arrive while the page already shows where they lead)
    bob.evaluate(
        "for (let i = 0; i < 5; i++) window.__streams.at(-1)"
        ".dispatchEvent(new MessageEvent('game-event', { data: '{}' }))"
    )
    # and then Ann moves by clicking
    move(ann, random.Random(11), set())
    ann.wait_for_selector(f"[data-game]:not([data-version='{before['version']}'])")
    after = api(live_server, f"/games/{game_id}/pending")
    bob.wait_for_selector(f"[data-game][data-version='{after['version']}']")
    # then the burst was one load of the state, which drew nothing (a click on the page could
    # not have been split between two drawings); the first drawing since is Ann's move
    drawn = bob.evaluate("window.__drawn")
    assert drawn and drawn[0] == str(after["version"]), drawn
    assert 1 < len(loads) <= 1 + (after["version"] - before["version"]), loads


def play_moves(server: LiveServer, game_id: str, pages: list[Page], count: int, seed: int) -> None:
    """``count`` moves clicked in the awaited seat's page (by the rule of :func:`move`)."""
    rng = random.Random(seed)
    used: dict[int, set[str]] = {0: set(), 1: set()}
    for _ in range(count):
        pending = api(server, f"/games/{game_id}/pending")
        seat = pending["awaited"][0]
        ready(pages[seat], pending["version"])
        move(pages[seat], rng, used[seat])
        pages[seat].wait_for_selector(f"[data-game]:not([data-version='{pending['version']}'])")


def every_event(server: LiveServer, game_id: str, token: str) -> list[dict[str, Any]]:
    """All of a game's events as the seat may see them, page by page."""
    events: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        body = api(server, f"/games/{game_id}/events?after={after}&limit=500", token)
        events.extend(body["items"])
        after = body["next_after"]
    return events


def all_events(server: LiveServer, game_id: str, token: str | None) -> list[dict[str, Any]]:
    return list(api(server, f"/games/{game_id}/events?after=0&limit=500", token)["items"])


def test_a_move_explained_from_the_move_log_links_its_rules(
    players: list[Page], live_server: LiveServer
) -> None:
    # given a seeded board game claimed in two lobby pages
    game_id = seeded_open_game(live_server, "board")
    claim_in_lobby(players[0], live_server, game_id, 0, "Ann")
    claim_in_lobby(players[1], live_server, game_id, 1, "Bob")
    token = token_of(players[0], game_id, 0)
    page = players[0]

    # when a command the server refuses is sent from the page (the click's command is
    # swapped on its way for a tile on an occupied square)
    state = api(live_server, f"/games/{game_id}/state", token)
    occupied = state["state"]["tiles"][0]["at"]
    refused = {"type": "PlaceTile", "colour": "red", "at": occupied}

    def swap(route: Any) -> None:
        route.continue_(post_data=json.dumps(refused))

    page.route("**/commands", swap)
    ready(page, state["version"])
    move(page, random.Random(1), set())
    # then the status line shows the problem with a link to the rule that refused it
    link = page.locator("#status [data-rule-link]")
    link.wait_for()
    direct = requests.post(
        f"{live_server.url}/games/{game_id}/commands",
        json=refused,
        headers={"Authorization": f"Bearer {token}", "If-Match": f'"{state["version"]}"'},
        timeout=10,
    )
    assert direct.status_code == 409, direct.text
    assert link.get_attribute("data-rule-link") == direct.json()["rule"]
    assert link.get_attribute("href") == direct.json()["rule_url"]
    page.unroute("**/commands")
    assert api(live_server, f"/games/{game_id}/pending")["version"] == state["version"]
    page.reload()

    # when a few moves are clicked, and seat 0 opens the move log's latest command of its own
    play_moves(live_server, game_id, players, 5, seed=11)
    events = all_events(live_server, game_id, token)
    version = events[-1]["version"]
    page.wait_for_selector(
        f"[data-game][data-version='{version}'] [data-event-version='{version}']"
    )
    # then the log lists the events as the seat may see them, newest last
    entries = page.locator("[data-move-log] [data-event-version]")
    assert [
        (
            int(str(entries.nth(i).get_attribute("data-event-version"))),
            entries.nth(i).get_attribute("data-actor"),
            entries.nth(i).get_attribute("data-type"),
        )
        for i in range(entries.count())
    ] == [(e["version"], e["actor"], e["type"]) for e in events]
    # in the server's words (the browser's language is English here)
    described = page.locator("[data-move-log] [data-description]")
    assert [described.nth(i).inner_text() for i in range(described.count())] == [
        e["description"] for e in events
    ]
    chosen = None
    for event in reversed(events):
        if event["actor"] != "seat:0":
            continue
        explained = api(
            live_server, f"/games/{game_id}/versions/{event['version']}/explanation", token
        )
        if explained["rules"] and explained["command"] is not None:
            chosen = explained
            break
    assert chosen is not None, events
    page.click(f"[data-move-log] [data-event-version='{chosen['version']}']")
    dialog = page.locator("#explanation-dialog[open]")
    dialog.locator("[data-rules] [data-rule-link]").first.wait_for()
    # and the explanation shows the API's rule trail, command, sender and alternatives
    links = dialog.locator("[data-rules] [data-rule-link]")
    shown_rules = [
        (links.nth(i).get_attribute("data-rule-link"), links.nth(i).get_attribute("href"))
        for i in range(links.count())
    ]
    assert shown_rules == [(rule["id"], rule["url"]) for rule in chosen["rules"]]
    assert (
        dialog.locator("[data-explained-actor]").get_attribute("data-explained-actor") == "seat:0"
    )
    assert (
        dialog.locator("[data-explained-when]").get_attribute("data-explained-when")
        == (chosen["recorded_at"])
    )
    command = dialog.locator("[data-explained-command]").get_attribute("data-explained-command")
    assert json.loads(str(command)) == chosen["command"]
    assert chosen["alternatives"]
    assert dialog.locator("[data-alternatives]").get_attribute("data-alternatives") == str(
        len(chosen["alternatives"])
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "board-explanation.png"), full_page=True)
    # when a rule is followed, then the rules page opens at that rule's heading
    rule = chosen["rules"][-1]
    dialog.locator(f"[data-rule-link='{rule['id']}']").click()
    page.wait_for_url(f"{live_server.url}/rules/board#{rule['id']}")
    assert page.locator(f"[id='{rule['id']}']").count() == 1
    assert page.evaluate("location.hash") == f"#{rule['id']}"


@pytest.fixture
def bot_server(redis_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """The real service with a real RQ worker process (``python -m service worker``) on a
    queue and key prefix of their own."""
    env = {
        "TIGRIS_KEY_PREFIX": f"live-{uuid.uuid4().hex[:10]}",
        "TIGRIS_RQ_QUEUE": f"q-{uuid.uuid4().hex[:10]}",
        "TIGRIS_WORKERS": "1",
        "TIGRIS_JOB_SWEEP_S": "3600",
    }
    worker_env = {**os.environ, "REDIS_URL": redis_url, **env}
    worker_env.pop("RQ_REDIS_URL", None)
    with (
        start_live_server(redis_url, tmp_path, env) as server,
        worker_process(worker_env, tmp_path / "worker.log", workers=1),
    ):
        yield server


def test_a_bot_seat_created_in_the_lobby_moves_and_the_page_follows(
    players: list[Page], bot_server: LiveServer
) -> None:
    page = players[0]
    # given a board game created in the lobby's form: Ann in seat 0, a random bot in seat 1
    page.goto(f"{bot_server.url}/play/")
    form = "[data-form=create-game]"
    page.fill(f"{form} input[name=seat-0-name]", "Ann")
    page.select_option(f"{form} select[name=seat-1-type]", "bot")
    page.select_option(f"{form} select[name=seat-1-bot]", "random")
    page.fill(f"{form} input[name=seat-1-think-ms]", "100")
    page.click("[data-action=create-game]")
    page.wait_for_selector("[data-game]:not([data-status=open]) [data-section=turn]")
    game_id = str(page.locator("[data-game]").get_attribute("data-game"))
    token = token_of(page, game_id, 0)
    info = api(bot_server, f"/games/{game_id}")
    assert info["seats"][1]["bot"] == {"bot": "random", "think_ms": 100}
    assert page.locator("[data-seat-row='1'] [data-bot=random]").count() == 1
    # when Ann makes her moves by clicking until her turn is over
    rng = random.Random(5)
    mine: list[int] = []
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline, "the bot did not move"
        pending = api(bot_server, f"/games/{game_id}/pending")
        bot_moved = any(
            e["actor"] == "bot:1" and mine and e["version"] > mine[-1]
            for e in all_events(bot_server, game_id, token)
        )
        if pending["awaited"] == [0] and bot_moved:
            break
        if pending["awaited"] == [0]:
            ready(page, pending["version"])
            move(page, rng, set())
            mine.append(pending["version"])
            page.wait_for_selector(f"[data-game]:not([data-version='{pending['version']}'])")
        else:
            # the bot is awaited: its move comes from the worker, and the page follows live
            page.wait_for_function(
                "v => { const g = document.querySelector('[data-game]');"
                " return g && Number(g.dataset.version) > v; }",
                arg=pending["version"],
                timeout=60_000,
            )
    # then the page shows Ann awaited again, with her moves offered and the bot's moves logged
    version = pending["version"]
    page.wait_for_selector(
        f"[data-game][data-version='{version}'] [data-section=turn][data-awaiting='0']"
    )
    ready(page, version)
    assert "Your move." in page.locator("[data-section=turn]").inner_text()
    assert page.locator("[data-move-log] [data-actor='bot:1']").count() >= 1
    bot_events = [e for e in all_events(bot_server, game_id, token) if e["actor"] == "bot:1"]
    assert bot_events and bot_events[-1]["version"] > mine[-1]


def spectated_game(server: LiveServer, kind: str) -> str:
    """A new game of two named seats (no seat to claim), for a spectator's page."""
    created = requests.post(
        f"{server.url}/games", json={"kind": kind, "seats": ["Ann", "Bob"]}, timeout=10
    )
    assert created.status_code == 201, created.text
    game_id: str = created.json()["game"]["game_id"]
    return game_id


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_the_picture_is_drawn_from_the_games_map_in_the_api(
    kind: str, players: list[Page], requested: list[str], live_server: LiveServer
) -> None:
    """Issue 24: the web client keeps no copy of the map; what never changes in a game (the
    board's size, rivers and temples, the display's columns and bridges) is drawn from
    ``GET /games/{id}/map``."""
    # given a new game, its map in the API, and a spectator's page of it
    game_id = spectated_game(live_server, kind)
    game_map = api(live_server, f"/games/{game_id}/map")
    page = players[0]
    page.goto(f"{live_server.url}/play/?game={game_id}")
    picture = page.locator(f"[data-picture={kind}]")
    picture.wait_for()
    assert f"{live_server.url}/games/{game_id}/map" in requested

    def attrs(selector: str, name: str) -> list[str]:
        found = picture.locator(selector)
        return sorted(str(found.nth(i).get_attribute(name)) for i in range(found.count()))

    def keys(squares: list[list[int]]) -> list[str]:
        return sorted(f"{row},{col}" for row, col in squares)

    if kind == "board":
        # then the squares, rivers, temples and special treasures drawn are the map's
        assert picture.locator("[data-square]").count() == game_map["rows"] * game_map["columns"]
        assert attrs("[data-terrain=river]", "data-square") == keys(game_map["rivers"])
        assert attrs("[data-temple]", "data-square") == keys(game_map["temples"])
        assert attrs("[data-temple=border]", "data-square") == keys(game_map["border_treasures"])
        assert attrs("[data-treasure][data-special=true]", "data-treasure") == keys(
            game_map["border_treasures"]
        )
    else:
        # then the columns, their treasures and the bridge slots drawn are the map's
        assert attrs("[data-column-label]", "data-column-label") == sorted(
            str(c) for c in range(game_map["columns"])
        )
        assert attrs("[data-card=treasure][data-depth='0']", "data-column") == sorted(
            str(c) for c in game_map["treasures"]
        )
        assert attrs("[data-bridge-slot]", "data-between") == sorted(
            ",".join(map(str, b["columns"])) for b in game_map["bridges"]
        )


def test_the_web_client_keeps_no_copy_of_the_map(live_server: LiveServer) -> None:
    # given the web client's scripts as the server serves them
    scripts = "".join(
        requests.get(f"{live_server.url}/play/{name}", timeout=10).text
        for name in ("draw.js", "app.js", "api.js")
    )
    # then no row of the board's map is written in them (the map comes from the API)
    assert not [row for row in MAP if row in scripts]
    assert not re.search(r"[.x]{12}", scripts)


def test_a_german_browsers_move_log_is_in_german(browser: Browser, live_server: LiveServer) -> None:
    # given a browser set to German (it sends Accept-Language: de-DE) that claims a seat
    context = browser.new_context(locale="de-DE")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        game_id = seeded_open_game(live_server, "board")
        claim_in_lobby(page, live_server, game_id, 0, "Ann")
        # when the other seat is claimed and the game starts
        claimed = requests.post(
            f"{live_server.url}/games/{game_id}/seats/1/claim", json={"name": "Bob"}, timeout=10
        )
        assert claimed.status_code == 201, claimed.text
        # then the move log tells the moves in German, as the server wrote them
        page.wait_for_selector("[data-move-log] [data-type='board.GameStarted']")
        started = page.locator("[data-move-log] [data-type='board.GameStarted'] [data-description]")
        assert started.inner_text() == "Das Spiel beginnt mit Ann und Bob; Ann fängt an." or (
            started.inner_text() == "Das Spiel beginnt mit Ann und Bob; Bob fängt an."
        )
        claims = page.locator(
            "[data-move-log] [data-type='service.SeatClaimed'] [data-description]"
        )
        assert claims.first.inner_text() == "Ann nimmt am Tisch Platz"
    finally:
        context.close()
