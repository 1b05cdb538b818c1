"""JSON Schemas (OpenAPI 3.1 dialect) derived from the domain's own types.

Commands and events are frozen dataclasses registered in a :class:`TypeRegistry`;
their schemas come from the dataclasses' fields and type hints, so the contract
cannot name a field the domain lacks, or miss one it has. Supported field types:
``int``, ``str``, ``bool``, enums (their values), ``X | None``, ``tuple[X, ...]``,
fixed tuples of one type, nested dataclasses (an options record) and any type declared
with its own schema, ``Annotated[T, Typed(schema)]`` (the board's ``Square``: ``[row,
col]`` with the board's bounds). Anything else (``Any``, a free ``dict``) is refused: a
field the contract cannot type is a field the domain must type first.

Two wire forms exist. A *command* is what a client sends: its fields minus ``seat``
(the token implies it; if given it must be the caller's), fields with defaults may be
left out, plus ``type`` naming it. An *event's data* is what the service shows: every
field, always present (an absent option is ``null``), without ``type`` (the envelope
carries ``<kind>.<Name>``).
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from domain.common.codec import JSON, TypeRegistry

Ref = Callable[[type], str]
"""Names the component of a nested dataclass (``Options`` → ``CardsOptions``)."""


@dataclasses.dataclass(frozen=True, eq=False)
class Typed:
    """The JSON Schema of a type, declared beside it: a field typed
    ``Annotated[tuple[int, int], Typed(SQUARE)]`` is written as ``SQUARE`` (in place, not a
    named component: a named array component used twice in one model makes
    openapi-python-client write code ``mypy --strict`` refuses). The codec reads the type
    under the annotation as usual."""

    schema: JSON


def ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: JSON) -> JSON:
    """``schema`` or ``null``."""
    if set(schema) == {"type"} and isinstance(schema["type"], str):
        return {"type": [schema["type"], "null"]}
    return {"oneOf": [schema, {"type": "null"}]}


def type_schema(tp: Any, name_of: Ref) -> JSON:
    """The JSON Schema of one Python type hint."""
    origin = get_origin(tp)
    if origin is Annotated:
        declared = [m for m in tp.__metadata__ if isinstance(m, Typed)]
        if declared:
            return dict(declared[0].schema)
        return type_schema(get_args(tp)[0], name_of)
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(tp) if a is not type(None)]
        if len(members) != 1 or len(get_args(tp)) != 2:
            raise TypeError(f"only X | None unions can be typed, not {tp!r}")
        return nullable(type_schema(members[0], name_of))
    if origin is tuple:
        items = get_args(tp)
        if len(items) == 2 and items[1] is Ellipsis:
            return {"type": "array", "items": type_schema(items[0], name_of)}
        if items and all(a == items[0] for a in items):
            return {
                "type": "array",
                "items": type_schema(items[0], name_of),
                "minItems": len(items),
                "maxItems": len(items),
            }
        raise TypeError(f"mixed fixed tuples cannot be typed: {tp!r}")
    if isinstance(tp, type):
        if issubclass(tp, Enum):
            return {"type": "string", "enum": [m.value for m in tp]}
        if tp is bool:
            return {"type": "boolean"}
        if tp is int:
            return {"type": "integer"}
        if tp is str:
            return {"type": "string"}
        if dataclasses.is_dataclass(tp):
            return ref(name_of(tp))
    raise TypeError(f"no JSON Schema for {tp!r}: type the domain's field first")


def _hints(cls: type) -> dict[str, Any]:
    module = __import__(cls.__module__, fromlist=["_"])
    return get_type_hints(cls, vars(module), include_extras=True)


def _doc(cls: type) -> str | None:
    doc = cls.__doc__
    if not doc or doc.startswith(cls.__name__ + "("):  # dataclass' generated signature
        return None
    return " ".join(doc.split())


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return dataclasses.MISSING
    return value.value if isinstance(value, Enum) else value


def record_schema(cls: type, name_of: Ref, *, all_required: bool = True) -> JSON:
    """A dataclass as a closed object: every field (``all_required``: all present, the
    output form), else only the fields without a default (the input form)."""
    hints = _hints(cls)
    properties: JSON = {}
    required: list[str] = []
    for f in dataclasses.fields(cls):
        schema = type_schema(hints[f.name], name_of)
        default = _default(f)
        if default is dataclasses.MISSING or all_required:
            required.append(f.name)
        if default is not dataclasses.MISSING and not dataclasses.is_dataclass(default):
            schema = {**schema, "default": default}
        properties[f.name] = schema
    out: JSON = {"type": "object"}
    if (doc := _doc(cls)) is not None:
        out["description"] = doc
    out.update(required=required, properties=properties, additionalProperties=False)
    if not required:
        del out["required"]
    return out


def command_schema(name: str, cls: type, name_of: Ref, seats: int = 4) -> JSON:
    """A command as a client sends it: ``type`` first, ``seat`` optional, defaults optional."""
    base = record_schema(cls, name_of, all_required=False)
    properties: JSON = {"type": {"type": "string", "const": name}}
    for key, value in base["properties"].items():
        properties[key] = value
        if key == "seat":
            properties[key] = {
                "type": "integer",
                "minimum": 0,
                "maximum": seats - 1,
                "description": "Implied by the token; if given, the caller's seat.",
            }
    required = ["type", *(k for k in base.get("required", ()) if k != "seat")]
    out: JSON = {"type": "object"}
    if "description" in base:
        out["description"] = base["description"]
    out.update(required=required, properties=properties, additionalProperties=False)
    return out


def nested_dataclasses(registry: TypeRegistry[Any]) -> list[type]:
    """The dataclasses that registered types hold as fields (options records)."""
    found: list[type] = []

    def walk(tp: Any) -> None:
        for arg in get_args(tp):
            walk(arg)
        if isinstance(tp, type) and dataclasses.is_dataclass(tp) and tp not in found:
            found.append(tp)
            for hint in _hints(tp).values():
                walk(hint)

    for name in registry.names:
        for hint in _hints(registry.type_of(name)).values():
            walk(hint)
    return found


def without(schema: JSON, drop: tuple[str, ...], add: Mapping[str, JSON]) -> JSON:
    """A closed object schema with the fields ``drop`` removed and ``add`` added (all
    required): the redacted form of an event's data."""
    properties = {k: v for k, v in schema["properties"].items() if k not in drop}
    properties.update(add)
    required = [k for k in schema.get("required", ()) if k not in drop] + list(add)
    return {
        "type": "object",
        "required": required,
        "properties": properties,
        "additionalProperties": False,
    }


