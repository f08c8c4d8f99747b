"""Benchmark knobs, read from the environment (defaults keep `make bench` near 3-4 minutes)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _float(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


def _int(name: str, default: int) -> int:
    return int(float(os.environ.get(name, default)))  # 1e6 is accepted too


def _ints(name: str, default: str) -> tuple[int, ...]:
    return tuple(int(float(x)) for x in os.environ.get(name, default).split(",") if x.strip())


def _names(name: str, default: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in os.environ.get(name, default).split(",") if x.strip())


ALL_SUITES = "core,peers,jms,java,gateway,scaleout,notify,propagation,monitor,stats,fanout"


@dataclass(frozen=True)
class Settings:
    seconds: float = field(default_factory=lambda: _float("BENCH_SECONDS", 5.0))
    warmup: float = field(default_factory=lambda: _float("BENCH_WARMUP", 1.0))
    concurrency: int = field(default_factory=lambda: _int("BENCH_CONCURRENCY", 4))
    big: int = field(default_factory=lambda: _int("BENCH_BIG", 1_000_000))
    small: int = field(default_factory=lambda: _int("BENCH_SMALL", 1_000))
    # messages pre-filled for the REMOVE benchmark; 0 = sized from the measured insert rate
    prefill: int = field(default_factory=lambda: _int("BENCH_PREFILL", 0))
    fill_chunk: int = field(default_factory=lambda: _int("BENCH_FILL_CHUNK", 10_000))
    suites: tuple[str, ...] = field(default_factory=lambda: tuple(
        s.strip()
        for s in os.environ.get("BENCH_SUITES", ALL_SUITES).split(",")
        if s.strip()))
    # messages each contender of the peers suite enqueues and then consumes
    peers_n: int = field(default_factory=lambda: _int("BENCH_PEERS_N", 10_000))
    # row 8's offered rate, msg/s; 0 = half of the measured single-message enqueue rate
    pickup_rate: float = field(default_factory=lambda: _float("BENCH_PICKUP_RATE", 0.0))
    # the java suite: wake-ups per provider (JV4) and the least pre-fill of a consume half
    java_rounds: int = field(default_factory=lambda: _int("BENCH_JAVA_ROUNDS", 60))
    java_fill: int = field(default_factory=lambda: _int("BENCH_JAVA_FILL", 5_000))
    # the fanout suite (issue 35): subscriber counts of a topic, the publish time box (s),
    # the messages stored (and drained by one subscriber) per count, the subscribers with a
    # rule each of row F4 (0: no row; each add compiles its own rule, about 30 ms on a
    # loaded 2-core machine), waiter counts, their stream's rate (msg/s) and
    # length (s), and the kinds of waiter (library, idap, jms)
    fanout_subscribers: tuple[int, ...] = field(
        default_factory=lambda: _ints("BENCH_FANOUT_SUBSCRIBERS", "1,10,100,1000"))
    fanout_seconds: float = field(default_factory=lambda: _float("BENCH_FANOUT_SECONDS", 3.0))
    fanout_messages: int = field(default_factory=lambda: _int("BENCH_FANOUT_MESSAGES", 2_000))
    fanout_rules: int = field(default_factory=lambda: _int("BENCH_FANOUT_RULES", 1_000))
    # row F5: a backlog one subscriber drains, published 500 per transaction, at the
    # smallest and largest subscriber counts (0: no row)
    fanout_backlog: int = field(default_factory=lambda: _int("BENCH_FANOUT_BACKLOG", 20_000))
    fanout_waiters: tuple[int, ...] = field(
        default_factory=lambda: _ints("BENCH_FANOUT_WAITERS", "4,64,256"))
    fanout_rate: float = field(default_factory=lambda: _float("BENCH_FANOUT_RATE", 150.0))
    fanout_stream: float = field(default_factory=lambda: _float("BENCH_FANOUT_STREAM", 4.0))
    fanout_kinds: tuple[str, ...] = field(
        default_factory=lambda: _names("BENCH_FANOUT_KINDS", "library,idap,jms,java"))
    # log where each waiter stream's wall time goes (start, warm-up, stream, tail, stop)
    fanout_trace: bool = field(
        default_factory=lambda: os.environ.get("BENCH_FANOUT_TRACE", "") not in ("", "0"))
    # pg_stat_statements in the cluster, and a statement profile after the core suite
    stats: bool = field(default_factory=lambda: os.environ.get("BENCH_STATS", "") not in ("", "0"))

    def describe(self) -> dict[str, object]:
        return {"seconds": self.seconds, "warmup": self.warmup, "concurrency": self.concurrency,
                "big": self.big, "small": self.small, "prefill": self.prefill,
                "fill_chunk": self.fill_chunk, "suites": list(self.suites), "stats": self.stats,
                "peers_n": self.peers_n, "pickup_rate": self.pickup_rate,
                "java_rounds": self.java_rounds, "java_fill": self.java_fill,
                "fanout_subscribers": list(self.fanout_subscribers),
                "fanout_seconds": self.fanout_seconds, "fanout_messages": self.fanout_messages,
                "fanout_rules": self.fanout_rules,
                "fanout_backlog": self.fanout_backlog, "fanout_waiters": list(self.fanout_waiters),
                "fanout_rate": self.fanout_rate, "fanout_stream": self.fanout_stream,
                "fanout_kinds": list(self.fanout_kinds)}
