"""The soak's verdict, as pure functions of the sampled series so they can be tested
without running an hour: a leak is a slope, bloat is a later maximum above an earlier one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Series = Sequence[tuple[float, float]]  # (seconds since the start, value)


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def slope(points: Series) -> float:
    """Least-squares slope (value per second); 0 for fewer than two distinct times."""
    n = len(points)
    if n < 2:
        return 0.0
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    return sum((t - mt) * (v - mv) for t, v in points) / var


def second_half(points: Series) -> Series:
    """The samples after the midpoint in time: the warm-up (caches, pools) left out."""
    if not points:
        return points
    t0, t1 = points[0][0], points[-1][0]
    mid = t0 + (t1 - t0) / 2
    return [p for p in points if p[0] >= mid]


def quarter(points: Series, k: int) -> list[float]:
    """Values of the k-th quarter (1..4) of the run's time span."""
    if not points:
        return []
    t0, t1 = points[0][0], points[-1][0]
    span = (t1 - t0) or 1.0
    lo, hi = t0 + span * (k - 1) / 4, t0 + span * k / 4
    return [v for t, v in points if lo <= t <= hi]


def memory_check(service: str, rss_bytes: Series, max_mib_per_hour: float) -> Check:
    """RSS flat: its slope over the second half at most `max_mib_per_hour`."""
    mib_h = slope(second_half(rss_bytes)) * 3600 / 2**20
    return Check(f"memory {service}", mib_h <= max_mib_per_hour,
                 f"{mib_h:+.1f} MiB/h (limit {max_mib_per_hour:g})")


def bounded_check(name: str, points: Series, tolerance: float, slack: float = 0.0) -> Check:
    """Bounded: the last quarter's maximum at most the second quarter's times (1+tolerance)
    plus `slack` (an absolute allowance, so a table near empty may wobble)."""
    q2, q4 = quarter(points, 2), quarter(points, 4)
    if not q2 or not q4:
        return Check(name, False, "too few samples to judge")
    m2, m4 = max(q2), max(q4)
    limit = m2 * (1 + tolerance) + slack
    return Check(name, m4 <= limit, f"max last quarter {m4:g} vs {limit:g} (2nd quarter {m2:g})")


def dead_slack_for(live: Series, dead_slack: float) -> float:
    """Dead tuples a churning table may hold between two autovacuums: its live rows of the
    second quarter (autovacuum starts at 50 + 20 % of them, and a keep-window purge deletes
    up to a table's worth at once), at least `dead_slack`. Growth past that is a pile-up."""
    q2 = quarter(live, 2)
    return max(dead_slack, max(q2) if q2 else 0.0)


def verdict(rss: dict[str, Series], sizes: dict[str, Series], dead: dict[str, Series], *,
            max_mib_per_hour: float, tolerance: float, size_slack: float,
            dead_slack: float, live: dict[str, Series] | None = None) -> list[Check]:
    """Every check of the run: memory per service, size and dead tuples per table."""
    live = live or {}
    out = [memory_check(s, pts, max_mib_per_hour) for s, pts in sorted(rss.items())]
    out += [bounded_check(f"size {t}", pts, tolerance, size_slack) for t, pts in sorted(sizes.items())]
    out += [bounded_check(f"dead tuples {t}", pts, tolerance, dead_slack_for(live.get(t, []), dead_slack))
            for t, pts in sorted(dead.items())]
    return out
