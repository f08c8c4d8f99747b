"""Every SQL and shell example of README.md and docs/*.md runs as written.

The rule: a fenced block whose info string is `sql`, `sh`, `bash`, `shell` or `console` is
a runnable example, run in document order (README.md first, then docs/*.md by name)
against one fresh stack (`pgaq up` on a private cluster): SQL through psql as
`pgaq sql` runs it, stopping at the first error; shell through `bash -e` in the
repository with the stack's env (PGAQ_DSN, PGAQ_GATEWAY, PGAQ_CORE, ...); of a `console`
block only the `$ ` lines. A block that only illustrates (needs Docker, the network, a
Spark cluster, a file of the reader's, or runs for minutes) says so on the line before
its fence, with its reason, invisible on the rendered page:

    <!-- example: not run: needs Docker and the network -->

So a new example is tested unless its author says why not. A failure names the file, the
line and the example's error.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pgaq.cli import free_base_port

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGUAGES = {"sql", "sh", "bash", "shell", "console"}
FENCE = re.compile(r"^(\s*)```(\w*)")
NOT_RUN = re.compile(r"^\s*<!--\s*example:\s*not run\b(.*?)-->\s*$")
BLOCK_TIMEOUT = 60.0  # seconds; the slowest example waits 10 s in dbms_aq.dequeue_array


@dataclass(frozen=True)
class Example:
    path: Path
    line: int                 # of the opening fence, 1-based
    language: str
    text: str
    not_run: str | None       # the reason it is not run, None when it runs

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def examples(path: Path) -> list[Example]:
    """The sql/shell fenced blocks of one Markdown file, in order, with their markers."""
    found: list[Example] = []
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, language = m.group(1), m.group(2)
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        if language in LANGUAGES:
            before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            marker = NOT_RUN.match(before)
            reason = marker.group(1).strip(" :-") if marker else None
            body = "\n".join(line.removeprefix(indent) for line in lines[i + 1:end])
            found.append(Example(path, i + 1, language, body, reason))
        i = end + 1
    return found


ALL = [e for path in DOCUMENTS for e in examples(path)]


def test_every_illustrative_example_says_why() -> None:
    assert ALL, "no examples found"
    for e in ALL:
        assert e.not_run is None or e.not_run, f"{e.where()}: a not-run marker needs its reason"


@pytest.fixture
async def stack() -> AsyncIterator[dict[str, str]]:
    """`pgaq up` on a private cluster in a folder the postgres user can reach; its
    announced addresses as PGAQ_<NAME> (PGAQ_DSN, PGAQ_GATEWAY, PGAQ_CORE, ...)."""
    tmp = Path(tempfile.mkdtemp(prefix="pgaq-readme-"))
    os.chmod(tmp, 0o755)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq.cli", "up", "--data-dir", str(tmp / "data"),
        "--port", str(free_base_port()), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        # no statistics run (a JVM) during the examples: none of them waits for one
        env={**os.environ, "PGAQ_DSN": "", "PGAQ_STATS_FIRST_DELAY": "3600"})
    assert proc.stdout is not None
    env: dict[str, str] = {"PGAQ_DATA_DIR": str(tmp / "data")}
    try:
        while (line := (await asyncio.wait_for(proc.stdout.readline(), 120)).decode().strip()) != "READY":
            assert line, "pgaq up exited before READY"
            key, _, value = line.partition("=")
            env[key if key == "DSN" else f"PGAQ_{key}"] = value
        env["PGAQ_DSN"] = env.pop("DSN")
        yield env
    finally:
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 60)
        shutil.rmtree(tmp, ignore_errors=True)


def psql() -> str:
    found = shutil.which("psql")
    if found:
        return found
    from pgaq.embedded import find_bindir
    return str(find_bindir() / "psql")


def shell_text(e: Example) -> str:
    if e.language != "console":
        return e.text
    return "\n".join(line[2:] for line in e.text.splitlines() if line.startswith("$ "))


async def run(e: Example, env: dict[str, str], workdir: Path) -> str | None:
    """Run one example; None when it worked, else its error as the reader would see it,
    with the line of the Markdown file it came from."""
    if e.language == "sql":
        script = workdir / "example.sql"
        script.write_text(e.text + "\n")
        argv = [psql(), env["PGAQ_DSN"], "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", str(script)]
    else:
        script = workdir / "example.sh"
        script.write_text(shell_text(e) + "\n")
        argv = ["bash", "-e", "-o", "pipefail", str(script)]
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=ROOT, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL, start_new_session=True, env={**os.environ, **env})
    try:
        _, err = await asyncio.wait_for(proc.communicate(), BLOCK_TIMEOUT)
    except TimeoutError:
        os.killpg(proc.pid, signal.SIGKILL)  # what the example started too
        await proc.communicate()
        return f"{e.where()}: did not finish in {BLOCK_TIMEOUT:.0f} s"
    if proc.returncode == 0:
        return None
    text = err.decode(errors="replace").strip()
    # psql:/…/example.sql:17: ERROR: … and bash's /…/example.sh: line 3: … name the
    # example's own line: make it the document's, and show the error from there on
    # (not the NOTICEs before it)
    m = re.search(rf"{re.escape(str(script))}:(?: line )?(\d+):(?= ERROR| FATAL)", text) or \
        re.search(rf"{re.escape(str(script))}:(?: line )?(\d+):", text)
    if m is None:
        return f"{e.where()}: exit {proc.returncode}: {text}"
    return f"{e.path.relative_to(ROOT)}:{e.line + int(m.group(1))} (example at line {e.line}): " \
           f"{text[m.start():]}"


async def test_the_examples_run_as_written(stack: dict[str, str], tmp_path: Path) -> None:
    failures = []
    for e in ALL:
        if e.not_run is None and (error := await run(e, stack, tmp_path)) is not None:
            failures.append(error)
    assert not failures, "\n\n".join(failures)
