"""/dashboard in headless Chromium (Debian's) against a gateway process with two workers
and a real database: the page loads its own script and styles only, polls its data and
draws every chart from the rows in the database (a line per schedule or queue with one
vertex per bucket, legends naming them), follows new rows and a change of range, shows
an empty state on an empty database, and refuses a browser without credentials.

The browser is driven over the Chrome DevTools Protocol (aiohttp's websocket client): the
Authorization header is set with Network.setExtraHTTPHeaders, and the tests wait on
the `data-rendered` counter the page sets after each render, not on sleeps."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest

from tests.e2e.support import start_gateway
from tests.integration.gateway_support import drop_roles
from tests.integration.helpers import make_queue
from tests.integration.test_dashboard import Seeded, make_admin_agent, seed

CHROMIUM = os.environ.get("PGAQ_CHROMIUM", "/usr/bin/chromium")
SCREENSHOT = Path(tempfile.gettempdir()) / "dashboard.png"
AUTH = "Basic " + base64.b64encode(b"DASHADMIN:pw").decode()
CHARTS = ["prop-rate", "prop-bytes", "prop-failures", "prop-time", "prop-latency", "prop-batch",
          "queue-depth", "queue-age", "queue-rates", "queue-wait", "notifications"]

# what the page shows, read in the page
SUMMARY = """(() => ({
  rendered: Number(document.body.dataset.rendered || 0),
  range: document.body.dataset.range,
  emptyBanner: !document.getElementById('empty').hidden,
  statsRun: document.getElementById('stats-run').textContent,
  status: document.getElementById('status').textContent,
  schedules: [...document.querySelectorAll('#schedules tbody tr')].map(tr =>
      [...tr.children].map(td => td.textContent)),
  tiles: Object.fromEntries([...document.querySelectorAll('#notification-totals .tile')].map(t =>
      [t.dataset.state, t.querySelector('.v').textContent])),
  charts: Object.fromEntries([...document.querySelectorAll('figure[data-chart]')].map(f => [f.dataset.chart, {
    empty: f.dataset.empty,
    emptyText: (f.querySelector('.empty') || {}).textContent || null,
    title: (f.querySelector('figcaption') || {}).textContent,
    svgs: f.querySelectorAll('svg[data-chart-svg]').length,
    width: (f.querySelector('svg[data-chart-svg]') || {getBoundingClientRect: () => ({width: 0})})
        .getBoundingClientRect().width,
    yTicks: f.querySelectorAll('g.axis.y text').length,
    xTicks: f.querySelectorAll('g.axis.x text').length,
    circles: f.querySelectorAll('g.plot circle').length,
    paths: [...f.querySelectorAll('svg path.series')].map(p => ({
      series: p.dataset.series, metric: p.dataset.metric, points: Number(p.dataset.points),
      vertices: (p.getAttribute('d').match(/[ML]/g) || []).length,
      moves: (p.getAttribute('d').match(/M/g) || []).length,
      drawnWidth: p.getBoundingClientRect().width, idle: p.dataset.idle === 'true',
      stroke: p.getAttribute('stroke')})),
    legend: [...f.querySelectorAll('ul.legend li')].map(li => li.textContent),
    legendShown: [...f.querySelectorAll('ul.legend li')].filter(li => !li.closest('details'))
        .map(li => li.textContent),
    legendFolded: [...f.querySelectorAll('details.idle-series ul.legend li')].map(li => li.textContent),
    foldOpen: !!(f.querySelector('details.idle-series') || {}).open,
    foldSummary: (f.querySelector('details.idle-series summary') || {}).textContent || null,
    note: (f.querySelector('.chart-note') || {}).textContent || null,
  }]))
}))()"""


class Cdp:
    """A minimal Chrome DevTools Protocol client on one page target."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.handlers: dict[str, Callable[[dict[str, Any]], Awaitable[None]]] = {}
        self._tasks: set[asyncio.Future[None]] = set()
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(msg.data)
            fut = self._pending.pop(data["id"], None) if "id" in data else None
            if fut is None:
                self.events.append(data)
                handler = self.handlers.get(data.get("method", ""))
                if handler is not None:  # answered off the reading loop (it awaits replies)
                    task = asyncio.ensure_future(handler(data.get("params", {})))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
            elif not fut.done():
                if "error" in data:
                    fut.set_exception(AssertionError(f"CDP error: {data['error']}"))
                else:
                    fut.set_result(data.get("result", {}))
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(ConnectionError("DevTools connection closed"))

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[ident] = fut
        await self.ws.send_json({"id": ident, "method": method, "params": params})
        return await asyncio.wait_for(fut, 30)

    async def evaluate(self, expression: str) -> Any:
        r = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise AssertionError(f"page error: {r['exceptionDetails']}")
        return r["result"].get("value")

    async def until(self, expression: str, timeout: float = 30) -> Any:
        """Poll the page until `expression` is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = await self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                summary = await self.evaluate("document.body ? document.body.outerHTML.slice(0, 2000) : ''")
                raise AssertionError(f"timed out waiting for {expression!r}; page: {summary}")
            await asyncio.sleep(0.1)

    def errors(self) -> list[dict[str, Any]]:
        """Uncaught exceptions, console errors and browser log errors (CSP violations, 404s)."""
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(params)
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                out.append(params)
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                if str(params["entry"].get("url", "")).endswith("/favicon.ico"):
                    continue  # the browser's own look for an icon (on the 401 page, say)
                out.append(params["entry"])
        return out

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()


@pytest.fixture
async def browser() -> AsyncIterator[Callable[[], Awaitable[Cdp]]]:
    """Headless Chromium with its own profile; yields a function opening a page over CDP."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (deploy/system-deps.sh --test)")
    profile = Path(tempfile.mkdtemp(prefix="pgaq-chromium-"))
    log = await asyncio.to_thread(open, profile.parent / f"{profile.name}.log", "wb")
    proc = await asyncio.create_subprocess_exec(
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-proxy-server", "--disable-extensions", "--hide-scrollbars", "--window-size=1400,1000",
        f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank",
        stdout=asyncio.subprocess.DEVNULL, stderr=log, start_new_session=True)
    http = aiohttp.ClientSession()
    pages: list[Cdp] = []
    try:
        active = profile / "DevToolsActivePort"
        for _ in range(300):
            if active.exists() and active.read_text().strip():
                break
            if proc.returncode is not None:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("chromium did not open its DevTools port")
        assert proc.returncode is None, (profile.parent / f"{profile.name}.log").read_text(errors="replace")
        port = int(active.read_text().split()[0])

        async def page() -> Cdp:
            async with http.put(f"http://127.0.0.1:{port}/json/new?about:blank") as r:
                target = await r.json()
            ws = await http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
            cdp = Cdp(ws)
            pages.append(cdp)
            for domain in ("Page", "Runtime", "Log", "Network"):
                await cdp.call(f"{domain}.enable")
            await cdp.call("Emulation.setDeviceMetricsOverride", width=1400, height=1000,
                           deviceScaleFactor=1, mobile=False)
            return cdp

        yield page
    finally:
        for cdp in pages:
            await cdp.close()
        await http.close()
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        log.close()
        shutil.rmtree(profile, ignore_errors=True)
        (profile.parent / f"{profile.name}.log").unlink(missing_ok=True)


