"""The run's knobs, from CHAOS_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Settings:
    messages: int = 10_000
    seed: int = 1
    kills: int = 3  # SIGKILLs per service
    gap: tuple[float, float] = (0.2, 1.5)  # seconds between faults
    outage: tuple[float, float] = (2.0, 5.0)  # seconds a link cut or a failing sink lasts
    receivers: int = 3  # blocked HTTP receivers that must all wake
    drain_timeout: float = 600.0
    workdir: Path | None = None

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = dict(os.environ if env is None else env)
        return cls(messages=int(e.get("CHAOS_MESSAGES", "10000")), seed=int(e.get("CHAOS_SEED", "1")),
                   kills=int(e.get("CHAOS_KILLS", "3")),
                   drain_timeout=float(e.get("CHAOS_DRAIN_TIMEOUT", "600")),
                   workdir=Path(e["CHAOS_DIR"]) if e.get("CHAOS_DIR") else None)
