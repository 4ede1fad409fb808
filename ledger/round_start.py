"""Opening and closing a round at its table: who deals and who plays, which shoe (a fresh
one, committed and cut, when the old is spent), and whether the deal passes afterwards."""

from __future__ import annotations

from typing import Any

from ledger.domain.round import Round
from ledger.domain.table import Table
from ledger.errors import NotPermitted, RuleViolation, WrongPhase
from ledger.games import flow
from ledger.games.play import Play
from ledger.shoes import RoundCards
from ledger.unit_of_work import UnitOfWork

CHOOSE_CLAUSE = {"vingt-un": "VU-2", "hoyle-1913": "H13-4", "ochko": "OC-2", "casino": "CB-1"}
CUT_CLAUSE = {"vingt-un": "VU-3", "hoyle-1913": "H13-4", "ochko": "OC-2", "casino": "CB-X-SHOE"}
EXHAUSTED_CLAUSE = {
    "vingt-un": "VU-29",
    "hoyle-1913": "H13-1",
    "ochko": "OC-12",
    "casino": "CB-X-SHOE",
}


def start_round(app: Any, uow: UnitOfWork, table_id: str, actor: str, cut: int | None) -> Play:
    table = uow.table(table_id)
    table.check_open()
    rules, family = table.rules, table.family
    clause = CHOOSE_CLAUSE[family]
    if table.current_round is not None:
        raise WrongPhase(f"round {table.current_round} is still in play at this table", clause)
    if rules.house_banked:
        dealer = "house"
        players = table.seated_in_order(None)
    else:
        if table.dealer is None:
            raise RuleViolation("choose a dealer before the first round", clause)
        if actor not in ("admin", "ledger", table.dealer):
            raise NotPermitted("only the dealer (or an admin) starts the round", clause)
        dealer = table.dealer
        players = [sp for sp in table.seated_in_order(table.proper_dealer) if sp[1] != dealer]
    if not players:
        raise RuleViolation("nobody is seated to play against the dealer", clause)
    pone = players[-1][1]  # the player on the dealer's right (VU-3, VU-12)
    fresh = _ensure_shoe(app, uow, table, len(players), pone, cut)
    rnd = Round.start(
        table_id=table.id,
        number=table.rounds + 1,
        rules=table.rules_record,
        dealer=dealer,
        seats=[[seat, pid] for seat, pid in players],
        pone=pone,
        shoe_id=table.shoe_id,
        shoe_next=table.shoe_next,
        actor=actor,
        clause=clause,
    )
    uow.add(rnd)
    table.trigger_event(Table.RoundOpened, round_id=rnd.id, number=rnd.number)
    play = Play(
        rnd,
        rules,
        RoundCards(app.shoes, uow, table, pone, EXHAUSTED_CLAUSE[family]),
        app.round_books(uow, rnd, rules),
        actor,
    )
    if fresh and rules.house_banked and not uow.shoe(table.shoe_id).fixed:
        for _ in range(rules.burn):
            card, shoe, index = play.cards.next_card(rnd)
            rnd.trigger_event(
                Round.CardBurned, card=card, shoe=shoe, shoe_index=index, clause="CB-X-SHOE"
            )
    flow.begin(play)
    return play


def _ensure_shoe(
    app: Any, uow: UnitOfWork, table: Table, players: int, cutter: str, cut: int | None
) -> bool:
    rules = table.rules
    if table.shoe_id is not None:
        dealt, size = table.shoe_next, table.shoe_size
        if rules.house_banked:
            spent = dealt * 100 >= size * rules.penetration
        else:
            spent = _too_few_left(table) or table.shoe_dealer != table.dealer
        if not spent:
            return False
        app.shoes.retire(uow.shoe(table.shoe_id), dealt, "shoe retired before a round")
    uow.add(app.shoes.new_shoe(table, cutter, CUT_CLAUSE[table.family], uow, cut))
    return True


def finish_round(app: Any, uow: UnitOfWork, play: Play) -> None:
    rnd = play.rnd
    table = uow.table(rnd.table_id)
    table.trigger_event(
        Table.RoundClosed, round_id=rnd.id, shoe_id=rnd.shoe_id, shoe_next=rnd.shoe_next
    )
    if play.rules.house_banked:
        return
    exhausted = rnd.shoe_id != rnd.start_shoe
    rules = play.rules
    if rnd.passes_deal:
        _pass_deal(table, rnd.passes_deal, "the book passes the deal")
    elif table.family == "ochko" and (exhausted or _too_few_left(table)):
        _pass_deal(table, "OC-12", "the two packs are played out")
    elif table.family == "vingt-un":
        if rules.deal_limit == "hands" and table.rounds_this_deal >= rules.deal_hands:
            _pass_deal(table, "VU-29", f"{rules.deal_hands} hands dealt")
        elif exhausted and (
            rules.deal_limit == "two_packs"
            or (rules.deal_limit == "pack_twice" and table.shoes_this_deal >= 2)
        ):
            _pass_deal(table, "VU-29", "the pack is gone through")


def _too_few_left(table: Table) -> bool:
    """Not enough cards for another round: the talia is over (the same test that retires a
    shoe before a round, in ``_ensure_shoe``)."""
    return table.shoe_size - table.shoe_next < len(table.seats) * 3


def _pass_deal(table: Table, clause: str, reason: str) -> None:
    """VU-30/H13-4/OC-12: the deal passes left; after a sale it reverts (VU-31)."""
    if table.proper_dealer is None:
        return
    successor = table.player_left_of(table.proper_dealer)
    table.trigger_event(
        Table.DealPassed,
        from_player=table.dealer,
        to_player=successor,
        clause=clause,
        reason=reason,
    )
