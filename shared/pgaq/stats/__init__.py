"""The statistics job and its scheduler. PySpark is the optional extra `pgaq[stats]`: the
job imports it, nothing else here does."""

from __future__ import annotations

import importlib.util

MISSING = "the statistics job needs PySpark: install pgaq[stats] (pip install 'pgaq[stats]')"


def available() -> bool:
    """Whether the statistics job can run here (PySpark installed)."""
    return importlib.util.find_spec("pyspark") is not None
