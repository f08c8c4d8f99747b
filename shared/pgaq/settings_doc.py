"""The settings table of docs/deployment.md, generated from the declaration (settings.py).

The table sits between two markers; `pgaq settings --markdown --update docs/deployment.md`
rewrites what is between them, and tests/unit/test_settings.py fails when it differs, so the
document cannot drift from what the services read.
"""

from __future__ import annotations

from pathlib import Path

from .settings import DECLARED, Setting

BEGIN = "<!-- settings:begin (generated: pgaq settings --markdown --update docs/deployment.md) -->"
END = "<!-- settings:end -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _row(s: Setting) -> str:
    name = f"`{s.name}<key>`" if s.type == "prefix" else f"`{s.name}`"
    kind = f"{s.type}, secret" if s.secret else s.type
    default = "-" if s.default in (None, "") else f"`{s.default}`"
    return "| " + " | ".join((name, kind, default, s.unit or "-", ", ".join(s.readers),
                              _cell(s.doc))) + " |"


def table() -> str:
    """The block's lines between the markers."""
    head = ["| variable | type | default | unit | read by | meaning |",
            "| --- | --- | --- | --- | --- | --- |"]
    return "\n".join([*head, *(_row(s) for s in DECLARED)])


def block() -> str:
    return f"{BEGIN}\n{table()}\n{END}"


def replace_block(text: str) -> str:
    """`text` with its marked block regenerated; a ValueError without both markers."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no {BEGIN} ... {END} block")
    return text[:start] + block() + text[end + len(END):]


def update(path: Path) -> bool:
    """Rewrite the block in `path`; whether anything changed."""
    old = path.read_text()
    new = replace_block(old)
    if new != old:
        path.write_text(new)
    return new != old
