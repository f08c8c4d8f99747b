"""A loopback TCP proxy in front of the remote database: `cut()` drops every connection
and refuses new ones for a while, as a broken network link would."""

from __future__ import annotations

import asyncio
import contextlib

from pgaq.embedded import free_port


class LinkProxy:
    """Forwards 127.0.0.1:`port` to 127.0.0.1:`target`, byte for byte."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.cut_now = False
        self.cuts = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        self._drop()

    async def cut(self, seconds: float) -> None:
        """The link is down for `seconds`: open connections die, new ones are closed."""
        self.down()
        try:
            await asyncio.sleep(seconds)  # the fault's own duration
        finally:
            self.up()

    def down(self) -> None:
        """Cut the link until `up()`: open connections die, new ones are closed (what
        HAProxy does to a failed primary's clients until the new one is in service)."""
        self.cut_now = True
        self.cuts += 1
        self._drop()

    def route(self, dsn: str) -> str:
        """`dsn` (a connection string to the target on 127.0.0.1), reached through the proxy."""
        direct = f"127.0.0.1:{self.target}/"
        if direct not in dsn:
            raise ValueError(f"{dsn!r} does not name 127.0.0.1:{self.target}")
        return dsn.replace(direct, f"127.0.0.1:{self.port}/")

    def up(self) -> None:
        """Accept (and forward) connections again."""
        self.cut_now = False

    def _drop(self) -> None:
        for w in list(self._writers):
            w.transport.abort()
        self._writers.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut_now:
            writer.transport.abort()
            return
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers.update((writer, up_w))
        await self._relay(reader, writer, up_r, up_w)
        self._writers.discard(writer)
        self._writers.discard(up_w)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     up_r: asyncio.StreamReader, up_w: asyncio.StreamWriter) -> None:
        """Forward both ways until either side ends (a subclass may read what passes)."""
        await asyncio.gather(self._pipe(reader, up_w), self._pipe(up_r, writer))

    @staticmethod
    async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        try:
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                dst.transport.abort()
