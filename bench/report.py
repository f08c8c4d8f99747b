"""Result rows, the printed table and the JSON file."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .harness import Result

Row = dict[str, Any]
RESULTS = Path(__file__).resolve().parent / "results"


def ratio_row(name: str, ours: Result, floor: Result, target: float, *, unit: str = "msg/s",
              note: str = "", latency: bool = False) -> Row:
    """pgaq's rate beside the floor's; passes when ours / floor >= target."""
    ratio = ours.rate / floor.rate if floor.rate else 0.0
    notes = [note] if note else []
    if ours.dry or floor.dry:
        notes.append("RAN DRY before the deadline: raise BENCH_PREFILL")
    row: Row = {"benchmark": name, "pgaq": round(ours.rate, 1), "floor": round(floor.rate, 1),
                "unit": unit, "ratio": round(ratio, 3), "target": target, "pass": ratio >= target,
                "pgaq_ops": ours.ops, "floor_ops": floor.ops,
                "pgaq_seconds": round(ours.seconds, 3), "floor_seconds": round(floor.seconds, 3),
                "note": "; ".join(notes)}
    if ours.wal_bytes and floor.wal_bytes:
        row.update({"pgaq_wal_bytes_per_op": round(ours.wal_per_op),
                    "floor_wal_bytes_per_op": round(floor.wal_per_op)})
    if latency:
        row.update({"pgaq_p50_ms": round(ours.p50, 3), "pgaq_p99_ms": round(ours.p99, 3),
                    "floor_p50_ms": round(floor.p50, 3), "floor_p99_ms": round(floor.p99, 3)})
    return row


def _num(v: Any, unit: str) -> str:
    if isinstance(v, int | float) and not isinstance(v, bool):
        text = f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.2f}"
        return f"{text} {unit}".strip() if unit in ("msg/s", "ms", "s", "MiB", "%") else text
    return str(v)


def _cells(r: Row) -> list[str]:
    unit = str(r.get("unit", ""))
    target = r.get("target")
    if "ratio" in r:
        ratio = f"{r['ratio']:.2f}x"
        target_s = f">= {target:g}x" if isinstance(target, int | float) else str(target)
    else:
        ratio, target_s = "-", str(target)
    notes = []
    if "pgaq_p50_ms" in r and "floor_p50_ms" in r:
        notes.append(f"p50/p99 ms: pgaq {r['pgaq_p50_ms']:.2f}/{r['pgaq_p99_ms']:.2f}, "
                     f"floor {r['floor_p50_ms']:.2f}/{r['floor_p99_ms']:.2f}")
    if "pgaq_wal_bytes_per_op" in r and "pgaq_p50_ms" in r:
        notes.append(f"WAL B/op: pgaq {r['pgaq_wal_bytes_per_op']:,}, "
                     f"floor {r['floor_wal_bytes_per_op']:,}")
    if r.get("note"):
        notes.append(str(r["note"]))
    return [str(r["benchmark"]), _num(r.get("pgaq"), unit), _num(r.get("floor"), unit), ratio,
            target_s, "info" if r.get("context") else "PASS" if r["pass"] else "FAIL",
            "; ".join(notes)]


def print_table(rows: list[Row]) -> None:
    head = ["benchmark", "pgaq", "floor", "ratio", "target", "result", "notes"]
    body = [_cells(r) for r in rows]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head) - 1)]
    right = {1, 2, 3}

    def line(cells: list[str]) -> str:
        parts = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(cells[:-1], widths, strict=True))]
        return " | ".join([*parts, cells[-1]]).rstrip()

    print(line(head))
    print("-+-".join("-" * w for w in widths) + "-+-" + "-" * 5)
    for cells in body:
        print(line(cells))


def summary(rows: list[Row]) -> str:
    scored = [r for r in rows if not r.get("context")]
    failed = [r["benchmark"] for r in scored if not r["pass"]]
    met = len(scored) - len(failed)
    text = f"SUMMARY: {met} of {len(scored)} targets met"
    return text + (f"; FAILED: {', '.join(failed)}" if failed else "; all PASS")


def write_json(rows: list[Row], machine: dict[str, Any], settings: dict[str, Any],
               extra: dict[str, Any]) -> Path:
    now = datetime.now(UTC)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{now:%Y%m%dT%H%M%SZ}.json"
    out.write_text(json.dumps({"measured_at": now.isoformat(timespec="seconds"),
                               "machine": machine, "settings": settings, "results": rows,
                               **extra}, indent=2, default=str) + "\n")
    return out
