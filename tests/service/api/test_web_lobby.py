"""The web client's lobby (issues 25 and 26) in a real browser: Debian's Chromium driven by
Playwright against the real service. The name typed is remembered and names the creator's
seat; the page makes one player key (POST /players) and keeps it; "My games" lists the
player's games (GET /players/me/games) with a "your turn" badge; a game against a bot is one
click; a game's page in a background tab puts "(1)" in the title and shows a notification
(once the player allowed them) when it becomes the player's turn.

Screenshots go to ``var/screenshots/`` (ignored by git)."""

from __future__ import annotations

import json
from typing import Any

import requests
from playwright.sync_api import Browser, Dialog, Page

from tests.service.api.conftest import LiveServer
from tests.service.api.web_audit import (
    axe_violations,
    grave,
    record_audit,
    screenshot,
    seat_page,
)

TIMEOUT_MS = 20_000


def create(server: LiveServer, key: str, seats: list[Any], kind: str = "board") -> dict[str, Any]:
    made = requests.post(
        f"{server.url}/games",
        json={"kind": kind, "seats": seats},
        headers={"Authorization": f"Bearer {key}"},
        timeout=10,
    )
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    return body


def kept_player(page: Page) -> dict[str, str]:
    kept: dict[str, str] = json.loads(page.evaluate("localStorage.getItem('tigris.player')"))
    return kept


def test_the_name_and_player_key_survive_a_reload_and_my_games_badges_your_turn(
    browser: Browser, live_server: LiveServer
) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # given the lobby, where a name is typed
    page.goto(f"{live_server.url}/play/")
    page.wait_for_selector("[data-section=my-games][data-player]")
    page.fill("[data-field=player-name]", "Ann")
    player = kept_player(page)
    # and two games of the page's player made through the API: one awaiting the player (both
    # seats are the player's), one still open (nobody is awaited)
    me = {"type": "player", "player": player["player_id"]}
    awaiting = create(live_server, player["key"], [me, me])["game"]["game_id"]
    waiting = create(live_server, player["key"], [me, {"type": "open"}])["game"]["game_id"]
    # when the page is read again
    page.reload()
    page.wait_for_selector(f"[data-my-game='{awaiting}']")
    # then the name and the key are the ones kept before
    assert page.input_value("[data-field=player-name]") == "Ann"
    assert kept_player(page) == player
    assert page.get_attribute("[data-section=my-games]", "data-player") == player["player_id"]
    # and "My games" badges the game awaiting the player, and only it; the title counts it
    assert page.locator(f"[data-my-game='{awaiting}'] [data-badge=your-turn]").count() == 1
    assert page.locator(f"[data-my-game='{waiting}'] [data-badge=your-turn]").count() == 0
    assert page.title().startswith("(1) ")
    # and the creator's seat of the form takes the remembered name
    assert page.input_value("[data-form=create-game] input[name=seat-0-name]") == "Ann"
    # and an accessibility audit of the lobby with its games finds nothing serious
    found = axe_violations(page)
    record_audit("lobby-my-games", found)
    assert grave(found) == [], grave(found)
    screenshot(page, "lobby-my-games.png")
    # when a game against a bot is made with one click
    page.click("[data-action=play-bot][data-kind=board]")
    page.wait_for_selector("[data-game] [data-section=turn]")
    game_id = str(page.locator("[data-game]").get_attribute("data-game"))
    # then the creator's seat is named by the remembered name and bound to the player
    info = requests.get(f"{live_server.url}/games/{game_id}", timeout=10).json()
    assert info["seats"][0]["name"] == "Ann"
    assert info["seats"][1]["bot"]["bot"] == "greedy"
    mine = requests.get(
        f"{live_server.url}/players/me/games",
        headers={"Authorization": f"Bearer {player['key']}"},
        timeout=10,
    ).json()["items"]
    assert game_id in {game["game_id"] for game in mine}
    context.close()
    assert errors == [], errors


