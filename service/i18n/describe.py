"""Each event in a few words, in the viewer's language: who did what, where, with what
effect (``"Anna places the priest at [3, 4]"``).

A description is written from the event's data *as the viewer sees it* (after
``rules.event_view`` redacted it), never from the stored event: what a viewer may not see
(another seat's drawn tiles, a card laid face down) is not in the data, so it cannot be in
the words. Game terms follow each language's edition of the rulebooks (docs/glossary.md).
Every string here is a msgid of the ``messages`` domain (``pybabel extract``).
"""

from __future__ import annotations

import gettext
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from babel.lists import format_list

from service.i18n import DEFAULT_LANGUAGE, MESSAGES, translations
from service.i18n.rules import rule_sentence


class Words:
    """One language's translations, with the game's names for the seats."""

    def __init__(
        self, language: str, seat_names: Sequence[str], rules: Sequence[str] = (), kind: str = ""
    ) -> None:
        self.language = language
        self.kind = kind  # the game's kind (``board``, ``cards``), or ``service``
        self.t: gettext.NullTranslations = translations(language, MESSAGES)
        self.seat_names = seat_names
        self.rules = rules  # the event's rule trail, where it was recorded

    def player(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.seat_names) and self.seat_names[seat]:
            return self.seat_names[seat]
        return self.t.gettext("seat {number}").format(number=seat)

    def actor(self, actor: Any) -> str:
        """``seat:1`` / ``bot:1`` as the seat's name; ``admin``, ``clock``, ``system`` named."""
        text = str(actor)
        who, _, seat = text.partition(":")
        if who in ("seat", "bot") and seat.isdigit():
            return self.player(int(seat))
        if text == "admin":
            return self.t.gettext("the referee")
        return self.t.gettext("the service")

    def listed(self, items: Sequence[str]) -> str:
        return format_list(list(items), locale=self.language)

    def leader(self, colour: Any) -> str:
        """A leader by its role, as the object of a sentence (accusative where it matters),
        in the words of its game's rulebook (the Hungarian board game's priest is a főpap)."""
        t = self.t
        if self.kind == "board":
            board = {
                "black": t.pgettext("board: leader, object", "the king"),
                "red": t.pgettext("board: leader, object", "the priest"),
                "blue": t.pgettext("board: leader, object", "the farmer"),
                "green": t.pgettext("board: leader, object", "the trader"),
            }
            return board.get(str(colour), str(colour))
        names = {
            "black": t.pgettext("leader, object", "the king"),
            "red": t.pgettext("leader, object", "the priest"),
            "blue": t.pgettext("leader, object", "the farmer"),
            "green": t.pgettext("leader, object", "the trader"),
        }
        return names.get(str(colour), str(colour))

    def colour(self, colour: Any) -> str:
        """A colour's name standing alone (``colour: red``)."""
        t = self.t
        names = {
            "black": t.pgettext("colour", "black"),
            "red": t.pgettext("colour", "red"),
            "blue": t.pgettext("colour", "blue"),
            "green": t.pgettext("colour", "green"),
        }
        return names.get(str(colour), str(colour))

    def tile(self, colour: Any) -> str:
        """A tile of the board game by what it shows, as the object of a sentence."""
        t = self.t
        names = {
            "black": t.pgettext("tile, object", "a settlement"),
            "red": t.pgettext("tile, object", "a temple"),
            "blue": t.pgettext("tile, object", "a farm"),
            "green": t.pgettext("tile, object", "a market"),
        }
        return names.get(str(colour), str(colour))

    def tile_name(self, colour: Any) -> str:
        """A tile's name in a list (``temple, market``)."""
        t = self.t
        names = {
            "black": t.pgettext("tile", "settlement"),
            "red": t.pgettext("tile", "temple"),
            "blue": t.pgettext("tile", "farm"),
            "green": t.pgettext("tile", "market"),
        }
        return names.get(str(colour), str(colour))

    def card_name(self, colour: Any) -> str:
        """A civilisation card of the card game by its colour's field, in a list."""
        t = self.t
        names = {
            "black": t.pgettext("card", "population"),
            "red": t.pgettext("card", "temple"),
            "blue": t.pgettext("card", "agriculture"),
            "green": t.pgettext("card", "trade"),
        }
        return names.get(str(colour), str(colour))

    def monument(self, monument: Any) -> str:
        t = self.t
        names = {
            "black-green": t.pgettext("monument, object", "the black and green monument"),
            "black-blue": t.pgettext("monument, object", "the black and blue monument"),
            "black-red": t.pgettext("monument, object", "the black and red monument"),
            "red-blue": t.pgettext("monument, object", "the red and blue monument"),
            "red-green": t.pgettext("monument, object", "the red and green monument"),
            "blue-green": t.pgettext("monument, object", "the blue and green monument"),
        }
        return names.get(str(monument), str(monument))

    def war(self, player: str, colour: Any) -> str:
        """The war chosen to be fought next, by its leaders (each game in its own words)."""
        t = self.t
        if self.kind == "board":
            sentences = {
                "black": t.pgettext(
                    "board", "{player} chooses the war of the kings to be fought next"
                ),
                "red": t.pgettext(
                    "board", "{player} chooses the war of the priests to be fought next"
                ),
                "blue": t.pgettext(
                    "board", "{player} chooses the war of the farmers to be fought next"
                ),
                "green": t.pgettext(
                    "board", "{player} chooses the war of the traders to be fought next"
                ),
            }
        else:
            sentences = {
                "black": t.gettext("{player} chooses the war of the kings to be fought next"),
                "red": t.gettext("{player} chooses the war of the priests to be fought next"),
                "blue": t.gettext("{player} chooses the war of the farmers to be fought next"),
                "green": t.gettext("{player} chooses the war of the traders to be fought next"),
            }
        return sentences.get(str(colour), "{player}: {colour}").format(player=player, colour=colour)


