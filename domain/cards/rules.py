"""``RULES``: the card game's one registration (a :class:`GameAdapter` of its functions)."""

from __future__ import annotations

import dataclasses
from functools import partial

from domain.cards.commands import COMMANDS, Command
from domain.cards.decide import decide
from domain.cards.determinize import determinize
from domain.cards.events import EVENTS, Event, is_draw
from domain.cards.evolve import evolve, fold
from domain.cards.explain import explain, explain_event
from domain.cards.flow import awaited, is_over, resigned, turn
from domain.cards.legal import legal_commands
from domain.cards.model import DYNASTIES, Card, State
from domain.cards.position import dump_position, load_position
from domain.cards.sample import sample_command
from domain.cards.schemas import SCHEMAS
from domain.cards.setup import normalize_options, setup_map, start
from domain.cards.views import REDACTED, event_view, pending, result, view
from domain.common.adapter import GameAdapter, package_text
from domain.common.scoring import score_key

_CARD_INDEX = {Card.BLACK: 0, Card.RED: 1, Card.BLUE: 2, Card.GREEN: 3}


def rename_seat(state: State, seat: int, name: str) -> State:
    seats = tuple(name if n == seat else old for n, old in enumerate(state.setup.seats))
    return state._replace(setup=dataclasses.replace(state.setup, seats=seats))


def score_keys(state: State) -> list[tuple[int, ...]]:
    """Every seat's score key (its victory-point cards by colour, treasures as jokers)."""
    keys = []
    for pile in state.vp:
        points = [0, 0, 0, 0]
        jokers = 0
        for card in pile:
            i = _CARD_INDEX.get(card)
            if i is None:
                jokers += 1
            else:
                points[i] += 1
        keys.append(score_key(points, jokers))
    return keys


class CardRules(GameAdapter[State, Command, Event]):
    """``GameRules`` for Euphrat & Tigris: Wettstreit der Könige."""


RULES = CardRules(
    kind="cards",
    noun="card game",
    rule_prefix="C",
    min_seats=2,
    max_seats=4,
    dynasties=DYNASTIES,
    commands=COMMANDS,
    events=EVENTS,
    normalize_options_fn=normalize_options,
    start_fn=start,
    rename_seat_fn=rename_seat,
    decide_fn=decide,
    evolve_fn=evolve,
    fold_fn=fold,
    explain_fn=explain,
    explain_event_fn=explain_event,
    legal_commands_fn=legal_commands,
    awaited_fn=awaited,
    resigned_fn=resigned,
    is_over_fn=is_over,
    turn_fn=turn,
    is_draw_fn=is_draw,
    setup_map_fn=setup_map,
    pending_fn=pending,
    result_fn=result,
    view_fn=view,
    event_view_fn=event_view,
    dump_position_fn=dump_position,
    load_position_fn=load_position,
    schemas=SCHEMAS,
    redacted=REDACTED,
    enums={
        "CardsCard": (
            tuple(c.value for c in Card),
            "A card of the card game: a colour, a treasure or a ship.",
        ),
        "ConflictKind": (("revolt", "war"), "A revolt (over a leader) or a war (over a kingdom)."),
    },
    rules_markdown_fn=partial(package_text, "domain.cards", "RULES.md"),
    determinize_fn=determinize,
    sample_command_fn=sample_command,
    score_keys_fn=score_keys,
    # The search's playouts per millisecond of think time on one core (docs/benchmarks.md,
    # Bots, with a margin): 1,500 card playouts take 366 ms of CPU on average (at most 527).
    playouts_per_ms=3.0,
)