@pytest.fixture
async def gateway(db_dsn: str) -> AsyncIterator[str]:
    """The gateway as `make run` starts it (two worker processes on one port)."""
    conn = await asyncpg.connect(db_dsn)
    roles = await make_admin_agent(conn)
    proc, base = await start_gateway(db_dsn, PGAQ_ADMIN_TOKEN="browser-test-token")
    try:
        yield base
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 30)
        await drop_roles(conn, roles)
        await conn.close()


async def open_dashboard(cdp: Cdp, url: str) -> dict[str, Any]:
    await cdp.call("Network.setExtraHTTPHeaders", headers={"Authorization": AUTH})
    await cdp.call("Page.navigate", url=url)
    await cdp.until("document.body && Number(document.body.dataset.rendered || 0) >= 1")
    summary: dict[str, Any] = await cdp.evaluate(SUMMARY)
    return summary


async def screenshot(cdp: Cdp, path: Path) -> None:
    """The whole page as PNG (outside the repository)."""
    metrics = await cdp.call("Page.getLayoutMetrics")
    height = int(metrics["cssContentSize"]["height"]) + 1
    await cdp.call("Emulation.setDeviceMetricsOverride", width=1400, height=height, deviceScaleFactor=1,
                   mobile=False)
    shot = await cdp.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    await asyncio.to_thread(path.write_bytes, base64.b64decode(shot["data"]))
    await cdp.call("Emulation.setDeviceMetricsOverride", width=1400, height=1000, deviceScaleFactor=1,
                   mobile=False)


def paths(summary: dict[str, Any], chart: str) -> dict[str, dict[str, Any]]:
    return {p["series"]: p for p in summary["charts"][chart]["paths"]}


