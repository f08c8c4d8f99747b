"""Single-line `key=value` logs on stderr, so a supervisor's merged output stays greppable."""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from typing import Any

import asyncpg

from .settings import Environment

_BARE = re.compile(r"^[A-Za-z0-9_.:/@+-]+$")


def _value(v: Any) -> str:
    """Plain tokens stay bare, anything else is a JSON string (spaces, quotes, newlines)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    text = str(v)
    return text if _BARE.match(text) else json.dumps(text)


def fields(**values: Any) -> dict[str, Any]:
    """`extra=` for a structured record: each non-None value becomes a `key=value` field."""
    return {"fields": {k: v for k, v in values.items() if v is not None}}


_OUTAGE = (OSError, asyncpg.InterfaceError, asyncpg.CannotConnectNowError,
           asyncpg.PostgresConnectionError)


class LineFormatter(logging.Formatter):
    """One record, one line: tracebacks are folded into an escaped `exc=` field; a record's
    `fields` (see `fields()`) follow the message as `key=value` pairs."""

    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line = (f"ts={ts}.{int(record.msecs):03d}Z level={record.levelname} "
                f"logger={record.name} pid={record.process} msg={json.dumps(record.getMessage())}")
        extra = getattr(record, "fields", None)
        if isinstance(extra, dict):
            line += "".join(f" {k}={_value(v)}" for k, v in extra.items())
        if record.exc_info:
            exc = record.exc_info[1]
            if isinstance(exc, _OUTAGE):
                # the database going away (a restart, a failover) is an outage, not a bug:
                # asyncpg's pool says so on every retry, and a traceback tells nothing more
                line += f" error={json.dumps(repr(exc))}"
            else:
                line += f" exc={json.dumps(self.formatException(record.exc_info))}"
        return line


def setup_logging(level: str | None = None) -> None:
    """Configure the root logger once per process; PGAQ_LOG_LEVEL picks the level."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LineFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel((level or Environment().text_or("PGAQ_LOG_LEVEL", "INFO")).upper())
