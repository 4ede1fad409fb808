"""Account names. Every movement of money is a transfer between two of these, so summing
the balances of all accounts always gives zero.

- ``player:<id>``  a player's wallet (the banker in Vingt-un, Hoyle and Очко is a player)
- ``house:<table>`` the casino's bank at one table (CB)
- ``pool:<table>``  a Vingt-un table's pool (VU-27/28)
- ``escrow:<round>`` stakes and bank cover held while a round is open
- ``deal-sale:<table>`` the clearing account through which a deal is sold (VU-31)
- ``pool-payout:<table>`` the clearing account through which the pool pays a player (VU-28)
- ``cashier``       the world outside: buy-ins come from it, cash-outs go to it
"""

from __future__ import annotations

from functools import lru_cache
from uuid import UUID

CASHIER = "cashier"
# The most one amount may be, in minor units: a deposit, a stake, a price, a table's limit or
# any other money option. Far above any table's stakes, and it keeps every sum the books make
# of a few such amounts within 64 bits (the stores' and the hash chain's integers).
MAX_AMOUNT = 10**12


def player(player_id: UUID | str) -> str:
    return f"player:{player_id}"


def house(table_id: UUID | str) -> str:
    return f"house:{table_id}"


def pool(table_id: UUID | str) -> str:
    return f"pool:{table_id}"


def escrow(round_id: UUID | str) -> str:
    return f"escrow:{round_id}"


def deal_sale(table_id: UUID | str) -> str:
    return f"deal-sale:{table_id}"


def pool_payout(table_id: UUID | str) -> str:
    return f"pool-payout:{table_id}"


def wallet_owner(account: str) -> UUID | None:
    """The player whose wallet this is, or None for every other kind of account."""
    return _owner(account, "player:")


def pool_owner(account: str) -> UUID | None:
    """The table whose pool this is, or None for every other kind of account."""
    return _owner(account, "pool:")


def escrow_owner(account: str) -> str | None:
    """The round whose escrow this is, its id as the account spells it, or None for every
    other kind of account. Not parsed into a UUID: ``replay verify`` keys rounds by the id as
    the events write it, and reads stores whose account names may be damaged."""
    if account.startswith("escrow:"):
        return account[len("escrow:") :]
    return None


@lru_cache(maxsize=4096)  # a command asks about the same few accounts many times
def _owner(account: str, prefix: str) -> UUID | None:
    if account.startswith(prefix):
        return UUID(account[len(prefix) :])
    return None
