"""docs/jms.md's example (the Java JMS flow of Oracle's JMS guide, "JMS Streaming", ported line
for line) is run as the document shows it: its Python blocks between the example markers are
taken from the file itself, so the document and this test cannot drift, and run against a real
database."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import asyncpg
import pgaq.jms as jms
import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "jms.md"


def example_code() -> str:
    """The Python blocks between `<!-- example:start -->` and `<!-- example:end -->`."""
    text = DOC.read_text()
    section = text.split("<!-- example:start -->", 1)[1].split("<!-- example:end -->", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```$", section, flags=re.S | re.M)
    assert len(blocks) >= 3, "the example lost its Python blocks"
    return "\n".join(blocks)


async def run_example(dsn: str) -> dict[str, Any]:
    """The blocks as the body of one coroutine (top-level await, as in `python -m asyncio`);
    its local variables afterwards."""
    source = ("async def _example(dsn):\n" + textwrap.indent(example_code(), "    ")
              + "\n    return locals()\n")
    namespace: dict[str, Any] = {}
    exec(compile(source, str(DOC), "exec"), namespace)  # our own document, nothing else
    result: dict[str, Any] = await namespace["_example"](dsn)
    return result


async def test_the_documented_flow_does_what_the_java_one_does(
        conn: asyncpg.Connection, db_dsn: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    await conn.execute("CREATE SCHEMA jmsuser")
    monkeypatch.chdir(tmp_path)
    data = bytes(range(256)) * 40 + "é\x00 end".encode()
    (tmp_path / "somefile.data").write_bytes(data)

    out = await run_example(db_dsn)

    # the file went through the queue unchanged, as the BytesMessage that was sent
    assert (tmp_path / "received.data").read_bytes() == data
    message, sent = out["message"], out["bytes_message"]
    assert isinstance(message, jms.BytesMessage)
    assert message.jms_message_id == sent.jms_message_id
    assert str(message.jms_message_id).startswith("ID:")
    assert message.get_body_length() == len(data)
    assert not message.jms_redelivered and message.jms_delivery_mode == jms.PERSISTENT
    # the selector took the Fiction message, not the Poetry one sent before it
    selected = out["selected"]
    assert isinstance(selected, jms.BytesMessage)
    assert selected.jms_correlation_id == "Fiction" and selected.jms_priority == 2
    buf = bytearray(selected.get_body_length())
    selected.read_bytes(buf)
    assert bytes(buf) == b"Fiction"
    # acknowledged: removed; the Poetry message is still there, for anyone
    rows = await conn.fetch("SELECT corr_id, msg_state FROM jmsuser.aq$stream_qt")
    assert [(r["corr_id"], r["msg_state"]) for r in rows] == [("Poetry", "READY")]
    assert out["connection"].closed
