"""Tables between rounds: opening and closing them, seats, and the choice of the dealer."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ledger.cards import pip_value
from ledger.domain.table import Table
from ledger.errors import InvalidCommand, NotPermitted, RuleViolation, WrongPhase
from ledger.rules import rules_for
from ledger.shoes import RETIRED_CUT_FOR_DEAL, RETIRED_CUT_REPLACED, RETIRED_TABLE_CLOSED
from ledger.text import check_text
from ledger.unit_of_work import UnitOfWork
from ledger.use_cases.inputs import ADMIN


class Tables:
    """A part of ``TwentyOneLedger`` (ledger/application.py), which supplies ``_run``."""

    def open_table(
        self,
        family: str,
        options: dict[str, Any] | None = None,
        *,
        name: str = "",
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        check_text(name, "a table's name", max_length=100, visible=name != "")
        rules = rules_for(family, options)

        def body(uow: UnitOfWork) -> dict:
            table = uow.add(Table.open(name=name or family, rules=rules, actor=actor))
            return {"table_id": str(table.id), "rules": table.rules_record}

        return self._run(
            "open_table",
            {"family": family, "options": options or {}, "name": name},
            command_id,
            actor,
            body,
        )

    def seat_player(
        self,
        table_id: str,
        player_id: str,
        seat: int,
        *,
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise InvalidCommand(f"a seat is a whole number, got {seat!r}")

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            player = uow.player(player_id)
            table.seat(str(player.id), seat, actor)
            return {"table_id": str(table.id), "seat": seat, "player_id": str(player.id)}

        return self._run(
            "seat_player",
            {"table": str(table_id), "player": str(player_id), "seat": seat},
            command_id,
            actor,
            body,
        )

    def unseat_player(
        self, table_id: str, seat: int, *, actor: str = ADMIN, command_id: str | None = None
    ) -> dict:
        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            player_id = table.unseat(seat, actor)
            return {"table_id": str(table.id), "seat": seat, "player_id": player_id}

        return self._run(
            "unseat_player", {"table": str(table_id), "seat": seat}, command_id, actor, body
        )

    def choose_dealer(
        self,
        table_id: str,
        player_id: str | None = None,
        *,
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        """VU-2 (and the private games generally): the dealer is chosen before play."""

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            table.check_open()  # before a cut for the deal commits a shoe
            rules = table.rules
            clause = {"vingt-un": "VU-2", "hoyle-1913": "H13-4", "ochko": "OC-2"}.get(table.family)
            if clause is None:
                raise RuleViolation("in casino Blackjack the house deals", "CB-9")
            if table.current_round is not None:
                raise WrongPhase("the dealer is chosen between rounds", clause)
            if player_id is None:
                if getattr(rules, "dealer_choice", "seat") == "named":
                    raise InvalidCommand("this table names its dealer: give player_id", clause)
                if not table.seats:
                    raise RuleViolation("nobody is seated to deal", clause)
                if getattr(rules, "dealer_choice", "seat") == "cut":
                    chosen, method = self._cut_for_deal(uow, table, actor), "cut"
                else:
                    chosen, method = table.seated_in_order(None)[0][1], "seat"
            else:
                chosen, method = str(uow.player(player_id).id), "named"
                if table.seat_of(chosen) is None:
                    raise NotPermitted(f"player {chosen} is not seated at this table", clause)
            table.trigger_event(
                Table.DealerChosen, player_id=chosen, method=method, clause=clause, actor=actor
            )
            return {"table_id": str(table.id), "dealer": chosen, "method": method}

        return self._run(
            "choose_dealer",
            {"table": str(table_id), "player": str(player_id)},
            command_id,
            actor,
            body,
        )

    def close_table(
        self, table_id: str, *, actor: str = ADMIN, command_id: str | None = None
    ) -> dict:
        """Close a table between rounds; its shoe is retired and its seed revealed."""

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            table.close(actor)
            if table.shoe_id is not None:
                self.shoes.retire(uow.shoe(table.shoe_id), table.shoe_next, RETIRED_TABLE_CLOSED)
            return {"table_id": str(table.id), "closed": True}

        return self._run("close_table", {"table": str(table_id)}, command_id, actor, body)

    def _cut_for_deal(self, uow: UnitOfWork, table: Table, actor: str) -> str:
        """VU-2 by cut: each seated player cuts one card from a freshly committed shoe, in
        seat order; the lowest card deals (ace low), the earlier seat on equal cards. The
        shoe in use is retired first: the cut's shoe takes its place at the table, and a
        replaced shoe is revealed (SHUFFLE.md)."""
        if table.shoe_id is not None:
            self.shoes.retire(uow.shoe(table.shoe_id), table.shoe_next, RETIRED_CUT_REPLACED)
        shoe = uow.add(self.shoes.new_shoe(table, actor, "VU-2", uow))
        order = self.shoes.order(shoe)
        cuts = []
        for index, (seat, player) in enumerate(table.seated_in_order(None)):
            card = order[index]
            table.trigger_event(
                Table.CutForDeal,
                player_id=player,
                card=card,
                shoe=shoe.id,
                shoe_index=index,
                clause="VU-2",
            )
            cuts.append((pip_value(card), "A23456789TJQK".index(card[0]), seat, player))
        self.shoes.retire(shoe, len(cuts), RETIRED_CUT_FOR_DEAL)
        return min(cuts)[3]

    def fix_next_shoe(self, table_id: str, order: list[str]) -> None:
        """For tests and demonstrations only (refused unless LEDGER_ALLOW_FIXED_SHOES)."""
        self.shoes.queue_fixed(UUID(str(table_id)), order)
