"""A claimed notification, as the outbox row holds it."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Notification:
    id: uuid.UUID
    event: str  # MESSAGE | TIMEOUT
    queue_name: str
    consumer_name: str | None
    msgid: bytes | None
    message: dict[str, Any] | None
    payload: bytes | None
    reg_name: str
    url: str
    dest_key: str
    presentation: str
    owner: str
    attempts: int  # including the one about to be made

    @classmethod
    def from_row(cls, r: Any) -> Notification:
        message = r["message"]
        if isinstance(message, str):
            message = json.loads(message)
        return cls(id=r["id"], event=r["event"], queue_name=r["queue_name"],
                   consumer_name=r["consumer_name"], msgid=r["msgid"], message=message,
                   payload=r["payload"], reg_name=r["reg_name"], url=r["url"],
                   dest_key=r["dest_key"], presentation=r["presentation"], owner=r["owner"],
                   attempts=r["attempts"])

    @property
    def scheme(self) -> str:
        return self.url.split(":", 1)[0].lower()
