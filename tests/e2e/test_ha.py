"""`make ha-test`, bounded: three PostgreSQL members under Patroni (one etcd member), HAProxy
in front, every service pointed at it; a SIGKILLed primary, a switchover and a primary cut
off from the network, each under load from every kind of client. The driver accounts for
every acknowledged id and exits non-zero on any violation (docs/deployment.md, "High
availability")."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.e2e.support import driver_output

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ("patroni", "patronictl", "etcd", "haproxy")


@pytest.mark.slow
@pytest.mark.timeout(900)
async def test_failovers_lose_nothing(tmp_path: Path) -> None:
    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if missing:
        pytest.skip(f"needs Debian's patroni, etcd-server and haproxy (missing: {', '.join(missing)}); "
                    "`make test-deps` installs them")
    workdir = ROOT / ".pgaq" / "ha" / f"test-{os.getpid()}"
    try:
        status, text = await driver_output(
            [sys.executable, "-m", "ha"],
            {**os.environ, "HA_ETCD_MEMBERS": "1", "HA_STEADY": "6", "HA_WORKDIR": str(workdir),
             "HA_STATS": "0", "HA_JAVA": "0", "PGAQ_LOG_LEVEL": "ERROR"}, 880, cwd=ROOT)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(text)
    assert status == 0, text[-6000:]
    assert "ha: PASS" in text
    for cell in ("kill", "switchover"):
        assert f"cell {cell}:" in text
    if os.geteuid() == 0 and shutil.which("ip"):
        assert "cell partition:" in text
