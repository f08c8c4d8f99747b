"""The `pgaq` command: `up` (the embedded default), `sql` (psql), `migrate`, `stats run`,
`settings` (what a service reads from the environment), and the operator commands
(`queues`, `subscribers`, `schedules`, `peek`, `requeue`, `purge`, `start`, `stop`: pgaq.ops).

`pgaq up` is what `make run` calls: with no PGAQ_DSN it owns a private PostgreSQL cluster
under --data-dir, so a developer needs nothing but PostgreSQL's binaries installed. Its
stdout carries only machine-readable lines (DSN=, GATEWAY=, CORE=, MONITOR=, NOTIFIER=,
PROPAGATOR=, STATS=, READY); logs go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import shutil
import signal
import socket
import sys
import time
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import asyncpg

from .aio import TaskGroup
from .embedded import Cluster, find_bindir, free_port
from .errors import ConfigError, PgaqError, wrap_db_error
from .logs import setup_logging
from .migrate import migrate_dsn
from .ops import COMMANDS as OPERATOR_COMMANDS
from .ops import run as run_operator_command
from .settings import SERVICES as SETTING_READERS
from .settings import Environment, effective
from .settings_doc import table as settings_table
from .settings_doc import update as update_settings_doc
from .stats import MISSING as stats_missing
from .stats import available as stats_available
from .supervisor import ServiceSpec, Supervisor

log = logging.getLogger("pgaq.cli")
T = TypeVar("T")

DATABASE = "pgaq"
SERVLET_PATH = "/aqserv/servlet"


@dataclass(frozen=True)
class Service:
    """A child service, run as `python -m pgaq_services.<name>`.

    `port_env` names the environment variable that carries its HTTP port (which then also
    serves /health, polled before READY); its port is `--port` + `port_offset`, unless the
    variable is already set in our environment (the gateway always takes `--port`).
    """

    name: str
    port_env: str | None = None
    port_offset: int = 0


# Every service `pgaq up` runs, in start order (core first: it applies the migrations).
# Adding a service is one line here plus its `services/<name>/__main__.py`.
SERVICES: tuple[Service, ...] = (
    Service("core", port_env="PGAQ_CORE_PORT", port_offset=1),
    Service("monitor", port_env="PGAQ_MONITOR_PORT", port_offset=2),
    Service("notifier", port_env="PGAQ_NOTIFIER_PORT", port_offset=3),
    Service("propagator", port_env="PGAQ_PROPAGATOR_PORT", port_offset=4),
    Service("stats", port_env="PGAQ_STATS_PORT", port_offset=5),
    Service("gateway", port_env="PGAQ_PORT", port_offset=0),
)


def runnable(services: tuple[Service, ...], has_pyspark: bool) -> tuple[Service, ...]:
    """The services `pgaq up` starts: the statistics service only where its job can run
    (PySpark is the extra pgaq[stats]); without it the rest run and a warning says why."""
    if has_pyspark:
        return services
    if any(s.name == "stats" for s in services):
        log.warning("not starting the statistics service: %s", stats_missing)
    return tuple(s for s in services if s.name != "stats")


def plan_services(services: tuple[Service, ...], port: int,
                  env: Mapping[str, str]) -> list[ServiceSpec]:
    """Turn the service list into child specs: module, per-child env, health URL."""
    specs: list[ServiceSpec] = []
    for svc in services:
        child_env: dict[str, str] = {}
        health = None
        if svc.port_env is not None:
            explicit = env.get(svc.port_env) if svc.port_offset else None
            svc_port = int(explicit) if explicit else port + svc.port_offset
            child_env[svc.port_env] = str(svc_port)
            health = f"http://127.0.0.1:{svc_port}/health" if svc_port else None  # 0: no endpoint
        specs.append(ServiceSpec(svc.name, f"pgaq_services.{svc.name}", child_env, health))
    return specs


def announce(specs: list[ServiceSpec]) -> list[str]:
    """The `KEY=value` lines that tell scripts where each service listens."""
    lines: list[str] = []
    for spec in specs:
        if spec.health_url is None:
            continue
        base = spec.health_url.removesuffix("/health")
        if spec.name == "gateway":
            lines.append(f"GATEWAY={base}{SERVLET_PATH}")
        else:
            lines.append(f"{spec.name.upper()}={base}")
    return lines


def free_base_port(services: tuple[Service, ...] = SERVICES, attempts: int = 50) -> int:
    """For `--port 0`: a port N such that every service's N + offset is free right now."""
    offsets = sorted({s.port_offset for s in services if s.port_env is not None} | {0})
    for _ in range(attempts):
        base = free_port()
        try:
            for off in offsets[1:]:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                    sock.bind(("127.0.0.1", base + off))
        except (OSError, OverflowError):
            continue
        return base
    raise ConfigError("no free run of local ports found for the services")


