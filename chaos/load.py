"""The load: Send and Publish over HTTP in message sets, each message's payload a unique
id. A request whose answer is lost (a killed gateway, a restarting database) is
ambiguous: its set is committed entirely or not at all, and is sent again under new ids."""

from __future__ import annotations

import asyncio
import base64
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import aiohttp

SEND_QUEUE = "CHAOS.INQ"
TOPIC = "CHAOS.TOPIC"


def envelope(body: str) -> bytes:
    return ('<?xml version="1.0"?><Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">'
            f"<Body>{body}</Body></Envelope>").encode()


def message_set(operation: str, queue: str, ids: list[str]) -> bytes:
    msgs = "".join(
        f"<message><message_number>{n}</message_number><message_header><sender_id>"
        f"<agent_name>chaos</agent_name></sender_id></message_header><message_payload>"
        f"<RAW>{i.encode().hex().upper()}</RAW></message_payload></message>"
        for n, i in enumerate(ids, 1))
    return envelope(
        f'<{operation} xmlns="http://ns.oracle.com/AQ/schemas/access"><producer_options>'
        f"<destination>{queue}</destination></producer_options><message_set>"
        f"<message_count>{len(ids)}</message_count>{msgs}</message_set><AQXmlCommit/></{operation}>")


@dataclass
class Ledger:
    """What the load sent: acknowledged ids, and the sets whose outcome is unknown."""

    acked: dict[str, set[str]] = field(default_factory=lambda: {"send": set(), "publish": set()})
    unsure: dict[str, list[list[str]]] = field(default_factory=lambda: {"send": [], "publish": []})
    faults: list[str] = field(default_factory=list)  # Client faults: a violation
    retries: int = 0

    def sent(self, kind: str) -> set[str]:
        return self.acked[kind] | {i for s in self.unsure[kind] for i in s}


class Load:
    """`total` acknowledged messages, half Send and half Publish, `workers` at a time."""

    def __init__(self, url: str, agent: str, password: str, total: int, batch: int = 20,
                 workers: int = 4, pace: Callable[[float], Awaitable[None]] | None = None) -> None:
        self.url = url
        self.auth = "Basic " + base64.b64encode(f"{agent}:{password}".encode()).decode()
        self.total = total
        self.batch = batch
        self.workers = workers
        self.ledger = Ledger()
        self._seq = itertools.count()
        self._todo = total
        self._pace = pace  # awaited with the share already taken: spreads the load over the faults

    def _take(self) -> int:
        n = min(self.batch, self._todo)
        self._todo -= n
        return n

    async def run(self) -> Ledger:
        async with aiohttp.ClientSession() as http:
            await asyncio.gather(*(self._worker(http, w) for w in range(self.workers)))
        return self.ledger

    async def _worker(self, http: aiohttp.ClientSession, w: int) -> None:
        kinds = itertools.cycle(["send", "publish"] if w % 2 == 0 else ["publish", "send"])
        while True:
            if self._pace is not None:
                await self._pace(1 - self._todo / self.total)
            if (n := self._take()) <= 0:
                return
            kind = next(kinds)
            while True:
                ids = [f"{kind[0]}{next(self._seq):07d}" for _ in range(n)]
                if await self._post(http, kind, ids):
                    break
                self.ledger.retries += 1

    async def _post(self, http: aiohttp.ClientSession, kind: str, ids: list[str]) -> bool:
        """True when acknowledged; False (and the set noted as unsure) when the answer
        was lost or the server failed."""
        op, queue = ("AQXmlSend", SEND_QUEUE) if kind == "send" else ("AQXmlPublish", TOPIC)
        try:
            async with http.post(self.url, data=message_set(op, queue, ids),
                                 headers={"Content-Type": "text/xml", "Authorization": self.auth},
                                 timeout=aiohttp.ClientTimeout(total=60)) as r:
                body = await r.read()
                status = r.status
        except (aiohttp.ClientError, TimeoutError, OSError):
            status, body = 0, b""
        if status == 200:
            self.ledger.acked[kind].update(ids)
            return True
        self.ledger.unsure[kind].append(ids)
        if status == 0 or status >= 500:
            await asyncio.sleep(0.05)  # the gateway is restarting: don't spin on its port
            return False
        if status == 400 and b"ORA-25402" in body:
            return False
        self.ledger.faults.append(f"{status}: {body[:300]!r}")
        if len(self.ledger.faults) > 50:
            raise RuntimeError(f"the gateway keeps refusing the load: {self.ledger.faults[-1]}")
        return False
