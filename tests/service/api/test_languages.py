"""Moves and refusals in words, over real HTTP: the live service answers in the language
``Accept-Language`` asks for (English, German, Hungarian or Italian; English otherwise),
says so in ``Content-Language`` and ``Vary``, and never puts hidden things into words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import requests

from service.i18n.describe import Words, rule_words
from tests.service.api.conftest import ADMIN_TOKEN, LiveServer


@dataclass
class Table:
    url: str
    game_id: str
    tokens: list[str]

    def seat(self, seat: int, language: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.tokens[seat]}"}
        return headers if language is None else {**headers, "Accept-Language": language}

    def events(self, seat: int, language: str | None) -> requests.Response:
        return requests.get(
            f"{self.url}/games/{self.game_id}/events?limit=500",
            headers=self.seat(seat, language),
            timeout=10,
        )

    def command(self, seat: int, command: dict[str, Any], language: str) -> requests.Response:
        return requests.post(
            f"{self.url}/games/{self.game_id}/commands",
            json=command,
            headers={**self.seat(seat, language), "If-Match": "*"},
            timeout=10,
        )


def _table(server: LiveServer, kind: str) -> Table:
    created = requests.post(
        f"{server.url}/games",
        json={"kind": kind, "seats": ["Anna", "Ben"], "seed": 7},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    body = created.json()
    return Table(server.url, body["game"]["game_id"], [s["token"] for s in body["seats"]])


def _awaited(table: Table) -> int:
    pending = requests.get(f"{table.url}/games/{table.game_id}/pending", timeout=10).json()
    seat: int = pending["awaited"][0]
    return seat


def _legal(table: Table, seat: int) -> list[dict[str, Any]]:
    answer = requests.get(
        f"{table.url}/games/{table.game_id}/legal-commands", headers=table.seat(seat), timeout=10
    )
    commands: list[dict[str, Any]] = answer.json()["commands"]
    return commands


@pytest.fixture(scope="module")
def board(live_server: LiveServer) -> Table:
    """A board game in which the first player placed a priest (a red leader)."""
    table = _table(live_server, "board")
    seat = _awaited(table)
    priest = next(
        c for c in _legal(table, seat) if c["type"] == "PlaceLeader" and c["leader"] == "red"
    )
    assert table.command(seat, priest, "en").status_code == 200
    return table


def _placed(response: requests.Response) -> str:
    assert response.status_code == 200, response.text
    placed = [e for e in response.json()["items"] if e["type"] == "board.LeaderPlaced"]
    description: str = placed[0]["description"]
    return description


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("de-DE,de;q=0.9,en;q=0.5", ("setzt den Priester auf",)),
        ("hu", ("lerakja a főpapot",)),
        ("it-IT", ("piazza il sacerdote in",)),
        ("en", ("places the priest at",)),
    ],
)
def test_the_event_log_speaks_the_language_the_client_accepts(
    board: Table, language: str, words: tuple[str, ...]
) -> None:
    # Given a board game in which a priest was placed
    # When a seat reads the log with Accept-Language
    response = board.events(1, language)
    # Then the move is told in that language's game terms, and the answer says so
    description = _placed(response)
    assert all(word in description for word in words), description
    spoken = language[:2]
    assert response.headers["Content-Language"] == spoken
    assert "accept-language" in response.headers["Vary"].lower()
    assert "authorization" in response.headers["Vary"].lower()
    # And its validator is this language's: English keeps the plain per-viewer ETag
    etag = response.headers["ETag"].strip('"').partition(":")[0]  # without the coding
    assert etag.endswith("-seat1" if spoken == "en" else f"-seat1-{spoken}")


@pytest.mark.parametrize("language", ["fr-FR, es;q=0.5", None, "*"])
def test_a_language_we_do_not_write_gets_english(board: Table, language: str | None) -> None:
    response = board.events(1, language)
    assert "places the priest at" in _placed(response)
    assert response.headers["Content-Language"] == "en"


def test_one_languages_etag_is_no_304_for_another(board: Table) -> None:
    # Given the German log's ETag
    german = board.events(0, "de")
    # When the same seat asks with it for the English log, and then for the German one
    english = requests.get(
        f"{board.url}/games/{board.game_id}/events?limit=500",
        headers={**board.seat(0, "en"), "If-None-Match": german.headers["ETag"]},
        timeout=10,
    )
    again = requests.get(
        f"{board.url}/games/{board.game_id}/events?limit=500",
        headers={**board.seat(0, "de"), "If-None-Match": german.headers["ETag"]},
        timeout=10,
    )
    # Then English comes in full, and German is not modified
    assert english.status_code == 200 and "places the priest" in _placed(english)
    assert again.status_code == 304  # (a 304 sends no Content-* header: RFC 9110 15.4.5)
    assert "accept-language" in again.headers["Vary"].lower()


@pytest.mark.parametrize("language", ["en", "de", "hu", "it"])
def test_another_seats_draw_is_told_without_its_tiles(board: Table, language: str) -> None:
    # Given each seat drew its hand at the start (board.TilesDrawn, secret to the others)
    def draws(seat: int) -> dict[int, str]:
        items = board.events(seat, language).json()["items"]
        return {
            e["data"]["seat"]: e["description"] for e in items if e["type"] == "board.TilesDrawn"
        }

    as_anna, as_ben = draws(0), draws(1)
    tiles = {Words(language, ()).tile_name(c).lower() for c in ("black", "red", "blue", "green")}
    # Then a seat's own draw names its tiles, and the other seat reads only how many
    for hidden, shown in ((as_ben[0], as_anna[0]), (as_anna[1], as_ben[1])):
        assert any(tile in shown.lower() for tile in tiles), shown
        assert "6" in hidden and not any(tile in hidden.lower() for tile in tiles), hidden
    # And a spectator reads no tiles either
    spectator = requests.get(
        f"{board.url}/games/{board.game_id}/events", headers={"Accept-Language": language}
    ).json()["items"]
    for event in spectator:
        if event["type"] == "board.TilesDrawn":
            assert not any(tile in event["description"].lower() for tile in tiles)


@pytest.mark.parametrize("language", ["de", "hu", "it", "en"])
def test_a_refused_move_states_its_rule_in_the_clients_language(
    board: Table, language: str
) -> None:
    # Given it is not Ben's turn... or it is: whoever is not awaited sends a move
    seat = 1 - _awaited(board)
    # When that seat sends a command
    refused = board.command(seat, {"type": "Pass"}, language)
    # Then the refusal names the rule and states it in one sentence in that language
    assert refused.status_code == 409, refused.text
    problem = refused.json()
    assert refused.headers["Content-Language"] == language
    assert "accept-language" in refused.headers["Vary"].lower()
    sentence = rule_words(problem["rule"], language)
    assert sentence and problem["description"] == sentence
    if language != "en":
        assert sentence != rule_words(problem["rule"], "en")


def test_every_event_of_a_played_card_game_is_told_in_every_language(
    live_server: LiveServer,
) -> None:
    # Given a card game played for a few moves
    table = _table(live_server, "cards")
    for _ in range(6):
        seat = _awaited(table)
        assert table.command(seat, _legal(table, seat)[0], "en").status_code == 200
    # Then each event has words in each language, with every placeholder filled
    for language in ("en", "de", "hu", "it"):
        items = table.events(0, language).json()["items"]
        for event in items:
            assert event["description"].strip(), event
            assert "{" not in event["description"], event


def test_an_explanation_gives_each_rule_a_sentence_in_the_clients_language(
    board: Table,
) -> None:
    placed = board.events(0, "en").json()["items"]
    version = next(e["version"] for e in placed if e["type"] == "board.LeaderPlaced")
    answer = requests.get(
        f"{board.url}/games/{board.game_id}/versions/{version}/explanation",
        headers=board.seat(0, "hu"),
        timeout=10,
    )
    assert answer.status_code == 200
    assert answer.headers["Content-Language"] == "hu"
    rules = answer.json()["rules"]
    assert rules
    for rule in rules:
        assert rule["description"] and rule["description"] == rule_words(rule["id"], "hu")
