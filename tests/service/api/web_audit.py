"""Helpers of the web client's browser tests: an axe-core audit run in the page (the npm
package ``axe-core`` of package-lock.json, installed by ``scripts/install-test-deps.sh``,
injected by Playwright) and the page-width check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

AXE = Path(__file__).resolve().parents[3] / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = Path(__file__).resolve().parents[3] / "var" / "screenshots"
GRAVE = {"serious", "critical"}


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Every violation axe-core finds in the page as it is now (WCAG 2.1 A and AA rules and
    axe's best practices)."""
    if not AXE.exists():
        pytest.fail("axe-core is missing: run scripts/install-test-deps.sh (npm ci)")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, { resultTypes: ['violations'] })).violations"
        ".map(v => ({ id: v.id, impact: v.impact, nodes: v.nodes.length,"
        " targets: v.nodes.slice(0, 3).map(n => n.target.join(' ')) }))"
    )
    return found


def grave(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in violations if v["impact"] in GRAVE]


def no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth"))


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name), full_page=True)


def record_audit(name: str, violations: list[dict[str, Any]]) -> None:
    """The audit's figures beside the screenshots (for the review)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / f"axe-{name}.json").write_text(json.dumps(violations, indent=1))


def conflicts_told(page: Page) -> list[tuple[int, str | None, str | None, str]]:
    """The conflicts the page's news panel announced: version, both strengths, winner, words."""
    told = page.locator("[data-news] [data-announce=ConflictResolved]")
    return [
        (
            int(str(told.nth(i).get_attribute("data-event-version"))),
            told.nth(i).get_attribute("data-strengths"),
            told.nth(i).get_attribute("data-winner"),
            told.nth(i).locator("[data-told]").inner_text(),
        )
        for i in range(told.count())
    ]


def conflicts_of(events: list[Any], kind: str) -> list[tuple[int, str, str, str]]:
    """The same read from a game's ``ConflictResolved`` events, as a seat sees them."""
    return [
        (
            e["version"],
            f"{e['data']['attacker_strength']}:{e['data']['defender_strength']}",
            str(e["data"]["winner"]),
            e["description"],
        )
        for e in events
        if e["type"] == f"{kind}.ConflictResolved"
    ]


def seat_page(page: Page, base_url: str, game_id: str, seat: int, token: str) -> Page:
    """``page`` on a game's page holding one seat: its token put where the client keeps it
    (``localStorage``), then the game opened and drawn."""
    page.goto(f"{base_url}/play/")
    page.evaluate(
        "([key, seats]) => localStorage.setItem(key, seats)",
        [f"tigris.seats.{game_id}", json.dumps({str(seat): token})],
    )
    page.goto(f"{base_url}/play/?game={game_id}")
    page.wait_for_selector("[data-game] [data-section=turn]")
    return page


class SeatPages:
    """Opens games' pages holding one seat, each in a browser context of its own (of the
    given width, and language if any); ``close`` closes them all and returns the script
    errors any of them had."""

    def __init__(
        self,
        browser: Browser,
        base_url: str,
        *,
        height: int,
        timeout_ms: int,
        language: str | None = None,
    ) -> None:
        self.browser = browser
        self.base_url = base_url
        self.height = height
        self.timeout_ms = timeout_ms
        self.language = language
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def __call__(
        self, game_id: str, seat: int, token: str, width: int = 1400, language: str | None = None
    ) -> Page:
        context = self.browser.new_context(
            viewport={"width": width, "height": self.height}, locale=language or self.language
        )
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(self.timeout_ms)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        return seat_page(page, self.base_url, game_id, seat, token)

    def close(self) -> list[str]:
        for context in self.contexts:
            context.close()
        return self.errors
