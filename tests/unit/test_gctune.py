"""gctune: the young generation's threshold is set and start-up objects are frozen out of
collections; 0 leaves CPython's defaults alone."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from pgaq_services.gateway.gctune import tune


@pytest.fixture
def restore_gc() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


@pytest.mark.usefixtures("restore_gc")
def test_zero_keeps_the_defaults() -> None:
    before = gc.get_threshold()
    tune(0)
    assert gc.get_threshold() == before


@pytest.mark.usefixtures("restore_gc")
def test_threshold_set_and_start_up_frozen() -> None:
    _, g1, g2 = gc.get_threshold()
    tune(20_000)
    assert gc.get_threshold() == (20_000, g1, g2)
    assert gc.get_freeze_count() > 0
    class Cycle:
        ref: object
    c = Cycle()
    c.ref = c
    del c
    assert gc.collect() >= 1  # cycles made later are still collected
