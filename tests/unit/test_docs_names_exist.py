"""The tables in the docs name only things the repository has.

Every table of docs/*.md and README.md (the "to change X, open Y" map, the settings table,
the error table, the rest) is read for its `code` spans. A span that names a file (a path, a
bare file name, a glob) must match a file in the repository; one that names a SQL function,
procedure or object of pgaq's schemas must be created by shared/pgaq/sql (or deploy/, the
Grafana reader's functions); one that names a Python module of `pgaq` or `pgaq_services`
must be a module there, and a name after it one the module defines (or else a Java class of
java/, or a setting such as `pgaq.wait_poll_ms` that the SQL or Java source reads by that
name). A doc that names a file, function or module since renamed or removed fails here.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([*ROOT.glob("docs/*.md"), ROOT / "README.md"])

# the schemas whose objects pgaq's SQL creates (Oracle's names included), and where
SQL_SCHEMAS = ("aq", "aq_stats", "dbms_aq", "dbms_aqadm", "dbms_aqelm", "dbms_aqjms", "system",
               "pgaq_grafana")
SQL_SOURCES = (ROOT / "shared" / "pgaq" / "sql", ROOT / "deploy")
FILE_SUFFIXES = (".py", ".sql", ".md", ".java", ".json", ".toml", ".xsd", ".xml", ".cfg", ".in",
                 ".sh", ".yml", ".yaml", ".txt", ".ini", ".conf")
# directories the package names map to
PACKAGES = {"pgaq": ROOT / "shared" / "pgaq", "pgaq_services": ROOT / "services"}

SPAN = re.compile(r"`([^`]+)`")
CREATED = re.compile(
    r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:UNLOGGED\s+|MATERIALIZED\s+)?"
    r"(FUNCTION|PROCEDURE|VIEW|TABLE|TYPE|SEQUENCE|DOMAIN|AGGREGATE)\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    r"([A-Za-z_][\w$]*)\.([A-Za-z_][\w$]*)", re.IGNORECASE)
SQL_NAME = re.compile(rf"^({'|'.join(SQL_SCHEMAS)})\.([A-Za-z_][\w$]*)(\(.*\))?(\.[\w$]+)?$",
                      re.IGNORECASE)
MODULE = re.compile(r"^(pgaq|pgaq_services)(\.[A-Za-z_]\w*)*$")


@dataclass(frozen=True)
class Named:
    doc: str
    line: int
    span: str
    cell: str


@cache
def repo_files() -> tuple[str, ...]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return tuple(p for p in out.stdout.splitlines() if (ROOT / p).exists())


@cache
def sql_objects() -> dict[str, set[str]]:
    """schema.name (lower case) -> the kinds created under it (FUNCTION, VIEW, ...)."""
    found: dict[str, set[str]] = {}
    for path in (p for d in SQL_SOURCES for p in d.rglob("*.sql")):
        for kind, schema, name in CREATED.findall(path.read_text()):
            found.setdefault(f"{schema}.{name}".lower(), set()).add(kind.upper())
    return found


def table_spans(doc: Path) -> list[Named]:
    """The code spans in the cells of every table of `doc`."""
    out = []
    for n, line in enumerate(doc.read_text().splitlines(), 1):
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        for cell in line.strip("|").split("|"):
            out += [Named(doc.name, n, s.strip(), cell) for s in SPAN.findall(cell)]
    return out


def looks_like_file(span: str) -> bool:
    if " " in span or "=" in span or "://" in span or span.startswith(("-", "$", "/", "http", "<", "~")):
        return False
    name = span.split("::")[0]
    return (name.endswith("/") and "/" in name[:-1]) or name.endswith(FILE_SUFFIXES)


def file_exists(span: str, cell: str) -> bool:
    """A path from the root, a bare name or glob anywhere, or a path under a directory the
    same cell names (`java/src/main/java/pgaq/jms/`: `AQjmsSession.java`)."""
    name = span.split("::")[0]
    files = repo_files()
    if name.endswith("/"):
        return any(f.startswith(name) for f in files) or any(f"/{name}" in f"/{f}" for f in files)
    if "/" in name:
        if any(fnmatch.fnmatchcase(f, name) for f in files):
            return True
        bases = [s for s in SPAN.findall(cell) if s.endswith("/")]
        return any(fnmatch.fnmatchcase(f, b + name) or f.endswith("/" + name)
                   for b in bases for f in files) or any(f.endswith("/" + name) for f in files)
    return any(fnmatch.fnmatchcase(f.rsplit("/", 1)[-1], name) for f in files)


def sql_exists(m: re.Match[str]) -> bool:
    kinds = sql_objects().get(f"{m.group(1)}.{m.group(2)}".lower(), set())
    if m.group(3) is not None:  # called: a function or procedure
        return bool(kinds & {"FUNCTION", "PROCEDURE", "AGGREGATE"})
    return bool(kinds)


@cache
def quoted_in_source() -> str:
    """The SQL and Java sources, where PostgreSQL settings and Java system properties named
    `pgaq.x` are read."""
    return "\n".join((ROOT / f).read_text() for f in repo_files() if f.endswith((".sql", ".java")))


def dotted_exists(span: str) -> bool:
    """A Python module or a name in one, a Java class, or a quoted setting name."""
    if module_exists(span):
        return True
    if any(f.endswith("/" + span.replace(".", "/") + ".java") for f in repo_files()):
        return True
    return f"'{span}'" in quoted_in_source() or f'"{span}"' in quoted_in_source()


def module_exists(span: str) -> bool:
    """The longest dotted prefix that is a module or package; what follows it, if anything,
    a name that module defines at its top level."""
    parts = span.split(".")
    base = PACKAGES[parts[0]]
    path, i = base, 1
    while i < len(parts) and ((path / parts[i]).is_dir() or (path / f"{parts[i]}.py").exists()):
        path = path / parts[i]
        i += 1
    if i == len(parts):
        return True
    source = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    if not source.exists():
        return False
    tree = ast.parse(source.read_text())
    defined = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.ImportFrom | ast.Import):
            defined |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return parts[i] in defined


def missing(named: Named) -> str | None:
    """What `named` names that the repository lacks, or None."""
    span = named.span
    m = SQL_NAME.match(span)
    if m and "<" not in span and "*" not in span:
        return None if sql_exists(m) else "no such SQL function or object in shared/pgaq/sql"
    if MODULE.match(span) and "." in span:
        return None if dotted_exists(span) else "no such module, name in it, Java class or setting"
    if looks_like_file(span):
        return None if file_exists(span, named.cell) else "no such file in the repository"
    return None


def all_named() -> list[Named]:
    return [n for doc in DOCS for n in table_spans(doc)]


def test_the_tables_name_things() -> None:
    """The scan is not vacuous: the map names files, the error table SQL functions."""
    named = all_named()
    spans = {n.span for n in named}
    assert {"shared/pgaq/routes.py", "R__13_templates.sql", "dbms_aq.enqueue"} <= spans
    checked = [n for n in named if SQL_NAME.match(n.span) or MODULE.match(n.span)
               or looks_like_file(n.span)]
    assert len(checked) > 200


@pytest.mark.parametrize("doc", [d.name for d in DOCS])
def test_every_name_in_a_docs_table_exists(doc: str) -> None:
    gone = [f"{n.doc}:{n.line}: `{n.span}`: {why}" for n in all_named() if n.doc == doc
            for why in [missing(n)] if why]
    assert gone == [], "\n".join(gone)


def test_a_missing_file_or_function_is_caught() -> None:
    """The checks can fail: names the repository does not have are reported."""
    cell = "`shared/pgaq/jms/` (`session.py`)"
    assert missing(Named("x.md", 1, "shared/pgaq/no_such_module.py", cell))
    assert missing(Named("x.md", 1, "R__98_no_such.sql", cell))
    assert missing(Named("x.md", 1, "no_such.py", cell))
    assert missing(Named("x.md", 1, "aq.no_such_function()", cell))
    assert missing(Named("x.md", 1, "dbms_aq.no_such_procedure", cell))
    assert missing(Named("x.md", 1, "pgaq.no_such_module", cell))
    assert missing(Named("x.md", 1, "pgaq.client.NoSuchName", cell))
    assert missing(Named("x.md", 1, "pgaq.no_such_setting", cell))
    assert missing(Named("x.md", 1, "V9999__no_such.sql", cell))
    assert missing(Named("x.md", 1, "session.py", cell)) is None
    assert missing(Named("x.md", 1, "dbms_aq.enqueue", cell)) is None
    assert missing(Named("x.md", 1, "aq_stats.runs", cell)) is None
    assert missing(Named("x.md", 1, "aq_stats.no_such_table", cell))
    assert missing(Named("x.md", 1, "pgaq.client.Session", cell)) is None
    assert missing(Named("x.md", 1, "pgaq.wait_poll_ms", cell)) is None
    assert missing(Named("x.md", 1, "V*__*.sql", cell)) is None
