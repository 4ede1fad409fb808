"""Field types shared by the request and response schemas."""

from __future__ import annotations

import re

from marshmallow import Schema, ValidationError, fields, validate

from ledger.accounts import MAX_AMOUNT
from ledger.text import TEXT_PATTERN, VISIBLE_TEXT_PATTERN, text_problem

INTEGER_ONLY = "a JSON integer, written without a fraction or an exponent (200, not 200.0 or 2e2)"


class StrictInteger(fields.Integer):
    """A JSON integer only, as the client wrote it: no strings, no booleans (``true`` is an
    int in Python, and a stake of ``true`` must be refused, not read as 1), and no number
    written with a fraction or an exponent, ``200.0`` and ``2e2`` included. The body parser
    (api/body.py) reads those as ``Decimal``, so nothing is rounded: ``100.00000000000000001``
    would be the float 100. JSON Schema's "integer" cannot tell ``200.0`` from ``200``; the
    field's description in the document says so."""

    default_error_messages = {"invalid": f"Not a valid integer: {INTEGER_ONLY}."}

    def __init__(self, **kwargs):
        metadata = kwargs.pop("metadata", {})
        description = metadata.get("description")
        note = INTEGER_ONLY if not description else f"{description}; {INTEGER_ONLY}"
        super().__init__(strict=True, metadata={**metadata, "description": note}, **kwargs)

    def _validated(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.make_error("invalid")
        return super()._validated(value)


class QueryInteger(fields.Integer):
    """An integer in a query string (a cursor, a position, a limit): ASCII digits only, as the
    ``Last-Event-ID`` header is held to. ``int()`` alone also reads ``+1``, `` 1`` and a
    fullwidth ``１``, so one position could be written many ways."""

    default_error_messages = {"invalid": "Not a valid integer: ASCII digits 0-9 only."}

    def _validated(self, value):
        if isinstance(value, str) and not (value.isascii() and value.isdigit()):
            raise self.make_error("invalid")
        return super()._validated(value)


class QuerySeconds(fields.Float):
    """Seconds in a query string: a number written as JSON writes one (``2``, ``0.5``,
    ``1e-3``), in ASCII; not ``+1``, `` 1``, ``１``, ``1_0``, ``nan`` or ``inf``, which
    ``float()`` alone reads."""

    default_error_messages = {
        "invalid": "Not a valid number: ASCII digits, a fraction and an exponent only."
    }
    _NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?", re.ASCII)

    def _validated(self, value):
        if isinstance(value, str) and not self._NUMBER.fullmatch(value):
            raise self.make_error("invalid")
        return super()._validated(value)


class Text(fields.String):
    """Text a person typed: every free-text field of a request is one. Besides being a string
    within its length, it holds no lone surrogate (``"\\ud800"``: JSON can spell it, UTF-8
    cannot store it), no control character and no line separator, and (``visible``, the
    default, for names and reasons) it shows at least one visible character unless it is empty
    (whether "" is allowed is the field's ``Length``). The ledger checks the same
    (ledger/text.py); here the refusal is a 422 naming the field."""

    def __init__(self, *, visible: bool = True, **kwargs):
        pattern = VISIBLE_TEXT_PATTERN if visible else TEXT_PATTERN
        kwargs["metadata"] = {"pattern": pattern, **kwargs.get("metadata", {})}
        super().__init__(**kwargs)
        self.visible = visible

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        problem = text_problem(text, visible=self.visible and text != "")
        if problem is not None:
            raise ValidationError(f"Not valid text: it {problem}.")
        return text


class OptionValue(fields.Raw):
    """A table option's value: any JSON value. The family's rule set is the one judge of an
    option (its name, type, text and range), so that every refused option gets one answer,
    422 ``invalid-rules`` naming it; the document's ``pattern`` (strings only, as JSON
    Schema's) tells what text an option may hold."""

    def __init__(self, **kwargs):
        kwargs["metadata"] = {"pattern": TEXT_PATTERN, **kwargs.get("metadata", {})}
        super().__init__(allow_none=True, **kwargs)  # null is a value (bank_cap, fixed_bet)


MONEY_INVALID = f"Not valid money: a whole number of minor units, {INTEGER_ONLY}."


def money_range(minimum: int = 1) -> validate.Range:
    """Money's bounds, ``minimum`` to ``MAX_AMOUNT``: one wording wherever they are checked."""
    return validate.Range(min=minimum, max=MAX_AMOUNT)


def amount(minimum: int = 1, **kwargs) -> StrictInteger:
    """Money: a whole number of minor units, ``minimum`` to ``MAX_AMOUNT``, as a JSON integer."""
    return StrictInteger(
        validate=money_range(minimum), error_messages={"invalid": MONEY_INVALID}, **kwargs
    )


def player_id(**kwargs) -> fields.UUID:
    return fields.UUID(**kwargs)


class Request(Schema):
    """Request bodies refuse unknown fields (marshmallow's default: RAISE)."""


class PositionSchema(Schema):
    position = fields.Integer(
        metadata={"description": "notification position of the write: read-your-writes cursor"}
    )
