"""Server-side bots for every registered game: ``random``, ``greedy`` and ``mcts``.

A bot is a pure function of the rules, the seat's view (``rules.view(state,
seat)``), the seat, a bot seed and a think budget; it returns one legal
command for that seat. It never sees a full state: it rebuilds complete ones
from the view by determinization (the game's ``determinize``, e.g.
``domain.board.determinize``), sampling every hidden part; the game's registration
also gives the playouts' sampler and the evaluation's score keys.
"""

from domain.bots.engine import BOT_KINDS, Budget, choose_command

__all__ = ["BOT_KINDS", "Budget", "choose_command"]
