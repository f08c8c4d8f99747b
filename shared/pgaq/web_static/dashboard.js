// pgaq dashboard: polls dashboard/data and draws SVG line charts. No library and no
// network beyond this server; data reach the DOM through textContent and attributes only.
"use strict";
(() => {
  const POLL_MS = 10000;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2",
                   "#ca8a04", "#db2777", "#4f46e5", "#65a30d", "#0f766e", "#7c2d12"];
  const STATE_COLORS = { DELIVERED: "#16a34a", FAILED: "#dc2626", PENDING: "#98a2b3", SENDING: "#2563eb" };
  const STATES = ["DELIVERED", "FAILED", "PENDING", "SENDING"];
  const pct = (prefix) => [
    { key: `${prefix}_p50_ms`, suffix: "p50" },
    { key: `${prefix}_p95_ms`, suffix: "p95", dash: "6 3" },
    { key: `${prefix}_p99_ms`, suffix: "p99", dash: "2 3" },
  ];

  // one entry per <figure data-chart=…>: where its series come from and how to show them
  const CHARTS = {
    "prop-rate": { title: "Propagation throughput", unit: "messages/s", source: "propagation",
                   fmt: "count", metrics: [{ key: "messages_per_s" }] },
    "prop-bytes": { title: "Propagation volume", unit: "bytes/s", source: "propagation",
                    fmt: "bytes", metrics: [{ key: "bytes_per_s" }] },
    "prop-failures": { title: "Propagation failures", unit: "events per bucket", source: "propagation",
                       fmt: "count", integer: true, metrics: [
                         { key: "failures" },
                         { key: "undeliverable", suffix: "undeliverable", dash: "6 3", optional: true },
                         { key: "disabled", suffix: "disabled", dash: "2 3", optional: true }] },
    "prop-time": { title: "Time per message", unit: "batch time / messages", source: "propagation",
                   fmt: "ms", metrics: [{ key: "ms_per_message" }] },
    "prop-latency": { title: "Propagation latency", unit: "READY → propagated, p50 / p95 / p99",
                      source: "propagation", fmt: "ms", metrics: pct("latency") },
    "prop-batch": { title: "Batch duration", unit: "p50 / p95 / p99", source: "propagation",
                    fmt: "ms", metrics: pct("batch") },
    "queue-depth": { title: "Queue depth", unit: "READY messages", source: "depth", fmt: "count",
                     metrics: [{ key: "ready" }] },
    "queue-age": { title: "Oldest READY message", unit: "age", source: "depth", fmt: "s",
                   metrics: [{ key: "oldest_ready_age" }] },
    "queue-rates": { title: "Enqueue / dequeue rate", unit: "messages/s", source: "queues", fmt: "count",
                     metrics: [{ key: "enqueued_per_s", suffix: "enqueue" },
                               { key: "dequeued_per_s", suffix: "dequeue", dash: "6 3" }] },
    "queue-wait": { title: "Wait from enqueue to dequeue", unit: "p50 / p95 / p99", source: "queues",
                    fmt: "ms", metrics: pct("wait") },
    "notifications": { title: "Notification outcomes", unit: "per bucket", source: "notifications",
                       fmt: "count", integer: true, metrics: [{ key: "notifications" }] },
  };

  // -- formatting ------------------------------------------------------------------------
  const num = (x) => typeof x === "number" && Number.isFinite(x);
  function trim(x) {
    const a = Math.abs(x);
    const s = a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toPrecision(2);
    return s.includes(".") && !s.includes("e") ? s.replace(/\.?0+$/, "") : s;
  }
  function count(v) {
    const a = Math.abs(v);
    if (a === 0) return "0";
    if (a >= 1e9) return trim(v / 1e9) + "G";
    if (a >= 1e6) return trim(v / 1e6) + "M";
    if (a >= 1e3) return trim(v / 1e3) + "k";
    return trim(v);
  }
  function bytes(v) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (v === 0 ? "0" : trim(v)) + " " + units[i];
  }
  function ms(v) {
    const a = Math.abs(v);
    if (a === 0) return "0";
    if (a < 1000) return trim(v) + " ms";
    if (a < 60000) return trim(v / 1000) + " s";
    if (a < 3600000) return trim(v / 60000) + " min";
    if (a < 86400000) return trim(v / 3600000) + " h";
    return trim(v / 86400000) + " d";
  }
  const FORMATS = { count, bytes, ms, s: (v) => ms(v * 1000) };
  const clock = (t) => new Date(t).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const stamp = (t) => new Date(t).toLocaleString([], { month: "short", day: "numeric",
                                                        hour: "2-digit", minute: "2-digit", second: "2-digit" });

  // -- DOM helpers -----------------------------------------------------------------------
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function swatch(s, w, h) {
    const box = svg("svg", { viewBox: `0 0 ${w} ${h}`, "aria-hidden": "true" });
    box.appendChild(svg("line", { x1: 1, y1: h / 2, x2: w - 1, y2: h / 2, stroke: s.color,
                                  "stroke-width": 2.5, "stroke-dasharray": s.dash }));
    return box;
  }

  // -- scales ----------------------------------------------------------------------------
  function niceStep(raw, integer) {
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / p;
    const step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 && !integer ? 2.5 : f <= 5 ? 5 : 10) * p;
    return integer ? Math.max(1, Math.round(step)) : step;
  }
  // ticks at round numbers of the unit the labels use (KiB, s, min…), not of the raw value
  const SCALES = {
    count: () => 1,
    bytes: (max) => { let s = 1; while (max / s >= 1024) s *= 1024; return s; },
    ms: (max) => (max >= 3600000 ? 3600000 : max >= 60000 ? 60000 : max >= 1000 ? 1000 : 1),
    s: (max) => (max >= 3600 ? 3600 : max >= 60 ? 60 : max >= 1 ? 1 : 0.001),
  };
  function yTicks(max, n, fmt, integer) {
    if (!(max > 0)) return { top: 1, ticks: integer ? [0, 1] : [0, 0.5, 1] };
    const scale = SCALES[fmt](max);
    const step = niceStep(max / scale / n, integer && scale === 1) * scale;
    const top = Math.ceil(max / step - 1e-9) * step;
    const ticks = [];
    for (let i = 0; i * step <= top + step / 2; i++) ticks.push(i * step);
    return { top, ticks };
  }
  const MIN = 60000, HOUR = 60 * MIN, DAY = 24 * HOUR;
  const TIME_STEPS = [MIN, 2 * MIN, 5 * MIN, 10 * MIN, 15 * MIN, 30 * MIN, HOUR, 2 * HOUR, 3 * HOUR,
                      6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY];
  function xTicks(from, to, n) {
    const step = TIME_STEPS.find((s) => (to - from) / s <= n * 1.3) || TIME_STEPS[TIME_STEPS.length - 1];
    const tz = new Date(from).getTimezoneOffset() * MIN; // ticks on local round times
    const ticks = [];
    for (let t = Math.ceil((from - tz) / step) * step + tz; t <= to; t += step) ticks.push(t);
    const label = step >= DAY
      ? (t) => new Date(t).toLocaleDateString([], { month: "short", day: "numeric" })
      : to - from > DAY
        ? (t) => new Date(t).toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" })
        : clock;
    return { ticks, label };
  }

  // -- series ----------------------------------------------------------------------------
  // an entity (schedule, queue) is active when any of its charted values is not zero
  function activeIds(entities, specs) {
    const keys = specs.flatMap((spec) => spec.metrics.map((m) => m.key));
    const ids = new Set();
    for (const ent of entities) {
      if (keys.some((k) => (ent[k] || []).some((v) => num(v) && v !== 0))) ids.add(ent.id);
    }
    return ids;
  }
  function colorMaps(data) {
    const maps = {};
    const specsOf = (...sources) => Object.values(CHARTS).filter((c) => sources.includes(c.source));
    const assign = (entities, active) => {
      const m = new Map();
      const cmp = (a, b) => (active.has(a) === active.has(b) ? (a < b ? -1 : a > b ? 1 : 0) : active.has(a) ? -1 : 1);
      [...new Set(entities.map((e) => e.id))].sort(cmp).forEach((id, i) => m.set(id, PALETTE[i % PALETTE.length]));
      return m;
    };
    maps.propagation = assign(data.propagation, activeIds(data.propagation, specsOf("propagation")));
    const queues = [...data.queues, ...data.depth];
    maps.queues = maps.depth = assign(queues, activeIds(queues, specsOf("queues", "depth")));
    maps.notifications = new Map(Object.entries(STATE_COLORS));
    return maps;
  }
  function buildSeries(spec, data, colors) {
    const out = [];
    for (const ent of data[spec.source] || []) {
      for (const m of spec.metrics) {
        const values = ent[m.key] || [];
        const points = [];
        ent.t.forEach((t, i) => { if (num(values[i])) points.push([t, values[i]]); });
        if (!points.length || (m.optional && points.every((p) => p[1] === 0))) continue;
        out.push({
          name: m.suffix ? `${ent.label} ${m.suffix}` : ent.label,
          entity: String(ent.id), metric: m.key, points, dash: m.dash,
          idle: points.every((p) => p[1] === 0),  // zero throughout: folded in the legend
          color: colors[spec.source].get(ent.id) || PALETTE[out.length % PALETTE.length],
        });
      }
    }
    return out;
  }

  // -- what an empty chart needs ------------------------------------------------------------
  const JOB_PENDING = "Filled by the statistics job, which has not run yet: it runs every "
    + "PGAQ_STATS_INTERVAL minutes (5 by default), or now with `pgaq stats run`.";
  function names(list) {
    return list.length <= 3 ? list.join(", ") : `${list.slice(0, 3).join(", ")} and ${list.length - 3} more`;
  }
  // queues whose messages leave no history behind (retention_time 0): no dequeue waits, no
  // propagation latency, no counts of what they removed
  function unretained(data, pick) {
    return (data.queue_info || []).filter((q) => !q.exception && pick(q) && !(q.retention > 0 || q.retention === -1))
      .map((q) => q.label);
  }
  function aggregatedUpTo(data) {
    const done = data.stats_runs.find((r) => r.status === "DONE");
    return done && num(done.high) ? done.high : null;
  }
  const RETENTION_HOW = "Give it a retention longer than the statistics interval, e.g. "
    + "dbms_aqadm.alter_queue(queue_name => …, retention_time => 3600).";
  function emptyText(key, spec, data) {
    const upTo = aggregatedUpTo(data);
    const lag = upTo === null ? "" : ` The statistics job has aggregated up to ${stamp(upTo)}; what is newer appears after its next run.`;
    if (spec.source === "propagation") {
      if (!data.schedules.length) {
        return "Needs a propagation schedule (dbms_aqadm.schedule_propagation): drawn from the propagation log the statistics job aggregates.";
      }
      if (upTo === null) return JOB_PENDING;
      if (key === "prop-latency" && data.propagation.length) {
        const zero = unretained(data, (q) => q.propagates);
        return "Needs the message history: latency is measured on propagated messages the source queue still holds, "
          + "and a queue holds them only for its retention_time"
          + (zero.length ? ` (0 on ${names(zero)}). ${RETENTION_HOW}` : ". None in this range.");
      }
      if (key === "prop-time" && data.propagation.length) return "No messages propagated in this range (failures only).";
      return "No propagation logged in this range." + lag;
    }
    if (spec.source === "queues") {
      if (!(data.queue_info || []).length) return "No queues yet (dbms_aqadm.create_queue).";
      if (upTo === null) return JOB_PENDING;
      const zero = unretained(data, () => true);
      if (key === "queue-wait" && data.queues.length) {
        return "Needs the message history: waits are measured on dequeued messages the queue still holds, "
          + "and a queue holds them only for its retention_time"
          + (zero.length ? ` (0 on ${names(zero)}). ${RETENTION_HOW}` : ". No dequeues in this range.");
      }
      return "No enqueues in this range." + lag
        + (zero.length ? ` Messages of queues with retention_time 0 (${names(zero)}) are counted only while they wait.` : "");
    }
    if (spec.source === "depth") {
      if (!(data.queue_info || []).length) return "No queues yet (dbms_aqadm.create_queue).";
      return "Needs the monitor's snapshots (each queue every PGAQ_SNAPSHOT_PERIOD seconds, 60 by default): "
        + (key === "queue-age" ? "no READY message in this range." : "none in this range yet; is the monitor running?");
    }
    return "No notifications in this range: they come from registrations (dbms_aq.register) on queues that receive messages.";
  }
  // a line under a drawn chart when part of it cannot be there (dequeues of unretained queues)
  function chartNote(key, data) {
    if (key !== "queue-rates") return null;
    const zero = unretained(data, () => true);
    return zero.length ? `Dequeues are counted from the message history: none for queues with retention_time 0 (${names(zero)}).` : null;
  }

  // -- one chart -------------------------------------------------------------------------
  const tooltip = () => document.getElementById("tooltip");
  function hideTooltip() { tooltip().hidden = true; }

  function renderChart(fig, key, spec, data, colors) {
    fig.replaceChildren();
    const cap = el("figcaption", {}, spec.title);
    cap.appendChild(el("span", { class: "unit" }, spec.unit));
    fig.appendChild(cap);
    const built = buildSeries(spec, data, colors);
    // active series first; idle ones (zero throughout, e.g. exception queues) after, folded
    const active = built.filter((s) => !s.idle), idle = built.filter((s) => s.idle);
    const series = [...active, ...idle];
    fig.dataset.series = String(series.length);
    fig.dataset.active = String(active.length);
    fig.dataset.empty = series.length ? "false" : "true";
    if (!series.length) {
      fig.appendChild(el("div", { class: "empty" }, emptyText(key, spec, data)));
      return;
    }
    const fmt = FORMATS[spec.fmt];
    const W = Math.max(320, Math.floor(fig.clientWidth - 24) || 600), H = 190;
    const m = { l: 62, r: 14, t: 10, b: 24 };
    const pw = W - m.l - m.r, ph = H - m.t - m.b;
    let from = data.from, to = data.to, max = 0;
    for (const s of series) for (const [t, v] of s.points) {
      if (t < from) from = t;
      if (t > to) to = t;
      if (v > max) max = v;
    }
    const { top, ticks } = yTicks(max, 4, spec.fmt, spec.integer);
    const x = (t) => m.l + ((t - from) / Math.max(1, to - from)) * pw;
    const y = (v) => m.t + ph - (v / top) * ph;
    const root = svg("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
                              "aria-label": spec.title, "data-chart-svg": fig.dataset.chart });
    // y axis and grid
    const yAxis = svg("g", { class: "axis y" });
    for (const v of ticks) {
      const yy = y(v).toFixed(1);
      root.appendChild(svg("line", { class: "gridline", x1: m.l, x2: W - m.r, y1: yy, y2: yy }));
      yAxis.appendChild(svg("text", { x: m.l - 6, y: yy, "text-anchor": "end", "dominant-baseline": "middle" },
                            v === 0 ? "0" : fmt(v)));
    }
    root.appendChild(yAxis);
    // x axis
    const xAxis = svg("g", { class: "axis x" });
    xAxis.appendChild(svg("line", { x1: m.l, x2: W - m.r, y1: m.t + ph, y2: m.t + ph }));
    const xt = xTicks(from, to, Math.max(2, Math.floor(pw / 70)));
    for (const t of xt.ticks) {
      const xx = x(t).toFixed(1);
      xAxis.appendChild(svg("line", { x1: xx, x2: xx, y1: m.t + ph, y2: m.t + ph + 4 }));
      xAxis.appendChild(svg("text", { x: xx, y: m.t + ph + 16, "text-anchor": "middle" }, xt.label(t)));
    }
    root.appendChild(xAxis);
    // the lines: a gap of more than one bucket breaks a line (no data there, not zero)
    const bucket = data.bucket_seconds * 1000;
    const gap = bucket * 1.5;
    const bucketWidth = Math.max(4, x(from + bucket) - x(from));
    const plot = svg("g", { class: "plot" });
    for (const s of [...idle, ...active]) {  // active lines drawn last, on top
      let d = "";
      const lonely = [];
      s.points.forEach(([t, v], i) => {
        const newSegment = i === 0 || t - s.points[i - 1][0] > gap;
        const nextGap = i === s.points.length - 1 || s.points[i + 1][0] - t > gap;
        d += `${newSegment ? "M" : "L"}${x(t).toFixed(1)},${y(v).toFixed(1)}`;
        // a bucket on its own (the first minute of data, say) spans its bucket, with a dot
        if (newSegment && nextGap) {
          lonely.push([t, v]);
          d += `h${Math.max(4, Math.min(bucketWidth, m.l + pw - x(t))).toFixed(1)}`;
        }
      });
      plot.appendChild(svg("path", { class: s.idle ? "series idle" : "series", d, stroke: s.color,
                                     "stroke-dasharray": s.dash, "data-series": s.name, "data-entity": s.entity,
                                     "data-metric": s.metric, "data-points": s.points.length,
                                     "data-idle": s.idle ? "true" : "false" }));
      for (const [t, v] of lonely) {
        plot.appendChild(svg("circle", { cx: x(t).toFixed(1), cy: y(v).toFixed(1), r: 3.5, fill: s.color,
                                         class: s.idle ? "idle" : null }));
      }
    }
    root.appendChild(plot);
    // hover: a guide at the nearest bucket and every series' value there
    const guide = svg("line", { class: "guide", y1: m.t, y2: m.t + ph, visibility: "hidden" });
    root.appendChild(guide);
    const times = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
    const overlay = svg("rect", { x: m.l, y: m.t, width: pw, height: ph, fill: "transparent" });
    overlay.addEventListener("mousemove", (ev) => {
      const box = root.getBoundingClientRect();
      const px = (ev.clientX - box.left) * (W / box.width);
      const t0 = from + ((px - m.l) / pw) * (to - from);
      let best = times[0];
      for (const t of times) if (Math.abs(t - t0) < Math.abs(best - t0)) best = t;
      guide.setAttribute("x1", x(best).toFixed(1));
      guide.setAttribute("x2", x(best).toFixed(1));
      guide.setAttribute("visibility", "visible");
      const tip = tooltip();
      tip.replaceChildren(el("div", { class: "t" }, stamp(best)));
      for (const s of active) {
        const p = s.points.find((q) => q[0] === best);
        if (!p) continue;
        const row = el("div", { class: "row" });
        row.appendChild(swatch(s, 16, 8));
        row.appendChild(el("span", { class: "n" }, s.name));
        row.appendChild(el("span", {}, fmt(p[1])));
        tip.appendChild(row);
      }
      if (idle.length) tip.appendChild(el("div", { class: "row idle" }, `${idle.length} idle (0)`));
      tip.hidden = false;
      const left = ev.clientX + 14 + tip.offsetWidth > window.innerWidth ? ev.clientX - 14 - tip.offsetWidth : ev.clientX + 14;
      tip.style.left = `${Math.max(0, left)}px`;
      tip.style.top = `${ev.clientY + 14}px`;
    });
    overlay.addEventListener("mouseleave", () => { guide.setAttribute("visibility", "hidden"); hideTooltip(); });
    root.appendChild(overlay);
    fig.appendChild(root);
    // legend: the active series, then the idle ones folded under a count
    const entries = (list) => {
      const ul = el("ul", { class: "legend" });
      for (const s of list) {
        const li = el("li", { "data-series": s.name, "data-idle": s.idle ? "true" : "false" });
        li.appendChild(swatch(s, 22, 10));
        li.appendChild(el("span", {}, s.name));
        ul.appendChild(li);
      }
      return ul;
    };
    if (active.length) fig.appendChild(entries(active));
    if (idle.length) {
      const fold = el("details", { class: "idle-series" });
      fold.appendChild(el("summary", {}, `${idle.length} idle series (0 throughout)`));
      fold.appendChild(entries(idle));
      fig.appendChild(fold);
    }
    const note = chartNote(key, data);
    if (note) fig.appendChild(el("p", { class: "chart-note" }, note));
  }

  // -- tables and tiles ------------------------------------------------------------------
  function renderSchedules(rows) {
    const body = document.querySelector("#schedules tbody");
    body.replaceChildren();
    if (!rows.length) {
      const tr = el("tr");
      tr.appendChild(el("td", { colspan: 10, class: "none" }, "No propagation schedules"));
      body.appendChild(tr);
      return;
    }
    const pick = (a, b) => (a === null || a === undefined ? b : a);
    for (const r of rows) {
      const tr = el("tr", { "data-schedule": r.schedule_id });
      const state = !r.live ? "dropped" : r.disabled ? "disabled"
        : r.consecutive_failures > 0 ? `retrying (${r.consecutive_failures} failures)` : "enabled";
      const avgTime = pick(r.avg_time, r.stats_avg_time);
      const avgSize = pick(r.avg_size, r.stats_avg_size);
      const messages = pick(r.total_number, r.stats_total_number);
      const volume = pick(r.total_bytes, r.stats_total_bytes);
      const cells = [
        [`#${r.schedule_id} ${r.queue_name} → ${r.destination}`],
        [state],
        [num(messages) ? count(messages) : "–", "num"],
        [num(volume) ? bytes(volume) : "–", "num"],
        [num(avgTime) ? ms(avgTime * 1000) : "–", "num"],
        [num(avgSize) ? bytes(avgSize) : "–", "num"],
        [num(r.stats_failures) ? count(r.stats_failures) : "–", "num"],
        [num(r.stats_undeliverable) ? count(r.stats_undeliverable) : "–", "num"],
        [num(r.last_run_date) ? stamp(r.last_run_date) : "–"],
        [r.last_error_msg ? `${num(r.last_error_date) ? stamp(r.last_error_date) + ": " : ""}${r.last_error_msg}` : "",
         r.last_error_msg ? "error" : undefined],
      ];
      for (const [text, cls] of cells) tr.appendChild(el("td", { class: cls }, text));
      body.appendChild(tr);
    }
  }
  function renderTotals(rows) {
    const box = document.getElementById("notification-totals");
    box.replaceChildren();
    const by = Object.fromEntries(rows.map((r) => [r.state, r]));
    for (const state of STATES) {
      const r = by[state] || { notifications: 0, attempts: 0 };
      const tile = el("div", { class: "tile", "data-state": state });
      tile.appendChild(el("div", { class: "k" }, state.toLowerCase()));
      tile.appendChild(el("div", { class: "v" }, count(r.notifications)));
      const sub = state === "PENDING" && num(r.oldest_pending_s) && r.notifications > 0
        ? `oldest due ${ms(Math.max(0, r.oldest_pending_s) * 1000)} ago`
        : `${count(r.attempts)} attempts`;
      tile.appendChild(el("div", { class: "s" }, sub));
      box.appendChild(tile);
    }
  }
  function renderRun(runs) {
    const p = document.getElementById("stats-run");
    p.classList.remove("error");
    if (!runs.length) {
      p.textContent = "Statistics job: no run yet. Propagation, rate and wait charts fill after its first run.";
      return;
    }
    const last = runs[0];
    const done = runs.find((r) => r.status === "DONE");
    let text = `Statistics job: run #${last.id} ${last.status.toLowerCase()}`;
    text += last.finished_at ? ` at ${stamp(last.finished_at)}` : ` since ${stamp(last.started_at)}`;
    if (last.status === "FAILED") {
      p.classList.add("error");
      if (last.error) text += ` (${last.error.split("\n")[0].slice(0, 200)})`;
    }
    if (done && num(done.high)) text += `; aggregates up to ${stamp(done.high)}`;
    p.textContent = text + ".";
  }

  // -- the page --------------------------------------------------------------------------
  let renders = 0, lastData = null, timer = null, inflight = null;
  const select = () => document.getElementById("range");
  const status = (text, error) => {
    const s = document.getElementById("status");
    s.textContent = text;
    s.classList.toggle("error", !!error);
  };

  function render(data) {
    hideTooltip();
    const colors = colorMaps(data);
    let drawn = 0;
    for (const fig of document.querySelectorAll("figure[data-chart]")) {
      const spec = CHARTS[fig.dataset.chart];
      if (!spec) continue;
      renderChart(fig, fig.dataset.chart, spec, data, colors);
      if (fig.dataset.empty === "false") drawn++;
    }
    renderSchedules(data.schedules);
    renderTotals(data.notification_totals);
    renderRun(data.stats_runs);
    document.getElementById("empty").hidden = drawn > 0 || data.schedules.length > 0
      || data.notification_totals.length > 0;
    document.body.dataset.range = data.range;
    document.body.dataset.charts = String(drawn);
    document.body.dataset.rendered = String(++renders);
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(() => (document.hidden ? schedule() : refresh()), POLL_MS);
  }

  async function refresh() {
    clearTimeout(timer);
    if (inflight) inflight.abort();
    const ctl = new AbortController();
    inflight = ctl;
    const range = select().value;
    try {
      const url = new URL(`dashboard/data?range=${encodeURIComponent(range)}`, location.origin + location.pathname);
      const r = await fetch(url, {
        signal: ctl.signal, cache: "no-store", credentials: "same-origin",
        headers: { Accept: "application/json" } });
      if (r.status === 401 || r.status === 403) throw new Error(`not authorised (HTTP ${r.status}): reload to sign in`);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      const data = await r.json();
      if (data.range !== select().value) return;
      lastData = data;
      render(data);
      status(`updated ${new Date().toLocaleTimeString()} · every ${POLL_MS / 1000} s`);
    } catch (e) {
      if (e.name === "AbortError") return;
      status(`update failed: ${e.message}; retrying`, true);
      document.body.dataset.error = e.message;
    } finally {
      if (inflight === ctl) {
        inflight = null;
        schedule();
      }
    }
  }

  function start() {
    const sel = select();
    const wanted = new URLSearchParams(location.hash.slice(1)).get("range");
    if (wanted && [...sel.options].some((o) => o.value === wanted)) sel.value = wanted;
    sel.addEventListener("change", () => {
      history.replaceState(null, "", `#range=${sel.value}`);
      refresh();
    });
    document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
    let resizing = null;
    window.addEventListener("resize", () => {
      clearTimeout(resizing);
      resizing = setTimeout(() => { if (lastData) render(lastData); }, 200);
    });
    refresh();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
