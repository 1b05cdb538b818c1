"""What both games truly share: colours, seats, errors, codecs, final scoring."""

from domain.common.colours import COLOURS, Colour
from domain.common.errors import FormatError, GameOver, IllegalCommand, NotAwaited, RulesError
from domain.common.scoring import FinalScore, best_assignment, rank_players

__all__ = [
    "COLOURS",
    "Colour",
    "FinalScore",
    "FormatError",
    "GameOver",
    "IllegalCommand",
    "NotAwaited",
    "RulesError",
    "best_assignment",
    "rank_players",
]
