"""The Java JMS application of the run: pgaq.ha.HaJmsClient (java/bench/pgaq/ha/), a JVM
of its own on the provider pgaq-jms.jar, one AQjmsConnection through HAProxy's JDBC URL with
a producer and a MessageListener. Its stdout says what it was told, one line per event,
recorded as the kind "java"."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .load import Record

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "java" / "build"
MAIN = "pgaq.ha.HaJmsClient"
OUTPUTS = (ROOT / "build" / "java" / "bench-classes" / "pgaq" / "ha" / "HaJmsClient.class",
           ROOT / "build" / "java" / "pgaq-jms.jar")
SOURCES = (ROOT / "java" / "src" / "main", ROOT / "java" / "bench", BUILD)


async def _run(*argv: str, timeout: float) -> tuple[int, str]:
    p = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE,
                                             stderr=asyncio.subprocess.STDOUT)
    try:
        out, _ = await asyncio.wait_for(p.communicate(), timeout)
    except TimeoutError:
        p.kill()
        await p.wait()
        return -1, f"{' '.join(argv)}: no answer in {timeout:.0f} s"
    return p.returncode or 0, out.decode(errors="replace")


def _missing(classpath: str) -> list[str]:
    """Debian's jars on the classpath that are not installed (what the build makes aside)."""
    return [j for j in classpath.split(":") if not j.startswith(str(ROOT)) and not os.path.isfile(j)]


def _stale() -> bool:
    """`java/build bench` compiles everything again every time (~10 s here): only when a
    source is newer than what it built."""
    try:
        built = min(p.stat().st_mtime for p in OUTPUTS)
    except FileNotFoundError:
        return True
    for top in SOURCES:
        paths = [top] if top.is_file() else top.rglob("*")
        if any(p.stat().st_mtime > built for p in paths if p.is_file()):
            return True
    return False


async def prepare() -> tuple[str | None, str]:
    """(the classpath, "") once built, or (None, why not) where Java cannot run."""
    for prog in ("java", "javac"):
        if shutil.which(prog) is None:
            return None, f"no `{prog}` (Debian's default-jdk-headless)"
    rc, out = await _run(str(BUILD), "bench-classpath", timeout=30)
    if rc != 0:
        return None, f"java/build bench-classpath failed: {out.strip()[-300:]}"
    cp = out.strip().splitlines()[-1]
    missing = await asyncio.to_thread(_missing, cp)
    if missing:
        return None, f"missing {', '.join(missing)}"
    if await asyncio.to_thread(_stale):
        rc, out = await _run(str(BUILD), "bench", timeout=600)
        if rc != 0:  # a compile error is the run's bug, not a missing JDK
            raise RuntimeError(f"java/build bench failed ({rc}): {out.strip()[-1500:]}")
    return cp, ""


class JavaClient:
    """The JVM, and the task reading its events into `rec`."""

    def __init__(self, rec: Record, log: Path) -> None:
        self.rec, self.log = rec, log
        self.proc: asyncio.subprocess.Process | None = None
        self.reader: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()
        self.paused = asyncio.Event()
        self.closing = False

    async def start(self, classpath: str, jdbc_url: str, owner: str, queue: str, rate: float) -> None:
        with open(self.log, "ab") as err:  # noqa: ASYNC230 (a local file, opened once)
            self.proc = await asyncio.create_subprocess_exec(
                "java", "-XX:+UseSerialGC", "-cp", classpath, MAIN, jdbc_url, owner, queue, str(rate),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err,
                start_new_session=True)
        self.reader = asyncio.create_task(self._read(), name="java-client")
        waiting = asyncio.create_task(self.ready.wait())
        await asyncio.wait({waiting, self.reader}, timeout=120, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if not self.ready.is_set():
            await self.close()
            raise RuntimeError(f"the Java JMS client did not start: see {self.log}")

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        rec = self.rec
        while line := await self.proc.stdout.readline():
            parts = line.decode(errors="replace").split()
            if not parts:
                continue
            # the last field is when it happened: Java's System.nanoTime(), CLOCK_MONOTONIC as
            # time.monotonic() (the line is read later, and a receipt's line may come first)
            if not parts[-1].isdigit():
                continue  # not one of the program's lines
            word, rest, at = parts[0], parts[1:-1], int(parts[-1]) / 1e9
            if word == "SENT":
                rec.ack("java", rest[:1], at)
            elif word == "UNSURE":
                rec.doubt("java", rest[:1])
                rec.errors["java send"] += 1
            elif word == "GOT":
                if rest[1] == "1":
                    rec.redelivered["java"] += 1
                rec.receive("java", rest[:1], at)
            elif word == "EXC":
                rec.exception_listener_java.append(at)
            elif word == "READY":
                self.ready.set()
            elif word == "PAUSED":
                self.paused.set()
        if not self.closing:
            raise RuntimeError(f"the Java JMS client exited ({await self.proc.wait()}): see {self.log}")

    def failure(self) -> BaseException | None:
        r = self.reader
        return r.exception() if r is not None and r.done() and not r.cancelled() else None

    async def _say(self, word: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.write(f"{word}\n".encode())
            await self.proc.stdin.drain()

    async def pause(self, timeout: float = 30) -> None:
        """Stop sending; returns once its last send's outcome is recorded."""
        await self._say("pause")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.paused.wait(), timeout)

    async def close(self, timeout: float = 30) -> None:
        """`stop` (the JVM closes its connection), bounded: then SIGKILL."""
        self.closing = True
        p = self.proc
        if p is None:
            return
        if p.returncode is None:
            await self._say("stop")
            with contextlib.suppress(OSError):
                assert p.stdin is not None
                p.stdin.close()
            try:
                await asyncio.wait_for(p.wait(), timeout)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                await p.wait()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 5)
