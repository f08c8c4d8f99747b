"""The gateway's session store: bounded by evicting idle sessions, tokens naming their worker."""

from __future__ import annotations

import pytest
from pgaq.idap.sessions import SessionError, SessionStore


def store(**kw: object) -> SessionStore:
    return SessionStore(None, None, **kw)  # type: ignore[arg-type]  # no database needed here


def test_least_recently_used_idle_session_makes_room() -> None:
    s = store(max_sessions=3)
    a, b, c = (s.get(None, "A") for _ in range(3))
    assert s.get(a.token, "A") is a  # a used again: b is now the oldest
    d = s.get(None, "A")
    assert s.sessions == 3 and b.closed and not a.closed and not c.closed
    assert s.get(b.token, "A") is not b  # an evicted token starts afresh
    assert not d.closed


async def test_a_store_full_of_busy_sessions_refuses() -> None:
    s = store(max_sessions=2)
    busy = [s.get(None, "A") for _ in range(2)]
    for x in busy:
        await x.lock.acquire()
    with pytest.raises(SessionError) as err:
        s.get(None, "A")
    assert err.value.code == 25401


def test_tokens_name_their_worker_and_other_agents_are_refused() -> None:
    s = store(prefix="w1.")
    t = s.get(None, "A").token
    assert t.startswith("w1.") and SessionStore.owner_of(t) == "w1."
    assert SessionStore.owner_of("plain-token") == ""
    with pytest.raises(SessionError):
        s.get(t, "B")


def test_a_session_holding_nothing_is_not_kept() -> None:
    s = store()
    x = s.get(None, "A")
    assert not s.keep(x) and s.sessions == 0


def test_tokens_are_random_url_safe_and_not_shared_with_a_forked_child() -> None:
    import os
    import re

    from pgaq.idap.sessions import new_token

    tokens = [new_token() for _ in range(1000)]
    assert len(set(tokens)) == 1000
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{43}", t) for t in tokens)  # 258 bits, as long as token_urlsafe(32)
    new_token()  # the read-ahead buffer is filled now
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next token, to the parent
        os.close(read)
        os.write(write, new_token().encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        child = f.read().decode()
    os.waitpid(pid, 0)
    assert len(child) == 43 and child != new_token()


def test_a_token_of_another_process_is_told_its_transaction_is_gone_once() -> None:
    """A token another gateway process issued (a dead worker, a killed or restarted
    instance behind a load balancer) gets ORA-25402 once, with its cookie expired; then it
    starts a fresh session. Tokens of this process and forged ones behave as before."""
    from pgaq.idap.sessions import process_prefix

    dead, here = store(prefix=process_prefix("g")), store(prefix=process_prefix("g"))
    assert dead.prefix != here.prefix  # new at each start, even for the same role
    t = dead.get(None, "A").token
    with pytest.raises(SessionError) as err:
        here.get(t, "A")
    assert err.value.code == 25402 and err.value.drop and "nothing it did" in str(err.value)
    fresh = here.get(t, "A")  # told once: the next request works
    assert fresh.token != t and fresh.token.startswith(here.prefix)
    # a forged token (no gateway's shape) and an unknown one of this process start afresh
    assert here.get("w0.attacker-chosen", "A").token.startswith(here.prefix)
    assert here.get(here.prefix + "x" * 43, "A").token.startswith(here.prefix)


def test_peek_reads_a_session_without_using_it() -> None:
    s = store(max_sessions=2)
    a, b = s.get(None, "A"), s.get(None, "B")
    used = a.last_used
    assert s.peek(a.token) is a and a.last_used == used  # any agent may look; a stays oldest
    s.get(None, "C")  # makes room by evicting the least recently used: a, peeked or not
    assert a.closed and s.peek(a.token) is None and s.peek(b.token) is b
    assert s.peek("no-such-token") is None
