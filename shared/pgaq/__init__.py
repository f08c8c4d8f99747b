"""pgaq: Oracle Streams AQ on PostgreSQL. The library's public API, from one place:

    from pgaq import Session, DequeueOptions, MessageProperties

The client's names load on first use (module __getattr__): pgaq.client imports asyncpg and
its SQL, about 200 ms, which `import pgaq.settings` (every service, the CLI) need not pay.
Nothing connects at import: a Session connects through the connection it is given, and the
shared listening connection (pgaq.waiting) opens at the first wait.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, ConnectionLost, EndOfFetch, InternalError, PgaqError, QueueError

if TYPE_CHECKING:
    from .client import Agent, DequeueOptions, Message, MessageProperties, Payload, Session
    from .listener import Listener

__all__ = [
    "Agent", "ConfigError", "ConnectionLost", "DequeueOptions", "EndOfFetch", "InternalError",
    "Listener", "Message", "MessageProperties", "Payload", "PgaqError", "QueueError", "Session",
]

# name -> the module that defines it, imported when the name is first asked for
_LAZY = {
    "Agent": "client", "DequeueOptions": "client", "Message": "client",
    "MessageProperties": "client", "Payload": "client", "Session": "client",
    "Listener": "listener",
}


if not TYPE_CHECKING:  # hidden from mypy, which would otherwise take any pgaq.<typo> as Any

    def __getattr__(name: str) -> Any:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'pgaq' has no attribute {name!r}")
        value = getattr(import_module(f".{module}", __name__), name)
        globals()[name] = value  # asked once: later reads are plain attribute reads
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
