"""Validation of IDAP documents against the corrected published schemas (schemas/).

The schemas are loaded once, from local files only (no network, no DTDs). The printed
IDAP schema puts named payload elements and a wildcard in one choice, which XSD 1.0
forbids (Unique Particle Attribution) and XSD 1.1 allows, so the reference validator
(xmlschema) loads it as XSD 1.1. The request hot path uses libxml2 over an XSD 1.0
variant of the same schema (FastValidator), which checks the same things far faster
(docs/gateway.md, "Measurements behind the defaults").
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lxml import etree

from ..settings import Environment

if TYPE_CHECKING:
    # imported where the reference validator is loaded: the gateway's requests go through
    # FastValidator, and xmlschema's import costs each process that never needs it ~0.13 CPU-s
    import xmlschema
    from xmlschema.validators import ValidationMixin

NS_SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
NS_AQ = "http://ns.oracle.com/AQ/schemas/access"
NS_XSD = "http://www.w3.org/2001/XMLSchema"

#: The client requests (the WSDL's operations), their responses and the notification
#: document: the only IDAP elements that may stand as the SOAP Body's first child.
OPERATIONS = ("AQXmlSend", "AQXmlPublish", "AQXmlReceive", "AQXmlRegister", "AQXmlCommit",
              "AQXmlRollback")
RESPONSES = tuple(f"{op}Response" for op in OPERATIONS)
BODY_ELEMENTS = frozenset(f"{{{NS_AQ}}}{n}" for n in (*OPERATIONS, *RESPONSES, "AQXmlNotification"))

# The payload elements the IDAP schema names beside its wildcard: the 1.0 variant keeps
# only the wildcard, so the fast validator checks these against their declarations itself.
_NAMED_PAYLOADS = frozenset(
    f"{{{NS_AQ}}}{n}" for n in ("raw", "jms_text_message", "jms_map_message", "jms_bytes_message",
                                "jms_object_message"))
_PAYLOAD = f"{{{NS_AQ}}}message_payload"
_ENVELOPE = f"{{{NS_SOAP}}}Envelope"
_BODY = f"{{{NS_SOAP}}}Body"
_PREFIXES = {NS_SOAP: "soap", NS_AQ: "aq"}
_MAX_REASON = 240


class SchemaError(Exception):
    """The document does not follow the SOAP/IDAP schemas: a client error whose text is
    safe to return in a Fault (no server paths, bounded length)."""

    def __init__(self, reason: str, path: str) -> None:
        super().__init__(f"{reason} (at {path})")
        self.reason = reason
        self.path = path


def schemas_dir() -> Path:
    """The repo's schemas/ folder (the package is installed in editable mode), unless
    PGAQ_SCHEMAS_DIR points elsewhere (an installed copy, a test fixture)."""
    env = Environment().text("PGAQ_SCHEMAS_DIR")
    folder = Path(env) if env else Path(__file__).resolve().parents[3] / "schemas"
    if not (folder / "aq_access.xsd").is_file():
        raise FileNotFoundError(f"{folder / 'aq_access.xsd'} not found; set PGAQ_SCHEMAS_DIR")
    return folder


@cache
def load_schemas(path: Path | None = None) -> xmlschema.XMLSchema11:
    """The reference validator: the published IDAP schema (XSD 1.1, see the module
    docstring) with the SOAP envelope schema it imports, read from `path` only."""
    import xmlschema

    folder = path or schemas_dir()
    # local: no network (imports are relative files); defuse: no DTDs or entities
    return xmlschema.XMLSchema11(str(folder / "aq_access.xsd"), allow="local", defuse="always")


def xsd10_variant(path: Path | None = None) -> etree._Element:
    """The IDAP schema as XSD 1.0: where a choice mixes named elements with a wildcard (a
    UPA violation in 1.0), keep the wildcard. A fresh tree on each call (callers edit it)."""
    folder = path or schemas_dir()
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    root = etree.parse(str(folder / "aq_access.xsd"), parser).getroot()
    xs = f"{{{NS_XSD}}}"
    for choice in root.iter(f"{xs}choice"):
        if any(c.tag == f"{xs}any" for c in choice):
            for c in list(choice):
                if c.tag != f"{xs}any":
                    choice.remove(c)
    for imp in root.findall(f"{xs}import"):
        imp.set("schemaLocation", (folder / "soap_env.xsd").as_uri())
    return root


_Found = tuple[etree._Element, str]  # (offending element, reason)


class FastValidator:
    """libxml2's validator (C) over the XSD 1.0 variant, for the request hot path. The
    payload rule the variant drops (a named payload element stands alone and follows its
    declaration) is checked here, so it accepts what the XSD 1.1 reference accepts."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.schema = etree.XMLSchema(xsd10_variant(path))

    def _check(self, el: etree._Element) -> _Found | None:
        # lxml validates a subtree in place (as the root of a fake document): no copy
        if self.schema.validate(el):
            return None
        entry = next(iter(self.schema.error_log), None)  # the first error, as xmlschema
        if entry is None:
            return el, "invalid"
        return _resolve_libxml2_path(el, entry.path), entry.message

    def first_error(self, op: etree._Element) -> _Found | None:
        found = self._check(op)
        if found is not None:
            return found
        for payload in op.iter(_PAYLOAD):
            if len(payload) == 1 and payload[0].tag not in _NAMED_PAYLOADS:
                continue  # one wildcard element (or a comment): nothing more to check
            elements = [c for c in payload if isinstance(c.tag, str)]
            named = [c for c in elements if c.tag in _NAMED_PAYLOADS]
            if named and len(elements) > 1:
                return named[0], f"{_local(named[0])} must be the only element in message_payload"
            if named and (found := self._check(named[0])) is not None:
                return found
        return None


