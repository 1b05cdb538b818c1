"""A readable log in four languages (issue 24): ``python -m service.game_log`` prints a
finished game's whole move log from the API alone, one line per event, in English, German,
Hungarian or Italian. Run as a process against the real service (gunicorn, real Redis), on
a whole game of each kind played with one call per move by a player key."""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import pytest
import requests

from tests.service.api.conftest import KINDS, LiveServer, admin

MAX_MOVES = 3000  # a bound on the loop: a random game of either kind ends well before
SEEDS = {"board": 24_200, "cards": 24_205}  # seeds of short random games
# The rulebooks' words for the leaders (docs/glossary.md), by role: a log in the language
# names some of them, and a log in another language none of its own.
TERMS = {
    "en": ("king", "priest", "farmer", "trader"),
    "de": ("König", "Priester", "Bauer", "Händler"),
    "hu": ("király", "pap", "földműves", "kereskedő"),
    "it": (" re", "sacerdote", "contadino", "mercante"),
}


def _finished_game(url: str, kind: str) -> str:
    """A whole seeded game of ``kind``, played to its end by a player key holding both seats
    (one call per move); its id."""
    session = requests.Session()
    made = session.post(f"{url}/players", json={"name": "Ann"}, timeout=30).json()
    mine = {"type": "player", "player": made["player_id"]}
    body: dict[str, Any] = {"kind": kind, "seats": [mine, mine], "seed": SEEDS[kind]}
    created = session.post(f"{url}/games", json=body, headers=admin(), timeout=30)
    assert created.status_code == 201, created.text
    game_id: str = created.json()["game"]["game_id"]
    session.headers["Authorization"] = f"Bearer {made['key']}"
    seat = created.json()["next"]["awaited"][0]
    read = session.get(f"{url}/games/{game_id}/legal-commands?seat={seat}", timeout=30)
    legal: dict[str, Any] | None = read.json()
    etag, rng = read.headers["ETag"], random.Random(SEEDS[kind])
    for _ in range(MAX_MOVES):
        if legal is None:
            return game_id
        sent = session.post(
            f"{url}/games/{game_id}/commands",
            json={**rng.choice(legal["commands"]), "seat": legal["seat"]},
            headers={"If-Match": etag},
            timeout=30,
        )
        assert sent.status_code == 200, sent.text
        legal, etag = sent.json()["legal"], sent.headers["ETag"]
    raise AssertionError(f"the {kind} game did not end in {MAX_MOVES} moves")


@pytest.fixture(scope="module")
def finished(live_server: LiveServer) -> dict[str, str]:
    return {kind: _finished_game(live_server.url, kind) for kind in KINDS}


def _log(url: str, game_id: str, language: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "service.game_log", game_id, "--lang", language, "--url", url],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("kind", KINDS)
def test_the_log_of_a_finished_game_reads_in_each_of_the_four_languages(
    live_server: LiveServer, finished: dict[str, str], kind: str
) -> None:
    """Given a finished game of ``kind``, when its log is printed in each language, then
    each has one line per event (as many as the game's version, in order), each line is the
    event's description in that language, names the leaders in the rulebook's words of that
    language and not in another's, and the translated logs differ from the English one."""
    game_id = finished[kind]
    version = requests.get(f"{live_server.url}/games/{game_id}", timeout=30).json()["version"]
    logs = {language: _log(live_server.url, game_id, language) for language in TERMS}
    for language, lines in logs.items():
        assert len(lines) == version, (language, len(lines), version)
        assert [int(line.split()[0]) for line in lines] == list(range(1, version + 1))
        text = "\n".join(lines)
        assert any(term in text for term in TERMS[language]), (language, lines[:20])
        for other, terms in TERMS.items():
            if other not in {language, "en"}:  # English words may be names
                assert not any(term in text for term in terms if len(term) > 3), (
                    language,
                    other,
                )
        if language != "en":
            changed = sum(a != b for a, b in zip(lines, logs["en"], strict=True))
            assert changed >= 0.8 * version, (language, changed, version)


def test_an_unknown_game_is_a_clear_error(live_server: LiveServer) -> None:
    """Given no such game, when its log is asked for, then the tool exits 1 with the
    service's problem detail, and prints no line."""
    done = subprocess.run(
        [sys.executable, "-m", "service.game_log", "0" * 32, "--url", live_server.url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert "404" in done.stderr
