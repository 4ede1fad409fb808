"""The resources of the API, one blueprint each; ``create_app`` registers ``BLUEPRINTS``.

Request schemas are given to ``blp.arguments`` as instances: given a class, webargs builds a
new schema on every request (a few per cent of an action's time). They hold no state between
loads, so one instance serves every request and thread."""

from api.resources import accounts, deal_sales, events, me, players, rounds, tables

BLUEPRINTS = [me.blp, players.blp, tables.blp, deal_sales.blp, rounds.blp, events.blp, accounts.blp]
