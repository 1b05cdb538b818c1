"""Every rule id of the card-game digest is named by at least one test
(a ``# rule C-XXX-N`` comment right above a test function)."""

from __future__ import annotations

import re
from pathlib import Path

# The ids of card-game.md (copied: tests never read the shared rules at run time).
RULE_IDS = (
    *(f"C-SETUP-{i}" for i in range(1, 5)),
    "C-KINGDOM-1",
    "C-KINGDOM-2",
    *(f"C-TURN-{i}" for i in range(1, 4)),
    *(f"C-LEADER-{i}" for i in range(1, 5)),
    "C-CARD-1",
    "C-CARD-2",
    *(f"C-SCORE-{i}" for i in range(1, 4)),
    *(f"C-SHIP-{i}" for i in range(1, 6)),
    "C-JOIN-1",
    "C-TRADER-1",
    "C-CAT-1",
    "C-CAT-2",
    *(f"C-REVOLT-{i}" for i in range(1, 5)),
    *(f"C-WAR-{i}" for i in range(1, 7)),
    "C-VP-1",
    *(f"C-END-{i}" for i in range(1, 4)),
    "C-HIDDEN-1",
    "C-RESIGN-1",
    "C-RESIGN-2",
)
_NAMED = re.compile(r"^# rule (C-[A-Z]+-\d+)\n(?:@.*\n)*def test_", re.MULTILINE)


def named_rules() -> set[str]:
    found: set[str] = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        found.update(_NAMED.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_rule_id_is_named_by_a_test() -> None:
    missing = sorted(set(RULE_IDS) - named_rules())
    assert not missing, f"rules without a test: {missing}"


def test_no_test_names_an_unknown_rule() -> None:
    unknown = sorted(named_rules() - set(RULE_IDS))
    assert not unknown, f"unknown rule ids: {unknown}"
