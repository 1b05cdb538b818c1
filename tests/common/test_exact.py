"""The one integer check of the domain: an int, never a bool, a float or a string."""

from __future__ import annotations

import pytest

from domain.common.exact import is_int, is_int_between, type_name


@pytest.mark.parametrize("value", [0, 1, -7, 2**80])
def test_integers_are_integers(value: int) -> None:
    assert is_int(value)


@pytest.mark.parametrize("value", [True, False, 1.0, 1.9, 1e308, "1", None, [1], {"n": 1}])
def test_nothing_else_is(value: object) -> None:
    assert not is_int(value)
    assert not is_int_between(value, -10, 10)


def test_the_range_is_inclusive() -> None:
    assert is_int_between(0, 0, 7) and is_int_between(7, 0, 7)
    assert not is_int_between(8, 0, 7) and not is_int_between(-1, 0, 7)


def test_type_names_are_json_names() -> None:
    names = [type_name(v) for v in (None, True, 1, 1.5, "s", [1], {"a": 1})]
    assert names == ["null", "boolean", "integer", "number", "string", "array", "object"]
