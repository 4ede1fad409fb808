"""Field types shared by the request and response schemas."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate

MAX_AMOUNT = 10**12  # minor units; far above any table limit, keeps numbers JSON-safe


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
