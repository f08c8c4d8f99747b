"""Propagation retries as Oracle Streams Advanced Queuing User's Guide and Reference 10g Release
2 (10.2), "Introducing Oracle Streams AQ" describes them: 30 s, 60 s, 120 s ...; a retry past
the window's end goes to the next window and stays window-aligned; the 16th failure disables."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pgaq.propagation.policy import MAX_FAILURES, after_failure, window_end

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_backoff_doubles_from_the_base() -> None:
    failures, now, delays = 0, T0, []
    for _ in range(5):
        r = after_failure(failures, now, None, None, False, 30.0)
        assert r.next_run is not None and not r.aligned and not r.disable
        delays.append((r.next_run - now).total_seconds())
        failures, now = r.failures, r.next_run
    assert delays == [30, 60, 120, 240, 480]


def test_a_retry_past_the_window_goes_to_the_next_window_and_stays_aligned() -> None:
    end, nxt = T0 + timedelta(seconds=100), T0 + timedelta(hours=1)
    r = after_failure(0, T0, end, nxt, False, 30.0)  # 30 s: inside the window
    assert r.next_run == T0 + timedelta(seconds=30) and not r.aligned
    r = after_failure(2, T0 + timedelta(seconds=90), end, nxt, False, 30.0)  # 120 s: past it
    assert r.next_run == nxt and r.aligned
    # aligned from then on, even when the backoff would fall inside the next window
    r2 = after_failure(r.failures, nxt, nxt + timedelta(hours=5), nxt + timedelta(hours=2), True, 30.0)
    assert r2.next_run == nxt + timedelta(hours=2) and r2.aligned


def test_with_no_window_ahead_a_retry_waits_for_the_window_to_close() -> None:
    # a 30 s window, no next_time, a 60 s base: the retry would fall after the window's end
    end = T0 + timedelta(seconds=30)
    r = after_failure(0, T0, end, None, False, 60)
    assert (r.failures, r.next_run, r.aligned, r.disable) == (1, end, True, False)
    # and the next failure (aligned from now on) does not come back at once either
    again = after_failure(1, T0 + timedelta(seconds=1), end, None, True, 60)
    assert again.next_run == end and not again.disable


def test_the_sixteenth_failure_disables() -> None:
    failures = 0
    for _ in range(MAX_FAILURES - 1):
        r = after_failure(failures, T0, None, None, False, 0.001)
        assert not r.disable
        failures = r.failures
    r = after_failure(failures, T0, None, None, False, 0.001)
    assert r.disable and r.failures == 16


def test_window_end() -> None:
    assert window_end(T0, None) is None
    assert window_end(T0, 90) == T0 + timedelta(seconds=90)
