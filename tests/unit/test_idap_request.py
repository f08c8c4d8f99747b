"""Parsing IDAP requests: safe XML, both namespace styles, every option, clear rejections."""

from __future__ import annotations

import pytest
from pgaq.idap.request import (
    ReceiveRequest,
    RequestError,
    SendRequest,
    parse_request,
)
from pgaq.idap.xmlsafe import XmlError, parse

SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
AQ = "http://ns.oracle.com/AQ/schemas/access"


def doc(body: str) -> bytes:
    return f'<Envelope xmlns="{SOAP}"><Body>{body}</Body></Envelope>'.encode()


SEND = (f'<AQXmlSend xmlns="{AQ}"><producer_options><destination>S.Q</destination>'
        "<visibility>IMMEDIATE</visibility></producer_options><message_set>"
        "<message_count>2</message_count>"
        "<message><message_number>1</message_number><message_header><correlation>C</correlation>"
        "<delay>3</delay><expiration>60</expiration><priority>-2</priority>"
        "<sender_id><agent_name>scott</agent_name><address>a</address><protocol>1</protocol>"
        "</sender_id><recipient_list><recipient><agent_name>r1</agent_name></recipient>"
        "<recipient><agent_alias>boss</agent_alias></recipient></recipient_list>"
        "<exception_queue>S.EXC</exception_queue></message_header>"
        "<message_payload><RAW>00</RAW></message_payload></message>"
        "<message><message_header><sender_id/></message_header></message>"
        "</message_set><AQXmlCommit>\n  </AQXmlCommit></AQXmlSend>")


def test_send_default_namespace_style() -> None:
    req = parse_request(parse(doc(SEND)))
    assert isinstance(req, SendRequest)
    assert req.operation == "AQXmlSend" and req.commit and req.visibility == "IMMEDIATE"
    assert req.destination.name == "S.Q" and req.destination.lookup_type == "DATABASE"
    m = req.messages[0]
    assert (m.correlation, m.delay, m.expiration, m.priority) == ("C", 3, 60, -2)
    assert m.sender is not None and (m.sender.name, m.sender.address, m.sender.protocol) == ("scott", "a", 1)
    assert m.recipients is not None and [r.alias or r.name for r in m.recipients] == ["r1", "boss"]
    assert m.exception_queue == "S.EXC" and m.payload is not None
    assert req.messages[1].payload is None


def test_prefixed_style() -> None:
    body = (f'<soap-env:Envelope xmlns:soap-env="{SOAP}"><soap-env:Body>'
            f'<ns0:AQXmlReceive xmlns:ns0="{AQ}"><ns0:consumer_options>'
            "<ns0:destination lookup_type='LDAP'>orders</ns0:destination>"
            "<ns0:consumer_name>APP1</ns0:consumer_name><ns0:wait_time>5</ns0:wait_time>"
            "<ns0:selector><ns0:condition>priority &gt; 1</ns0:condition></ns0:selector>"
            "<ns0:batch_size>10</ns0:batch_size><ns0:dequeue_mode>BROWSE</ns0:dequeue_mode>"
            "<ns0:navigation_mode>FIRST_MESSAGE</ns0:navigation_mode>"
            "</ns0:consumer_options></ns0:AQXmlReceive></soap-env:Body></soap-env:Envelope>")
    req = parse_request(parse(body.encode()))
    assert isinstance(req, ReceiveRequest)
    assert req.destination.lookup_type == "LDAP" and req.condition == "priority > 1"
    assert (req.wait_time, req.batch_size, req.dequeue_mode, req.navigation_mode) == (
        5, 10, "BROWSE", "FIRST_MESSAGE")


@pytest.mark.parametrize("bad", [
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><a>&lol2;</a>',
    b'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><a>&xxe;</a>',
    b'<!doctype a SYSTEM "http://example.invalid/x.dtd"><a/>',
    "<?xml version='1.0' encoding='UTF-16'?><!DOCTYPE a [<!ENTITY b 'c'>]><a/>".encode("utf-16"),
    b"<a>" * 100 + b"</a>" * 100,
    b"<a><b></a>",
    b"",
])
def test_hostile_xml_rejected(bad: bytes) -> None:
    with pytest.raises(XmlError):
        parse(bad)


@pytest.mark.parametrize(("body", "message"), [
    (f'<AQXmlSend xmlns="{AQ}"><message_set/></AQXmlSend>', "producer_options"),
    (f'<AQXmlSend xmlns="{AQ}"><producer_options><destination/></producer_options>'
     "<message_set><message><message_header/></message></message_set></AQXmlSend>", "destination"),
    (f'<AQXmlReceive xmlns="{AQ}"><consumer_options><destination>q</destination>'
     "<wait_time>soon</wait_time></consumer_options></AQXmlReceive>", "integer"),
    (f'<AQXmlReceive xmlns="{AQ}"><consumer_options><destination>q</destination>'
     "<dequeue_mode>EAT</dequeue_mode></consumer_options></AQXmlReceive>", "dequeue_mode"),
    (f'<AQXmlSend xmlns="{AQ}"><producer_options><destination>q</destination></producer_options>'
     "<message_set><message_count>2</message_count><message><message_header/></message>"
     "</message_set></AQXmlSend>", "message_count"),
    ('<AQXmlSend xmlns="urn:other"/>', "unknown operation"),
    (f'<AQXmlCommit xmlns="{AQ}"/><AQXmlCommit xmlns="{AQ}"/>', "exactly one"),
])
def test_invalid_requests(body: str, message: str) -> None:
    with pytest.raises(RequestError, match=message):
        parse_request(parse(doc(body)))


def test_other_envelope_namespace_is_refused() -> None:
    with pytest.raises(RequestError, match=r"SOAP 1\.1"):
        parse_request(parse(b'<Envelope xmlns="http://ns.oracle.com/AQ/schemas/envelope">'
                            b"<Body/></Envelope>"))
