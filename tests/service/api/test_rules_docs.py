"""The rules served as documentation: ``/rules/board`` and ``/rules/cards`` have one anchor per
rule id the domain names, and a refused command's problem links to its rule's anchor."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from flask.testing import FlaskClient

import domain
from domain.games import all_games
from tests.service.api.conftest import KINDS, Api, problem
from tests.service.api.test_commands import ILLEGAL

RULE_ID = re.compile(r"\b([A-Z]-[A-Z]+-[A-Z0-9]+)\b")


def domain_rule_ids(kind: str) -> set[str]:
    """Every rule id written in the domain's source and its notes (refusals, decisions,
    docstrings, DECISIONS.md), the rules pages themselves (RULES.md) left out."""
    root = Path(domain.__file__).parent
    found = {
        rule
        for pattern in ("*.py", "*.md")
        for path in root.rglob(pattern)
        if path.name != "RULES.md"
        for rule in RULE_ID.findall(path.read_text(encoding="utf-8"))
    }
    prefix = all_games()[kind].rule_prefix + "-"
    return {rule for rule in found if rule.startswith(prefix)}


class Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.headings: dict[str, str] = {}
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        anchor = dict(attrs).get("id")
        if anchor:
            self.ids.append(anchor)
            if tag in {"h2", "h3"}:
                self._open = anchor

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self.headings[self._open] = data
            self._open = None


def anchors(client: FlaskClient, path: str) -> Anchors:
    response = client.get(path)
    assert response.status_code == 200 and response.mimetype == "text/html"
    parser = Anchors()
    parser.feed(response.get_data(as_text=True))
    return parser


@pytest.mark.parametrize("kind", KINDS)
def test_every_rule_id_the_domain_names_has_exactly_one_anchor(
    client: FlaskClient, kind: str
) -> None:
    known = domain_rule_ids(kind)
    assert len(known) > 30, "the scan found too few rule ids to mean anything"
    page = anchors(client, f"/rules/{kind}")
    assert len(page.ids) == len(set(page.ids)), "an anchor appears twice"
    assert set(page.ids) == known
    for rule in known:  # the heading names the rule and says something after its id
        assert page.headings[rule].startswith(rule) and len(page.headings[rule]) > len(rule) + 3


@pytest.mark.parametrize("kind", KINDS)
def test_a_refused_command_links_to_its_rule_s_text(
    api: Api, client: FlaskClient, kind: str
) -> None:
    game = api.create(kind)
    seat = api.awaited(game)[0]
    command, rule = ILLEGAL[kind]
    found = problem(api.command(game, seat, command), 409)
    assert found["rule"] == rule
    path, _, fragment = found["rule_url"].partition("#")
    assert path == f"/rules/{kind}" and fragment == rule
    assert fragment in anchors(client, path).ids
