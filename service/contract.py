"""The typed part of the HTTP contract, generated from the domain.

Every command and event of every game on offer (their registrations, ``domain.games``),
the service's own events, the games' options records, and the state views, pending
decisions, results and redactions that each game's registration declares (``schemas``,
``redacted``) become components of ``openapi.yaml``:

- ``Kind``: the kinds of the games on offer.
- ``<Kind>Command<Name>``: a command as a client sends it; ``<Kind>Command`` is the
  ``oneOf`` of a game's commands with a ``discriminator`` on ``type``; ``Command`` (the
  body of ``POST /games/{game_id}/commands``) is ``anyOf`` them: the game's kind
  (``GET /games/{game_id}``) selects the set, the body names one of its commands.
- ``<Kind>Event<Name>Data`` (and ``…Redacted`` where a viewer may see less) and the
  envelope ``<Kind>Event<Name>``; ``Event`` is the ``oneOf`` of every envelope with a
  ``discriminator`` on the envelope's ``type`` (``board.TilePlaced``, ``service.…``).
- ``<Kind>LegalCommands``: the legal-commands answer, its list typed as the game's
  commands.
- ``LegalCommands``, ``GameView``, ``PendingDecision`` and ``GameResult``: the ``oneOf``
  of the games' shapes with a ``discriminator`` on ``kind``.

``python -m service.contract`` rewrites the generated part of ``openapi.yaml`` (all
that follows the marker line); ``--check`` exits 1 when the file is not up to date.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from domain.common.codec import JSON, TypeRegistry
from domain.common.protocol import Redaction, SharedEnum
from domain.common.schema import (
    SHARED,
    command_schema,
    nested_dataclasses,
    record_schema,
    ref,
    without,
)
from domain.games import all_games, seat_range
from service.events import SERVICE_EVENTS, SERVICE_KIND

SPEC_PATH = Path(__file__).resolve().parents[1] / "openapi.yaml"
_COMPONENT = "#/components/schemas/"
MARKER = "    # --- generated from the domain by `python -m service.contract`: edit nothing below"


def _title(kind: str) -> str:
    return kind[:1].upper() + kind[1:]


def _last_seat() -> int:
    return seat_range()[1] - 1


def _envelope(type_name: str, data: JSON) -> JSON:
    last = _last_seat()
    return {
        "type": "object",
        "required": [
            "version",
            "type",
            "actor",
            "seat",
            "recorded_at",
            "command_id",
            "correlation_id",
            "data",
        ],
        "properties": {
            "version": {
                "type": "integer",
                "minimum": 1,
                "description": "Position in the game's stream; the SSE id.",
            },
            "type": {"type": "string", "const": type_name},
            "actor": {
                "type": "string",
                "pattern": f"^(seat:[0-{last}]|bot:[0-{last}]|clock|admin|system)$",
                "description": "`seat:<n>`, `bot:<n>` (a bot seat's move), `clock` (a move for a "
                "seat whose time ran out), `admin` or `system`.",
            },
            "seat": {"type": ["integer", "null"], "minimum": 0, "maximum": last},
            "recorded_at": {"type": ["string", "null"]},
            "command_id": {"type": ["string", "null"]},
            "correlation_id": {
                "type": ["string", "null"],
                "description": "The `X-Request-ID` of the request that caused the event "
                "(else its `command_id`).",
            },
            "data": data,
        },
        "additionalProperties": False,
    }


def _events(
    prefix: str,
    registry: TypeRegistry[Any],
    name_of: Callable[[type], str],
    redacted: Mapping[str, Redaction],
) -> tuple[dict[str, JSON], dict[str, str]]:
    """Data and envelope schemas of a registry's events; ``{wire type: envelope name}``."""
    out: dict[str, JSON] = {}
    mapping: dict[str, str] = {}
    title = _title(prefix)
    for name in registry.names:
        base = f"{title}Event{name}"
        full = record_schema(registry.type_of(name), name_of)
        out[f"{base}Data"] = full
        data: JSON = ref(f"{base}Data")
        if name in redacted:
            drop, add = redacted[name]
            out[f"{base}Redacted"] = without(
                full, drop, {key: {"type": kind, "minimum": 0} for key, kind in add.items()}
            )
            out[f"{base}Redacted"]["description"] = (
                f"`{name}` as a viewer sees it while it may not see {', '.join(drop)}."
            )
            data = {"oneOf": [data, ref(f"{base}Redacted")]}
        out[base] = _envelope(f"{prefix}.{name}", data)
        mapping[f"{prefix}.{name}"] = base
    return out, mapping


