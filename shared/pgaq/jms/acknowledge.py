"""The four acknowledge modes, one class each: how a receive or a message listener takes a
message in that mode, and what settles it (a listener's return, `acknowledge()`, a receive
about to wait, the session's close).

The `Session` keeps the state these read (its engine session, the ids the open transaction
took, the messages prefetched) and the operations the modes share: `Session.take` and
`_dequeue` look for a message, `commit`, `rollback` and `recover` end a transaction.
`Session.ack` is the session's mode. The class attributes (`receive_in_transaction`,
`batches`) are read on every look, so that asking the mode costs no call there; the
methods run where the session did something mode-specific anyway.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, ClassVar

from ..errors import ConnectionLost, PgaqError
from . import errors as jerr
from ._support import (
    AUTO_ACKNOWLEDGE,
    CLIENT_ACKNOWLEDGE,
    CONNECTION_UNAVAILABLE,
    DUPS_OK_ACKNOWLEDGE,
    SESSION_TRANSACTED,
    as_jms,
    make,
)

if TYPE_CHECKING:
    from .session import Session

__all__ = ["AckMode", "AutoAcknowledge", "ClientAcknowledge", "DupsOk", "Transacted", "for_mode"]

log = logging.getLogger("pgaq.jms")


class AckMode:
    """What an acknowledge mode decides; by default the application settles (a transacted
    or CLIENT_ACKNOWLEDGE session) and a close rolls back what is open."""

    code: ClassVar[int]
    # a receive's look runs in the session's transaction; a listener's always does, so that
    # a listener that raises gets its message again
    receive_in_transaction: ClassVar[bool] = True
    # a look takes a batch, handed out one by one and committed later (DUPS_OK)
    batches: ClassVar[bool] = False
    # a receive's look at persistent messages runs in a transaction of its own, committed
    # before the receive returns (AUTO_ACKNOWLEDGE; `Session.take`)
    settles_receive: ClassVar[bool] = False

    def __init__(self, session: Session) -> None:
        self.session = session

    async def settle(self, ok: bool, *, look_next: bool = True) -> None:
        """After a message listener returned (`ok`) or raised; `look_next`: the listener's
        loop looks for the next message at once (else it waits for its turn first)."""

    async def handed_out(self) -> None:
        """After a look handed a message out (called only when `batches`)."""

    async def idle(self) -> None:
        """A receive is about to wait, or a listener found nothing."""

    async def acknowledge(self) -> None:
        """Message.acknowledge() / Session.acknowledge(): nothing outside CLIENT_ACKNOWLEDGE."""

    def closing(self) -> None:
        """The session is closing: stop what the mode runs in the background."""

    def commits_on_close(self) -> bool:
        """Whether close() commits the open transaction (else it rolls it back)."""
        return False


class Transacted(AckMode):
    """SESSION_TRANSACTED: every look runs in the session's transaction, a REMOVE each, or,
    once the session's last transaction took several, up to `transacted_prefetch` messages
    LOCKED by one look (`Session._lock_ahead`) and removed together at the commit. The
    application settles: `Session.commit()` commits with the session's sends,
    `Session.rollback()` rolls back (a failed attempt for AQ); a listener's return settles
    nothing; close() rolls back."""

    code = SESSION_TRANSACTED


class AutoAcknowledge(AckMode):
    """AUTO_ACKNOWLEDGE, at least once for PERSISTENT messages. A receive REMOVEs in a
    transaction and commits it before it returns (`Session.take`): the message is in hand
    before the COMMIT, so a connection lost during the COMMIT (its outcome unknown: a
    failover) still returns it, and if the server did not commit it comes again, flagged
    JMSRedelivered, the one duplicate JMS 1.1 allows this mode (4.4.13); a REMOVE that
    failed took nothing. An autocommit REMOVE would have committed before its rows reached
    the client, and a connection lost in between lost the message. A NON_PERSISTENT one is
    removed in autocommit: at most once (JMS 1.1 4.7), as before. A listener's look REMOVEs
    in a transaction that `settle` commits when the listener returns and rolls back (a
    failed attempt) when it raises."""

    code = AUTO_ACKNOWLEDGE
    receive_in_transaction = False
    settles_receive = True

    async def settle(self, ok: bool, *, look_next: bool = True) -> None:
        s = self.session
        if s._closed:
            return
        async with s.using() as eng:
            try:
                if ok:
                    # a next look that follows at once has its BEGIN ride on the COMMIT; a
                    # listener that waits first holds no transaction open meanwhile
                    await eng.commit(begin_next=look_next and s._connection.started.is_set())
                else:
                    await eng.rollback()
            except PgaqError:
                # the transaction ended without a commit (a lost connection: perhaps with
                # one): its messages come again, flagged JMSRedelivered; `using` reports it
                s._connection.maybe_delivered.update(s._taken_ids)
                raise
            finally:
                s._taken_ids.clear()
                s._work = False


class ClientAcknowledge(AckMode):
    """CLIENT_ACKNOWLEDGE: every look REMOVEs in the session's transaction; `acknowledge`
    commits it (everything the session consumed), `Session.recover()` rolls it back; a
    listener's return settles nothing; close() rolls back (the messages come again)."""

    code = CLIENT_ACKNOWLEDGE

    async def acknowledge(self) -> None:
        s = self.session
        async with s._lock:
            if s._tx_lost:
                await s.rollback_locked()
                raise make(jerr.JMSException, CONNECTION_UNAVAILABLE, "the messages were not "
                           "acknowledged: the database connection was lost (they come again)")
            eng = s._engine
            if eng is None or not eng.in_transaction:
                return
            try:
                await eng.commit()
            except ConnectionLost as exc:
                await s._lost(exc)
                s._tx_lost = False
                raise as_jms(exc) from exc
            except PgaqError as exc:
                raise as_jms(exc) from exc
            finally:
                s._taken_ids.clear()
                s._work = False
                await s._park()
        await s._remove_subscribers()


