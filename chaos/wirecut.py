"""A TCP proxy that cuts a PostgreSQL connection at a chosen message of the server's reply:
the server has done the work (and, at a ReadyForQuery that says "idle", committed it), the
client never hears of it. What a failover does to a client whose COMMIT the synchronous
standby acknowledged just before the primary died, made deterministic (issue 34).

It reads the server's messages as PostgreSQL's protocol frames them (a type byte and a
4-byte length that counts itself); the one unframed byte, the answer to an SSLRequest or a
GSSENCRequest, is passed through. Connections must not use TLS (`ssl=False`,
`sslmode=disable`): the proxy could not read them.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from dataclasses import dataclass

from .proxy import LinkProxy

DATA_ROW = b"D"
READY = b"Z"  # ReadyForQuery; its one byte of body: I idle, T in a transaction, E failed one
_NEGOTIATIONS = (80877103, 80877104)  # SSLRequest, GSSENCRequest: answered by one byte


@dataclass(frozen=True)
class Cut:
    """Where to cut: before the first server message of `kind` (and body `status`: for
    ReadyForQuery the transaction status, for CommandComplete the tag) that follows a
    DataRow holding `row`, or, when `after_row` is False, the first of `kind` holding
    `row`. The cut message and all after it are never forwarded."""

    kind: bytes
    status: bytes | None = None
    after_row: bool = True
    # the server's message is forwarded, and the client's next message is the one that
    # never arrives: the connection dies with the server waiting for it
    client_next: bool = False
    # only a DataRow holding these bytes counts (a message's text: not an empty look's row)
    row: bytes = b""


# the server committed the transaction that sent rows (autocommit or an explicit COMMIT)
COMMITTED = Cut(READY, b"I")
# the server committed (an explicit COMMIT, "COMMIT; BEGIN" too): its CommandComplete
COMMIT_DONE = Cut(b"C", b"COMMIT\x00")
# the statement sent its rows inside a transaction that nothing has committed yet
ROWS_IN_TRANSACTION = Cut(READY, b"T")
# the rows themselves never arrive
ROWS = Cut(DATA_ROW, after_row=False)
# the rows and the ReadyForQuery of the open transaction arrive; the client's next message
# (its COMMIT) never reaches the server, which rolls the transaction back
COMMIT_LOST = Cut(READY, b"T", client_next=True)


class ReplyCut(LinkProxy):
    """LinkProxy whose `arm(cut)` makes the next connection to reach `cut` die there: its
    server side and client side are aborted, nothing after the cut forwarded. Once."""

    def __init__(self, target: int) -> None:
        super().__init__(target)
        self._cut: Cut | None = None
        self.fired = asyncio.Event()

    def arm(self, cut: Cut) -> None:
        self._cut = cut
        self.fired.clear()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     up_r: asyncio.StreamReader, up_w: asyncio.StreamWriter) -> None:
        negotiating = [0]  # one-byte answers the server owes (SSLRequest, GSSENCRequest)
        drop = asyncio.Event()  # the client's next message is not to arrive
        await asyncio.gather(self._upward(reader, up_w, writer, negotiating, drop),
                             self._downward(up_r, writer, up_w, negotiating, drop))

    async def _upward(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter,
                      client: asyncio.StreamWriter, negotiating: list[int],
                      drop: asyncio.Event) -> None:
        """Client to server, message by message (the untyped startup packets read whole, to
        see which ask for a one-byte answer), until a message that is not to arrive."""
        try:
            while True:
                head = await src.readexactly(8)
                size, code = struct.unpack("!ii", head)
                rest = await src.readexactly(size - 8)
                if code in _NEGOTIATIONS:
                    negotiating[0] += 1
                dst.write(head + rest)
                await dst.drain()
                if code not in _NEGOTIATIONS:
                    break  # the StartupMessage: typed messages from here on
            while True:
                head = await src.readexactly(5)
                body = await src.readexactly(struct.unpack("!i", head[1:])[0] - 4)
                if drop.is_set():
                    dst.transport.abort()  # the server sees its client vanish
                    client.transport.abort()
                    self.fired.set()
                    return
                dst.write(head + body)
                await dst.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                dst.transport.abort()

    async def _downward(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter,
                        upstream: asyncio.StreamWriter, negotiating: list[int],
                        drop: asyncio.Event) -> None:
        """Server to client, message by message, until the armed cut."""
        row = False
        try:
            while True:
                if negotiating[0]:
                    negotiating[0] -= 1
                    dst.write(await src.readexactly(1))  # 'N' (TLS would end the parse)
                    continue
                head = await src.readexactly(5)
                body = await src.readexactly(struct.unpack("!i", head[1:])[0] - 4)
                kind, cut = head[:1], self._cut
                if cut is not None and kind == cut.kind and (
                        row if cut.after_row else cut.row in body) and (
                        cut.status is None or body == cut.status):
                    self._cut = None
                    if cut.client_next:
                        drop.set()  # before the client can answer this message
                    else:
                        upstream.transport.abort()  # the server sees its client vanish
                        self.fired.set()
                        return
                if cut is not None and kind == DATA_ROW and cut.row in body:
                    row = True
                dst.write(head + body)
                await dst.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                dst.transport.abort()