def _union(names: dict[str, str], prop: str, description: str, of: str = "oneOf") -> JSON:
    out: JSON = {"description": description, of: [ref(n) for n in names.values()]}
    if of == "oneOf":
        out["discriminator"] = {
            "propertyName": prop,
            "mapping": {key: f"#/components/schemas/{n}" for key, n in names.items()},
        }
    return out


def _legal_commands(kind: str, title: str, seats: int) -> JSON:
    """The legal-commands answer of a game of ``kind``: its commands typed as that game's
    (``kind`` tells a client which set before it parses one: the two games share command
    names, ``Pass`` or ``ChooseWar``, so an untagged list cannot say whose they are)."""
    return {
        "type": "object",
        "description": f"Every command a seat of a {kind} game may send now.",
        "required": ["kind", "version", "seat", "commands"],
        "additionalProperties": False,
        "properties": {
            "kind": {"type": "string", "const": kind},
            "version": {"type": "integer", "minimum": 1},
            "seat": {"type": "integer", "minimum": 0, "maximum": seats - 1},
            "commands": {"type": "array", "items": ref(f"{title}Command")},
        },
    }


def shared_enums() -> dict[str, SharedEnum]:
    """The enums shared by name beside ``Colour`` (which the domain's shapes name themselves),
    as the games on offer declare them (``enums``; two games may declare the same one):
    every inline string enum of the generated part with the same values becomes a ``$ref``,
    so a generated client has one type for each, not one per field."""
    out: dict[str, SharedEnum] = {}
    for rules in all_games().values():
        for name, enum in rules.enums.items():
            if out.setdefault(name, enum) != enum:
                raise ValueError(f"the games declare the shared enum {name} differently")
    return out


def _share_enums(schemas: dict[str, JSON]) -> dict[str, JSON]:
    """``schemas`` with each inline string enum whose values are those of a shared enum
    (``Colour``, :func:`shared_enums`) replaced by a ``$ref`` to it (its other keywords, such
    as a description or a default, kept beside it), and the shared enums added."""
    enums = shared_enums()
    shared: dict[str, JSON] = {
        name: {"type": "string", "enum": list(values), "description": description}
        for name, (values, description) in enums.items()
    }
    by_values = {frozenset(schemas["Colour"]["enum"]): "Colour"} | {
        frozenset(values): name for name, (values, _) in enums.items()
    }
    used: set[str] = set()

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        enum = node.get("enum")
        if node.get("type") == "string" and isinstance(enum, list):
            name = by_values.get(frozenset(enum))
            if name is not None:
                used.add(name)
                return {**ref(name), **{k: v for k, v in node.items() if k not in {"type", "enum"}}}
        return {key: walk(value) for key, value in node.items()}

    out = {name: schema if name == "Colour" else walk(schema) for name, schema in schemas.items()}
    if unused := set(enums) - used:
        raise ValueError(f"shared enums that no schema uses: {sorted(unused)}")
    return {**out, **shared}


def _inline(node: Any, inlined: Mapping[str, JSON]) -> Any:
    """``node`` with each ``$ref`` to a name the games write in place (``inlined``, e.g. the
    board's ``Square``, as ``type_schema`` names a fixed pair of integers) replaced by that
    schema itself: a named array component used twice in one model makes
    openapi-python-client write code ``mypy --strict`` refuses (the same loop variable
    defined twice)."""
    if isinstance(node, list):
        return [_inline(item, inlined) for item in node]
    if not isinstance(node, dict):
        return node
    target = node.get("$ref")
    if isinstance(target, str) and target.startswith(_COMPONENT):
        schema = inlined.get(target.removeprefix(_COMPONENT))
        if schema is not None:
            return {**schema, **{k: v for k, v in node.items() if k != "$ref"}}
    return {key: _inline(value, inlined) for key, value in node.items()}


def components() -> dict[str, JSON]:
    """Every generated component, by name, in a stable order."""
    inlined: dict[str, JSON] = {}
    for rules in all_games().values():
        inlined.update(rules.inlined)
    out: dict[str, JSON] = _inline(_share_enums(_components()), inlined)
    return out


