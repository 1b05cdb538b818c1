"""A Python client generated from ``openapi.yaml`` (``openapi-python-client``) plays whole
seeded games of both kinds against the real service, through its generated models and
operations alone: the contract is usable as it stands."""

from __future__ import annotations

import importlib
import json
import random
import re
import subprocess
import sys
import uuid
from collections import Counter
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml

from domain.games import all_games
from tests.clients.conftest import CONFIG, DOCS, SPEC, generate_python_client
from tests.service.api.conftest import ADMIN_TOKEN, LiveServer
from tests.service.api.contract import httpx_hooks

GAMES = [("board", 2, 2026_11_24), ("cards", 2, 2026_11_25)]
MAX_COMMANDS = 3000  # a bound on the loop: a random game of either kind ends well before


def test_the_generator_handles_every_construct_of_the_spec(
    python_client_generation: tuple[Path, list[str]],
) -> None:
    # given the client generated from openapi.yaml with clients/python's settings; then the
    # generator warned about nothing on either stream, and it has a typed model for every
    # command of both games
    package, warnings = python_client_generation
    assert warnings == []
    models = {path.stem for path in (package / "models").glob("*.py")}
    for kind, rules in all_games().items():
        for name in rules.commands.names:
            snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
            assert f"{kind}_command{snake}" in models


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def test_the_generator_produces_every_operation(
    python_client_generation: tuple[Path, list[str]],
) -> None:
    # given every operation of openapi.yaml (POST /games/import and its JSON Lines body
    # included); then the generated package has a module for each, under its tag
    package, _ = python_client_generation
    spec = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    wanted = {
        (operation["tags"][0], _snake(operation["operationId"]))
        for item in spec["paths"].values()
        for method, operation in item.items()
        if method in {"get", "post", "put", "patch", "delete"}
    }
    made = {(path.parent.name, path.stem) for path in (package / "api").glob("*/*.py")}
    assert wanted - made == set()
    assert ("records", "import_game") in made


def test_a_warning_on_stderr_fails_the_generator_check(tmp_path: Path) -> None:
    # given a spec whose one operation takes a body the generator cannot type, and no
    # content-type override for it
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "openapi": "3.1.0",
                "info": {"title": "t", "version": "1"},
                "paths": {
                    "/import": {
                        "post": {
                            "operationId": "importThing",
                            "requestBody": {
                                "content": {"application/jsonl": {"schema": {"type": "string"}}}
                            },
                            "responses": {"204": {"description": "Done."}},
                        }
                    }
                },
            }
        ),
        encoding="utf-8",
    )
    config = tmp_path / "config.yaml"
    config.write_text("post_hooks: []\n", encoding="utf-8")
    # when it is generated; then the warning (printed on stderr only) is caught
    _, warnings = generate_python_client(tmp_path, spec, config)
    assert any("POST /import" in line for line in warnings), warnings
    # and clients/python's settings are what turns that content type into bytes
    assert "application/jsonl: application/octet-stream" in CONFIG.read_text(encoding="utf-8")


