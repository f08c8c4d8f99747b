"""The operator commands, each a thin layer over SQL in the engine (R__92_operator.sql, the
dictionary views, dbms_aqadm) run on the caller's connection with the caller's rights.

Each takes the connection and the parsed arguments and returns an Outcome: what `--json`
prints and what a person reads.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import asyncpg

from ..errors import PgaqError, wrap_db_error
from ..queries import load
from .output import clip, rate, seconds, table


@dataclass(frozen=True)
class Outcome:
    data: Any   # for --json
    text: str   # for a person


Command = Callable[[asyncpg.Connection, argparse.Namespace], Awaitable[Outcome]]


def _rows(records: list[asyncpg.Record]) -> list[dict[str, Any]]:
    return [dict(r) for r in records]


def _enabled(row: Mapping[str, Any]) -> str:
    enq, deq = row["enqueue_enabled"], row["dequeue_enabled"]
    return "enq+deq" if enq and deq else "enq" if enq else "deq" if deq else "stopped"


async def queues(conn: asyncpg.Connection, args: argparse.Namespace) -> Outcome:
    rows = _rows(await conn.fetch(load("ops_queues")))
    shown = [{**r, "queue": f"{r['owner']}.{r['queue_name']}", "enabled": _enabled(r),
              "type": "EXCEPTION" if r["queue_type"] == "EXCEPTION_QUEUE" else "NORMAL"}
             for r in rows]
    text = table(shown, [("queue", "QUEUE"), ("type", "TYPE"), ("enabled", "ENABLED"),
                        ("ready", "READY"), ("waiting", "WAITING"), ("expired", "EXPIRED"),
                        ("oldest_ready_age", "OLDEST READY"), ("enqueue_rate", "ENQ RATE"),
                        ("dequeue_rate", "DEQ RATE"), ("buffered", "BUFFERED"),
                        ("exception_queue", "EXCEPTION QUEUE")],
                 {"oldest_ready_age": seconds, "enqueue_rate": rate, "dequeue_rate": rate})
    return Outcome(rows, text)


async def subscribers(conn: asyncpg.Connection, args: argparse.Namespace) -> Outcome:
    rows = _rows(await conn.fetch(load("ops_subscribers"), args.queue))
    text = table(rows, [("name", "NAME"), ("address", "ADDRESS"), ("protocol", "PROTOCOL"),
                        ("delivery_mode", "DELIVERY"), ("ready", "READY"), ("waiting", "WAITING"),
                        ("rule", "RULE"), ("transformation", "TRANSFORMATION"),
                        ("created", "CREATED")], {"rule": clip(40)})
    return Outcome(rows, text)


async def schedules(conn: asyncpg.Connection, args: argparse.Namespace) -> Outcome:
    rows = _rows(await conn.fetch(load("ops_schedules")))
    text = table(rows, [("queue", "QUEUE"), ("destination", "DESTINATION"), ("state", "STATE"),
                        ("failures", "FAILURES"), ("last_error_date", "LAST ERROR AT"),
                        ("last_error_msg", "LAST ERROR"), ("last_run_date", "LAST RUN"),
                        ("next_run_date", "NEXT RUN"), ("total_number", "SENT")],
                 {"last_error_msg": clip(50)})
    return Outcome(rows, text)


async def peek(conn: asyncpg.Connection, args: argparse.Namespace) -> Outcome:
    rows = _rows(await conn.fetch(load("ops_peek"), args.queue, args.consumer, args.n))
    for r in rows:
        raw = r.pop("payload_raw")
        text_json = r.pop("payload_json")
        r["payload"] = json.loads(text_json) if text_json is not None else (
            raw.hex().upper() if raw is not None else None)
    text = table(rows, [("msgid", "MSGID"), ("state", "STATE"), ("priority", "PRIORITY"),
                        ("correlation", "CORRELATION"), ("enq_time", "ENQUEUED"),
                        ("attempts", "ATTEMPTS"), ("payload", "PAYLOAD")],
                 {"payload": lambda v: clip(60)(json.dumps(v) if isinstance(v, dict) else v)})
    return Outcome(rows, f"{text}\n({len(rows)} message(s) browsed, none taken)")


async def requeue(conn: asyncpg.Connection, args: argparse.Namespace) -> Outcome:
    moved: list[dict[str, Any]] = []
    # one call per batch, each its own transaction: a batch moves whole or not at all, and
    # an interruption leaves what is not moved in the exception queue
    while True:
        try:
            batch = _rows(await conn.fetch(load("ops_requeue"), args.exception_queue, args.to,
                                           args.where, args.batch, args.dry_run))
        except asyncpg.PostgresError as exc:
            err = wrap_db_error(exc)
            if moved:
                raise PgaqError(f"{err} (requeued {len(moved)} message(s) before this error)",
                                err.code, err.sqlstate) from exc
            raise err from exc
        moved += batch
        if args.dry_run or len(batch) < args.batch:
            break
    verb = "would requeue" if args.dry_run else "requeued"
    text = table(moved, [("msgid", "MSGID"), ("to_queue", "TO"), ("new_msgid", "NEW MSGID")])
    summary = f"{verb} {len(moved)} message(s) from {args.exception_queue}"
    data = {"exception_queue": args.exception_queue, "dry_run": args.dry_run,
            "count": len(moved), "messages": moved}
    return Outcome(data, f"{text}\n{summary}" if moved else summary)


async def purge(conn: asyncpg.Connection, args: argparse.Namespace) -> Outcome:
    row = await conn.fetchrow(load("ops_purge"), args.queue_table, args.where, args.block,
                              args.dry_run)
    assert row is not None  # aq.purge returns one row
    data = {"queue_table": args.queue_table, "condition": args.where, "dry_run": args.dry_run,
            "selected": row["selected"], "purged": row["purged"]}
    text = (f"would purge {row['selected']} row(s) of {args.queue_table}" if args.dry_run
            else f"purged {row['purged']} of {row['selected']} selected row(s) of {args.queue_table}")
    return Outcome(data, text)


async def _switch(conn: asyncpg.Connection, args: argparse.Namespace, query: str) -> Outcome:
    enqueue = not args.dequeue_only
    dequeue = not args.enqueue_only
    await conn.execute(load(query), args.queue, enqueue, dequeue)
    row = dict(await conn.fetchrow(load("ops_queue_state"), args.queue) or {})
    text = f"{row['queue']}: enqueue {row['enqueue']}, dequeue {row['dequeue']}"
    return Outcome(row, text)


async def start(conn: asyncpg.Connection, args: argparse.Namespace) -> Outcome:
    return await _switch(conn, args, "ops_start")


async def stop(conn: asyncpg.Connection, args: argparse.Namespace) -> Outcome:
    return await _switch(conn, args, "ops_stop")


COMMANDS: dict[str, Command] = {
    "queues": queues, "subscribers": subscribers, "schedules": schedules, "peek": peek,
    "requeue": requeue, "purge": purge, "start": start, "stop": stop,
}
