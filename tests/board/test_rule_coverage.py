"""Every rule id of the board-game digest is named by a given/when/then test."""

from __future__ import annotations

import re
from pathlib import Path

# The rule ids of the rules digest (board-game.md), copied: tests never read ../shared.
RULE_IDS = {
    "B-SETUP": 7,
    "B-REGION": 3,
    "B-TURN": 4,
    "B-LEADER": 8,
    "B-TILE": 5,
    "B-CAT": 4,
    "B-SWAP": 2,
    "B-REVOLT": 5,
    "B-WAR": 8,
    "B-MONUMENT": 6,
    "B-TREASURE": 4,
    "B-END": 3,
    "B-HIDDEN": 1,
    "B-RESIGN": 2,
}


def test_every_rule_is_named_by_a_test() -> None:
    expected = {f"{prefix}-{i}" for prefix, n in RULE_IDS.items() for i in range(1, n + 1)}
    named: set[str] = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        named |= set(re.findall(r"# rule (B-[A-Z]+-\d+)", path.read_text(encoding="utf-8")))
    assert sorted(expected - named) == []
    assert sorted(named - expected) == []