class DupsOk(AckMode):
    """DUPS_OK_ACKNOWLEDGE: a look REMOVEs `dups_ok_batch` messages in a transaction
    (`Session._dequeue`) and the session hands them out one by one. Once all are handed out
    they are committed: by the next batch's look (its BEGIN rides on the COMMIT), by `idle`
    before a receive waits, or `dups_ok_delay` seconds later (`handed_out`). A listener that
    raises rolls the batch back; close() commits unless some of the batch is still to be
    handed out; a crash redelivers the batch: the duplicates DUPS_OK allows."""

    code = DUPS_OK_ACKNOWLEDGE
    batches = True

    def __init__(self, session: Session) -> None:
        super().__init__(session)
        self._flush: asyncio.Task[None] | None = None

    async def settle(self, ok: bool, *, look_next: bool = True) -> None:
        s = self.session
        if s._closed:
            return
        if ok:
            await self.handed_out()
            return
        async with s.using() as eng:
            s._prefetched.clear()  # rolled back with the rest of the batch
            await eng.rollback()
            s._taken_ids.clear()
            s._work = False

    async def handed_out(self) -> None:
        s = self.session
        if s._consumed and (self._flush is None or self._flush.done()):
            self._flush = s._connection.spawn("dups-ok-flush", self._flush_later())

    async def _flush_later(self) -> None:
        s = self.session
        await asyncio.sleep(s.connection.factory.dups_ok_delay)
        if not s.closed:
            try:
                await self.idle()
            except jerr.JMSException as exc:
                log.warning("DUPS_OK commit failed (the messages will be redelivered): %s", exc)

    async def idle(self) -> None:
        """Commit what was handed out, unless some of the batch is still to be handed out."""
        s = self.session
        if s._consumed and not s._closed and not any(s._prefetched.values()):
            async with s.using() as eng:
                if not any(s._prefetched.values()):
                    await s._commit_consumed(eng)

    def closing(self) -> None:
        if self._flush is not None and not self._flush.done():
            self._flush.cancel()

    def commits_on_close(self) -> bool:
        return not any(self.session._prefetched.values())


_MODES: dict[int, type[AckMode]] = {m.code: m for m in (Transacted, AutoAcknowledge,
                                                       ClientAcknowledge, DupsOk)}


def for_mode(session: Session, acknowledge_mode: int) -> AckMode:
    """The mode object of a session whose mode (SESSION_TRANSACTED included) is valid."""
    return _MODES[acknowledge_mode](session)
