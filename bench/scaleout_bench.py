"""IDAP gateways scaled out behind HAProxy (issue 34): Send+Commit and Receive+Commit with
two gateway instances against one, both through HAProxy, in the same run and at the same
client concurrency; and one instance directly against one through HAProxy, which shows
HAProxy's own cost. Each instance runs one worker process (PGAQ_GATEWAY_WORKERS=1): the
comparison is of instances, not of workers. Rounds interleave the three setups, as the
gateway suite's floors are interleaved, and each figure is the median round's."""

from __future__ import annotations

import os
import statistics
from pathlib import Path
from typing import Any

import asyncpg

from ha.gateways import GatewayFarm, available

from .gateway_bench import AQ, CLIENTS, PAYLOAD, ROUNDS, _doc, _msg, http_loop
from .measure import Result

SEND = _doc(f'AQXmlSend xmlns="{AQ}"><producer_options><destination>gwha.q</destination>'
            f"</producer_options><message_set>{_msg(1)}</message_set><AQXmlCommit/></AQXmlSend>")
RECEIVE = _doc(f'AQXmlReceive xmlns="{AQ}"><consumer_options><destination>gwha.q</destination>'
               "<wait_time>0</wait_time></consumer_options><AQXmlCommit/></AQXmlReceive>")
SETUPS = ("direct, 1 instance", "HAProxy, 1 instance", "HAProxy, 2 instances")


async def _setup(dsn: str) -> None:
    """A queue of its own; the gateway suite's agent BENCH (created here when that suite
    did not run), whose database user is an ordinary role."""
    c = await asyncpg.connect(dsn)
    try:
        await c.execute("""
            DO $$ BEGIN CREATE ROLE bench_gw NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
            CREATE SCHEMA gwha AUTHORIZATION bench_gw;
            CALL dbms_aqadm.create_queue_table('gwha.qt', 'RAW');
            CALL dbms_aqadm.create_queue('gwha.q', 'gwha.qt'); CALL dbms_aqadm.start_queue('gwha.q');
        """)
        try:
            await c.execute("""
                CALL dbms_aqadm.create_aq_agent(agent_name => 'BENCH', enable_http => true, password => 'pw');
                CALL dbms_aqadm.enable_db_access(agent_name => 'BENCH', db_username => 'bench_gw');
            """)
        except asyncpg.PostgresError:
            pass  # the gateway suite made it
        await c.execute("GRANT USAGE ON SCHEMA gwha TO bench_gw")
    finally:
        await c.close()


async def _prefill(dsn: str, n: int) -> None:
    c = await asyncpg.connect(dsn)
    try:
        for i in range(0, n, 10_000):
            k = min(10_000, n - i)
            await c.execute("SELECT aq.enqueue_array('gwha.q', $1, NULL, $2)",
                            "[" + ",".join(["{}"] * k) + "]", [PAYLOAD] * k)
        await c.execute("VACUUM ANALYZE gwha.qt")
    finally:
        await c.close()


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process and all its descendants that are alive."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
        for task in os.listdir(f"/proc/{pid}/task"):
            for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split():
                total += _cpu_seconds(int(child))
    except (FileNotFoundError, ProcessLookupError, IndexError):
        pass
    return total


async def _postmaster(dsn: str) -> int:
    c = await asyncpg.connect(dsn)
    try:
        data = await c.fetchval("SHOW data_directory")
    finally:
        await c.close()
    return int((Path(data) / "postmaster.pid").read_text().split()[0])


