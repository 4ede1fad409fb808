"""``LedgerProcessingEvent`` (ledger/unit_of_work.py) collects what one save writes without
eventsourcing's runtime protocol checks, and exactly as the library would: the same events in
the same order, the same aggregates, the same keyword arguments."""

from __future__ import annotations

from eventsourcing.application import ProcessingEvent

from ledger.domain.player import Player
from ledger.unit_of_work import LedgerProcessingEvent


def objects():
    ann, bob, cal = (Player.register(name=n, actor="admin") for n in ("Ann", "Bob", "Cal"))
    (cal_registered,) = cal.collect_events()  # a bare event, as the library also accepts
    return [ann, cal_registered, None, bob]


def collected(kind):
    objs = objects()
    processing = kind()
    processing.collect_events(*objs, tag="x")
    return objs, processing


def test_events_aggregates_and_arguments_are_what_the_library_collects():
    objs, ours = collected(LedgerProcessingEvent)
    ann, cal_registered, _, bob = objs
    assert [type(e).__qualname__ for e in ours.events] == ["Player.Registered"] * 3
    assert [e.originator_id for e in ours.events] == [ann.id, cal_registered.originator_id, bob.id]
    assert list(ours.aggregates) == [ann.id, bob.id]
    assert ours.saved_kwargs == {"tag": "x"}
    assert ann.pending_events == [] and bob.pending_events == []

    _, theirs = collected(ProcessingEvent)
    shape = lambda p: (  # noqa: E731
        [(type(e), e.originator_version, e.name) for e in p.events],
        [type(a) for a in p.aggregates.values()],
        p.saved_kwargs,
    )
    assert shape(ours) == shape(theirs)
