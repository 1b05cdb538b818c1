"""Determinization: a full card-game position built from one seat's view.

A bot may read only its seat's view (C-HIDDEN-1). To search it needs a whole
state, so everything the view hides is *sampled* consistently with what it
shows. The unseen cards are the fixed deck (``DECK``, ``TREASURES``) minus the
display (a face-down bridge card excepted), the viewer's hand, the discard,
the destroyed cards and the visible top cards of the VP piles. They fill, in a
random order: the other seats' hands (sizes public), the draw pile (size
public), the cards set aside in a two-player game (count public), a face-down
bridge card, and the VP piles below their tops (sizes public; their colour
counts too with the open-piles variant). Treasures not on the display lie in
VP piles, so they are dealt to the hidden VP slots only.

The view does not show the engine's agenda beyond the pending decision; the
automatic steps that follow it are rebuilt from the decision's kind (a
commit is followed by the other side's commit and the resolution, a join in
progress by its remaining wars, everything by the end of the action). The
whole view -> position mapping lives in :func:`position_from_view`, so a
change of the view's layout is adapted here only.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from domain.cards.model import DECK, TREASURES, State
from domain.cards.position import FORMAT, VERSION, load_position
from domain.common.colours import COLOURS
from domain.common.exact import is_int

_NAMES = [str(c.value) for c in COLOURS]
_TREASURE = "treasure"
_CONFLICT_KEYS: tuple[str, ...] = ("kind", "colour", "attacker", "defender", "bridge")
_CONFLICT_KEYS += ("attacker_cards", "defender_cards")


def _agenda(view: Mapping[str, Any], face_down: int | None) -> list[dict[str, Any]]:
    pending = view["pending"]
    decision = pending["decision"]
    seat = pending["awaiting"][0]
    tail: list[dict[str, Any]] = []
    if face_down is not None and decision != "choose_war":
        tail.append({"step": "wars", "bridge": face_down, "colours": []})
    tail.append({"step": "end_action"})
    if decision == "action":
        return []
    if decision == "point":
        return [
            {
                "step": "offer",
                "seat": seat,
                "colour": pending["colour"],
                "reason": pending["reason"],
            },
            *tail,
        ]
    if decision == "ship":
        return [
            {
                "step": "ship_offer",
                "seat": seat,
                "column": pending["column"],
                "ships": pending["ships"],
                "run": pending.get("run"),
            },
            *tail,
        ]
    if decision == "ship_points":
        return [
            {"step": "ship_points", "seat": seat, "colours": pending["colours"]},
            {"step": "refill"},
        ]
    if decision == "choose_war":
        colours = pending["colours"]
        wars = {"step": "wars", "bridge": face_down, "colours": colours}
        return [{"step": "choose_war", "seat": seat, "colours": colours}, wars, *tail]
    if decision == "commit":
        conflict = pending["conflict"]
        steps: list[dict[str, Any]] = [{"step": "commit", "seat": seat}]
        if conflict["attacker_cards"] is None:
            steps.append({"step": "commit", "seat": conflict["defender"]})
        return [*steps, {"step": "resolve"}, *tail]
    if decision == "treasure_swap":
        return [{"step": "trader_swap", "seat": seat, "bridge": pending["bridge"]}, *tail]
    raise ValueError(f"no bot decision for {decision!r}")


def position_from_view(view: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """A position (``POSITION_FORMAT.md``) that shows exactly ``view`` to its viewer,
    the hidden parts sampled with ``rng``."""
    me = view["viewer"]
    if not is_int(me):
        raise ValueError("determinization needs a seat's view, not a spectator's")
    players = view["seats"]
    n = len(players)
    left = dict(zip(_NAMES, DECK, strict=True))
    treasures_left = TREASURES

    def see(card: str) -> None:
        nonlocal treasures_left
        if card == _TREASURE:
            treasures_left -= 1
        elif card in left:
            left[card] -= 1  # ships are not part of the deck of civil cards

    display = view["display"]
    columns = [[cell["card"] for cell in column] for column in display["columns"]]
    for column in columns:
        for card in column:
            see(card)
    face_down: int | None = None
    bridges: list[str | None] = []
    for b, cell in enumerate(display["bridges"]):
        if cell is None:
            bridges.append(None)
        elif cell["card"] == "face-down":
            face_down = b
            bridges.append(None)  # sampled below
        else:
            see(cell["card"])
            bridges.append(cell["card"])
    for name in _NAMES:
        left[name] -= int(players[me]["hand"][name]) + int(view["discard"][name])
    for card in view["destroyed"]:
        see(card)
    conflict = view["conflict"]
    if conflict is not None:  # committed cards have left the hand, not yet discarded
        for key in ("attacker_cards", "defender_cards"):
            left[conflict["card_colour"]] -= conflict[key] or 0
    open_piles = bool(view["options"]["open_vp_piles"])
    vp: list[list[str]] = [[] for _ in range(n)]
    for seat, player in enumerate(players):
        if open_piles and player["vp_count"]:
            # Colour counts are public: only the order below the top is hidden.
            cards = [k for k, v in player["points"].items() for _ in range(int(v))]
            cards += [_TREASURE] * int(player["treasures"])
            cards.remove(player["vp_top"])
            rng.shuffle(cards)
            vp[seat] = cards
            for card in cards:
                see(card)
        if player["vp_top"] is not None:
            see(player["vp_top"])
    if treasures_left < 0 or min(left.values()) < 0:
        raise ValueError("the view shows more cards than the deck holds")
    unseen = [name for name in _NAMES for _ in range(left[name])]
    rng.shuffle(unseen)

    def take(count: int) -> list[str]:
        if count > len(unseen):
            raise ValueError("the view's counts exceed the unseen cards")
        drawn = unseen[len(unseen) - count :]
        del unseen[len(unseen) - count :]
        return drawn

    hidden_vp = 0 if open_piles else sum(max(0, int(p["vp_count"]) - 1) for p in players)
    if treasures_left > hidden_vp:
        raise ValueError("more hidden treasures than hidden VP cards")
    # The hidden VP slots get the treasures plus civil cards; dealt in one shuffle.
    vp_cards = take(hidden_vp - treasures_left) + [_TREASURE] * treasures_left
    rng.shuffle(vp_cards)
    hands = []
    for seat, player in enumerate(players):
        if seat == me:
            hands.append({name: int(player["hand"][name]) for name in _NAMES})
        else:
            cards = take(int(player["hand_size"]))
            hands.append({name: cards.count(name) for name in _NAMES})
        if not open_piles and player["vp_count"]:
            below = int(player["vp_count"]) - 1
            vp[seat] = vp_cards[:below]
            del vp_cards[:below]
        if player["vp_top"] is not None:
            vp[seat].append(player["vp_top"])
    if face_down is not None:
        bridges[face_down] = take(1)[0]
    set_aside = take(int(view["set_aside_count"]))
    pile = take(int(view["pile_size"]))
    if unseen:
        raise ValueError(f"{len(unseen)} cards unaccounted for by the view")

    leaders: list[dict[str, Any]] = []
    for c, column in enumerate(display["columns"]):
        for depth, cell in enumerate(column):
            if cell["leader"] is not None:
                leaders.append({**cell["leader"], "column": c, "depth": depth})
    for b, cell in enumerate(display["bridges"]):
        if cell is not None and cell["leader"] is not None:
            leaders.append({**cell["leader"], "bridge": b})
    return {
        "format": FORMAT,
        "version": VERSION,
        "seats": [p["name"] for p in players],
        "options": dict(view["options"]),
        "seed": 0,
        "start_player": view["start_player"],
        "pile": pile,
        "drawn": 0,
        "set_aside": set_aside,
        "columns": columns,
        "bridges": bridges,
        "face_down": face_down,
        "leaders": leaders,
        "hands": hands,
        "vp": vp,
        "discard": dict(view["discard"]),
        "destroyed": list(view["destroyed"]),
        "catastrophes": [bool(p["catastrophes"]) for p in players],
        "ships_available": list(view["ships_available"]),
        "turn": view["turn"],
        "active": view["active"],
        "actions_left": view["actions_left"],
        "agenda": _agenda(view, face_down),
        "conflict": None if conflict is None else {key: conflict[key] for key in _CONFLICT_KEYS},
        "over": None,
    }


def determinize(view: Mapping[str, Any], rng: random.Random) -> State:
    """A full state consistent with ``view``, hidden parts sampled with ``rng``."""
    return load_position(position_from_view(view, rng))
