"""Single-line `key=value` logs on stderr, so a supervisor's merged output stays greppable."""

from __future__ import annotations

import json
import logging
import os
import sys
import time


class LineFormatter(logging.Formatter):
    """One record, one line: tracebacks are folded into an escaped `exc=` field."""

    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line = (f"ts={ts}.{int(record.msecs):03d}Z level={record.levelname} "
                f"logger={record.name} pid={record.process} msg={json.dumps(record.getMessage())}")
        if record.exc_info:
            line += f" exc={json.dumps(self.formatException(record.exc_info))}"
        return line


def setup_logging(level: str | None = None) -> None:
    """Configure the root logger once per process; PGAQ_LOG_LEVEL picks the level."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LineFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel((level or os.environ.get("PGAQ_LOG_LEVEL") or "INFO").upper())
