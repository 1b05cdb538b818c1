"""Who may see a recorded command: one rule (``service.application.record.visible_command``)
that both a game's record (``GameArchive.export``) and a version's explanation
(``service.api.explanations``) apply while the game runs."""

from __future__ import annotations

from typing import Any

import pytest

from service.application.record import sees_all, visible_command
from tests.service.store.pile_game import PILE, TakeCounters

CREATE = {"type": "CreateGame", "seats": ["a", "b"], "options": {}, "seed": 7}
TAKE = {"type": "TakeCounters", "seat": 1, "count": 2}
UNDO = {"type": "RequestUndo", "to_version": 3, "reason": "oops"}
CLAIM = {"type": "ClaimSeat", "seat": 1, "name": "Bea"}


@pytest.mark.parametrize(
    ("command", "sent_by", "viewer", "seen"),
    [
        # the creation, to anyone, but never its seed (it decides the hidden draws)
        (CREATE, None, None, {"type": "CreateGame", "seats": ["a", "b"], "options": {}}),
        (CREATE, None, 0, {"type": "CreateGame", "seats": ["a", "b"], "options": {}}),
        # a seat's command, to that seat only
        (TAKE, 1, 1, TAKE),
        (TAKE, 1, 0, None),
        (TAKE, 1, None, None),
        # the service's own commands, to anyone
        (UNDO, 1, None, UNDO),
        (CLAIM, 1, 0, CLAIM),
        # nothing recorded: nothing to see
        (None, 0, 0, None),
    ],
)
def test_who_sees_a_recorded_command_while_the_game_runs(
    command: Any, sent_by: int | None, viewer: int | None, seen: dict[str, Any] | None
) -> None:
    assert visible_command(command, sent_by, viewer) == seen


def test_the_admin_sees_all_and_everyone_once_the_game_is_over() -> None:
    running = PILE.fold(PILE.start(["a", "b"], {"max_take": 3}, 7))
    assert sees_all(PILE, running, admin=True)
    assert not sees_all(PILE, running, admin=False)
    over = running
    while not PILE.is_over(over):  # one counter at a time, to the last
        for event in PILE.decide(over, TakeCounters(over.next_seat, 1)):
            over = PILE.evolve(over, event)
    assert sees_all(PILE, over, admin=False)
