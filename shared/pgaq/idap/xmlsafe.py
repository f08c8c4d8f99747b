"""Parsing untrusted XML: no DTDs, no entity expansion, no network, bounded size and depth."""

from __future__ import annotations

import functools
import re
import threading

from lxml import etree

from ..errors import PgaqError

_DOCTYPE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


class XmlError(PgaqError):
    """The document is not acceptable XML (a client error)."""


_local = threading.local()  # lxml parsers are reusable, but not across threads


def _parser() -> etree.XMLParser:
    """This thread's parser, made once: a fresh parser per request costs a third of the
    parse (its dictionary starts empty)."""
    parser: etree.XMLParser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = _new_parser()
    return parser


@functools.lru_cache(maxsize=8)
def _deeper_than(depth: int) -> etree.XPath:
    """True when some element sits below `depth` levels (evaluated in libxml2, not Python)."""
    return etree.XPath("boolean(/*" + "/*" * depth + ")")


_COUNT = etree.XPath("count(//*)")
# encodings in which '<' is always the byte 0x3C (UTF-16 holds it in one of its two bytes)
_LT_ENCODINGS = frozenset({"UTF-8", "UTF8", "US-ASCII", "ASCII", "ISO-8859-1", "LATIN1",
                           "UTF-16", "UTF-16LE", "UTF-16BE"})


def _new_parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        collect_ids=False,
    )


def parse(data: bytes, *, max_depth: int = 64, max_elements: int = 200_000) -> etree._Element:
    """Parse a request document; DOCTYPE declarations are refused outright."""
    head = data[:4096]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        # UTF-16: look for a DOCTYPE in the decoded text too
        try:
            probe = data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError as exc:
            raise XmlError("malformed XML: bad UTF-16 encoding") from exc
    else:
        probe = data
    if _DOCTYPE.search(probe):
        raise XmlError("DTDs and entity declarations are not allowed")
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise XmlError(f"malformed XML: {exc.msg}") from exc
    if root is None:
        raise XmlError("empty document")
    info = root.getroottree().docinfo
    if info.doctype or info.internalDTD is not None:
        raise XmlError("DTDs are not allowed")
    # every element starts with a '<' byte in these encodings, so a document with few of
    # them cannot break either limit (most requests): the tree walks are skipped
    countable = (info.encoding or "").upper() in _LT_ENCODINGS
    tags = data.count(b"<") if countable else max_depth + max_elements + 1
    if tags > max_depth and _deeper_than(max_depth)(root):
        raise XmlError(f"document nested deeper than {max_depth} elements")
    if tags > max_elements and _COUNT(root) > max_elements:
        raise XmlError(f"document has more than {max_elements} elements")
    return root


def local(el: etree._Element) -> str:
    """The element's name without its namespace."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def ns(el: etree._Element) -> str | None:
    tag = el.tag
    if isinstance(tag, str) and tag.startswith("{"):
        return tag[1:].split("}", 1)[0]
    return None


def children(el: etree._Element) -> list[etree._Element]:
    """The element children (comments, PIs and entities are not elements)."""
    return [c for c in el if isinstance(c.tag, str)]


def child(el: etree._Element, name: str) -> etree._Element | None:
    """First child with this local name (namespaces ignored)."""
    for c in el:
        if isinstance(c.tag, str) and local(c) == name:
            return c
    return None


def text(el: etree._Element | None) -> str | None:
    if el is None:
        return None
    if len(el) == 0:  # a leaf: its text is all there is
        return (el.text or "").strip()
    return "".join(el.itertext()).strip()


def index(el: etree._Element) -> dict[str, etree._Element]:
    """Children by local name (the first of each), for elements read field by field."""
    out: dict[str, etree._Element] = {}
    for c in el:
        tag = c.tag
        if isinstance(tag, str):
            out.setdefault(tag.rsplit("}", 1)[-1], c)
    return out
