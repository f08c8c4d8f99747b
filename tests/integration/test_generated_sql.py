"""The SQL generated for each queue table, pinned (issue 20 part 3).

Creating a queue table generates its functions (aq.create_queue_table_functions and its
helpers: _enq, _send, _send1, _sendn, _deq, _recv, _rm1, _due) and the library's one-statement
REMOVE (aq.fast_path). Their text is written to tests/integration/snapshots/ for a
reference set of queue tables, so that a change to a generator shows up as a readable
diff of what PostgreSQL runs. After a deliberate change, regenerate with
PGAQ_UPDATE_SNAPSHOTS=1 and review the diff like code.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import asyncpg
import pytest

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("PGAQ_UPDATE_SNAPSHOTS", "") not in ("", "0")

# name -> the calls that make the reference queue table (schema gen, table t, queue q)
REFERENCE = {
    "single_raw": "CALL dbms_aqadm.create_queue_table('gen.t', 'RAW')",
    "single_object_priority": "CALL dbms_aqadm.create_queue_table('gen.t', 'gen.obj', sort_list => 'PRIORITY,ENQ_TIME')",
    "multi_raw": "CALL dbms_aqadm.create_queue_table('gen.t', 'RAW', multiple_consumers => true)",
    "multi_jms_text": "CALL dbms_aqadm.create_queue_table('gen.t', 'SYS.AQ$_JMS_TEXT_MESSAGE', multiple_consumers => true)",
    "single_grouped": "CALL dbms_aqadm.create_queue_table('gen.t', 'RAW', message_grouping => 'TRANSACTIONAL')",
}


async def _generated(conn: asyncpg.Connection) -> str:
    t = await conn.fetchrow("SELECT t.id, y.typrelid AS relid FROM aq.queue_tables t"
                            " JOIN pg_type y ON y.oid = t.payload_type WHERE t.schema_name = 'gen'")
    relid = t["relid"]
    parts = []
    for r in await conn.fetch(
            "SELECT p.proname, pg_get_functiondef(p.oid) AS def FROM pg_proc p"
            " JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname = 'gen' AND p.proname LIKE 'aq$\\_t\\_%' ORDER BY p.proname"):
        parts.append(f"-- {r['proname']}\n{r['def'].rstrip()}\n")
    fast = await conn.fetchrow("SELECT remove_sql, remove_after_sql, remove_n_sql, send_sql, remove_ids_sql "
                               "FROM aq.fast_path('gen.q')")
    for k in ("remove_sql", "remove_after_sql", "remove_n_sql", "send_sql", "remove_ids_sql"):
        parts.append(f"-- aq.fast_path('gen.q').{k}\n{(fast[k] or 'NULL').rstrip()}\n")
    text = "\n".join(parts)
    # what differs between databases: the table's id and the payload type's relation oid
    text = re.sub(rf"\b(queue_table_id = ){t['id']}\b", r"\1<table id>", text)
    if relid:
        text = re.sub(rf"\b(attrelid = ){relid}\b", r"\1<payload relid>", text)
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


@pytest.mark.parametrize("name", sorted(REFERENCE))
async def test_generated_sql_is_as_pinned(conn: asyncpg.Connection, name: str) -> None:
    await conn.execute("CREATE SCHEMA gen; CREATE TYPE gen.obj AS (n integer, s text)")
    await conn.execute(REFERENCE[name])
    await conn.execute("CALL dbms_aqadm.create_queue('gen.q', 'gen.t')")
    got = await _generated(conn)
    path = SNAPSHOTS / f"{name}.sql"
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"no snapshot {path.name}: run with PGAQ_UPDATE_SNAPSHOTS=1 and review it")
        path.write_text(got)
    assert got == path.read_text(), (
        f"the SQL generated for {name} changed: run with PGAQ_UPDATE_SNAPSHOTS=1 and review "
        f"the diff of {path.relative_to(Path(__file__).parents[2])}")
