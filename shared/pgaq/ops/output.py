"""How the operator commands print: an aligned table for a person, JSON for a script.

A row is a mapping of column name to value; the table shows None as "-", times to the
second and floats shortened, JSON keeps every value (times as ISO 8601, bytes as hex).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any, TextIO

Row = Mapping[str, Any]
Formatter = Callable[[Any], str]


def _plain(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1f}"
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    if isinstance(value, bytes):
        return value.hex().upper()
    return str(value)


def seconds(value: Any) -> str:
    """An age or a duration in seconds, for a person: 4.2s, 3m05s, 2h10m."""
    if value is None:
        return "-"
    s = float(value)
    if s < 60:
        return f"{s:.1f}s"
    if s < 3600:
        return f"{int(s // 60)}m{int(s % 60):02d}s"
    return f"{int(s // 3600)}h{int(s % 3600 // 60):02d}m"


def rate(value: Any) -> str:
    return "-" if value is None else f"{float(value):.1f}/s"


def clip(width: int) -> Formatter:
    """A long text (a payload, an error) cut to `width` characters in the table."""
    def fmt(value: Any) -> str:
        text = _plain(value)
        return text if len(text) <= width else text[: width - 1] + "…"
    return fmt


def table(rows: Sequence[Row], columns: Sequence[tuple[str, str]],
          formats: Mapping[str, Formatter] | None = None) -> str:
    """`columns`: (key, heading) pairs; `formats`: key -> how to show that column."""
    formats = formats or {}
    cells = [[formats.get(k, _plain)(row.get(k)) for k, _ in columns] for row in rows]
    heads = [h for _, h in columns]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(heads)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(cell, widths, strict=True)).rstrip() for cell in cells]
    return "\n".join(lines)


def _json_default(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, bytes):
        return value.hex().upper()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    return str(value)


def dump_json(value: Any, out: TextIO) -> None:
    json.dump(value, out, default=_json_default, indent=1)
    out.write("\n")
