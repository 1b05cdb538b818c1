"""What each seat may see (C-VP-1, C-HIDDEN-1), the pending decision, the result.

Every view has the same keys: what the viewer may not see is ``None``; the admin's
view and every view after the end are complete. The vocabulary is the board game's:
``seats``, a seat's ``points`` by colour and ``treasures`` (the jokers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.cards import display
from domain.cards.events import EVENTS, CardPlayed, CardsDrawn, Event, GameStarted
from domain.cards.flow import DECISION_NAMES, current_decision
from domain.cards.model import (
    COLOUR_OF,
    DYNASTIES,
    INDEX,
    Card,
    ChooseWar,
    Commit,
    Offer,
    ShipOffer,
    ShipPoints,
    State,
    TraderSwap,
    bridge_spot,
    column_spot,
)
from domain.cards.notation import display_text
from domain.common.codec import JSON
from domain.common.colours import COLOURS, Colour
from domain.common.resign import resigned_last
from domain.common.scoring import best_assignment, rank_players
from domain.common.seats import check_viewer


def pending(state: State) -> JSON:
    """``{"kind": "cards", "awaiting": [seats], "decision": name, ...details}``."""
    if state.over is not None:
        return {"kind": "cards", "awaiting": [], "decision": "over", "reason": state.over}
    decision = current_decision(state)
    if decision is None:
        return {
            "kind": "cards",
            "awaiting": [state.active],
            "decision": "action",
            "actions_left": state.actions_left,
        }
    out: JSON = {
        "kind": "cards",
        "awaiting": [decision.seat],
        "decision": DECISION_NAMES[type(decision)],
    }
    if isinstance(decision, Offer):
        out.update(colour=decision.colour.value, reason=decision.reason)
    elif isinstance(decision, ShipOffer):
        out.update(column=decision.column, ships=[c.value for c in decision.ships])
        if decision.run is not None:
            out.update(run=decision.run.value)
    elif isinstance(decision, (ShipPoints, ChooseWar)):
        out.update(colours=[c.value for c in decision.colours])
    elif isinstance(decision, Commit):
        out.update(conflict=conflict_json(state))
    elif isinstance(decision, TraderSwap):
        region = display.region_of_spot(state, bridge_spot(decision.bridge))
        out.update(bridge=decision.bridge, columns=display.treasures_in_region(state, region))
    return out


def conflict_json(state: State) -> JSON | None:
    conflict = state.conflict
    if conflict is None:
        return None
    attack, defence = display.strengths(state)
    return {
        "kind": conflict.kind,
        "colour": conflict.colour.value,
        "card_colour": conflict.card_colour.value,  # red in a revolt
        "attacker": conflict.attacker,
        "defender": conflict.defender,
        "bridge": None if conflict.bridge < 0 else conflict.bridge,
        "attacker_cards": None if conflict.attacker_cards < 0 else conflict.attacker_cards,
        "defender_cards": None if conflict.defender_cards < 0 else conflict.defender_cards,
        "attacker_strength": attack,
        "defender_strength": defence,
    }


def _points(cards: tuple[Card, ...]) -> tuple[dict[str, int], int]:
    """A VP pile as points per colour and its treasure cards (the jokers)."""
    points = {c.value: 0 for c in COLOURS}
    treasures = 0
    for card in cards:
        if card is Card.TREASURE:
            treasures += 1
        else:
            points[card.value] += 1
    return points, treasures


def _hand_json(hand: tuple[int, ...]) -> dict[str, int]:
    return {c.value: hand[INDEX[c]] for c in COLOURS}


_NAME: dict[Card, str] = {card: card.value for card in Card}
_LEADER: tuple[JSON, ...] = tuple(
    {"seat": i // 4, "colour": COLOURS[i % 4].value} for i in range(16)
)


def display_json(state: State) -> JSON:
    """The display as JSON: columns from the treasure* down, then the bridge slots."""
    leaders = {spot: i for i, spot in enumerate(state.leaders) if spot >= 0}
    columns = []
    for c, column in enumerate(state.columns):
        base = column_spot(c, 0)
        columns.append(
            [
                {
                    "card": _NAME[card],
                    "leader": None if (i := leaders.get(base + d)) is None else dict(_LEADER[i]),
                }
                for d, card in enumerate(column)
            ]
        )
    bridges: list[JSON | None] = []
    for b, card in enumerate(state.bridges):
        if card is None:
            bridges.append(None)
            continue
        i = leaders.get(bridge_spot(b))
        bridges.append(
            {
                "card": "face-down" if b == state.face_down else _NAME[card],
                "leader": None if i is None else dict(_LEADER[i]),
            }
        )
    return {"columns": columns, "bridges": bridges}


def view(state: State, viewer: int | None, *, complete: bool = False) -> JSON:
    """What ``viewer`` (a seat, or None) may see; ``complete``: everything (the admin).
    Once the game is over every view is complete. Every key is always present: what
    the caller may not see is ``null``."""
    viewer = check_viewer(viewer, state.seat_count)
    ended = state.over is not None
    complete = complete or ended
    seats = []
    for seat, name in enumerate(state.seats):
        pile = state.vp[seat]
        scores = complete or state.options.open_vp_piles
        points, treasures = _points(pile)
        seats.append(
            {
                "seat": seat,
                "name": name,
                "dynasty": DYNASTIES[seat],
                "hand_size": state.hand_size(seat),
                "supply": [
                    c.value for i, c in enumerate(COLOURS) if state.leaders[seat * 4 + i] < 0
                ],
                "catastrophes": int(state.catastrophes[seat]),
                "hand": _hand_json(state.hands[seat]) if complete or seat == viewer else None,
                "points": points if scores else None,
                "treasures": treasures if scores else None,
                "vp_count": len(pile),
                "vp_top": pile[-1].value if pile else None,
                "vp_order": [c.value for c in pile] if complete else None,
            }
        )
    return {
        "kind": "cards",
        "viewer": viewer,
        "complete": complete,
        "over": ended,
        "options": {
            "leader_colour_must_differ": state.options.leader_colour_must_differ,
            "allow_withdraw": state.options.allow_withdraw,
            "open_vp_piles": state.options.open_vp_piles,
            "trader_takes_one": state.options.trader_takes_one,
        },
        "turn": state.turn,
        "active": state.active,
        "start_player": state.start_player,
        "resigned": list(state.resigned),
        "actions_left": state.actions_left,
        "display": display_json(state),
        "text": display_text(state, hide_face_down=not complete),
        "seats": seats,
        "pile_size": state.pile_size,
        "discard": _hand_json(state.discard),
        "destroyed": [c.value for c in state.destroyed],
        "set_aside_count": len(state.set_aside),
        "ships_available": [COLOUR_OF_SHIP[s] for s in state.ships],
        "treasures_left": display.treasures_left(state),
        "conflict": conflict_json(state),
        "pending": pending(state),
        "seed": state.seed if complete else None,
        "pile": [c.value for c in state.pile[state.drawn :]] if complete else None,
        "set_aside": [c.value for c in state.set_aside] if complete else None,
        "result": result(state),
    }


COLOUR_OF_SHIP: dict[Card, str] = {
    Card.SHIP_BLACK: "black",
    Card.SHIP_RED: "red",
    Card.SHIP_GREEN: "green",
}


# What ``event_view`` hides from a viewer, by event type: (fields left out, fields added
# in their place). The contract types each event's data as its full or redacted form.
REDACTED: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "GameStarted": (("seed",), {}),
    "CardsDrawn": (("cards",), {"count": "integer"}),
    "CardPlayed": (("colour",), {}),
}


def event_view(
    event: Event, viewer: int | None, state_after: State, encoded: Mapping[str, Any] | None = None
) -> JSON:
    """An event's data (without its ``type``) as ``viewer`` may see it: others' draws as
    a count, no seed, a card laid face down without its colour; ``encoded``: its fields as
    ``EVENTS`` encodes them, if the caller has them (not encoded again)."""
    viewer = check_viewer(viewer, state_after.seat_count)
    data = EVENTS.fields_json(event, encoded)  # the envelope names the type
    if state_after.over is not None:
        return data
    if isinstance(event, CardsDrawn) and event.seat != viewer:
        data.pop("cards")
        data["count"] = len(event.cards)
    elif (
        isinstance(event, CardPlayed)
        and event.bridge is not None
        and event.bridge == state_after.face_down
        and event.seat != viewer
    ):
        # C-JOIN-1: the joining card lies face down until its wars are over.
        data.pop("colour")
    elif isinstance(event, GameStarted):
        data.pop("seed")
    return data


def result(state: State) -> JSON | None:
    """C-END-3: per seat the VP cards by colour, jokers and their best assignment,
    the score (weakest colour), the tie-break key, and the places."""
    if state.over is None:
        return None
    scores = []
    for seat, pile in enumerate(state.vp):
        points = {c: 0 for c in COLOURS}
        jokers = 0
        for card in pile:
            if card is Card.TREASURE:
                jokers += 1
            else:
                points[COLOUR_OF[card]] += 1
        scores.append((best_assignment(seat, points, jokers), points, jokers))
    places = resigned_last(rank_players([s for s, _, _ in scores]), state.resigned)  # C-RESIGN-2
    place_of = {seat: i + 1 for i, group in enumerate(places) for seat in group}
    return {
        "kind": "cards",
        "reason": state.over,
        "seats": [
            {
                "seat": final.seat,
                "name": state.seats[final.seat],
                "dynasty": DYNASTIES[final.seat],
                "points": {c.value: points[c] for c in COLOURS},
                "treasures": jokers,
                "treasures_assigned": {Colour(c).value: n for c, n in final.jokers.items()},
                "totals": {Colour(c).value: n for c, n in final.points.items()},
                "score": final.score,
                "key": list(final.key),
                "place": place_of[final.seat],
                "winner": place_of[final.seat] == 1,
                "resigned": final.seat in state.resigned,
            }
            for final, points, jokers in scores
        ],
        "places": places,
    }
