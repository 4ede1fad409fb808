"""The resources of the API, one blueprint each; ``create_app`` registers ``BLUEPRINTS``."""

from api.resources import accounts, events, players, rounds, tables

BLUEPRINTS = [players.blp, tables.blp, rounds.blp, events.blp, accounts.blp]
