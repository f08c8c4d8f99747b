"""Generators of hostile IDAP input: the IDAP examples of Oracle Streams Advanced Queuing User's
Guide and Reference, Release 10.1, chapter 17 "Internet Access to Oracle Streams AQ", and
generated envelopes, then mutated at the tree level (drop, duplicate, reorder, retext,
reattribute, renamespace, nest) and at the byte level (control characters, DTD and entity
fragments, truncation)."""

from __future__ import annotations

import copy

from hypothesis import strategies as st
from lxml import etree

from ..unit import idap_examples as ex

SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
AQ = "http://ns.oracle.com/AQ/schemas/access"

SEEDS: list[bytes] = [
    getattr(ex, name).encode() for name in sorted(dir(ex)) if name.startswith("EXAMPLE_")
]

OPERATIONS = ("AQXmlSend", "AQXmlPublish", "AQXmlReceive", "AQXmlRegister", "AQXmlCommit",
              "AQXmlRollback")

# text that has broken parsers before: numbers past every bound, bad hex, odd spacing
NASTY_TEXT = st.sampled_from([
    "", " ", "-1", "0", "2147483648", "-2147483649", "9" * 400, "1e999", "-0", "+5", "0x10",
    "NaN", "inf", "1.5", "١٢٣", "GG", "ABC", "0" * 10001, "zz" * 3, "00 11", "\u00a0", "\t\n",
    "true", "NULL", "'; DROP TABLE x; --", "${x}", "%s%n", "\\x00", "&amp;", "<![CDATA[x]]>",
    "IMMEDIATE", "on_commit", "BROWSE", "REMOVE_NODATA", "LDAP", "priority > 1",
    "1970-01-01 0:0:0", "9999-99-99", "AQUSER.RAW_MSGQ", "A" * 5000, "\U0001f600",
])
XML_TEXT = st.one_of(NASTY_TEXT, st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=40,
).filter(lambda t: all(c in "\t\n\r" or ord(c) >= 0x20 for c in t)
         and "\ufffe" not in t and "\uffff" not in t))
NAMES = st.sampled_from([
    "destination", "producer_options", "consumer_options", "message_set", "message",
    "message_header", "message_payload", "message_count", "message_number", "correlation",
    "priority", "delay", "expiration", "sender_id", "agent_name", "recipient_list",
    "recipient", "RAW", "selector", "condition", "wait_time", "batch_size", "visibility",
    "dequeue_mode", "navigation_mode", "consumer_name", "notify_url", "AQXmlCommit",
    "jms_text_message", "text_data", "properties_list", "property", "int_value", "ORDER_TYP",
    "Header", "Body", "Envelope", "x", *OPERATIONS,
])
NAMESPACES = st.sampled_from([None, SOAP, AQ, "urn:other", "http://ns.oracle.com/AQ/schemas/ACCESS",
                              "urn:pgaq:propagation", ""])

BYTE_FRAGMENTS = st.sampled_from([
    b"\x00", b"\x01", b"\x1b", b"\xff", b"\xfe\xff", b"\xc3(", b"\xe2\x82", b"&", b"&x;", b"&#0;",
    b"&#xD800;", b"&#1114112;", b"&lt;", b"<", b">", b"]]>", b"<![CDATA[", b"<!--", b"<?pi x?>",
    b'<!DOCTYPE a [<!ENTITY x "y">]>', b"<!ENTITY z SYSTEM 'file:///etc/passwd'>",
    b'<!doctype Envelope SYSTEM "http://127.0.0.1:1/x.dtd">', b"<! DOCTYPE a>",
    b'<?xml version="1.0" encoding="UTF-16"?>', b'<?xml version="1.1"?>',
    b'<?xml version="1.0" encoding="EBCDIC-US"?>', b"xmlns=''", b' xmlns:a="x"', b"<a:b>",
    b"<x>" * 70, b"</x>", b"\r\n", b"\xef\xbb\xbf",
])


def _elements(root: etree._Element) -> list[etree._Element]:
    return [e for e in root.iter() if isinstance(e.tag, str)]


