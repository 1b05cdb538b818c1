"""Stable type names, schema versions and upcasting of the shared codec."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from domain.common import Colour, FormatError
from domain.common.codec import JSON, TypeRegistry

registry: TypeRegistry[object] = TypeRegistry("event")


@registry.register("TilePlaced", version=2)
@dataclass(frozen=True, slots=True)
class PlacedTile:  # the class name differs from the stored name on purpose
    seat: int
    colour: Colour
    at: tuple[int, int]


@registry.register("Passed")
@dataclass(frozen=True, slots=True)
class Passed:
    seat: int


@registry.upcaster("TilePlaced", 1)
def square_to_at(data: JSON) -> JSON:
    data = dict(data)
    data["at"] = data.pop("square")
    return data


def test_round_trip_uses_stable_name_and_version() -> None:
    event = PlacedTile(seat=1, colour=Colour.RED, at=(3, 4))
    name, version, data = registry.encode(event)
    assert (name, version, data) == ("TilePlaced", 2, {"seat": 1, "colour": "red", "at": [3, 4]})
    assert registry.decode(name, version, data) == event


def test_old_schema_versions_are_upcast_on_read() -> None:
    old = {"seat": 0, "colour": "blue", "square": [1, 2]}
    assert registry.decode("TilePlaced", 1, old) == PlacedTile(0, Colour.BLUE, (1, 2))


def test_unknown_type_extra_field_and_bad_value_are_format_errors() -> None:
    with pytest.raises(FormatError, match="unknown event type 'Nope'"):
        registry.from_json({"type": "Nope"})
    with pytest.raises(FormatError, match="extra"):
        registry.from_json({"type": "Passed", "seat": 0, "colour": "red"})
    with pytest.raises(FormatError, match="colour"):
        registry.from_json({"type": "TilePlaced", "seat": 0, "colour": "pink", "at": [1, 2]})
    with pytest.raises(FormatError, match="type"):
        registry.from_json({"seat": 0})


def test_newer_version_than_code_is_refused() -> None:
    with pytest.raises(FormatError, match="newer"):
        registry.decode("Passed", 5, {"seat": 0})


def test_prepare_builds_every_types_functions_before_their_first_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given a registry of a type the converter has never met
    fresh: TypeRegistry[object] = TypeRegistry("event")

    @fresh.register("Scored")
    @dataclass(frozen=True, slots=True)
    class Scored:
        seat: int
        points: tuple[int, ...]

    # when it is prepared, and cattrs can no longer generate functions
    fresh.prepare()
    fresh.prepare()  # idempotent

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a decoder or encoder was generated on first use")

    monkeypatch.setattr("cattrs.converters.make_dict_structure_fn", refuse)
    monkeypatch.setattr("cattrs.converters.make_dict_unstructure_fn", refuse)
    # then its events still encode and decode: nothing is left to build in a request
    name, version, data = fresh.encode(Scored(1, (2, 3)))
    assert data == {"seat": 1, "points": [2, 3]}
    assert fresh.decode(name, version, data) == Scored(1, (2, 3))
