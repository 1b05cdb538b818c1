"""The consequences the rules fix by themselves, on a mutable working copy of a state.

An action's follow-up is an explicit queue of steps, ``State.agenda``, as in the card
game (B-TURN-3): its conflicts, then the monument check, then treasures, then the end of
the action and maybe of the turn. :class:`Work` holds the copy and carries out the
automatic steps (``advance``); ``domain.board.evolve`` freezes it once per event.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from math import comb

from domain.board.events import ConflictResolved, PieceRemoved, PointsScored
from domain.board.geometry import BLOCKS_OF, BORDER_TREASURES, NEIGHBOURS, SQUARES, block, coords
from domain.board.model import (
    CATASTROPHE,
    EMPTY,
    FACE_DOWN,
    FACE_UP,
    GREEN,
    LEADER,
    MONUMENT_COLOURS,
    MONUMENTS,
    RED,
    REVOLT,
    TEMPLE,
    WAR,
    CheckMonument,
    ChooseWar,
    Commit,
    Conflict,
    EndAction,
    MonumentOffer,
    Refill,
    Resolve,
    State,
    Step,
    TreasureChoice,
    Treasures,
    Wars,
)
from domain.board.regions import Regions, fill, region, regions
from domain.common.colours import COLOURS


def leader_owner(code: int) -> int:
    return (code - LEADER) >> 2


def leader_colour(code: int) -> int:
    return (code - LEADER) & 3


def adjacent_temples(board: Sequence[int], sq: int) -> int:
    return sum(1 for n in NEIGHBOURS[sq] if board[n] == TEMPLE)


class Work:
    """A mutable copy of a state for applying one event."""

    __slots__ = (
        "actions_left",
        "active",
        "agenda",
        "bag",
        "board",
        "catastrophes",
        "conflict",
        "declined",
        "declined_tiles",
        "ended",
        "hands",
        "leaders",
        "monuments",
        "out",
        "points",
        "reg",
        "resigned",
        "resolved",
        "state",
        "taken",
        "treasures",
        "turn",
        "unification",
    )

    def __init__(self, s: State) -> None:
        self.state = s
        self.board = list(s.board)
        self.treasures = set(s.treasures)
        self.leaders = list(s.leaders)
        self.hands = [list(h) for h in s.hands]
        self.bag = s.bag
        self.points = [list(p) for p in s.points]
        self.taken = list(s.taken)
        self.catastrophes = list(s.catastrophes)
        self.monuments = list(s.monuments)
        self.declined = s.declined
        self.declined_tiles = s.declined_tiles
        self.out = list(s.out)
        self.turn = s.turn
        self.active = s.active
        self.actions_left = s.actions_left
        self.agenda: list[Step] = list(s.agenda)
        self.conflict = s.conflict
        self.unification = s.unification
        self.ended = s.ended
        self.resigned = s.resigned
        self.resolved: ConflictResolved | None = None  # the outcome ``resolve`` settled
        self.reg: Regions | None = (
            regions(s) if s.cache is not None and "regions" in s.cache else None
        )

    # -- helpers --------------------------------------------------------------

    def kingdoms_next_to(self, sq: int) -> list[list[int]]:
        """The leaders of each distinct kingdom adjacent to ``sq``."""
        board = self.board
        if self.reg is not None:
            reg = self.reg
            return [reg.leaders[rid] for rid in sorted(reg.kingdoms_next_to(sq))]
        members: list[list[int]] = []
        leaders: list[list[int]] = []
        fill(board, NEIGHBOURS[sq], [-1] * SQUARES, members, leaders)
        return [lead for lead in leaders if lead]

    def set(self, sq: int, code: int) -> None:
        self.board[sq] = code
        self.reg = None
        if self.declined_tiles and not FACE_UP <= code < CATASTROPHE:
            self.tile_left(sq)

    def tile_left(self, sq: int) -> None:
        """B-MONUMENT-3: the tile on ``sq`` left the board; a declined 2x2 square none of
        whose four declined tiles is left may be offered again."""
        gone = {pair for pair in self.declined_tiles if pair[1] == sq}
        if gone:
            self.declined_tiles = self.declined_tiles - gone
            still = {tl for tl, _ in self.declined_tiles}
            self.declined = frozenset(tl for tl in self.declined if tl in still)

    def score(self, seat: int, colour: int, n: int = 1) -> None:
        self.points[seat][colour] += n

    def remove_leader(self, sq: int) -> None:
        code = self.board[sq]
        self.leaders[code - LEADER] = -1
        self.set(sq, EMPTY)

    def return_stranded_leaders(self) -> None:
        """B-LEADER-7: a leader with no adjacent face-up temple goes back to its owner."""
        board = self.board
        for sq in self.leaders:
            if sq >= 0 and not any(board[n] == TEMPLE for n in NEIGHBOURS[sq]):
                self.remove_leader(sq)

    def freeze(self) -> State:
        s = self.state
        new = State(
            seats=s.seats,
            seed=s.seed,
            start_player=s.start_player,
            board=tuple(self.board),
            treasures=frozenset(self.treasures),
            leaders=tuple(self.leaders),
            hands=tuple((h[0], h[1], h[2], h[3]) for h in self.hands),
            bag=self.bag,
            points=tuple((p[0], p[1], p[2], p[3]) for p in self.points),
            taken=tuple(self.taken),
            catastrophes=tuple(self.catastrophes),
            monuments=tuple(self.monuments),
            declined=self.declined,
            declined_tiles=self.declined_tiles,
            out=(self.out[0], self.out[1], self.out[2], self.out[3]),
            turn=self.turn,
            active=self.active,
            actions_left=self.actions_left,
            agenda=tuple(self.agenda),
            conflict=self.conflict,
            unification=self.unification,
            ended=self.ended,
            options=s.options,
            resigned=self.resigned,
        )
        if self.reg is not None:
            new.memo()["regions"] = self.reg
        return new

    # -- the flow (B-TURN-3): an action's steps, carried out in order -------------

    def take_action(self, *steps: Step) -> None:
        """An action was taken: one fewer left; its follow-up steps (a conflict's, a
        unification's, the monument check), then treasures and the end of the action."""
        self.actions_left -= 1
        self.agenda = [*steps, Treasures(), EndAction()]

    def advance(self) -> None:
        """Carry out the automatic steps at the head of the agenda, up to a decision (or
        ``Refill``, whose draws are events for ``decide`` to emit)."""
        agenda = self.agenda
        while agenda:
            head = agenda[0]
            kind = type(head)
            if kind is Treasures:
                choice = self.treasure_step()
                if choice is not None:
                    agenda.insert(0, choice)  # the choice, then look again
                    return
                del agenda[0]
            elif kind is CheckMonument:
                assert isinstance(head, CheckMonument)
                del agenda[0]
                offered = self.offer_monument(head.square)
                if offered:
                    agenda.insert(0, MonumentOffer(self.active, offered))
                    return
            elif kind is Resolve:
                del agenda[0]
                c = self.conflict
                assert c is not None
                self.resolve(c)
            elif kind is Wars:
                assert isinstance(head, Wars)
                if self.next_war(head):
                    return
            elif kind is EndAction:
                del agenda[0]
                if self.actions_left <= 0:
                    self.score_monuments()
                    agenda.insert(0, Refill())
                    return
            else:
                return  # a decision, or Refill

    def offer_monument(self, sq: int) -> tuple[int, ...]:
        """B-MONUMENT-1..3: the 2x2 squares the tile placed on ``sq`` completed."""
        board = self.board
        code = board[sq]
        if not FACE_UP <= code < FACE_DOWN:
            return ()
        colour = code - FACE_UP
        built = {m for m, _ in self.monuments}
        if not any(i not in built and colour in MONUMENT_COLOURS[i] for i in range(len(MONUMENTS))):
            return ()  # B-MONUMENT-2
        return tuple(
            tl
            for tl in BLOCKS_OF[sq]
            if tl not in self.declined and all(board[b] == code for b in block(tl))
        )

    def treasure_step(self) -> TreasureChoice | None:
        """B-TREASURE-1..3: take forced treasures; stop at the first real choice."""
        n = len(self.hands)
        label = [-1] * SQUARES  # the traders' kingdoms, labelled once: the board stays
        kingdoms: list[list[int]] = []
        while len(self.treasures) >= 2:
            for seat in range(n):
                trader = self.leaders[seat * 4 + GREEN]
                if trader < 0:
                    continue
                fill(self.board, (trader,), label, kingdoms, [])
                rid = label[trader]
                found = tuple(sorted(sq for sq in self.treasures if label[sq] == rid))
                if len(found) < 2:
                    continue
                take = len(found) - 1
                b = sum(1 for sq in found if sq in BORDER_TREASURES)
                ways = comb(b, take) if b >= take else comb(len(found) - b, take - b)
                if ways == 1:
                    self.take_treasures(seat, _forced(found, take))
                    break
                return TreasureChoice(seat, found, take)
            else:
                return None
        return None

    def take_treasures(self, seat: int, squares: Sequence[int]) -> None:
        for sq in squares:
            self.treasures.discard(sq)
        self.taken[seat] += len(squares)

    def score_monuments(self) -> None:
        """B-MONUMENT-6: the active player's leaders in a monument's kingdom score its colours."""
        if not self.monuments:
            return
        label = [-1] * SQUARES
        kingdoms: list[list[int]] = []
        for m, tl in self.monuments:
            fill(self.board, (tl,), label, kingdoms, [])
            for colour in MONUMENT_COLOURS[m]:
                at = self.leaders[self.active * 4 + colour]
                if at >= 0 and label[at] == label[tl]:
                    self.score(self.active, colour)

    # -- conflicts ---------------------------------------------------------------

    def arrive_leader(self, seat: int, colour: int, sq: int) -> tuple[Step, ...]:
        """A leader arrived on ``sq``: a revolt if its kingdom has its colour (B-LEADER-6);
        the revolt's steps, if any."""
        board = self.board
        for other in region(board, sq)[1]:
            if other != sq and leader_colour(board[other]) == colour:
                self.conflict = Conflict(
                    kind=REVOLT,
                    colour=RED,
                    attacker=seat,
                    defender=leader_owner(board[other]),
                    attacker_at=sq,
                    defender_at=other,
                    attacker_base=adjacent_temples(board, sq),
                    defender_base=adjacent_temples(board, other),
                )
                return self.conflict_steps()
        return ()

    def conflict_steps(self) -> tuple[Step, ...]:
        """The steps of the conflict just started: the attacker commits, then the defender
        (B-REVOLT-3, B-WAR-5), then it is settled."""
        c = self.conflict
        assert c is not None
        return (Commit(c.attacker), Commit(c.defender), Resolve())

    def war_colours(self) -> list[int]:
        """Colours with two leaders in the kingdom of the unification marker (B-WAR-1)."""
        board = self.board
        seen = [0, 0, 0, 0]
        for sq in region(board, self.unification)[1]:
            seen[leader_colour(board[sq])] += 1
        return [c for c in range(4) if seen[c] >= 2]

    def start_war(self, colour: int) -> None:
        """B-WAR-3, B-WAR-4: sides, attacker and base strength of the war of ``colour``."""
        board = self.board
        cut = self.unification
        pair = [sq for sq in region(board, cut)[1] if leader_colour(board[sq]) == colour]
        n = len(self.hands)
        pair.sort(key=lambda sq: (leader_owner(board[sq]) - self.active) % n)
        att, dfn = pair
        self.conflict = Conflict(
            kind=WAR,
            colour=colour,
            attacker=leader_owner(board[att]),
            defender=leader_owner(board[dfn]),
            attacker_at=att,
            defender_at=dfn,
            attacker_base=len(supporters(board, cut, att, colour)),
            defender_base=len(supporters(board, cut, dfn, colour)),
        )
        self.agenda[0:0] = self.conflict_steps()

    def commit(self, seat: int, count: int) -> None:
        c = self.conflict
        assert c is not None
        self.hands[seat][c.colour] -= count
        self.out[c.colour] += count
        del self.agenda[0]  # the Commit step answered
        if c.attacker_commit < 0:
            self.conflict = replace(c, attacker_commit=count)
        else:
            self.conflict = replace(c, defender_commit=count)

    def resolve(self, c: Conflict) -> None:
        attacker_wins = c.attacker_base + c.attacker_commit > c.defender_base + c.defender_commit
        winner = c.attacker if attacker_wins else c.defender  # a tie goes to the defender
        loser = c.defender if attacker_wins else c.attacker
        loser_at = c.defender_at if attacker_wins else c.attacker_at
        leader = leader_colour(self.board[loser_at])
        self.conflict = None
        removed = [PieceRemoved("leader", COLOURS[leader], coords(loser_at), loser)]
        if c.kind == REVOLT:
            self.remove_leader(loser_at)  # B-REVOLT-5
            self.score(winner, RED)
            self.resolved = _outcome(
                c, leader=leader, winner=winner, loser=loser, removed=removed, colour=RED, points=1
            )
            return
        board = self.board
        lost = supporters(board, self.unification, loser_at, c.colour)
        self.remove_leader(loser_at)  # B-WAR-6
        if c.colour == RED:  # B-WAR-7: the priest exception
            lost = [
                sq
                for sq in lost
                if sq not in self.treasures
                and not any(self.board[n] >= LEADER for n in NEIGHBOURS[sq])
            ]
        for sq in lost:
            self.set(sq, EMPTY)
            removed.append(PieceRemoved("tile", COLOURS[c.colour], coords(sq), None))
        self.out[c.colour] += len(lost)
        self.score(winner, c.colour, 1 + len(lost))
        standing = [(i, sq) for i, sq in enumerate(self.leaders) if sq >= 0]
        self.return_stranded_leaders()
        removed += [
            PieceRemoved("leader", COLOURS[i & 3], coords(sq), i >> 2)
            for i, sq in standing
            if self.leaders[i] < 0
        ]
        self.resolved = _outcome(
            c,
            leader=leader,
            winner=winner,
            loser=loser,
            removed=removed,
            colour=c.colour,
            points=1 + len(lost),
        )

    def next_war(self, step: Wars) -> bool:
        """B-WAR-8: drop wars whose leaders were split apart; start the one left, or have
        the active player choose, or end the unification (False: nothing awaited)."""
        still = set(self.war_colours())
        wars = tuple(c for c in step.colours if c in still)
        if not wars:
            del self.agenda[0]
            self.unification = -1
            return False
        if len(wars) == 1:
            self.agenda[0] = Wars(())
            self.start_war(wars[0])
        else:
            self.agenda[0] = Wars(wars)
            self.agenda.insert(0, ChooseWar(self.active, wars))
        return True


def _outcome(
    c: Conflict,
    *,
    leader: int,
    winner: int,
    loser: int,
    removed: list[PieceRemoved],
    colour: int,
    points: int,
) -> ConflictResolved:
    """The record of a settled conflict (``ConflictResolved``)."""
    return ConflictResolved(
        kind=c.kind,
        colour=COLOURS[leader],
        attacker=c.attacker,
        defender=c.defender,
        attacker_strength=c.attacker_base + c.attacker_commit,
        defender_strength=c.defender_base + c.defender_commit,
        winner=winner,
        loser=loser,
        attacker_base=c.attacker_base,
        attacker_committed=c.attacker_commit,
        defender_base=c.defender_base,
        defender_committed=c.defender_commit,
        removed=tuple(removed),
        points=(PointsScored(winner, COLOURS[colour], points),),
    )


def _forced(found: Sequence[int], take: int) -> list[int]:
    """The unique treasure set when only one choice is possible (border ones first)."""
    border = [sq for sq in found if sq in BORDER_TREASURES]
    if len(border) >= take:
        return border[:take]
    rest = [sq for sq in found if sq not in BORDER_TREASURES]
    return border + rest[: take - len(border)]


def supporters(board: Sequence[int], cut: int, leader_sq: int, colour: int) -> list[int]:
    """Face-up tiles of ``colour`` on the leader's side of the unification marker (B-WAR-4)."""
    code = FACE_UP + colour
    return sorted(sq for sq in region(board, leader_sq, cut)[0] if board[sq] == code)
