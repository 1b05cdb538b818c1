"""The typed contract: openapi.yaml's game components are what the domain generates, name
every command, event and field the domain has and no other, and describe every view,
pending decision, result and event data that random games of both kinds produce."""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from domain.common.codec import TypeRegistry
from domain.common.schema import record_schema
from domain.games import all_games
from service.contract import MARKER, SPEC_PATH, components, main, render
from service.events import SERVICE_EVENTS
from service.i18n.describe import describe
from tests.autoplay import play_random_game

GAMES = all_games()


@cache
def spec_schemas() -> dict[str, Any]:
    raw = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    schemas: dict[str, Any] = raw["components"]["schemas"]
    return schemas


@cache
def validator(component: str) -> jsonschema.Draft202012Validator:
    root = {"$ref": f"#/components/schemas/{component}", "components": {"schemas": spec_schemas()}}
    return jsonschema.Draft202012Validator(root)


def valid(component: str, instance: Any) -> None:
    error = jsonschema.exceptions.best_match(validator(component).iter_errors(instance))
    assert error is None, f"{component}: {error.message[:300]} at {list(error.absolute_path)}"


def _title(kind: str) -> str:
    return kind.capitalize()


# --- the generated part is up to date, and names exactly what the domain has -------------


def test_the_committed_spec_is_what_the_views_and_the_domain_generate() -> None:
    # Given the committed openapi.yaml, when it is rendered again from the views'
    # declarations and the domain, then nothing changes (else: run
    # `python -m service.contract`).
    text = SPEC_PATH.read_text(encoding="utf-8")
    assert text.startswith(MARKER)
    assert render() == text, "openapi.yaml is stale: run python -m service.contract"
    assert main(["--check"]) == 0


@pytest.mark.parametrize(
    ("where", "edit"),
    [
        ("info", ("title: Tigris & Euphrates rules service", "title: Tigris")),
        ("a path's summary", ("summary: A game's metadata.", "summary: A game.")),
        ("an operationId", ("operationId: getGame", "operationId: readGame")),
        ("a problem response", ("'412':", "'409':")),
        ("an API schema", ("GameCreate:", "GameCreation:")),
        ("a domain schema", ("open_scoring", "open_score")),
        ("a webhook", ("gameEventsWebhook", "gameEventWebhook")),
        ("an added line", ("paths:\n", "paths:\n  /extra: {}\n")),
    ],
)
def test_a_hand_edit_anywhere_in_the_spec_fails_the_check(
    where: str, edit: tuple[str, str], tmp_path: Path
) -> None:
    # Given the committed spec with one hand edit (in the part once kept by hand or in the
    # one always generated), when checked, then the check fails.
    text = SPEC_PATH.read_text(encoding="utf-8")
    assert edit[0] in text, where
    tampered = tmp_path / "openapi.yaml"
    tampered.write_text(text.replace(edit[0], edit[1], 1), encoding="utf-8")
    assert main(["--check", "--spec", str(tampered)]) == 1
    assert main(["--check", "--spec", str(SPEC_PATH)]) == 0


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_every_command_and_its_fields_are_in_the_spec_and_nothing_else(kind: str) -> None:
    rules, schemas, title = GAMES[kind], spec_schemas(), _title(kind)
    # Given the domain's command registry, then each command has its component whose
    # properties are its fields (plus `type`), and the kind's union names them all.
    union = schemas[f"{title}Command"]
    mapping = union["discriminator"]["mapping"]
    assert union["discriminator"]["propertyName"] == "type"
    assert set(mapping) == set(rules.commands.names)
    in_spec = {n for n in schemas if n.startswith(f"{title}Command") and n != f"{title}Command"}
    assert in_spec == {f"{title}Command{n}" for n in rules.commands.names}
    for name in rules.commands.names:
        schema = schemas[f"{title}Command{name}"]
        assert mapping[name] == f"#/components/schemas/{title}Command{name}"
        fields = {f.name for f in dataclasses.fields(rules.commands.type_of(name))}
        assert set(schema["properties"]) == fields | {"type"}, name
        assert schema["properties"]["type"]["const"] == name
        assert schema["additionalProperties"] is False


@pytest.mark.parametrize("kind", [*sorted(GAMES), "service"])
def test_every_event_and_its_fields_are_in_the_spec_and_nothing_else(kind: str) -> None:
    registry: TypeRegistry[Any] = SERVICE_EVENTS if kind == "service" else GAMES[kind].events
    schemas, title = spec_schemas(), _title(kind)
    mapping = schemas["Event"]["discriminator"]["mapping"]
    assert {k for k in mapping if k.startswith(f"{kind}.")} == {
        f"{kind}.{n}" for n in registry.names
    }
    envelopes = {
        n for n in schemas if n.startswith(f"{title}Event") and not n.endswith(("Data", "Redacted"))
    }
    assert envelopes == {f"{title}Event{n}" for n in registry.names}
    for name in registry.names:
        data = schemas[f"{title}Event{name}Data"]
        fields = {f.name for f in dataclasses.fields(registry.type_of(name))}
        assert set(data["properties"]) == fields and set(data["required"]) == fields, name