def square(at: Any) -> str:
    if isinstance(at, Sequence) and len(at) == 2:
        return f"[{at[0]}, {at[1]}]"
    return str(at)


Describer = Callable[[Words, Mapping[str, Any]], str]


def _started(w: Words, d: Mapping[str, Any]) -> str:
    names = [w.player(seat) for seat in range(len(d.get("seats", ())))]
    return w.t.gettext("The game begins with {players}; {first} plays first.").format(
        players=w.listed(names), first=w.player(d.get("start_player"))
    )


def _board_drawn(w: Words, d: Mapping[str, Any]) -> str:
    t, who = w.t, w.player(d.get("seat"))
    if "tiles" in d:
        tiles = list(d["tiles"])
        return t.ngettext(
            "{player} draws {count} tile: {tiles}",
            "{player} draws {count} tiles: {tiles}",
            len(tiles),
        ).format(player=who, count=len(tiles), tiles=w.listed([w.tile_name(c) for c in tiles]))
    count = int(d.get("count", 0))
    return t.ngettext("{player} draws {count} tile", "{player} draws {count} tiles", count).format(
        player=who, count=count
    )


def _board_leader_placed(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} places {leader} at {square}").format(
        player=w.player(d.get("seat")), leader=w.leader(d.get("leader")), square=square(d.get("at"))
    )


def _board_leader_moved(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} moves {leader} from {origin} to {square}").format(
        player=w.player(d.get("seat")),
        leader=w.leader(d.get("leader")),
        origin=square(d.get("origin")),
        square=square(d.get("at")),
    )


def _withdrawn(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} takes {leader} back").format(
        player=w.player(d.get("seat")), leader=w.leader(d.get("leader"))
    )


def _board_tile_placed(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} places {tile} at {square}").format(
        player=w.player(d.get("seat")), tile=w.tile(d.get("colour")), square=square(d.get("at"))
    )


def _board_catastrophe(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} places a catastrophe at {square}").format(
        player=w.player(d.get("seat")), square=square(d.get("at"))
    )


def _board_swapped(w: Words, d: Mapping[str, Any]) -> str:
    t, who = w.t, w.player(d.get("seat"))
    if "drawn" in d:
        drawn = list(d["drawn"])
        return t.ngettext(
            "{player} discards {count} tile and draws {tiles}",
            "{player} discards {count} tiles and draws {tiles}",
            len(drawn),
        ).format(player=who, count=len(drawn), tiles=w.listed([w.tile_name(c) for c in drawn]))
    count = int(d.get("count", 0))
    return t.ngettext(
        "{player} discards {count} tile and draws as many",
        "{player} discards {count} tiles and draws as many",
        count,
    ).format(player=who, count=count)


def _passed(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} passes").format(player=w.player(d.get("seat")))


