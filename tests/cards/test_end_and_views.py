"""Given/when/then: VP piles, game end, scoring, hidden information, options
(C-VP, C-END, C-HIDDEN)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.cards import (
    RULES,
    CardsDrawn,
    GameEnded,
    Options,
    Pass,
    PlayCard,
    TakePoint,
    TurnBegan,
    build,
    event_view,
    fold,
    view,
)
from domain.cards.model import update
from domain.common.colours import Colour
from domain.common.errors import FormatError, GameOver
from tests.cards.helpers import play, refused

K, R, B, G = Colour.BLACK, Colour.RED, Colour.BLUE, Colour.GREEN


# rule C-VP-1
def test_only_the_top_card_of_every_vp_pile_is_visible_even_to_its_owner() -> None:
    state = build("c0: T:0g", vp={0: "kgT", 1: "r"}, hands={0: "g"})
    for viewer in (0, 1, None):
        players = view(state, viewer)["seats"]
        assert [p["vp_top"] for p in players] == ["treasure", "red"]
        assert [p["vp_count"] for p in players] == [3, 1]
        assert all(p["points"] is None and p["vp_order"] is None for p in players)
    scored, _ = play(state, PlayCard(0, G, column=0))
    assert view(scored, 1)["seats"][0]["vp_top"] == "treasure"  # nothing scored yet


# rule C-VP-1
def test_variant_open_vp_piles_shows_every_pile_by_colour_to_everybody() -> None:
    state = build("", vp={0: "kgT", 1: "r"}, options=Options(open_vp_piles=True))
    players = view(state, 1)["seats"]
    assert players[0]["points"] == {"black": 1, "red": 0, "blue": 0, "green": 1}
    assert players[0]["treasures"] == 1
    assert players[1]["points"]["red"] == 1 and players[0]["vp_order"] is None
    closed = view(update(state, setup=replace(state.setup, options=Options())), 1)["seats"][0]
    assert closed["points"] is None and closed["treasures"] is None


# rule C-END-1
def test_the_game_ends_when_the_pile_cannot_refill_every_hand() -> None:
    short = build("", hands={0: "kkkkkkkk", 1: "rrrrrrr"}, pile="kk")
    after, events = play(short, PlayCard(0, K, column=0), PlayCard(0, K, column=1))
    assert events[-1] == GameEnded("pile") and after.over == "pile"  # 3 cards needed, 2 left
    refused(after, Pass(1), "C-END-1", GameOver)
    enough = build("", hands={0: "kkkkkkkk", 1: "rrrrrrr"}, pile="kkb")
    after, events = play(enough, PlayCard(0, K, column=0), PlayCard(0, K, column=1))
    assert isinstance(events[-1], TurnBegan) and after.pile_size == 0


# rule C-END-2
def test_the_game_ends_when_one_treasure_card_is_left_in_the_display() -> None:
    text = "\n".join(f"c{c}: r" for c in range(6)) + "\nc6: T:0g k k k\nc7: T k k k"
    state = build(text, hands={0: "rk"})
    after, events = play(state, PlayCard(0, K, bridge=6))
    assert RULES.pending(after)["decision"] == "treasure_swap"
    swapped, events = play(
        after, RULES.commands.from_json({"type": "SwapTreasure", "seat": 0, "column": 7})
    )
    swapped, events = play(swapped, Pass(0))
    assert events[-1] == GameEnded("treasures")
    # after the end, a command is refused naming the rule the game ended under
    refused(swapped, Pass(1), "C-END-2", GameOver)
    _kept, events = play(after, RULES.commands.from_json({"type": "Decline", "seat": 0}), Pass(0))
    assert isinstance(events[-1], TurnBegan)  # two treasures left: the game goes on


# rule C-END-3
def test_final_score_is_the_weakest_colour_with_treasures_as_free_jokers() -> None:
    state = update(build("", vp={0: "kkrrbbgTT", 1: "kkkrrrbbbg"}), over="pile")
    result = RULES.result(state)
    assert result is not None
    zero, one = result["seats"]
    # 2 black, 2 red, 2 blue, 1 green and 2 jokers: one joker lifts green, the other any colour
    assert zero["treasures"] == 2
    assert zero["points"] == {"black": 2, "red": 2, "blue": 2, "green": 1}
    assert zero["key"] == [2, 2, 2, 3] and zero["score"] == 2
    assert zero["treasures_assigned"]["green"] == 1
    assert sum(zero["treasures_assigned"].values()) == 2
    assert zero["winner"] and not one["winner"]
    assert one["key"] == [1, 3, 3, 3] and one["score"] == 1
    assert result["places"] == [[0], [1]]
    assert RULES.result(update(state, over=None)) is None  # no result before the end
    tie = update(build("", vp={0: "kkrrbbgg", 1: "kkrrbbgg"}), over="pile")
    result = RULES.result(tie)
    assert result is not None and result["places"] == [[0, 1]]
    second = update(build("", vp={0: "krrbbgg", 1: "krrrbbgg"}), over="pile")
    result = RULES.result(second)
    assert result is not None and result["places"] == [[1], [0]]  # second weakest decides


# rule C-HIDDEN-1
def test_hands_and_pile_are_secret_discard_and_conflict_cards_public() -> None:
    events = RULES.start(["a", "b", "c"], {}, 5)
    state = fold(events)
    seen = view(state, 1)
    assert seen["seats"][1]["hand"] is not None and seen["seats"][0]["hand"] is None
    assert [p["hand_size"] for p in seen["seats"]] == [8, 8, 8]
    assert seen["pile"] is None and seen["seed"] is None and seen["pile_size"] == 185 - 24
    assert view(state, None)["seats"][0]["hand"] is None
    draw = next(e for e in events if isinstance(e, CardsDrawn) and e.seat == 0)
    assert "cards" in event_view(draw, 0, state) and event_view(draw, 1, state)["count"] == 8
    assert "seed" not in event_view(events[0], 0, state)
    assert "discard" in seen and "conflict" in seen
    over = update(state, over="pile")
    assert view(over, None)["seats"][0]["hand"] is not None and view(over, None)["seed"] == 5
    assert view(state, None, complete=True)["pile"] is not None  # the admin sees everything
    assert "cards" in event_view(draw, 1, over)


def test_options_are_four_booleans_defaulting_to_false() -> None:
    assert RULES.normalize_options({}) == {
        "leader_colour_must_differ": False,
        "allow_withdraw": False,
        "open_vp_piles": False,
        "trader_takes_one": False,  # the German trader (issue 21, point 16)
    }
    assert RULES.normalize_options({"allow_withdraw": True})["allow_withdraw"] is True
    with pytest.raises(FormatError) as caught:
        RULES.normalize_options({"allow_withdrawal": True})
    assert caught.value.field == "allow_withdrawal"
    with pytest.raises(FormatError) as caught:
        RULES.normalize_options({"open_vp_piles": "yes"})
    assert caught.value.field == "open_vp_piles"


# rule C-END-1 rule C-END-2
@pytest.mark.parametrize(
    ("reason", "rule"),
    [("pile", "C-END-1"), ("treasures", "C-END-2"), ("blocked", "C-END-BLOCKED")],
)
def test_a_refusal_after_the_end_names_the_rule_the_game_ended_under(
    reason: str, rule: str
) -> None:
    # given a game that ended for ``reason``
    state = update(build("", hands={0: "kr", 1: "b"}), over=reason)
    # when any seat sends any command, then it is refused naming that rule, nothing changes
    refused(state, Pass(0), rule, GameOver)
    refused(state, PlayCard(1, K, column=0), rule, GameOver)
    refused(state, TakePoint(0, K), rule, GameOver)


def test_point_scoring_commands_are_refused_when_game_is_over() -> None:
    state = update(build("", hands={0: "k"}), over="pile")
    refused(state, TakePoint(0, K), "C-END-1", GameOver)
    assert list(RULES.legal_commands(state, 0)) == [] and RULES.awaited(state) == frozenset()
    assert state.vp[0] == () and state.hands[0][0] == 1
