"""One fault under the steady load, measured: the load runs `steady` seconds, the fault
lands, the run waits until the IDAP senders' throughput is back to 90 % of before, lets a
cut-off member back, waits until every member is in the cluster again, then runs `steady`
seconds more: the pickup latency after, with the outage's backlog gone."""

from __future__ import annotations

import asyncio
import itertools
import statistics
import time
from dataclasses import dataclass, field

from .load import Load
from .mesh import Mesh

CELLS = ("kill", "switchover", "partition")
WINDOW = 5.0  # seconds of throughput compared with before (one second swings ±50 % here)
PICKUP = ("jms", "java", "sql")  # consumers whose pickup latency is measured


@dataclass
class Cell:
    name: str
    old_primary: str = ""
    new_primary: str = ""
    before_rate: float = 0.0  # IDAP Send+Commit messages a second, before the fault
    rto: float | None = None  # fault -> first commit after the outage
    recovery: float | None = None  # fault -> throughput back at 90 % of before
    heal: float | None = None  # fault -> every member back, the old primary a replica
    pickup_before: dict[str, float] = field(default_factory=dict)  # dest -> p50 seconds
    pickup_after: dict[str, float] = field(default_factory=dict)
    faults: dict[str, int] = field(default_factory=dict)  # what IDAP clients were told
    exception_listener: int = 0  # JMS ExceptionListener calls during the cell
    exception_listener_java: int | None = None  # the Java client's (None: it did not run)
    tx_lost: int = 0


def _rate(times: list[float], a: float, b: float) -> float:
    return sum(1 for t in times if a <= t < b) / (b - a) if b > a else 0.0


def _p50(load: Load, dest: str, a: float, b: float) -> float | None:
    """Median seconds from a send's acknowledgement to its first receipt, for sends
    acknowledged in [a, b)."""
    acked = load.rec.acked.get(dest, {})
    got = load.rec.got_at.get(dest, {})
    lat = [max(0.0, got[i] - t) for i, t in acked.items() if a <= t < b and i in got]
    return statistics.median(lat) if lat else None


def _idap_times(load: Load) -> list[float]:
    return sorted(load.rec.acked.get("idap", {}).values())


async def run_cell(mesh: Mesh, load: Load, name: str) -> Cell:
    s, cluster = mesh.s, mesh.cluster
    cell = Cell(name)
    primary = await cluster.wait_healthy()
    cell.old_primary = primary.name
    faults0 = dict(load.rec.faults)
    listener0 = len(load.rec.exception_listener)
    java0 = len(load.rec.exception_listener_java)
    tx0 = load.rec.tx_lost
    await mesh.quiet()
    start = time.monotonic()
    await asyncio.sleep(s.steady)  # the measurement window before the fault
    load.check()
    t_fault = time.monotonic()
    cell.before_rate = _rate(_idap_times(load), start, t_fault)
    for dest in PICKUP:
        p = _p50(load, dest, start, t_fault - 1)
        if p is not None:
            cell.pickup_before[dest] = p
    if name == "kill":
        cluster.kill_postmaster(primary)
    elif name == "switchover":
        rows = (await cluster.topology())["members"]
        candidate = next(r["name"] for r in rows if r.get("role") == "sync_standby")
        await cluster.switchover(primary, cluster.member(candidate))
    elif name == "partition":
        cluster.cut_off(primary)
    else:
        raise ValueError(f"no such cell: {name} (cells: {', '.join(CELLS)})")
    # back to 90 %: polled, as the clients' progress is all there is to watch
    deadline = t_fault + s.recover_timeout
    while time.monotonic() < deadline:
        load.check()
        now = time.monotonic()
        if now - t_fault > WINDOW and _rate(_idap_times(load), now - WINDOW, now) >= 0.9 * cell.before_rate:
            cell.recovery = now - t_fault
            break
        await asyncio.sleep(0.25)
    if any(t > t_fault for t in load.rec.ack_times()):
        cell.rto = _rto(load.rec.ack_times(), t_fault, time.monotonic())
    new = await cluster.primary()
    cell.new_primary = new.name if new else "?"
    if name == "partition":
        cluster.reconnect(primary)
    await cluster.wait_healthy()
    cell.heal = time.monotonic() - t_fault
    # the pickup after: once the cluster is whole again and the outage's backlog is gone
    await mesh.quiet()
    mark = time.monotonic()
    await asyncio.sleep(s.steady)
    for dest in PICKUP:
        p = _p50(load, dest, mark, time.monotonic() - 1)
        if p is not None:
            cell.pickup_after[dest] = p
    cell.faults = {k: v - faults0.get(k, 0) for k, v in load.rec.faults.items() if v != faults0.get(k, 0)}
    cell.exception_listener = len(load.rec.exception_listener) - listener0
    if load.java is not None:
        cell.exception_listener_java = len(load.rec.exception_listener_java) - java0
    cell.tx_lost = load.rec.tx_lost - tx0
    return cell


def _rto(acks: list[float], t_fault: float, now: float) -> float:
    """Fault -> the end of the longest stretch without any acknowledged commit, between the
    fault and now (a commit acknowledged by the old primary just before it went does not
    end the outage)."""
    window = [t_fault] + [t for t in acks if t_fault < t <= now]
    best_end, best = window[-1], 0.0
    for a, b in itertools.pairwise(window):
        if b - a > best:
            best, best_end = b - a, b
    return best_end - t_fault