@cache
def load_fast_validator(path: Path | None = None) -> FastValidator:
    return FastValidator(path)


def _local(el: etree._Element) -> str:
    return str(el.tag).rsplit("}", 1)[-1]


def _resolve_libxml2_path(root: etree._Element, path: str | None) -> etree._Element:
    """libxml2 reports '/*/*[2]/x' from the validated subtree's root; find that element."""
    steps = (path or "").split("/")[2:]
    if not steps:
        return root
    try:
        hits = root.xpath("/".join(steps), namespaces={k: v for k, v in root.nsmap.items() if k})
    except etree.XPathError:
        return root
    return hits[0] if isinstance(hits, list) and hits and isinstance(hits[0], etree._Element) else root


def _first_xmlschema_error(
    component: xmlschema.XMLSchemaBase | ValidationMixin[Any, Any], el: etree._Element, **kwargs: Any
) -> _Found | None:
    """The first error xmlschema finds (a schema, or a type with its own namespaces)."""
    err = next(iter(component.iter_errors(el, **kwargs)), None)
    if err is None:
        return None
    where = err.elem if isinstance(err.elem, etree._Element) else el
    index = getattr(err, "index", None)
    if isinstance(index, int) and 0 <= index < len(where) and isinstance(where[index].tag, str):
        where = where[index]  # the unexpected child itself, not its parent
    return where, err.reason or "invalid"


def xpath_of(el: etree._Element) -> str:
    """A short XPath of an element, with soap:/aq: prefixes and positions where needed."""
    steps: list[str] = []
    node: etree._Element | None = el
    while node is not None:
        tag = str(node.tag)
        uri, _, name = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
        if not uri:
            step = name
        elif uri in _PREFIXES:
            step = f"{_PREFIXES[uri]}:{name}"
        else:
            step = f"*[local-name()='{name}']"
        parent = node.getparent()
        if parent is not None:
            same = [c for c in parent if c.tag == node.tag]
            if len(same) > 1:
                step += f"[{same.index(node) + 1}]"
        steps.append(step)
        node = parent
    return "/" + "/".join(reversed(steps))


def _fail(el: etree._Element, reason: str) -> SchemaError:
    lines = (reason or "").strip().splitlines()
    text = lines[0] if lines else "invalid"
    for uri, prefix in _PREFIXES.items():
        text = text.replace(f"{{{uri}}}", f"{prefix}:")
    if len(text) > _MAX_REASON:
        text = text[: _MAX_REASON - 3] + "..."
    return SchemaError(text, xpath_of(el))


def _only_whitespace(el: etree._Element) -> bool:
    if el.text and el.text.strip():
        return False
    return all(not (c.tail and c.tail.strip()) for c in el)


_EMPTY = frozenset({f"{{{NS_AQ}}}AQXmlCommit", f"{{{NS_AQ}}}AQXmlRollback"})


