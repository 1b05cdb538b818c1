"""``GET /games/{id}/record``, ``POST /games/import`` and ``python -m service verify``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from domain.games import all_games
from service.application import record
from tests.service.api.conftest import Api, Game, admin, auth, problem

SEED = 8_675_309_123


def _play(api: Api, game: Game, commands: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(commands):
        awaited = api.awaited(game)
        if not awaited:
            return
        seat = awaited[0]
        response = api.command(game, seat, rng.choice(api.legal(game, seat)))
        assert response.status_code == 200, response.get_json()


def _lines(body: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in body.splitlines()]


def test_the_admin_gets_a_complete_record_and_a_seat_a_redacted_one(
    api: Api, client: FlaskClient
) -> None:
    game = api.create("board", 2, seed=SEED)
    _play(api, game, 6, 1)
    full = client.get(f"/games/{game.game_id}/record", headers=admin())
    assert full.status_code == 200 and full.mimetype == "application/jsonl"
    verified = record.verify(full.data, all_games())
    assert verified.header["game_id"] == game.game_id
    assert full.headers["ETag"] == f'"{len(verified.events)}-admin"'
    seat = client.get(f"/games/{game.game_id}/record", headers=game.seat(0))
    spectator = client.get(f"/games/{game.game_id}/record")
    for redacted in (seat, spectator):
        assert redacted.status_code == 200
        assert str(SEED) not in redacted.get_data(as_text=True)
        lines = _lines(redacted.data)
        assert lines[0]["complete"] is False
        assert [line["hash"] for line in lines[1:]] == [x["hash"] for x in _lines(full.data)[1:]]
    unknown = client.get("/games/nosuchgame/record")
    problem(unknown, 404)


def test_a_verified_record_is_imported_as_a_new_game_by_the_admin_only(
    api: Api, client: FlaskClient
) -> None:
    game = api.create("cards", 2, seed=SEED)
    _play(api, game, 8, 2)
    body = client.get(f"/games/{game.game_id}/record", headers=admin()).data
    problem(client.post("/games/import", data=body), 403)  # a spectator
    problem(client.post("/games/import", data=body, headers=game.seat(0)), 401)  # no game's
    created = client.post(
        "/games/import", data=body, headers={**admin(), "Content-Type": "application/jsonl"}
    )
    assert created.status_code == 201, created.get_json()
    imported = created.get_json()
    new_id = imported["game"]["game_id"]
    assert new_id != game.game_id and imported["game"]["version"] == len(_lines(body)) - 1
    before = client.get(f"/games/{game.game_id}/state", headers=admin()).get_json()["state"]
    after = client.get(f"/games/{new_id}/state", headers=admin()).get_json()["state"]
    assert before == after
    copy = Game(new_id, "cards", [s["token"] for s in imported["seats"]], 0)
    _play(api, copy, 1, 3)  # the new seat tokens play on
    lines = _lines(body)
    lines[3]["meta"]["recorded_at"] = "2000-01-01T00:00:00+00:00"
    tampered = client.post("/games/import", data=record.dump(lines), headers=admin())
    assert problem(tampered, 422)["version"] == 3


def test_verify_on_the_command_line(api: Api, client: FlaskClient, tmp_path: Path) -> None:
    game = api.create("board", 2, seed=SEED)
    _play(api, game, 4, 4)
    good = tmp_path / "good.jsonl"
    good.write_bytes(client.get(f"/games/{game.game_id}/record", headers=admin()).data)
    lines = _lines(good.read_bytes())
    bad = tmp_path / "bad.jsonl"
    lines[2]["data"]["seat"] = 1 - lines[2]["data"].get("seat", 0)
    bad.write_bytes(record.dump(lines))
    redacted = tmp_path / "redacted.jsonl"
    redacted.write_bytes(client.get(f"/games/{game.game_id}/record", headers=auth(None)).data)

    def verify(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "service", "verify", str(path), *extra],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    ok = verify(good)
    assert ok.returncode == 0 and "OK" in ok.stdout, ok.stderr
    assert verify(good, "--head", lines[0]["head"]).returncode == 0
    assert verify(good, "--head", "0" * 64).returncode == 1
    failed = verify(bad)
    assert failed.returncode == 1 and "version 2" in failed.stdout
    assert verify(redacted).returncode == 2
    assert verify(tmp_path / "missing.jsonl").returncode == 2
