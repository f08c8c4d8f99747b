"""The run's knobs, from PRESSURE_* environment variables, each with its default and what
it means (docs/chaos.md, "Pressure cells"). The defaults are the issue's values: the
bounded run in `make test` (tests/e2e/test_pressure.py) shortens them."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TypeVar

CELLS = ("kill", "exhaust", "idle", "readers", "surge")


T = TypeVar("T")


def _env(name: str, doc: str, default: T) -> T:
    """A knob: its environment variable and what it means, beside its default."""
    return field(default=default, metadata={"env": name, "doc": doc})


@dataclass
class Settings:
    cells: tuple[str, ...] = _env("PRESSURE_CELLS", "the cells to run, comma-separated, in order", CELLS)
    rate: float = _env("PRESSURE_RATE", "the sustained rate the producers offer, messages/s", 150.0)
    producers: int = _env("PRESSURE_PRODUCERS", "producer sessions sharing the rate", 2)
    consumers: int = _env("PRESSURE_CONSUMERS", "consumer sessions (REMOVE + ledger row + commit)", 4)
    batch: int = _env("PRESSURE_BATCH", "messages a consumer's dequeue takes at most per transaction", 1)
    payload: int = _env("PRESSURE_PAYLOAD", "payload bytes", 256)
    warmup: float = _env("PRESSURE_WARMUP", "seconds of load before the clean phase", 5.0)
    clean: float = _env("PRESSURE_CLEAN", "seconds of the clean phase measured before each fault", 20.0)
    kill_rate: float = _env("PRESSURE_KILL_RATE", "pg_terminate_backend calls per second", 2.0)
    kill_seconds: float = _env("PRESSURE_KILL_SECONDS", "seconds the kills go on", 60.0)
    recovery: float = _env("PRESSURE_RECOVERY", "seconds allowed to get back to 95 % of clean", 10.0)
    hold: float = _env("PRESSURE_HOLD", "seconds another client holds every connection", 20.0)
    hog: int = _env("PRESSURE_HOG", "connections that client holds (the role's limit)", 20)
    connect_timeout: float = _env("PRESSURE_CONNECT_TIMEOUT", "the clients' connect timeout, s", 5.0)
    idle_seconds: float = _env("PRESSURE_IDLE_SECONDS", "seconds an idle transaction pins xmin", 600.0)
    vacuum_wait: float = _env("PRESSURE_VACUUM_WAIT",
                              "seconds to wait for autovacuum after the pin (then VACUUM)", 120.0)
    readers: int = _env("PRESSURE_READERS", "REPEATABLE READ readers scanning the queue tables", 4)
    readers_seconds: float = _env("PRESSURE_READERS_SECONDS", "seconds the readers scan", 120.0)
    surge_factor: float = _env("PRESSURE_SURGE_FACTOR", "the surge's rate, times the sustained rate", 1.5)
    surge_seconds: float = _env("PRESSURE_SURGE_SECONDS", "seconds of the surge", 300.0)
    burst: int = _env("PRESSURE_BURST", "messages enqueued at once after the surge", 100_000)
    topic_subscribers: int = _env("PRESSURE_TOPIC_SUBSCRIBERS",
                                  "subscribers of the topic beside the kill and idle cells' queue (0: none)",
                                  1000)
    topic_consumers: int = _env("PRESSURE_TOPIC_CONSUMERS",
                                "of them, how many consume (one session each); the rest only accumulate", 4)
    topic_rate: float = _env("PRESSURE_TOPIC_RATE",
                             "messages/s published to the topic (by PRESSURE_PRODUCERS more producers)", 10.0)
    drain_timeout: float = _env("PRESSURE_DRAIN_TIMEOUT", "seconds a backlog may take to drain", 900.0)
    strict: bool = _env("PRESSURE_STRICT",
                        "1: the throughput and latency rules fail the run; 0: reported only", True)
    seed: int = _env("PRESSURE_SEED", "which backends the kills pick", 1)
    workdir: Path | None = _env("PRESSURE_DIR", "where the cluster lives", None)  # noqa: RUF009

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        out = cls()
        for f in fields(cls):
            raw = e.get(f.metadata["env"])
            if raw is None or raw == "":
                continue
            value: object
            if f.name == "cells":
                value = tuple(c.strip() for c in raw.split(",") if c.strip())
                unknown = sorted(set(value) - set(CELLS))
                if unknown:
                    raise ValueError(f"PRESSURE_CELLS: unknown cells {unknown}; use {', '.join(CELLS)}")
            elif f.name == "strict":
                value = raw.strip().lower() not in ("0", "false", "no", "off")
            elif f.name == "workdir":
                value = Path(raw)
            elif isinstance(getattr(out, f.name), int):
                value = int(raw)
            else:
                value = float(raw)
            setattr(out, f.name, value)
        return out

    @classmethod
    def doc(cls) -> list[tuple[str, str, str]]:
        """(variable, default, what) for every knob."""
        d = cls()
        out = []
        for f in fields(cls):
            v = getattr(d, f.name)
            if isinstance(v, tuple):
                shown = ",".join(v)
            elif isinstance(v, bool):
                shown = "1" if v else "0"
            elif v is None:
                shown = "a temporary directory"
            else:
                shown = f"{v:g}" if isinstance(v, float) else str(v)
            out.append((f.metadata["env"], shown, f.metadata["doc"]))
        return out