def assert_line(path: dict[str, Any], points: int, segments: int = 1) -> None:
    assert path["points"] == points and path["vertices"] == points, path
    assert path["moves"] == segments, path


async def test_the_charts_render_from_live_data(gateway: str, db_dsn: str,
                                                browser: Callable[[], Awaitable[Cdp]]) -> None:
    conn = await asyncpg.connect(db_dsn)
    try:
        s: Seeded = await seed(conn)
        cdp = await browser()
        page = await open_dashboard(cdp, f"{gateway}/dashboard")
        await screenshot(cdp, SCREENSHOT)

        assert page["range"] == "1h" and not page["emptyBanner"]
        for chart in CHARTS:
            c = page["charts"][chart]
            assert c["empty"] == "false" and c["svgs"] == 1, (chart, c)
            assert c["yTicks"] >= 2 and c["xTicks"] >= 3 and c["width"] > 300, (chart, c)
            # every line in the legend, active ones first (idle ones, zero throughout, folded)
            assert sorted(c["legend"]) == sorted(p["series"] for p in c["paths"]), (chart, c)
            idle = {p["series"] for p in c["paths"] if p["idle"]}
            assert c["legendShown"] == [n for n in c["legend"] if n not in idle], (chart, c)
            assert sorted(c["legendFolded"]) == sorted(idle) and not c["foldOpen"], (chart, c)

        # propagation: one line per schedule, a vertex per minute bucket
        for chart in ("prop-rate", "prop-bytes", "prop-time"):
            lines = paths(page, chart)
            assert set(lines) == {s.schedule_label, s.dropped_label}, chart
            assert_line(lines[s.schedule_label], s.minutes)
            assert_line(lines[s.dropped_label], s.dropped_minutes)
            assert lines[s.schedule_label]["stroke"] != lines[s.dropped_label]["stroke"]
        failures = paths(page, "prop-failures")
        assert_line(failures[s.schedule_label], s.minutes)
        for chart in ("prop-latency", "prop-batch"):
            lines = paths(page, chart)
            for label, n in ((s.schedule_label, s.minutes), (s.dropped_label, s.dropped_minutes)):
                for p in ("p50", "p95", "p99"):
                    assert_line(lines[f"{label} {p}"], n)

        # queues: depth and age from the snapshots, rates and waits from the job
        names = sorted(s.queue_ids)
        for chart in ("queue-depth", "queue-age"):
            assert sorted(page["charts"][chart]["legend"]) == names
            for name in names:
                assert_line(paths(page, chart)[name], s.minutes)
        rates = paths(page, "queue-rates")
        waits = paths(page, "queue-wait")
        for name in names:
            for what in ("enqueue", "dequeue"):
                assert_line(rates[f"{name} {what}"], s.minutes)
            for p in ("p50", "p95", "p99"):
                assert_line(waits[f"{name} {p}"], s.minutes)
        # the same queue has the same colour on every queue chart
        assert paths(page, "queue-depth")[names[0]]["stroke"] == rates[f"{names[0]} enqueue"]["stroke"]

        # notifications: failures every 4 minutes are separate points, not one line
        notes = paths(page, "notifications")
        assert_line(notes["DELIVERED"], s.minutes)
        assert_line(notes["FAILED"], len(s.failed_minutes), segments=len(s.failed_minutes))
        assert_line(notes["PENDING"], 1)
        assert page["charts"]["notifications"]["circles"] == len(s.failed_minutes) + 1
        assert page["tiles"] == {"DELIVERED": str(s.minutes * s.delivered_per_minute),
                                 "FAILED": str(len(s.failed_minutes)), "PENDING": str(s.pending),
                                 "SENDING": "0"}

        # the schedules table and the job's last run
        rows = {r[0]: r for r in page["schedules"]}
        assert rows[f"#{s.schedule_id} dash.orders_q → AQ$_LOCAL"][1] == "enabled"
        assert rows[s.dropped_label][1] == "dropped" and rows[s.dropped_label][2] == "5k"
        assert "run #" in page["statsRun"] and "done" in page["statsRun"]

        # the page polls: a new snapshot and a new delivery appear without a reload
        before = page["rendered"]
        orders = s.queue_ids["dash.orders_q"]
        await conn.execute(
            "INSERT INTO aq.queue_snapshots (taken_at, queue_id, queue_schema, queue_name, ready, waiting,"
            " expired, processed, oldest_ready_age) VALUES (now(), $1, 'dash', 'orders_q', 42, 0, 0, 0, 1.5)",
            orders)
        await cdp.until(f"Number(document.body.dataset.rendered) > {before} && document.querySelector("
                        "`figure[data-chart=queue-depth] path[data-series='dash.orders_q']`).dataset.points"
                        f" === '{s.minutes + 1}'", timeout=40)

        # another range: hour buckets
        await cdp.evaluate("(() => { const r = document.getElementById('range'); r.value = '24h';"
                           " r.dispatchEvent(new Event('change')); })()")
        await cdp.until("document.body.dataset.range === '24h'")
        day = await cdp.evaluate(SUMMARY)
        assert_line(paths(day, "prop-rate")[s.schedule_label], s.hours)
        assert await cdp.evaluate("location.hash") == "#range=24h"

        assert cdp.errors() == []
    finally:
        await conn.close()


