"""The four civilisation colours, shared by both games."""

from __future__ import annotations

from enum import StrEnum


class Colour(StrEnum):
    """A civilisation colour; the value is its stable wire name."""

    BLACK = "black"  # settlement / population; the king's colour
    RED = "red"  # temple; the priest's colour
    BLUE = "blue"  # farm / agriculture; the farmer's colour
    GREEN = "green"  # market; the trader's colour

    def __str__(self) -> str:
        return self.value


# Canonical order, used wherever a stable ordering of colours is needed.
COLOURS: tuple[Colour, ...] = (Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN)
