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

    # deliveries to plsql:// hold a connection each; the rest are short statements
    main_of("notifier", loop, pool_max=max(4, settings.per_destination + 2))