# --- building blocks for the hand-declared shapes (views, pending decisions, results) ---

INTEGER: JSON = {"type": "integer"}
COUNT: JSON = {"type": "integer", "minimum": 0}
STRING: JSON = {"type": "string"}
BOOLEAN: JSON = {"type": "boolean"}
SEAT: JSON = {"type": "integer", "minimum": 0, "maximum": 3}
COLOURS: tuple[str, ...] = ("black", "red", "blue", "green")
COLOUR: JSON = ref("Colour")
COLOUR_COUNTS: JSON = {
    "type": "object",
    "description": "A count per colour.",
    "required": ["black", "red", "blue", "green"],
    "properties": {c: {"type": "integer", "minimum": 0} for c in ("black", "red", "blue", "green")},
    "additionalProperties": False,
}


def array(items: JSON, **extra: Any) -> JSON:
    return {"type": "array", "items": items, **extra}


def record(
    properties: Mapping[str, JSON],
    *,
    optional: tuple[str, ...] = (),
    description: str | None = None,
) -> JSON:
    """A closed object whose properties are all present, but those named ``optional``."""
    out: JSON = {"type": "object"}
    if description is not None:
        out["description"] = description
    out["required"] = [k for k in properties if k not in optional]
    out["properties"] = dict(properties)
    out["additionalProperties"] = False
    return out


def const(value: str) -> JSON:
    return {"type": "string", "const": value}


RESULT_SEAT: JSON = record(
    {
        "seat": SEAT,
        "name": STRING,
        "dynasty": STRING,
        "points": ref("ColourCounts"),
        "treasures": {**COUNT, "description": "Treasures (jokers) held."},
        "treasures_assigned": {
            "type": "object",
            "description": "How the treasures were added to colours (colour → count).",
            "properties": {c: COUNT for c in ("black", "red", "blue", "green")},
            "additionalProperties": False,
        },
        "totals": ref("ColourCounts"),
        "score": {**COUNT, "description": "The weakest colour's total."},
        "key": array(COUNT, description="Totals weakest first: the tie-break order."),
        "place": {"type": "integer", "minimum": 1},
        "winner": BOOLEAN,
        "resigned": {
            **BOOLEAN,
            "description": "The seat resigned: it ranks below every seat that did not, "
            "whatever its points (B-RESIGN-2, C-RESIGN-2).",
        },
    },
    description="One seat of the final table; the same in both games.",
)

SHARED: dict[str, JSON] = {
    "Colour": {
        "type": "string",
        "enum": list(COLOURS),
        "description": "One of the four colours: of a tile, a leader, a card, a war, a point.",
    },
    "ColourCounts": COLOUR_COUNTS,
    "ResultSeat": RESULT_SEAT,
}
"""Shapes both games share, by component name."""
