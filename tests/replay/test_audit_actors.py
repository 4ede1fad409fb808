"""Every event the round's audit lists names its actor (README: "every event … with UTC time,
actor and cards"), in every family: the actor the event records; a shoe's cut the player whose
cut it is (``by``) and its reveal who retired it; ``ledger`` for an event the ledger writes by
the rules of play, which records none (a phase, a hand opened, a card burned or shown, a
settlement, a transfer, the bank's cover, a hold, the round's end). (A player's own audit:
tests/api/test_audit_player_view.py.)"""

from __future__ import annotations

from replay_history import play_history, round_ids

from replay.audit import audit_of, read_round
from replay.audit_events import BY_THE_RULES, LEDGER


def _listed(report: dict) -> list[dict]:
    """Every event entry of the audit: the round's, its transfers, its shoes'."""
    shoes = [e for shoe in report["shoes"] for e in shoe["events"]]
    return [*report["events"], *report["round_transfers"], *shoes]


def test_every_event_of_every_familys_audit_names_its_actor(app):
    play_history(app, rounds=3)
    types_by_the_rules: set[str] = set()
    for rid in round_ids(app):
        report = audit_of(app, *read_round(app, rid))
        for entry in _listed(report):
            data, kind = entry["data"], entry["type"]
            assert isinstance(entry.get("actor"), str) and entry["actor"], entry
            if "actor" in data:
                assert entry["actor"] == data["actor"], entry
            elif kind == "Cut":
                assert entry["actor"] == data["by"], entry
            elif kind == "Revealed":
                (shoe,) = [s for s in report["shoes"] if s["shoe_id"] == entry["stream"]]
                assert entry["actor"] == shoe["recorded"]["revealed"]["actor"], entry
            else:
                assert kind in BY_THE_RULES and entry["actor"] == LEDGER, entry
                types_by_the_rules.add(kind)
    # The events the review found without an actor are among them.
    assert {
        "HandSettled",
        "HandOpened",
        "PhaseEntered",
        "Ended",
        "CardBurned",
        "CardsShown",
        "FundsTransferred",
        "BankCovered",
        "HoldAdjusted",
    } <= types_by_the_rules
