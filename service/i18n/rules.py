"""A rule id's plain sentence in a player's language, read from the ``rules`` gettext catalogs
(``service/i18n/locale/<language>/LC_MESSAGES/rules.po``, one entry per rule id of both games with
the rule id as ``msgctxt``), parsed once per language with Babel's PO reader."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

DOMAIN = "rules"
LANGUAGES = ("en", "de", "hu", "it")


def catalog(language: str) -> Catalog:
    """The parsed ``rules`` catalog of a language in LANGUAGES (a malformed file raises)."""
    path = files("service.i18n").joinpath("locale", language, "LC_MESSAGES", f"{DOMAIN}.po")
    with path.open("rb") as po:
        return read_po(po, locale=language, domain=DOMAIN, abort_invalid=True)


@cache
def _sentences(language: str) -> dict[str, str]:
    """A language's sentences by rule id: translated, non-fuzzy entries only."""
    return {
        message.context: message.string
        for message in catalog(language)
        if message.id and message.context and isinstance(message.string, str)
        if message.string and not message.fuzzy
    }


def rule_sentence(rule_id: str, language: str) -> str | None:
    """The one-sentence statement of ``rule_id`` (e.g. ``"B-WAR-4"``) in ``language`` (``"de"``,
    also ``"de-AT"`` or ``"de_AT"``: only the primary subtag counts); None for a language without
    a catalog or a rule id the catalog does not translate."""
    primary = language.replace("_", "-").split("-", 1)[0].lower()
    if primary not in LANGUAGES:
        return None
    return _sentences(primary).get(rule_id)
