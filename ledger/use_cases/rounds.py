"""A round's commands: starting it, the stakes, every decision (``act``), and a whole round
as one command (``play_round``) for bots and the simulator."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any
from uuid import UUID

from ledger import round_start
from ledger.domain.round import Round
from ledger.errors import InvalidCommand, NotPermitted, WrongPhase
from ledger.games import moves, staking, turns
from ledger.games.bookkeeping import Books
from ledger.games.play import Play
from ledger.rules import RuleSet, rules_from_record
from ledger.shoes import RoundCards
from ledger.unit_of_work import UnitOfWork
from ledger.use_cases.actions import (
    DEALER_ACTIONS,
    HAND_DEALER_ACTIONS,
    IRREGULAR,
    PLAYER_ACTIONS,
    apply_action,
)
from ledger.use_cases.inputs import ADMIN, positive_amount


class Rounds:
    """A part of ``TwentyOneLedger`` (ledger/application.py), which supplies ``_run``."""

    def start_round(
        self,
        table_id: str,
        *,
        actor: str = ADMIN,
        cut: int | None = None,
        command_id: str | None = None,
        with_round: bool = False,
    ) -> Any:
        """The result; with ``with_round``, ``(result, round)`` as ``place_stake`` gives them."""
        saved: list[Round] = []

        def body(uow: UnitOfWork) -> dict:
            rnd = round_start.start_round(self, uow, table_id, actor, cut).rnd
            if with_round:
                self._keep_round(uow, rnd, saved)
            return {
                "round_id": str(rnd.id),
                "number": rnd.number,
                "phase": rnd.phase,
                "dealer": rnd.dealer,
            }

        result = self._run(
            "start_round", {"table": str(table_id), "cut": cut}, command_id, actor, body
        )
        return self._with_round(result, result["round_id"], saved) if with_round else result

    def play_round(
        self,
        table_id: str,
        stakes: dict[str, int],
        decide: Callable[[Round, str | None], dict],
        *,
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        """A whole round as one command, for bots and the simulator: start it, place
        ``stakes`` (player id -> amount), then ask ``decide(round, hand_id)`` for each
        decision (``hand_id`` None for the dealer's) and apply it, until the round ends. The
        events are exactly those of the step-by-step commands, written in one atomic save."""

        def body(uow: UnitOfWork) -> dict:
            play = round_start.start_round(self, uow, table_id, actor, None)
            rnd = play.rnd
            for hand_id in list(rnd.order):
                player = rnd.hands[hand_id]["player"]
                play.actor = player
                staking.place_stake(play, player, positive_amount(stakes[player], "a stake"))
            while not rnd.ended:
                turn = rnd.current_turn() if rnd.phase == "play" else None
                if turn is not None and turns.awaits_stand(play, rnd.hands[turn]):
                    # holder_ends_turn: stand is the one move left, and within one write
                    # nobody sees when it was made: stand for him, as his own command would.
                    play.actor = rnd.hands[turn]["player"]
                    moves.stand(play, turn, play.actor)
                    continue
                step = dict(decide(rnd, turn))
                action = step.pop("action")
                hand = step.get("hand", turn)
                play.actor = rnd.hands[hand]["player"] if hand in rnd.hands else rnd.dealer
                if action in IRREGULAR:
                    IRREGULAR[action](play, hand, play.actor, step.get("card"))
                else:
                    apply_action(
                        play,
                        action,
                        play.actor,
                        hand,
                        step.get("amount"),
                        step.get("index"),
                        step.get("value"),
                        step.get("called"),
                    )
            return self._after(uow, play, {})

        return self._run(
            "play_round", {"table": str(table_id), "stakes": stakes}, command_id, actor, body
        )

    def place_stake(
        self,
        round_id: str,
        player_id: str,
        amount: int,
        *,
        actor: str | None = None,
        command_id: str | None = None,
        with_round: bool = False,
    ) -> Any:
        """The result; with ``with_round``, ``(result, round)``: the round as this command
        left it (or as it is now, when the command id replays an earlier result)."""
        amount = positive_amount(amount, "a stake")
        actor = actor or str(player_id)
        if actor != str(player_id):
            raise NotPermitted("a player stakes only his own money", None)
        saved: list[Round] = []

        def body(uow: UnitOfWork) -> dict:
            play, result = self._decide(
                uow,
                round_id,
                actor,
                lambda play: {"hand": staking.place_stake(play, str(player_id), amount)},
            )
            if with_round:
                self._keep_round(uow, play.rnd, saved)
            return result

        result = self._run(
            "place_stake",
            {"round": str(round_id), "player": str(player_id), "amount": amount},
            command_id,
            actor,
            body,
        )
        return self._with_round(result, round_id, saved) if with_round else result

    def act(
        self,
        round_id: str,
        action: str,
        *,
        actor: str,
        hand: str | None = None,
        amount: int | None = None,
        index: int | None = None,
        value: int | None = None,
        called: bool | None = None,
        card: str | None = None,
        command_id: str | None = None,
        with_round: bool = False,
    ) -> Any:
        """Every decision of a round, by name: see PLAYER_ACTIONS and DEALER_ACTIONS. The
        result; with ``with_round``, ``(result, round)`` as ``place_stake`` gives them."""
        if action not in PLAYER_ACTIONS + DEALER_ACTIONS:
            raise InvalidCommand(
                f"unknown action {action!r}; one of {', '.join(PLAYER_ACTIONS + DEALER_ACTIONS)}"
            )
        needs_hand = (
            action in PLAYER_ACTIONS and action != "ace_value"
        ) or action in HAND_DEALER_ACTIONS
        if needs_hand and not hand:
            raise InvalidCommand(f"action {action} needs the hand it applies to")
        if hand is not None and not isinstance(hand, str):
            raise InvalidCommand(f"a hand is named like 'h1', got {hand!r}")
        payload = {
            "round": str(round_id),
            "action": action,
            "hand": hand,
            "amount": amount,
            "index": index,
            "value": value,
            "called": called,
            "card": card,
            "actor": actor,
        }
        saved: list[Round] = []

        def step(play: Play) -> dict:
            if action in IRREGULAR:
                return IRREGULAR[action](play, hand, actor, card)
            return apply_action(play, action, actor, hand, amount, index, value, called)

        def body(uow: UnitOfWork) -> dict:
            play, result = self._decide(uow, round_id, actor, step)
            if with_round:
                self._keep_round(uow, play.rnd, saved)
            return result

        result = self._run(action, payload, command_id, actor, body)
        return self._with_round(result, round_id, saved) if with_round else result

    def _decide(
        self, uow: UnitOfWork, round_id: str, actor: str, step: Callable[[Play], dict]
    ) -> tuple[Play, dict]:
        """One decision of ``actor`` on the round (``step``) and what follows from it, the
        round's end included, in ``uow``: a command saves it, ``allowed_actions`` does not."""
        play = self._play(uow, round_id, actor)
        if not uow.dry:
            _check_actor_is_someone(uow, play.rnd, actor)
        out = step(play)
        return play, self._after(uow, play, out)

    @staticmethod
    def _keep_round(uow: UnitOfWork, rnd: Round, saved: list[Round]) -> None:
        """Once the command is saved, keep the round as saved. The uow's object goes to the
        aggregate cache, where it is never changed again (ledger/repository.py): the caller
        may read it, and must not change it."""
        uow.after_save.append(lambda: saved.append(rnd))

    def _with_round(
        self, result: dict[str, Any], round_id: str, saved: list[Round]
    ) -> tuple[dict[str, Any], Round]:
        # Nothing kept when the command id replayed an earlier result: read the round now.
        return result, saved[-1] if saved else self.get_round(round_id)

    def _play(self, uow: UnitOfWork, round_id: str, actor: str) -> Play:
        # The acting player's wallet too: when this process has not seen the round, it is the
        # one neighbour known before the round is read.
        if not uow.dry:  # a dry run starts from its read-ahead (Choices._read_ahead)
            uow.prefetch(actor, *self._round_neighbours(round_id), whole=round_id)
        rnd = uow.round(round_id)
        if rnd.ended:
            raise WrongPhase(f"round {rnd.id} is over", None)
        rules = self._rules_of(rnd)
        books = self.round_books(uow, rnd, rules)
        # The table is loaded only when needed (a shoe replaced mid-round, the round's end):
        # RoundCards reads just its id and asks the uow for the table itself.
        table = SimpleNamespace(id=rnd.table_id)
        cards = RoundCards(self.shoes, uow, table, rnd.pone, _shoe_clause(rules.family))
        return Play(rnd, rules, cards, books, actor)

    def round_books(self, uow: UnitOfWork, rnd: Round, rules: RuleSet) -> Books:
        """A round command's books: its escrow clears, its stream records what no other
        stream guards, and the table's pool is loaded when money moves to it."""
        return Books(
            uow.player,
            rnd,
            credit=rules.credit,
            round_id=str(rnd.id),
            load_pool=lambda table_id: self._pool_table(uow, table_id),
        )

    def _round_neighbours(self, round_id: str) -> list[Any]:
        """What a command on the round may load besides it, as the cached round names them:
        its table (the round's end is recorded there) and its players' and banker's wallets."""
        cache = self.repository.cache
        try:
            rnd = cache.get(UUID(str(round_id))) if cache is not None else None
        except (KeyError, ValueError):
            return []
        return neighbours_of(rnd) if isinstance(rnd, Round) else []

    def _rules_of(self, rnd: Round) -> RuleSet:
        """The round's rules: those its table recorded at opening, copied into the round's
        Started event (a table's rules never change)."""
        return self._remembered_rules(str(rnd.id), lambda: rules_from_record(rnd.rules_record))

    def _after(self, uow: UnitOfWork, play: Play, out: dict) -> dict:
        if play.rnd.ended:
            round_start.finish_round(self, uow, play)
        return {"round_id": str(play.rnd.id), "phase": play.rnd.phase, **out}


def neighbours_of(rnd: Round) -> list[Any]:
    """What a command on ``rnd`` may load besides it: its table (the round's end is recorded
    there) and its players' and banker's wallets."""
    return [rnd.table_id, rnd.dealer, *(hand["player"] for hand in rnd.hands.values())]


def _shoe_clause(family: str) -> str:
    return {"vingt-un": "VU-29", "hoyle-1913": "H13-1", "ochko": "OC-12", "casino": "CB-X-SHOE"}[
        family
    ]


# Who may give a round's commands without a hand or the deal: an operator, the rules.
_OFFICIALS = (ADMIN, "ledger")


def _check_actor_is_someone(uow: UnitOfWork, rnd: Round, actor: str) -> None:
    """An actor with no part in the round hears the clause that keeps him out of it (403),
    unless he is no one at all: an admin acting for a name that is no player's is told so
    (404 ``UnknownPlayer``), not that the player has no hand."""
    if actor in _OFFICIALS or actor == rnd.dealer or rnd.hands_of(actor):
        return
    uow.player(actor)
