"""Stable wire names and JSON codecs for commands and events.

Stored events must survive renaming a Python class, so each type is registered
under an explicit, stable name and a schema version. Data is converted to and
from JSON-able dicts with cattrs (enums as their values, tuples as lists).

Reading is exact, at any depth: an integer field takes a JSON integer only (not
``1.9``, ``1.0``, ``"1"`` or ``true``), a string field a string, a boolean field
``true``/``false``, an enum field one of its exact values, an array field an array.
A refusal is a :class:`FormatError` whose ``field`` is the path of the first
offending value (``at[0]``, ``options.allow_withdraw``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import fields, is_dataclass
from enum import Enum, IntEnum, StrEnum
from typing import Any, Generic, TypeVar, get_args, get_origin

import cattrs
from cattrs.cols import homogenous_tuple_structure_factory, list_structure_factory
from cattrs.errors import (
    AttributeValidationNote,
    BaseValidationError,
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationNote,
)
from cattrs.gen import make_hetero_tuple_structure_fn

from domain.common.errors import FormatError
from domain.common.exact import is_int, type_name

T = TypeVar("T")

JSON = dict[str, Any]
Upcaster = Callable[[JSON], JSON]

# One converter for the whole domain: strict about unknown keys, so that a
# typo in a client's command is an error rather than a silently ignored field.
converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)


class _WrongType(TypeError):
    """A JSON value of the wrong type for its field (raised by the strict hooks)."""

    def __init__(self, expected: str, value: object) -> None:
        super().__init__(f"expected {expected}, got {type_name(value)} {value!r:.40}")


def _strict_int(value: Any, _: type) -> int:
    if type(value) is int:  # the common case, decided in one step
        return value
    if not is_int(value):
        raise _WrongType("an integer", value)
    return int(value)


def _strict_float(value: Any, _: type) -> float:
    if not (is_int(value) or isinstance(value, float)) or not math.isfinite(value):
        raise _WrongType("a finite number", value)
    return float(value)


def _strict_str(value: Any, _: type) -> str:
    if not isinstance(value, str):
        raise _WrongType("a string", value)
    return str(value)


def _strict_bool(value: Any, _: type) -> bool:
    if not isinstance(value, bool):
        raise _WrongType("true or false", value)
    return value


def _strict_enum(value: Any, cls: type[Enum]) -> Enum:
    if isinstance(value, cls):
        return value
    try:
        member = cls(value)
    except (ValueError, TypeError):
        pass
    else:  # by exact type: 1.0 is not the member whose value is 1
        if type(member.value) is type(value):
            return member
    choices = ", ".join(repr(m.value) for m in cls)
    raise ValueError(f"expected one of {choices}, got {value!r:.40}")


def _is_array(tp: Any) -> bool:
    return get_origin(tp) in (tuple, list)


def _array_hook_factory(tp: Any, conv: cattrs.Converter) -> Callable[[Any, Any], Any]:
    """Tuples and lists read from a JSON array only (a string or an object is iterable too)."""
    args = get_args(tp)
    inner: Callable[[Any, Any], Any]
    if get_origin(tp) is list:
        inner = list_structure_factory(tp, conv)
    elif args and args[-1] is not Ellipsis:
        inner = make_hetero_tuple_structure_fn(tp, conv, detailed_validation=True)
    else:
        inner = homogenous_tuple_structure_factory(tp, conv)

    def structure(value: Any, cl: Any) -> Any:
        if not isinstance(value, list | tuple):
            raise _WrongType("an array", value)
        return inner(value, cl)

    return structure


converter.register_structure_hook(int, _strict_int)
converter.register_structure_hook(float, _strict_float)
converter.register_structure_hook(str, _strict_str)
converter.register_structure_hook(bool, _strict_bool)
# Registered by class (cattrs dispatches on the MRO first): a ``StrEnum`` is also a
# ``str``, so the enum bases are named too, lest the string hook claim them.
for _enum_base in (Enum, StrEnum, IntEnum):
    converter.register_structure_hook(_enum_base, _strict_enum)
converter.register_structure_hook_factory(_is_array, _array_hook_factory)


def _first_error(exc: BaseException, path: str = "") -> tuple[str, BaseException]:
    """The path (``at[0]``, ``options.x``) and the leaf error of the first refusal."""
    if isinstance(exc, ForbiddenExtraKeysError):
        extra = sorted(exc.extra_fields)[0]
        return (f"{path}.{extra}" if path else extra), exc
    if isinstance(exc, BaseValidationError) and exc.exceptions:
        sub = exc.exceptions[0]
        for note in getattr(sub, "__notes__", ()):
            if isinstance(note, AttributeValidationNote):
                return _first_error(sub, f"{path}.{note.name}" if path else note.name)
            if isinstance(note, IterableValidationNote):
                return _first_error(sub, f"{path}[{note.index}]")
        return _first_error(sub, path)
    return path, exc


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ForbiddenExtraKeysError):
        return f"unexpected extra field(s): {', '.join(sorted(exc.extra_fields))}"
    if isinstance(exc, KeyError):
        return "missing"
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

    def prepare(self) -> None:
        """Build the converter's decoding and encoding functions of every registered type
        now. cattrs generates them on first use (it compiles Python source for each class),
        which costs milliseconds: without this, the first read of a rarely seen event type
        pays for it inside a request. Idempotent; pure (the functions stay in the module's
        converter)."""
        for cls in self._by_name.values():
            converter.get_structure_hook(cls)
            converter.get_unstructure_hook(cls)

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
            path, leaf = _first_error(exc)
            detail = f"{path}: {_describe(leaf)}" if path else _describe(leaf)
            raise FormatError(f"bad {self.kind} {name!r}: {detail}", path or None) from exc

    def fields_json(self, obj: T, encoded: Mapping[str, Any] | None = None) -> JSON:
        """``obj``'s fields without its type name, as a new dict: a copy of ``encoded`` (its
        encoding at the current schema version) when the caller holds it, else encoded now."""
        if encoded is not None:
            return dict(encoded)
        return dict(self.encode(obj)[2])

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
