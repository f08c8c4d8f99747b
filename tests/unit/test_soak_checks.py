"""The soak's verdict: a leak, a growing table and piling dead tuples are caught; flat
and sawtooth series (autovacuum, retention purges) pass."""

from __future__ import annotations

from soak.checks import bounded_check, dead_slack_for, memory_check, quarter, second_half, slope, verdict

MiB = 2**20


def line(a: float, b: float, n: int = 61, dt: float = 60.0) -> list[tuple[float, float]]:
    return [(i * dt, a + b * i * dt) for i in range(n)]


def test_slope_of_a_line_is_exact() -> None:
    assert abs(slope(line(5, 0.25)) - 0.25) < 1e-12
    assert slope([(0, 1.0)]) == 0.0
    assert slope([(3, 1.0), (3, 2.0)]) == 0.0


def test_second_half_drops_the_warm_up() -> None:
    pts = [(0, 100.0), (10, 200.0), (20, 200.0), (30, 200.0), (40, 200.0)]
    assert second_half(pts) == [(20, 200.0), (30, 200.0), (40, 200.0)]
    # a steep warm-up followed by a plateau is flat
    assert memory_check("gw", [(0, 0.0), (900, 50 * MiB)] + [(t, 50.0 * MiB) for t in range(1800, 3601, 60)],
                        5).ok


def test_memory_leak_fails_and_flat_passes() -> None:
    leak = line(80 * MiB, 20 * MiB / 3600)  # 20 MiB per hour
    c = memory_check("notifier", leak, 5)
    assert not c.ok and "+20.0 MiB/h" in c.detail
    assert memory_check("notifier", line(80 * MiB, 0), 5).ok


def test_quarters_split_by_time() -> None:
    pts = [(float(t), float(t)) for t in range(0, 101, 10)]
    assert quarter(pts, 2) == [30.0, 40.0, 50.0]
    assert quarter(pts, 4) == [80.0, 90.0, 100.0]


def test_sawtooth_is_bounded_growth_is_not() -> None:
    saw = [(float(t), float(1000 + (t % 300) * 10)) for t in range(0, 3600, 30)]
    assert bounded_check("size t", saw, 0.1).ok
    grow = line(1000, 1)
    c = bounded_check("size t", grow, 0.1)
    assert not c.ok and "max last quarter" in c.detail


def test_slack_lets_a_near_empty_table_wobble() -> None:
    pts = [(0.0, 0.0), (1000.0, 0.0), (2000.0, 0.0), (3000.0, 40.0), (3600.0, 0.0)]
    assert not bounded_check("dead tuples t", pts, 0.2).ok
    assert bounded_check("dead tuples t", pts, 0.2, slack=100).ok


def test_too_few_samples_is_a_failure_not_a_pass() -> None:
    assert not bounded_check("size t", [], 0.1).ok


def test_verdict_lists_every_check_and_fails_on_any() -> None:
    checks = verdict({"gateway": line(MiB, 0)}, {"chaos.inq_t": line(1e5, 0)},
                     {"chaos.inq_t": line(0, 10)}, max_mib_per_hour=5, tolerance=0.2,
                     size_slack=0, dead_slack=0)
    assert [c.name for c in checks] == ["memory gateway", "size chaos.inq_t", "dead tuples chaos.inq_t"]
    assert [c.ok for c in checks] == [True, True, False]


def test_dead_tuples_may_reach_a_purge_of_the_live_rows_but_not_pile_up() -> None:
    # a keep-window purge leaves ~1,200 dead rows between autovacuums of a ~1,700-row table
    live = {"dst:aq.propagated": [(float(t), 1700.0) for t in range(0, 3600, 30)]}
    step = [(float(t), 0.0 if t < 2200 else 1200.0) for t in range(0, 3600, 30)]
    kw = dict(max_mib_per_hour=5, tolerance=0.25, size_slack=0, dead_slack=1000)
    [ok] = verdict({}, {}, {"dst:aq.propagated": step}, live=live, **kw)  # type: ignore[arg-type]
    assert ok.ok and "vs 1700" in ok.detail
    [bad] = verdict({}, {}, {"dst:aq.propagated": line(0, 2)}, live=live, **kw)  # type: ignore[arg-type]
    assert not bad.ok
    [alone] = verdict({}, {}, {"dst:aq.propagated": step}, **kw)  # type: ignore[arg-type]
    assert not alone.ok  # without its live rows the table gets only the fixed slack
    assert dead_slack_for([], 1000) == 1000
