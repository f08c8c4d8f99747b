"""The golden JMS messages (tests/golden/jms_messages.json) through IDAP's payload codec,
offline: each case's stored payload, written as AQXmlReceive writes it and read back as
AQXmlSend reads that document, is the same stored payload but for what docs/gateway.md
says IDAP cannot carry. The JMS codecs are held to the same vectors (test_jms_golden.py,
the Java provider's CodecGoldenTest), so a value one of them stores that IDAP cannot take
back, or writes differently, fails here before any live round trip
(tests/java/test_java_interop.py)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from lxml import etree
from pgaq.idap.payload import TIME_TO_LIVE_PROPERTY, payload_to_xml, xml_to_payload

from ..jms_golden import CASES, same

AQ = "http://ns.oracle.com/AQ/schemas/access"
# the queue kinds IDAP serves with a JMS element (not StreamMessage queues: "not supported
# through IDAP", Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2
# (10.2), "Internet Access to Oracle Streams AQ")
KINDS = ("JMS_TEXT", "JMS_BYTES", "JMS_MAP", "JMS_OBJECT", "JMS_MESSAGE")
IDAP_CASES = [c for c in CASES if c["payload_kind"] in KINDS and "payload" in c["expected"]]
STREAM, BYTES = 2, 1  # AQ$_JMS_MESSAGE's message_type
GENERIC = {0: "JMS_TEXT", 1: "JMS_BYTES", 3: "JMS_MAP", 4: "JMS_OBJECT"}


def _typed(spec: dict[str, Any]) -> dict[str, Any]:
    """A typed value as it comes back: char and byte[] (no IDAP element) and nulls as the
    strings AQXmlReceive writes for them."""
    kind, value = spec["type"], spec["value"]
    if kind in ("char", "bytes", "string"):
        return {**spec, "type": "string", "value": "" if value is None else value}
    return spec


def through_idap(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The stored payload after AQXmlReceive and AQXmlSend (docs/gateway.md)."""
    p: dict[str, Any] = json.loads(json.dumps(payload), parse_float=Decimal)
    h = p["header"]
    if h["replyto"] is not None:
        h["replyto"] = {"protocol": 0, **h["replyto"]}
    user = sorted((kv for kv in h["properties"].items() if kv[0] != TIME_TO_LIVE_PROPERTY),
                  key=lambda kv: kv[1]["seq"])
    h["properties"] = {n: {**_typed(s), "seq": i} for i, (n, s) in enumerate(user, start=1)}
    if p.get("message_type") == STREAM:  # a StreamMessage crosses as the bytes of its body
        p["message_type"] = BYTES
    if "map" in p and p["map"] is not None:
        p["map"] = {n: _typed(s) for n, s in p["map"].items()}
    body = GENERIC[p["message_type"]] if kind == "JMS_MESSAGE" else kind
    if body == "JMS_TEXT" and p["text_vc"] is None:  # a null text: an empty <text_data>
        p["text_vc"] = ""
    if body in ("JMS_BYTES", "JMS_OBJECT") and p["bytes_raw"] is None:
        p["bytes_raw"] = "\\x"
    return p


@pytest.mark.parametrize("case", IDAP_CASES, ids=[c["name"] for c in IDAP_CASES])
def test_golden_payload_crosses_idap(case: dict[str, Any]) -> None:
    kind, stored = case["payload_kind"], case["expected"]["payload"]
    parent = etree.Element(f"{{{AQ}}}message_payload")
    payload_to_xml(kind, stored, None, parent, AQ)
    back = xml_to_payload(kind, parent, None)
    got = json.loads(json.dumps(back), parse_float=Decimal)
    want = through_idap(kind, stored)
    assert same(got, want), f"\n  expected {want}\n  got      {got}"
