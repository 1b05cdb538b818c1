"""Server-side bots for both games: ``random``, ``greedy`` and ``mcts``.

A bot is a pure function of the rules, the seat's view (``rules.view(state,
seat)``), the seat, a bot seed and a think budget; it returns one legal
command for that seat. It never sees a full state: it rebuilds complete ones
from the view by determinization (``domain.board.determinize`` /
``domain.cards.determinize``), sampling every hidden part.
"""

from domain.bots.engine import BOT_KINDS, Budget, choose_command, determinizer

__all__ = ["BOT_KINDS", "Budget", "choose_command", "determinizer"]