def _board_support(w: Words, d: Mapping[str, Any]) -> str:
    """Which conflict the support went to comes from the event's rule trail (public: the
    explanation shows it to every viewer): temples to a revolt, the war's colour to a war."""
    count = int(d.get("count", 0))
    values = {"player": w.player(d.get("seat")), "count": count}
    if any(rule.startswith("B-REVOLT-") for rule in w.rules):
        return w.t.ngettext(
            "{player} commits {count} temple to the revolt",
            "{player} commits {count} temples to the revolt",
            count,
        ).format(**values)
    if any(rule.startswith("B-WAR-") for rule in w.rules):
        return w.t.ngettext(
            "{player} commits {count} tile to the war",
            "{player} commits {count} tiles to the war",
            count,
        ).format(**values)
    return w.t.ngettext(
        "{player} commits {count} tile to the conflict",
        "{player} commits {count} tiles to the conflict",
        count,
    ).format(**values)


def _war_chosen(w: Words, d: Mapping[str, Any]) -> str:
    return w.war(w.player(d.get("seat")), d.get("colour"))


def _board_monument(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} builds {monument} at {square}").format(
        player=w.player(d.get("seat")),
        monument=w.monument(d.get("monument")),
        square=square(d.get("at")),
    )


def _board_no_monument(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} builds no monument").format(player=w.player(d.get("seat")))


def _board_treasures(w: Words, d: Mapping[str, Any]) -> str:
    count = len(d.get("squares", ()))
    return w.t.ngettext(
        "{player} takes {count} treasure", "{player} takes {count} treasures", count
    ).format(player=w.player(d.get("seat")), count=count)


def _board_turn_ended(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player}'s turn ends").format(player=w.player(d.get("seat")))


def _resigned(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} resigns").format(player=w.player(d.get("seat")))


def _ended_by_resignations(w: Words) -> str:
    return w.t.gettext("The game ends: only one player has not resigned.")


def _board_ended(w: Words, d: Mapping[str, Any]) -> str:
    if d.get("reason") == "resigned":
        return _ended_by_resignations(w)
    if d.get("reason") == "treasures":
        return w.t.gettext("The game ends: only one or two treasures are left on the board.")
    return w.t.gettext("The game ends: the bag cannot supply the tiles a player must draw.")


def _cards_drawn(w: Words, d: Mapping[str, Any]) -> str:
    t, who = w.t, w.player(d.get("seat"))
    if "cards" in d:
        cards = list(d["cards"])
        return t.ngettext(
            "{player} draws {count} card: {cards}",
            "{player} draws {count} cards: {cards}",
            len(cards),
        ).format(player=who, count=len(cards), cards=w.listed([w.card_name(c) for c in cards]))
    count = int(d.get("count", 0))
    return t.ngettext("{player} draws {count} card", "{player} draws {count} cards", count).format(
        player=who, count=count
    )


def _cards_leader_placed(w: Words, d: Mapping[str, Any]) -> str:
    who, leader = w.player(d.get("seat")), w.leader(d.get("leader"))
    if d.get("bridge") is not None:
        return w.t.gettext("{player} places {leader} on bridge {bridge}").format(
            player=who, leader=leader, bridge=d["bridge"]
        )
    return w.t.gettext("{player} places {leader} in column {column}").format(
        player=who, leader=leader, column=d.get("column")
    )


def _cards_played(w: Words, d: Mapping[str, Any]) -> str:
    who = w.player(d.get("seat"))
    if d.get("bridge") is not None:
        if "colour" not in d:
            return w.t.gettext("{player} lays a card face down on bridge {bridge}").format(
                player=who, bridge=d["bridge"]
            )
        return w.t.gettext("{player} lays a card ({card}) on bridge {bridge}").format(
            player=who, card=w.card_name(d["colour"]), bridge=d["bridge"]
        )
    return w.t.gettext("{player} plays a card ({card}) into column {column}").format(
        player=who, card=w.card_name(d.get("colour")), column=d.get("column")
    )


def _cards_catastrophe(w: Words, d: Mapping[str, Any]) -> str:
    who = w.player(d.get("seat"))
    if d.get("bridge") is not None:
        return w.t.gettext("{player} plays a catastrophe on bridge {bridge}").format(
            player=who, bridge=d["bridge"]
        )
    return w.t.gettext("{player} plays a catastrophe on column {column}").format(
        player=who, column=d.get("column")
    )


def _cards_point(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} scores a victory point ({card})").format(
        player=w.player(d.get("seat")), card=w.card_name(d.get("colour"))
    )


