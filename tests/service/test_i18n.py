"""The service's words in four languages (``service.i18n``): every message the code uses is
in the template and translated, not fuzzily, in each of the four catalogs of its domain;
every event of every game has a description; ``Accept-Language`` picks the language."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from domain.games import all_games
from service.events import SERVICE_EVENTS, SERVICE_KIND
from service.i18n import LANGUAGES, LOCALE_DIR, catalog, negotiate
from service.i18n.describe import DESCRIBERS, describe, refusal, rule_words

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")
# The domains with a template; ``rules`` comes with its own work (its sentences per rule id).
DOMAINS = sorted(path.stem for path in LOCALE_DIR.glob("*.pot"))


def _template(domain: str) -> Catalog:
    with (LOCALE_DIR / f"{domain}.pot").open("rb") as handle:
        return read_po(handle)


def _key(message: Any) -> tuple[str | None, str]:
    return message.context, message.id if isinstance(message.id, str) else message.id[0]


def _ids(message: Any) -> tuple[str, ...]:
    return (message.id,) if isinstance(message.id, str) else tuple(message.id)


def _strings(message: Any) -> tuple[str, ...]:
    return (message.string,) if isinstance(message.string, str) else tuple(message.string)


def test_the_messages_template_holds_exactly_the_messages_the_code_translates() -> None:
    # Given the extraction set up in pyproject.toml, as ``pybabel extract`` runs it
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["babel"]
    method_map = [(m["pattern"], m["method"]) for m in config["mappings"]]
    # When the strings of service/i18n are extracted
    found = {
        (context, message if isinstance(message, str) else message[0])
        for _, _, message, _, context in extract_from_dir(
            str(ROOT / "service" / "i18n"), method_map=method_map
        )
    }
    # Then the committed template has each of them and no other
    template = {_key(m) for m in _template("messages") if m.id}
    assert found - template == set(), "run pybabel extract (docs/i18n.md): not in messages.pot"
    assert template - found == set(), "run pybabel extract (docs/i18n.md): gone from the code"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_has_a_translation_in_each_language(domain: str, language: str) -> None:
    # Given the domain's template and its catalog in one of the four languages
    template = {_key(m): m for m in _template(domain) if m.id}
    translated = catalog(language, domain)
    assert translated is not None, f"no {language}/LC_MESSAGES/{domain}.po"
    entries = {_key(m): m for m in translated if m.id}
    # Then every message of the template is there, translated and not fuzzy, with all the
    # language's plural forms and the msgid's placeholders, and nothing else is
    missing = [key for key in template if key not in entries]
    assert not missing, f"{language} {domain}: not in the catalog: {missing}"
    assert set(entries) == set(template), f"{language} {domain}: not in the template"
    for key, message in entries.items():
        strings = _strings(message)
        assert not message.fuzzy, f"{language} {domain}: fuzzy: {key}"
        assert all(s.strip() for s in strings), f"{language} {domain}: untranslated: {key}"
        if not isinstance(message.id, str):
            assert len(strings) == translated.num_plurals, f"{language}: plural forms of {key}"
        wanted = set(PLACEHOLDER.findall(" ".join(_ids(message))))
        for text in strings:
            assert set(PLACEHOLDER.findall(text)) == wanted, f"{language}: placeholders {key}"


def test_every_event_type_of_every_game_and_of_the_service_has_a_description() -> None:
    # Given every event type the service may store
    types = {
        f"{kind}.{name}" for kind, rules in all_games().items() for name in rules.events.names
    } | {f"{SERVICE_KIND}.{name}" for name in SERVICE_EVENTS.names}
    # Then each has a describer, and no describer is left over
    assert types - set(DESCRIBERS) == set(), "events without words"
    assert set(DESCRIBERS) - types == set()


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de", "de"),
        ("de-AT, en;q=0.5", "de"),
        ("fr, hu;q=0.3", "hu"),
        ("it;q=0, de;q=0.2", "de"),
        ("en-GB, de;q=0.9", "en"),
        ("IT-ch", "it"),
        ("fr", "en"),
        ("*", "en"),
        ("", "en"),
        ("it;q=0", "en"),
        ("de;q=0.5, hu;q=0.8", "hu"),
    ],
)
def test_accept_language_picks_the_best_language_we_write(header: str, expected: str) -> None:
    accepted = parse_accept_header(header, LanguageAccept)
    assert negotiate(accepted) == expected


def test_a_description_uses_the_games_terms_and_plural_forms_in_each_language() -> None:
    # Given Ben (seat 1) committed two tiles to a conflict, and Anna placed her priest
    names = ("Anna", "Ben")
    support = {"seat": 1, "count": 2}
    leader = {"seat": 0, "leader": "red", "at": [3, 4]}
    # Then each language says it in its own words, its plural forms chosen by the count
    assert describe("board.SupportCommitted", support, names, "en") == (
        "Ben commits 2 tiles to the conflict"
    )
    assert describe("board.SupportCommitted", {**support, "count": 1}, names, "it") == (
        "Ben impegna 1 tessera nel conflitto"
    )
    assert describe("board.SupportCommitted", support, names, "it") == (
        "Ben impegna 2 tessere nel conflitto"
    )
    assert describe("board.LeaderPlaced", leader, names, "en") == "Anna places the priest at [3, 4]"
    assert describe("board.LeaderPlaced", leader, names, "de") == (
        "Anna setzt den Priester auf [3, 4]"
    )
    assert describe("board.LeaderPlaced", leader, names, "hu") == (
        "Anna lerakja a főpapot, ide: [3, 4]"
    )
    assert describe("board.LeaderPlaced", leader, names, "it") == (
        "Anna piazza il sacerdote in [3, 4]"
    )


def test_a_conflict_says_who_won_with_what_and_whose_leader_goes_home() -> None:
    conflict = {
        "kind": "revolt",
        "colour": "red",
        "attacker": 0,
        "defender": 1,
        "attacker_strength": 5,
        "defender_strength": 3,
        "winner": 0,
    }
    names = ("Anna", "Ben")
    assert describe("cards.ConflictResolved", conflict, names, "en") == (
        "Revolt (red): Anna (5) beats Ben (3); the leader of Ben goes home"
    )
    defended = {**conflict, "kind": "war", "winner": 1}
    assert describe("cards.ConflictResolved", defended, names, "de") == (
        "Externer Konflikt (rot): Ben (3) schlägt Anna (5); der Anführer von Anna kehrt zurück"
    )


def test_a_conflict_with_its_strengths_split_says_base_plus_committed() -> None:
    # Given a card game's conflict recorded at version 2 (the loser named, each strength
    # split into its base and the cards committed)
    conflict = {
        "kind": "revolt",
        "colour": "red",
        "attacker": 0,
        "defender": 1,
        "attacker_strength": 5,
        "defender_strength": 3,
        "winner": 0,
        "loser": 1,
        "attacker_base": 3,
        "attacker_committed": 2,
        "defender_base": 2,
        "defender_committed": 1,
    }
    # Then each side's strength is told as base plus committed
    assert describe("cards.ConflictResolved", conflict, ("Anna", "Ben"), "en") == (
        "Revolt (red): Anna (3+2) beats Ben (2+1); the leader of Ben goes home"
    )
    # And a version 1 conflict upcast with the split unknown tells the totals
    unknown = dict.fromkeys(
        ("attacker_base", "attacker_committed", "defender_base", "defender_committed")
    )
    assert describe("cards.ConflictResolved", conflict | unknown, ("Anna", "Ben"), "en") == (
        "Revolt (red): Anna (5) beats Ben (3); the leader of Ben goes home"
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_draw_seen_by_another_seat_names_no_tile(language: str) -> None:
    # Given seat 0's draw as seat 1 sees it (the domain's redaction: a count, no tiles)
    names = ("Anna", "Ben")
    hidden = describe("board.TilesDrawn", {"seat": 0, "count": 2}, names, language)
    shown = describe("board.TilesDrawn", {"seat": 0, "tiles": ["red", "green"]}, names, language)
    cards = describe("cards.CardsDrawn", {"seat": 0, "count": 2}, names, language)
    # Then the draw's words say how many, and only the drawing seat's say which
    temple = describe("board.TilePlaced", {"seat": 0, "colour": "red", "at": [0, 0]}, names, "en")
    assert "2" in hidden and "2" in cards
    assert hidden != shown and ":" in shown and ":" not in hidden
    assert "temple" in temple and "temple" not in hidden.lower()


def test_a_refusal_states_its_rule_in_the_language_else_in_english_else_names_it() -> None:
    # Given the rules domain's sentences (service.i18n.rules)
    german = rule_words("B-LEADER-2", "de")
    # Then a refusal states the rule in the language asked for
    assert german and refusal("B-LEADER-2", "de") == german != rule_words("B-LEADER-2", "en")
    # and in English for a language without a catalog, and names a rule nobody wrote
    assert refusal("B-LEADER-2", "fr") == rule_words("B-LEADER-2", "en")
    assert rule_words("X-NO-SUCH-1", "de") is None
    assert refusal("X-NO-SUCH-1", "de") == "Der Zug verstößt gegen Regel X-NO-SUCH-1."


def test_support_is_told_as_temples_to_a_revolt_or_tiles_to_a_war_by_its_rule_trail() -> None:
    # Given Ben's support of two tiles, with the rule trail its event recorded
    names, support = ("Anna", "Ben"), {"seat": 1, "count": 2}
    # Then a revolt's support is temples, a war's is tiles, in each language's terms
    revolt, war = ("B-REVOLT-3", "B-REVOLT-5"), ("B-WAR-4",)
    assert describe("board.SupportCommitted", support, names, "en", revolt) == (
        "Ben commits 2 temples to the revolt"
    )
    assert describe("board.SupportCommitted", support, names, "de", revolt) == (
        "Ben setzt 2 Tempel im internen Konflikt ein"
    )
    assert describe("board.SupportCommitted", support, names, "hu", war) == (
        "Ben 2 lapkával támogat a külső konfliktusban"
    )
    assert describe("board.SupportCommitted", support, names, "it", war) == (
        "Ben impegna 2 tessere nel conflitto esterno"
    )


def test_a_board_conflict_tells_what_left_the_board_and_the_points_only_to_who_sees_them() -> None:
    # Given a board war Anna won: Ben's priest and two of his supporting tiles left the
    # board, Cleo's trader lost its temple, and Anna scored 3 red points
    war = {
        "kind": "war",
        "colour": "red",
        "attacker": 0,
        "defender": 1,
        "attacker_strength": 5,
        "defender_strength": 3,
        "winner": 0,
        "loser": 1,
        "attacker_base": 3,
        "attacker_committed": 2,
        "defender_base": 2,
        "defender_committed": 1,
        "removed": [
            {"piece": "leader", "colour": "red", "at": [3, 4], "seat": 1},
            {"piece": "tile", "colour": "red", "at": [3, 5], "seat": None},
            {"piece": "tile", "colour": "red", "at": [3, 6], "seat": None},
            {"piece": "leader", "colour": "green", "at": [4, 4], "seat": 2},
        ],
        "points": [{"seat": 0, "colour": "red", "count": 3}],
    }
    names = ("Anna", "Ben", "Cleo")
    # Then the winner (or anyone once scoring is open) reads the whole outcome
    assert describe("board.ConflictResolved", war, names, "en") == (
        "War (red): Anna (3+2) beats Ben (2+1); the leader of Ben goes home; "
        "2 tiles leave the board; Cleo takes the trader back; Anna scores 3 red points"
    )
    assert describe("board.ConflictResolved", war, names, "de").endswith(
        "Anna erhält 3 Siegpunkte (rot)"
    )
    # And another seat, whose view has no points while scoring is secret, reads none
    hidden = {key: value for key, value in war.items() if key != "points"}
    for language in LANGUAGES:
        told = describe("board.ConflictResolved", hidden, names, language)
        assert "3" not in told.rpartition(";")[2], (language, told)
