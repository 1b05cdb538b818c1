"""The rules digests the engine follows, served as documentation (``/rules/<kind>``): the
Markdown each game's registration gives (``rules_markdown()``, e.g. ``domain/board/RULES.md``),
one heading per rule id, rendered with markdown-it-py; each such heading gets its rule id as
anchor, so that a rule id in a refusal or an explanation links to ``/rules/<kind>#<rule id>``
(the kind found from the id's prefix letter, the registration's ``rule_prefix``)."""

from __future__ import annotations

import html
import re
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

from domain.games import all_games

RULE_ID = re.compile(r"^([A-Z]-[A-Z]+-[A-Z0-9]+)\b")  # a game's prefix letter, then the id


def kinds() -> tuple[str, ...]:
    """The kinds whose rules are served: every game on offer."""
    return tuple(all_games())


def rule_url(rule: str) -> str | None:
    """The link to a rule id's text (None for what is no rule id of a game on offer)."""
    if RULE_ID.match(rule) is None:
        return None
    for kind, rules in all_games().items():
        if rule.startswith(rules.rule_prefix + "-"):
            return f"/rules/{kind}#{rule}"
    return None


def _anchor_rule_headings(state: StateCore) -> None:
    """Give each heading that starts with a rule id that id as its ``id``."""
    tokens = state.tokens
    for n, token in enumerate(tokens):
        if token.type == "heading_open" and n + 1 < len(tokens):
            match = RULE_ID.match(tokens[n + 1].content)
            if match:
                token.attrSet("id", match.group(1))


@cache
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark")
    md.core.ruler.push("rule_anchors", _anchor_rule_headings)
    return md


def source(kind: str) -> str:
    """The Markdown text of a game's rules; KeyError for a kind not on offer."""
    return all_games()[kind].rules_markdown()


def page(kind: str) -> str:
    """The HTML page of a game's rules; KeyError for a kind not on offer."""
    return _render(source(kind))


@cache
def _render(text: str) -> str:
    first = text.splitlines()[0].lstrip("# ").strip()
    body = _markdown().render(text)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(first)}</title>"
        "<style>body{font-family:sans-serif;max-width:46em;margin:2em auto;padding:0 1em;"
        "line-height:1.5}h3{margin-bottom:.2em}h3:target{background:#ffe98a}</style>"
        f"</head><body>\n{body}</body></html>\n"
    )


def anchors(kind: str) -> set[str]:
    """The rule ids that have an anchor on a game's page."""
    return set(re.findall(r'<h[1-6] id="([^"]+)"', page(kind)))
