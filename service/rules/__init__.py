"""The rules digests the engine follows, served as documentation (``/rules/board``,
``/rules/cards``): Markdown shipped in this package, one heading per rule id, rendered with
markdown-it-py; each such heading gets its rule id as anchor, so that a rule id in a refusal
or an explanation links to ``/rules/<kind>#<rule id>``."""

from __future__ import annotations

import html
import re
from functools import cache
from importlib import resources

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

KINDS = ("board", "cards")
RULE_ID = re.compile(r"^([BC]-[A-Z]+-[A-Z0-9]+)\b")
_PREFIXES = {"B": "board", "C": "cards"}


def rule_url(rule: str) -> str | None:
    """The link to a rule id's text (None for what is no rule id of either game)."""
    kind = _PREFIXES.get(rule[:1])
    if kind is None or RULE_ID.match(rule) is None:
        return None
    return f"/rules/{kind}#{rule}"


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
    """The Markdown text of a game's rules (``kind``: board or cards)."""
    if kind not in KINDS:
        raise KeyError(kind)
    return resources.files(__package__).joinpath(f"{kind}.md").read_text(encoding="utf-8")


@cache
def page(kind: str) -> str:
    """The HTML page of a game's rules."""
    text = source(kind)
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
