"""`pip install pgaq` brings no Spark: PySpark is the extra `pgaq[stats]` (issue 20 part 8).
Without it `pgaq up` starts every service but the statistics one and says why."""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

import pytest
from pgaq.cli import SERVICES, runnable

PYPROJECT = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())


def test_pyspark_is_an_extra_not_a_dependency() -> None:
    deps = PYPROJECT["project"]["dependencies"]
    assert not [d for d in deps if d.lower().startswith("pyspark")]
    assert any(d.lower().startswith("pyspark") for d in PYPROJECT["project"]["optional-dependencies"]["stats"])


def test_without_pyspark_up_starts_all_but_stats(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pgaq.cli"):
        names = [s.name for s in runnable(SERVICES, has_pyspark=False)]
    assert names == [s.name for s in SERVICES if s.name != "stats"]
    assert "pgaq[stats]" in caplog.text
    assert runnable(SERVICES, has_pyspark=True) == SERVICES
