"""Fixtures of the Java provider's tests (test_java_provider.py and test_java_examples.py
run its JUnit tests, test_java_interop.py its live round trips with pgaq.jms, IDAP and
dbms_aq): the jar and the tests compiled once (java/build compile) for all xdist workers,
and pgjdbc's URL of a test database."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

if TYPE_CHECKING:
    from . import junit

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "java" / "build"
OUT = ROOT / "build" / "java"
# what a compile reads: when none of it changed since the last compile, its output stands
SOURCES = (ROOT / "java" / "src", BUILD)


def jdbc_url(dsn: str) -> str:
    """postgresql://user@host:port/db as pgjdbc's URL."""
    u = urlsplit(dsn)
    url = f"jdbc:postgresql://{u.hostname}:{u.port}{u.path}?user={u.username}"
    if u.password:
        url += f"&password={u.password}"
    return url


def sources_digest() -> str:
    """A digest of every file a compile reads from the repository (names and contents)."""
    h = hashlib.sha256()
    for top in SOURCES:
        for path in sorted(top.rglob("*")) if top.is_dir() else [top]:
            if path.is_file():
                h.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
                h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def _built() -> str:
    """What a compile made, as the class-data archive checks it (the jars' modification
    times): `java/build jar` (make java) rewrites pgaq-jms.jar, and the archive is then
    refused, so the tests compile again."""
    jars = [OUT / "pgaq-jms.jar", OUT / "pgaq-jms-tests.jar", OUT / "tests.jsa"]
    return " ".join(str(j.stat().st_mtime_ns) if j.exists() else "-" for j in jars)


def compile_once() -> None:
    """java/build compile, unless the last one compiled these very sources. xdist's workers
    share build/java: the first to come compiles while the others wait on the lock, then
    they find the stamp and run on its classes (a compile rewrites the directory: no two
    may run at once)."""
    OUT.parent.mkdir(parents=True, exist_ok=True)
    stamp = OUT / "compiled.stamp"
    with open(OUT.parent / "java.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        digest = sources_digest()
        if stamp.exists() and stamp.read_text() == f"{digest}\n{_built()}":
            return
        stamp.unlink(missing_ok=True)
        proc = subprocess.run([str(BUILD), "compile"], cwd=ROOT, capture_output=True, text=True,
                              timeout=600)
        if proc.returncode:
            pytest.fail(f"java/build compile failed:\n{proc.stdout[-4000:]}{proc.stderr[-8000:]}")
        stamp.write_text(f"{digest}\n{_built()}")


@pytest.fixture(scope="session")
def compiled() -> None:
    compile_once()


@pytest.fixture(scope="session")
def junit_jvm(compiled: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[junit.Jvm]:
    """The worker's JVM that runs the JUnit tests (tests/java/junit.py), started at its first run."""
    from . import junit

    jvm = junit.Jvm(tmp_path_factory.mktemp("junit-jvm"))
    try:
        yield jvm
    finally:
        jvm.close()


@pytest.fixture(scope="session")
def java_classpath(compiled: None) -> str:
    """The compiled tests' class path (java/build classpath): the jar, the test classes and
    the jars they use."""
    return subprocess.run([str(BUILD), "classpath"], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=60).stdout.strip()


@functools.cache
def jvm_options() -> tuple[str, ...]:
    """The options the test JVMs start with (java/build jvm-options), once compiled: the JIT,
    the collector, the class-data archive of the test class path."""
    out = subprocess.run([str(BUILD), "jvm-options"], cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return tuple(out.split())
