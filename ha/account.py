"""After the cells: the producers stop, the consumers drain, and every id is accounted
for. The truth for the SQL clients is the ledger they commit with each dequeue; for IDAP
and the JMS clients (pgaq.jms, the Java provider) what the clients were told, with the
queue table's retained rows telling a lost message from a Receive whose answer was lost."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field

import asyncpg

from .load import DB_ERRORS, Load
from .mesh import Mesh

LEDGER = "SELECT dest, id, count(*) AS n FROM ha_ledger GROUP BY dest, id"
IDAP_KEPT = "SELECT convert_from(user_data, 'UTF8') AS id, msg_state FROM ha.aq$idap_t"
NOTES = """
SELECT n.id::text AS nid, n.state, convert_from(v.user_data, 'UTF8') AS id
FROM aq.notifications n JOIN ha.aq$note_t v ON v.msg_id = upper(encode(n.msgid, 'hex'))
"""
PENDING = "SELECT count(*) AS n FROM aq.notifications WHERE state IN ('PENDING', 'SENDING')"
LEDGER_DESTS = ("sql", "prop", "note")
JMS_KINDS = ("jms", "java")  # JMS AUTO_ACKNOWLEDGE: a repeat is allowed when flagged redelivered


@dataclass
class Tally:
    """One destination: what was acknowledged, and what became of it."""

    acked: int = 0
    delivered: int = 0  # acknowledged and received (or consumed with its answer lost)
    answer_lost: int = 0  # consumed, but the client never saw the answer (IDAP Receive)
    lost: list[str] = field(default_factory=list)
    duplicated: int = 0  # received more than once, against the contract
    redelivered: int = 0  # received again where the contract allows it (JMS AUTO_ACK)
    unsure_committed: int = 0  # sends whose answer was lost but which did commit
    unknown: list[str] = field(default_factory=list)  # received, but nobody sent it


@dataclass
class Accounts:
    tallies: dict[str, Tally] = field(default_factory=dict)
    notifications: Counter[str] = field(default_factory=Counter)  # state -> n
    notes_unseen: int = 0  # DELIVERED, but the receiver never saw the id
    notes_missing: int = 0  # an acknowledged message with no notification
    drain_seconds: float = 0.0


async def _fetch(dsn: str, sql: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        return list(await conn.fetch(sql))
    finally:
        await conn.close()


def _ledger_counts(rows: list[asyncpg.Record]) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {d: Counter() for d in LEDGER_DESTS}
    for r in rows:
        out.setdefault(r["dest"], Counter())[r["id"]] = r["n"]
    return out


async def drain(mesh: Mesh, load: Load, timeout: float) -> float:
    """Stop producing; wait until every acknowledged id has reached its consumer (polled:
    the consumers are other tasks and processes)."""
    await load.pause()
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        load.check()
        try:
            ledger = _ledger_counts(await _fetch(mesh.dsn, LEDGER))
            kept = {r["id"] for r in await _fetch(mesh.dsn, IDAP_KEPT) if r["msg_state"] == "PROCESSED"}
        except DB_ERRORS:
            await asyncio.sleep(0.5)
            continue
        waiting = 0
        for kind, book in load.rec.acked.items():
            seen = (ledger[kind] if kind in LEDGER_DESTS else load.rec.got.get(kind, Counter()))
            waiting += sum(1 for i in book if i not in seen and not (kind == "idap" and i in kept))
        try:
            pending = await _fetch(mesh.dsn, PENDING)
        except DB_ERRORS:
            continue
        if waiting == 0 and pending[0]["n"] == 0:
            return time.monotonic() - start
        await asyncio.sleep(0.5)
    return time.monotonic() - start


async def account(mesh: Mesh, load: Load, drain_seconds: float) -> Accounts:
    acc = Accounts(drain_seconds=drain_seconds)
    ledger = _ledger_counts(await _fetch(mesh.dsn, LEDGER))
    idap_rows = await _fetch(mesh.dsn, IDAP_KEPT)
    processed = {r["id"] for r in idap_rows if r["msg_state"] == "PROCESSED"}
    kinds = ("idap", "jms", *(("java",) if load.java is not None else ()), *LEDGER_DESTS)
    for kind in kinds:
        t = acc.tallies[kind] = Tally()
        acked = load.rec.acked.get(kind, {})
        unsure = load.rec.unsure.get(kind, set()) - acked.keys()
        seen: Counter[str] = ledger[kind] if kind in LEDGER_DESTS else load.rec.got.get(kind, Counter())
        t.acked = len(acked)
        for i in acked:
            if seen[i]:
                t.delivered += 1
            elif kind == "idap" and i in processed:
                t.delivered += 1
                t.answer_lost += 1
            else:
                t.lost.append(i)
        for i, n in seen.items():
            if i not in acked and i not in unsure:
                t.unknown.append(i)
            if i in unsure:
                t.unsure_committed += 1
            if n > 1:
                if kind in JMS_KINDS:
                    t.redelivered += n - 1
                else:
                    t.duplicated += n - 1
        if kind == "idap":
            t.unsure_committed += sum(1 for i in processed if i in unsure and not seen[i])
    notes = await _fetch(mesh.dsn, NOTES)
    noted = set()
    for r in notes:
        acc.notifications[r["state"]] += 1
        noted.add(r["id"])
        if r["state"] == "DELIVERED" and not mesh.sink.seen[r["nid"]]:
            acc.notes_unseen += 1
    acc.notes_missing = sum(1 for i in load.rec.acked.get("note", {}) if i not in noted)
    return acc