@st.composite
def mutate_tree(draw: st.DrawFn, root: etree._Element) -> etree._Element:
    """One to four structural edits of a copy of `root`."""
    root = copy.deepcopy(root)
    for _ in range(draw(st.integers(1, 4))):
        els = _elements(root)
        el = els[draw(st.integers(0, len(els) - 1))]
        parent = el.getparent()
        action = draw(st.sampled_from([
            "drop", "dup", "reorder", "text", "attr", "rename", "renamespace", "nest", "child",
            "tail",
        ]))
        if action == "drop" and parent is not None:
            parent.remove(el)
        elif action == "dup" and parent is not None:
            for _ in range(draw(st.integers(1, 3))):
                parent.insert(parent.index(el), copy.deepcopy(el))
        elif action == "reorder" and parent is not None and len(parent) > 1:
            parent.remove(el)
            parent.insert(draw(st.integers(0, len(parent))), el)
        elif action == "text":
            if len(el) and draw(st.booleans()):
                for c in list(el):
                    el.remove(c)
            el.text = draw(XML_TEXT)
        elif action == "attr":
            name = draw(st.sampled_from(["lookup_type", "mustUnderstand", "x", "id", "type"]))
            ns = draw(st.sampled_from([None, SOAP, AQ]))
            el.set(f"{{{ns}}}{name}" if ns else name, draw(XML_TEXT))
        elif action == "rename":
            ns = etree.QName(el).namespace
            name = draw(NAMES)
            el.tag = f"{{{ns}}}{name}" if ns else name
        elif action == "renamespace":
            ns = draw(NAMESPACES)
            el.tag = f"{{{ns}}}{etree.QName(el).localname}" if ns else etree.QName(el).localname
        elif action == "nest":
            depth = draw(st.sampled_from([1, 5, 30, 63, 64, 65, 200]))
            inner = copy.deepcopy(el)
            for _ in range(depth):
                wrapper = etree.Element(el.tag)
                wrapper.append(inner)
                inner = wrapper
            if parent is None:
                root = inner
            else:
                parent.replace(el, inner)
        elif action == "child":
            ns = draw(NAMESPACES)
            name = draw(NAMES)
            sub = etree.SubElement(el, f"{{{ns}}}{name}" if ns else name)
            sub.text = draw(XML_TEXT)
        elif action == "tail" and parent is not None:
            el.tail = draw(XML_TEXT)
    return root


@st.composite
def mutate_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """Splice, cut or insert raw fragments: what a tree edit cannot express."""
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["insert", "cut", "truncate", "random"]))
        if action == "insert":
            data = data[:at] + draw(BYTE_FRAGMENTS) + data[at:]
        elif action == "cut":
            data = data[:at] + data[at + draw(st.integers(1, 40)):]
        elif action == "truncate":
            data = data[:at]
        else:
            data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data


def _op(name: str, inner: str) -> str:
    return f'<{name} xmlns="{AQ}">{inner}</{name}>'


def _envelope(body: str, header: str = "") -> bytes:
    return f'<?xml version="1.0"?><Envelope xmlns="{SOAP}">{header}<Body>{body}</Body></Envelope>'.encode()


@st.composite
def payloads(draw: st.DrawFn, kind: str | None = None, valid: bool = False) -> str:
    """A message_payload's content; `valid` keeps every value well-typed for its element."""
    kind = kind or draw(st.sampled_from(["raw", "text", "map", "bytes", "object", "order", "emp"]))
    v = "1" if valid else draw(st.sampled_from(["1", "00FF", "X", "", "2147483648", "abc", "1.5",
                                                "true"]))
    if kind == "raw":
        return f"<RAW>{draw(st.sampled_from(['00', 'CAFE', 'ABC', 'zz', '', 'de ad', v]))}</RAW>"
    props = ""
    if draw(st.booleans()):
        t = draw(st.sampled_from(["int_value", "string_value", "long_value", "double_value",
                                  "boolean_value", "float_value", "short_value", "byte_value",
                                  "string_value"]))
        props = f"<user_properties><property><name>p</name><{t}>{v}</{t}></property></user_properties>"
    header = f"<oracle_jms_properties><type>t</type><userid>u</userid></oracle_jms_properties>{props}"
    if kind == "text":
        return f"<jms_text_message>{header}<text_data>{v}</text_data></jms_text_message>"
    if kind == "bytes":
        return f"<jms_bytes_message>{header}<bytes_data>{v}</bytes_data></jms_bytes_message>"
    if kind == "object":
        return f"<jms_object_message>{header}<ser_object_data>{v}</ser_object_data></jms_object_message>"
    if kind == "map":
        t = draw(st.sampled_from(["int_value", "string_value", "boolean_value", "double_value"]))
        return (f"<jms_map_message>{header}<map_data><item><name>k</name><{t}>{v}</{t}></item>"
                "</map_data></jms_map_message>")
    if kind == "emp":
        return f"<EMP_TYP><EMPNO>{v}</EMPNO><ENAME>SCOTT</ENAME></EMP_TYP>"
    return (f"<ORDER_TYP><ORDERNO>{v}</ORDERNO><STATUS>NEW</STATUS><CUSTOMER><CUSTNO>{v}</CUSTNO>"
            f"</CUSTOMER><ITEMS><ITEMS_ITEM><QUANTITY>{v}</QUANTITY></ITEMS_ITEM></ITEMS></ORDER_TYP>")


