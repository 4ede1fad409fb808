"""Rounds: the round as a caller may see it, and the tagged union of every action."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.schemas.common import (
    INTEGER_ONLY,
    MAX_AMOUNT,
    MONEY_INVALID,
    PositionSchema,
    Request,
    StrictInteger,
    Text,
    money_range,
)
from api.schemas.tables import FAMILY
from api.visibility import CLOSED
from ledger.domain.hands import HAND_STATUSES, OUTCOMES, PHASES
from ledger.text import VISIBLE_TEXT_PATTERN
from ledger.use_cases.actions import HAND_DEALER_ACTIONS


class StrictBoolean(fields.Boolean):
    """JSON ``true``/``false`` only (marshmallow would also read "yes", 1, "on")."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise ValidationError("Not a valid boolean.")
        return value


HAND = {"type": "string", "pattern": r"^(h[0-9]{1,3}|dealer[2-4]?)$"}
CARD = {"type": "string", "pattern": r"^[2-9TJQKA][CDHS]$"}
AMOUNT = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_AMOUNT,
    "description": f"minor units, {INTEGER_ONLY}",
}
# Every action, the fields it requires and those it may take (besides "action" and "actor").
ACTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "stake": (("amount",), ()),
    "hit": (("hand",), ()),
    "stand": (("hand",), ()),
    "double_down": (("hand",), ()),
    "surrender": (("hand",), ()),
    "take": (("hand",), ()),
    "throw_up": (("hand",), ()),
    "split": (("hand",), ("amount",)),
    "insurance": (("hand", "amount"), ()),
    "ace_value": (("index", "value"), ("hand",)),
    "reject": (("hand", "card"), ()),
    "dealer_double": (("called",), ()),
    "dealer_split": ((), ()),
    "dealer_draw": ((), ()),
    "dealer_stand": ((), ()),
    "serve_two": (("hand",), ()),
    "serve_out_of_order": (("hand",), ()),
    "false_division": (("hand",), ()),
}
# What ``allowed_actions`` may list: every action but the dealer's irregularities (VU-23..25).
ALLOWED_ACTIONS = [a for a in ACTIONS if a not in HAND_DEALER_ACTIONS]
_FIELD_DOCS: dict[str, dict[str, Any]] = {
    "hand": HAND,
    "amount": AMOUNT,
    "index": {"type": "integer", "minimum": 0, "maximum": 20},
    "value": {"type": "integer", "enum": [1, 11]},
    "called": {"type": "boolean"},
    "card": CARD,
}


class ActionSchema(Request):
    """One action; which fields are allowed depends on ``action`` (checked below)."""

    action = fields.String(required=True, validate=validate.OneOf(list(ACTIONS)))
    hand = fields.String(validate=validate.Regexp(HAND["pattern"]))
    # Its bounds depend on the action (insurance may be 0, declining): _fits_action checks
    # them, so -5 and 0 on a stake get the same message, the document's minimum 1.
    amount = StrictInteger(error_messages={"invalid": MONEY_INVALID})
    index = StrictInteger(validate=validate.Range(min=0, max=20))
    value = StrictInteger(validate=validate.OneOf([1, 11]))
    called = StrictBoolean()
    card = fields.String(validate=validate.Regexp(CARD["pattern"]))
    actor = Text(
        validate=validate.Length(min=1, max=100),
        metadata={"description": "admin keys only: the player (or dealer) to act as"},
    )

    @validates_schema
    def _fits_action(self, data: dict, **kwargs: Any) -> None:
        required, optional = ACTIONS.get(data.get("action"), ((), ()))
        errors: dict[str, list[str]] = {}
        for name in required:
            if name not in data:
                errors[name] = [f"required by action {data['action']}"]
        for name in set(data) - {"action", "actor", *required, *optional}:
            errors[name] = [f"not used by action {data['action']}"]
        # Only insurance may be 0 (it declines); every other amount is positive.
        if "amount" in data and "amount" not in errors:
            bounds = money_range(0 if data.get("action") == "insurance" else 1)
            try:
                bounds(data["amount"])
            except ValidationError as error:
                errors["amount"] = error.messages
        if errors:
            raise ValidationError(errors)


def action_union_doc() -> dict[str, Any]:
    """The request body as OpenAPI shows it: a oneOf tagged by ``action``."""
    variants = []
    for name, (required, optional) in ACTIONS.items():
        props: dict[str, Any] = {"action": {"type": "string", "const": name}}
        for field in required + optional:
            props[field] = dict(_FIELD_DOCS[field])
        if name == "insurance":
            props["amount"] = {
                **AMOUNT,
                "minimum": 0,
                "description": f"0 declines; {AMOUNT['description']}",
            }
        props["actor"] = {
            "type": "string",
            "minLength": 1,
            "maxLength": 100,
            "pattern": VISIBLE_TEXT_PATTERN,
            "description": "admin keys only",
        }
        variants.append(
            {
                "title": name,
                "type": "object",
                "properties": props,
                "required": ["action", *required],
                "additionalProperties": False,
            }
        )
    return {"oneOf": variants, "discriminator": {"propertyName": "action"}}