async def test_an_empty_database_and_the_browsers_own_basic_authentication(
        gateway: str, browser: Callable[[], Awaitable[Cdp]]) -> None:
    """No extra headers here: the browser answers the 401 challenge itself (as a person
    does in its prompt), then reuses the credentials for the page's script and data."""
    cdp = await browser()
    challenges: list[dict[str, Any]] = []
    answer = {"response": "CancelAuth"}

    async def paused(params: dict[str, Any]) -> None:
        await cdp.call("Fetch.continueRequest", requestId=params["requestId"])

    async def auth_required(params: dict[str, Any]) -> None:
        challenges.append(params["authChallenge"])
        await cdp.call("Fetch.continueWithAuth", requestId=params["requestId"], authChallengeResponse=answer)

    cdp.handlers["Fetch.requestPaused"] = paused
    cdp.handlers["Fetch.authRequired"] = auth_required
    await cdp.call("Fetch.enable", handleAuthRequests=True, patterns=[{"urlPattern": "*"}])

    # the prompt cancelled: the 401's body, and no dashboard
    await cdp.call("Page.navigate", url=f"{gateway}/dashboard")
    text = await cdp.until("document.body && document.body.innerText")
    assert "authentication required" in text
    assert challenges and challenges[0]["scheme"].lower() == "basic"
    assert challenges[0]["realm"] == "pgaq dashboard" and challenges[0]["source"] == "Server"
    cdp.events.clear()  # the 401 is logged as a failed load; that was the point

    # the prompt answered
    answer = {"response": "ProvideCredentials", "username": "DASHADMIN", "password": "pw"}
    challenges.clear()
    await cdp.call("Page.navigate", url=f"{gateway}/dashboard")
    await cdp.until("document.body && Number(document.body.dataset.rendered || 0) >= 1")
    page: dict[str, Any] = await cdp.evaluate(SUMMARY)
    assert len(challenges) == 1  # the script, styles and data went with the cached credentials
    await screenshot(cdp, SCREENSHOT.with_name("dashboard-empty.png"))
    assert page["emptyBanner"]
    for chart in CHARTS:  # each empty chart says what it needs
        c = page["charts"][chart]
        assert c["empty"] == "true" and c["svgs"] == 0, chart
        need = {"prop": "Needs a propagation schedule", "queue": "No queues yet",
                "notifications": "registrations (dbms_aq.register)"}[chart.split("-")[0]]
        assert need in c["emptyText"], (chart, c["emptyText"])
    assert page["schedules"] == [["No propagation schedules"]]
    assert "no run yet" in page["statsRun"]
    assert cdp.errors() == []


