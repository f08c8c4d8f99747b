"""The IDAP operations: one request document in, one response (or Fault) out.

Wiring (HTTP, authentication, cookies) lives in the gateway service; this module turns a
parsed request into engine calls made as the agent's database user, inside the HTTP
session's transaction unless the request asked for IMMEDIATE visibility.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import asyncpg
from lxml import etree

from .. import routes
from ..client import Agent, DequeueOptions, Message, MessageProperties, Session
from ..errors import ConnectionLost, InternalError, PgaqError, wrap_db_error
from ..queries import load, load_as_role
from . import response
from .batching import DequeueBatcher, EnqueueBatcher, log_lost
from .hooks import Hook, HookCall, NoHeaders, Stylesheet, run_hook, takes_call
from .payload import payload_to_xml, unresolved_reply_to, xml_to_payload
from .request import (
    NS_AQ,
    AgentRef,
    CommitRequest,
    Destination,
    MustUnderstandError,
    ReceiveRequest,
    RegisterRequest,
    Request,
    RequestError,
    RollbackRequest,
    SendRequest,
    parse_request,
)
from .schema import validate
from .sessions import CommitInDoubt, HttpSession, SessionError, SessionStore
from .typeinfo import Transformation, load_kind_info, load_transformation, load_type_info
from .xmlsafe import XmlError, parse

log = logging.getLogger("pgaq.gateway")

_SERVER_STATES = ("08", "53", "57", "58", "XX", "40")


class Fault(Exception):
    """A SOAP Fault to return: client (bad request) or server (our problem)."""

    def __init__(self, client: bool, message: str, code: int | str | None = None) -> None:
        super().__init__(message)
        self.client = client
        self.message = message
        self.code = code
        self.operation = "unknown"  # set once the request was read far enough to know it
        self.stylesheet: Stylesheet | None = None  # a hook's choice for this response
        self.faultcode: str | None = None  # SOAP's MustUnderstand, else Client or Server


# every fault carries an error_code: documents that cannot be read or do not follow the
# schemas get Oracle's XML numbers, anything unexpected ORA-00600
XML_PARSE_FAILED = 31011
INVALID_DOCUMENT = 31154
INTERNAL_ERROR = 600


def document_fault(message: str, code: int = INVALID_DOCUMENT) -> Fault:
    """A Client fault for a document the gateway cannot read or that breaks the schemas."""
    what = "XML parsing failed" if code == XML_PARSE_FAILED else "invalid XML document"
    return Fault(True, f"ORA-{code:05d}: {what}: {message}", code)


# Oracle's numbers for PostgreSQL errors that carry none (a value PostgreSQL refuses, a
# constraint): every fault has an error_code, the SQLSTATE class picks the closest one
_STATE_CODES = {
    "22001": 12899, "22003": 1438, "22007": 1861, "22008": 1861, "22P02": 1722, "22012": 1476,
    "23502": 1400, "23503": 2291, "23505": 1, "23514": 2290,
}
_CLASS_CODES = {"22": 1722, "23": 2290}


def _state_code(sqlstate: str | None, server: bool) -> int:
    if server:
        return INTERNAL_ERROR
    state = sqlstate or ""
    # ORA-00604 (error at recursive SQL level): a refusal by SQL the operation ran
    return _STATE_CODES.get(state) or _CLASS_CODES.get(state[:2]) or 604


# a lost connection: Oracle's servlet answers ORA-03113 (end-of-file on communication
# channel); what became of the session's work is said, so a client never takes a fault
# for a commit that happened, or a later success for work that was lost
_EOF = "ORA-03113: end-of-file on communication channel: the database connection was lost"
LOST_TRANSACTION = (f"{_EOF}; the session's transaction was rolled back (nothing it did since "
                    "its last commit was kept): run it again")
LOST_IN_COMMIT = (f"{_EOF} during the commit: whether the transaction was committed is "
                  "unknown")
LOST_RETRY = f"{_EOF}; the database is unavailable: retry later"


def to_fault(exc: BaseException, *, transaction: bool = False) -> Fault:
    """The fault for `exc`; `transaction`: the session held a transaction when it failed
    (a lost connection took it)."""
    if isinstance(exc, Fault):
        return exc
    if isinstance(exc, XmlError):
        return document_fault(str(exc), XML_PARSE_FAILED)
    if isinstance(exc, MustUnderstandError):
        fault = document_fault(str(exc))
        fault.faultcode = "MustUnderstand"
        return fault
    if isinstance(exc, RequestError) and exc.code is None:
        return document_fault(str(exc))
    if isinstance(exc, (RequestError, SessionError)):
        return Fault(True, str(exc), getattr(exc, "code", None))
    if isinstance(exc, InternalError):
        # a bug of ours (a connection used by code that does not own it, ...), never the
        # database's: the request fails alone, loudly
        log.error("internal error in an IDAP operation: %s", exc.message, exc_info=exc)
        return Fault(False, exc.message if exc.message.startswith("ORA-")
                     else f"ORA-00600: internal error: {exc.message}", INTERNAL_ERROR)
    if isinstance(exc, ConnectionLost):
        log.warning("the database connection failed: %s", exc.message)
        if isinstance(exc, CommitInDoubt):
            return Fault(False, LOST_IN_COMMIT, 3113)
        if transaction:
            return Fault(False, LOST_TRANSACTION, 3113)
        if exc.code is not None:  # the server refused a new session (ORA-00018, ...)
            return Fault(False, f"{exc.message}; retry later", exc.code)
        return Fault(False, LOST_RETRY, 3113)
    if isinstance(exc, PgaqError):
        server = bool(exc.sqlstate and exc.sqlstate.startswith(_SERVER_STATES))
        msg = exc.message.split("\nCONTEXT:")[0]
        code = exc.code
        if code is None and exc.sqlstate == "42501":
            code, msg = 1031, f"ORA-01031: insufficient privileges ({msg})"
        if code is None:
            code = _state_code(exc.sqlstate, server)
        return Fault(not server, msg, code)
    name = type(exc).__name__
    if name == "SchemaError":
        return document_fault(str(exc))
    log.error("unexpected error in an IDAP operation", exc_info=exc)
    return Fault(False, f"ORA-00600: internal error: {name}: {exc}", INTERNAL_ERROR)


@dataclass
class QueueMeta:
    queue_id: int
    name: str
    multiple_consumers: bool
    payload_kind: str
    payload_type: str
    queue_type: str
    role: str | None


@dataclass
class GatewaySettings:
    max_wait: float = 300.0
    metadata_ttl: float = 2.0
    stylesheet: str | None = None
    hooks: Sequence[Hook] = field(default_factory=tuple)
    max_depth: int = 64  # element nesting a request may have


class Gateway:
    def __init__(
        self,
        pool: asyncpg.Pool,
        store: SessionStore,
        *,
        schema: Any = None,
        settings: GatewaySettings | None = None,
        on_wait: Callable[[int], None] | None = None,
        batcher: EnqueueBatcher | None = None,
        receiver: DequeueBatcher | None = None,
    ) -> None:
        self.pool = pool
        self.batcher = batcher
        self.receiver = receiver
        self.store = store
        self.schema = schema
        self.settings = settings or GatewaySettings()
        self._meta: dict[tuple[str, str, str, str], tuple[float, QueueMeta]] = {}
        self._types: dict[str, Any] = {}
        self._on_wait = on_wait or (lambda _d: None)
        self._hook_list = [(h, takes_call(h)) for h in self.settings.hooks]

    @property
    def has_hooks(self) -> bool:
        return bool(self._hook_list)

    # -- entry point --------------------------------------------------------------------
    async def handle(self, s: HttpSession, document: bytes,
                     call: HookCall | None = None, soap_method: str | None = None,
                     soap_action: str | None = None) -> tuple[str, bytes]:
        """(operation, response bytes); raises Fault for a SOAP Fault. `call` is what the
        hooks see of the request (hooks.py); the session carries it while it runs."""
        operation = "unknown"
        if call is None and self._hook_list:  # a caller without HTTP: hooks still get a call
            call = HookCall(NoHeaders(), document, max_depth=self.settings.max_depth)
        s.call = call
        held = s.lease is not None  # a transaction from earlier requests (a commit ends it)
        try:
            env = parse(document, max_depth=self.settings.max_depth)
            if self.schema is not None:
                validate(env, self.schema)
            req = parse_request(env, soap_method, soap_action)  # HTTP headers checked too
            operation = req.operation
            out = await self._dispatch(s, req)
            if isinstance(out, bytes):
                return req.operation, out
            return req.operation, response.serialize(out, self._sheet(s))
        except Fault as fault:
            fault.operation = operation
            fault.stylesheet = call.stylesheet if call is not None else None
            raise
        except Exception as exc:
            failure: BaseException = exc
            if isinstance(exc, (asyncpg.PostgresError, OSError, asyncpg.InterfaceError)):
                failure = wrap_db_error(exc)
            else:
                log.debug("operation %s failed: %r", operation, exc)
            out_fault = to_fault(failure, transaction=held or s.lease is not None)
            if isinstance(failure, (ConnectionLost, InternalError)):
                # the session's connection is gone or its state is suspect: end its
                # transaction (if any) so the next request starts afresh
                await self.store.abort(s)
            out_fault.operation = operation
            out_fault.stylesheet = call.stylesheet if call is not None else None
            raise out_fault from exc
        finally:
            s.call = None

    def _sheet(self, s: HttpSession) -> response.Sheet:
        """The response's stylesheet: a hook's for this request, else the servlet's."""
        call = s.call
        if call is not None and call.stylesheet is not None:
            return call.stylesheet
        return self.settings.stylesheet

    def fault_bytes(self, fault: Fault) -> bytes:
        return response.serialize(response.fault(fault.client, fault.message, fault.code,
                                                 fault.faultcode),
                                  fault.stylesheet or self.settings.stylesheet)

    async def _dispatch(self, s: HttpSession, req: Request) -> etree._Element | bytes:
        if isinstance(req, SendRequest):
            return await self._send(s, req)
        if isinstance(req, ReceiveRequest):
            return await self._receive(s, req)
        if isinstance(req, RegisterRequest):
            return await self._register(s, req)
        if isinstance(req, CommitRequest):
            await self._end(s, commit=True)
            return response.status_bytes("AQXmlCommit", self._sheet(s))
        assert isinstance(req, RollbackRequest)
        await self._end(s, commit=False)
        return response.status_bytes("AQXmlRollback", self._sheet(s))

    # -- metadata -----------------------------------------------------------------------
    async def _queue(self, agent: str, dest: Destination, priv: str) -> QueueMeta:
        key = (agent, dest.name, dest.lookup_type, priv)
        now = time.monotonic()
        hit = self._meta.get(key)
        if hit and hit[0] > now:
            return hit[1]
        async with self.pool.acquire() as c:
            name = dest.name
            if dest.lookup_type == "DATABASE" and "." not in name and '"' not in name:
                # an unqualified name means the schema of the agent's database user
                role = await c.fetchval(load("idap_any_role"), agent)
                if role:
                    name = f'"{role}".{name}'
            row = await c.fetchrow(load("idap_resolve"), name, dest.lookup_type, agent, priv)
        assert row is not None
        meta = QueueMeta(
            queue_id=row["queue_id"],
            name=f'{row["schema_name"]}.{row["queue_name"]}',
            multiple_consumers=row["multiple_consumers"],
            payload_kind=row["payload_kind"],
            payload_type=row["payload_type"],
            queue_type=row["queue_type"],
            role=row["role"],
        )
        if len(self._meta) > 10_000:
            self._meta.clear()
        self._meta[key] = (now + self.settings.metadata_ttl, meta)
        return meta

    async def _type_info(self, meta: QueueMeta) -> Any:
        if meta.payload_kind != "OBJECT":
            return None

        async with self.pool.acquire() as c:
            return await load_type_info(c, meta.payload_type)

    async def _transformation(self, role: str, meta: QueueMeta, name: str | None, *,
                              enqueue: bool, consumer: str | None = None
                              ) -> tuple[Transformation, Any] | None:
        """The transformation a request names (or its consumer's subscription carries) and
        the shape of the type the gateway sees: the source type of an enqueue's payload,
        the target type of a dequeued one. None when there is no transformation."""
        async with self.pool.acquire() as c:
            tr = await load_transformation(c, name, meta.queue_id, enqueue=enqueue, role=role,
                                           consumer=consumer)
            if tr is None:
                return None
            if enqueue:
                return tr, await load_kind_info(c, tr.from_kind, tr.from_type)
            return tr, await load_kind_info(c, tr.to_kind, tr.to_type)

    async def _agent_ref(self, ref: AgentRef | None) -> Agent | None:
        if ref is None:
            return None
        if ref.alias:
            async with self.pool.acquire() as c:
                row = await c.fetchrow(load("idap_agent_alias"), ref.alias)
            assert row is not None
            return Agent(row["name"], row["address"], row["protocol"] or 0)
        if ref.name is None and ref.address is None:
            return None
        return Agent(ref.name, ref.address, ref.protocol)

    def _check_role(self, s: HttpSession, meta: QueueMeta, priv: str) -> str:
        if meta.role is None:
            raise Fault(True, f"ORA-01031: insufficient privileges: agent {s.agent} may not "
                              f"{priv.lower()} on {meta.name}", 1031)
        return meta.role

    async def _engine(self, s: HttpSession, transactional: bool, role: str) -> Session:
        engine = await self.store.engine_for(s, transactional=transactional, role=role)
        engine.role = role
        if engine.in_transaction and s.role != role:
            assert s.conn is not None
            await s.conn.execute(load("engine_set_role"), role)
            s.role = role
        return engine

    def _visibility(self, s: HttpSession, visibility: str, commit: bool) -> str:
        """A request that commits and has no transaction to join is its own transaction:
        run it as IMMEDIATE (one autocommit statement) rather than BEGIN, SET ROLE, the
        operation and COMMIT. Hooks need the transaction, so they keep the long way."""
        if (commit and visibility == "ON_COMMIT" and not s.in_transaction
                and not self.has_hooks):
            return "IMMEDIATE"
        return visibility

    async def _hooks(self, phase: str, operation: str, s: HttpSession) -> None:
        """Run the hooks on the session's connection (None outside a transaction). A hook
        that fails before the outcome is final rolls the transaction back and fails the
        request (a Server fault): nothing half-done is kept."""
        for hook, wants_call in self._hook_list:
            try:
                await run_hook(hook, wants_call, phase, operation, s.agent,
                               s.conn if s.in_transaction else None, s.call)
            except Exception as exc:
                name = getattr(hook, "__qualname__", repr(hook))
                log.exception("%s hook %s failed for %s of %s", phase, name, operation, s.agent)
                await self.store.finish(s, commit=False)
                raise Fault(False, f"ORA-00600: the {phase} hook {name} failed for {operation}; "
                                   "the transaction was rolled back", INTERNAL_ERROR) from exc

    async def _end(self, s: HttpSession, *, commit: bool) -> None:
        """AQXmlCommit or AQXmlRollback, asked for or piggybacked, with its hooks: `before`
        inside the transaction, `after` once it has ended (no connection: the outcome is
        final, so a failing after hook is logged and the request still succeeds)."""
        operation = "AQXmlCommit" if commit else "AQXmlRollback"
        await self._hooks("before", operation, s)
        await self.store.finish(s, commit=commit)
        for hook, wants_call in self._hook_list:
            try:
                await run_hook(hook, wants_call, "after", operation, s.agent, None, s.call)
            except Exception:
                log.exception("after hook %s failed for %s of %s (the %s stands)",
                              getattr(hook, "__qualname__", repr(hook)), operation, s.agent,
                              "commit" if commit else "rollback")

    # -- operations ---------------------------------------------------------------------
    async def _send(self, s: HttpSession, req: SendRequest) -> bytes:
        meta = await self._queue(s.agent, req.destination, "ENQUEUE")
        if req.operation == "AQXmlSend" and meta.multiple_consumers:
            raise Fault(True, f"ORA-24039: AQXmlSend is for single-consumer queues; "
                              f"{meta.name} is multi-consumer: use AQXmlPublish", 24039)
        if req.operation == "AQXmlPublish" and not meta.multiple_consumers:
            raise Fault(True, f"ORA-24039: AQXmlPublish is for multi-consumer queues; "
                              f"{meta.name} is single-consumer: use AQXmlSend", 24039)
        role = self._check_role(s, meta, "ENQUEUE")
        # with a transformation the payload is in its source type (the engine applies it
        # and stores the queue's type): read and checked as that type
        kind, taker = meta.payload_kind, "the queue"
        if req.propagation is not None and req.transformation is not None:
            # a propagator's batch is stored as sent (the source applied any subscriber's
            # transformation before propagating): one naming another would be ignored
            raise Fault(True, "ORA-25200: invalid value, TRANSFORMATION should be NULL in a "
                              "propagated batch", 25200)
        tr = (None if req.transformation is None else
              await self._transformation(role, meta, req.transformation, enqueue=True))
        if tr is not None:
            kind, info, taker = tr[0].from_kind, tr[1], f"transformation {tr[0].name.upper()}"
        else:
            info = await self._type_info(meta)
        batch: list[tuple[Any, MessageProperties]] = []
        for i, m in enumerate(req.messages, start=1):
            if m.payload is None:
                raise Fault(True, f"message {i} has no message_payload", 25215)
            payload = xml_to_payload(kind, m.payload, info, taker)
            alias = unresolved_reply_to(payload) if kind.startswith("JMS") else None
            if alias is not None:
                # resolved as Oracle resolves it through LDAP: the directory's agent
                agent = await self._agent_ref(AgentRef(alias=alias))
                assert agent is not None and isinstance(payload, dict)
                payload["header"]["replyto"] = {"name": agent.name, "address": agent.address,
                                                "protocol": agent.protocol or 0}
            recipients = None
            if m.recipients:
                recipients = [a for a in [await self._agent_ref(r) for r in m.recipients] if a]
            batch.append((payload, MessageProperties(
                priority=m.priority if m.priority is not None else 1,
                delay=m.delay or 0,
                expiration=None if m.expiration in (None, -1) else m.expiration,
                correlation=m.correlation,
                sender_id=None if m.sender is None else await self._agent_ref(m.sender),
                recipient_list=recipients,
                exception_queue=m.exception_queue,
            )))
        visibility = self._visibility(s, req.visibility, req.commit)
        if req.propagation is not None:
            await self._receive_propagated(s, meta, role, req, batch, visibility)
            return response.send_bytes(req.operation, req.destination.name, [],
                                       self._sheet(s))
        if visibility == "IMMEDIATE" and self.batcher is not None and not self.has_hooks:
            # a transaction of its own: written together with concurrent ones (batching.py)
            ids = await self.batcher.enqueue(role, s.agent, meta.name, batch, req.transformation)
        else:
            engine = await self._engine(s, visibility == "ON_COMMIT", role)
            await self._hooks("before", req.operation, s)
            ids = await engine.enqueue_array(meta.name, batch, visibility=visibility,
                                             transformation=req.transformation)
            await self._hooks("after", req.operation, s)
        if req.commit:
            await self._end(s, commit=True)
        return response.send_bytes(req.operation, req.destination.name, ids,
                                   self._sheet(s))

    async def _receive_propagated(self, s: HttpSession, meta: QueueMeta, role: str, req: SendRequest,
                                  batch: list[tuple[Any, MessageProperties]], visibility: str) -> None:
        """A propagator's batch: each source message is enqueued once per schedule (the
        destination's record of what it received drops second copies)."""
        assert req.propagation is not None
        key, src = req.propagation
        props = json.dumps([{**p.to_json(), "original_msgid": sid.hex().upper()}
                            for (_, p), sid in zip(batch, src, strict=True)])
        raw = [m for m, _ in batch] if all(isinstance(m, bytes) for m, _ in batch) else None
        objs = None if raw is not None else json.dumps([m for m, _ in batch], default=str)
        args = (key, meta.name, src, props, objs, raw, s.agent)
        if visibility == "IMMEDIATE":
            async with self.pool.acquire() as c:
                await c.fetchval(load_as_role("idap_receive_propagated"), *args, role)
            return
        await self._engine(s, True, role)
        assert s.conn is not None
        async with s.conn.transaction():
            await s.conn.fetchval(load("idap_receive_propagated"), *args)
        if req.commit:
            await self._end(s, commit=True)

    async def _receive(self, s: HttpSession, req: ReceiveRequest) -> etree._Element:
        meta = await self._queue(s.agent, req.destination, "DEQUEUE")
        role = self._check_role(s, meta, "DEQUEUE")
        # a transformation named here is resolved (and checked) before any message is taken
        tr = (None if req.transformation is None else
              await self._transformation(role, meta, req.transformation, enqueue=False))
        wait: float | None
        if req.wait_time is None or req.wait_time < 0:
            wait = None
        else:
            wait = float(req.wait_time)
        opts = DequeueOptions(
            consumer_name=req.consumer_name,
            dequeue_mode=req.dequeue_mode,
            navigation=req.navigation_mode,
            visibility=self._visibility(s, req.visibility, req.commit),
            wait=wait,
            msgid=req.message_id,
            correlation=req.correlation,
            condition=req.condition,
            batch_size=req.batch_size,
            transformation=req.transformation,
        )
        exc_queue = meta.queue_type == "EXCEPTION_QUEUE"
        if (tr is None and meta.multiple_consumers and not exc_queue
                and req.dequeue_mode != "REMOVE_NODATA"):
            # without one of the request's, the engine applies the subscriber's, if it has
            # one: looked up before any message is taken, so a failing lookup loses nothing
            tr = await self._transformation(role, meta, None, enqueue=False,
                                            consumer=req.consumer_name)
        kind, info = (tr[0].to_kind, tr[1]) if tr is not None else (
            meta.payload_kind, await self._type_info(meta))
        engine = await self._engine(s, opts.visibility == "ON_COMMIT", role)
        await self._hooks("before", "AQXmlReceive", s)
        waiting = wait is None or wait > 0
        messages: list[Message] = []
        # what may be batched is the routes' rule (routes.batchable); the gateway adds only
        # what is its own: a receiver to batch with, no hooks (they run around this
        # session's own call, in its transaction), and no saved position this session
        # continues from (the batch starts at the first message)
        batched = (self.receiver is not None and not self.has_hooks and routes.batchable(opts)
                   and not (engine.has_positions
                            and engine.continues_from(meta.name, opts.consumer_name, opts)))
        removing = req.dequeue_mode in ("REMOVE", "REMOVE_NODATA")
        try:
            if batched:
                # its own transaction: taken together with concurrent ones (batching.py)
                assert self.receiver is not None
                messages = await self.receiver.dequeue(
                    role, s.agent, meta.name, opts.consumer_name, opts.dequeue_mode.upper(),
                    max(1, opts.batch_size))
                await engine.remember(meta.name, opts, messages)  # NEXT_MESSAGE goes on after them
            if not messages and (waiting or not batched):
                if waiting:
                    self._on_wait(1)
                try:
                    messages = await engine.dequeue(meta.name, opts)
                finally:
                    if waiting:
                        self._on_wait(-1)
            await self._hooks("after", "AQXmlReceive", s)
            if req.commit:
                await self._end(s, commit=True)
        except asyncio.CancelledError:
            if messages and removing and opts.visibility == "IMMEDIATE":
                # committed, and the client went away before its answer: the window any
                # request and response has (docs/gateway.md, "A client that goes away")
                log_lost(meta.name, messages)
            raise

        def state(m: Message) -> int:
            if removing:
                return 3 if exc_queue else 0
            return {"READY": 0, "WAIT": 1, "PROCESSED": 2}.get(m.state, 3)

        received = datetime.now(UTC).date()

        def payload(m: Message, parent: etree._Element) -> None:
            times = (m.enqueue_time.date(), received) if m.enqueue_time is not None else None
            payload_to_xml(kind, m.payload, info, parent, NS_AQ, times)

        return response.receive_response(
            req.destination.name, messages,
            None if req.dequeue_mode == "REMOVE_NODATA" else payload,
            [state(m) for m in messages],
            meta.name.partition(".")[0],  # the exception queues' schema (response.message_set)
        )

    async def _register(self, s: HttpSession, req: RegisterRequest) -> etree._Element:
        meta = await self._queue(s.agent, req.destination, "DEQUEUE")
        role = self._check_role(s, meta, "DEQUEUE")
        await self._engine(s, True, role)
        assert s.conn is not None
        await self._hooks("before", "AQXmlRegister", s)
        async with s.conn.transaction():  # a savepoint: a refused registration keeps the session
            await s.conn.fetchval(load("idap_register"), meta.name, req.consumer_name,
                                  req.notify_url, s.agent, "DATABASE")
        await self._hooks("after", "AQXmlRegister", s)
        if req.commit:
            await self._end(s, commit=True)
        return response.status_bytes("AQXmlRegister", self._sheet(s))
