"""RabbitMQ as a peer of the peers suite: the broker users pick instead of a queue in
PostgreSQL, on a private node the bench starts (bench/rabbitmq_node.py), driven by
aio-pika (PyPI, bench extra) as its documentation shows.

The job is the peers suite's: N persistent 256-byte messages, then consume them all.
- a durable classic queue (`x-queue-type: classic`; classic queue version 1, 3.10's
  default); messages persistent (delivery_mode 2) published to the default exchange on
  channels in publisher-confirm mode (aio-pika's default), each `publish` awaiting its
  own confirm: one message per confirm, from C clients, each on its own connection;
- consume: C consumers, each on its own connection and channel, `set_qos(prefetch_count
  =PREFETCH)`, `queue.consume(callback)` with `async with message.process()`: a manual
  basic.ack per message (aio-pika's documented pattern). The clock stops when the last
  message is handled and each consumer channel has answered one round-trip after its
  acks; closing the channels then requeues nothing (the queue is checked empty).
- fan-out: for each of FANOUT_QUEUES (1, 10, 100, 1,000), a durable fanout exchange
  bound to that many durable classic queues; M persistent messages (BENCH_FANOUT_N,
  2,000, or fewer when BENCH_FANOUT_SECONDS, 10, run out first) published to the
  exchange by C clients, one per confirm: the publish rate; then one consumer (as
  above) drains one of the queues (all M): its drain rate. The queues are deleted after
  each size.

Durability each side gives when it says "done":
- RabbitMQ 3.10 (one node, no replica): a persistent message routed to a durable classic
  queue is confirmed once it is on disk in every queue it was routed to, fsync'd: bodies
  under queue_index_embed_msgs_below (4,096 bytes, so these) are written into each
  queue's own index, larger ones once into the message store; queues sync in groups
  (when idle, or on a timer of a few hundred ms at most under load, RabbitMQ's confirms
  guide says), so one fsync may cover several confirms: strace of the node counted
  1,194 fsync calls for 2,000 confirmed publishes from 4 clients to one queue. A
  basic.ack is neither answered nor synced.
- pgaq: an enqueue returns after PostgreSQL's COMMIT with fsync and synchronous_commit
  on (the WAL flushed to disk; concurrent commits share a flush); a REMOVE is committed
  the same way.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

PREFETCH = 10  # aio-pika's README consumer example


def log(text: str) -> None:
    print(f"  [{time.strftime('%H:%M:%S')}] {text}", flush=True)


def fanout_queues() -> tuple[int, ...]:
    text = os.environ.get("BENCH_RABBITMQ_FANOUT", "1,10,100,1000")
    return tuple(int(x) for x in text.split(",") if x.strip())


def fanout_n() -> int:
    return int(float(os.environ.get("BENCH_FANOUT_N", "2000")))


def fanout_seconds() -> float:
    """At most this long publishing to one fan-out size (1,000 durable queues take a few
    messages a second on a loaded 2-core machine: 2,000 would take minutes)."""
    return float(os.environ.get("BENCH_FANOUT_SECONDS", "10"))


class NotAvailable(Exception):
    """aio-pika or rabbitmq-server is not installed here."""


@dataclass
class Fanout:
    queues: int
    publish: float  # msg/s published to the exchange (each copied into every queue)
    drain: float  # msg/s one consumer drains from one of the queues
    messages: int


@dataclass
class Figures:
    enqueue: float
    consume: float
    fanout: list[Fanout] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)


def needs() -> None:
    """Raise NotAvailable with the reason when the peer cannot run here."""
    from .rabbitmq_node import missing

    try:
        import aio_pika  # noqa: F401
    except ImportError as e:
        raise NotAvailable(f"aio-pika not installed ({e}): the bench extra installs it") from e
    why = missing()
    if why is not None:
        raise NotAvailable(why)


async def _publish(url: str, n: int, clients: int, exchange: str, routing_key: str,
                   body: bytes, seconds: float | None = None) -> tuple[int, float]:
    """n persistent messages from `clients` connections, each publish awaiting its confirm,
    or fewer when `seconds` run out first; returns how many were confirmed and the wall
    time."""
    import aio_pika

    conns = [await aio_pika.connect_robust(url) for _ in range(clients)]
    try:
        targets = []
        for c in conns:
            ch = await c.channel()  # publisher_confirms=True: its default
            targets.append(ch.default_exchange if not exchange
                           else await ch.get_exchange(exchange, ensure=False))
        left, confirmed = [n], [0]
        started = time.perf_counter()
        deadline = started + seconds if seconds is not None else float("inf")

        async def loop(w: int) -> None:
            while left[0] > 0 and time.perf_counter() < deadline:
                left[0] -= 1
                await targets[w].publish(
                    aio_pika.Message(body, delivery_mode=aio_pika.DeliveryMode.PERSISTENT),
                    routing_key=routing_key)
                confirmed[0] += 1

        await asyncio.gather(*(loop(w) for w in range(clients)))
        return confirmed[0], time.perf_counter() - started
    finally:
        for c in conns:
            await c.close()


async def _consume(url: str, queue: str, n: int, consumers: int) -> float:
    """Consume n messages from `queue` with `consumers` connections, a manual ack per
    message; returns the wall time to the last acknowledgement."""
    import aio_pika
    from aio_pika.abc import AbstractIncomingMessage

    conns = [await aio_pika.connect_robust(url) for _ in range(consumers)]
    try:
        done = asyncio.Event()
        handled = [0]

        async def on_message(message: AbstractIncomingMessage) -> None:
            async with message.process():  # basic.ack when the block ends
                handled[0] += 1
            if handled[0] >= n:
                done.set()

        channels = []
        for c in conns:
            ch = await c.channel()
            await ch.set_qos(prefetch_count=PREFETCH)
            channels.append(ch)
        queues = [await ch.get_queue(queue, ensure=False) for ch in channels]
        started = time.perf_counter()
        tags = [await q.consume(on_message) for q in queues]
        await asyncio.wait_for(done.wait(), 600)
        # a round-trip on each channel after its acks: the broker has taken them
        for ch in channels:
            await ch.set_qos(prefetch_count=PREFETCH)
        elapsed = time.perf_counter() - started
        for q, tag in zip(queues, tags, strict=True):
            await q.cancel(tag)
    finally:
        for c in conns:
            await c.close()
    if handled[0] != n:
        raise AssertionError(f"RabbitMQ delivered {handled[0]} of {n}")
    return elapsed


async def _depth(url: str, queue: str) -> int:
    import aio_pika

    async with await aio_pika.connect_robust(url) as conn:
        ch = await conn.channel()
        q = await ch.declare_queue(queue, passive=True)
        return int(q.declaration_result.message_count or 0)


async def _fanout(url: str, queues: int, m: int, clients: int, body: bytes) -> Fanout:
    import aio_pika

    name = f"bench.fan{queues}"
    names = [f"{name}.q{i}" for i in range(queues)]
    async with await aio_pika.connect_robust(url) as conn:
        ch = await conn.channel()
        ex = await ch.declare_exchange(name, aio_pika.ExchangeType.FANOUT, durable=True)
        for q in names:
            declared = await ch.declare_queue(q, durable=True,
                                              arguments={"x-queue-type": "classic"})
            await declared.bind(ex)
    sent, pub = await _publish(url, m, clients, name, "", body, fanout_seconds())
    last = await _depth(url, names[-1])
    if last != sent:
        raise AssertionError(f"RabbitMQ fanout {queues}: the last queue holds {last} of {sent}")
    drain = await _consume(url, names[0], sent, 1)
    left = await _depth(url, names[0])
    async with await aio_pika.connect_robust(url) as conn:
        ch = await conn.channel()
        for q in names:
            await ch.queue_delete(q)
        await ch.exchange_delete(name)
    if left:
        raise AssertionError(f"RabbitMQ fanout {queues}: {left} messages left after the drain")
    return Fanout(queues, sent / pub if pub else 0.0, sent / drain if drain else 0.0, sent)


async def measure(n: int, concurrency: int, body: bytes,
                  sizes: tuple[int, ...] | None = None, m: int | None = None) -> Figures:
    """Start a private node, run the enqueue, consume and fan-out phases, stop it."""
    needs()
    import aio_pika

    from .rabbitmq_node import private_node

    sizes = fanout_queues() if sizes is None else sizes
    m = fanout_n() if m is None else m
    async with private_node() as node:
        async with await aio_pika.connect_robust(node.url) as conn:
            ch = await conn.channel()
            await ch.declare_queue("bench", durable=True, arguments={"x-queue-type": "classic"})
        _, enq = await _publish(node.url, n, concurrency, "", "bench", body)
        con = await _consume(node.url, "bench", n, concurrency)
        left = await _depth(node.url, "bench")
        if left:
            raise AssertionError(f"RabbitMQ: {left} messages left after consuming {n}")
        log(f"peers, RabbitMQ {node.version}: enqueue {n / enq:,.0f}/s, consume {n / con:,.0f}/s")
        fans = []
        for k in sizes:
            fans.append(await _fanout(node.url, k, m, concurrency, body))
            log(f"peers, RabbitMQ fanout {k:,} queues: publish {fans[-1].publish:,.0f}/s, "
                f"one queue drained {fans[-1].drain:,.0f}/s")
        version = node.version
    return Figures(n / enq if enq else 0.0, n / con if con else 0.0, fans,
                   {"version": f"RabbitMQ {version}, aio-pika {metadata.version('aio-pika')}",
                    "queue": "durable classic queue (v1), persistent messages",
                    "publish_mode": "1 message per publisher confirm, a connection per client",
                    "consume_mode": f"a manual ack per message, prefetch {PREFETCH}, "
                                    f"{concurrency} consumers",
                    "fanout": {f.queues: {"publish": round(f.publish, 1),
                                          "drain_one": round(f.drain, 1),
                                          "messages": f.messages} for f in fans}})