def _say(line: str) -> None:
    print(line, flush=True)


def admin_token(path: Path) -> str:
    """The admin API's bearer token: made once, readable by this user only (0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(32))
    return path.read_text().strip()


def running_port(pgdata: Path) -> int | None:
    """The port of the postmaster running on `pgdata`, or None when none runs there."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
        pid, port = int(lines[0]), int(lines[3])
    except (OSError, ValueError, IndexError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, owned by the postgres user
    return port


def _start_cluster(cluster: Cluster) -> None:
    """Blocking: initialise when new, adopt a server left running, else start one."""
    cluster.init()
    port = running_port(cluster.pgdata)
    if port is not None and cluster.running():
        log.warning("adopting the PostgreSQL server already running on port %s", port)
        cluster.port = port
    else:
        cluster.start()
    log.info("private PostgreSQL cluster at %s on port %s", cluster.pgdata, cluster.port)


async def _ensure_database(admin_dsn: str, name: str) -> None:
    try:
        conn = await asyncpg.connect(admin_dsn)
        try:
            if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
                await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
    except (asyncpg.PostgresError, OSError) as exc:
        raise wrap_db_error(exc) from exc


async def _wait_healthy(urls: list[str], timeout: float) -> None:
    """Poll each /health until it answers 200; each child starts on its own schedule."""
    # imported here: only `up` polls, and aiohttp's import (two SSL contexts loading the
    # system's CA bundle) costs every other command ~0.15 CPU-s
    import aiohttp

    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as http:
        for url in urls:
            while True:
                try:
                    async with http.get(url, timeout=aiohttp.ClientTimeout(total=2)) as r:
                        if r.status == 200:
                            break
                except (aiohttp.ClientError, OSError):
                    pass
                if time.monotonic() > deadline:
                    raise PgaqError(f"{url} did not become healthy in {timeout:.0f}s")
                await asyncio.sleep(0.1)


async def _until(stop: asyncio.Event, aw: Awaitable[T],
                 *also: asyncio.Future[Any]) -> asyncio.Future[T] | None:
    """Run `aw` unless `stop` (or any of `also`) comes first: its finished future, else None."""
    work = asyncio.ensure_future(aw)
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([work, stopped, *also], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
    if work.done():
        work.result()  # raise its error here
        return work
    work.cancel()
    await asyncio.wait([work])
    return None


async def up(data_dir: Path, port: int, env: Mapping[str, str] | None = None,
             services: tuple[Service, ...] = SERVICES) -> int:
    """Start the database (unless PGAQ_DSN) and every service; run until SIGTERM/SIGINT."""
    e = dict(os.environ if env is None else env)
    settings = Environment(e)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    shutdown_timeout = settings.number("PGAQ_SHUTDOWN_TIMEOUT")
    cluster: Cluster | None = None
    group = TaskGroup("up")
    sup: Supervisor | None = None
    try:
        dsn = settings.text("PGAQ_DSN")
        service_dsn = dsn  # what the services use: the Unix socket of a private cluster
        if dsn is None:
            cluster = Cluster(data_dir / "cluster", durable=True)
            await asyncio.to_thread(_start_cluster, cluster)
            if stop.is_set():
                return 0
            if await _until(stop, _ensure_database(cluster.dsn("postgres"), DATABASE)) is None:
                return 0
            dsn = cluster.dsn(DATABASE)
            service_dsn = cluster.socket_dsn(DATABASE)
        migrated = await _until(stop, migrate_dsn(dsn))
        if migrated is None:
            return 0
        applied = migrated.result()
        log.info("schema: %s", f"applied {', '.join(applied)}" if applied else "up to date")
        _say(f"DSN={dsn}")

        token = settings.text("PGAQ_ADMIN_TOKEN") or admin_token(data_dir / "admin.token")
        specs = plan_services(runnable(services, stats_available()), port, e)
        base_env = {"PGAQ_DSN": service_dsn or dsn, "PGAQ_ADMIN_TOKEN": token, "PGAQ_DATA_DIR": str(data_dir),
                    "PGAQ_TCP_DSN": settings.text("PGAQ_TCP_DSN") or dsn}  # JDBC (statistics) speaks TCP only
        sup = Supervisor(specs, base_env, group, stop_timeout=shutdown_timeout)
        await sup.start()
        urls = [s.health_url for s in specs if s.health_url]
        ready_timeout = settings.number("PGAQ_READY_TIMEOUT")
        if await _until(stop, _wait_healthy(urls, ready_timeout), group.failed) is None:
            if group.failed.done():
                raise PgaqError(f"supervisor failed: {group.failed.result()!r}")
            return 0
        for line in announce(specs):
            _say(line)
        _say("READY")
        log.info("ready: %s", ", ".join(s.name for s in specs))
        await _until(stop, asyncio.shield(group.failed))
        if group.failed.done():
            raise PgaqError(f"supervisor failed: {group.failed.result()!r}")
        log.info("stopping")
        return 0
    finally:
        if sup is not None:
            await sup.stop()
        await group.close(timeout=shutdown_timeout)
        if cluster is not None:
            await asyncio.to_thread(cluster.stop, "fast", shutdown_timeout + 20)
            log.info("private PostgreSQL cluster stopped")


def _dsn_for_sql(data_dir: Path) -> str:
    if dsn := Environment().text("PGAQ_DSN"):
        return dsn
    pgdata = data_dir / "cluster" / "pg"
    port = running_port(pgdata)
    if port is None:
        raise ConfigError(f"no PostgreSQL running under {data_dir}: start it with `pgaq up`, "
                          "or set PGAQ_DSN")
    return f"postgresql://postgres@127.0.0.1:{port}/{DATABASE}"


def _psql() -> str:
    found = shutil.which("psql")
    if found:
        return found
    candidate = find_bindir() / "psql"
    if not candidate.exists():
        raise ConfigError("psql not found on PATH nor next to initdb")
    return str(candidate)


def sql(data_dir: Path, extra: list[str]) -> int:
    """Replace this process with psql on the configured database."""
    dsn = _dsn_for_sql(data_dir)
    psql = _psql()
    args = extra[1:] if extra[:1] == ["--"] else extra
    os.execv(psql, [psql, dsn, *args])


def migrate_command() -> int:
    dsn = Environment().text("PGAQ_DSN")
    if not dsn:
        raise ConfigError("PGAQ_DSN is required (e.g. postgresql://user@host:5432/db)")
    for name in asyncio.run(migrate_dsn(dsn)):
        _say(name)
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pgaq", description="Oracle Streams AQ on PostgreSQL")
    sub = p.add_subparsers(dest="command", required=True)
    p_up = sub.add_parser("up", help="start PostgreSQL (unless PGAQ_DSN is set) and every service")
    p_up.add_argument("--data-dir", type=Path, default=Path(".pgaq"))
    p_up.add_argument("--port", type=int, default=None,
                      help="the gateway's HTTP port (default PGAQ_PORT, 8080; 0: a free one); "
                      "core takes port+1, monitor, notifier, propagator and stats port+2..5")
    p_sql = sub.add_parser("sql", help="psql on PGAQ_DSN or the running embedded cluster")
    p_sql.add_argument("--data-dir", type=Path, default=Path(".pgaq"))
    p_sql.epilog = "any other arguments (e.g. -c 'SELECT 1') are passed to psql"
    sub.add_parser("migrate", help="install or upgrade the schema in PGAQ_DSN; prints what ran")
    p_stats = sub.add_parser("stats", help="the statistics job (PySpark)")
    stats_sub = p_stats.add_subparsers(dest="stats_command", required=True)
    p_run = stats_sub.add_parser("run", help="one incremental run against PGAQ_DSN (or the running "
                                 "embedded cluster) in local Spark; prints RUN=, ... lines")
    p_run.add_argument("--data-dir", type=Path, default=Path(".pgaq"))
    p_set = sub.add_parser("settings", help="the effective PGAQ_* settings (secrets redacted), "
                           "or their table for docs/deployment.md")
    p_set.add_argument("--service", choices=[*SETTING_READERS, "up"],
                       help="only what this service reads (default: every setting)")
    p_set.add_argument("--markdown", action="store_true", help="the table of every declared setting")
    p_set.add_argument("--update", type=Path, metavar="FILE",
                       help="with --markdown: rewrite the table between FILE's settings markers")
    operator_parsers(sub)
    return p


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def operator_parsers(sub: Any) -> None:
    """The operator commands (pgaq.ops); each prints a table, or JSON with --json."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print JSON for a script")
    common.add_argument("--data-dir", type=Path, default=Path(".pgaq"),
                        help="the running `pgaq up` to use when PGAQ_DSN is not set")
    epilog = ("exit codes: 0 done (also when there was nothing to do), 1 the database refused "
              "(ORA text on stderr), 2 bad arguments, 3 no database to talk to")
    def add(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, parents=[common], epilog=epilog)  # type: ignore[no-any-return]
    add("queues", "every queue: depth READY/WAITING/EXPIRED, oldest READY age, rates, "
        "buffered backlog, exception queue")
    add("subscribers", "the subscribers of a queue, with what waits for each").add_argument("queue")
    add("schedules", "propagation schedules: state, failures, last error, next run")
    p_peek = add("peek", "browse messages of a queue without taking them")
    p_peek.add_argument("queue")
    p_peek.add_argument("--consumer", help="the subscriber to browse as (multi-consumer queues)")
    p_peek.add_argument("-n", type=_positive, default=10, help="how many messages (default 10)")
    p_req = add("requeue", "move messages out of an exception queue, attempts from zero")
    p_req.add_argument("exception_queue")
    p_req.add_argument("--to", metavar="QUEUE", help="the target queue (default: the queue each "
                       "message came from)")
    p_req.add_argument("--where", metavar="CONDITION",
                       help="a dequeue condition, e.g. \"tab.user_data.n > 2 AND priority = 1\"")
    p_req.add_argument("--batch", type=_positive, default=100,
                       help="messages per transaction (default 100)")
    p_req.add_argument("--dry-run", action="store_true", help="list what would move; move nothing")
    p_purge = add("purge", "dbms_aqadm.purge_queue_table with a condition, counting what went")
    p_purge.add_argument("queue_table")
    p_purge.add_argument("--where", metavar="CONDITION", required=True,
                         help="over the AQ$ view as qtview, e.g. \"qtview.queue = 'Q1'\"; "
                         "'' purges everything")
    p_purge.add_argument("--block", action="store_true", help="purge_options block => true")
    p_purge.add_argument("--dry-run", action="store_true", help="count; purge nothing")
    for name, verb in (("start", "enable"), ("stop", "disable")):
        p_sw = add(name, f"{verb} a queue for enqueue and dequeue (dbms_aqadm.{name}_queue)")
        p_sw.add_argument("queue")
        only = p_sw.add_mutually_exclusive_group()
        only.add_argument("--enqueue-only", action="store_true", help=f"{verb} enqueue only")
        only.add_argument("--dequeue-only", action="store_true", help=f"{verb} dequeue only")


def settings_command(service: str | None, markdown: bool, update: Path | None) -> int:
    """`pgaq settings`: a service's effective environment, or the declaration as a table."""
    if update is not None:
        if not markdown:
            raise ConfigError("--update goes with --markdown")
        _say(f"{update}: {'updated' if update_settings_doc(update) else 'up to date'}")
    elif markdown:
        _say(settings_table())
    else:
        for line in effective(service):
            _say(line)
    return 0


def stats_run(data_dir: Path) -> int:
    """The job in a child process, as the stats service runs it (its JVM ends with it)."""
    import subprocess

    env = dict(os.environ)
    if not (Environment(env).text("PGAQ_TCP_DSN") or Environment(env).text("PGAQ_DSN")):
        env["PGAQ_TCP_DSN"] = _dsn_for_sql(data_dir)
    return subprocess.call([sys.executable, "-m", "pgaq_services.stats.job"], env=env)


def main(argv: list[str] | None = None) -> int:
    setup_logging()
    p = parser()
    args, extra = p.parse_known_args(argv)
    if extra and args.command != "sql":
        p.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command == "up":
            port = Environment().integer("PGAQ_PORT") if args.port is None else args.port
            return asyncio.run(up(args.data_dir.absolute(), port or free_base_port()))
        if args.command == "settings":
            return settings_command(args.service, args.markdown, args.update)
        if args.command == "sql":
            return sql(args.data_dir.absolute(), extra)
        if args.command in OPERATOR_COMMANDS:
            data_dir = args.data_dir.absolute()
            return run_operator_command(args, lambda: _dsn_for_sql(data_dir))
        if args.command == "stats":
            return stats_run(args.data_dir.absolute())
        return migrate_command()
    except PgaqError as exc:
        log.error("%s", exc)
        return 1


if __name__ == "__main__":
    sys.exit(main())
