"""A PostgreSQL 15 cluster as production runs it for pgaq: three members under Patroni,
an etcd cluster for their leader election, HAProxy in front sending every client to the
primary. All of it is Debian's programs (patroni, etcd-server, haproxy), configured from
`deploy/ha/`; pgaq does no failover or election of its own.

Each member is a machine of its own (`net.Bridge`: a network namespace) unless namespaces
are not possible (`net.Loopback`)."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import string
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from pgaq.embedded import as_server_user, chown_tree, find_bindir, free_port

from . import net
from .settings import Settings

DEPLOY = Path(__file__).resolve().parent.parent / "deploy" / "ha"


def render(template: str, **fields: object) -> str:
    """A file of `deploy/ha/` with its ${...} fields filled (every field must be given)."""
    text = (DEPLOY / template).read_text()
    return string.Template(text).substitute({k: str(v) for k, v in fields.items()})


@dataclass
class Proc:
    """A program in its own process group, its output in `log`."""

    name: str
    argv: list[str]
    log: Path
    env: dict[str, str] = field(default_factory=dict)
    proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with open(self.log, "ab") as out:  # noqa: ASYNC230 (a local file, opened once)
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=out,
                start_new_session=True, env={**os.environ, **self.env}, cwd="/")

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
        if not self.alive:
            return
        assert self.proc is not None
        try:
            os.killpg(self.proc.pid, sig)
            await asyncio.wait_for(self.proc.wait(), timeout)
        except ProcessLookupError:
            pass
        except TimeoutError:
            os.killpg(self.proc.pid, signal.SIGKILL)
            await self.proc.wait()


@dataclass
class Member:
    index: int
    name: str
    host: str
    pg_port: int
    rest_port: int
    data_dir: Path
    config: Path
    patroni: Proc

    @property
    def rest(self) -> str:
        return f"http://{self.host}:{self.rest_port}"

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data_dir / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None


class PatroniCluster:
    """etcd, the Patroni members and HAProxy, under `workdir`; `dsn(db)` is what every
    client is given: HAProxy's address, which is always the primary."""

    def __init__(self, s: Settings, workdir: Path) -> None:
        self.s = s
        self.dir = workdir
        self.password = secrets.token_hex(12)
        self.net: net.Bridge | net.Loopback = (
            net.Bridge(s.members) if s.namespaces and net.namespaces_possible() else net.Loopback(s.members))
        self.etcd: list[Proc] = []
        self.etcd_ports: list[int] = []
        self.members: list[Member] = []
        self.haproxy: Proc | None = None
        self.pg_port = free_port()
        self.extra_haproxy: list[Path] = []  # more sections (the IDAP gateways) beside postgres's

    @property
    def can_cut(self) -> bool:
        return isinstance(self.net, net.Bridge)

    def dsn(self, db: str = "postgres") -> str:
        return f"postgresql://postgres:{self.password}@127.0.0.1:{self.pg_port}/{db}"

    def jdbc_url(self, db: str) -> str:
        return (f"jdbc:postgresql://127.0.0.1:{self.pg_port}/{db}?user=postgres"
                f"&password={self.password}")

    # -- start ------------------------------------------------------------------------
    async def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o755)
        if isinstance(self.net, net.Bridge):
            await asyncio.to_thread(net.sweep_stale)
        await asyncio.to_thread(self.net.create)
        await self._start_etcd()
        bindir = find_bindir()
        etcd_hosts = ",".join(f"{self.net.gateway_host}:{p}" for p in self.etcd_ports)
        for i in range(1, self.s.members + 1):
            host = self.net.host(i)
            pg_port = 5432 if self.can_cut else free_port()
            rest_port = 8008 if self.can_cut else free_port()
            mdir = self.dir / f"m{i}"
            mdir.mkdir(exist_ok=True)
            (mdir / "sock").mkdir(exist_ok=True)
            config = mdir / "patroni.yml"
            config.write_text(render(
                "patroni.yml.in", scope=self.s.scope, name=f"m{i}", host=host, listen=host,
                rest_port=rest_port, pg_port=pg_port, etcd_hosts=etcd_hosts, ttl=self.s.ttl,
                loop_wait=self.s.loop_wait, retry_timeout=self.s.retry_timeout,
                max_connections=self.s.max_connections, data_dir=mdir / "data", bin_dir=bindir,
                pgpass=mdir / "pgpass", password=self.password, socket_dir=mdir / "sock"))
            os.chmod(config, 0o600)
            chown_tree(mdir)
            patroni = Proc(f"patroni-m{i}", [*self.net.wrap(i), *as_server_user(), "patroni", str(config)],
                           mdir / "patroni.log")
            self.members.append(Member(i, f"m{i}", host, pg_port, rest_port, mdir / "data", config,
                                       patroni))
        # the first member bootstraps; the others copy it once it leads
        await self.members[0].patroni.start()
        await self.wait_healthy(members=1)
        for m in self.members[1:]:
            await m.patroni.start()
        await self._start_haproxy()
        await self.wait_healthy()

    async def _start_etcd(self) -> None:
        n = self.s.etcd_members
        peers = [free_port() for _ in range(n)]
        self.etcd_ports = [free_port() for _ in range(n)]
        initial = ",".join(f"e{i}=http://127.0.0.1:{peers[i]}" for i in range(n))
        token = f"pgaq-{secrets.token_hex(4)}"
        for i in range(n):
            client = self.etcd_ports[i]
            listen = sorted({f"http://127.0.0.1:{client}", f"http://{self.net.gateway_host}:{client}"})
            p = Proc(f"etcd{i}", [
                "etcd", "--name", f"e{i}", "--data-dir", str(self.dir / f"etcd{i}"),
                "--listen-client-urls", ",".join(listen),
                "--advertise-client-urls", f"http://{self.net.gateway_host}:{client}",
                "--listen-peer-urls", f"http://127.0.0.1:{peers[i]}",
                "--initial-advertise-peer-urls", f"http://127.0.0.1:{peers[i]}",
                "--initial-cluster", initial, "--initial-cluster-token", token,
                "--initial-cluster-state", "new", "--log-level", "warn"],
                self.dir / f"etcd{i}.log", env={"ETCD_UNSUPPORTED_ARCH": ""})
            await p.start()
            self.etcd.append(p)
        deadline = time.monotonic() + 60
        async with aiohttp.ClientSession() as http:
            while True:
                try:
                    async with http.get(f"http://127.0.0.1:{self.etcd_ports[0]}/health",
                                        timeout=aiohttp.ClientTimeout(total=2)) as r:
                        if r.status == 200 and json.loads(await r.text()).get("health") == "true":
                            return
                except (aiohttp.ClientError, TimeoutError, json.JSONDecodeError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"etcd did not start: see {self.dir}/etcd0.log")
                await asyncio.sleep(0.2)

    async def _start_haproxy(self) -> None:
        servers = "\n".join(
            f"    server {m.name} {m.host}:{m.pg_port} check port {m.rest_port}" for m in self.members)
        cfg = self.dir / "haproxy-postgres.cfg"
        cfg.write_text(render("haproxy-postgres.cfg.in", pg_bind=f"127.0.0.1:{self.pg_port}",
                              check_interval=self.s.check_interval, pg_servers=servers))
        files = [DEPLOY / "haproxy-global.cfg", cfg, *self.extra_haproxy]
        argv = ["haproxy", "-db"]
        for f in files:
            argv += ["-f", str(f)]
        self.haproxy = Proc("haproxy", argv, self.dir / "haproxy.log")
        await self.haproxy.start()

    # -- state --------------------------------------------------------------------------
    async def topology(self) -> dict[str, Any]:
        """Patroni's view (GET /cluster of any member that answers): members, roles, lag."""
        async with aiohttp.ClientSession() as http:
            for m in self.members:
                if m.index in getattr(self.net, "cut", set()):
                    continue
                try:
                    async with http.get(f"{m.rest}/cluster", timeout=aiohttp.ClientTimeout(total=2)) as r:
                        if r.status == 200:
                            data: dict[str, Any] = await r.json()
                            return data
                except (aiohttp.ClientError, TimeoutError, json.JSONDecodeError):
                    continue
        return {"members": []}

    async def primary(self) -> Member | None:
        for row in (await self.topology())["members"]:
            if row.get("role") == "leader" and row.get("state") == "running":
                return self.member(row["name"])
        return None

    def member(self, name: str) -> Member:
        return next(m for m in self.members if m.name == name)

    async def wait_healthy(self, members: int | None = None, timeout: float | None = None) -> Member:
        """Until a leader runs, with a synchronous standby and every other member streaming
        (another process's progress: Patroni's REST API is all there is to ask)."""
        want = self.s.members if members is None else members
        deadline = time.monotonic() + (timeout or self.s.heal_timeout)
        last: Any = None
        while time.monotonic() < deadline:
            rows = (await self.topology())["members"]
            last = rows
            leader = [r for r in rows if r.get("role") == "leader" and r.get("state") == "running"]
            sync = [r for r in rows if r.get("role") == "sync_standby"
                    and r.get("state") in ("streaming", "running")]
            others = [r for r in rows if r.get("role") in ("replica", "sync_standby")
                      and r.get("state") in ("streaming", "running")]
            if leader and len(rows) == want and (want == 1 or (sync and len(others) == want - 1)):
                return self.member(leader[0]["name"])
            await asyncio.sleep(0.25)
        raise RuntimeError(f"the cluster did not become healthy: {last}")

    # -- faults -------------------------------------------------------------------------
    def kill_postmaster(self, m: Member) -> int:
        pid = m.postmaster_pid()
        if pid is None:
            raise RuntimeError(f"{m.name} has no running postmaster")
        os.kill(pid, signal.SIGKILL)
        return pid

    async def switchover(self, leader: Member, candidate: Member) -> None:
        p = await asyncio.create_subprocess_exec(
            "patronictl", "-c", str(leader.config), "switchover", self.s.scope, "--leader", leader.name,
            "--candidate", candidate.name, "--force",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await p.communicate()
        if p.returncode != 0:
            raise RuntimeError(f"patronictl switchover failed: {out.decode()[-500:]}")

    def cut_off(self, m: Member) -> None:
        self.net.cut_off(m.index)

    def reconnect(self, m: Member) -> None:
        self.net.reconnect(m.index)

    # -- stop ---------------------------------------------------------------------------
    async def stop(self) -> None:
        for m in self.members:
            if m.index in getattr(self.net, "cut", set()):
                self.net.reconnect(m.index)
        if self.haproxy is not None:
            await self.haproxy.stop()
        await asyncio.gather(*(m.patroni.stop() for m in self.members))
        for m in self.members:  # a postmaster Patroni left behind (it was killed first)
            pid = m.postmaster_pid()
            if pid is not None:
                try:
                    os.kill(pid, signal.SIGQUIT)
                except ProcessLookupError:
                    pass
        await asyncio.gather(*(p.stop() for p in self.etcd))
        await asyncio.to_thread(self.net.destroy)
