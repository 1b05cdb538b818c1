"""The versioned JSON position format (see POSITION_FORMAT.md): dump and load."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.cards.model import (
    BRIDGE_BASE,
    BRIDGES,
    COLUMNS,
    DEPTHS,
    MAX_DEPTH,
    SHIP_FOR,
    SHIPS,
    Card,
    CheckShip,
    ChooseWar,
    Commit,
    Conflict,
    EndAction,
    Offer,
    Options,
    Refill,
    Resolve,
    Setup,
    ShipOffer,
    ShipPoints,
    State,
    Step,
    TraderSwap,
    Wars,
)
from domain.common.codec import JSON
from domain.common.colours import COLOURS, Colour
from domain.common.errors import FormatError
from domain.common.exact import is_int, is_int_between
from domain.common.resign import read_resigned

FORMAT = "cards-position"
VERSION = 3
# v1: check_ship steps without `before`, ship offers without `run`;
# v1, v2: three variants in `options` (read with `trader_takes_one` off, the German swap)
READABLE_VERSIONS = (1, 2, 3)
_OPTION_NAMES = ("leader_colour_must_differ", "allow_withdraw", "open_vp_piles")
_OPTION_NAMES_V3 = (*_OPTION_NAMES, "trader_takes_one")
_SHIP_COLOUR = {ship: colour for colour, ship in SHIP_FOR.items()}


def _spot_json(spot: int) -> JSON:
    if spot >= BRIDGE_BASE:
        return {"bridge": spot - BRIDGE_BASE}
    return {"column": spot // DEPTHS, "depth": spot % DEPTHS}


def _step_json(step: Step) -> JSON:
    if isinstance(step, Offer):
        return {
            "step": "offer",
            "seat": step.seat,
            "colour": step.colour.value,
            "reason": step.reason,
        }
    if isinstance(step, ShipOffer):
        return {
            "step": "ship_offer",
            "seat": step.seat,
            "column": step.column,
            "ships": [c.value for c in step.ships],
            "run": None if step.run is None else step.run.value,
        }
    if isinstance(step, ShipPoints):
        return {
            "step": "ship_points",
            "seat": step.seat,
            "colours": [c.value for c in step.colours],
        }
    if isinstance(step, ChooseWar):
        return {"step": "choose_war", "seat": step.seat, "colours": [c.value for c in step.colours]}
    if isinstance(step, Commit):
        return {"step": "commit", "seat": step.seat}
    if isinstance(step, TraderSwap):
        return {"step": "trader_swap", "seat": step.seat, "bridge": step.bridge}
    if isinstance(step, CheckShip):
        return {"step": "check_ship", "column": step.column, "before": list(step.before)}
    if isinstance(step, Wars):
        return {"step": "wars", "bridge": step.bridge, "colours": [c.value for c in step.colours]}
    if isinstance(step, Resolve):
        return {"step": "resolve"}
    if isinstance(step, EndAction):
        return {"step": "end_action"}
    return {"step": "refill"}


def dump_position(state: State) -> JSON:
    """Everything, hidden parts included (seed, pile order, VP piles in order)."""
    conflict = state.conflict
    return {
        "format": FORMAT,
        "version": VERSION,
        "seats": list(state.seats),
        "options": {
            "leader_colour_must_differ": state.options.leader_colour_must_differ,
            "allow_withdraw": state.options.allow_withdraw,
            "open_vp_piles": state.options.open_vp_piles,
            "trader_takes_one": state.options.trader_takes_one,
        },
        "seed": state.seed,
        "start_player": state.start_player,
        "pile": [c.value for c in state.pile],
        "drawn": state.drawn,
        "set_aside": [c.value for c in state.set_aside],
        "columns": [[c.value for c in column] for column in state.columns],
        "bridges": [None if b is None else b.value for b in state.bridges],
        "face_down": None if state.face_down < 0 else state.face_down,
        "leaders": [
            {"seat": i // 4, "colour": COLOURS[i % 4].value, **_spot_json(spot)}
            for i, spot in enumerate(state.leaders)
            if spot >= 0
        ],
        "hands": [{c.value: hand[i] for i, c in enumerate(COLOURS)} for hand in state.hands],
        "vp": [[c.value for c in pile] for pile in state.vp],
        "discard": {c.value: state.discard[i] for i, c in enumerate(COLOURS)},
        "destroyed": [c.value for c in state.destroyed],
        "catastrophes": list(state.catastrophes),
        "ships_available": [_SHIP_COLOUR[s].value for s in state.ships],
        "turn": state.turn,
        "active": state.active,
        "actions_left": state.actions_left,
        "agenda": [_step_json(step) for step in state.agenda],
        "conflict": None
        if conflict is None
        else {
            "kind": conflict.kind,
            "colour": conflict.colour.value,
            "attacker": conflict.attacker,
            "defender": conflict.defender,
            "bridge": None if conflict.bridge < 0 else conflict.bridge,
            "attacker_cards": None if conflict.attacker_cards < 0 else conflict.attacker_cards,
            "defender_cards": None if conflict.defender_cards < 0 else conflict.defender_cards,
        },
        "over": state.over,
        # seats that resigned, in order (C-RESIGN-1); written only when there are any, so a
        # position without a resignation is written as before it existed
        **({"resigned": list(state.resigned)} if state.resigned else {}),
    }


# --- loading, with a FormatError naming the field on any bad input -------------


class _Reader:
    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data

    def get(self, key: str, kind: type | tuple[type, ...], field: str | None = None) -> Any:
        if key not in self.data:
            raise FormatError("missing", field or key)
        value = self.data[key]
        if not (is_int(value) if kind is int else isinstance(value, kind)):
            raise FormatError(f"wrong type {type(value).__name__}", field or key)
        return value


def _int(value: Any, field: str, low: int, high: int) -> int:
    if not is_int_between(value, low, high):
        raise FormatError(f"expected an integer {low}..{high}, got {value!r}", field)
    return value


def _card(value: Any, field: str, allowed: tuple[Card, ...] | None = None) -> Card:
    if not isinstance(value, str):
        raise FormatError(f"not a card: {value!r}", field)
    try:
        card = Card(value)
    except ValueError:
        raise FormatError(f"not a card: {value!r}", field) from None
    if allowed is not None and card not in allowed:
        raise FormatError(f"card {value!r} not allowed here", field)
    return card


def _colour(value: Any, field: str) -> Colour:
    if not isinstance(value, str):
        raise FormatError(f"not a colour: {value!r}", field)
    try:
        return Colour(value)
    except ValueError:
        raise FormatError(f"not a colour: {value!r}", field) from None


def _list(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise FormatError("expected a list", field)
    return value


def _colours(value: Any, field: str) -> tuple[Colour, ...]:
    return tuple(_colour(v, field) for v in _list(value, field))


def _counts(value: Any, field: str) -> tuple[int, ...]:
    if not isinstance(value, Mapping) or set(value) != {c.value for c in COLOURS}:
        raise FormatError("expected counts for black, red, blue, green", field)
    return tuple(_int(value[c.value], f"{field}.{c.value}", 0, 200) for c in COLOURS)


_CIVIL = (Card.BLACK, Card.RED, Card.BLUE, Card.GREEN)


def _step(raw: Any, n: int, field: str) -> Step:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("step"), str):
        raise FormatError("expected an object with 'step'", field)
    kind = raw["step"]

    def seat() -> int:
        return _int(raw.get("seat"), f"{field}.seat", 0, n - 1)

    if kind == "offer":
        reason = raw.get("reason")
        if reason not in ("card", "conflict"):
            raise FormatError(f"bad reason {reason!r}", f"{field}.reason")
        return Offer(seat(), _colour(raw.get("colour"), f"{field}.colour"), reason)
    if kind == "ship_offer":
        run = raw.get("run")
        return ShipOffer(
            seat(),
            _int(raw.get("column"), f"{field}.column", 0, 7),
            _colours(raw.get("ships"), field),
            None if run is None else _colour(run, f"{field}.run"),
        )
    if kind == "ship_points":
        return ShipPoints(seat(), _colours(raw.get("colours"), field))
    if kind == "choose_war":
        return ChooseWar(seat(), _colours(raw.get("colours"), field))
    if kind == "commit":
        return Commit(seat())
    if kind == "trader_swap":
        return TraderSwap(seat(), _int(raw.get("bridge"), f"{field}.bridge", 0, 6))
    if kind == "check_ship":
        before = raw.get("before", [0, 0, 0, 0])  # version 1 had none: the column's runs count
        if not isinstance(before, list) or len(before) != 4:
            raise FormatError("expected 4 run lengths", f"{field}.before")
        b = [_int(n, f"{field}.before", 0, 99) for n in before]
        return CheckShip(_int(raw.get("column"), f"{field}.column", 0, 7), (b[0], b[1], b[2], b[3]))
    if kind == "wars":
        return Wars(
            _int(raw.get("bridge"), f"{field}.bridge", 0, 6), _colours(raw.get("colours"), field)
        )
    if kind == "resolve":
        return Resolve()
    if kind == "end_action":
        return EndAction()
    if kind == "refill":
        return Refill()
    raise FormatError(f"unknown step {kind!r}", field)


def load_position(data: Mapping[str, Any]) -> State:
    """Inverse of ``dump_position``; FormatError naming the field on bad input."""
    if not isinstance(data, Mapping):
        raise FormatError("a position must be a JSON object")
    r = _Reader(data)
    if data.get("format") != FORMAT:
        raise FormatError(f"expected {FORMAT!r}", "format")
    version = r.get("version", int)
    if version not in READABLE_VERSIONS:
        raise FormatError(
            f"unsupported version {data['version']!r} (this code reads {VERSION})", "version"
        )
    seats = tuple(r.get("seats", list))
    if not 2 <= len(seats) <= 4 or not all(isinstance(s, str) for s in seats):
        raise FormatError("expected 2 to 4 seat names", "seats")
    n = len(seats)
    raw_options = r.get("options", dict)
    names = _OPTION_NAMES_V3 if version >= 3 else _OPTION_NAMES
    if set(raw_options) != set(names) or not all(isinstance(v, bool) for v in raw_options.values()):
        raise FormatError(
            f"expected the {len(names)} boolean variants {', '.join(names)}, got {raw_options!r}",
            "options",
        )
    pile = tuple(_card(c, "pile", _CIVIL) for c in r.get("pile", list))
    drawn = _int(r.get("drawn", int), "drawn", 0, len(pile))
    columns = []
    for c, raw_column in enumerate(r.get("columns", list)):
        column = tuple(_card(v, f"columns[{c}]") for v in _list(raw_column, f"columns[{c}]"))
        if not column or column[0] not in (Card.TREASURE, Card.RED) or len(column) > MAX_DEPTH + 1:
            raise FormatError("a column is a treasure* and up to 8 cards", f"columns[{c}]")
        if any(card is Card.TREASURE for card in column[1:]):
            raise FormatError("a treasure lies only at depth 0", f"columns[{c}]")
        columns.append(column)
    if len(columns) != COLUMNS:
        raise FormatError("expected 8 columns", "columns")
    raw_bridges = r.get("bridges", list)
    if len(raw_bridges) != BRIDGES:
        raise FormatError("expected 7 bridges", "bridges")
    bridges = tuple(None if b is None else _card(b, "bridges", _CIVIL) for b in raw_bridges)
    face_down_raw = data.get("face_down")
    face_down = -1 if face_down_raw is None else _int(face_down_raw, "face_down", 0, 6)
    leaders = [-1] * (4 * n)
    for raw in r.get("leaders", list):
        if not isinstance(raw, Mapping):
            raise FormatError("expected an object", "leaders")
        seat = _int(raw.get("seat"), "leaders.seat", 0, n - 1)
        colour = _colour(raw.get("colour"), "leaders.colour")
        if "bridge" in raw:
            spot = BRIDGE_BASE + _int(raw["bridge"], "leaders.bridge", 0, 6)
        else:
            spot = _int(raw.get("column"), "leaders.column", 0, 7) * DEPTHS + _int(
                raw.get("depth"), "leaders.depth", 0, MAX_DEPTH
            )
        leaders[seat * 4 + COLOURS.index(colour)] = spot
    hands = tuple(_counts(h, "hands") for h in r.get("hands", list))
    vp = tuple(
        tuple(_card(c, "vp", (*_CIVIL, Card.TREASURE)) for c in _list(p, "vp"))
        for p in r.get("vp", list)
    )
    catastrophes = tuple(r.get("catastrophes", list))
    if (
        len(hands) != n
        or len(vp) != n
        or len(catastrophes) != n
        or not all(isinstance(x, bool) for x in catastrophes)
    ):
        raise FormatError("one entry per seat expected", "hands")
    ships_raw = r.get("ships_available", list)
    ships = []
    for v in ships_raw:
        colour = _colour(v, "ships_available")
        if colour not in SHIP_FOR:
            raise FormatError(f"no blue-{v} ship", "ships_available")
        ships.append(SHIP_FOR[colour])
    agenda = tuple(_step(s, n, f"agenda[{i}]") for i, s in enumerate(r.get("agenda", list)))
    conflict = None
    raw_conflict = data.get("conflict")
    if raw_conflict is not None:
        if not isinstance(raw_conflict, Mapping) or raw_conflict.get("kind") not in (
            "revolt",
            "war",
        ):
            raise FormatError("expected a revolt or war", "conflict")

        def _opt(key: str, high: int) -> int:
            value = raw_conflict.get(key)
            return -1 if value is None else _int(value, f"conflict.{key}", 0, high)

        conflict = Conflict(
            raw_conflict["kind"],
            _colour(raw_conflict.get("colour"), "conflict.colour"),
            _int(raw_conflict.get("attacker"), "conflict.attacker", 0, n - 1),
            _int(raw_conflict.get("defender"), "conflict.defender", 0, n - 1),
            _opt("bridge", 6),
            _opt("attacker_cards", 200),
            _opt("defender_cards", 200),
        )
    over = data.get("over")
    if over not in (None, "pile", "treasures", "blocked", "resigned"):
        raise FormatError(f"bad reason {over!r}", "over")
    resigned = read_resigned(data.get("resigned", []), n)
    seed = r.get("seed", int)
    return State(
        setup=Setup(
            seats,
            Options(**raw_options),
            seed,
            _int(r.get("start_player", int), "start_player", 0, n - 1),
            pile,
            tuple(_card(c, "set_aside", _CIVIL) for c in r.get("set_aside", list)),
        ),
        drawn=drawn,
        columns=tuple(columns),
        bridges=bridges,
        face_down=face_down,
        leaders=tuple(leaders),
        hands=hands,
        vp=vp,
        discard=_counts(r.get("discard", dict), "discard"),
        destroyed=tuple(_card(c, "destroyed", _CIVIL) for c in r.get("destroyed", list)),
        catastrophes=catastrophes,
        ships=tuple(s for s in SHIPS if s in ships),
        turn=_int(r.get("turn", int), "turn", 1, 10**6),
        active=_int(r.get("active", int), "active", 0, n - 1),
        actions_left=_int(r.get("actions_left", int), "actions_left", 0, 2),
        agenda=agenda,
        conflict=conflict,
        over=over,
        resigned=resigned,
    )
