"""Opening and closing a round at its table: who deals and who plays, which shoe (a fresh
one, committed and cut, when the old is spent), and whether the deal passes afterwards."""

from __future__ import annotations

from typing import Any

from ledger.domain.round import Round
from ledger.domain.table import Table
from ledger.errors import InvalidCommand, NotPermitted, RuleViolation, WrongPhase
from ledger.games import opening
from ledger.games.play import Play
from ledger.shoes import RETIRED_BEFORE_ROUND, RoundCards
from ledger.unit_of_work import UnitOfWork

CHOOSE_CLAUSE = {"vingt-un": "VU-2", "hoyle-1913": "H13-4", "ochko": "OC-2", "casino": "CB-1"}
CUT_CLAUSE = {"vingt-un": "VU-3", "hoyle-1913": "H13-4", "ochko": "OC-2", "casino": "CB-X-SHOE"}
EXHAUSTED_CLAUSE = {
    "vingt-un": "VU-29",
    "hoyle-1913": "H13-1",
    "ochko": "OC-12",
    "casino": "CB-X-SHOE",
}

# VU-29: how many shoes a deal goes through when it is limited by the pack (a ``two_packs``
# table's shoe is both packs shuffled together), and what its passing records.
PACKS_PER_DEAL = {"pack_twice": 2, "two_packs": 1}
PACKS_GONE = {
    "pack_twice": "the pack is gone through twice",
    "two_packs": "the two packs are gone through",
}


def _check_cut(cut: int | None, packs: int) -> None:
    """A cut names a place in a full shoe of the table's packs, whether or not this round
    starts one: the answer to a bad cut never depends on the shoe in use. (A shoe of used
    cards, VU-29, is smaller: a cut beyond it is refused when that shoe is cut.)"""
    if cut is not None and not 0 <= cut < 52 * packs:
        raise InvalidCommand(
            f"cut must be 0 to {52 * packs - 1} (a place in the table's shoe of {packs} "
            f"pack{'s' if packs > 1 else ''}), got {cut}"
        )


def start_round(app: Any, uow: UnitOfWork, table_id: str, actor: str, cut: int | None) -> Play:
    table = uow.table(table_id)
    table.check_open()
    rules, family = table.rules, table.family
    clause = CHOOSE_CLAUSE[family]
    _check_cut(cut, rules.packs)
    if not rules.house_banked:
        # Who may start it is told before whether he may now: a key that may never start a
        # round here hears so, not that one is in play.
        if table.dealer is None:
            raise RuleViolation("choose a dealer before the first round", clause)
        if actor not in ("admin", "ledger", table.dealer):
            raise NotPermitted("only the dealer (or an admin) starts the round", clause)
        if cut is not None and actor == table.dealer:
            raise NotPermitted(
                "the dealer shuffles and the player on his right cuts: an admin enters that "
                "player's cut, or the ledger cuts at random for him",
                CUT_CLAUSE[family],
            )
    if table.current_round is not None:
        raise WrongPhase(f"round {table.current_round} is still in play at this table", clause)
    if rules.house_banked:
        dealer = "house"
        players = table.seated_in_order(None)
    else:
        if family == "ochko" and _talia_played_out(table):
            # A player sat down since the last round closed, and the talia its banker dealt
            # from no longer holds a round for everyone seated: it is played out (OC-12).
            _pass_deal(table, "OC-12", "the two packs are played out")
        dealer = table.dealer
        players = [sp for sp in table.seated_in_order(table.proper_dealer) if sp[1] != dealer]
    if not players:
        raise RuleViolation("nobody is seated to play against the dealer", clause)
    cap = getattr(rules, "bank_cap", None)
    if cap is not None and len(players) * rules.min_stake > cap:
        # Every punter dealt in must stake before the deal; a bank that cannot take their
        # least stakes would hold the round in betting for good.
        raise RuleViolation(
            f"the bank caps the stakes at {cap}: it cannot take the least stake "
            f"({rules.min_stake}) of {len(players)} punters; a punter must leave his seat",
            "OC-3",
        )
    pone = players[-1][1]  # the player on the dealer's right (VU-3, VU-12)
    fresh = _ensure_shoe(app, uow, table, len(players), pone, cut, actor)
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
        # Counted by the table since the dealer was chosen or the deal passed (a sale
        # continues the deal: ledger.games.vingt_un.begin).
        round_of_deal=table.rounds_this_deal + 1,
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
    if fresh:
        play.cards.burn(rnd, uow.shoe(table.shoe_id))
    opening.begin(play)
    return play


def _ensure_shoe(
    app: Any,
    uow: UnitOfWork,
    table: Table,
    players: int,
    cutter: str,
    cut: int | None,
    actor: str,
) -> bool:
    rules = table.rules
    if table.shoe_id is not None:
        dealt, size = table.shoe_next, table.shoe_size
        if table.shoe_restock:  # the used cards of the last round: gathered up again
            spent = True
        elif rules.house_banked:
            spent = dealt * 100 >= size * rules.penetration
        else:
            spent = _too_few_left(table) or table.shoe_dealer != table.dealer
        if not spent:
            return False
        app.shoes.retire(uow.shoe(table.shoe_id), dealt, RETIRED_BEFORE_ROUND)
    uow.add(app.shoes.new_shoe(table, cutter, CUT_CLAUSE[table.family], uow, cut, chooser=actor))
    return True


def finish_round(app: Any, uow: UnitOfWork, play: Play) -> None:
    rnd = play.rnd
    table = uow.table(rnd.table_id)
    table.trigger_event(
        Table.RoundClosed, round_id=rnd.id, shoe_id=rnd.shoe_id, shoe_next=rnd.shoe_next
    )
    if play.rules.house_banked:
        return
    # The deal's pack is gone through: it ran out in this round, or too few cards are left
    # for another (the next round would start a new shoe).
    spent = rnd.shoe_id != rnd.start_shoe or _too_few_left(table)
    rules = play.rules
    if rnd.passes_deal:
        _pass_deal(table, rnd.passes_deal, "the book passes the deal")
    elif table.family == "ochko" and spent:
        _pass_deal(table, "OC-12", "the two packs are played out")
    elif table.family == "vingt-un":
        packs = PACKS_PER_DEAL.get(rules.deal_limit)  # None: the deal is not limited by them
        if rules.deal_limit == "hands" and table.rounds_this_deal >= rules.deal_hands:
            _pass_deal(table, "VU-29", f"{rules.deal_hands} hands dealt")
        elif packs is not None and spent and table.shoes_this_deal >= packs:
            _pass_deal(table, "VU-29", PACKS_GONE[rules.deal_limit])


def _too_few_left(table: Table) -> bool:
    """Not enough cards for another round: the talia is over (the same test that retires a
    shoe before a round, in ``_ensure_shoe``)."""
    return table.shoe_size - table.shoe_next < len(table.seats) * 3


def _talia_played_out(table: Table) -> bool:
    """The shoe in use was dealt by the banker who holds the bank now, and is too short for
    another round (a round's end passes the bank on the same test, ``finish_round``)."""
    return table.shoe_id is not None and table.shoe_dealer == table.dealer and _too_few_left(table)


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