def test_no_game_data_is_an_untyped_object() -> None:
    text = SPEC_PATH.read_text(encoding="utf-8")
    assert "additionalProperties: true" not in text
    for name, schema in components().items():
        if schema.get("type") == "object":
            assert schema.get("additionalProperties") is False, name


def test_a_field_the_contract_cannot_type_is_refused() -> None:
    # Given a command with a free-form field, when its schema is derived, then it fails.
    @dataclass(frozen=True)
    class Loose:
        seat: int
        anything: dict[str, Any]

    with pytest.raises(TypeError, match="no JSON Schema"):
        record_schema(Loose, lambda cls: cls.__name__)


# --- every shape the domain produces matches the spec ------------------------------------


def _options(kind: str, seed: int) -> dict[str, bool]:
    if kind == "board":
        return {"open_scoring": seed % 2 == 0}
    return {"open_vp_piles": seed % 2 == 0, "allow_withdraw": seed % 3 == 0}


@pytest.mark.parametrize("kind", sorted(GAMES))
@pytest.mark.parametrize("seed", [1, 2])
def test_views_pending_results_and_events_of_random_games_match_the_spec(
    kind: str, seed: int
) -> None:
    rules, title = GAMES[kind], _title(kind)
    seats = 2 + seed % 3
    game = play_random_game(rules, seats, seed, _options(kind, seed), keep_states=True)
    rng = random.Random(seed)
    checked = 0
    seen_types: dict[str, int] = {}
    last = len(game.events) - 1
    for index, (event, state) in enumerate(zip(game.events, game.states, strict=True)):
        name, _, data = rules.events.encode(event)
        seen_types[name] = seen_types.get(name, 0) + 1
        if seen_types[name] <= 8 or index % 11 == 0:  # every type several times, then a sample
            valid(f"{title}Event{name}Data", data)
            for viewer in (None, *range(seats)):
                shown = rules.event_view(event, viewer, state)
                valid(f"{title}Event{name}", _envelope(kind, name, shown))
        if index % 37 and index != last and rng.random() > 0.05:
            continue
        checked += 1
        for viewer in (None, *range(seats)):
            seen = rules.view(state, viewer)
            valid("GameView", seen)
            assert set(seen) == set(rules.view(state, None, complete=True))  # one shape
        valid(f"{title}View", rules.view(state, None, complete=True))
        valid("PendingDecision", rules.pending(state))
    final = game.final
    assert final is not None and checked > 5
    result = rules.result(final)
    valid("GameResult", result)
    assert result is not None and any(s["winner"] for s in result["seats"])
    for command in game.commands[:200]:
        wire = rules.commands.to_json(command)
        valid(f"{title}Command", wire)
        valid("Command", wire)


def _envelope(kind: str, name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": 1,
        "type": f"{kind}.{name}",
        "actor": "system",
        "seat": None,
        "recorded_at": None,
        "command_id": None,
        # as the presenter gives it: the metadata's (the command id unless the request
        # named its own, X-Request-ID)
        "correlation_id": None,
        "data": data,
        "description": describe(f"{kind}.{name}", data, ("Anna", "Ben", "Cleo", "Dan"), "en"),
    }


def test_a_view_with_a_changed_field_breaks_the_contract() -> None:
    # Given a valid board view, when a field changes type or an unknown one appears,
    # then the spec refuses it: the checks above can fail.
    rules = GAMES["board"]
    state = rules.fold(rules.start(["a", "b"], {}, 3))
    seen = rules.view(state, 0)
    valid("GameView", seen)
    with pytest.raises(AssertionError):
        valid("GameView", {**seen, "bag_size": "many"})
    with pytest.raises(AssertionError):
        valid("GameView", {**seen, "surprise": 1})


def test_every_command_example_of_the_spec_matches_its_games_schema() -> None:
    # Given the examples of POST /games/{game_id}/commands (named `<kind>.<Name>`),
    raw = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    body = raw["paths"]["/games/{game_id}/commands"]["post"]["requestBody"]
    examples = body["content"]["application/json"]["examples"]
    assert body["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Command"}
    for key, example in examples.items():
        kind, name = key.split(".", 1)
        # then each is valid for its game's commands and is the command it is named after.
        valid(f"{_title(kind)}Command", example["value"])
        assert example["value"]["type"] == name