def _cards_declined(w: Words, d: Mapping[str, Any]) -> str:
    t = w.t
    decisions = {
        "point": t.gettext("{player} takes no victory point"),
        "ship": t.gettext("{player} builds no ship"),
        "ship_points": t.gettext("{player} takes no points for the ship"),
        "choose_war": t.gettext("{player} chooses no war"),
        "commit": t.gettext("{player} commits no cards"),
        "treasure_swap": t.gettext("{player} swaps no treasure"),
    }
    sentence = decisions.get(str(d.get("decision")), t.gettext("{player} declines"))
    return sentence.format(player=w.player(d.get("seat")))


def _cards_ship(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} builds a ship ({colour}) in column {column}").format(
        player=w.player(d.get("seat")), colour=w.colour(d.get("ship")), column=d.get("column")
    )


def _cards_committed(w: Words, d: Mapping[str, Any]) -> str:
    count = int(d.get("count", 0))
    return w.t.ngettext(
        "{player} commits {count} card ({card}) to the conflict",
        "{player} commits {count} cards ({card}) to the conflict",
        count,
    ).format(player=w.player(d.get("seat")), count=count, card=w.card_name(d.get("colour")))


def _strength(d: Mapping[str, Any], side: str) -> str:
    """A side's strength as its base plus what it committed (``3+2``), when the event
    records the split; else the total."""
    base, committed = d.get(f"{side}_base"), d.get(f"{side}_committed")
    if isinstance(base, int) and isinstance(committed, int):
        return f"{base}+{committed}"
    return str(d.get(f"{side}_strength"))


def _conflict(w: Words, d: Mapping[str, Any]) -> str:
    """Who beat whom with what, whose leader goes home; in the board game also what else
    left the board and what the winner scored, when the viewer may see it (the domain's
    redaction leaves ``points`` out for the other seats while scoring is secret)."""
    attacker, defender = d.get("attacker"), d.get("defender")
    strength = {attacker: _strength(d, "attacker"), defender: _strength(d, "defender")}
    winner = d.get("winner")
    loser = d.get("loser", defender if winner == attacker else attacker)
    values = {
        "winner": w.player(winner),
        "loser": w.player(loser),
        "won": strength.get(winner),
        "lost": strength.get(loser),
        "colour": w.colour(d.get("colour")),
    }
    if d.get("kind") == "revolt":
        sentence = w.t.gettext(
            "Revolt ({colour}): {winner} ({won}) beats {loser} ({lost}); "
            "the leader of {loser} goes home"
        )
    else:
        sentence = w.t.gettext(
            "War ({colour}): {winner} ({won}) beats {loser} ({lost}); "
            "the leader of {loser} goes home"
        )
    clauses = [sentence.format(**values)]
    removed = [p for p in d.get("removed", ()) if isinstance(p, Mapping)]
    tiles = sum(1 for p in removed if p.get("piece") == "tile")
    if tiles:
        clauses.append(
            w.t.ngettext(
                "{count} tile leaves the board", "{count} tiles leave the board", tiles
            ).format(count=tiles)
        )
    for piece in removed:
        if piece.get("piece") != "leader":
            continue
        if piece.get("seat") == loser and piece.get("colour") == d.get("colour"):
            continue  # the loser's leader: said already
        clauses.append(
            w.t.gettext("{player} takes {leader} back").format(
                player=w.player(piece.get("seat")), leader=w.leader(piece.get("colour"))
            )
        )
    for scored in d.get("points", ()) or ():
        if not isinstance(scored, Mapping):
            continue
        count = int(scored.get("count", 0))
        clauses.append(
            w.t.ngettext(
                "{player} scores {count} {colour} point",
                "{player} scores {count} {colour} points",
                count,
            ).format(
                player=w.player(scored.get("seat")),
                count=count,
                colour=w.colour(scored.get("colour")),
            )
        )
    return "; ".join(clauses)


def _cards_treasure_swapped(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{player} swaps the treasure of column {column} for a temple card").format(
        player=w.player(d.get("seat")), column=d.get("column")
    )


