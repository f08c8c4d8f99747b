"""Result rows, the printed table and the JSON file."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .measure import Result

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


def with_peers(rows: list[Row]) -> list[Row]:
    """Rows with peers' figures beside every comparable pgaq figure: a row that says what
    it compares as (enqueue, consume, consume_batch) and has none of its own borrows those of the peers
    suite's row of that kind, from the same run. Its pgaq/peer ratios are the peers
    row's, where pgaq and the peers did the same work: a time-boxed figure measured at
    another moment of a shared machine is no fair numerator. Inputs are left as they are."""
    source = {r["compare_as"]: r for r in rows if r.get("compare_as") and r.get("peers")}
    out = []
    for r in rows:
        kind = r.get("compare_as")
        if kind in source and not r.get("peers"):
            src = source[kind]
            ours = src.get("pgaq")
            r = {**r, "peers": dict(src["peers"]),
                 "peers_ratio": {name: round(ours / theirs, 3)
                                 for name, theirs in src["peers"].items()
                                 if isinstance(ours, int | float)
                                 and isinstance(theirs, int | float) and theirs},
                 "peers_from": str(src["benchmark"]).split(" ", 1)[0].rstrip(".")}
        out.append(r)
    return out


def _peer_names(rows: list[Row]) -> list[str]:
    names: list[str] = []
    for r in rows:
        for name in r.get("peers") or {}:
            if name not in names:
                names.append(name)
    return names


def _cells(r: Row, peers: list[str]) -> list[str]:
    unit = str(r.get("unit", ""))
    target = r.get("target")
    if "ratio" in r:
        ratio = f"{r['ratio']:.2f}x"
        target_s = f">= {target:g}x" if isinstance(target, int | float) else str(target)
    else:
        ratio, target_s = "-", str(target)
    peer_cells: list[str] = []
    figures = r.get("peers") or {}
    borrowed = r.get("peers_ratio") or {}
    for name in peers:
        theirs, ours = figures.get(name), r.get("pgaq")
        if isinstance(theirs, int | float) and theirs:
            peer_cells.append(_num(theirs, unit))
            if name in borrowed:
                peer_cells.append(f"{borrowed[name]:.2f}x")
            else:
                peer_cells.append(f"{ours / theirs:.2f}x" if isinstance(ours, int | float) else "-")
        elif isinstance(theirs, str):  # a peer that is missing or failed in this run
            peer_cells += [theirs, "-"]
        else:
            peer_cells += ["-", "-"]
    notes = []
    if "pgaq_p50_ms" in r and "floor_p50_ms" in r:
        notes.append(f"p50/p99 ms: pgaq {r['pgaq_p50_ms']:.2f}/{r['pgaq_p99_ms']:.2f}, "
                     f"floor {r['floor_p50_ms']:.2f}/{r['floor_p99_ms']:.2f}")
    if "pgaq_wal_bytes_per_op" in r and "pgaq_p50_ms" in r:
        notes.append(f"WAL B/op: pgaq {r['pgaq_wal_bytes_per_op']:,}, "
                     f"floor {r['floor_wal_bytes_per_op']:,}")
    if r.get("peers_from"):
        notes.append(f"peers and pgaq/peer from {r['peers_from']} (same work, same run)")
    if r.get("note"):
        notes.append(str(r["note"]))
    return [str(r["benchmark"]), _num(r.get("pgaq"), unit), _num(r.get("floor"), unit), ratio,
            *peer_cells, target_s,
            "info" if r.get("context") else "PASS" if r.get("pass") else "FAIL",
            "; ".join(notes)]


def build_table(rows: list[Row]) -> list[str]:
    """The report's lines: one per row, every figure beside its floor and the peers'
    (columns for each peer that any row has), with pgaq/floor and pgaq/peer ratios."""
    peers = _peer_names(rows)
    head = ["benchmark", "pgaq", "floor", "pgaq/floor"]
    for name in peers:
        head += [name, f"pgaq/{name}"]
    head += ["target", "result", "notes"]
    body = [_cells(r, peers) for r in rows]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head) - 1)]
    right = set(range(1, 4 + 2 * len(peers)))

    def line(cells: list[str]) -> str:
        parts = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(cells[:-1], widths, strict=True))]
        return " | ".join([*parts, cells[-1]]).rstrip().removesuffix(" |").rstrip()

    return [line(head), "-+-".join("-" * w for w in widths) + "-+-" + "-" * 5,
            *(line(cells) for cells in body)]


def print_table(rows: list[Row]) -> None:
    print("\n".join(build_table(rows)))


def summary(rows: list[Row]) -> str:
    scored = [r for r in rows if not r.get("context")]
    failed = [r["benchmark"] for r in scored if not r.get("pass")]
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
