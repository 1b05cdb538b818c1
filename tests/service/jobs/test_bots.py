"""Bot seats: created through the API, played by jobs on a real RQ worker (in-process
``SimpleWorker``) against the real Redis; one move per decision whatever the duplicates;
bot-only games to the end; a bot decides from its seat's view only, on the job path too."""

from __future__ import annotations

import random
import secrets
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from domain.bots import Budget
from domain.games import all_games
from service.application.bots import BotSeat
from service.application.game_service import GameService
from service.application.mapper import CommandMeta, StoredEvent
from service.application.tokens import hash_token
from service.events import SERVICE_KIND, UndoAnswered
from service.jobs import bots as jobs_bots
from service.jobs.bots import bot_command, job_id_of
from service.jobs.tasks import play_bot, sweep
from service.store.redis_streams import RedisKeys
from tests.bots.positions import GAMES, sample_positions, scramble
from tests.service.api.conftest import admin, auth
from tests.service.jobs.conftest import Jobs

SYSTEM = CommandMeta(command_id="test", actor="system", seat=None)
# Seeds of two-player games that seat 0 begins.
SEAT_0_STARTS = {"board": 2, "cards": 5}


def create(
    client: FlaskClient, kind: str, seats: list[Any], seed: int | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"kind": kind, "seats": seats}
    headers: dict[str, str] = {}
    if seed is not None:
        body["seed"] = seed
        headers = admin()
    response = client.post("/games", json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    created: dict[str, Any] = response.get_json()
    return created


def stored_token_seats(redis_client: redis.Redis, key_prefix: str, game_id: str) -> list[int]:
    """The seats the token store holds a token hash for (the raw hash, as stored)."""
    seats: dict[str, str] = redis_client.hgetall(RedisKeys(key_prefix).tokens(game_id))  # type: ignore[assignment]
    return sorted(int(seat) for seat in seats.values())


def plant_token(redis_client: redis.Redis, key_prefix: str, game_id: str, seat: int) -> str:
    """A token whose hash is written straight into the token store for ``seat``, as the
    versions before this rule stored one for every named seat, bots' included."""
    token = secrets.token_urlsafe(32)
    redis_client.hset(RedisKeys(key_prefix).tokens(game_id), hash_token(token), str(seat))
    return token


def commands_of(events: list[StoredEvent]) -> list[tuple[str, int, str]]:
    """(command id, version before it, actor) of each command's block of events."""
    blocks: list[tuple[str, int, str]] = []
    seen: set[str] = set()
    for event in events:
        command_id = str(event.metadata["command_id"])
        if command_id not in seen:
            seen.add(command_id)
            blocks.append((command_id, event.version - 1, str(event.metadata["actor"])))
        else:
            assert blocks[-1][0] == command_id, "a command's events are not consecutive"
    return blocks


def assert_one_move_per_decision(games: GameService, game_id: str) -> int:
    """Every bot command is keyed by the version it was decided at, and each such key shows
    up once: no decision was applied twice. Returns the number of bot moves."""
    game = games.repository.get(game_id)
    events = games.queries.events(game_id, game.info.start_version)
    moves = 0
    for command_id, before, actor in commands_of(events):
        if actor.startswith("bot:"):
            seat = int(actor.partition(":")[2])
            assert command_id == f"{game_id}-bot-{before}-{seat}"
            moves += 1
    return moves


def test_a_game_seats_bots_and_says_which(client: FlaskClient) -> None:
    created = create(client, "cards", ["Ann", {"bot": "mcts", "think_ms": 50}])
    seats = created["seats"]
    assert "bot" not in seats[0]
    assert seats[1]["name"] == "mcts bot" and seats[1]["bot"] == {"bot": "mcts", "think_ms": 50}
    game = client.get(f"/games/{created['game']['game_id']}").get_json()
    assert game["seats"][1]["bot"] == {"bot": "mcts", "think_ms": 50}
    named = create(client, "board", [{"bot": "greedy", "name": "Gilgamesh"}, "Bob"])
    assert named["seats"][0]["name"] == "Gilgamesh"
    assert named["seats"][0]["bot"] == {"bot": "greedy", "think_ms": 500}


@pytest.mark.parametrize(
    "seat",
    [
        {"bot": "smart"},
        {"bot": "mcts", "think_ms": 1.5},
        {"bot": "mcts", "think_ms": 10_001},
        {"bot": "random", "colour": "red"},
        {"think_ms": 100},
        {"bot": "random", "name": "two\nlines"},
        {"bot": "random", "name": None},
    ],
)
def test_a_bad_bot_seat_is_refused_and_creates_nothing(
    client: FlaskClient, games: GameService, seat: dict[str, Any]
) -> None:
    response = client.post("/games", json={"kind": "board", "seats": ["Ann", seat]})
    assert response.status_code == 422, response.get_json()
    assert response.get_json()["field"].startswith("seats")
    assert games.queries.list_games()[0] == []


def test_a_bot_awaited_at_creation_moves_through_its_job(
    client: FlaskClient, games: GameService, jobs: Jobs
) -> None:
    # given a board game whose first seat is a bot
    created = create(client, "board", [{"bot": "greedy"}, "Bob"], SEAT_0_STARTS["board"])
    game_id = created["game"]["game_id"]
    start = created["game"]["version"]
    # then its move is queued at once
    assert jobs.queue.job_ids == [job_id_of(game_id, start, 0)]
    # when a worker runs the jobs
    jobs.run()
    # then the bot played its turn, as itself, from version to version, until Bob is awaited
    game = games.repository.get(game_id)
    assert game.version > start
    assert game.rules.awaited(game.state) == frozenset({1})
    assert assert_one_move_per_decision(games, game_id) >= 1
    events = games.queries.events(game_id, start)
    assert all(e.metadata["actor"] == "bot:0" for e in events)


def test_duplicate_jobs_make_one_move(games: GameService, jobs: Jobs) -> None:
    # given a card game awaiting its bot, and three jobs for that very decision
    game = games.commands.create_game(
        "cards", ["bot", "Bob"], {}, SEAT_0_STARTS["cards"], SYSTEM, bots={0: BotSeat("random")}
    )
    for n in range(3):
        jobs.queue.enqueue(play_bot, game.game_id, game.version, 0, job_id=f"dup-{n}")
    # when a worker runs them all
    jobs.run()
    # then the decision was made once: the first job moved, the others found it made
    results = [jobs.queue.fetch_job(f"dup-{n}") for n in range(3)]
    outcomes = [str(job.return_value()) for job in results if job is not None]
    assert outcomes[0].startswith("moved to version")
    assert all(o.startswith(("moved on", "replayed", "already")) for o in outcomes[1:])
    assert assert_one_move_per_decision(games, game.game_id) >= 1
    first = games.queries.events(game.game_id, game.version)[0]
    assert first.metadata["command_id"] == f"{game.game_id}-bot-{game.version}-0"


def test_the_sweep_enqueues_a_bot_move_that_no_request_enqueued(
    games: GameService, jobs: Jobs
) -> None:
    # given a game created without the API (nothing was enqueued), awaiting its bot
    game = games.commands.create_game(
        "board", ["bot", "Bob"], {}, SEAT_0_STARTS["board"], SYSTEM, bots={0: BotSeat("random")}
    )
    assert jobs.queue.count == 0
    # when the sweep runs
    jobs.queue.enqueue(sweep, job_id="sweep-now")
    jobs.run()
    # then the bot moved, and the next sweep is scheduled
    assert games.repository.get(game.game_id).version > game.version
    assert any(j.startswith("sweep-") for j in jobs.queue.scheduled_job_registry.get_job_ids())


def domain_events(events: list[StoredEvent]) -> list[Any]:
    return [e.event for e in events if not e.type.startswith(SERVICE_KIND + ".")]


@pytest.mark.parametrize(
    ("kind", "bots"),
    [
        ("board", {0: BotSeat("greedy"), 1: BotSeat("random")}),
        ("cards", {0: BotSeat("greedy"), 1: BotSeat("greedy")}),
    ],
)
def test_a_bot_only_game_runs_to_the_end_on_the_workers(
    games: GameService, jobs: Jobs, kind: str, bots: dict[int, BotSeat]
) -> None:
    # given a game where every seat is a bot
    created = games.commands.create_game(kind, ["a", "b"], {}, 11, SYSTEM, bots=bots)
    jobs.queue.enqueue(sweep, job_id="sweep-now")  # the first move, as the API would
    # when the workers run until nothing is left to do
    jobs.run()
    # then the game is over, and its stored result is the domain's fold of its events
    game = games.repository.get(created.game_id)
    rules = all_games()[kind]
    assert game.info.status == "over" and rules.is_over(game.state)
    folded = rules.fold(domain_events(games.queries.events(created.game_id, 0)))
    assert rules.is_over(folded)
    assert rules.result(folded) == rules.result(game.state)
    assert assert_one_move_per_decision(games, created.game_id) > 20


@pytest.mark.parametrize("bot", ["random", "greedy", "mcts"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_job_decides_from_the_seat_view_only(
    game: str, bot: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (the search stops at its playout count only: on a loaded machine the deadline could
    # cut one of the two searches short, and this test is about what it sees, not how long)
    timed = jobs_bots.bot_budget

    def playouts_only(rules: Any, seat_bot: BotSeat) -> Budget:
        return Budget(playouts=timed(rules, seat_bot).playouts, deadline=None)

    monkeypatch.setattr(jobs_bots, "bot_budget", playouts_only)
    # given positions, and for each another one its awaited seat cannot tell from it
    rules = GAMES[game]
    rng = random.Random(5)
    positions = sample_positions(rules, range(2, 3), per_kind=2, every=120)
    seat_bot = BotSeat(bot, think_ms=40)
    for i, state in enumerate(positions):
        seat = min(rules.awaited(state))
        scrambled = scramble(rules, state, seat, rng)
        assert rules.view(scrambled, seat) == rules.view(state, seat)
        # when the job's decision runs in each
        here = bot_command(rules, state, seat, seat_bot, "g", i)
        there = bot_command(rules, scrambled, seat, seat_bot, "g", i)
        # then it chooses the same command, a legal one
        assert here == there
        assert rules.decide(state, here)


@pytest.mark.parametrize("bots", [1, 2])
def test_bot_seats_approve_an_undo_request_that_awaits_them(
    client: FlaskClient,
    games: GameService,
    jobs: Jobs,
    bots: int,
    *,
    redis_client: redis.Redis,
    key_prefix: str,
) -> None:
    # Given Ann against greedy bots on the board, her turn come (the bots play theirs)
    seats: list[Any] = ["Ann", *[{"bot": "greedy"}] * bots]
    created = create(client, "board", seats, SEAT_0_STARTS["board"])
    game_id = created["game"]["game_id"]
    # (the bots' seats have no token; one stored for seat 1 as older versions did)
    assert all("token" not in seat for seat in created["seats"][1:])
    old = plant_token(redis_client, key_prefix, game_id, 1)
    ann = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    rules = all_games()["board"]
    jobs.run()
    mine = games.repository.get(game_id).version
    # and she plays her two actions, then the bots theirs, back to her
    while 0 in rules.awaited(games.repository.get(game_id).state):
        game = games.repository.get(game_id)
        wire = rules.commands.to_json(next(iter(rules.legal_commands(game.state, 0))))
        wire.pop("seat")
        headers = {**ann, "If-Match": f'"{game.version}"'}
        posted = client.post(f"/games/{game_id}/commands", json=wire, headers=headers)
        assert posted.status_code == 200, posted.get_json()
    jobs.run()
    before = games.repository.get(game_id)
    assert before.rules.awaited(before.state) == frozenset({0})
    # When Ann asks to take back her turn, which needs every bot's consent
    asked = client.post(
        f"/games/{game_id}/undo-requests",
        json={"to_version": mine, "reason": "misclick"},
        headers={**ann, "If-Match": f'"{before.version}"'},
    )
    assert asked.status_code == 201, asked.get_json()
    assert asked.get_json()["status"] == "open"
    jobs.run()
    # Then each bot approved it as its seat, and the game is back where her turn began
    request = client.get(asked.headers["Location"]).get_json()
    assert request["status"] == "applied", request
    answers = [
        (e.event.by, e.metadata["actor"])
        for e in games.queries.events(game_id, before.version)
        if isinstance(e.event, UndoAnswered)
    ]
    assert sorted(answers) == [(f"seat:{n}", f"bot:{n}") for n in range(1, bots + 1)]
    after = games.repository.get(game_id)
    assert rules.dump_position(after.state) == rules.dump_position(
        games.repository.get_at(game_id, mine).state
    )
    # and no bot moved over the open request: Ann is awaited again
    assert after.rules.awaited(after.state) == frozenset({0})
    # and the undo gave the bots' seats no token: only Ann's and the old one are stored,
    # and the old one still stands for no one (issue 21, point 1)
    assert stored_token_seats(redis_client, key_prefix, game_id) == [0, 1]
    assert client.get(f"/games/{game_id}/state", headers=auth(old)).status_code == 401
