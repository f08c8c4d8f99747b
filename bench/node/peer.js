#!/usr/bin/env node
// One Node.js peer of `make bench` (bench/peers_bench.py starts it as a subprocess):
//   node bench/node/peer.js <pg-boss|graphile-worker> '<json config>'
// config: {"dsn": ..., "n": ..., "concurrency": ..., "payload_bytes": ..., "batch": ...}.
// It installs the peer's schema in the database named by dsn, enqueues n jobs one per
// call from `concurrency` concurrent clients, then consumes them all with the peer's own
// worker (`concurrency` workers), every job finished by the peer's acknowledgement.
// stdout is a JSON-lines protocol, one object a line:
//   {"event":"ready","peer":..,"version":..,"driven":{..}}
//   {"event":"enqueue","n":..,"seconds":..,"rate":..,"p50_ms":..,"p99_ms":..}
//   {"event":"consume","n":..,"seconds":..,"rate":..,"handled":..,"batches":..,"p50_ms":..,"p99_ms":..}
//   {"event":"done"}            or, on any failure, {"event":"error","message":..}
// (consume latencies: each job's wait from the start of the phase to its handler).
// Logs go to stderr. Exits 0 after "done", 1 after "error".
"use strict";

const { performance } = require("node:perf_hooks");

function emit(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

function quantile(sorted, q) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function summary(n, seconds, latencies, extra = {}) {
  const s = Float64Array.from(latencies).sort();
  return {
    n, seconds, rate: seconds > 0 ? n / seconds : 0,
    p50_ms: quantile(s, 0.5), p99_ms: quantile(s, 0.99), ...extra,
  };
}

// n calls of one(w) in all, over `workers` concurrent loops; the latency of each call.
async function spread(n, workers, one) {
  let left = n;
  const latencies = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: workers }, async (_, w) => {
    while (left > 0) {
      left -= 1;
      const t = performance.now();
      await one(w);
      latencies.push(performance.now() - t);
    }
  }));
  return { seconds: (performance.now() - started) / 1000, latencies };
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function until(what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

// pg-boss: boss.send per job; consumers are `concurrency` boss.work() workers, each
// fetching `batch` jobs per poll (pollingIntervalSeconds 0.5, pg-boss's minimum; it has
// no LISTEN) and completing the whole fetched array when the handler resolves.
async function pgBoss(cfg) {
  const PgBoss = require("pg-boss");
  const version = require("pg-boss/package.json").version;
  const queue = "bench";
  const boss = new PgBoss({
    connectionString: cfg.dsn, max: cfg.concurrency + 2,
    supervise: false, schedule: false, migrate: true,
  });
  boss.on("error", (err) => console.error("[pg-boss]", err));
  await boss.start();
  await boss.createQueue(queue);
  const driven = {
    send: "boss.send(queue, data), 1 job per call",
    work: `boss.work x${cfg.concurrency}, batchSize ${cfg.batch}, pollingIntervalSeconds 0.5`,
    ack: "the handler's jobs array completed together (boss.complete(ids)) when it resolves",
    listen: false,
  };
  emit({ event: "ready", peer: "pg-boss", version, driven });
  const data = { body: "x".repeat(cfg.payload_bytes) };
  const enq = await spread(cfg.n, cfg.concurrency, () => boss.send(queue, data));
  emit({ event: "enqueue", ...summary(cfg.n, enq.seconds, enq.latencies) });

  const db = boss.getDb();
  const completed = async () => {
    const r = await db.executeSql(
      "SELECT count(*)::int AS k FROM pgboss.job WHERE name = $1 AND state = 'completed'", [queue]);
    return r.rows[0].k;
  };
  let handled = 0;
  let batches = 0;
  const latencies = [];
  const started = performance.now();
  const ids = [];
  for (let w = 0; w < cfg.concurrency; w += 1) {
    ids.push(await boss.work(queue, { batchSize: cfg.batch, pollingIntervalSeconds: 0.5 },
      async (jobs) => {
        const t = performance.now() - started;
        for (let i = 0; i < jobs.length; i += 1) latencies.push(t);
        handled += jobs.length;
        batches += 1;
      }));
  }
  // the clock stops when every job's completion is committed (pg-boss completes after
  // the handler resolves, without awaiting it)
  await until("pg-boss completions", async () => handled >= cfg.n && await completed() >= cfg.n,
    600000);
  const seconds = (performance.now() - started) / 1000;
  for (const id of ids) await boss.offWork({ id });
  const left = await completed();
  emit({ event: "consume", ...summary(cfg.n, seconds, latencies, { handled, batches, completed: left }) });
  await boss.stop({ graceful: false, wait: true });
}

// graphile-worker: WorkerUtils.addJob per job; the consumer is one run() worker pool of
// `concurrency` (LISTEN/NOTIFY on, its default), each job fetched by its own get_job and
// completed (deleted) by its own complete_job.
async function graphileWorker(cfg) {
  const { run, makeWorkerUtils } = require("graphile-worker");
  const version = require("graphile-worker/package.json").version;
  const { Logger } = require("graphile-worker");
  const logger = new Logger(() => (level, message) => {
    if (level === "error" || level === "warning") console.error(`[graphile-worker] ${message}`);
  });
  const utils = await makeWorkerUtils({ connectionString: cfg.dsn, maxPoolSize: cfg.concurrency, logger });
  await utils.migrate();
  const driven = {
    addJob: "WorkerUtils.addJob(task, payload), 1 job per call",
    run: `run({concurrency: ${cfg.concurrency}}), LISTEN/NOTIFY (default), pollInterval 2000 (default)`,
    ack: "each job completed (deleted) by its own complete_job",
    listen: true,
  };
  emit({ event: "ready", peer: "graphile-worker", version, driven });
  const payload = { body: "x".repeat(cfg.payload_bytes) };
  const enq = await spread(cfg.n, cfg.concurrency, () => utils.addJob("bench", payload));
  emit({ event: "enqueue", ...summary(cfg.n, enq.seconds, enq.latencies) });

  let handled = 0;
  const latencies = [];
  let allDone;
  const done = new Promise((resolve) => { allDone = resolve; });
  const started = performance.now();
  const runner = await run({
    connectionString: cfg.dsn, concurrency: cfg.concurrency, noHandleSignals: true, logger,
    maxPoolSize: cfg.concurrency + 2,
    taskList: {
      bench: async () => {
        latencies.push(performance.now() - started);
        handled += 1;
        if (handled >= cfg.n) allDone();
      },
    },
  });
  await done;
  const left = async () => {
    const r = await utils.withPgClient((c) => c.query(
      "SELECT count(*)::int AS k FROM graphile_worker._private_jobs"));
    return r.rows[0].k;
  };
  // the last handlers have returned; their complete_job commits follow
  await until("graphile-worker completions", async () => await left() === 0, 600000);
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  emit({ event: "consume", ...summary(cfg.n, seconds, latencies, { handled, left: await left() }) });
  await utils.release();
}

const PEERS = { "pg-boss": pgBoss, "graphile-worker": graphileWorker };

async function main() {
  const [name, json] = process.argv.slice(2);
  if (!PEERS[name]) throw new Error(`unknown peer ${name}; one of ${Object.keys(PEERS).join(", ")}`);
  const cfg = JSON.parse(json || "{}");
  for (const k of ["dsn", "n", "concurrency", "payload_bytes", "batch"]) {
    if (cfg[k] === undefined) throw new Error(`config lacks ${k}`);
  }
  await PEERS[name](cfg);
  emit({ event: "done" });
}

main().then(() => process.exit(0), (err) => {
  emit({ event: "error", message: String(err && err.stack ? err.message : err) });
  console.error(err);
  process.exit(1);
});
