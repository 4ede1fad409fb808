"""The ledger's use cases, grouped by what they act on: the bankroll, tables, rounds, the
pool and the deal. Each group is a mixin of ``TwentyOneLedger`` (ledger/application.py), the one
eventsourcing ``Application``, which supplies the command plumbing they all use (``_run``: one
atomic write per command, its retry and its idempotency; ledger/command_runner.py)."""
