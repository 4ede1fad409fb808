"""``flask --app api keys …``: issue, list and revoke API keys from the server's shell.

Keys are made here, not over HTTP, so the first admin key needs no key to exist; a secret is
printed once, at creation, and never again (the store keeps only a hash-derived id).
"""

from __future__ import annotations

import click
from flask import Flask, current_app
from flask.cli import AppGroup

from api.store import ROLES
from ledger.errors import LedgerError

keys = AppGroup("keys", help="Issue, list and revoke API keys.")


def _check_player(player_id: str | None) -> None:
    """A key for a player who does not exist would fail on every request: refuse it now."""
    if player_id:
        current_app.extensions["ledger"].get_player(player_id)


@keys.command("create")
@click.option("--role", type=click.Choice(ROLES), required=True)
@click.option("--player", "player_id", default=None, help="the player the key acts as")
@click.option("--label", default="", help="a note saying whose key this is")
def create(role: str, player_id: str | None, label: str) -> None:
    """Issue a key and print its secret (shown only this once)."""
    try:
        _check_player(player_id)
        secret, key = current_app.extensions["api_store"].create_key(role, player_id, label)
    except LedgerError as error:
        raise click.ClickException(error.message) from None
    click.echo(f"key {key.id} role={role}" + (f" player={player_id}" if player_id else ""))
    click.echo(f"secret (shown once): {secret}")


@keys.command("list")
def list_keys() -> None:
    """Every key with its role and state; never a secret."""
    for key in current_app.extensions["api_store"].list_keys():
        state = "revoked" if key.revoked else "active"
        player = key.player_id or "-"
        click.echo(
            f"{key.id}\t{key.role}\t{player}\t{state}\t{key.created_on:%Y-%m-%dT%H:%M:%SZ}"
            f"\t{key.label}"
        )


@keys.command("revoke")
@click.argument("key_id")
def revoke(key_id: str) -> None:
    """Revoke a key; requests with it get 401 within API_KEY_CACHE_SECONDS (2 by default),
    the time a server process keeps a key it read, and its open event streams end."""
    try:
        key = current_app.extensions["api_store"].revoke(key_id)
    except LedgerError as error:
        raise click.ClickException(error.message) from None
    click.echo(f"revoked {key.id}")


def ensure_admin_key(app: Flask) -> str | None:
    """On first start, issue an admin key and return its secret; None when one exists."""
    store = app.extensions["api_store"]
    if store.any_admin_key():
        return None
    secret, _ = store.create_key("admin", label="first admin (created at start-up)")
    return secret


def init_app(app: Flask) -> None:
    app.cli.add_command(keys)
