"""Every rule id gets one plain sentence in English, German, Hungarian and Italian (issue 24):
the ``rules`` gettext catalogs in service/i18n/locale, read with Babel.

Given the rule ids the domain names (its source) and the rules pages it serves (RULES.md), when
the catalogs are read, then each language translates each id once, in one sentence, with no
entry for an id the games do not know, and ``rule_sentence`` answers from them.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

import domain
from domain.games import all_games
from service.i18n.rules import LANGUAGES, catalog, rule_sentence

RULE_ID = re.compile(r"\b([A-Z]-[A-Z]+-[A-Z0-9]+)\b")
HEADING_ID = re.compile(r"^#{1,6} +([A-Z]-[A-Z]+-[A-Z0-9]+)\b", re.MULTILINE)
PLACEHOLDER = re.compile(r"%\(\w+\)[sdifr]|%[sdifr]|\{\w*\}")
LOCALE = Path(str(files("service.i18n").joinpath("locale")))


def raised_ids() -> set[str]:
    """Every rule id written in the domain's Python source (refusals, explanations, comments)."""
    root = Path(domain.__file__).parent
    return {
        rule for path in root.rglob("*.py") for rule in RULE_ID.findall(path.read_text("utf-8"))
    }


def page_ids(kind: str) -> set[str]:
    """The rule ids a game's rules page (its RULES.md, served at /rules/<kind>) defines."""
    return set(HEADING_ID.findall(all_games()[kind].rules_markdown()))


@cache
def known_ids() -> dict[str, set[str]]:
    """The rule ids of each game: named in the domain's source or defined on its rules page."""
    raised = raised_ids()
    return {
        kind: page_ids(kind) | {r for r in raised if r.startswith(rules.rule_prefix + "-")}
        for kind, rules in all_games().items()
    }


def all_known() -> set[str]:
    return set().union(*known_ids().values())


def template() -> Catalog:
    with (LOCALE / "rules.pot").open("rb") as pot:
        return read_po(pot, domain="rules", abort_invalid=True)


def entries(cat: Catalog) -> list[tuple[str, str, str]]:
    """(msgctxt, msgid, msgstr) of every entry but the header."""
    out = []
    for message in cat:
        if not message.id:
            continue
        assert isinstance(message.id, str) and isinstance(message.string, str), message.id
        out.append((message.context or "", message.id, message.string))
    return out


def test_the_scan_finds_the_rule_ids_of_both_games() -> None:
    ids = known_ids()
    assert set(ids) == {"board", "cards"}
    assert len(ids["board"]) > 40 and len(ids["cards"]) > 30
    assert {"B-WAR-4", "B-TILE-1", "C-REVOLT-3", "C-END-BLOCKED"} <= all_known()


def test_the_catalog_directories_are_the_four_languages() -> None:
    assert LANGUAGES == ("en", "de", "hu", "it")
    assert sorted(p.name for p in LOCALE.iterdir() if p.is_dir()) == sorted(LANGUAGES)
    for language in LANGUAGES:
        assert (LOCALE / language / "LC_MESSAGES" / "rules.po").is_file()


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_rule_id_has_a_translated_non_fuzzy_sentence(language: str) -> None:
    cat = catalog(language)
    by_id = {message.context: message for message in cat if message.id}
    for rule in sorted(all_known()):
        message = by_id.get(rule)
        assert message is not None, f"{language}: no entry for {rule}"
        assert isinstance(message.string, str) and message.string.strip(), f"{language}: {rule}"
        assert not message.fuzzy, f"{language}: {rule} is fuzzy"


@pytest.mark.parametrize("language", [*LANGUAGES, "template"])
def test_no_catalog_has_an_entry_for_an_unknown_or_repeated_rule_id(language: str) -> None:
    cat = template() if language == "template" else catalog(language)
    contexts = [context for context, _, _ in entries(cat)]
    assert all(contexts), "an entry without a rule id as msgctxt"
    assert len(contexts) == len(set(contexts)), "a rule id has two entries"
    assert set(contexts) - all_known() == set(), "entries for rule ids no game knows"
    assert not cat.obsolete, "obsolete (#~) entries left in the catalog"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_catalog_translates_the_template_s_english_sentences(language: str) -> None:
    english = {context: msgid for context, msgid, _ in entries(template())}
    assert english.keys() == all_known()
    assert {context: msgid for context, msgid, _ in entries(catalog(language))} == english


