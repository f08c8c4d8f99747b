"""A private PostgreSQL cluster: found, initialised, started and stopped by pgaq itself.

Used by `pgaq up` (the embedded default) and by the test suite (a throwaway cluster).
When we run as root the server runs as the `postgres` system user, because PostgreSQL
refuses to run as root.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from .errors import ConfigError
from .ports import free_port as free_port
from .settings import Environment

SERVER_USER = "postgres"


def find_bindir(explicit: str | None = None) -> Path:
    """Locate initdb/pg_ctl: PGAQ_PG_BIN, pg_config --bindir, PATH, /usr/lib/postgresql/*/bin."""
    candidates: list[str] = []
    if explicit:
        candidates.append(explicit)
    if env := Environment().text("PGAQ_PG_BIN"):
        candidates.append(env)
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True, timeout=10
            ).stdout.strip()
            candidates.append(out)
        except (OSError, subprocess.SubprocessError):
            pass
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(str(Path(initdb).parent))
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0,
        reverse=True,
    )
    candidates.extend(versions)
    for c in candidates:
        if (Path(c) / "initdb").exists() and (Path(c) / "pg_ctl").exists():
            return Path(c)
    raise ConfigError(
        "PostgreSQL server binaries (initdb, pg_ctl) not found; install PostgreSQL or set "
        "PGAQ_PG_BIN to their directory"
    )


def as_server_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError as exc:
        raise ConfigError(
            "running as root needs a 'postgres' system user to run the server"
        ) from exc
    runuser = shutil.which("runuser")
    if runuser:
        return [runuser, "-u", SERVER_USER, "--"]
    return ["su", SERVER_USER, "-s", "/bin/sh", "-c"]  # pragma: no cover


def chown_tree(path: Path) -> None:
    if os.geteuid() != 0:
        return
    pw = pwd.getpwnam(SERVER_USER)
    for root, dirs, files in os.walk(path):
        os.chown(root, pw.pw_uid, pw.pw_gid)
        for name in dirs + files:
            os.lchown(os.path.join(root, name), pw.pw_uid, pw.pw_gid)


@dataclass
class Cluster:
    """A PostgreSQL cluster under `data_dir`, listening on 127.0.0.1:`port` only."""

    data_dir: Path
    port: int = 0
    bindir: Path | None = None
    durable: bool = True
    settings: dict[str, str] = field(default_factory=dict)
    superuser: str = "postgres"

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir).absolute()
        if self.bindir is None:
            self.bindir = find_bindir()
        if not self.port:
            self.port = free_port()

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "pg"

    @property
    def socket_dir(self) -> Path:
        return self.data_dir / "run"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "postgres.log"

    def dsn(self, dbname: str = "postgres", user: str | None = None) -> str:
        return f"postgresql://{user or self.superuser}@127.0.0.1:{self.port}/{dbname}"

    def socket_dsn(self, dbname: str = "postgres", user: str | None = None) -> str:
        """The same database over the Unix socket: what services on this machine use
        (a loopback TCP round trip costs the client markedly more CPU)."""
        return (f"postgresql://{user or self.superuser}@/{dbname}"
                f"?host={quote(str(self.socket_dir), safe='/')}&port={self.port}")

    def _run(self, args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
        assert self.bindir is not None
        cmd = [*as_server_user(), str(self.bindir / args[0]), *args[1:]]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd="/")
        if proc.returncode != 0:
            raise ConfigError(f"{args[0]} failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc

    def initialised(self) -> bool:
        return (self.pgdata / "PG_VERSION").exists()

    def _check_reachable(self) -> None:
        """As root, the server runs as `postgres`: every parent must let it through."""
        if os.geteuid() != 0:
            return
        probe = subprocess.run([*as_server_user(), "test", "-x", str(self.data_dir)],
                               capture_output=True, timeout=10, cwd="/")
        if probe.returncode != 0:
            raise ConfigError(
                f"{self.data_dir} is not reachable by the '{SERVER_USER}' system user that runs "
                "PostgreSQL: choose a data directory whose parents are world-executable"
            )

    def init(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        self._check_reachable()
        if not self.initialised():
            self.pgdata.mkdir(parents=True, exist_ok=True)
            os.chmod(self.pgdata, 0o700)
            chown_tree(self.data_dir)
            self._run(
                ["initdb", "-D", str(self.pgdata), "-U", self.superuser, "-A", "trust",
                 "-E", "UTF8", "--locale=C", *([] if self.durable else ["--no-sync"])]
            )
        conf = {
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{self.socket_dir}'",
            "max_connections": "200",
            "shared_buffers": "256MB",
            "log_min_messages": "warning",
            "logging_collector": "off",
            # a backend whose client is gone ends within a second even while a statement
            # runs: a dbms_aq.dequeue waiting in SQL (a loop that never reads its socket)
            # must not wait on and take a later message for nobody (docs/deployment.md)
            "client_connection_check_interval": "'1s'",
        }
        if not self.durable:
            conf.update({"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"})
        conf.update(self.settings)
        body = "".join(f"{k} = {v}\n" for k, v in conf.items())
        (self.pgdata / "pgaq.conf").write_text(body)
        main = self.pgdata / "postgresql.conf"
        text = main.read_text()
        if "include_if_exists = 'pgaq.conf'" not in text:
            main.write_text(text + "\ninclude_if_exists = 'pgaq.conf'\n")
        chown_tree(self.data_dir)

    def start(self, timeout: float = 60) -> None:
        self._run(
            ["pg_ctl", "-D", str(self.pgdata), "-l", str(self.log_file), "-o",
             f"-p {self.port}", "-w", "-t", str(int(timeout)), "start"],
            timeout=timeout + 10,
        )

    def stop(self, mode: str = "fast", timeout: float = 60) -> None:
        if not (self.pgdata / "postmaster.pid").exists():
            return
        try:
            self._run(["pg_ctl", "-D", str(self.pgdata), "-m", mode, "-w", "-t",
                       str(int(timeout)), "stop"], timeout=timeout + 10)
        except ConfigError:
            if (self.pgdata / "postmaster.pid").exists():
                raise

    def restart(self) -> None:
        self.stop()
        self.start()

    def running(self) -> bool:
        try:
            self._run(["pg_ctl", "-D", str(self.pgdata), "status"], timeout=10)
            return True
        except ConfigError:
            return False

    def destroy(self) -> None:
        self.stop(mode="immediate")
        shutil.rmtree(self.data_dir, ignore_errors=True)