# A spy on the page's notifications (the browser's own Notification, recorded as made).
RECORD_NOTIFICATIONS = """
window.__notes = [];
const Real = window.Notification;
window.Notification = class extends Real {
  constructor(title, options) {
    super(title, options);
    window.__notes.push({ title, body: options?.body });
  }
};
"""
HIDE = """hidden => {
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  Object.defineProperty(document, 'visibilityState', { configurable: true,
    get: () => hidden ? 'hidden' : 'visible' });
  document.dispatchEvent(new Event('visibilitychange'));
}"""


def test_a_background_tab_badges_the_title_and_notifies_when_it_becomes_your_turn(
    browser: Browser, live_server: LiveServer
) -> None:
    # given a started board game of two named seats, opened by the seat not awaited, in a
    # browser where the player allowed notifications
    made = requests.post(
        f"{live_server.url}/games", json={"kind": "board", "seats": ["Ann", "Bob"]}, timeout=10
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["game"]["game_id"]
    tokens = {s["seat"]: s["token"] for s in made.json()["seats"]}
    pending = requests.get(f"{live_server.url}/games/{game_id}/pending", timeout=10).json()
    mover, version = pending["awaited"][0], pending["version"]
    watcher = 1 - mover
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.grant_permissions(["notifications"], origin=live_server.url)
    context.add_init_script(RECORD_NOTIFICATIONS)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{live_server.url}/play/")
    page.evaluate(
        "([key, seats]) => localStorage.setItem(key, seats)",
        [f"tigris.seats.{game_id}", json.dumps({str(watcher): tokens[watcher]})],
    )
    page.goto(f"{live_server.url}/play/?game={game_id}")
    page.wait_for_selector(f"[data-game][data-version='{version}'] [data-section=turn]")
    assert not page.title().startswith("(1)")
    # and the tab goes to the background
    page.evaluate(HIDE, True)
    # when the other seat passes its actions until it is the watcher's turn
    while pending["awaited"][0] != watcher:
        sent = requests.post(
            f"{live_server.url}/games/{game_id}/commands",
            json={"type": "Pass"},
            headers={
                "Authorization": f"Bearer {tokens[mover]}",
                "If-Match": f'"{pending["version"]}"',
            },
            timeout=10,
        )
        assert sent.status_code in (200, 201), sent.text
        pending = requests.get(f"{live_server.url}/games/{game_id}/pending", timeout=10).json()
    page.wait_for_selector(f"[data-game][data-version='{pending['version']}']")
    # then the title carries "(1)" and one notification was shown
    page.wait_for_function("document.title.startsWith('(1) ')")
    notes = page.evaluate("window.__notes")
    assert len(notes) == 1 and notes[0]["body"].endswith(game_id[:8]), notes
    # and back in the tab the "(1)" goes
    page.evaluate(HIDE, False)
    page.wait_for_function("!document.title.startsWith('(1)')")
    context.close()


def open_game(browser: Browser, server: LiveServer, game_id: str, seat: int, token: str) -> Page:
    """A game's page holding one seat, in a fresh browser context."""
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    return seat_page(page, server.url, game_id, seat, token)


def two_named(server: LiveServer, kind: str = "board") -> tuple[str, list[str]]:
    made = requests.post(
        f"{server.url}/games", json={"kind": kind, "seats": ["Ann", "Bob"]}, timeout=10
    )
    assert made.status_code == 201, made.text
    return made.json()["game"]["game_id"], [s["token"] for s in made.json()["seats"]]


def test_resigning_asks_first_and_ends_a_two_seat_game(
    browser: Browser, live_server: LiveServer
) -> None:
    # given a running two-seat game, seen by Ann
    game_id, tokens = two_named(live_server)
    page = open_game(browser, live_server, game_id, 0, tokens[0])
    asked: list[str] = []

    # when she presses "Resign…" and cancels the confirmation
    def cancel(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", cancel)
    page.click("[data-action=resign]")
    # then nothing was sent: the game runs on
    assert len(asked) == 1
    assert requests.get(f"{live_server.url}/games/{game_id}", timeout=10).json()["status"] == (
        "active"
    )
    # when she presses it again and confirms
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-action=resign]")
    # then the game is over, resigned, and the final screen ranks her last
    page.wait_for_selector("[data-section=result]")
    assert requests.get(f"{live_server.url}/games/{game_id}", timeout=10).json()["status"] == (
        "over"
    )
    last = page.locator("[data-result-seat='0']").get_attribute("data-place")
    assert last == "2"
    page.context.close()


def test_a_rematch_from_the_final_screen_makes_the_linked_game(
    browser: Browser, live_server: LiveServer
) -> None:
    # given a two-seat game Bob resigned, on Ann's final screen
    game_id, tokens = two_named(live_server, "cards")
    page = open_game(browser, live_server, game_id, 0, tokens[0])
    resigned = requests.post(
        f"{live_server.url}/games/{game_id}/commands",
        json={"type": "Resign"},
        headers={"Authorization": f"Bearer {tokens[1]}", "If-Match": "*"},
        timeout=10,
    )
    assert resigned.status_code == 200, resigned.text
    page.wait_for_selector("[data-section=result] [data-action=rematch]")
    # when she asks for a rematch
    page.click("[data-action=rematch]")
    # then the page is the new game's, linked to the old one, Ann seated and Bob's seat open
    page.wait_for_selector(f"[data-game]:not([data-game='{game_id}'])")
    new_id = str(page.locator("[data-game]").get_attribute("data-game"))
    old = requests.get(f"{live_server.url}/games/{game_id}", timeout=10).json()
    assert old["rematch"] == new_id
    page.wait_for_selector("[data-section=waiting] [data-claim]")
    assert page.locator(f"[data-claim='{new_id}:1']").count() == 1
    held = json.loads(page.evaluate(f"localStorage.getItem('tigris.seats.{new_id}')"))
    assert list(held) == ["0"]
    page.context.close()


def test_an_invitation_link_seats_only_the_invited_friend(
    browser: Browser, live_server: LiveServer
) -> None:
    contexts = [browser.new_context(viewport={"width": 1400, "height": 900}) for _ in range(2)]
    ann, bob = (context.new_page() for context in contexts)
    for page in (ann, bob):
        page.set_default_timeout(TIMEOUT_MS)
    # given Bob's lobby, which shows his player id
    bob.goto(f"{live_server.url}/play/")
    bob.fill("[data-field=player-name]", "Bob")
    bob_id = bob.input_value("[data-field=player-id]")
    assert bob_id == kept_player(bob)["player_id"]
    # and a game Ann created in her lobby with seat 1 open
    ann.goto(f"{live_server.url}/play/")
    ann.wait_for_selector("[data-field=player-id]")
    ann.fill("[data-field=player-name]", "Ann")
    ann.click("[data-action=create-game]")
    ann.wait_for_selector("[data-game][data-status=open] [data-section=waiting]")
    game_id = str(ann.locator("[data-game]").get_attribute("data-game"))
    # when Ann invites Bob's player id to seat 1
    ann.fill("[data-invite-player='1']", bob_id)
    ann.click("[data-action=invite][data-seat='1']")
    link = ann.locator("[data-invitation-link='1']")
    link.wait_for()
    url = link.input_value()
    assert url.startswith(f"{live_server.url}/play/?invitation=inv.")
    # then a claim by anyone else is refused
    refused = requests.post(
        f"{live_server.url}/games/{game_id}/seats/1/claim", json={"name": "Eve"}, timeout=10
    )
    assert refused.status_code == 409, refused.text
    # when Bob opens the link
    bob.goto(url)
    # then he is seated, bound to his player, and the game starts
    bob.wait_for_selector(f"[data-game='{game_id}']:not([data-status=open]) [data-section=turn]")
    info = requests.get(f"{live_server.url}/games/{game_id}", timeout=10).json()
    assert info["status"] == "active"
    assert [seat["name"] for seat in info["seats"]] == ["Ann", "Bob"]
    mine = requests.get(
        f"{live_server.url}/players/me/games",
        headers={"Authorization": f"Bearer {kept_player(bob)['key']}"},
        timeout=10,
    ).json()["items"]
    assert [game["game_id"] for game in mine] == [game_id]
    for context in contexts:
        context.close()
