"""Folding a game's stored events into its state, with service events honoured.

Domain events go through ``rules.evolve``. ``GameReverted(to_version=k)`` makes
the state the state at version ``k`` (which may itself lie after an earlier
revert: "state at k" always means the fold of the first k events, reverts
included). ``UndoRequested`` / ``UndoAnswered`` leave the state alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from domain.common.errors import FormatError
from domain.common.protocol import GameRules
from service.events import GameReverted, UndoAnswered, UndoRequested


class VersionedEvent(Protocol):
    @property
    def version(self) -> int: ...

    @property
    def event(self) -> object: ...


def replay(
    rules: GameRules[Any, Any, Any],
    events: Iterable[VersionedEvent],
    *,
    base_state: Any = None,
    base_version: int = 0,
    state_at: Callable[[int], Any] | None = None,
) -> tuple[Any, int]:
    """Fold ``events`` (versions ``base_version+1, ...``) onto ``base_state``.

    ``state_at(k)`` gives the state at an earlier version ``k < base_version`` for a
    revert that reaches back before the base; reverts within the folded range are
    answered from the states seen on the way. Returns ``(state, version)``.
    """
    seen: dict[int, Any] = {}
    if base_version > 0:
        seen[base_version] = base_state
    state, version = base_state, base_version
    for stored in events:
        if stored.version != version + 1:
            raise FormatError(f"event version {stored.version} follows {version}: a gap")
        event = stored.event
        if isinstance(event, GameReverted):
            target = event.to_version
            if not 1 <= target < stored.version:
                raise FormatError(f"revert at v{stored.version} to v{target}", "to_version")
            if target in seen:
                state = seen[target]
            elif state_at is not None:
                state = state_at(target)
            else:
                raise FormatError(f"revert to v{target} reaches before the folded range")
        elif isinstance(event, UndoRequested | UndoAnswered):
            if state is None:
                raise FormatError("a game cannot begin with a service event")
        else:
            state = rules.evolve(state, event)
        version = stored.version
        seen[version] = state
    return state, version