def _components() -> dict[str, JSON]:
    out: dict[str, JSON] = dict(SHARED)
    out["Kind"] = {"type": "string", "enum": list(all_games())}
    event_map: dict[str, str] = {}
    kinds: dict[str, str] = {}
    options: dict[str, str] = {}
    games = all_games()
    for kind, rules in games.items():
        title = _title(kind)
        kinds[kind] = title

        def name_of(cls: type, title: str = title) -> str:
            return f"{title}{cls.__name__}"

        for cls in nested_dataclasses(rules.events):
            schema = record_schema(cls, name_of, all_required=False)
            schema["description"] = (
                f"{schema.get('description', 'Rule options.')} Unknown options are refused."
            )
            out[name_of(cls)] = schema
            if cls.__name__ == "Options":
                options[kind] = name_of(cls)
        commands: dict[str, str] = {}
        for name in rules.commands.names:
            component = f"{title}Command{name}"
            out[component] = command_schema(
                name, rules.commands.type_of(name), name_of, seats=rules.max_seats
            )
            commands[name] = component
        out[f"{title}Command"] = _union(
            commands, "type", f"A command of the {kind} game, selected by its `type`."
        )
        out[f"{title}LegalCommands"] = _legal_commands(kind, title, rules.max_seats)
        events, mapping = _events(kind, rules.events, name_of, rules.redacted)
        out.update(events)
        event_map.update(mapping)
        out.update(rules.schemas)

    def service_name(cls: type) -> str:  # pragma: no cover - service events hold no records
        raise TypeError(f"service events hold no nested records: {cls!r}")

    events, mapping = _events(SERVICE_KIND, SERVICE_EVENTS, service_name, {})
    out.update(events)
    event_map.update(mapping)
    out["Command"] = _union(
        {k: f"{t}Command" for k, t in kinds.items()},
        "type",
        "A command in the domain's wire form: `type` and its fields; `seat` is implied by "
        "the token. The game's kind selects the set: "
        + ", ".join(
            f"a {g.noun}{' takes' if n == 0 else ''} a `{kinds[k]}Command`"
            for n, (k, g) in enumerate(games.items())
        )
        + f" ({'both' if len(games) == 2 else 'each'} discriminated by `type`).",
        of="anyOf",
    )
    out["GameOptions"] = _union(
        options,
        "kind",
        "The game's rule options: "
        + " or ".join(f"a {games[k].noun}'s `{name}`" for k, name in options.items())
        + " (the create body's `kind` selects them).",
        of="anyOf",
    )
    out["Event"] = _union(
        event_map,
        "type",
        "One event of a game's stream, its `data` typed by its `type` (`<kind>.<Name>` for "
        "game events, `service.<Name>` for undo events), as the caller may see it.",
    )
    for union, suffix, what in (
        ("LegalCommands", "LegalCommands", "What the caller's seat may send now"),
        ("GameView", "View", "A game's state as the caller may see it"),
        ("PendingDecision", "Pending", "Who is awaited, on what"),
        ("GameResult", "Result", "The final table"),
    ):
        out[union] = _union(
            {kind: f"{title}{suffix}" for kind, title in kinds.items()},
            "kind",
            f"{what}, by the game's `kind`.",
        )
    return out


def render(text: str) -> str:
    """``text`` (the spec) with its generated part rewritten from the domain."""
    head, sep, _ = text.partition(MARKER + "\n")
    if not sep:
        raise ValueError(f"openapi.yaml lacks the marker line {MARKER.strip()!r}")
    body = yaml.safe_dump(
        components(), sort_keys=False, allow_unicode=True, width=100, default_flow_style=False
    )
    indented = "".join(f"    {line}" if line.strip() else line for line in body.splitlines(True))
    return head + MARKER + "\n" + indented


def main(argv: list[str]) -> int:
    current = SPEC_PATH.read_text(encoding="utf-8")
    wanted = render(current)
    if "--check" in argv:
        if wanted != current:
            print("openapi.yaml is not up to date: run python -m service.contract")
            return 1
        return 0
    if wanted != current:
        SPEC_PATH.write_text(wanted, encoding="utf-8")
        print("openapi.yaml updated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
