"""``python -m service verify RECORD``: check a game record offline (no server, no store).

Exit status: 0 when the record verifies; 1 when it and the rules (or it and itself) disagree,
naming the first version (0: the header) where they do; 2 when it cannot be checked (no such
file, or a redacted record). ``--head HASH`` also requires the record's last hash to be
``HASH`` (as the server shows it), which pins the record to the server's copy: a record that
someone cut short and re-hashed verifies on its own, never against the real head.
"""

from __future__ import annotations

import sys
from pathlib import Path

from domain.games import all_games
from service.application.record import Disagreement, Incomplete, verify

DISAGREES = 1
UNCHECKABLE = 2


def run(path: str, head: str | None = None) -> int:
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        print(f"verify: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return UNCHECKABLE
    try:
        verified = verify(data, all_games())
    except Incomplete as exc:
        print(f"verify: {exc}", file=sys.stderr)
        return UNCHECKABLE
    except Disagreement as exc:
        print(f"verify: FAILED at version {exc.version}: {exc.reason}")
        return DISAGREES
    header = verified.header
    if head is not None and header["head"] != head:
        print(f"verify: FAILED at version {len(verified.events)}: the head is not {head}")
        return DISAGREES
    print(
        f"verify: OK: {header['kind']} game {header['game_id']}, "
        f"{len(verified.events)} events re-derived, head {header['head']}"
    )
    return 0
