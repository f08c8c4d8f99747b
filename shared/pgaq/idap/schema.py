"""Validation of IDAP documents against the corrected published schemas (schemas/).

The schemas are loaded once, from local files only (no network, no DTDs). The printed
IDAP schema puts named payload elements and a wildcard in one choice, which XSD 1.0
forbids (Unique Particle Attribution) and XSD 1.1 allows, so it is loaded as XSD 1.1.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

import xmlschema
from lxml import etree

from .request import NS_AQ, NS_SOAP
from .xmlsafe import child, children, local, ns


class SchemaError(Exception):
    """The document does not follow the IDAP schema (a client error)."""


def schemas_dir() -> Path:
    env = os.environ.get("PGAQ_SCHEMAS_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "schemas" / "aq_access.xsd"
        if candidate.exists():
            return candidate.parent
    raise FileNotFoundError("schemas/aq_access.xsd not found; set PGAQ_SCHEMAS_DIR")


@cache
def load_schemas(path: Path | None = None) -> Any:
    """The reference validator (xmlschema, XSD 1.1): the published schema as corrected."""
    folder = path or schemas_dir()
    return xmlschema.XMLSchema11(str(folder / "aq_access.xsd"), allow="local", defuse="always")


def xsd10_variant(path: Path | None = None) -> etree._Element:
    """The IDAP schema as XSD 1.0: where a choice mixes named elements with a wildcard (a
    UPA violation in 1.0), keep the wildcard, which accepts the same documents."""
    folder = path or schemas_dir()
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    root = etree.parse(str(folder / "aq_access.xsd"), parser).getroot()
    xs = "{http://www.w3.org/2001/XMLSchema}"
    for choice in root.iter(f"{xs}choice"):
        if any(c.tag == f"{xs}any" for c in choice):
            for c in list(choice):
                if c.tag != f"{xs}any":
                    choice.remove(c)
    for imp in root.findall(f"{xs}import"):
        imp.set("schemaLocation", (folder / "soap_env.xsd").as_uri())
    return root


class FastValidator:
    """libxml2's validator (C) over the XSD 1.0 variant, for the request hot path; the
    wildcarded payload is checked by the payload mapping instead."""

    def __init__(self, path: Path | None = None) -> None:
        self.schema = etree.XMLSchema(xsd10_variant(path))

    def iter_errors(self, op: etree._Element) -> Any:
        doc = etree.ElementTree(etree.fromstring(etree.tostring(op)))
        if not self.schema.validate(doc):
            for e in self.schema.error_log:
                yield _LxmlError(e.path, e.message)


class _LxmlError:
    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason


@cache
def load_fast_validator(path: Path | None = None) -> FastValidator:
    return FastValidator(path)


def _normalise_empty(op: etree._Element) -> None:
    # <AQXmlCommit> with only whitespace inside is the empty element clients mean
    for el in op.iter(f"{{{NS_AQ}}}AQXmlCommit", f"{{{NS_AQ}}}AQXmlRollback"):
        if el.text is not None and not el.text.strip() and not len(el):
            el.text = None


def validate(envelope: etree._Element, schema: Any | None = None) -> None:
    """Check the SOAP envelope's structure and its IDAP operation against the schema."""
    s = schema if schema is not None else load_schemas()
    if local(envelope) != "Envelope" or ns(envelope) != NS_SOAP:
        raise SchemaError(f"not a SOAP 1.1 envelope: {envelope.tag}")
    parts = children(envelope)
    body = child(envelope, "Body")
    if body is None or ns(body) != NS_SOAP:
        raise SchemaError("the envelope has no SOAP Body")
    header = child(envelope, "Header")
    if header is not None and parts.index(header) > parts.index(body):
        raise SchemaError("the SOAP Header must come before the Body")
    ops = children(body)
    if len(ops) != 1:
        raise SchemaError("the SOAP Body must hold exactly one IDAP operation")
    op = ops[0]
    if ns(op) != NS_AQ:
        raise SchemaError(f"{local(op)} is not in the IDAP namespace {NS_AQ}")
    _normalise_empty(op)
    error = next(iter(s.iter_errors(op)), None)
    if error is not None:
        where = getattr(error, "path", None) or local(op)
        reason = (error.reason or "invalid").splitlines()[0][:300]
        raise SchemaError(f"schema violation at {where}: {reason}")
