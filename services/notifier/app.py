"""The notifier service: wiring only (settings and the delivery loop)."""

from __future__ import annotations

import asyncio

import asyncpg
from pgaq.listener import Listener
from pgaq.notify.dispatcher import Notifier
from pgaq.notify.settings import NotifierSettings
from pgaq.service import main_of


def main() -> None:
    settings = NotifierSettings.from_env()

    async def loop(pool: asyncpg.Pool, listener: Listener, stop: asyncio.Event) -> None:
        await Notifier(pool, listener, settings).run(stop)

    # short statements only: plsql:// procedures run on the callback login's own
    # connections (PGAQ_NOTIFY_PLSQL_CONNECTIONS)
    main_of("notifier", loop, pool_max=8)