async def run(dsn: str, service_dsn: str, seconds: float, warmup: float = 1.0
              ) -> list[dict[str, Any]]:
    if not available():
        return [{"benchmark": "IDAP via HAProxy, 2 instances vs 1", "pgaq": "missing",
                 "floor": "-", "unit": "msg/s", "target": "-", "context": True,
                 "note": "HAProxy is not installed (deploy/system-deps.sh --bench)"}]
    await _setup(dsn)
    env = {"PGAQ_MAX_TRANSACTIONS": "100"}
    one = GatewayFarm(service_dsn, 1, env=env)
    two = GatewayFarm(service_dsn, 2, env=env)
    await one.start()
    try:
        await two.start()
    except BaseException:
        await one.stop()
        raise
    urls = dict(zip(SETUPS, (one.direct("gw1") + "/aqserv/servlet", one.url, two.url), strict=True))
    postmaster = await _postmaster(dsn)
    cpu: dict[str, float] = {}

    def counted() -> dict[str, float]:
        """CPU seconds so far of the two-instance setup's parts and of this process."""
        t = os.times()
        gateways = sum(_cpu_seconds(two.pid(n)) for n in two.names)
        assert two.proxy is not None
        return {"gateways": gateways, "haproxy": _cpu_seconds(two.proxy.pid),
                "postgres": _cpu_seconds(postmaster), "client": t.user + t.system}

    async def measure(doc: bytes, need: bytes | None) -> dict[str, list[Result]]:
        out: dict[str, list[Result]] = {s: [] for s in SETUPS}
        if warmup > 0:
            for s in SETUPS:
                await http_loop(urls[s], doc, warmup / len(SETUPS), CLIENTS, need)
        share = seconds / ROUNDS
        for _ in range(ROUNDS):
            for s in SETUPS:
                before = counted() if s == SETUPS[2] else None
                out[s].append(await http_loop(urls[s], doc, share, CLIENTS, need))
                if before is not None:
                    after = counted()
                    for k, v in after.items():
                        cpu[k] = cpu.get(k, 0.0) + v - before[k]
        return out

    try:
        sends = await measure(SEND, None)
        send_cpu, cpu_ops = dict(cpu), sum(r.ops for r in sends[SETUPS[2]])
        cpu.clear()
        fastest = max(sum(r.ops for r in rs) / max(1e-9, sum(r.seconds for r in rs))
                      for rs in sends.values())
        await _prefill(dsn, max(20_000, int(fastest * (len(SETUPS) * seconds + warmup) * 1.5)))
        receives = await measure(RECEIVE, b"message_id>")
        recv_cpu, recv_ops = dict(cpu), sum(r.ops for r in receives[SETUPS[2]])
    finally:
        await two.stop()
        await one.stop()

    def rate(rs: list[Result]) -> float:
        return statistics.median(r.rate for r in rs)

    def where(spent: dict[str, float], ops: int) -> str:
        total = sum(spent.values())
        parts = ", ".join(f"{k} {v / ops * 1e6:.0f}" for k, v in spent.items())
        return (f"CPU us per request with 2 instances: {parts} (total {total / ops * 1e6:.0f}; "
                f"{os.cpu_count()} CPUs)")

    rows: list[dict[str, Any]] = []
    how = f"{CLIENTS} HTTP clients, 1 worker per instance, median of {ROUNDS} interleaved rounds"

    def row(name: str, ours: list[Result], base: list[Result], note: str) -> None:
        dry = any(r.dry for r in ours + base)
        rows.append({"benchmark": name, "pgaq": round(rate(ours), 1), "floor": round(rate(base), 1),
                     "unit": "msg/s", "ratio": round(rate(ours) / rate(base), 3) if rate(base) else 0.0,
                     "target": "-", "context": True,
                     "pgaq_p50_ms": round(statistics.median(r.p50 for r in ours), 3),
                     "pgaq_p99_ms": round(statistics.median(r.p99 for r in ours), 3),
                     "floor_p50_ms": round(statistics.median(r.p50 for r in base), 3),
                     "floor_p99_ms": round(statistics.median(r.p99 for r in base), 3),
                     "note": note + f"; {how}" + ("; RAN DRY: raise the pre-fill" if dry else "")})

    row("IDAP Send+Commit via HAProxy, 2 instances (floor: 1)", sends[SETUPS[2]], sends[SETUPS[1]],
        "context; floor: one instance through the same HAProxy; " + where(send_cpu, cpu_ops))
    row("IDAP Receive+Commit via HAProxy, 2 instances (floor: 1)", receives[SETUPS[2]],
        receives[SETUPS[1]], "context; floor: one instance through the same HAProxy; "
        + where(recv_cpu, recv_ops))
    row("IDAP Send+Commit, 1 instance via HAProxy (floor: direct)", sends[SETUPS[1]],
        sends[SETUPS[0]], "context: HAProxy's own cost; floor: the same instance without it")
    row("IDAP Receive+Commit, 1 instance via HAProxy (floor: direct)", receives[SETUPS[1]],
        receives[SETUPS[0]], "context: HAProxy's own cost; floor: the same instance without it")
    return rows

