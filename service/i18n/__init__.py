"""The service's words in four languages: English, German, Hungarian and Italian.

Catalogs are GNU gettext ``.po`` files under ``locale/<language>/LC_MESSAGES/``, one per
domain: ``messages`` (descriptions of events, generic refusals; ``service.i18n.describe``)
and ``rules`` (one sentence per rule id, the rule id as ``msgctxt``; ``service.i18n.rules``).
The template of ``messages`` is extracted with Babel (``pybabel extract -F pyproject.toml``;
see docs/languages.md).

The ``.po`` files are read with Babel when first needed and compiled in memory (Babel's
``write_mo`` into a buffer, read back by ``babel.support.Translations``): no ``.mo`` file is
built or committed, so a fresh clone runs and tests with no extra step, and a catalog can
never be stale against its ``.po``. Reading the four ``messages`` catalogs takes a few milliseconds,
once per process. Fuzzy entries are never used.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterable
from functools import cache
from io import BytesIO
from pathlib import Path

from babel import negotiate_locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LANGUAGES: tuple[str, ...] = ("en", "de", "hu", "it")
DEFAULT_LANGUAGE = "en"
LOCALE_DIR = Path(__file__).parent / "locale"
MESSAGES = "messages"
RULES = "rules"

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "LOCALE_DIR",
    "MESSAGES",
    "RULES",
    "catalog",
    "catalog_path",
    "negotiate",
    "translations",
]


def catalog_path(language: str, domain: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"


@cache
def catalog(language: str, domain: str) -> Catalog | None:
    """The parsed ``.po`` catalog of ``domain`` in ``language``, None if there is none."""
    path = catalog_path(language, domain)
    if language not in LANGUAGES or not path.is_file():
        return None
    with path.open("rb") as handle:
        return read_po(handle, locale=language, domain=domain)


@cache
def translations(language: str, domain: str = MESSAGES) -> gettext.NullTranslations:
    """gettext translations of ``domain`` in ``language`` (plural forms from the catalog's
    header), falling back to the English catalog and then to the msgid itself."""
    found = catalog(language, domain)
    fallback: gettext.NullTranslations = (
        gettext.NullTranslations()
        if language == DEFAULT_LANGUAGE
        else translations(DEFAULT_LANGUAGE, domain)
    )
    if found is None:
        return fallback
    buffer = BytesIO()
    write_mo(buffer, found, use_fuzzy=False)
    buffer.seek(0)
    compiled = Translations(buffer, domain=domain)
    compiled.add_fallback(fallback)
    return compiled


def negotiate(accepted: Iterable[tuple[str, float]]) -> str:
    """The language to answer in, from the ``Accept-Language`` ranges with their q-values
    (werkzeug's parsed header, best first): Babel's ``negotiate_locale`` over the ranges
    not refused (``q=0``), which also matches a range's primary language (``de-AT`` is
    German); English when none matches (``*``, ``fr``, nothing sent)."""
    preferred = [tag for tag, quality in accepted if quality > 0]
    found = negotiate_locale(preferred, list(LANGUAGES), sep="-")
    if found is None:
        return DEFAULT_LANGUAGE
    language = found.lower().split("-")[0]
    return language if language in LANGUAGES else DEFAULT_LANGUAGE