def test_the_generated_package_passes_mypy_strict(
    python_client_generation: tuple[Path, list[str]],
) -> None:
    """Issue 21, point 8: no field named as its model (``Pending.pending`` was one), no
    redefined names: the package type-checks as docs/clients.md checks it."""
    package, _ = python_client_generation
    assert "mypy --strict tigris_api_client" in DOCS.read_text(encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", package.name],
        cwd=package.parent,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def _enums(package: Path) -> dict[str, frozenset[str]]:
    """Each generated enum class by name, with its values."""
    found: dict[str, frozenset[str]] = {}
    for path in (package / "models").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        if match := re.search(r"^class (\w+)\((?:str, )?(?:Str)?Enum\):", text, re.M):
            found[match[1]] = frozenset(re.findall(r'^    [A-Z0-9_]+ = "([^"]*)"$', text, re.M))
    return found


def test_one_colour_type_and_no_enum_twice(
    python_client_generation: tuple[Path, list[str]],
) -> None:
    """Issue 21, point 8: one ``Colour`` (there were 41 enum classes of the four colours,
    75 enums in all), and no two enums of the same values."""
    package, _ = python_client_generation
    enums = _enums(package)
    colours = [
        name for name, values in enums.items() if values == {"black", "red", "blue", "green"}
    ]
    assert colours == ["Colour"]
    by_values: dict[frozenset[str], list[str]] = {}
    for name, values in enums.items():
        by_values.setdefault(values, []).append(name)
    assert [names for names in by_values.values() if len(names) > 1] == []
    # 23, the player seat's type and the my-games filter, the archive's and the
    # rehydration's outcomes, the feed entry's type
    assert len(enums) <= 28


def test_the_clock_and_the_square_are_typed(generated: ModuleType) -> None:
    """Issue 21, point 8: ``clock`` is one of two named shapes (it was ``Any``), a square a
    list of integers, ``open`` a boolean."""
    models = importlib.import_module(f"{generated.__name__}.models")
    # (the annotations as written: the generated modules import their models lazily)
    assert models.GameCreate.__annotations__["clock"] == "DecisionClock | GameClock | Unset"
    assert models.BoardCommandPlaceTile.__annotations__["at"] == "list[int]"
    clock = models.GameCreate.from_dict(
        {"kind": "board", "seats": ["A", "B"], "clock": {"initial_s": 60, "increment_s": 2}}
    ).clock
    assert isinstance(clock, models.GameClock) and clock.increment_s == 2
    listing = _api(generated, "games", "list_games")
    assert str(listing.sync_detailed.__annotations__["open_"]).startswith("bool | ")


def _model(generated: ModuleType, name: str) -> Any:
    return getattr(importlib.import_module(f"{generated.__name__}.models"), name)


def _api(generated: ModuleType, tag: str, operation: str) -> Any:
    return importlib.import_module(f"{generated.__name__}.api.{tag}.{operation}")


def _ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.content
    return response.parsed


def _written_out(generated: ModuleType, command: Any) -> Any:
    """A tile or card placement written out from the generated classes, as a client builds
    its own command (any other chosen command is sent as parsed)."""
    if command.type_ == "PlaceTile":
        return _model(generated, "BoardCommandPlaceTile")(
            type_="PlaceTile",
            colour=_model(generated, "Colour")(command.colour.value),
            at=[int(part) for part in command.at],
        )
    if command.type_ == "PlayCard":
        return _model(generated, "CardsCommandPlayCard")(
            type_="PlayCard",
            colour=_model(generated, "Colour")(command.colour.value),
            column=command.column,
            bridge=command.bridge,
        )
    return command


def _count(calls: Counter[tuple[str, str]], request: httpx.Request) -> None:
    """An httpx request hook: one more call of this method on this path's last segment."""
    calls[request.method, request.url.path.rsplit("/", 1)[-1]] += 1


def _fold(kind: str, events: list[dict[str, Any]]) -> Any:
    """The domain's own fold of the admin's event log, seat claims included."""
    rules = all_games()[kind]
    registry = rules.events
    state: Any = None
    for event in events:
        prefix, _, name = event["type"].partition(".")
        if prefix == kind:
            decoded = registry.decode(
                name, registry.version_of(registry.type_of(name)), event["data"]
            )
            state = rules.evolve(state, decoded)
        elif name == "SeatClaimed":
            state = rules.rename_seat(state, event["data"]["seat"], event["data"]["name"])
    return state


@pytest.mark.parametrize(("kind", "seats", "seed"), GAMES)
def test_a_generated_client_plays_a_whole_game(
    generated: ModuleType, live_server: LiveServer, kind: str, seats: int, seed: int
) -> None:
    client_cls = generated.AuthenticatedClient
    # every answer the generated client gets is checked against openapi.yaml (httpx hooks)
    checked = {"httpx_args": {"event_hooks": httpx_hooks()}}
    anyone = generated.Client(base_url=live_server.url, raise_on_unexpected_status=True, **checked)
    admin = client_cls(base_url=live_server.url, token=ADMIN_TOKEN, **checked)
    title = kind.capitalize()

    # given a seeded game created with every seat open (the admin may fix the seed)
    body = _model(generated, "GameCreate")(
        kind=_model(generated, "Kind")(kind),
        seats=[_model(generated, "OpenSeat")(type_=_model(generated, "OpenSeatType").OPEN)] * seats,
        seed=seed,
    )
    created = _ok(
        _api(generated, "games", "create_game").sync_detailed(client=admin, body=body), 201
    )
    game_id = created.game.game_id
    assert created.game.status.value == "open"

    # when a player per seat finds it in the lobby and claims a seat
    listing = _api(generated, "games", "list_games")
    listed = _ok(listing.sync_detailed(client=anyone, open_=True, limit=100))
    assert game_id in {game.game_id for game in listed.items}
    players = []
    calls: list[Counter[tuple[str, str]]] = []
    held: dict[int, Any] = {}  # a seat's legal commands, from the answers it got
    checkers = []  # the same seats, uncounted
    for seat in range(seats):
        claim = _api(generated, "games", "claim_seat").sync_detailed(
            game_id,
            seat,
            client=anyone,
            body=_model(generated, "SeatClaim")(name=f"Player {seat}"),
            idempotency_key=str(uuid.uuid4()),
        )
        claimed = _ok(claim, 201)
        assert claimed.seat.seat == seat
        checkers.append(client_cls(base_url=live_server.url, token=claimed.seat.token, **checked))
        counted: Counter[tuple[str, str]] = Counter()
        hooks = httpx_hooks()
        hooks["request"] = [partial(_count, counted)]
        players.append(
            client_cls(
                base_url=live_server.url,
                token=claimed.seat.token,
                httpx_args={"event_hooks": hooks},
            )
        )
        calls.append(counted)
        if claimed.legal is not None:  # the claim that started the game, by the awaited seat
            held[seat] = claimed.legal
    nxt, etag = claimed.next_, claim.headers["ETag"]  # the last claim's: the first decision
    game = _ok(_api(generated, "games", "get_game").sync_detailed(game_id, client=anyone))
    assert game.status.value == "active"
    assert game_id not in {
        g.game_id for g in _ok(listing.sync_detailed(client=anyone, open_=True)).items
    }

    # and each plays, with one call per move, commands chosen from the legal commands of its
    # own answers, serving the awaited seats in order; a seat reads its legal-commands only
    # when another seat moved last (its commands were in no answer it got)
    legal = _api(generated, "views", "get_legal_commands")
    post = _api(generated, "commands", "post_command")
    pending = _api(generated, "views", "get_pending")
    rng = random.Random(seed)
    moves = [0] * seats
    handovers = [0] * seats
    written = 0
    while not nxt.over:
        seat = nxt.awaited[0]
        player = players[seat]
        options = held.get(seat)
        if options is None or options.version != nxt.version:
            answer = legal.sync_detailed(game_id, client=player)
            options, etag = _ok(answer), answer.headers["ETag"]
            handovers[seat] += 1
        for option in options.commands:
            assert type(option).__name__ == f"{title}Command{option.type_}"
        command = _written_out(generated, rng.choice(options.commands))
        written += command.type_ in {"PlaceTile", "PlayCard"}
        sent = post.sync_detailed(
            game_id,
            client=player,
            body=command,
            if_match=etag,
            idempotency_key=str(uuid.uuid4()),
        )
        result = _ok(sent)
        moves[seat] += 1
        assert result.version == nxt.version + len(result.events) > nxt.version
        nxt, etag = result.next_, sent.headers["ETag"]
        assert nxt.version == result.version
        held = {}
        if result.legal is not None:
            # the caller's own commands (typed), exactly what legal-commands lists for it
            assert seat in nxt.awaited and result.legal.seat == seat
            raw = json.loads(sent.content)["legal"]
            assert result.legal.to_dict() == raw
            if sum(moves) % 5 == 0:  # (checked by an uncounted client, every fifth move)
                anew = legal.sync_detailed(game_id, client=checkers[seat])
                assert json.loads(anew.content) == raw
            held[seat] = result.legal
        else:
            assert seat not in nxt.awaited  # a seat not awaited gets no commands
        assert sum(moves) < MAX_COMMANDS

    # then every seat made one call per move, and one read per handover to it, no other
    for seat in range(seats):
        assert (
            calls[seat]
            == Counter(
                {("POST", "commands"): moves[seat], ("GET", "legal-commands"): handovers[seat]}
            )
            - Counter()
        )
    assert sum(handovers) < sum(moves)
    assert _ok(pending.sync_detailed(game_id, client=anyone)).over
    assert written > 0

    # then the typed result is the domain's own result of the folded event log
    result = _ok(_api(generated, "views", "get_result").sync_detailed(game_id, client=anyone))
    assert type(result.result).__name__ == f"{title}Result"
    events: list[dict[str, Any]] = []
    after: int | None = 0
    page_of = _api(generated, "events", "list_events")
    while after is not None:
        page = _ok(page_of.sync_detailed(game_id, client=admin, after=after, limit=500))
        events.extend(event.to_dict() for event in page.items)
        after = page.next_after if isinstance(page.next_after, int) else None
    state = _fold(kind, events)
    assert result.result.to_dict() == all_games()[kind].result(state)
    assert [seat["name"] for seat in result.result.to_dict()["seats"]] == [
        f"Player {seat}" for seat in range(seats)
    ]


def test_a_generated_client_reads_a_games_map_typed(
    generated: ModuleType, live_server: LiveServer
) -> None:
    """Issue 24: the map is typed in the contract: a generated client reads it as the game's
    own model (``BoardMap``, ``CardsMap``), a game's and a kind's with its options alike."""
    checked = {"httpx_args": {"event_hooks": httpx_hooks()}}
    anyone = generated.Client(base_url=live_server.url, raise_on_unexpected_status=True, **checked)
    get_map = _api(generated, "rules", "get_map")
    # given the card game's map with a variant, read through the generated operation
    cards = _model(generated, "Kind")("cards")
    variant = _ok(get_map.sync_detailed(cards, client=anyone, allow_withdraw=True))
    # then it is the card game's typed map, the domain's, with the variant on
    assert type(variant).__name__ == "CardsMap" and variant.options.allow_withdraw is True
    assert variant.to_dict() == all_games()["cards"].setup_map({"allow_withdraw": True})
    # and the board's map is typed too, its squares [row, col] lists of integers
    board = _ok(get_map.sync_detailed(_model(generated, "Kind")("board"), client=anyone))
    assert type(board).__name__ == "BoardMap" and [1, 1] in board.border_treasures
    # and a game's map is its kind's map with the game's options
    body = _model(generated, "GameCreate")(
        kind=cards,
        seats=["Ann", "Bob"],
        options=_model(generated, "CardsOptions")(allow_withdraw=True),
    )
    create = _api(generated, "games", "create_game")
    created = _ok(create.sync_detailed(client=anyone, body=body), 201)
    by_game = _api(generated, "views", "get_game_map")
    assert _ok(by_game.sync_detailed(created.game.game_id, client=anyone)) == variant
