"""The upgrade that reveals shoes retired without a reveal (``python -m ledger reveal-retired``)."""

from __future__ import annotations

from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.utils import get_topic

from ledger.domain.shoe import Shoe
from ledger.domain.table import Table
from ledger.errors import ConcurrentUpdate
from ledger.unit_of_work import UnitOfWork
from ledger.use_cases.inputs import ADMIN

UPGRADE_REASON = "retired before the ledger revealed it (upgrade)"


class RetiredShoes:
    """A part of ``TwentyOneLedger`` (ledger/application.py), which supplies ``_run``."""

    def reveal_retired(self) -> dict[str, list]:
        """Reveal, from the vault, every shoe a table's stream retired (another shoe replaced
        it, or it was in use when the table closed) that has no reveal: before 7ce9108 a cut
        for the deal replaced the shoe in use without revealing it. Returns the shoes revealed
        and, apart, those whose seed the vault does not hold; run again, it finds nothing."""
        from ledger.balances import notifications

        changed, closed = get_topic(Table.ShoeChanged), get_topic(Table.Closed)
        revealed_topic = get_topic(Shoe.Revealed)
        in_use: dict[UUID, UUID] = {}  # table -> its shoe
        retired: dict[UUID, tuple[UUID, int]] = {}  # shoe -> (its table, the version before)
        revealed: set[UUID] = set()
        for n in notifications(self, [changed, closed, revealed_topic]):
            if n.topic == revealed_topic:
                revealed.add(n.originator_id)
                continue
            table_id, before = n.originator_id, n.originator_version - 1
            previous = in_use.get(table_id)
            if n.topic == closed:
                if previous is not None:
                    retired.setdefault(previous, (table_id, before))
                continue
            shoe_id = self.mapper.to_domain_event(n).shoe_id
            if previous is not None and previous != shoe_id:
                retired.setdefault(previous, (table_id, before))
            in_use[table_id] = shoe_id
        out: dict[str, list] = {"revealed": [], "seed_missing": []}
        for shoe_id, (table_id, before) in retired.items():
            if shoe_id in revealed:
                continue
            try:
                self.shoes.vault.open(shoe_id)
            except AggregateNotFoundError:
                out["seed_missing"].append(str(shoe_id))
                continue
            # The table's count of cards drawn from the shoe, as it stood just before the
            # event that retired it: what the reveal would have recorded then.
            dealt = self.get_table(table_id, before).shoe_next

            def body(uow: UnitOfWork, shoe_id: UUID = shoe_id, dealt: int = dealt) -> dict:
                shoe = uow.shoe(shoe_id)
                if shoe.revealed:  # another run revealed it meanwhile
                    return {"revealed": False}
                self.shoes.retire(shoe, dealt, UPGRADE_REASON)
                return {"revealed": True}

            for _ in range(3):  # another run wrote the shoe meanwhile: load it again
                try:
                    done = self._run("reveal_retired", {"shoe": str(shoe_id)}, None, ADMIN, body)
                    break
                except ConcurrentUpdate:
                    continue
            else:
                raise ConcurrentUpdate(f"shoe {shoe_id} kept changing; run reveal-retired again")
            if done["revealed"]:
                out["revealed"].append(str(shoe_id))
        return out
