"""The run's knobs, from HA_* environment variables (`python -m ha --settings` lists them)."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path


@dataclass
class Settings:
    members: int = 3  # PostgreSQL machines under Patroni
    etcd_members: int = 3  # 1 in the bounded run inside `make test`
    cells: str = "kill,switchover,partition"
    steady: float = 20.0  # seconds of load measured before each fault
    recover_timeout: float = 120.0  # seconds throughput may take to come back to 90 %
    heal_timeout: float = 180.0  # seconds the cluster may take to have every member back
    drain_timeout: float = 120.0
    rate: float = 60.0  # library enqueues a second (JMS, SQL, propagation, notification queues)
    idap_clients: int = 2  # IDAP Send+Commit clients, as many receivers
    idap_rate: float = 0.0  # IDAP messages a second over all senders; 0: as fast as answered
    ttl: int = 10  # Patroni's leader key (deploy/ha/patroni.yml.in)
    loop_wait: int = 1
    retry_timeout: int = 4
    check_interval: str = "500ms"  # HAProxy's health checks of the members
    max_connections: int = 300
    scope: str = "pgaq"
    stats: bool = True  # the statistics service (Spark over JDBC) in the mesh
    stats_interval: float = 2.0  # minutes between its runs
    java: bool = True  # the Java JMS client (pgaq-jms.jar) beside pgaq.jms; needs a JDK
    namespaces: bool = True  # each member a machine of its own (root and `ip netns`)
    workdir: Path | None = None  # default .pgaq/ha/<pid> under the repository

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        s = cls()
        for f in fields(cls):
            raw = e.get(f"HA_{f.name.upper()}")
            if raw is None:
                continue
            default = getattr(s, f.name)
            value: object
            if isinstance(default, bool):
                value = raw.lower() in ("1", "true", "yes", "on")
            elif isinstance(default, int):
                value = int(raw)
            elif isinstance(default, float):
                value = float(raw)
            elif f.name == "workdir":
                value = Path(raw)
            else:
                value = raw
            setattr(s, f.name, value)
        return s

    @classmethod
    def describe(cls) -> str:
        s = cls()
        return "\n".join(f"HA_{f.name.upper():18} {getattr(s, f.name)!s}" for f in fields(cls))