DESTINATIONS = st.sampled_from(["AQUSER.RAW_MSGQ", "aquser.raw_msgq", "AQUSER.JMS_TEXTQ",
                                "QS.NEW_ORDERS_QUE", "AQUSER.EMP_TOPIC", "AQUSER.NOPE", "x",
                                "a.b.c", '"AQUSER"."RAW_MSGQ"', "AQUSER.RAW_MSGQ'--", ""])


# (destination, operation, payload kind) that the gateway tests' queues accept
FITTING = [("AQUSER.RAW_MSGQ", "AQXmlSend", "raw"), ("AQUSER.JMS_TEXTQ", "AQXmlSend", "text"),
           ("QS.NEW_ORDERS_QUE", "AQXmlSend", "order"), ("AQUSER.EMP_TOPIC", "AQXmlPublish", "emp"),
           ("AQUSER.JMS_MAP_TOPIC", "AQXmlPublish", "map")]


@st.composite
def fitting_sends(draw: st.DrawFn) -> bytes:
    """Send/Publish requests that fit one of the test queues: what mutations start from."""
    dest, name, kind = draw(st.sampled_from(FITTING))
    return draw(envelopes(st.just(dest), (name,), kind=kind, valid=True))


@st.composite
def envelopes(draw: st.DrawFn, destinations: st.SearchStrategy[str] = DESTINATIONS,
              operations: tuple[str, ...] = OPERATIONS, kind: str | None = None,
              valid: bool = False) -> bytes:
    """Valid-ish IDAP requests of every operation, with optional parts chosen at random."""
    name = draw(st.sampled_from(operations))
    dest = f"<destination>{draw(destinations)}</destination>"
    commit = "<AQXmlCommit/>" if draw(st.booleans()) else ""
    if name in ("AQXmlSend", "AQXmlPublish"):
        vis = draw(st.sampled_from(["", "<visibility>IMMEDIATE</visibility>",
                                    "<visibility>ON_COMMIT</visibility>"]))
        msgs = []
        n = draw(st.integers(1, 3))
        for i in range(n):
            # the schema's order: correlation, delay, expiration, priority, sender_id,
            # recipient_list, exception_queue
            before = "".join(part for part in ("<correlation>C</correlation>", "<delay>0</delay>",
                                               "<expiration>60</expiration>", "<priority>1</priority>")
                             if draw(st.booleans()))
            recipients = ("<recipient_list><recipient><agent_name>APP1</agent_name></recipient>"
                          "</recipient_list>")
            if valid:  # a publish names its recipient; a send has none
                after = recipients if name == "AQXmlPublish" else ""
            else:
                after = "".join(part for part in (recipients, "<exception_queue>AQUSER.EXC</exception_queue>")
                                if not draw(st.integers(0, 3)))
            number = f"<message_number>{i + 1}</message_number>" if draw(st.booleans()) else ""
            msgs.append(f"<message>{number}<message_header>{before}<sender_id><agent_name>s"
                        f"</agent_name></sender_id>{after}</message_header>"
                        f"<message_payload>{draw(payloads(kind, valid))}</message_payload></message>")
        count = f"<message_count>{n}</message_count>" if draw(st.booleans()) else ""
        body = _op(name, f"<producer_options>{dest}{vis}</producer_options>"
                         f"<message_set>{count}{''.join(msgs)}</message_set>{commit}")
    elif name == "AQXmlReceive":
        sel = draw(st.sampled_from(["", "<selector><correlation>C</correlation></selector>",
                                    "<selector><condition>priority &gt; 1</condition></selector>",
                                    "<selector><message_id>00</message_id></selector>"]))
        opts = draw(st.sampled_from(["", "<consumer_name>APP1</consumer_name>"]))
        body = _op(name, f"<consumer_options>{dest}{opts}<wait_time>0</wait_time>{sel}"
                         f"<batch_size>2</batch_size></consumer_options>{commit}")
    elif name == "AQXmlRegister":
        body = _op(name, f"<register_options>{dest}<consumer_name>APP1</consumer_name>"
                         f"<notify_url>mailto:a@b.c</notify_url></register_options>{commit}")
    else:
        body = _op(name, "")
    return _envelope(body)


def _tree(data: bytes) -> etree._Element:
    return etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    """A seed or a generated envelope, left intact or mutated as a tree and/or as bytes."""
    base = draw(st.one_of(st.sampled_from(SEEDS), envelopes()))
    if draw(st.integers(0, 4)):
        base = etree.tostring(draw(mutate_tree(_tree(base))))
    if draw(st.integers(0, 2)) == 0:
        base = draw(mutate_bytes(base))
    return base
