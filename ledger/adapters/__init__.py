"""Stores eventsourcing loads by name (``PERSISTENCE_MODULE``), never imported by the rest of
the ledger: the one place under ``ledger/`` that may import a database driver, so importing
the domain and the application never pulls one in (``tests/unit/test_import_boundaries.py``)."""