async def first_minute(conn: asyncpg.Connection) -> dict[str, Any]:
    """What a new operator has after a few thousand messages and one statistics run: one
    minute of propagation and of enqueues, one snapshot per queue (the two exception
    queues, and the source queue that propagated everything, at zero), every queue with
    the default retention of 0 (so no latency and no waits), no notifications."""
    await make_queue(conn, "first.out_q", "first.out_t", multiple=True)
    await make_queue(conn, "first.in_q", "first.in_t")
    await conn.execute("CALL dbms_aqadm.add_subscriber('first.out_q', sys.aq$_agent(NULL, 'first.in_q', 0))")
    await conn.execute("CALL dbms_aqadm.schedule_propagation(queue_name => 'first.out_q', latency => 0)")
    sid = await conn.fetchval("SELECT id FROM aq.schedules")
    queues = {f"first.{r['queue_name']}": r["id"] for r in await conn.fetch(
        "SELECT id, queue_name FROM aq.queues WHERE schema_name = 'first'")}
    minute = await conn.fetchval("SELECT date_trunc('minute', now(), 'UTC') - interval '1 minute'")
    await conn.execute(
        "INSERT INTO aq_stats.schedule_series (schedule_id, grain, bucket, queue_name, destination, batches,"
        " messages, bytes, seconds, failures, undeliverable, disabled, errors, batch_p50_ms, batch_p95_ms,"
        " batch_p99_ms, latency_samples) VALUES ($1, 'minute', $2, 'first.out_q', 'first.in_q', 6, 3000,"
        " 303000, 1.2, 0, 0, 0, 0, 180, 330, 350, 0)", sid, minute)
    await conn.execute(
        "INSERT INTO aq_stats.queue_series (queue_id, grain, bucket, queue_schema, queue_name, enqueued,"
        " dequeued, wait_samples, snapshots) VALUES ($1, 'minute', $2, 'first', 'in_q', 3000, 0, 0, 0)",
        queues["first.in_q"], minute)
    await conn.executemany(
        "INSERT INTO aq.queue_snapshots (taken_at, queue_id, queue_schema, queue_name, ready, waiting,"
        " expired, processed, oldest_ready_age) VALUES (now(), $1, 'first', $2, $3, 0, 0, 0, $4)",
        [(qid, name.split(".")[1], 3000 if name == "first.in_q" else 0, 50.0 if name == "first.in_q" else None)
         for name, qid in queues.items()])
    await conn.execute(
        "INSERT INTO aq_stats.runs (started_at, finished_at, low, high, log_rows, history_rows, snapshot_rows,"
        " written_rows, status) VALUES (now() - interval '20 seconds', now() - interval '5 seconds', NULL,"
        " now() - interval '50 seconds', 6, 3000, 0, 4, 'DONE')")
    return {"schedule": f"#{sid} first.out_q → first.in_q", "queues": sorted(queues)}


async def test_the_first_minute_as_an_operator_sees_it(gateway: str, db_dsn: str,
                                                        browser: Callable[[], Awaitable[Cdp]]) -> None:
    """One bucket is drawn (a dot and its bucket's width, not an empty chart), the charts
    that cannot fill say what they need, and idle queues are folded out of the legends."""
    conn = await asyncpg.connect(db_dsn)
    try:
        first = await first_minute(conn)
        cdp = await browser()
        page = await open_dashboard(cdp, f"{gateway}/dashboard")
        await screenshot(cdp, SCREENSHOT.with_name("dashboard-first-minute.png"))
        charts = page["charts"]

        # a single bucket is drawn, visibly: its line spans the bucket, with a dot
        for chart in ("prop-rate", "prop-bytes", "prop-time", "prop-batch", "queue-rates", "queue-depth",
                      "queue-age"):
            c = charts[chart]
            assert c["empty"] == "false" and c["svgs"] == 1, (chart, c)
            for p in c["paths"]:
                assert p["points"] == 1 and p["vertices"] == 1 and p["drawnWidth"] >= 4, (chart, p)
            assert c["circles"] == len(c["paths"]), (chart, c)
        assert charts["prop-rate"]["legendShown"] == [first["schedule"]]

        # what the empty charts need: the message history, kept only with a retention
        latency = charts["prop-latency"]
        assert latency["empty"] == "true" and "retention_time" in latency["emptyText"], latency
        assert "first.out_q" in latency["emptyText"] and "first.in_q" not in latency["emptyText"]
        wait = charts["queue-wait"]
        assert wait["empty"] == "true" and "retention_time" in wait["emptyText"], wait
        assert "first.in_q" in wait["emptyText"] and "aq$_" not in wait["emptyText"]  # not the exception queues
        assert "retention_time 0" in charts["queue-rates"]["note"]
        assert "dbms_aq.register" in charts["notifications"]["emptyText"]

        # legends: the active queue first, the idle ones (exception queues among them) folded
        depth = charts["queue-depth"]
        assert depth["legendShown"] == ["first.in_q"], depth
        assert sorted(depth["legendFolded"]) == [q for q in first["queues"] if q != "first.in_q"]
        assert len(depth["legendFolded"]) == 3 and not depth["foldOpen"]
        assert depth["foldSummary"] == "3 idle series (0 throughout)"
        assert charts["queue-rates"]["legendShown"] == ["first.in_q enqueue"]
        assert charts["queue-rates"]["legendFolded"] == ["first.in_q dequeue"]
        # the active queue has the first colour, whatever the idle queues' ids
        assert paths(page, "queue-depth")["first.in_q"]["stroke"] == "#2563eb"
        assert cdp.errors() == []
    finally:
        await conn.close()
