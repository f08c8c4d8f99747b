"""Fixtures of the Java provider's tests (test_java_provider.py runs its JUnit classes,
test_java_interop.py its live round trips with pgaq.jms, IDAP and dbms_aq): the jar and the
tests compiled once per run (java/build compile), and pgjdbc's URL of a test database."""

from __future__ import annotations

import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "java" / "build"


def jdbc_url(dsn: str) -> str:
    """postgresql://user@host:port/db as pgjdbc's URL."""
    u = urlsplit(dsn)
    url = f"jdbc:postgresql://{u.hostname}:{u.port}{u.path}?user={u.username}"
    if u.password:
        url += f"&password={u.password}"
    return url


@pytest.fixture(scope="session")
def compiled() -> None:
    proc = subprocess.run([str(BUILD), "compile"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode:
        pytest.fail(f"java/build compile failed:\n{proc.stdout[-4000:]}{proc.stderr[-8000:]}")


@pytest.fixture(scope="session")
def java_classpath(compiled: None) -> str:
    """The compiled tests' class path (java/build classpath): the jar, the test classes and
    the jars they use."""
    return subprocess.run([str(BUILD), "classpath"], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=60).stdout.strip()
