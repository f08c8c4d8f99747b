"""redact_url (Python) and aq.redact_url (SQL) hide the same parts of a URL."""

from __future__ import annotations

import asyncpg
from pgaq.redact import redact_url

CASES = [
    ("http://host:8080/aqserv/servlet", "http://host:8080/aqserv/servlet"),
    ("http://u:pw@host/x", "http://***@host/x"),
    ("http://u:p@ss@host/x", "http://***@host/x"),
    ("postgresql://u:pw@h:5432/db?password=pw2&sslmode=require", "postgresql://***@h:5432/db?***"),
    ("postgres://h/db?password=pw", "postgres://h/db?***"),
    ("https://h/hook?token=t#frag", "https://h/hook?***"),
    ("mailto:ops@example.com", "mailto:***@example.com"),
    ("not a url", "not a url"),
]


def test_python_redaction() -> None:
    assert [redact_url(u) for u, _ in CASES] == [r for _, r in CASES]


async def test_sql_redaction_agrees(conn: asyncpg.Connection) -> None:
    got = [await conn.fetchval("SELECT aq.redact_url($1)", u) for u, _ in CASES]
    assert got == [r for _, r in CASES]
