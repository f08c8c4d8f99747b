"""Where the statistics job's class-data archive lives and how the JVM is told about it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pgaq.stats import cds

needs_jdk = pytest.mark.skipif(shutil.which("java") is None or shutil.which("jcmd") is None,
                               reason="a JDK with jcmd")


@pytest.mark.parametrize("setting", ["off", "OFF", "0", "false", "no"])
def test_off_means_no_archive(setting: str, tmp_path: Path) -> None:
    assert cds.archive_path(setting, str(tmp_path / "x.jar")) is None
    assert cds.java_options(None) == ""


@needs_jdk
def test_the_archive_is_named_for_what_made_it(tmp_path: Path) -> None:
    jar = tmp_path / "postgresql.jar"
    jar.write_bytes(b"one")
    first = cds.archive_path(str(tmp_path / "cache"), str(jar))
    assert first is not None and first.parent == tmp_path / "cache"
    assert first.name.startswith("spark-") and first.suffix == ".jsa"
    assert cds.archive_path(str(tmp_path / "cache"), str(jar)) == first  # stable
    jar.write_bytes(b"another driver")  # an upgraded JDBC driver: a new archive
    assert cds.archive_path(str(tmp_path / "cache"), str(jar)) != first


@needs_jdk
def test_auto_is_the_users_cache(tmp_path: Path) -> None:
    path = cds.archive_path("auto", "/nowhere.jar", env={"XDG_CACHE_HOME": str(tmp_path)})
    assert path is not None and path.parent == tmp_path / "pgaq"


def test_options_record_until_an_archive_exists_then_map_it(tmp_path: Path) -> None:
    archive = tmp_path / "spark-x.jsa"
    assert cds.java_options(archive) == "-XX:+RecordDynamicDumpInfo"
    archive.write_bytes(b"")  # an empty file is no archive
    assert cds.java_options(archive) == "-XX:+RecordDynamicDumpInfo"
    archive.write_bytes(b"\0" * 16)
    assert cds.java_options(archive) == f"-XX:SharedArchiveFile={archive} -Xshare:auto"
    assert os.path.isabs(str(archive))


@pytest.mark.parametrize(("rows", "most", "expected"), [
    (0, 4, 1), (80_000, 4, 1), (250_000, 4, 1), (250_001, 4, 2), (1_000_000, 4, 4),
    (10_000_000, 4, 4), (10_000_000, 1, 1)])
def test_parallel_reads_follow_the_rows_a_run_reads(rows: int, most: int, expected: int) -> None:
    from pgaq.stats.job import read_partitions

    assert read_partitions(rows, most) == expected


def test_parallel_reads_follow_the_rows_per_read_setting() -> None:
    from pgaq.stats.job import read_partitions

    assert [read_partitions(rows, 4, per=2_000) for rows in (0, 2_000, 3_240, 100_000)] == [1, 1, 2, 4]
    assert read_partitions(10, 4, per=0) == 4  # a setting of 0 is read as 1 (from_env)


def test_a_failed_dump_is_not_retried_on_every_run(tmp_path: Path) -> None:
    archive = tmp_path / "spark-x.jsa"
    (tmp_path / "spark-x.jsa.failed").write_text("jcmd could not attach\n")
    assert cds.java_options(archive) == ""  # neither recording nor mapping


@needs_jdk
def test_a_folder_with_spaces_gets_no_archive(tmp_path: Path) -> None:
    # Spark splits extraJavaOptions on whitespace: the option would break every run
    assert cds.archive_path(str(tmp_path / "with space"), "/x.jar") is None
