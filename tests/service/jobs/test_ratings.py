"""Ratings as a projection of the rated games' logs (issue 25): rated games played through
the HTTP API with player keys, counted by the ``rate_game`` job on a real RQ queue run by a
real (in-process) worker, read back through the ratings endpoints, and rebuilt from the
games' events by ``python -m service ratings rebuild`` with exactly the same numbers."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from rq.registry import FailedJobRegistry, FinishedJobRegistry

from service.application.game_service import GameService
from service.jobs.enqueue import RATE_GAME
from service.jobs.queues import enqueue_once
from service.jobs.tasks import sweep
from service.store.port import COUNTED
from tests.service.api.conftest import admin, auth
from tests.service.jobs.conftest import Jobs

KINDS = ("board", "cards")


def make_player(client: FlaskClient, name: str) -> dict[str, Any]:
    made = client.post("/players", json={"name": name})
    assert made.status_code == 201, made.get_json()
    found: dict[str, Any] = made.get_json()
    return found


def create(
    client: FlaskClient, kind: str, players: list[dict[str, Any]], seed: int, *, rated: bool
) -> str:
    body = {
        "kind": kind,
        "seats": [{"type": "player", "player": p["player_id"]} for p in players],
        "seed": seed,
        "rated": rated,
    }
    created = client.post("/games", json=body, headers=admin())
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["game"].get("rated", False) is rated
    game_id: str = created.get_json()["game"]["game_id"]
    return game_id


def play(client: FlaskClient, game_id: str, players: list[dict[str, Any]], seed: int) -> None:
    """Random legal commands until the game is over, each sent with its seat's player key."""
    rng = random.Random(seed)
    pending = client.get(f"/games/{game_id}/pending").get_json()
    version = client.get(f"/games/{game_id}").get_json()["version"]
    legal: dict[str, Any] | None = None
    for _ in range(5000):  # bounded: the longest random game is well below
        awaited = pending["awaited"]
        if not awaited:
            return
        seat = rng.choice(sorted(awaited))
        key = players[seat]["key"]
        if legal is None or legal["seat"] != seat:
            found = client.get(f"/games/{game_id}/legal-commands", headers=auth(key))
            assert found.status_code == 200, found.get_json()
            legal = found.get_json()
        assert legal is not None
        command = rng.choice(legal["commands"])
        answer = client.post(
            f"/games/{game_id}/commands",
            json=command,
            headers={**auth(key), "If-Match": f'"{version}"'},
        )
        assert answer.status_code == 200, answer.get_json()
        data = answer.get_json()
        version, pending, legal = data["version"], data["next"], data.get("legal")
    raise AssertionError(f"game {game_id} not over after 5000 commands")


def places(client: FlaskClient, game_id: str) -> list[int]:
    result = client.get(f"/games/{game_id}/result")
    assert result.status_code == 200, result.get_json()
    return [seat["place"] for seat in result.get_json()["result"]["seats"]]


def no_failed_jobs(jobs: Jobs) -> None:
    assert FailedJobRegistry(queue=jobs.queue).get_job_ids() == []


