"""The golden vectors of tests/golden/jms_messages.json through pgaq.jms.codec: each case's
message, built from its language-neutral description, encodes to exactly the expected AQ
properties and payload, and the expected payload, dequeued, reads back as the message sent.
The Java provider's CodecGoldenTest checks the same file, so a message crosses between the
two unchanged."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pgaq import Agent
from pgaq import Message as EngineMessage
from pgaq.jms import codec
from pgaq.jms.destination import Queue
from pgaq.jms.errors import JMSException

from ..jms_golden import CASES, DATA, as_json, build, describe, received_shape, same, send_options


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_encode(case: dict[str, Any]) -> None:
    msg = build(case["send"])
    expected = case["expected"]
    if "error" in expected:
        with pytest.raises(JMSException) as err:
            codec.to_engine(msg, case["payload_kind"], **send_options(case["send"]))
        assert err.value.error_code == expected["error"]
        return
    payload, props = codec.to_engine(msg, case["payload_kind"], **send_options(case["send"]))
    got_props = {**props.to_json(), "delivery_mode": codec.engine_delivery_mode(msg)}
    assert same(as_json(got_props), expected["properties"]), got_props
    if case["payload_kind"] == "RAW":
        assert payload == bytes.fromhex(expected["raw"])
        assert expected["payload"] is None
    else:
        assert same(as_json(payload), expected["payload"]), payload


def _row(case: dict[str, Any]) -> EngineMessage:
    """The dequeued engine message of a case's expected properties and payload."""
    props = case["expected"]["properties"]
    fields = {**DATA["row"], **case.get("received", {}).get("row", {})}
    sender = props.get("sender_id")
    stamp = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=fields["enqueue_micros"])
    payload: Any = (bytes.fromhex(case["expected"]["raw"]) if case["payload_kind"] == "RAW"
                    else as_json(case["expected"]["payload"]))
    return EngineMessage(
        msgid=fields["msgid"], queue=fields["queue"], consumer_name=None,
        correlation=props.get("correlation"), priority=props["priority"], delay=props["delay"],
        expiration=props.get("expiration"), enqueue_time=stamp, state=fields["state"],
        attempts=fields["attempts"],
        exception_queue=fields.get("exception_queue", props.get("exception_queue")),
        sender_id=Agent(sender["name"], sender["address"], sender["protocol"]) if sender else None,
        original_msgid=fields.get("original_msgid"), transaction_group=None, payload=payload,
        delivery_mode=props["delivery_mode"])


@pytest.mark.parametrize("case", [c for c in CASES if "received" in c],
                         ids=[c["name"] for c in CASES if "received" in c])
def test_decode(case: dict[str, Any]) -> None:
    want = case["received"]
    topics = set(want.get("topics", []))
    msg = codec.from_engine(_row(case), case["payload_kind"], Queue.parse(DATA["row"]["queue"]),
                            is_topic=topics.__contains__,
                            j2ee_compliant=want.get("j2ee_compliant", False))
    stamp = DATA["row"]["enqueue_micros"] // 1000
    assert msg.jms_message_id == "ID:" + DATA["row"]["msgid"]
    assert msg.jms_timestamp == stamp
    got = describe(msg)
    assert same(got, received_shape(want)), got
    assert msg.get_property_type("JMSXRcvTimestamp") == "long"
