"""Garbage-collector settings for processes that serve requests.

An AQXmlPublish of 100 messages allocates thousands of short-lived objects (lxml element
proxies, dataclasses, dicts). With CPython's default threshold (a young collection every
700 allocations) the collector took a large share of a gateway worker's CPU
(docs/gateway.md, "Measurements behind the defaults").
The objects alive once a service has started (modules, schemas, pools) are frozen out of
every later collection, and the young generation is collected every `gen0` allocations.
Cycles are still collected; they only live a little longer."""

from __future__ import annotations

import gc


def tune(gen0: int) -> None:
    """Freeze what start-up left and collect the young generation every `gen0`
    allocations; 0 keeps CPython's defaults."""
    if gen0 <= 0:
        return
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(gen0, gen1, gen2)
