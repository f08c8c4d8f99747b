"""Fuzzing the IDAP request path without a database: safe XML parse, schema check, request
parse and payload mapping. Every document is either read or refused with one of the
documented client errors (each of which the gateway turns into a Client fault with an
error_code); anything else would be a traceback and a Server fault (ORA-00600)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pgaq.idap.gateway import Fault, to_fault
from pgaq.idap.payload import PayloadError, xml_to_payload
from pgaq.idap.request import RequestError, SendRequest, parse_request
from pgaq.idap.schema import SchemaError, load_fast_validator, validate
from pgaq.idap.typeinfo import TypeInfo
from pgaq.idap.xmlsafe import XmlError, parse

from ..unit.test_idap_payload import EMP_TYP, ORDER_TYP
from .conftest import TIMEOUT, fuzz
from .strategies import SEEDS, documents, envelopes, mutate_bytes

CLIENT_ERRORS = (XmlError, SchemaError, RequestError, PayloadError)
VALIDATOR = load_fast_validator()
KINDS: list[tuple[str, TypeInfo | None]] = [
    ("RAW", None), ("JMS_TEXT", None), ("JMS_BYTES", None), ("JMS_MAP", None),
    ("JMS_OBJECT", None), ("OBJECT", ORDER_TYP), ("OBJECT", EMP_TYP),
]


def read(document: bytes) -> None:
    """The gateway's reading of a document, up to the engine call."""
    env = parse(document)
    validate(env, VALIDATOR)
    req = parse_request(env)
    if isinstance(req, SendRequest):
        for m in req.messages:
            if m.payload is None:
                continue
            for kind, info in KINDS:
                try:
                    xml_to_payload(kind, m.payload, info)
                except PayloadError as exc:
                    assert_client_fault(exc)


def assert_client_fault(exc: Exception) -> None:
    fault = to_fault(exc)
    assert isinstance(fault, Fault)
    assert fault.client, (exc, fault.message)
    assert fault.code is not None, exc
    assert fault.message.startswith("ORA-"), fault.message


def check(document: bytes) -> None:
    try:
        read(document)
    except CLIENT_ERRORS as exc:
        assert_client_fault(exc)


@pytest.mark.parametrize("seed", range(len(SEEDS)))
def test_seed_examples_read_or_refused_cleanly(seed: int) -> None:
    check(SEEDS[seed])


@pytest.mark.timeout(TIMEOUT)
@fuzz(300)
@given(documents())
def test_mutated_documents_never_crash(document: bytes) -> None:
    check(document)


@pytest.mark.timeout(TIMEOUT)
@fuzz(150)
@given(envelopes())
def test_generated_envelopes_never_crash(document: bytes) -> None:
    check(document)


@pytest.mark.timeout(TIMEOUT)
@fuzz(150)
@given(st.sampled_from(SEEDS).flatmap(mutate_bytes))
def test_byte_mutations_never_crash(document: bytes) -> None:
    check(document)


@pytest.mark.timeout(TIMEOUT)
@fuzz(100)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_crash(document: bytes) -> None:
    check(document)
