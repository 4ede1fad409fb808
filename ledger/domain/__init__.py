"""Aggregates and their events: tables, rounds, shoes and wallets."""
