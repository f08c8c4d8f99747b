"""The notification receivers: an HTTP endpoint and an SMTP server (aiosmtpd), each
recording every notification id it accepted and able to fail on command."""

from __future__ import annotations

import asyncio
import email
from collections import Counter
from typing import Any

from aiohttp import web
from aiosmtpd.controller import Controller
from pgaq.embedded import free_port


class HttpSink:
    """Answers 500 while `failing`; otherwise 200 and counts the notification id."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self.failing = False
        self.seen: Counter[str] = Counter()
        self.refused = 0
        self._runner: web.AppRunner | None = None

    async def _post(self, request: web.Request) -> web.Response:
        await request.read()
        if self.failing:
            self.refused += 1
            return web.Response(status=500, text="failing on purpose")
        self.seen[request.headers.get("X-Pgaq-Notification-Id", "?")] += 1
        return web.Response(text="ok")

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/hook", self._post)
        self._runner = web.AppRunner(app, handler_cancellation=True)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


class SmtpSink:
    """aiosmtpd handler (it runs in the controller's thread): 451 for every recipient
    while `failing`, else accepts and counts the mail's notification id."""

    def __init__(self) -> None:
        self.port = free_port()
        self.failing = False
        self.seen: Counter[str] = Counter()
        self.refused = 0
        self.refused_connections = 0
        self._controller = self._make()

    def _make(self) -> Controller:
        return Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: Any) -> str:
        if self.failing:
            self.refused += 1
            return "451 4.3.0 failing on purpose"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content)
        self.seen[str(msg.get("X-Pgaq-Notification-Id", "?"))] += 1
        return "250 Message accepted for delivery"

    async def start(self) -> None:
        await asyncio.to_thread(self._controller.start)

    async def stop(self) -> None:
        if self._controller.loop.is_running():
            await asyncio.to_thread(self._controller.stop)

    async def refuse(self, seconds: float) -> None:
        """No server at all for `seconds`: connections are refused."""
        await self.stop()
        self.refused_connections += 1
        try:
            await asyncio.sleep(seconds)  # the fault's own duration
        finally:
            self._controller = self._make()  # a stopped controller cannot start again
            await self.start()
