"""The versioned JSON position format (see POSITION_FORMAT.md): dump and load.

``dump_position`` writes everything, hidden parts included (it is admin-level);
``load_position`` reads it back, checking it thoroughly: ``load(dump(s)) == s``.
The format is stored: it is written here alone, never borrowed from the views,
so that a change of what players see cannot change what was stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.board.geometry import (
    COLS,
    RIVER,
    ROWS,
    START_TEMPLES,
    block,
    coords,
    is_block_top_left,
    on_board,
    square,
)
from domain.board.model import (
    ACTION,
    ACTIONS_PER_TURN,
    BLUE,
    CATASTROPHE,
    CATASTROPHES_PER_SEAT,
    CHOOSE_WAR,
    DECISIONS,
    FACE_DOWN,
    FACE_UP,
    LEADER,
    MONUMENT,
    MONUMENT_COLOURS,
    MONUMENTS,
    OLD_COMMIT_NAMES,
    OVER,
    REFILL,
    REVOLT,
    TEMPLE,
    TILE_COUNTS,
    TREASURE,
    WAR,
    CheckMonument,
    ChooseWar,
    Commit,
    Conflict,
    EndAction,
    Monument,
    MonumentOffer,
    Refill,
    Resolve,
    State,
    Step,
    TreasureChoice,
    Treasures,
    Wars,
)
from domain.board.notation import format_board, parse_board
from domain.board.setup import normalize_options
from domain.common.codec import JSON
from domain.common.colours import COLOURS, Colour
from domain.common.errors import FormatError
from domain.common.exact import is_int
from domain.common.resign import read_resigned

FORMAT = "tigris-board-position"
VERSION = 3
# v1: declined squares without their tiles (read as still whole); v1 and v2: the pending
# decision as ``decision`` (``revolt_support``/``war_support`` for ``commit``), ``wars``,
# ``placed``, ``monument_squares``, ``treasure_choice`` and ``actions_done``, read as the
# agenda and ``actions_left`` of version 3.
READABLE_VERSIONS = (1, 2, 3)


def _at(sq: int) -> list[int]:
    return list(coords(sq))


def _colour_counts(values: tuple[int, ...] | list[int]) -> dict[str, int]:
    return {str(COLOURS[c]): values[c] for c in range(4)}


def _conflict_json(state: State) -> JSON | None:
    c = state.conflict
    if c is None:
        return None
    return {
        "kind": c.kind,
        "colour": str(COLOURS[c.colour]),
        "attacker": c.attacker,
        "defender": c.defender,
        "attacker_at": _at(c.attacker_at),
        "defender_at": _at(c.defender_at),
        "attacker_base": c.attacker_base,
        "defender_base": c.defender_base,
        "attacker_commit": None if c.attacker_commit < 0 else c.attacker_commit,
        "defender_commit": None if c.defender_commit < 0 else c.defender_commit,
    }


def _declined_json(state: State) -> list[JSON]:
    """Each declined 2x2 square with its declined tiles still on the board (version 2)."""
    return [
        {"at": _at(tl), "tiles": sorted(_at(sq) for t, sq in state.declined_tiles if t == tl)}
        for tl in sorted(state.declined)
    ]


def dump_position(state: State) -> JSON:
    return {
        "format": FORMAT,
        "version": VERSION,
        "seats": list(state.seats),
        "seed": state.seed,
        "start_player": state.start_player,
        "options": dict(state.options),
        "board": format_board(state.board, state.treasures, state.unification),
        "hands": [_colour_counts(h) for h in state.hands],
        "bag": [str(COLOURS[x]) for x in state.bag],
        "points": [_colour_counts(p) for p in state.points],
        "treasures_taken": list(state.taken),
        "catastrophes": list(state.catastrophes),
        "monuments": [{"monument": str(MONUMENTS[m]), "at": _at(tl)} for m, tl in state.monuments],
        "declined": _declined_json(state),
        "out_of_game": _colour_counts(state.out),
        "turn": state.turn,
        "active": state.active,
        "actions_left": state.actions_left,
        "agenda": [step_json(step) for step in state.agenda],
        "conflict": _conflict_json(state),
        "ended": state.ended,
        # seats that resigned, in order (B-RESIGN-1); written only when there are any, so a
        # position without a resignation is written as before it existed
        **({"resigned": list(state.resigned)} if state.resigned else {}),
    }


def step_json(step: Step) -> JSON:
    """One agenda step as the format writes it (``{"step": name, ...fields}``)."""
    if isinstance(step, Commit):
        return {"step": "commit", "seat": step.seat}
    if isinstance(step, ChooseWar):
        return {
            "step": "choose_war",
            "seat": step.seat,
            "colours": [str(COLOURS[c]) for c in step.colours],
        }
    if isinstance(step, MonumentOffer):
        return {"step": "monument_offer", "seat": step.seat, "squares": _squares(step.squares)}
    if isinstance(step, TreasureChoice):
        return {
            "step": "treasure_choice",
            "seat": step.seat,
            "treasures": _squares(step.squares),
            "take": step.take,
        }
    if isinstance(step, CheckMonument):
        return {"step": "check_monument", "at": _at(step.square)}
    if isinstance(step, Wars):
        return {"step": "wars", "colours": [str(COLOURS[c]) for c in step.colours]}
    return {"step": _SIMPLE_NAMES[type(step)]}


_SIMPLE: dict[str, Step] = {
    "treasures": Treasures(),
    "resolve": Resolve(),
    "end_action": EndAction(),
    "refill": Refill(),
}
_SIMPLE_NAMES: dict[type[Step], str] = {type(step): name for name, step in _SIMPLE.items()}


def _squares(squares: tuple[int, ...]) -> list[list[int]]:
    return [_at(sq) for sq in squares]


# -- reading ----------------------------------------------------------------------


def _get(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in data:
        raise FormatError("missing", key)
    value = data[key]
    if not (is_int(value) if kind is int else isinstance(value, kind)):
        raise FormatError(f"unexpected value {value!r}", key)
    return value


def _int(value: Any, field: str, low: int = 0, high: int | None = None) -> int:
    if not is_int(value) or value < low:
        raise FormatError(f"expected an integer >= {low}, got {value!r}", field)
    if high is not None and value > high:
        raise FormatError(f"expected at most {high}, got {value!r}", field)
    return value


def _square(value: Any, field: str) -> int:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(is_int(v) for v in value)
        or not on_board(value[0], value[1])
    ):
        raise FormatError(f"expected [row, col] on the board, got {value!r}", field)
    return square(value[0], value[1])


def _top_left(value: Any, field: str) -> int:
    """The top-left corner of a 2x2 square: row 0..9, col 0..14, so that the whole square
    lies on the board (checked before any of its four squares is looked at)."""
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(is_int(v) for v in value)
        or not on_board(value[0], value[1])
        or not is_block_top_left(square(value[0], value[1]))
    ):
        raise FormatError(
            f"expected the top-left [row, col] of a 2x2 square on the board "
            f"(row 0..{ROWS - 2}, col 0..{COLS - 2}), got {value!r}",
            field,
        )
    return square(value[0], value[1])


def read_colour(value: Any, field: str) -> int:
    if not isinstance(value, str):
        raise FormatError(f"unknown colour {value!r}", field)
    try:
        return COLOURS.index(Colour(value))
    except ValueError:
        raise FormatError(f"unknown colour {value!r}", field) from None


def _counts(value: Any, field: str) -> tuple[int, int, int, int]:
    if not isinstance(value, Mapping) or set(value) != {str(c) for c in COLOURS}:
        raise FormatError(f"expected counts for black, red, blue, green, got {value!r}", field)
    b, r, u, g = (_int(value[str(c)], f"{field}.{c}") for c in COLOURS)
    return (b, r, u, g)


def load_position(data: Mapping[str, Any]) -> State:
    if not isinstance(data, Mapping):
        raise FormatError("a position must be a JSON object")
    if data.get("format") != FORMAT:
        raise FormatError(f"expected {FORMAT!r}", "format")
    if not is_int(data.get("version")) or data.get("version") not in READABLE_VERSIONS:
        raise FormatError(f"unsupported version {data.get('version')!r}", "version")
    seats = _get(data, "seats", list)
    n = len(seats)
    if not 2 <= n <= 4 or not all(isinstance(s, str) for s in seats):
        raise FormatError("expected 2 to 4 seat names", "seats")
    board, treasures, unification = parse_board(_get(data, "board", list))
    leaders = [-1] * (4 * n)
    for sq, code in enumerate(board):
        if code >= LEADER:
            if (code - LEADER) >> 2 >= n:
                raise FormatError(f"a leader of seat {(code - LEADER) >> 2} at {_at(sq)}", "board")
            if RIVER[sq] or leaders[code - LEADER] >= 0:
                raise FormatError(f"misplaced or repeated leader at {_at(sq)}", "board")
            leaders[code - LEADER] = sq
        elif FACE_UP <= code < CATASTROPHE and RIVER[sq] != ((code - FACE_UP) % 4 == BLUE):
            raise FormatError(f"a tile of the wrong colour for the square at {_at(sq)}", "board")
    for sq in treasures:
        if board[sq] not in (TEMPLE, FACE_DOWN + 1):
            raise FormatError(f"treasure off a temple at {_at(sq)}", "board")

    def seat_list(key: str) -> list[Any]:
        values: list[Any] = _get(data, key, list)
        if len(values) != n:
            raise FormatError(f"expected {n} entries", key)
        return values

    hands = tuple(_counts(h, "hands") for h in seat_list("hands"))
    points = tuple(_counts(p, "points") for p in seat_list("points"))
    treasures_in_game = len(START_TEMPLES)  # B-SETUP-2: one on each starting temple
    taken = tuple(
        _int(t, "treasures_taken", 0, treasures_in_game) for t in seat_list("treasures_taken")
    )
    cats = tuple(
        _int(x, "catastrophes", 0, CATASTROPHES_PER_SEAT) for x in seat_list("catastrophes")
    )
    bag = tuple(read_colour(x, "bag") for x in _get(data, "bag", list))
    out = _counts(_get(data, "out_of_game", dict), "out_of_game")
    monuments = []
    for entry in _get(data, "monuments", list):
        if not isinstance(entry, Mapping):
            raise FormatError("expected {monument, at}", "monuments")
        try:
            m = MONUMENTS.index(Monument(_get(entry, "monument", str)))
        except ValueError:
            raise FormatError(f"unknown monument {entry.get('monument')!r}", "monuments") from None
        monuments.append((m, _top_left(entry.get("at"), "monuments")))
    for m, tl in monuments:
        colours = {board[sq] - FACE_DOWN for sq in block(tl)}
        if len(colours) != 1 or not colours <= set(MONUMENT_COLOURS[m]):
            raise FormatError(
                f"monument at {_at(tl)} does not cover 4 face-down tiles", "monuments"
            )
    if len({m for m, _ in monuments}) != len(monuments):
        raise FormatError("a monument is built twice", "monuments")
    declined, declined_tiles = _declined(_get(data, "declined", list), board)
    # All 153 tiles accounted for (B-SETUP-4), per colour.
    for c in range(4):
        on_board = sum(1 for code in board if code in (FACE_UP + c, FACE_DOWN + c))
        total = on_board + sum(h[c] for h in hands) + bag.count(c) + out[c]
        if total != TILE_COUNTS[c]:
            raise FormatError(
                f"{COLOURS[c]} tiles add up to {total}, not {TILE_COUNTS[c]}", "board"
            )
    conflict = read_conflict(data.get("conflict"), n)
    active = _int(_get(data, "active", int), "active", 0, n - 1)
    if data["version"] >= 3:
        actions_left = _int(_get(data, "actions_left", int), "actions_left", 0, ACTIONS_PER_TURN)
        agenda = tuple(
            _step(raw, n, f"agenda[{i}]") for i, raw in enumerate(_get(data, "agenda", list))
        )
    else:
        agenda, actions_left = _agenda_v2(data, n, active, conflict, set(treasures))
    options = _get(data, "options", dict)
    ended = _get(data, "ended", str)
    if ended not in ("", "treasures", "bag", "resigned"):
        raise FormatError(f"unknown reason {ended!r}", "ended")
    resigned = read_resigned(data.get("resigned", []), n)
    _check_agenda(
        agenda,
        conflict=conflict,
        board=board,
        unification=unification,
        ended=ended,
        treasures=set(treasures),
    )
    return State(
        seats=tuple(seats),
        seed=_int(_get(data, "seed", int), "seed", -(2**63)),
        start_player=_int(_get(data, "start_player", int), "start_player", 0, n - 1),
        board=tuple(board),
        treasures=frozenset(treasures),
        leaders=tuple(leaders),
        hands=hands,
        bag=bag,
        points=points,
        taken=taken,
        catastrophes=cats,
        monuments=tuple(monuments),
        declined=declined,
        declined_tiles=declined_tiles,
        out=out,
        turn=_int(_get(data, "turn", int), "turn", 1),
        active=active,
        actions_left=actions_left,
        agenda=agenda,
        conflict=conflict,
        unification=unification,
        ended=ended,
        resigned=resigned,
        # as a game stores them: the options that differ from their default (checked)
        options=tuple(sorted((k, v) for k, v in normalize_options(options).items() if v)),
    )


def _step(raw: Any, n: int, field: str) -> Step:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("step"), str):
        raise FormatError("expected an object with 'step'", field)
    kind = raw["step"]

    def seat() -> int:
        return _int(raw.get("seat"), f"{field}.seat", 0, n - 1)

    def colours() -> tuple[int, ...]:
        listed = raw.get("colours")
        if not isinstance(listed, list):
            raise FormatError("expected a list of colours", f"{field}.colours")
        return tuple(read_colour(x, f"{field}.colours") for x in listed)

    def squares(key: str) -> tuple[int, ...]:
        listed = raw.get(key)
        if not isinstance(listed, list) or not listed:
            raise FormatError("expected a non-empty list of squares", f"{field}.{key}")
        return tuple(_square(x, f"{field}.{key}") for x in listed)

    if kind == "commit":
        return Commit(seat())
    if kind == "choose_war":
        return ChooseWar(seat(), colours())
    if kind == "monument_offer":
        offered = raw.get("squares")
        if not isinstance(offered, list) or not offered:
            raise FormatError("expected a non-empty list of squares", f"{field}.squares")
        return MonumentOffer(seat(), tuple(_top_left(x, f"{field}.squares") for x in offered))
    if kind == "treasure_choice":
        return TreasureChoice(
            seat(), squares("treasures"), _int(raw.get("take"), f"{field}.take", 1, 9)
        )
    if kind == "check_monument":
        return CheckMonument(_square(raw.get("at"), f"{field}.at"))
    if kind == "wars":
        return Wars(colours())
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    raise FormatError(f"unknown step {kind!r}", field)


def _agenda_v2(
    data: Mapping[str, Any], n: int, active: int, conflict: Conflict | None, treasures: set[int]
) -> tuple[tuple[Step, ...], int]:
    """The agenda and actions left that versions 1 and 2 wrote as the pending decision
    and its fields (checked as they were then)."""
    decision = _get(data, "decision", str)
    if decision not in DECISIONS and decision not in OLD_COMMIT_NAMES:
        raise FormatError(f"unknown decision {decision!r}", "decision")
    done = _int(_get(data, "actions_done", int), "actions_done", 0, ACTIONS_PER_TURN)
    wars = tuple(read_colour(x, "wars") for x in _get(data, "wars", list))
    placed_raw = data.get("placed")
    placed = -1 if placed_raw is None else _square(placed_raw, "placed")
    candidates = tuple(
        _top_left(x, "monument_squares") for x in _get(data, "monument_squares", list)
    )
    choice = data.get("treasure_choice")
    treasure: TreasureChoice | None = None
    if choice is not None:
        if not isinstance(choice, Mapping):
            raise FormatError("expected {seat, treasures, take}", "treasure_choice")
        t_seat = _int(choice.get("seat"), "treasure_choice", 0, n - 1)
        listed = choice.get("treasures")
        if not isinstance(listed, list):
            raise FormatError("expected a list of treasure squares", "treasure_choice")
        t_squares = tuple(_square(x, "treasure_choice") for x in listed)
        t_take = _int(choice.get("take"), "treasure_choice", 1, 9)
        if not set(t_squares) <= treasures or t_take >= len(t_squares):
            raise FormatError(
                "treasures to choose must be on the board, more than taken", "treasure_choice"
            )
        treasure = TreasureChoice(t_seat, t_squares, t_take)

    def need(ok: bool, field: str, message: str) -> None:
        if not ok:
            raise FormatError(f"{message} (decision {decision!r})", field)

    war = decision in ("war_support", CHOOSE_WAR)
    need(not wars or war, "wars", "pending wars go with a war")
    need(decision != CHOOSE_WAR or len(wars) >= 2, "wars", "a choice needs two wars")
    need(placed < 0 or war, "placed", "a placed tile waits only for its wars")
    need((decision == MONUMENT) == bool(candidates), "monument_squares", "monument squares")
    need((decision == TREASURE) == (treasure is not None), "treasure_choice", "a choice")
    need((decision in OLD_COMMIT_NAMES) == (conflict is not None), "conflict", "a conflict")
    if conflict is not None:
        kind = REVOLT if decision == "revolt_support" else WAR
        need(conflict.kind == kind, "conflict", "kind")
    if decision in (ACTION, OVER, REFILL):
        return ((Refill(),) if decision == REFILL else ()), ACTIONS_PER_TURN - done
    need(done < ACTIONS_PER_TURN, "actions_done", "an action under way")
    steps = pending_agenda(
        active=active,
        conflict=conflict,
        wars=wars,
        placed=placed,
        candidates=candidates,
        treasure=treasure,
    )
    return steps, ACTIONS_PER_TURN - done - 1


def pending_agenda(
    *,
    active: int,
    conflict: Conflict | None,
    wars: tuple[int, ...],
    placed: int,
    candidates: tuple[int, ...],
    treasure: TreasureChoice | None,
) -> tuple[Step, ...]:
    """The agenda of an action under way whose pending decision is described by the other
    arguments, as the views and position format version 2 describe it: a conflict's
    commits (and a war's further wars), a war to choose, a monument offer or a treasure
    choice; then the monument check of the placed tile, treasures and the action's end."""
    tail: tuple[Step, ...] = (Treasures(), EndAction())
    if placed >= 0:
        tail = (CheckMonument(placed), *tail)
    steps: tuple[Step, ...]
    if conflict is not None:
        steps = (Commit(conflict.defender), Resolve())
        if conflict.attacker_commit < 0:
            steps = (Commit(conflict.attacker), *steps)
        if conflict.kind == WAR:
            steps = (*steps, Wars(wars))
    elif candidates:
        steps = (MonumentOffer(active, candidates),)
    elif treasure is not None:
        steps = (treasure,)
    else:
        steps = (ChooseWar(active, wars), Wars(wars))
    return (*steps, *tail)


def _check_agenda(
    agenda: tuple[Step, ...],
    *,
    conflict: Conflict | None,
    board: list[int],
    unification: int,
    ended: str,
    treasures: set[int],
) -> None:
    """The agenda must agree with the conflict, the unification marker and the end."""
    head = agenda[0] if agenda else None
    decision = OVER if ended else type(head).__name__ if head is not None else ACTION

    def need(ok: bool, field: str, message: str) -> None:
        if not ok:
            raise FormatError(f"{message} (pending {decision})", field)

    commits = [s for s in agenda if isinstance(s, Commit)]
    need(not ended or not agenda, "agenda", "nothing is pending after the end")
    need(bool(commits) == (conflict is not None), "conflict", "a conflict goes with commits")
    need(head is None or not commits or isinstance(head, Commit), "agenda", "commits first")
    if conflict is not None:
        need(conflict.attacker != conflict.defender, "conflict", "attacker and defender differ")
        for seat, sq in (
            (conflict.attacker, conflict.attacker_at),
            (conflict.defender, conflict.defender_at),
        ):
            need(board[sq] >= LEADER and (board[sq] - LEADER) >> 2 == seat, "conflict", "leaders")
        need(commits[0].seat == conflict.awaiting and len(commits) <= 2, "agenda", "commit order")
    fighting = any(isinstance(s, Wars) for s in agenda)
    need(fighting == (unification >= 0), "board", "the unification marker goes with wars")
    if isinstance(head, ChooseWar):
        need(len(head.colours) >= 2, "agenda", "a choice needs two wars")
    if isinstance(head, TreasureChoice):
        need(
            set(head.squares) <= treasures and head.take < len(head.squares),
            "agenda",
            "treasures to choose must be on the board, more than taken",
        )


def _declined(
    entries: list[Any], board: Sequence[int]
) -> tuple[frozenset[int], frozenset[tuple[int, int]]]:
    """Declined 2x2 squares: ``{"at", "tiles"}`` (version 2), or a bare square (version 1,
    read as all its tiles still there: the ban then lasted for good)."""
    declined: set[int] = set()
    tiles: set[tuple[int, int]] = set()
    for entry in entries:
        if isinstance(entry, Mapping):
            tl = _top_left(entry.get("at"), "declined")
            listed = entry.get("tiles")
            if not isinstance(listed, list) or not listed:
                raise FormatError("expected the declined tiles still on the board", "declined")
            squares = [_square(x, "declined") for x in listed]
        else:
            tl = _top_left(entry, "declined")
            squares = [sq for sq in block(tl) if FACE_UP <= board[sq] < CATASTROPHE]
        if tl in declined:
            raise FormatError(f"the 2x2 square at {_at(tl)} is listed twice", "declined")
        if not set(squares) <= set(block(tl)) or len(set(squares)) != len(squares):
            raise FormatError(f"tiles outside the square at {_at(tl)}", "declined")
        if any(not FACE_UP <= board[sq] < CATASTROPHE for sq in squares):
            raise FormatError(f"a declined tile of {_at(tl)} is not on the board", "declined")
        if not squares:
            continue  # (version 1) none of its tiles is left: the ban is over
        declined.add(tl)
        tiles.update((tl, sq) for sq in squares)
    return frozenset(declined), frozenset(tiles)


def read_conflict(value: Any, n: int) -> Conflict | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise FormatError("expected an object or null", "conflict")
    kind = value.get("kind")
    if kind not in (REVOLT, WAR):
        raise FormatError(f"unknown kind {kind!r}", "conflict")

    def commit(key: str) -> int:
        raw = value.get(key)
        return -1 if raw is None else _int(raw, "conflict")

    return Conflict(
        kind=kind,
        colour=read_colour(value.get("colour"), "conflict"),
        attacker=_int(value.get("attacker"), "conflict", 0, n - 1),
        defender=_int(value.get("defender"), "conflict", 0, n - 1),
        attacker_at=_square(value.get("attacker_at"), "conflict"),
        defender_at=_square(value.get("defender_at"), "conflict"),
        attacker_base=_int(value.get("attacker_base"), "conflict"),
        defender_base=_int(value.get("defender_base"), "conflict"),
        attacker_commit=commit("attacker_commit"),
        defender_commit=commit("defender_commit"),
    )