HAND_STATUS = (
    '"open" while it may draw; then "stood", "bust" or "natural"; "settled" when paid before '
    "any of those (the dealer's natural, VU-24 thrown up, VU-25 false division), and a "
    'dealer\'s hand the round ended without playing; "closed" hides which to a viewer who may '
    "not learn it"
)


class HandCardsSchema(Schema):
    """What a player's hand and a dealer's hand both show."""

    id = fields.String(required=True)
    cards = fields.List(
        fields.String(), required=True, metadata={"description": '"??" for a hidden card'}
    )
    face_up = fields.List(fields.Boolean(), required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf([*HAND_STATUSES, CLOSED]),
        metadata={"description": HAND_STATUS},
    )
    draws = fields.Integer(required=True)
    aces = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    total = fields.Integer(
        required=True, allow_none=True, metadata={"description": "null while any card is hidden"}
    )


class HandViewSchema(HandCardsSchema):
    """A player's hand."""

    player = fields.String(required=True)
    seat = fields.Integer(required=True)
    stake = fields.Integer(required=True)
    held = fields.Integer(required=True)
    doubled = fields.Boolean(required=True)
    split_from = fields.String(required=True, allow_none=True)
    insurance = fields.Integer(required=True)
    insurance_pending = fields.Boolean(
        required=True,
        metadata={
            "description": "true while the round (phase insurance) waits for this hand's "
            "insurance decision"
        },
    )
    surrendered = fields.Boolean(required=True)
    settled = fields.Boolean(required=True)
    outcome = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(OUTCOMES),
        metadata={"description": "null until the hand is settled"},
    )
    result = fields.Integer(
        required=True, allow_none=True, metadata={"description": "the player's net"}
    )
    pending_two = fields.List(fields.String(), required=True, allow_none=True)


class DealerHandViewSchema(HandCardsSchema):
    """One of the dealer's hands."""

    natural = fields.Boolean(required=True)


class AllowedActionSchema(Schema):
    """A decision the round would accept now: the action body that takes it, but for the
    amount, which is the caller's own (a stake, a split's in Vingt-un, insurance)."""

    action = fields.String(required=True, validate=validate.OneOf(ALLOWED_ACTIONS))
    actor = fields.String(
        metadata={
            "description": "whose decision it is: for admin and auditor keys only (an admin "
            "sends it to act for him); every entry a player or dealer key sees is its own"
        }
    )
    hand = fields.String(
        validate=validate.Regexp(HAND["pattern"]),
        metadata={"description": "the hand it applies to; absent for a stake and the dealer's"},
    )
    index = fields.Integer(
        validate=validate.Range(min=0, max=20),
        metadata={"description": "ace_value: the card's place in the hand"},
    )
    value = fields.Integer(validate=validate.OneOf([1, 11]), metadata={"description": "ace_value"})
    called = fields.Boolean(metadata={"description": "dealer_double: the call, true or false"})
    card = fields.String(
        validate=validate.Regexp(CARD["pattern"]),
        metadata={"description": "reject: the card to send back (VU-23)"},
    )


class RoundViewSchema(PositionSchema):
    """A round as the caller may see it; ``position`` only on the answer to the write that
    started it."""

    round_id = fields.String(required=True)
    table_id = fields.String(required=True)
    number = fields.Integer(required=True)
    family = fields.String(required=True, validate=FAMILY)
    phase = fields.String(required=True, validate=validate.OneOf(PHASES))
    ended = fields.Boolean(required=True)
    dealer = fields.String(required=True)
    dealer_doubled = fields.Boolean(required=True)
    current_turn = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "the hand whose turn it is; null when it is no player's"},
    )
    order = fields.List(fields.String(), required=True)
    hands = fields.List(fields.Nested(HandViewSchema), required=True)
    dealer_hand = fields.Nested(DealerHandViewSchema, required=True)
    dealer_second = fields.Nested(DealerHandViewSchema, required=True, allow_none=True)
    dealer_hands = fields.List(
        fields.Nested(DealerHandViewSchema),
        required=True,
        metadata={
            "description": "every hand of the dealer's in the order he plays them: his first, "
            "then those he divided (VU-21), up to four"
        },
    )
    allowed_actions = fields.List(
        fields.Nested(AllowedActionSchema),
        required=True,
        metadata={
            "description": "every decision the round would accept now that the caller's key "
            "may send (an admin's and an auditor's: everyone's, each naming its actor), each "
            "found by the ledger deciding it and saving nothing; each entry a body the key may "
            "send as it is, with an amount where the action takes one. Empty once the round "
            "has ended. A stake is listed when the table's least stake (Hoyle: the fixed bet) "
            "would be taken, insurance when the round waits for the hand's answer. The "
            "dealer's irregularities (VU-23..25) are not listed"
        },
    )
    version = fields.Integer(required=True)


class RoundStartSchema(Request):
    cut = StrictInteger(
        load_default=None, validate=validate.Range(min=0, max=10_000), allow_none=True
    )


class ActionResultSchema(PositionSchema):
    result = fields.Dict(keys=fields.String(), required=True)
    round = fields.Nested(RoundViewSchema, required=True)
    position = fields.Integer(
        required=True,
        metadata={"description": "notification position of the write: read-your-writes cursor"},
    )
