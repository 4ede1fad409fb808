"""``python -m ledger``: see ``ledger.cli``."""

from ledger.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
