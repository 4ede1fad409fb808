"""The audit trail (``replay.projections.audit_trail``, ``GET /v1/rounds/{id}/trail``) names
each event's actor as the round's audit does, by the audit's own rule
(``replay.audit_events.actor_of``): the actor the event records, else ``ledger`` for an event
the ledger writes by the rules of play. The same for each wallet's ``round_movements`` in the
audit, which are the trail's ``Player.FundsTransferred``. (Over HTTP, and a player's trail:
tests/api/test_trail_actors_http.py.)"""

from __future__ import annotations

from test_projections import FAMILIES

from replay.audit import audit_of, read_round
from replay.audit_events import BY_THE_RULES, LEDGER
from replay.event_schemas import event_classes
from replay.projections import queries as q
from replay.projections.audit_trail import AuditTrail


def audit_actors(report: dict) -> dict[tuple[str, int], object]:
    """(stream, version) → actor of every event of the round's audit that the trail holds:
    the round's own, its transfers (a pool's, in the table's stream) and each wallet's
    movements for the round (in the player's stream)."""
    actors = {(e["stream"], e["version"]): e["actor"] for e in report["events"]}
    actors |= {(t["stream"], t["version"]): t["actor"] for t in report["round_transfers"]}
    for balance in report["balances"]:
        for m in balance["round_movements"]:
            actors[(balance["player"], m["version"])] = m["actor"]
    return actors


def test_the_trail_names_each_events_actor_as_the_audit_does_in_every_family(projected):
    app, proj, _ = projected
    families, by_the_rules, recorded = set(), set(), 0
    rounds = [rid for (rid,) in proj.views.read("SELECT round_id FROM view_audit_trail")]
    for rid in rounds:
        report = audit_of(app, *read_round(app, rid))
        trail = q.round_trail(proj.views, rid)
        actors = {(e["stream"], e["version"]): e["actor"] for e in trail}
        assert len(actors) == len(trail)
        assert actors == audit_actors(report), rid
        for e in trail:
            assert isinstance(e["actor"], str) and e["actor"], e
            if "actor" in e["data"]:
                assert e["actor"] == e["data"]["actor"], e
                recorded += 1
            else:
                assert e["type"].split(".")[1] in BY_THE_RULES and e["actor"] == LEDGER, e
                by_the_rules.add(e["type"])
        families.add(report["family"])
    assert families == set(FAMILIES)
    assert recorded, "events that record their actor"
    assert {
        "Round.PhaseEntered",
        "Round.HandSettled",
        "Round.Ended",
        "Player.FundsTransferred",
        "Table.FundsTransferred",  # a Vingt-un pool's
    } <= by_the_rules


def test_no_event_the_trail_holds_is_left_without_an_actor():
    """Each type the trail holds records its actor or is one the ledger writes by the rules:
    a new event type that is neither must be placed on one side (the trail's ``actor`` is
    never null, as the audit's is null only in a player's view)."""
    classes = event_classes()
    held = set(AuditTrail().handlers()) & set(classes)
    assert "Round.CardDealt" in held and "Player.FundsTransferred" in held
    for name in held:
        fields = {k for c in classes[name].__mro__ for k in getattr(c, "__annotations__", {})}
        assert ("actor" in fields) != (name.split(".")[1] in BY_THE_RULES), name