def _normalise_empty(op: etree._Element) -> None:
    # <AQXmlCommit> with only whitespace inside is the empty element clients mean; the
    # schema's empty content type would reject the whitespace. The schema has these only
    # as the operation itself or as an operation's last child: no walk of the tree.
    el = op if op.tag in _EMPTY else (op[-1] if len(op) else None)
    if el is not None and not isinstance(el.tag, str):  # a trailing comment or PI
        el = next((c for c in reversed(op) if isinstance(c.tag, str)), None)
    if el is not None and el.tag in _EMPTY and el.text is not None and not el.text.strip() \
            and not len(el):
        el.text = None


def _check_envelope(env: etree._Element) -> etree._Element:
    """The envelope schema by hand: its strict wildcards would demand a declaration for
    every header entry a toolkit adds, so only its structure is checked. Returns Body."""
    if len(env) == 1 and env.tag == _ENVELOPE:  # the usual request: a Body alone
        body = env[0]
        if (body.tag == _BODY and not (env.text and env.text.strip())
                and not (body.tail and body.tail.strip()) and _only_whitespace(body)):
            return body
    if env.tag != _ENVELOPE:
        if _local(env) == "Envelope":
            raise _fail(env, f"the Envelope must be in the SOAP 1.1 namespace {NS_SOAP}")
        raise _fail(env, "the document is not a SOAP Envelope")
    if not _only_whitespace(env):
        raise _fail(env, "text is not allowed directly in the Envelope")
    parts = [c for c in env if isinstance(c.tag, str)]
    i = 0
    if parts and parts[0].tag == f"{{{NS_SOAP}}}Header":
        for entry in parts[0]:
            if isinstance(entry.tag, str) and not str(entry.tag).startswith("{"):
                raise _fail(entry, "SOAP header entries must be namespace-qualified")
            must = entry.get(f"{{{NS_SOAP}}}mustUnderstand") if isinstance(entry.tag, str) else None
            if must not in (None, "0", "1"):
                raise _fail(entry, "mustUnderstand must be 0 or 1")
        i = 1
    if i >= len(parts) or parts[i].tag != f"{{{NS_SOAP}}}Body":
        where = parts[i] if i < len(parts) else env
        raise _fail(where, "the Envelope must hold an optional Header followed by a Body")
    for extra in parts[i + 1:]:
        if extra.tag in (f"{{{NS_SOAP}}}Header", f"{{{NS_SOAP}}}Body"):
            raise _fail(extra, "the Envelope must hold an optional Header followed by one Body")
        if not str(extra.tag).startswith("{"):
            raise _fail(extra, "elements after the Body must be namespace-qualified")
    body = parts[i]
    if not _only_whitespace(body):
        raise _fail(body, "text is not allowed directly in the Body")
    return body


def validate(
    tree: etree._Element | etree._ElementTree,
    schema: xmlschema.XMLSchemaBase | FastValidator | None = None,
) -> None:
    """Check a whole SOAP document: the envelope's structure, then the Body's single IDAP
    operation (or response, or SOAP Fault) against the schema. Raises SchemaError."""
    env = tree.getroot() if isinstance(tree, etree._ElementTree) else tree
    body = _check_envelope(env)
    ops = [c for c in body if isinstance(c.tag, str)]
    if len(ops) != 1:
        raise _fail(body, "the SOAP Body must hold exactly one IDAP element")
    op = ops[0]
    s = schema if schema is not None else load_schemas()
    found: _Found | None
    if op.tag == f"{{{NS_SOAP}}}Fault":
        ref = load_schemas(s.path) if isinstance(s, FastValidator) else s
        # the envelope schema declares Fault only as a type; its faultcode is a QName,
        # resolved with the element's in-scope namespaces
        fault_type = ref.maps.types[f"{{{NS_SOAP}}}Fault"]
        namespaces = {k or "": v for k, v in op.nsmap.items()}
        found = _first_xmlschema_error(fault_type, op, namespaces=namespaces)
    elif op.tag not in BODY_ELEMENTS:
        if str(op.tag).startswith(f"{{{NS_AQ}}}"):
            raise _fail(op, f"{_local(op)} is not an IDAP operation")
        raise _fail(op, f"{_local(op)} is not an IDAP operation (not in the namespace {NS_AQ})")
    else:
        _normalise_empty(op)
        if isinstance(s, FastValidator):
            found = s.first_error(op)
        else:
            found = _first_xmlschema_error(s, op)
    if found is not None:
        raise _fail(*found)
