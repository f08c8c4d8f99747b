"""`pgaq queues|subscribers|schedules|peek|requeue|purge|start|stop`: the operator's
chores without writing SQL. Each connects as `pgaq sql` does and runs as that user.

Exit codes (docs/operations.md, "Operator commands"):
  0  done, including nothing to do (an empty list, nothing matched: read the count)
  1  the database refused or failed; its ORA-nnnnn text is on stderr
  2  bad arguments (argparse's usage message on stderr)
  3  no database to talk to (no PGAQ_DSN and no running `pgaq up`, or it does not answer)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable

import asyncpg

from ..errors import ConfigError, ConnectionLost, PgaqError, wrap_db_error
from .commands import COMMANDS
from .output import dump_json

OK, DATABASE_ERROR, USAGE, UNREACHABLE = 0, 1, 2, 3

__all__ = ["COMMANDS", "DATABASE_ERROR", "OK", "UNREACHABLE", "USAGE", "run"]


def _notice(command: str) -> Callable[[asyncpg.Connection, asyncpg.PostgresLogMessage], None]:
    # what the engine says on the side (start_queue on an exception queue: dequeue only)
    def show(_conn: asyncpg.Connection, message: asyncpg.PostgresLogMessage) -> None:
        print(f"pgaq {command}: {message.message}", file=sys.stderr)
    return show


async def _run(dsn: str, args: argparse.Namespace) -> int:
    try:
        conn = await asyncpg.connect(dsn)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise wrap_db_error(exc) from exc
    try:
        conn.add_log_listener(_notice(args.command))
        try:
            outcome = await COMMANDS[args.command](conn, args)
        except asyncpg.PostgresError as exc:
            raise wrap_db_error(exc) from exc
    finally:
        await conn.close()
    if args.json:
        dump_json(outcome.data, sys.stdout)
    else:
        print(outcome.text)
    return OK


def run(args: argparse.Namespace, dsn: Callable[[], str]) -> int:
    """Run the command `args.command` on the database `dsn()` names; the exit code."""
    try:
        return asyncio.run(_run(dsn(), args))
    except BrokenPipeError:
        # the reader went away (`pgaq queues | head`): what it wanted it has
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK
    except (ConfigError, ConnectionLost) as exc:
        print(f"pgaq {args.command}: {exc}", file=sys.stderr)
        return UNREACHABLE
    except PgaqError as exc:
        print(f"pgaq {args.command}: {exc}", file=sys.stderr)
        return DATABASE_ERROR
