"""Field types shared by the request and response schemas."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate

from ledger.accounts import MAX_AMOUNT
from ledger.text import TEXT_PATTERN, VISIBLE_TEXT_PATTERN, text_problem


class StrictInteger(fields.Integer):
    """A JSON integer only: no strings, no fractions and no booleans (``true`` is an int in
    Python, and a stake of ``true`` must be refused, not read as 1). ``5.0`` is accepted as 5:
    JSON and JSON Schema do not tell it from ``5``, so the OpenAPI "integer" admits it."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _validated(self, value):
        if isinstance(value, bool):
            raise ValidationError("Not a valid integer.")
        if isinstance(value, float) and value.is_integer():
            value = int(value)
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
    """A table option's value: any JSON value (the rule set checks its type), but a string is
    checked as ``Text`` is (without needing a visible character: a seed may be anything). The
    document's ``pattern`` applies to strings only, as JSON Schema's does."""

    def __init__(self, **kwargs):
        kwargs["metadata"] = {"pattern": TEXT_PATTERN, **kwargs.get("metadata", {})}
        super().__init__(allow_none=True, **kwargs)  # null is a value (bank_cap, fixed_bet)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str):
            problem = text_problem(value, visible=False)
            if problem is not None:
                raise ValidationError(f"Not valid text: it {problem}.")
        return super()._deserialize(value, attr, data, **kwargs)


def amount(**kwargs) -> StrictInteger:
    return StrictInteger(validate=validate.Range(min=1, max=MAX_AMOUNT), **kwargs)


def player_id(**kwargs) -> fields.UUID:
    return fields.UUID(**kwargs)


class Request(Schema):
    """Request bodies refuse unknown fields (marshmallow's default: RAISE)."""


class PositionSchema(Schema):
    position = fields.Integer(
        metadata={"description": "notification position of the write: read-your-writes cursor"}
    )