def test_a_square_is_a_row_and_a_column_within_the_board() -> None:
    """Issue 21, point 8: ``at`` is documented as ``[row, col]`` with its bounds (rows
    0-10, columns 0-15), in commands, events and views alike."""
    # given the schema of a tile placement's square
    at = spec_schemas()["BoardCommandPlaceTile"]["properties"]["at"]
    assert "[row, col]" in at["description"]
    assert [(i["minimum"], i["maximum"]) for i in at["prefixItems"]] == [(0, 10), (0, 15)]
    # then a command on the board's far corner is valid, and one off the board is not
    base = {"type": "PlaceTile", "colour": "red"}
    valid("BoardCommandPlaceTile", {**base, "at": [10, 15]})
    for off in ([11, 0], [0, 16], [-1, 0], [0, 0, 0], [0]):
        errors = list(validator("BoardCommandPlaceTile").iter_errors({**base, "at": off}))
        assert errors, off
    # and every square of the generated part is the same shape
    text = yaml.safe_dump(spec_schemas())
    assert text.count("A square `[row, col]` of the board") == text.count("prefixItems:")


def test_one_colour_schema_is_referenced_everywhere() -> None:
    """Issue 21, point 8: no inline enum of the four colours is left in openapi.yaml."""
    inline = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if set(node.get("enum") or ()) == {"black", "red", "blue", "green"}:
                inline.append(where)
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for n, value in enumerate(node):
                walk(value, f"{where}[{n}]")

    walk(spec_schemas(), "schemas")
    assert inline == ["schemas.Colour"]


# --- the paths are the views' declarations, the problem responses the error table's ----


def test_a_view_without_a_declaration_fails_the_generation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a contract blueprint with a view that declares no operation, when the contract
    # is generated, then it fails naming the view (no route is left out of the contract).
    from flask import Blueprint

    from service.api import routes

    extra = Blueprint("undeclared", __name__)
    extra.add_url_rule("/undeclared", "nothing", lambda: "")
    monkeypatch.setattr(routes, "BLUEPRINTS", (*routes.BLUEPRINTS, extra))
    with pytest.raises(ValueError, match=r"undeclared\.nothing"):
        render()


def test_every_problem_of_the_error_table_has_its_response_in_the_contract() -> None:
    # Given the error table, then each status it answers with has a problem response in the
    # contract whose description names the row's problem types.
    from service.api.problems import PROBLEMS, RESPONSES

    responses = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))["components"]["responses"]
    for exc_type, row in PROBLEMS.items():
        names = [n for n, r in RESPONSES.items() if r.status == row.status and r.body]
        if row.status == 500:
            assert not names  # an internal error is no part of any operation's contract
            continue
        assert names, f"{exc_type.__name__}: no problem response for {row.status}"
        for slug in row.by_reason or (row.slug,):
            assert any(f"`{slug}`" in responses[name]["description"] for name in names)


def _option_sets(kind: str) -> list[dict[str, Any]]:
    """No option, then each option of the game turned on alone, then all of them."""
    names = list(all_games()[kind].normalize_options({}))
    return [{}, *({name: True} for name in names), dict.fromkeys(names, True)]


@pytest.mark.parametrize("kind", ["board", "cards"])
def test_every_games_map_matches_its_schema_for_every_option(kind: str) -> None:
    """Issue 24: each game's map (``setup_map``) is typed in the contract, for any options."""
    rules = all_games()[kind]
    for options in _option_sets(kind):
        # given the game's map for these options
        found = rules.setup_map(options)
        # then it is valid as the game's map and as a GameMap, its options normalized
        valid(f"{_title(kind)}Map", found)
        valid("GameMap", found)
        assert found["kind"] == kind and found["options"] == rules.normalize_options(options)


def test_the_maps_query_parameters_are_every_option_of_every_game() -> None:
    """The options of ``GET /rules/{kind}/map`` are declared one by one (a generated client
    sends each as its own parameter): exactly the options of the games' ``<Kind>Options``,
    each with its type."""
    raw = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    declared = {
        p["name"]: p["schema"]
        for p in raw["paths"]["/rules/{kind}/map"]["get"]["parameters"]
        if p.get("in") == "query"
    }
    wanted = {
        name: {"type": schema["type"]}
        for kind in all_games()
        for name, schema in spec_schemas()[f"{_title(kind)}Options"]["properties"].items()
    }
    assert declared == wanted


def test_no_operation_names_two_of_its_parameters_alike() -> None:
    """A query parameter named like a path parameter (``?seat=`` beside ``{seat}``) is two
    boxes of one name in a form and one ambiguous word in a generated client."""
    # Given every operation of the committed contract with its parameters resolved
    raw = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    shared = raw["components"]["parameters"]
    clashes = []
    for path, item in raw["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            names = [
                (shared[p["$ref"].rsplit("/", 1)[1]] if "$ref" in p else p)["name"].lower()
                for p in [*item.get("parameters", []), *operation.get("parameters", [])]
            ]
            # Then no name comes twice, whatever the parameter's place (path, query, header)
            if len(names) != len(set(names)):
                clashes.append((method, path, sorted(n for n in set(names) if names.count(n) > 1)))
    assert clashes == []
