"""JMSReplyTo through the codec (issue 32 item 4): an agent with an address alone on the
wire, a temporary destination known again by its name, without the database."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from pgaq import Message as EngineMessage
from pgaq.jms import codec
from pgaq.jms.destination import (
    AQjmsAgent,
    Destination,
    Queue,
    TemporaryQueue,
    TemporaryTopic,
    Topic,
    temporary_kind,
)
from pgaq.jms.errors import IllegalStateException
from pgaq.jms.message import TextMessage

TQ = "aq$_tmpq_0000abcd_0123456789abcdef"
TT = "aq$_tmpt_0000abcd_0123456789abcdef"


def _round_trip(reply_to: Destination | AQjmsAgent, kind: str = "JMS_TEXT") -> Any:
    sent = TextMessage("x")
    sent.jms_reply_to = reply_to
    payload, _ = codec.to_engine(sent, kind)
    assert isinstance(payload, dict)
    wire = json.loads(json.dumps(payload))
    m = EngineMessage(
        msgid="00112233445566778899AABBCCDDEEFF", queue="s.q", consumer_name=None,
        correlation=None, priority=1, delay=0, expiration=None,
        enqueue_time=datetime(2026, 1, 2, tzinfo=UTC), state="PROCESSED", attempts=0,
        exception_queue=None, sender_id=None, original_msgid=None, transaction_group=None,
        payload=wire)
    return wire["header"]["replyto"], codec.from_engine(m, kind, Queue("s", "q")).jms_reply_to


@pytest.mark.parametrize("kind", ["JMS_TEXT", "JMS_MESSAGE"])
async def test_temporary_destinations_come_back_as_their_kind(kind: str) -> None:
    wire, got = _round_trip(TemporaryQueue("s", TQ), kind)
    assert wire == {"name": None, "address": f"s.{TQ}", "protocol": 0}  # Oracle's form
    assert type(got) is TemporaryQueue and got == TemporaryQueue("s", TQ)
    with pytest.raises(IllegalStateException) as copy:  # a copy: it cannot delete the destination
        await got.delete()
    assert copy.value.error_code == "JMS-107"
    _, got = _round_trip(TemporaryTopic("s", TT), kind)
    assert type(got) is TemporaryTopic and isinstance(got, Topic)


def test_other_addresses() -> None:
    # the codec alone cannot tell a topic (the receiving session asks the catalog)
    _, got = _round_trip(Topic("s", "t"))
    assert type(got) is Queue and got == Queue("s", "t")
    _, got = _round_trip(AQjmsAgent("BOB", "s.t"))
    assert got == AQjmsAgent("BOB", "s.t")
    _, got = _round_trip(AQjmsAgent(None, "s.t@far"))
    assert got == AQjmsAgent(None, "s.t@far")


def test_temporary_names() -> None:
    assert temporary_kind(TQ) == "q" and temporary_kind(TT) == "t"
    for name in ("orders_q", "aq$_tmpq_xyz", TQ + "0", TQ.upper(), "aq$_tmpx_0000abcd_0123456789abcdef"):
        assert temporary_kind(name) is None