@pytest.mark.parametrize("language", ["de", "hu", "it"])
def test_a_translation_is_not_the_english_sentence(language: str) -> None:
    same = [context for context, msgid, msgstr in entries(catalog(language)) if msgid == msgstr]
    assert same == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholders_match_across_languages(language: str) -> None:
    cat = catalog(language)
    assert [(m.context, errors) for m, errors in cat.check()] == []
    for context, msgid, msgstr in entries(cat):
        assert sorted(PLACEHOLDER.findall(msgstr)) == sorted(PLACEHOLDER.findall(msgid)), context


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_sentence_is_one_plain_sentence(language: str) -> None:
    for context, msgid, msgstr in entries(catalog(language)):
        for text in (msgid, msgstr):
            assert text == text.strip() and "  " not in text, (context, text)
            assert "\n" not in text and "\r" not in text, (context, text)
            assert text[0].isupper() or text[0].isdigit(), (context, text)
            assert text.endswith(".") and text.count(".") == 1, (context, text)
            assert not set(text) & set("!?"), (context, text)
            assert RULE_ID.search(text) is None, (context, text)  # plain words, no rule ids


def test_rule_sentence_reads_a_rule_in_a_player_s_language() -> None:
    german = rule_sentence("B-WAR-4", "de")
    assert german is not None and german.startswith("In einem externen Konflikt")
    assert rule_sentence("B-WAR-4", "de-AT") == rule_sentence("B-WAR-4", "de_at") == german
    assert rule_sentence("C-REVOLT-3", "en") == (
        "In a revolt the attacker, then the defender, commits red cards from hand, and a tie "
        "goes to the defender."
    )
    assert rule_sentence("B-WAR-4", "fr") is None
    assert rule_sentence("B-WAR-99", "de") is None
    assert rule_sentence("", "hu") is None


@pytest.mark.parametrize("language", LANGUAGES)
def test_rule_sentence_answers_for_every_known_rule_id(language: str) -> None:
    by_context = {context: msgstr for context, _, msgstr in entries(catalog(language))}
    for rule in all_known():
        assert rule_sentence(rule, language) == by_context[rule]


# The glossary's key terms (docs/glossary.md), as patterns that allow for inflection: where the
# English sentence names the thing, the translation uses the edition's word for it.
TERMS: dict[str, dict[str, str]] = {
    r"\bleaders?\b": {"de": r"Anführer", "hu": r"vezér", "it": r"\bleader\b"},
    r"\bking\b": {"de": r"König\b|Königs\b", "hu": r"király\b|királ[yt]", "it": r"\bre\b"},
    r"\btrader\b": {"de": r"Händler", "hu": r"kereskedő", "it": r"mercante"},
    r"\bkingdoms?\b": {"de": r"Königreich", "hu": r"királyság", "it": r"\bregn[oi]\b"},
    r"\btemples?\b": {"de": r"Tempel", "hu": r"templom", "it": r"\btemp(io|li)\b"},
    r"\btreasures?\b": {"de": r"Sch[aä]tz", "hu": r"kincs", "it": r"tesor[oi]"},
    r"\bmonuments?\b": {"de": r"Monument", "hu": r"emlékm[űű]", "it": r"monument[oi]"},
    r"\brevolt\b": {
        "de": r"intern\w* Konflikt",
        "hu": r"belső konfliktus",
        "it": r"conflitto interno",
    },
    r"\bwars?\b(?!')": {
        "de": r"extern\w* Konflikt",
        "hu": r"külső konfliktus",
        "it": r"conflitt[oi] estern[oi]",
    },
    r"\bships?\b": {"de": r"Schiff", "hu": r"hajó", "it": r"\bnav[ei]\b"},
    r"\brivers?\b": {"de": r"Fluss", "hu": r"folyó", "it": r"fiume"},
    r"\bbag\b": {"de": r"Beutel", "hu": r"zsák", "it": r"sacchetto"},
}
# Each game's material: tiles on the board, cards in the card game (never the other's word).
MATERIAL = {
    "board": {"de": r"Karte", "hu": r"kártya", "it": r"\bcart[ae]\b"},
    "cards": {"de": r"Plättchen", "hu": r"lapk", "it": r"tessera|tessere"},
}


@pytest.mark.parametrize("language", ["de", "hu", "it"])
def test_a_translation_names_the_things_its_english_sentence_names(language: str) -> None:
    missing = [
        (context, english, wanted[language])
        for context, msgid, msgstr in entries(catalog(language))
        for english, wanted in TERMS.items()
        if re.search(english, msgid, re.IGNORECASE)
        and not re.search(wanted[language], msgstr, re.IGNORECASE)
    ]
    assert missing == []


@pytest.mark.parametrize("language", ["de", "hu", "it"])
def test_each_game_s_sentences_use_its_own_material(language: str) -> None:
    prefixes = {rules.rule_prefix + "-": kind for kind, rules in all_games().items()}
    wrong = [
        context
        for context, _, msgstr in entries(catalog(language))
        for prefix, kind in prefixes.items()
        if context.startswith(prefix) and re.search(MATERIAL[kind][language], msgstr)
    ]
    assert wrong == []