def _cards_turn_began(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("Turn {turn}: {player} plays").format(
        turn=d.get("turn"), player=w.player(d.get("seat"))
    )


def _cards_ended(w: Words, d: Mapping[str, Any]) -> str:
    reason = d.get("reason")
    if reason == "resigned":
        return _ended_by_resignations(w)
    if reason == "pile":
        return w.t.gettext("The game ends: the draw pile cannot refill the hands.")
    if reason == "treasures":
        return w.t.gettext("The game ends: only a few treasures are left in the display.")
    return w.t.gettext("The game ends: no one can make a move.")


def _reverted(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("The game goes back to version {version}").format(
        version=d.get("to_version")
    )


def _undo_requested(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{who} asks to take the game back to version {version}").format(
        who=w.actor(d.get("requested_by")), version=d.get("to_version")
    )


def _undo_answered(w: Words, d: Mapping[str, Any]) -> str:
    who = w.actor(d.get("by"))
    if d.get("approve"):
        return w.t.gettext("{who} agrees to take the game back").format(who=who)
    return w.t.gettext("{who} refuses to take the game back").format(who=who)


def _seat_claimed(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("{name} takes a seat at the table").format(name=d.get("name"))


def _seat_left(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("The player of seat {seat} leaves the table; the seat is open again").format(
        seat=d.get("seat")
    )


def _rematch_created(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("A rematch is set up: game {game}").format(game=d.get("game_id"))


def _seat_reserved(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("Seat {seat} is reserved for an invited player").format(seat=d.get("seat"))


def _reservation_revoked(w: Words, d: Mapping[str, Any]) -> str:
    return w.t.gettext("The invitation to seat {seat} is revoked").format(seat=d.get("seat"))


DESCRIBERS: dict[str, Describer] = {
    "board.GameStarted": _started,
    "board.TilesDrawn": _board_drawn,
    "board.LeaderPlaced": _board_leader_placed,
    "board.LeaderMoved": _board_leader_moved,
    "board.LeaderWithdrawn": _withdrawn,
    "board.TilePlaced": _board_tile_placed,
    "board.CatastrophePlaced": _board_catastrophe,
    "board.TilesSwapped": _board_swapped,
    "board.Passed": _passed,
    "board.SupportCommitted": _board_support,
    "board.WarChosen": _war_chosen,
    "board.MonumentBuilt": _board_monument,
    "board.MonumentDeclined": _board_no_monument,
    "board.TreasuresTaken": _board_treasures,
    "board.TurnEnded": _board_turn_ended,
    "board.SeatResigned": _resigned,
    "board.GameEnded": _board_ended,
    "cards.GameStarted": _started,
    "cards.CardsDrawn": _cards_drawn,
    "cards.LeaderPlaced": _cards_leader_placed,
    "cards.LeaderWithdrawn": _withdrawn,
    "cards.CardPlayed": _cards_played,
    "cards.CatastrophePlayed": _cards_catastrophe,
    "cards.Passed": _passed,
    "cards.PointScored": _cards_point,
    "cards.Declined": _cards_declined,
    "cards.ShipBuilt": _cards_ship,
    "cards.WarChosen": _war_chosen,
    "cards.CardsCommitted": _cards_committed,
    "board.ConflictResolved": _conflict,
    "cards.ConflictResolved": _conflict,
    "cards.TreasureSwapped": _cards_treasure_swapped,
    "cards.TurnBegan": _cards_turn_began,
    "cards.SeatResigned": _resigned,
    "cards.GameEnded": _cards_ended,
    "service.GameReverted": _reverted,
    "service.UndoRequested": _undo_requested,
    "service.UndoAnswered": _undo_answered,
    "service.SeatClaimed": _seat_claimed,
    "service.SeatLeft": _seat_left,
    "service.RematchCreated": _rematch_created,
    "service.SeatReserved": _seat_reserved,
    "service.ReservationRevoked": _reservation_revoked,
}


def describe(
    event_type: str,
    data: Mapping[str, Any],
    seat_names: Sequence[str],
    language: str,
    rules: Sequence[str] = (),
) -> str:
    """``data`` (an event of ``event_type`` as the viewer sees it) in a few words; ``rules``:
    the event's rule trail, if recorded."""
    describer = DESCRIBERS.get(event_type)
    words = Words(language, seat_names, rules, event_type.partition(".")[0])
    if describer is None:  # a game registered without words yet: its type, not nothing
        return event_type
    return describer(words, data)


def rule_words(rule_id: str, language: str) -> str | None:
    """The rule ``rule_id`` in one sentence in ``language`` (the ``rules`` domain), else in
    English, else None (a rule no one has written a sentence for)."""
    return rule_sentence(rule_id, language) or rule_sentence(rule_id, DEFAULT_LANGUAGE)


def refusal(rule_id: str, language: str) -> str:
    """A refused command's rule in one sentence (``rule_words``), else a sentence naming
    the rule."""
    sentence = rule_words(rule_id, language)
    if sentence is not None:
        return sentence
    return (
        translations(language, MESSAGES)
        .gettext("The move breaks rule {rule}.")
        .format(rule=rule_id)
    )
