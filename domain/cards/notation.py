"""A compact text notation of the display, and short position set-up for tests.

One line per column or bridge that holds more than its bare treasure::

    c0: T r:0g g      column 0: treasure, red card with seat 0's trader, green card
    c3: r k k Sb      column 3: a swapped treasure* (red), two black cards, the blue-black ship
    b0: b             bridge 0 holds a blue card (``b0: b?`` while face down)

Cards: ``k`` black, ``r`` red, ``b`` blue, ``g`` green, ``T`` treasure,
``Sk``/``Sr``/``Sg`` the blue-black/-red/-green ships. A leader on a card is
``:`` + seat + colour letter. Columns not mentioned hold just their treasure.
Hands and VP piles are strings of card letters (``"kkrg"``, ``"rT"``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from domain.cards.events import GameStarted
from domain.cards.model import (
    BRIDGES,
    COLUMNS,
    DECK,
    INDEX,
    MAX_DEPTH,
    SHIPS,
    Card,
    Options,
    State,
    bridge_spot,
    column_spot,
    update,
)
from domain.cards.setup import initial_state
from domain.common.colours import COLOURS, Colour
from domain.common.errors import FormatError

LETTER: dict[Card, str] = {
    Card.BLACK: "k",
    Card.RED: "r",
    Card.BLUE: "b",
    Card.GREEN: "g",
    Card.TREASURE: "T",
    Card.SHIP_BLACK: "Sk",
    Card.SHIP_RED: "Sr",
    Card.SHIP_GREEN: "Sg",
}
CARD: dict[str, Card] = {v: k for k, v in LETTER.items()}
COLOUR_LETTER: dict[Colour, str] = {
    Colour.BLACK: "k",
    Colour.RED: "r",
    Colour.BLUE: "b",
    Colour.GREEN: "g",
}
LETTER_COLOUR: dict[str, Colour] = {v: k for k, v in COLOUR_LETTER.items()}
_TOKEN = re.compile(r"^(T|Sk|Sr|Sg|[krbg])(\?)?(?::([0-3])([krbg]))?$")


def display_text(state: State, hide_face_down: bool = True) -> str:
    """The display in the notation above (all columns, then the bridges in use)."""
    leaders = {spot: i for i, spot in enumerate(state.leaders) if spot >= 0}

    def token(card: Card, spot: int, face_down: bool = False) -> str:
        text = "?" if face_down and hide_face_down else LETTER[card] + ("?" if face_down else "")
        i = leaders.get(spot)
        if i is not None:
            text += f":{i // 4}{COLOUR_LETTER[COLOURS[i % 4]]}"
        return text

    lines = []
    for c, column in enumerate(state.columns):
        lines.append(
            f"c{c}: " + " ".join(token(card, column_spot(c, d)) for d, card in enumerate(column))
        )
    for b, card in enumerate(state.bridges):
        if card is not None:
            lines.append(f"b{b}: {token(card, bridge_spot(b), b == state.face_down)}")
    return "\n".join(lines)


def parse_display(
    text: str, seat_count: int
) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card | None, ...], int, tuple[int, ...]]:
    """``(columns, bridges, face_down, leaders)`` from the notation."""
    columns: list[tuple[Card, ...]] = [(Card.TREASURE,)] * COLUMNS
    bridges: list[Card | None] = [None] * BRIDGES
    leaders = [-1] * (4 * seat_count)
    face_down = -1
    for raw in text.strip().splitlines():
        line = raw.strip()
        if not line:
            continue
        label, _, rest = line.partition(":")
        match = re.fullmatch(r"([cb])([0-7])", label.strip())
        if match is None:
            raise FormatError(
                f"bad line {line!r}: expected 'c0:'..'c7:' or 'b0:'..'b6:'", "display"
            )
        kind, index = match.group(1), int(match.group(2))
        tokens = rest.split()
        cards: list[Card] = []
        for depth, tok in enumerate(tokens):
            m = _TOKEN.match(tok)
            if m is None:
                raise FormatError(f"bad card {tok!r} in line {line!r}", "display")
            card = CARD[m.group(1)]
            cards.append(card)
            spot = bridge_spot(index) if kind == "b" else column_spot(index, depth)
            if m.group(2):
                if kind != "b":
                    raise FormatError(f"only a bridge can lie face down: {line!r}", "display")
                face_down = index
            if m.group(3):
                seat, colour = int(m.group(3)), LETTER_COLOUR[m.group(4)]
                if seat >= seat_count:
                    raise FormatError(f"no seat {seat} in line {line!r}", "display")
                leaders[seat * 4 + INDEX[colour]] = spot
        if kind == "b":
            if (
                index >= BRIDGES
                or len(cards) != 1
                or cards[0] in SHIPS
                or cards[0] is Card.TREASURE
            ):
                raise FormatError(f"a bridge holds one civilization card: {line!r}", "display")
            bridges[index] = cards[0]
        else:
            if not cards or cards[0] not in (Card.TREASURE, Card.RED) or len(cards) > MAX_DEPTH + 1:
                raise FormatError(f"a column is a treasure* and up to 8 cards: {line!r}", "display")
            columns[index] = tuple(cards)
    return tuple(columns), tuple(bridges), face_down, tuple(leaders)


def parse_cards(text: str, field: str = "cards") -> tuple[Card, ...]:
    """``"kkrT"`` -> cards; whitespace is ignored."""
    out = []
    for ch in text.replace(" ", ""):
        if ch not in CARD or ch == "S":
            raise FormatError(f"bad card letter {ch!r} in {text!r}", field)
        out.append(CARD[ch])
    return tuple(out)


def parse_hand(text: str) -> tuple[int, ...]:
    cards = parse_cards(text, "hand")
    if Card.TREASURE in cards:
        raise FormatError("a hand holds no treasure", "hand")
    return tuple(sum(1 for c in cards if c.value == colour.value) for colour in COLOURS)


def build(
    display: str = "",
    *,
    seats: int = 2,
    hands: Mapping[int, str] | None = None,
    vp: Mapping[int, str] | None = None,
    active: int = 0,
    actions_left: int = 2,
    pile: str | None = None,
    options: Options | None = None,
    catastrophes: tuple[bool, ...] | None = None,
    ships: tuple[Card, ...] | None = None,
    turn: int = 1,
) -> State:
    """A position for tests: ``build("c0: T r:0g", hands={0: "gg"})``.

    Hands default to empty; ships not in the display are available; the pile
    defaults to every card not placed elsewhere, in a fixed order (black, red,
    blue, green repeated)."""
    names = tuple(f"player{i + 1}" for i in range(seats))
    base = initial_state(GameStarted(names, options or Options(), 0, active))
    columns, bridges, face_down, leaders = parse_display(display, seats)
    hand_counts = tuple(parse_hand((hands or {}).get(s, "")) for s in range(seats))
    vp_cards = tuple(parse_cards((vp or {}).get(s, ""), "vp") for s in range(seats))
    if pile is None:
        used = [0, 0, 0, 0]
        placed = [card for column in columns for card in column[1:]] + [
            b for b in bridges if b is not None
        ]
        placed += [card for column in columns if column[0] is Card.RED for card in column[:1]]
        placed += [card for cards in vp_cards for card in cards]
        for card in placed:
            if card.value in {c.value for c in COLOURS}:
                used[INDEX[Colour(card.value)]] += 1
        for hand in hand_counts:
            for i, n in enumerate(hand):
                used[i] += n
        left = [max(DECK[i] - used[i], 0) for i in range(4)]
        order: list[Card] = []
        while any(left):
            for i, colour in enumerate(COLOURS):
                if left[i]:
                    left[i] -= 1
                    order.append(Card(colour.value))
        pile_cards = tuple(order)
    else:
        pile_cards = parse_cards(pile, "pile")
    return update(
        base,
        setup=replace(base.setup, pile=pile_cards, set_aside=()),
        columns=columns,
        bridges=bridges,
        face_down=face_down,
        leaders=leaders,
        hands=hand_counts,
        vp=vp_cards,
        catastrophes=catastrophes if catastrophes is not None else (True,) * seats,
        ships=ships
        if ships is not None
        else tuple(s for s in SHIPS if not any(s in c for c in columns)),
        turn=turn,
        active=active,
        actions_left=actions_left,
    )
