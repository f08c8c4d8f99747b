"""The `pgaq` command: `up` (the embedded default), `sql` (psql), `migrate`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import shutil
import signal
import sys
import time
from pathlib import Path

import aiohttp
import asyncpg

from .embedded import Cluster, find_bindir, free_port
from .errors import PgaqError
from .migrate import migrate_dsn
from .supervisor import ServiceSpec, Supervisor

log = logging.getLogger("pgaq")

# Every service of the mesh, in start order; each is `python -m <module>`.
SERVICES = ("core", "monitor", "gateway")


def _say(line: str) -> None:
    print(line, flush=True)


async def _ensure_database(cluster: Cluster, name: str) -> None:
    conn = await asyncpg.connect(cluster.dsn("postgres"))
    try:
        if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
            await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


async def _wait_healthy(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            try:
                async with http.get(url, timeout=aiohttp.ClientTimeout(total=2)) as r:
                    if r.status == 200:
                        return
            except (aiohttp.ClientError, OSError, TimeoutError):
                pass
            await asyncio.sleep(0.1)
    raise PgaqError(f"{url} did not become healthy in {timeout:.0f}s")


def _admin_token(path: Path) -> str:
    """The admin API's token, made once and kept private to this user."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(secrets.token_urlsafe(32))
        path.chmod(0o600)
    return path.read_text().strip()


async def up(data_dir: Path, port: int) -> int:
    cluster: Cluster | None = None
    dsn = os.environ.get("PGAQ_DSN")
    if not dsn:
        cluster = Cluster(data_dir / "cluster", durable=True)
        cluster.init()
        if not cluster.running():
            cluster.start()
        await _ensure_database(cluster, "pgaq")
        dsn = cluster.dsn("pgaq")
    applied = await migrate_dsn(dsn)
    if applied:
        log.info("schema: applied %s", ", ".join(applied))
    core_port = int(os.environ.get("PGAQ_CORE_PORT") or port + 1)
    token = os.environ.get("PGAQ_ADMIN_TOKEN") or _admin_token(data_dir / "admin.token")
    env = {"PGAQ_DSN": dsn, "PGAQ_ADMIN_TOKEN": token}
    specs = [
        ServiceSpec("core", "pgaq_services.core", {"PGAQ_CORE_PORT": str(core_port)}),
        ServiceSpec("monitor", "pgaq_services.monitor"),
        ServiceSpec("gateway", "pgaq_services.gateway", {"PGAQ_PORT": str(port)}),
    ]
    sup = Supervisor(specs, env)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await sup.start()
        await _wait_healthy(f"http://127.0.0.1:{core_port}/health")
        await _wait_healthy(f"http://127.0.0.1:{port}/health")
        _say(f"DSN={dsn}")
        _say(f"GATEWAY=http://127.0.0.1:{port}/aqserv/servlet")
        _say(f"CORE=http://127.0.0.1:{core_port}")
        _say("READY")
        await stop.wait()
    finally:
        await sup.stop()
        if cluster is not None:
            cluster.stop()
    return 0


def _sql(data_dir: Path) -> int:
    dsn = os.environ.get("PGAQ_DSN")
    if not dsn:
        cluster = Cluster(data_dir / "cluster", port=_running_port(data_dir / "cluster"))
        dsn = cluster.dsn("pgaq")
    psql = shutil.which("psql") or str(find_bindir() / "psql")
    os.execv(psql, [psql, dsn])
    return 0  # pragma: no cover


def _running_port(cluster_dir: Path) -> int:
    pid = cluster_dir / "pg" / "postmaster.pid"
    if not pid.exists():
        raise SystemExit(f"no running cluster under {cluster_dir}: start it with `pgaq up`")
    return int(pid.read_text().splitlines()[3])


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=os.environ.get("PGAQ_LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s %(message)s", stream=sys.stderr)
    parser = argparse.ArgumentParser(prog="pgaq", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_up = sub.add_parser("up", help="start PostgreSQL (unless PGAQ_DSN is set) and every service")
    p_up.add_argument("--data-dir", type=Path, default=Path(".pgaq"))
    p_up.add_argument("--port", type=int, default=int(os.environ.get("PGAQ_PORT", "8080")),
                      help="the gateway's HTTP port (0: a free one)")
    p_sql = sub.add_parser("sql", help="psql on the configured database")
    p_sql.add_argument("--data-dir", type=Path, default=Path(".pgaq"))
    sub.add_parser("migrate", help="install or upgrade the schema in PGAQ_DSN")
    args = parser.parse_args(argv)
    try:
        if args.command == "up":
            port = args.port or free_port()
            return asyncio.run(up(args.data_dir.absolute(), port))
        if args.command == "sql":
            return _sql(args.data_dir.absolute())
        dsn = os.environ.get("PGAQ_DSN")
        if not dsn:
            raise SystemExit("PGAQ_DSN is required")
        for name in asyncio.run(migrate_dsn(dsn)):
            print(name)
        return 0
    except PgaqError as exc:
        log.error("%s", exc)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
