"""The previous release, for the upgrade tests: its `pgaq` package taken from git, run in a
process of its own (as an old service still running during the upgrade would), and empty
databases to build with it."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
from pgaq.embedded import Cluster

REPO = Path(__file__).resolve().parents[2]
PREVIOUS = "435be0f0b7bddc24d055818248060a23163f0cfb"  # the previous release: where this round began

# the previous release's migrations, run by its own package (argument: the database's DSN)
MIGRATE = "import asyncio, sys\nfrom pgaq.migrate import migrate_dsn\nasyncio.run(migrate_dsn(sys.argv[1]))\n"


def extract(root: Path) -> Path:
    """The previous release's `pgaq` package under `root`; returns the folder to put on
    PYTHONPATH (it holds `pgaq`, a link to `root/shared/pgaq`)."""
    try:
        tar = subprocess.run(["git", "-C", str(REPO), "archive", PREVIOUS, "shared/pgaq"],
                             check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise AssertionError(f"the previous release {PREVIOUS} must be in the checkout's history "
                             f"(a full clone): {exc}") from exc
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(root, filter="data")
    pkgs = root / "pkgs"
    pkgs.mkdir()
    (pkgs / "pgaq").symlink_to(root / "shared" / "pgaq")
    return pkgs


def run(pkgs: Path, script: str, *args: str) -> str:
    """Run `script` (Python source) with the previous release's package; returns its stdout."""
    env = {**os.environ, "PYTHONPATH": str(pkgs)}
    r = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True,
                       text=True, timeout=120, cwd=pkgs)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


@asynccontextmanager
async def empty_database(cluster: Cluster, name: str) -> AsyncIterator[str]:
    """A new empty database (its DSN), dropped after."""
    admin = await asyncpg.connect(cluster.dsn())
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.execute(f"CREATE DATABASE {name}")
        yield cluster.dsn(name)
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await admin.close()
