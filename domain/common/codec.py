"""Stable wire names and JSON codecs for commands and events.

Stored events must survive renaming a Python class, so each type is registered
under an explicit, stable name and a schema version. Data is converted to and
from JSON-able dicts with cattrs (enums as their values, tuples as lists).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields, is_dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError

from domain.common.errors import FormatError

T = TypeVar("T")

JSON = dict[str, Any]
Upcaster = Callable[[JSON], JSON]

# One converter for the whole domain: strict about unknown keys, so that a
# typo in a client's command is an error rather than a silently ignored field.
converter = cattrs.Converter(forbid_extra_keys=True)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ClassValidationError):
        notes = cattrs.transform_error(exc)
        return "; ".join(notes)
    if isinstance(exc, ForbiddenExtraKeysError):
        return f"unknown field(s): {', '.join(sorted(exc.extra_fields))}"
    return str(exc)


class TypeRegistry(Generic[T]):
    """Maps frozen dataclasses to stable ``(type name, schema version)`` pairs.

    ``upcasters`` turn data of an older schema version into the next one,
    keyed by ``(name, from_version)``.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind  # "command" or "event", for error messages
        self._by_name: dict[str, type[T]] = {}
        self._names: dict[type[T], tuple[str, int]] = {}
        self._upcasters: dict[tuple[str, int], Callable[[JSON], JSON]] = {}

    def register(self, name: str, version: int = 1) -> Callable[[type[T]], type[T]]:
        def decorate(cls: type[T]) -> type[T]:
            if name in self._by_name:
                raise ValueError(f"{self.kind} type {name!r} registered twice")
            if not is_dataclass(cls):
                raise TypeError(f"{cls!r} must be a dataclass")
            self._by_name[name] = cls
            self._names[cls] = (name, version)
            return cls

        return decorate

    def upcaster(self, name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        def decorate(fn: Upcaster) -> Upcaster:
            self._upcasters[(name, from_version)] = fn
            return fn

        return decorate

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def type_of(self, name: str) -> type[T]:
        try:
            return self._by_name[name]
        except KeyError:
            raise FormatError(f"unknown {self.kind} type {name!r}", "type") from None

    def name_of(self, obj: T | type[T]) -> str:
        cls = obj if isinstance(obj, type) else type(obj)
        return self._names[cls][0]

    def version_of(self, obj: T | type[T]) -> int:
        cls = obj if isinstance(obj, type) else type(obj)
        return self._names[cls][1]

    def encode(self, obj: T) -> tuple[str, int, JSON]:
        """``(type name, schema version, data)`` for storage."""
        name, version = self._names[type(obj)]
        data = _plain(converter.unstructure(obj))
        assert isinstance(data, dict)
        return name, version, data

    def decode(self, name: str, version: int, data: Mapping[str, Any]) -> T:
        """Read stored data, upcasting older schema versions first."""
        cls = self.type_of(name)
        current = self._names[cls][1]
        payload = dict(data)
        while version < current:
            step = self._upcasters.get((name, version))
            if step is None:
                raise FormatError(f"no upcaster for {self.kind} {name!r} v{version}")
            payload = step(payload)
            version += 1
        if version > current:
            raise FormatError(
                f"{self.kind} {name!r} v{version} is newer than this code (v{current})"
            )
        try:
            return converter.structure(payload, cls)
        except (ClassValidationError, ValueError, TypeError, KeyError) as exc:
            raise FormatError(f"bad {self.kind} {name!r}: {_describe(exc)}") from exc

    def to_json(self, obj: T) -> JSON:
        """Wire form for clients: the data with its ``type`` name first."""
        name, _, data = self.encode(obj)
        return {"type": name, **data}

    def from_json(self, body: Mapping[str, Any]) -> T:
        """Read a client's JSON (``{"type": ..., ...fields}``) at the current version."""
        if not isinstance(body, Mapping):
            raise FormatError(f"a {self.kind} must be a JSON object")
        name = body.get("type")
        if not isinstance(name, str):
            raise FormatError("missing or non-string 'type'", "type")
        cls = self.type_of(name)
        data = {k: v for k, v in body.items() if k != "type"}
        return self.decode(name, self._names[cls][1], data)

    def field_names(self, name: str) -> tuple[str, ...]:
        cls = self.type_of(name)
        assert is_dataclass(cls)
        return tuple(f.name for f in fields(cls))


def _plain(value: Any) -> Any:
    """JSON-native form: enums as values, tuples and sets as lists, recursively."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list | frozenset | set):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
