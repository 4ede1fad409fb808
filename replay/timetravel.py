"""``python -m replay round ID [--at N]`` and ``table ID --at TIME``: an aggregate as it stood
after its N-th event, or at a moment, folded from the stored events (nothing is written)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from ledger.domain.chain import plain
from ledger.domain.round import Round
from replay import log_positions
from replay.audit_shoe import committed_before_deal
from replay.checked_reads import StreamEvents, fold, latest_version, locator, read_stream
from replay.damage import StoreDamaged, decode, reported
from replay.store import not_a, stream_kind


class NotFound(LookupError):
    pass


class BadRequest(ValueError):
    """A request that cannot name anything (``--at 0``): bad usage, exit 2."""


def state_of(aggregate: Any) -> dict[str, Any]:
    """An aggregate's state as JSON-ready data: its id, version, time and public fields."""
    out: dict[str, Any] = {
        "id": str(aggregate.id),
        "version": aggregate.version,
        "modified_on": aggregate.modified_on.isoformat(),
    }
    for key, value in vars(aggregate).items():
        if not key.startswith("_"):
            out[key] = plain(value)
    return out


# The largest version a stream may hold: a 64-bit integer in SQLite and PostgreSQL alike.
MAX_VERSION = 2**63 - 1


def parse_time(text: str) -> datetime:
    """ISO 8601; a time without an offset is taken as UTC, and a trailing Z is accepted.
    Raises ``ValueError`` saying what is wrong with ``text`` (no time, or one whose UTC moment
    falls outside the years 1 to 9999 that a time can name)."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"wants an ISO 8601 time, got {text!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59:59-01:00 is in the year 10000 in UTC
        raise ValueError(
            f"{text!r} falls outside the years 1 to 9999 in UTC, the times the ledger can name"
        ) from None


def round_at(app: Any, round_id: str, at: int | None = None) -> dict[str, Any]:
    """The round after its ``at``-th event (default: its latest)."""
    try:
        uuid = UUID(str(round_id))
    except ValueError:
        raise NotFound(f"{round_id!r} is not a round id") from None
    if at is not None and at < 1:
        raise BadRequest(f"--at must be 1 or more (the first event is 1), got {at}")
    if at is not None and at > MAX_VERSION:  # no store holds it: a 64-bit integer at most
        raise BadRequest(f"--at must be at most {MAX_VERSION} (a stream's last version), got {at}")
    # The stored events, checked as they are read: a damaged or missing one is reported by
    # name (StoreDamaged) instead of surfacing as the library's error mid-replay; the round
    # is folded from them, not read again.
    events = read_stream(app, uuid, upto=at, positioned=True)
    if not events:
        raise NotFound(f"no round {round_id}")
    latest = events[-1].originator_version if at is None else latest_version(app, uuid)
    if at is not None and at > latest:
        raise NotFound(f"round {round_id} has {latest} events; --at {at} is beyond its last")
    with reported(uuid):
        rnd = fold(events)
    if not isinstance(rnd, Round):
        raise NotFound(f"{round_id} is a {type(rnd).__name__}, not a round")
    state = state_of(rnd)
    state["events"] = latest
    state["totals"] = {h: rnd.total(h) for h in [*rnd.order, *rnd.dealer_hand_ids()]}
    state["log"] = [
        {
            "version": e.originator_version,
            "position": events.positions.get(e.originator_version),
            "time": e.timestamp.isoformat(),
            "type": type(e).__name__,
        }
        for e in events
    ]
    state["shoes"] = shoes_committed(app, rnd, events)
    return state


def shoes_committed(app: Any, rnd: Round, events: StreamEvents) -> list[dict[str, Any]]:
    """Each shoe the round drew from so far: where its commitment was recorded (the shoe's
    first event, read with its cut) and whether both were before the round's first card from it
    (``replay.audit_shoe.committed_before_deal``, as the round's audit says it)."""
    cards = [
        (e, str(e.shoe), e.shoe_index, e.card)
        for e in events
        if isinstance(e, Round.CardDealt | Round.CardBurned)
    ]
    shoes = list(dict.fromkeys([str(rnd.start_shoe), *(c[1] for c in cards)]))
    out = []
    for shoe in shoes:
        # The commitment and the cut, the shoe's first two events (``ShoeService.new_shoe``).
        stored = log_positions.select(app.recorder, UUID(shoe), lte=2)
        if not stored:
            raise StoreDamaged(f"event v1 of stream {shoe} is missing", stream=shoe, version=1)
        committed = decode(app, stored[0])
        cut = next((s.id for s in stored[1:] if s.topic.endswith("Shoe.Cut")), None)
        mine = [c for c in cards if c[1] == shoe]
        out.append(
            {
                "shoe_id": shoe,
                "committed": {
                    "time": committed.timestamp.isoformat(),
                    "position": stored[0].id,
                    "actor": getattr(committed, "actor", None),
                },
                "committed_before_deal": committed_before_deal(
                    stored[0].id, mine, events.positions, cut=cut
                ),
            }
        )
    return out


def version_at(app: Any, aggregate_id: UUID, at: datetime) -> int:
    """The version of the stream's last event at or before ``at`` (0: none). A stream's
    events are recorded in time order, so the moment is found by bisection: about twenty
    events read for a million, where filtering the stream read every one."""
    latest = app.recorder.select_events(aggregate_id, desc=True, limit=1)
    low, high = 0, latest[0].originator_version if latest else 0
    while low < high:
        middle = (low + high + 1) // 2
        # Read with its position, so that an event found damaged is named with it.
        stored = log_positions.select(app.recorder, aggregate_id, lte=middle, desc=True, limit=1)
        if not stored or stored[0].originator_version != middle:
            raise StoreDamaged(
                f"event v{middle} of stream {aggregate_id} is missing",
                stream=aggregate_id,
                version=middle,
            )
        if decode(app, stored[0]).timestamp <= at:
            low = middle
        else:
            high = middle - 1
    return low


def table_at(app: Any, table_id: str, at: datetime) -> dict[str, Any]:
    """The table as it stood at ``at`` (after its last event at or before it, rebuilt from
    its latest snapshot before that event: the cost does not grow with the table's age),
    and the round in play then, as it stood at the same moment."""
    try:
        uuid = UUID(str(table_id))
    except ValueError:
        raise NotFound(f"{table_id!r} is not a table id") from None
    kind = stream_kind(app, uuid)  # a round's id is no table's, whatever the moment
    if kind != "Table":
        raise NotFound(not_a(kind, table_id, "table"))
    version = version_at(app, uuid, at)
    if version == 0:
        first = decode(app, log_positions.select(app.recorder, uuid, limit=1)[0])
        raise NotFound(
            f"table {table_id} was opened at {first.timestamp.isoformat()}, after {at.isoformat()}"
        )
    # The repository decodes the events after the snapshot itself, so each is held to its
    # class here, as every event the replay tools read is (``replay.damage.decode``).
    locate = locator(app)
    with reported(uuid):
        table = app.repository.get(
            uuid,
            version=version,
            projector_func=lambda initial, events: fold(
                events, initial, checked=True, locate=locate
            ),
        )
    state = state_of(table)
    state["at"] = at.isoformat()
    state["round_in_play"] = None
    # The table records where its shoe stands only when a round closes; the round in play
    # holds the cards it has drawn since (and a shoe it ran out into, VU-29).
    state["shoe_now"] = {"shoe_id": state["shoe_id"], "next_card": table.shoe_next}
    if table.current_round is not None:
        # A round is short: read once, to its first event after the moment (a stream's
        # events are recorded in time order), rather than bisected and then read again.
        with reported(table.current_round):
            played = read_stream(app, table.current_round, until=lambda e: e.timestamp > at)
            if played:
                rnd = fold(played)
                state["round_in_play"] = state_of(rnd)
                state["shoe_now"] = {"shoe_id": str(rnd.shoe_id), "next_card": rnd.shoe_next}
    return state


def round_text(state: dict[str, Any]) -> str:
    lines = [
        f"round {state['id']} (table {state['table_id']}, round {state['number']}, "
        f"{state['rules_record']['family']})",
        f"  after event {state['version']} of {state.get('events', state['version'])}; "
        f"phase {state['phase']}{' (ended)' if state['ended'] else ''}",
        f"  dealer {state['dealer']}",
    ]
    totals = state.get("totals", {})
    for hand_id in state["order"]:
        hand = state["hands"][hand_id]
        result = "" if hand.get("result") is None else f", result {hand['result']:+d}"
        outcome = f" {hand['outcome']}" if hand.get("outcome") else ""
        lines.append(
            f"  {hand_id} seat {hand['seat']} player {hand['player']}: "
            f"{' '.join(hand['cards']) or '-'} (total {totals.get(hand_id, '?')}), "
            f"stake {hand['stake']}, {hand['status']}{outcome}{result}"
        )
    divided = state.get("dealer_divided", {})  # the hands he divided off his first (VU-21)
    for hand_id in state.get("dealer_order", ["dealer"]):
        dealer = state["dealer_hand"] if hand_id == "dealer" else divided[hand_id]
        lines.append(
            f"  {hand_id}: {' '.join(dealer['cards']) or '-'} (total {totals.get(hand_id, '?')}), "
            f"{dealer['status']}"
        )
    for shoe in state.get("shoes", []):
        c, verdict = shoe["committed"], shoe["committed_before_deal"]
        mark = {True: "ok", False: "FAULT"}.get(verdict["ok"], "not weighed")
        lines.append(
            f"  shoe {shoe['shoe_id']} committed at position {c['position']} ({c['time']}, "
            f"by {c['actor']})"
        )
        lines.append(f"    fixed before the deal: {mark}: {verdict['fact']}")
    lines.append("  events (position in the log, version, UTC time, type):")
    for e in state.get("log", []):
        where = "-" if e["position"] is None else e["position"]
        lines.append(f"    {where:>8} v{e['version']:<3} {e['time']} {e['type']}")
    return "\n".join(lines)


def table_text(state: dict[str, Any]) -> str:
    seats = ", ".join(
        f"{s}: {p}" for s, p in sorted(state["seats"].items(), key=lambda x: int(x[0]))
    )
    lines = [
        f"table {state['id']} ({state['name']}, {state['rules_record']['family']}) at "
        f"{state['at']}",
        f"  as of its event {state['version']} ({state['modified_on']})",
        f"  seats: {seats or 'none'}",
        f"  dealer: {state['dealer'] or '-'}; rounds so far: {state['rounds']}",
        f"  shoe: {_shoe_line(state)}",
        f"  closed: {'yes' if state['closed'] else 'no'}",
    ]
    rnd = state["round_in_play"]
    if rnd is None:
        lines.append("  no round in play")
    else:
        lines.append(
            f"  round in play: {rnd['id']} (round {rnd['number']}, phase {rnd['phase']}, "
            f"after its event {rnd['version']})"
        )
    return "\n".join(lines)


def _shoe_line(state: dict[str, Any]) -> str:
    now = state.get("shoe_now") or {"shoe_id": state["shoe_id"], "next_card": state["shoe_next"]}
    line = f"{now['shoe_id'] or '-'} (next card {now['next_card']}"
    if state["round_in_play"] is None:
        return line + ")"
    return (
        line + ", counting the cards the round in play had drawn; the table's own record, "
        f"next card {state['shoe_next']} of shoe {state['shoe_id']}, is as of its last "
        "round's close)"
    )


def dumps(state: dict[str, Any]) -> str:
    return json.dumps(state, indent=2, sort_keys=True, default=str)