def read_model(client: FlaskClient, players: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything the ratings endpoints say: both leaderboards, every player's ratings and
    histories (every page)."""
    seen: dict[str, Any] = {}
    for kind in KINDS:
        items, offset = [], 0
        while offset is not None:
            page = client.get(f"/ratings/{kind}?limit=2&offset={offset}")
            assert page.status_code == 200, page.get_json()
            items += page.get_json()["items"]
            offset = page.get_json()["next_offset"]
        seen[f"board:{kind}"] = items
    for player in players:
        pid = player["player_id"]
        ratings = client.get(f"/players/{pid}/ratings")
        assert ratings.status_code == 200, ratings.get_json()
        seen[f"ratings:{pid}"] = ratings.get_json()
        for kind in KINDS:
            history = client.get(f"/players/{pid}/ratings/{kind}/history?limit=100")
            assert history.status_code == 200
            seen[f"history:{pid}:{kind}"] = history.get_json()["items"]
    return seen


def drop_ratings(redis_url: str, prefix: str) -> int:
    """Delete every key of the ratings read model (all kinds)."""
    client = redis.Redis.from_url(redis_url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:{{ratings:*", count=1000))
        return int(client.delete(*keys)) if keys else 0
    finally:
        client.close()


def test_a_rated_game_needs_every_seat_bound_to_a_player_of_its_own(
    client: FlaskClient,
) -> None:
    ann, bob = make_player(client, "Ann"), make_player(client, "Bob")
    seat = {"type": "player", "player": ann["player_id"]}
    refused = [
        [seat, "Cy"],  # a seat held by a token
        [seat, {"type": "open"}],  # a seat left to claim
        [seat, {"bot": "random"}],  # a bot's seat
        [seat, seat],  # one player in two seats
    ]
    for seats in refused:
        # when a rated game is asked for with such seats
        answer = client.post(
            "/games", json={"kind": "board", "seats": seats, "rated": True}, headers=admin()
        )
        # then it is a 422 naming `rated`, and no game is made
        assert answer.status_code == 422, (seats, answer.get_json())
        assert answer.mimetype == "application/problem+json"
        assert answer.get_json()["field"] == "rated"
    mine = client.get("/players/me/games", headers=auth(ann["key"]))
    assert mine.get_json()["items"] == []
    # and with a player of its own in every seat it is made, and says it is rated
    seats = [seat, {"type": "player", "player": bob["player_id"]}]
    made = client.post(
        "/games", json={"kind": "board", "seats": seats, "rated": True}, headers=admin()
    )
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["game"]["rated"] is True
    game_id = made.get_json()["game"]["game_id"]
    assert client.get(f"/games/{game_id}").get_json()["rated"] is True


def test_a_two_seat_rated_game_moves_the_winner_up_and_the_loser_down(
    client: FlaskClient, jobs: Jobs, games: GameService
) -> None:
    # given a rated two-seat board game played to its end by two players
    players = [make_player(client, "Ann"), make_player(client, "Bob")]
    game_id = create(client, "board", players, 5, rated=True)
    play(client, game_id, players, 5)
    first, second = places(client, game_id)
    assert first != second, "a tie: pick another seed"
    winner, loser = (0, 1) if first < second else (1, 0)
    # when the worker runs the jobs the end of the game queued
    assert f"rate-{game_id}" in jobs.queue.job_ids
    jobs.run()
    no_failed_jobs(jobs)
    # then the winner is above the starting rating and the loser below, on the leaderboard
    board = client.get("/ratings/board").get_json()
    assert [e["player_id"] for e in board["items"]] == [
        players[winner]["player_id"],
        players[loser]["player_id"],
    ]
    assert board["total"] == 2 and board["next_offset"] is None
    up, down = (e["rating"] for e in board["items"])
    assert up["mu"] > 25 > down["mu"]
    assert up["ordinal"] > down["ordinal"]
    assert up["games"] == down["games"] == 1
    # and each player's history holds the game, from no rating to the new one
    for seat in (winner, loser):
        pid = players[seat]["player_id"]
        history = client.get(f"/players/{pid}/ratings/board/history").get_json()
        [entry] = history["items"]
        assert entry["game_id"] == game_id and entry["seat"] == seat
        assert entry["before"] is None
        assert (
            entry["after"] == client.get(f"/players/{pid}/ratings").get_json()["ratings"]["board"]
        )
        assert entry["place"] == places(client, game_id)[seat]
    # and the card game's leaderboard is untouched
    assert client.get("/ratings/cards").get_json()["total"] == 0


def test_an_unrated_game_changes_no_rating(
    client: FlaskClient, jobs: Jobs, games: GameService
) -> None:
    # given a game between two players, not rated, played to its end
    players = [make_player(client, "Ann"), make_player(client, "Bob")]
    game_id = create(client, "board", players, 5, rated=False)
    play(client, game_id, players, 5)
    # when the worker runs whatever was queued
    assert not any(job.startswith("rate-") for job in jobs.queue.job_ids)
    jobs.run()
    no_failed_jobs(jobs)
    # then no rating changed: no leaderboard entry, no rating, no history
    for kind in KINDS:
        assert client.get(f"/ratings/{kind}").get_json()["items"] == []
    for player in players:
        pid = player["player_id"]
        assert client.get(f"/players/{pid}/ratings").get_json()["ratings"] == {}
        assert client.get(f"/players/{pid}/ratings/board/history").get_json()["total"] == 0
    # and even a rating job run for it counts nothing
    assert games.ratings.rate(game_id) == "unrated"


def test_a_rated_game_whose_job_runs_twice_is_counted_once(
    client: FlaskClient, jobs: Jobs, games: GameService
) -> None:
    # given a rated game counted by its job
    players = [make_player(client, "Ann"), make_player(client, "Bob")]
    game_id = create(client, "board", players, 5, rated=True)
    play(client, game_id, players, 5)
    jobs.run()
    before = read_model(client, players)
    assert before["board:board"][0]["rating"]["games"] == 1
    # when its job runs again (another id: a duplicate the queue did not catch), twice
    for again in ("again-1", "again-2"):
        enqueue_once(jobs.queue, jobs.settings, RATE_GAME, f"rate-{game_id}-{again}", game_id)
    jobs.run()
    no_failed_jobs(jobs)
    # then nothing changed: the game is counted once
    assert read_model(client, players) == before
    assert games.ratings.rate(game_id) == COUNTED


def test_a_rated_game_whose_job_was_lost_is_counted_by_the_sweep(
    client: FlaskClient, jobs: Jobs, games: GameService
) -> None:
    # given a rated game that ended, and its rating job lost (a process died before it ran)
    players = [make_player(client, "Ann"), make_player(client, "Bob")]
    game_id = create(client, "board", players, 5, rated=True)
    play(client, game_id, players, 5)
    jobs.queue.fetch_job(f"rate-{game_id}").delete()  # type: ignore[union-attr]
    jobs.run()
    assert client.get("/ratings/board").get_json()["total"] == 0
    assert games.ratings.store.expected("board", 10) == [game_id]
    # when the sweep runs on the worker
    jobs.queue.enqueue(sweep, job_id="sweep-now")
    jobs.run()
    no_failed_jobs(jobs)
    # then the game is counted, and expected no more
    assert client.get("/ratings/board").get_json()["total"] == 2
    assert games.ratings.store.counted("board", game_id)
    assert games.ratings.store.expected("board", 10) == []


# (kind, seats, seed) of the rated games of the rebuild test: both kinds, 2 to 4 seats.
RATED_GAMES = [
    ("board", 2, 21),
    ("cards", 2, 22),
    ("board", 3, 23),
    ("cards", 3, 24),
    ("board", 4, 25),
    ("cards", 4, 26),
    ("board", 2, 27),
]


@pytest.fixture
def archive_dir(job_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An archive tier of this test's own (set before the app and the jobs are built)."""
    found = tmp_path / "archive"
    monkeypatch.setenv("TIGRIS_ARCHIVE_DIR", str(found))
    job_env["TIGRIS_ARCHIVE_DIR"] = str(found)
    return found


def test_ratings_rebuilt_from_the_log_equal_the_live_ones(
    archive_dir: Path,
    client: FlaskClient,
    jobs: Jobs,
    games: GameService,
    job_env: dict[str, str],
) -> None:
    # given five players and rated games of both kinds with 2, 3 and 4 seats among them,
    # each counted by the worker when it ended
    pool = [make_player(client, name) for name in ("Ann", "Bob", "Cy", "Dee", "Eve")]
    rng = random.Random(3)
    ended = []
    for kind, seats, seed in RATED_GAMES:
        players = rng.sample(pool, seats)
        game_id = create(client, kind, players, seed, rated=True)
        play(client, game_id, players, seed)
        jobs.run()
        ended.append(game_id)
    no_failed_jobs(jobs)
    live = read_model(client, pool)
    counted = sum(e["rating"]["games"] for k in KINDS for e in live[f"board:{k}"])
    assert counted == sum(seats for _, seats, _ in RATED_GAMES)
    # and the first game of each kind moved to the archive tier (its events out of Redis)
    for game_id in ended[:2]:
        moved = client.post(f"/ops/games/{game_id}/archive", headers=admin())
        assert moved.status_code == 200, moved.get_json()
        assert games.store.info(game_id).fields.get("archived")  # type: ignore[union-attr]
    assert list(archive_dir.rglob("*"))
    # when the read model is dropped
    assert drop_ratings(job_env["REDIS_URL"], job_env["TIGRIS_KEY_PREFIX"]) > 0
    assert client.get("/ratings/board").get_json()["total"] == 0
    # and rebuilt from the games' events by the command
    done = subprocess.run(
        [sys.executable, "-m", "service", "ratings", "rebuild"],
        env=job_env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "board: 4 rated games counted" in done.stdout, done.stdout
    assert "cards: 3 rated games counted" in done.stdout, done.stdout
    # then every leaderboard, rating and history is exactly the same
    assert read_model(client, pool) == live
    # when it is dropped again and the games' jobs run in the reverse order of their ends
    drop_ratings(job_env["REDIS_URL"], job_env["TIGRIS_KEY_PREFIX"])
    for game_id in reversed(ended):
        enqueue_once(jobs.queue, jobs.settings, RATE_GAME, f"rate-{game_id}-late", game_id)
    jobs.run()
    no_failed_jobs(jobs)
    # (the games found before a later one queued rebuilds of their kinds, which ran)
    finished = FinishedJobRegistry(queue=jobs.queue).get_job_ids()
    assert {j.rsplit("-", 1)[0] for j in finished if j.startswith("ratings-rebuild-")} == {
        "ratings-rebuild-board",
        "ratings-rebuild-cards",
    }
    # then the projection counted them in the order they ended all the same
    assert read_model(client, pool) == live
