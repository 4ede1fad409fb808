"""``/v1/accounts``: any account's bankroll (the house, a pool, an escrow, the cashier), for
admins and auditors; a player reads his own wallet at ``/v1/players/{id}/bankroll``."""

from __future__ import annotations

from api import read_models
from api.auth import require
from api.body import Blueprint
from api.schemas.history import AccountSchema, MovementArgsSchema
from ledger.errors import NotFound
from replay.projections import queries

blp = Blueprint("accounts", __name__, url_prefix="/v1/accounts", description="Every account")

KINDS = ("player:", "house:", "pool:", "escrow:", "deal-sale:", "pool-payout:")


@blp.route("/<string:account>")
@require("admin", "auditor")
@blp.arguments(MovementArgsSchema(), location="query")
@blp.response(200, AccountSchema)
def account(args, account):
    """Balance, stakes held in open rounds and the movements of an account named as the
    ledger names it: ``cashier``, ``player:<id>``, ``house:<table>``, ``pool:<table>``,
    ``escrow:<round>``, ``deal-sale:<table>`` or ``pool-payout:<table>``. Every account's
    balances sum to zero."""
    if account != "cashier" and not account.startswith(KINDS):
        raise NotFound(
            f"{account!r} is not an account name (cashier, player:, house:, pool:, escrow:, "
            "deal-sale:, pool-payout:)"
        )
    db, reached = read_models.views(args.get("position"))
    found = queries.account(db, account, args["after"], args["limit"])
    if found is None:
        raise NotFound(f"no transfer has touched account {account!r}")
    return {**found, "projected_to": reached}
