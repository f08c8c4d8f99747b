"""One statistics run: `python -m pgaq_services.stats.job` (local Spark, as `pgaq stats run`
and the stats service start it) or `spark-submit services/stats/job.py --master spark://...`
(with `--jars /usr/share/java/postgresql.jar --driver-class-path ...`: the cluster's
master and jars come from spark-submit's command line)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

from pgaq.errors import PgaqError
from pgaq.logs import setup_logging
from pgaq.stats import MISSING, available, cds

if not available():
    raise SystemExit(MISSING)

from pgaq.stats.job import RunResult, run_once, spark_session  # (needs PySpark)
from pgaq.stats.settings import StatsSettings

log = logging.getLogger("pgaq.stats")


def summary(result: RunResult) -> list[str]:
    """Machine-readable lines for stdout."""
    if result.run_id is None:
        return ["SKIPPED=another run in progress"]
    return [f"RUN={result.run_id}", f"LOW={result.low.isoformat() if result.low else ''}",
            f"HIGH={result.high.isoformat() if result.high else ''}", f"LOG_ROWS={result.log_rows}",
            f"HISTORY_ROWS={result.history_rows}", f"SNAPSHOT_ROWS={result.snapshot_rows}",
            f"WRITTEN_ROWS={result.written_rows}"]


def _class_data(settings: StatsSettings) -> tuple[Path | None, str]:
    """The JVM's class-data archive and options (cds.py); none when anything about it
    fails: it only makes the start faster."""
    try:
        archive = cds.archive_path(settings.cds, settings.jar)
        return archive, cds.java_options(archive)
    except Exception as exc:
        log.info("statistics: no class-data archive: %s", exc)
        return None, ""


def run() -> int:
    """Run once and print the summary; 0 on success (or a skip), 1 on a failed run."""
    try:
        settings = StatsSettings.from_env()
        # under spark-submit the JVM is already there, started with the command line's conf
        submitted = "PYSPARK_GATEWAY_PORT" in os.environ
        archive, options = (None, "") if submitted else _class_data(settings)
        spark = spark_session(settings, submitted=submitted, java_options=options)
    except PgaqError as exc:
        log.error("%s", exc)
        return 1
    try:
        result = asyncio.run(run_once(spark, settings))
        if archive is not None and options == cds.RECORD and result.run_id is not None:
            cds.dump(spark, archive)  # after the commit, from a complete run: later runs map it
    except PgaqError as exc:
        log.error("%s", exc)
        return 1
    finally:
        try:
            spark.stop()
        except Exception as exc:  # the run's outcome is already decided (and committed)
            log.warning("statistics: stopping Spark failed: %s", exc)
    for line in summary(result):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    setup_logging()
    sys.exit(run())
