"""Invariants that hold after every event of every card game (issue 3)."""

from __future__ import annotations

from dataclasses import replace

from domain.cards import RULES, State, view
from domain.cards.display import regions
from domain.cards.model import (
    BRIDGE_BASE,
    COLOUR_CARDS,
    DECK,
    DEPTHS,
    MAX_DEPTH,
    SHIPS,
    TREASURES,
    Card,
    update,
)


def accounted(state: State) -> None:
    """All 193 civilization cards, 3 ships and 4 catastrophes are somewhere."""
    placed: list[Card] = [card for column in state.columns for card in column]
    placed += [b for b in state.bridges if b is not None]
    placed += [card for pile in state.vp for card in pile]
    placed += list(state.pile[state.drawn :]) + list(state.set_aside) + list(state.destroyed)
    for i, card in enumerate(COLOUR_CARDS):
        total = placed.count(card) + sum(hand[i] for hand in state.hands) + state.discard[i]
        if state.conflict is not None and state.conflict.card_colour.value == card.value:
            total += max(state.conflict.attacker_cards, 0) + max(state.conflict.defender_cards, 0)
        assert total == DECK[i], f"{card}: {total} accounted, {DECK[i]} exist"
    assert placed.count(Card.TREASURE) == TREASURES
    ships_out = [card for column in state.columns for card in column if card in SHIPS]
    assert len(set(ships_out)) == len(ships_out)
    assert sorted(ships_out + list(state.ships)) == sorted(SHIPS)
    held = sum(state.catastrophes)
    used = len(state.destroyed)
    assert held + used + (4 - state.seat_count) == 4


def display_sound(state: State) -> None:
    """Columns of at most 8 below the treasure*, leaders on cards, never on ships,
    and no kingdom with two leaders of one colour unless a conflict is pending."""
    for column in state.columns:
        assert 1 <= len(column) <= MAX_DEPTH + 1
        assert column[0] in (Card.TREASURE, Card.RED)
        assert Card.TREASURE not in column[1:]
    spots = [s for s in state.leaders if s >= 0]
    assert len(spots) == len(set(spots)), "two leaders on one card"
    for spot in spots:
        card = state.card_at(spot)
        assert card is not None, f"leader on an empty spot {spot}"
        assert card not in SHIPS, "leader on a ship"
        if spot >= BRIDGE_BASE:
            assert spot - BRIDGE_BASE != state.face_down
        else:
            assert spot % DEPTHS < len(state.columns[spot // DEPTHS])
    if state.conflict is None or state.conflict.kind == "war":
        regs = regions(state)
        seen: set[tuple[int, int]] = set()
        for i, spot in enumerate(state.leaders):
            if spot < 0:
                continue
            at = spot - BRIDGE_BASE if spot >= BRIDGE_BASE else spot // DEPTHS
            key = (regs[at], i % 4)
            assert key not in seen, f"two leaders of one colour in a kingdom:\n{state}"
            seen.add(key)
    hands_ok = all(min(hand) >= 0 for hand in state.hands)
    assert hands_ok


def _disguised(state: State, viewer: int | None) -> State:
    """The same public position with every secret the viewer may not see changed."""
    hands = tuple(
        hand
        if seat == viewer
        else (sum(hand), 0, 0, 0)
        if hand[0] != sum(hand)
        else (0, sum(hand), 0, 0)
        for seat, hand in enumerate(state.hands)
    )
    rest = state.pile[state.drawn :]
    # C-VP-1: below its top card a VP pile is secret, even to its owner
    vp = state.vp
    if not state.options.open_vp_piles:
        vp = tuple(
            (*(Card.TREASURE if c is not Card.TREASURE else Card.RED for c in pile[:-1]), pile[-1])
            if pile
            else pile
            for pile in vp
        )
    return update(
        state,
        hands=hands,
        vp=vp,
        setup=replace(
            state.setup,
            pile=state.pile[: state.drawn] + tuple(reversed(rest)),
            set_aside=tuple(reversed(state.set_aside)),
            seed=state.seed + 1,
        ),
    )


def views_hide_secrets(state: State, viewer: int | str | None = "all") -> None:
    """A view does not change when what its viewer may not see changes
    (``viewer``: one seat, -1 or None for a spectator, or "all")."""
    if state.over is not None:
        return
    viewers = [None, *range(state.seat_count)] if viewer == "all" else [viewer]
    for v in viewers:
        seat = None if v is None or v == -1 else int(v)
        assert view(state, seat) == view(_disguised(state, seat), seat), f"view of {seat} leaks"


def check_all(before: State, event: object, after: State) -> None:
    accounted(after)
    display_sound(after)
    for viewer in range(after.seat_count):
        shown = RULES.event_view(event, viewer, after)  # type: ignore[arg-type]
        if shown.get("type") == "CardsDrawn" and shown["seat"] != viewer and after.over is None:
            assert "cards" not in shown
        if shown.get("type") == "GameStarted" and after.over is None:
            assert "seed" not in shown
        if (
            shown.get("type") == "CardPlayed"
            and shown["bridge"] is not None
            and shown["bridge"] == after.face_down
            and shown["seat"] != viewer
        ):
            assert "colour" not in shown  # C-JOIN-1: the joining card lies face down
