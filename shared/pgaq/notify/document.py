"""The AQXmlNotification document (IDAP): notification_options and the message's header."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from lxml import etree

from ..client import Agent, Message
from ..idap import response
from ..idap.request import NS_AQ
from .model import Notification


def message_of(n: Notification) -> Message:
    """The notified message as the engine describes messages (from the enqueue's snapshot)."""
    p: dict[str, Any] = n.message or {}
    sender = None
    if p.get("sender_name") or p.get("sender_address"):
        sender = Agent(p.get("sender_name"), p.get("sender_address"), p.get("sender_protocol") or 0)
    enq = p.get("enq_time")
    return Message(
        msgid=(n.msgid or b"").hex().upper(),
        queue=n.queue_name,
        consumer_name=n.consumer_name,
        correlation=p.get("correlation"),
        priority=int(p.get("priority") or 1),
        delay=int(p.get("delay") or 0),
        expiration=p.get("expiration"),
        enqueue_time=datetime.fromisoformat(enq) if isinstance(enq, str) else None,  # type: ignore[arg-type]
        state="WAIT" if p.get("state") == 1 else "READY",
        attempts=int(p.get("attempts") or 0),
        exception_queue=p.get("exception_queue"),
        sender_id=sender,
        original_msgid=p.get("original_msgid") or None,
        transaction_group=None,
        payload=n.payload,
    )


def notification_xml(n: Notification) -> bytes:
    """AQXmlNotification for one message (or, for a registration that timed out, an empty
    message_set: the registration's last notification)."""
    env, body = response._envelope()
    op = etree.SubElement(body, f"{{{NS_AQ}}}AQXmlNotification", nsmap={None: NS_AQ})
    opts = response._aq(op, "notification_options")
    response._aq(opts, "destination", n.queue_name.upper())
    response._aq(opts, "consumer_name", n.consumer_name or "")
    if n.event == "TIMEOUT" or n.msgid is None:
        ms = response._aq(op, "message_set")
        response._aq(ms, "message_count", 0)
    else:
        m = message_of(n)

        def raw(msg: Message, parent: etree._Element) -> None:
            assert isinstance(msg.payload, bytes)
            response._aq(parent, "RAW", msg.payload.hex().upper())

        response.message_set(op, [m], raw if n.payload is not None else None,
                             [1 if m.state == "WAIT" else 0])
    return response.serialize(env)
