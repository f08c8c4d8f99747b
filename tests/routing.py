"""A route policy for tests (pgaq.routes.RoutePolicy): pin a Session to some fast routes
and see which routes served its calls."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from pgaq.routes import ROUTE_NAMES


class Pinned:
    """The fast routes named only (None: every route); the general route always serves
    what they do not. Counts the routes that served, and keeps the last."""

    def __init__(self, fast: Collection[str] | None) -> None:
        unknown = set(fast or ()) - ROUTE_NAMES
        if unknown:
            raise ValueError(f"unknown routes {sorted(unknown)}")
        self.fast = None if fast is None else frozenset(fast)
        self.counts: Counter[str] = Counter()
        self.last: str | None = None

    def allows(self, route: str) -> bool:
        return self.fast is None or route in self.fast

    def served(self, route: str) -> None:
        self.last = route
        self.counts[route] += 1
