"""``GET /games/{id}/versions/{v}/explanation``: the command behind a version, who sent it and
when, its rule trail with links, the states before and after, and the seat's alternatives;
redacted for the caller while the game runs."""

from __future__ import annotations

import random
from typing import Any

from flask.testing import FlaskClient

from service import rules
from tests.service.api.conftest import Api, admin, problem

SEED = 3_141_592_653


def _explain(client: FlaskClient, game_id: str, version: int, headers: Any) -> dict[str, Any]:
    response = client.get(f"/games/{game_id}/versions/{version}/explanation", headers=headers)
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def test_a_move_explained_to_its_seat_to_another_seat_and_to_the_admin(
    api: Api, client: FlaskClient
) -> None:
    game = api.create("board", 2, seed=SEED)
    rng = random.Random(5)
    seat = api.awaited(game)[0]
    legal = api.legal(game, seat)
    sent = rng.choice(legal)
    before = api.version(game)
    posted = api.command(game, seat, sent)
    assert posted.status_code == 200
    version = posted.get_json()["version"]

    mine = _explain(client, game.game_id, version, game.seat(seat))
    other = _explain(client, game.game_id, version, game.seat(1 - seat))
    full = _explain(client, game.game_id, version, admin())

    assert mine["command"] == sent and mine["seat"] == seat and mine["actor"] == f"seat:{seat}"
    assert mine["command_version"] == before + 1 and mine["recorded_at"]
    assert sorted(map(str, mine["alternatives"])) == sorted(map(str, legal))
    assert mine["before"]["version"] == before and mine["after"]["version"] == version
    assert mine["before"]["viewer"] == f"seat:{seat}" and not mine["complete"]
    assert mine["rules"], "a command's events carry their rule trail"
    for link in mine["rules"]:
        path, _, anchor = link["url"].partition("#")
        assert path == "/rules/board" and anchor == link["id"]
        assert anchor in rules.anchors("board")
    assert other["command"] is None and other["alternatives"] is None
    assert other["after"]["viewer"] == f"seat:{1 - seat}"
    assert other["rules"] == mine["rules"]
    assert full["complete"] and full["command"] == sent and full["alternatives"]
    assert full["after"]["viewer"] == "admin"


def test_the_start_and_an_undo_explained(api: Api, client: FlaskClient) -> None:
    game = api.create("cards", 2, seed=SEED)
    start = _explain(client, game.game_id, 1, {})
    assert start["before"] is None and start["command"]["type"] == "CreateGame"
    assert "seed" not in start["command"] and start["alternatives"] is None
    assert [r["id"] for r in start["rules"]] == ["C-SETUP-2", "C-SETUP-4"]
    assert _explain(client, game.game_id, 1, admin())["command"]["seed"] == SEED
    seat = api.awaited(game)[0]
    back_to = api.version(game)
    assert api.command(game, seat, api.legal(game, seat)[0]).status_code == 200
    asked = client.post(
        f"/games/{game.game_id}/undo-requests",
        json={"to_version": back_to, "reason": "misclick"},
        headers={**game.seat(1 - seat), "If-Match": "*"},
    )
    assert asked.status_code in (200, 201), asked.get_json()
    version = api.version(game)
    undo = _explain(client, game.game_id, version, {})
    assert undo["command"]["type"] == "RequestUndo" and undo["alternatives"] is None
    assert undo["rules"] is None
    problem(client.get(f"/games/{game.game_id}/versions/{version + 1}/explanation"), 404)


def test_after_the_end_everyone_gets_everything(api: Api, client: FlaskClient) -> None:
    """Given a board game played to its end, a spectator's explanation and record are
    complete: the seed, every command, the seats' alternatives, full states."""
    game = api.create("board", 2, seed=SEED)
    rng = random.Random(11)
    for _ in range(2_000):  # bounded: seeded board games last about 200 commands
        awaited = api.awaited(game)
        if not awaited:
            break
        seat = awaited[0]
        assert api.command(game, seat, rng.choice(api.legal(game, seat))).status_code == 200
    assert not api.awaited(game)
    version = api.version(game) - 1
    seen = _explain(client, game.game_id, version, {})
    assert seen["complete"] and seen["after"]["viewer"] == "spectator"
    assert (
        seen["after"]["state"] == _explain(client, game.game_id, version, admin())["after"]["state"]
    )
    start = _explain(client, game.game_id, 1, {})
    assert start["command"]["seed"] == SEED
    moved = next(
        _explain(client, game.game_id, v, {})
        for v in range(version, 1, -1)
        if _explain(client, game.game_id, v, {})["alternatives"]
    )
    assert moved["command"] in moved["alternatives"]
    exported = client.get(f"/games/{game.game_id}/record")
    assert b'"complete":true' in exported.data.splitlines()[0]


def test_a_conflicts_outcome_explained_names_sides_strengths_winner_removals_and_points(
    api: Api, client: FlaskClient
) -> None:
    """rule B-REVOLT-5, B-WAR-6: given a board game played until a conflict is settled, the
    explanation of the version of its outcome names it all; its points only to the winner."""
    game = api.create("board", 2, seed=SEED)
    rng = random.Random(7)
    outcome: dict[str, Any] | None = None
    for _ in range(400):  # bounded: a seeded game has a conflict within a few dozen commands
        seat = api.awaited(game)[0]
        posted = api.command(game, seat, rng.choice(api.legal(game, seat)))
        assert posted.status_code == 200
        found = [e for e in posted.get_json()["events"] if e["type"] == "board.ConflictResolved"]
        if found:
            outcome = found[0]
            break
    assert outcome is not None, "no conflict settled"
    version, data = outcome["version"], outcome["data"]
    winner, loser = data["winner"], data["loser"]

    full = _explain(client, game.game_id, version, admin())
    won = _explain(client, game.game_id, version, game.seat(winner))
    lost = _explain(client, game.game_id, version, game.seat(loser))
    watched = _explain(client, game.game_id, version, {})

    assert full["type"] == "board.ConflictResolved" and full["event"]["version"] == version
    named = full["event"]["data"]
    assert {named["attacker"], named["defender"]} == {winner, loser}
    assert named["attacker_strength"] == named["attacker_base"] + named["attacker_committed"]
    assert named["defender_strength"] == named["defender_base"] + named["defender_committed"]
    assert named["removed"][0]["piece"] == "leader" and named["removed"][0]["seat"] == loser
    assert named["points"] and all(p["seat"] == winner for p in named["points"])
    assert {"B-REVOLT-5", "B-WAR-6"} & {r["id"] for r in full["rules"]}
    assert won["event"]["data"] == named
    for other in (lost, watched):  # B-HIDDEN-1: the points are secret, the rest is not
        assert other["event"]["data"] == {k: v for k, v in named.items() if k != "points"}
