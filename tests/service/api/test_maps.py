"""The map in the contract (issue 24): ``GET /rules/{kind}/map`` and ``GET /games/{id}/map``
serve what a game begins with (the board's size, rivers, starting temples and treasures,
monuments; the card game's columns, treasures and bridges) as the games' registrations
describe it. Every answer here is checked against openapi.yaml by the contract client."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.board.geometry import BORDER_TREASURES, COLS, RIVER, ROWS, coords
from domain.board.model import MONUMENTS
from tests.service.api.conftest import Api, problem


def _map(client: FlaskClient, path: str) -> tuple[dict[str, Any], str]:
    response = client.get(path)
    assert response.status_code == 200, response.get_json()
    assert response.headers["Cache-Control"] == "public, max-age=86400"
    body: dict[str, Any] = response.get_json()
    return body, str(response.headers["ETag"])


def _squares(squares: list[list[int]]) -> list[tuple[int, int]]:
    return sorted((row, col) for row, col in squares)


def test_the_board_map_is_the_board_a_new_game_begins_with(client: FlaskClient, api: Api) -> None:
    # given the board game's map, and a new board game's first state
    board, _ = _map(client, "/rules/board/map")
    game = api.create("board", seed=24)
    state = api.get(f"/games/{game.game_id}/state").get_json()["state"]
    # then its size and rivers are the domain's geometry, row by row in the text notation too
    assert (board["kind"], board["rows"], board["columns"]) == ("board", ROWS, COLS)
    assert _squares(board["rivers"]) == [coords(sq) for sq in range(ROWS * COLS) if RIVER[sq]]
    assert len(board["rivers"]) == 41
    # and the starting temples and treasures are the new game's (a red tile each, one
    # treasure each), the border temples' special treasures among them
    assert _squares(board["temples"]) == _squares([t["at"] for t in state["tiles"]])
    assert {t["colour"] for t in state["tiles"]} == {"red"} and len(board["temples"]) == 10
    assert _squares(board["treasures"]) == _squares(state["treasures"])
    assert _squares(board["border_treasures"]) == sorted(coords(sq) for sq in BORDER_TREASURES)
    assert set(_squares(board["border_treasures"])) < set(_squares(board["treasures"]))
    # and the monuments are the unbuilt ones, each with its two colours
    assert [m["monument"] for m in board["monuments"]] == state["unbuilt_monuments"]
    assert [m["colours"] for m in board["monuments"]] == [str(m).split("-") for m in MONUMENTS]
    assert board["options"] == state["options"] == {"open_scoring": False}
    assert sum(board["tiles"].values()) == 153 and board["hand_size"] == 6


def test_the_card_map_is_the_display_a_new_game_begins_with(client: FlaskClient, api: Api) -> None:
    # given the card game's map, and a new card game's first state
    cards, _ = _map(client, "/rules/cards/map")
    game = api.create("cards", seats=3, seed=24)
    display = api.get(f"/games/{game.game_id}/state").get_json()["state"]["display"]
    # then its columns each begin with a treasure, and its bridge slots are the display's
    assert cards["kind"] == "cards" and cards["columns"] == len(display["columns"]) == 8
    assert cards["treasures"] == [
        c for c, column in enumerate(display["columns"]) if column[0]["card"] == "treasure"
    ]
    assert len(cards["bridges"]) == len(display["bridges"]) == 7
    assert [b["columns"] for b in cards["bridges"]] == [[b, b + 1] for b in range(7)]
    assert cards["ships"] == ["ship-black", "ship-red", "ship-green"]
    assert cards["cards"] == {"black": 40, "red": 65, "blue": 40, "green": 40}


def test_a_games_map_is_the_map_of_its_kind_and_options(client: FlaskClient, api: Api) -> None:
    # given a card game created with a variant, and the maps of its kind with and without it
    game = api.create("cards", options={"trader_takes_one": True})
    plain, plain_tag = _map(client, "/rules/cards/map")
    variant, variant_tag = _map(client, "/rules/cards/map?trader_takes_one=true")
    # when its map is read by the game
    mine, my_tag = _map(client, f"/games/{game.game_id}/map")
    # then it is the variant's map, ETag included, and the variant's differs from the plain one
    assert mine == variant and my_tag == variant_tag
    assert variant["options"]["trader_takes_one"] is True
    assert plain["options"]["trader_takes_one"] is False and plain_tag != variant_tag
    assert {k: v for k, v in plain.items() if k != "options"} == {
        k: v for k, v in variant.items() if k != "options"
    }
    # and a board game's option is in its map too
    scored, _ = _map(client, "/rules/board/map?open_scoring=true&")
    assert scored["options"] == {"open_scoring": True}


def test_the_map_is_cacheable_and_revalidated(client: FlaskClient) -> None:
    # given the board map and its ETag
    _, etag = _map(client, "/rules/board/map")
    # when it is asked for again with that ETag (plain, weak, or with a coding)
    for held in (etag, f"W/{etag}", etag[:-1] + ':gzip"', f'"other", {etag}'):
        again = client.get("/rules/board/map", headers={"If-None-Match": held})
        # then the answer is a 304 without a body, naming the ETag that matched
        assert again.status_code == 304 and again.get_data() == b""
        assert again.headers["Cache-Control"] == "public, max-age=86400"
    # and another map's ETag is no match
    changed = client.get("/rules/board/map?open_scoring=true", headers={"If-None-Match": etag})
    assert changed.status_code == 200


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("open_scoring=maybe", "open_scoring"),
        ("open_scoring=1", "open_scoring"),
        ("trader_takes_one=true", "trader_takes_one"),  # the card game's option
        ("open_scoring=true&open_scoring=false", "open_scoring"),
    ],
)
def test_bad_options_are_a_400_naming_the_option(
    client: FlaskClient, query: str, field: str
) -> None:
    # when the board map is asked for with a bad option; then a 400 names it
    refused = problem(client.get(f"/rules/board/map?{query}"), 400)
    assert refused["field"] == field, refused


def test_a_kind_or_game_not_on_offer_has_no_map(client: FlaskClient) -> None:
    assert problem(client.get("/rules/chess/map"), 404)["detail"] == "no game of kind 'chess'"
    assert problem(client.get(f"/games/{'0' * 32}/map"), 404)


def test_a_square_off_the_board_in_a_command_is_refused_with_the_bounds(api: Api) -> None:
    # given a board game, and the awaited seat's own tile placement
    game = api.create("board", seed=24)
    seat = api.awaited(game)[0]
    placement = next(c for c in api.legal(game, seat) if c["type"] == "PlaceTile")
    version = api.version(game)
    for off in ([11, 0], [0, 16], [-1, 3]):
        # when it is sent on a square off the board
        refused = api.command(game, seat, {**placement, "at": off})
        # then the command is refused as an invalid field, with the board's bounds
        body = problem(refused, 422)
        assert body["field"] == "at"
        assert "[row, col]" in body["detail"] and "row 0-10 and column 0-15" in body["detail"]
    # and nothing changed
    assert api.version(game) == version
