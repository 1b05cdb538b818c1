"""Exact JSON types: the one place that says what counts as an integer.

Python's ``bool`` is a subclass of ``int`` (``True == 1``), and ``int(1.9) == 1``:
without a check, ``true`` would be read as seat 1 and ``1.9`` as square 1. Every
reader of the domain (the command/event codec, the position formats, the deciders'
guards on hand-built commands) asks this module instead of repeating the test.
"""

from __future__ import annotations

from typing import TypeGuard


def is_int(value: object) -> TypeGuard[int]:
    """``value`` is an integer and not a boolean (JSON Schema's ``integer``, minus ``1.0``)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_int_between(value: object, low: int, high: int) -> TypeGuard[int]:
    """``value`` is an integer (not a boolean) with ``low <= value <= high``."""
    return is_int(value) and low <= value <= high


def type_name(value: object) -> str:
    """The JSON name of ``value``'s type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
