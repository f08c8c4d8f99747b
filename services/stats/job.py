"""One statistics run: `python -m pgaq_services.stats.job` (local Spark, as `pgaq stats run`
and the stats service start it) or `spark-submit services/stats/job.py --master spark://...`
(with `--jars /usr/share/java/postgresql.jar --driver-class-path ...`: the cluster's
master and jars come from spark-submit's command line)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from pgaq.errors import PgaqError
from pgaq.logs import setup_logging
from pgaq.stats import cds
from pgaq.stats.job import RunResult, run_once, spark_session
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


def run() -> int:
    """Run once and print the summary; 0 on success (or a skip), 1 on a failed run."""
    try:
        settings = StatsSettings.from_env()
        # under spark-submit the JVM is already there, started with the command line's conf
        submitted = "PYSPARK_GATEWAY_PORT" in os.environ
        archive = None if submitted else cds.archive_path(settings.cds, settings.jar)
        spark = spark_session(settings, submitted=submitted, java_options=cds.java_options(archive))
    except PgaqError as exc:
        log.error("%s", exc)
        return 1
    try:
        result = asyncio.run(run_once(spark, settings))
        if archive is not None and not archive.is_file():
            cds.dump(spark, archive)  # after the commit: the next runs start faster
    except PgaqError as exc:
        log.error("%s", exc)
        return 1
    finally:
        spark.stop()
    for line in summary(result):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    setup_logging()
    sys.exit(run())
