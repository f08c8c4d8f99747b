"""What upgrades need stays in one place (R__98_upgrade.sql), each item with its release.

A repeatable file that drops a function, procedure or type by name (an old signature, an
object a release no longer defines) does it in R__98_upgrade.sql, or just before the CREATE
that replaces it, under a comment `-- upgrade (stays here: <why>)`; every item of either kind
says the release it is for ("release <commit>", or "no release": only a database of a
commit between releases has it). Drops made with format() inside functions (the generated
per-table functions, templates a release no longer defines) are the engine's work, not
upgrade items, and are not looked at.
"""

from __future__ import annotations

import re
from pathlib import Path

MIGRATIONS = Path(__file__).resolve().parents[2] / "shared" / "pgaq" / "sql" / "migrations"
UPGRADE = MIGRATIONS / "R__98_upgrade.sql"
# a drop by name, as a statement (not a format() string)
DROP = re.compile(r"^\s*DROP\s+(FUNCTION|PROCEDURE|TYPE)\s", re.IGNORECASE)
RELEASE = re.compile(r"\brelease [0-9a-f]{7,40}\b|\bno release\b")
TAG = "-- upgrade (stays here: "


def _comment_above(lines: list[str], i: int) -> list[str]:
    """The comment lines of the paragraph that holds line i, above it."""
    out: list[str] = []
    while i > 0 and lines[i - 1].strip():
        i -= 1
        if lines[i].lstrip().startswith("--"):
            out.append(lines[i].strip())
    return out


def _misplaced(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        if not DROP.match(line):
            continue
        above = _comment_above(lines, i)
        tagged = [k for k, c in enumerate(above) if c.startswith(TAG)]
        if not tagged:
            out.append(f"{path.name}:{i + 1}: {line.strip()} (no '{TAG}...' above it)")
        elif not RELEASE.search(" ".join(reversed(above[:tagged[0] + 1]))):
            out.append(f"{path.name}:{i + 1}: its tag names no release")
    return out


def test_drops_by_name_are_in_the_upgrade_file_or_tagged_where_they_stay() -> None:
    found = [m for p in sorted(MIGRATIONS.glob("R__*.sql")) if p != UPGRADE for m in _misplaced(p)]
    assert found == []


def test_each_item_of_the_upgrade_file_says_its_release() -> None:
    header, _, items = UPGRADE.read_text().partition("\n\n")
    assert "release" in header
    paragraphs = [p for p in items.split("\n\n") if p.strip()]
    assert len(paragraphs) >= 10
    for p in paragraphs:
        first = p.strip().splitlines()[0]
        assert first.startswith("-- "), p
        comment = " ".join(line for line in p.splitlines() if line.startswith("--"))
        assert RELEASE.search(comment), p


def test_a_drop_without_its_tag_is_found(tmp_path: Path) -> None:
    f = tmp_path / "R__50_x.sql"
    f.write_text("-- why it changed\nDROP FUNCTION IF EXISTS aq.f(integer);\n"
                 "\n-- upgrade (stays here: a default): the old form\nDROP FUNCTION aq.g(text);\n")
    assert _misplaced(f) == ["R__50_x.sql:2: DROP FUNCTION IF EXISTS aq.f(integer); (no '"
                             + TAG + "...' above it)", "R__50_x.sql:5: its tag names no release"]
