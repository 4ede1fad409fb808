"""A client's command id, kept with the first result it produced: a retry with the same id
returns that result and writes nothing; the same id with other content is refused."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Self
from uuid import NAMESPACE_URL, UUID, uuid5

from ledger.domain.chain import ChainedAggregate

_NAMESPACE = uuid5(NAMESPACE_URL, "twenty-one-ledger/command")


def command_record_id(command_id: str) -> UUID:
    return uuid5(_NAMESPACE, command_id)


def fingerprint(name: str, payload: dict[str, Any]) -> str:
    body = json.dumps({"command": name, **payload}, sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()


class CommandRecord(ChainedAggregate):
    class Recorded(ChainedAggregate.Created):
        command_id: str
        command: str
        fingerprint: str
        result: dict[str, Any]
        actor: str

        def apply(self, record: CommandRecord) -> None:
            record.command_id = self.command_id
            record.command = self.command
            record.fingerprint = self.fingerprint
            record.result = self.result
            record.actor = self.actor

    @classmethod
    def record(
        cls, command_id: str, command: str, fingerprint: str, result: dict, actor: str
    ) -> Self:
        return cls._create(
            cls.Recorded,
            id=command_record_id(command_id),
            command_id=command_id,
            command=command,
            fingerprint=fingerprint,
            result=result,
            actor=actor,
        )
