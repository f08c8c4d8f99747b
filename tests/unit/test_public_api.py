"""The public API is importable from `pgaq` itself; the old module name pgaq.engine is the
client module under another name; importing pgaq connects nowhere and loads no driver."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pgaq
import pgaq.client
import pgaq.errors
import pgaq.listener
import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter (module caches empty), with this test run's path."""
    base = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **(env or {})}
    return subprocess.run([sys.executable, "-c", code], env=base, capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


@pytest.mark.parametrize("name", pgaq.__all__)
def test_every_exported_name_is_the_defining_modules_own(name: str) -> None:
    where = {"Listener": pgaq.listener}.get(name) or (
        pgaq.errors if hasattr(pgaq.errors, name) else pgaq.client)
    assert getattr(pgaq, name) is getattr(where, name)


def test_the_exports_are_what_a_user_needs() -> None:
    assert {"Session", "DequeueOptions", "MessageProperties", "Message", "Agent", "Listener",
            "PgaqError", "QueueError", "EndOfFetch", "ConnectionLost"} <= set(pgaq.__all__)
    assert all(issubclass(getattr(pgaq, n), pgaq.PgaqError)
               for n in pgaq.__all__ if n.endswith(("Error", "Lost", "Fetch")))
    assert set(pgaq.__all__) <= set(dir(pgaq))


def test_star_import_gives_every_exported_name() -> None:
    out = run_python("from pgaq import *; print(Session.__module__, DequeueOptions().wait, "
                     "issubclass(EndOfFetch, PgaqError))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["pgaq.client", "0.0", "True"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Sesion'"):
        pgaq.Sesion  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(ImportError):
        from pgaq import Sesion  # type: ignore[attr-defined]  # noqa: F401


@pytest.mark.filterwarnings("ignore:pgaq.engine is deprecated:DeprecationWarning")
def test_the_old_module_name_is_the_client_module() -> None:
    """Not a copy: a name set through either is seen through the other (monkeypatch)."""
    import pgaq.engine as old
    from pgaq.engine import DequeueOptions, Session

    assert old is pgaq.client and pgaq.engine is pgaq.client
    assert Session is pgaq.client.Session is pgaq.Session
    assert DequeueOptions is pgaq.DequeueOptions
    assert old._number is pgaq.client._number  # type: ignore[attr-defined]  # private names too


def test_the_old_module_name_warns_that_it_is_deprecated() -> None:
    out = run_python("import pgaq.engine", env={"PYTHONWARNINGS": "error::DeprecationWarning"})
    assert out.returncode != 0
    assert "DeprecationWarning: pgaq.engine is deprecated" in out.stderr
    assert run_python("import pgaq, pgaq.client",
                      env={"PYTHONWARNINGS": "error::DeprecationWarning"}).returncode == 0


def test_importing_pgaq_connects_nowhere_and_loads_no_driver() -> None:
    """A server that counts connections stands where libpq's variables and PGAQ_DSN point;
    importing pgaq, every exported name and the old module opens none."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        env = {"PGHOST": "127.0.0.1", "PGPORT": str(port), "PGAQ_DSN":
               f"postgresql://pgaq@127.0.0.1:{port}/pgaq"}
        out = run_python("import sys, pgaq; print('asyncpg' in sys.modules); "
                         "[getattr(pgaq, n) for n in pgaq.__all__]; import pgaq.engine; print('ok')",
                         env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["False", "ok"]
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody knocked
