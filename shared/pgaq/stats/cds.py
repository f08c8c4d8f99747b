"""Class-data sharing for the statistics job's JVM.

Every run starts a fresh JVM (scheduler.py), and Spark loads tens of thousands of classes
before it does any work: on 2 cores, 4 s of a session's start and half of its first job.
A dynamic CDS archive of those classes, written once, roughly halves both. The first run
without an archive records what it loaded and, once its results are committed, asks its
own JVM to write the archive (`jcmd <pid> VM.cds dynamic_dump`, JDK 17) under a temporary
name that is then renamed, so a run killed halfway leaves no half-written archive. Later
runs map it with `-Xshare:auto`: an archive the JVM cannot use (another JDK build, another
classpath) is ignored, never an error.

The archive's name carries a digest of the JVM, PySpark and JDBC driver it was made with,
so upgrading any of them makes a new one.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger("pgaq.stats")

DUMP_TIMEOUT = 300.0  # seconds for the one-off dump (a few on 2 cores)
RECORD = "-XX:+RecordDynamicDumpInfo"  # the options of a run that is to write the archive


def _stamp(path: str | None) -> str:
    if not path:
        return "-"
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return f"{path}:missing"
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


def default_dir(env: dict[str, str] | None = None) -> Path:
    e = os.environ if env is None else env
    base = e.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pgaq"


def archive_path(setting: str, jar: str, *, env: dict[str, str] | None = None) -> Path | None:
    """Where this installation's archive lives: `setting` is PGAQ_STATS_CDS (`auto`: the
    user's cache folder; `off`; or a folder). None when off or no jcmd/java is found."""
    if setting.lower() in ("off", "0", "false", "no"):
        return None
    java = shutil.which("java")
    if java is None or shutil.which("jcmd") is None:
        return None
    try:
        import pyspark

        spark_home = os.path.dirname(pyspark.__file__)
        version = pyspark.__version__
    except ImportError:  # pragma: no cover - the job cannot run without it anyway
        return None
    key = "|".join((_stamp(java), _stamp(os.environ.get("JAVA_HOME")), version,
                    _stamp(spark_home), _stamp(jar), sys.version.split()[0]))
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    folder = default_dir(env) if setting.lower() == "auto" else Path(setting)
    archive = folder / f"spark-{digest}.jsa"
    if any(c.isspace() for c in str(archive)):
        return None  # Spark splits extraJavaOptions on whitespace: the option would break
    return archive


def _failed(archive: Path) -> Path:
    return archive.with_name(archive.name + ".failed")


def java_options(archive: Path | None) -> str:
    """The JVM options for a run: map the archive, or record what to put in one."""
    if archive is None or _failed(archive).exists():
        return ""  # off, or a dump failed once: runs go on without (delete the marker to retry)
    if archive.is_file() and archive.stat().st_size > 0:
        return f"-XX:SharedArchiveFile={archive} -Xshare:auto"
    return RECORD


def dump(spark: SparkSession, archive: Path) -> bool:
    """Have this run's JVM (started with java_options' recording) write the archive."""
    jcmd = shutil.which("jcmd")
    if jcmd is None or archive.is_file() or _failed(archive).exists():
        return False
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.info("statistics: no class-data archive (cannot create %s: %s)", archive.parent, exc)
        return False
    part = archive.with_name(f"{archive.name}.{uuid.uuid4().hex}.part")  # hosts may share it
    try:
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        pid = int(jvm.java.lang.ProcessHandle.current().pid())
        done = subprocess.run([jcmd, str(pid), "VM.cds", "dynamic_dump", str(part)],
                              capture_output=True, text=True, timeout=DUMP_TIMEOUT, check=False)
        if done.returncode != 0 or not part.is_file() or part.stat().st_size == 0:
            _give_up(archive, (done.stdout + done.stderr).strip()[-300:])
            return False
        os.replace(part, archive)
        log.info("statistics: class-data archive written to %s (later runs start faster)", archive)
        return True
    except Exception as exc:  # an optimisation only: never fail a committed run for it
        _give_up(archive, str(exc))
        return False
    finally:
        part.unlink(missing_ok=True)


def _give_up(archive: Path, why: str) -> None:
    """Remember the failure: later runs neither record nor dump again (each attempt costs
    a slower start and the dump's wait), until someone deletes the marker."""
    log.warning("statistics: the class-data archive was not written (runs go on without; "
                "delete %s to try again): %s", _failed(archive), why)
    try:
        _failed(archive).write_text(why + "\n")
    except OSError:
        pass
