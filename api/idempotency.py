"""Idempotency-Key for creation calls: the first response is replayed for the same key and
body; another body with the key is a 422; a key whose first request is still running is a 409.

The first request holds the key for a lease (`LEASE`, longer than any request waits). If
its API process dies, the key is not left answering 409 for ever: a retry with the same body
after the lease takes the claim over and runs the request again (creation is idempotent by
itself: the quote's id follows from the key, api/quotes/service.py, a business partner's
from the key and the body, api/partners/controller.py). Each claim has a number (the row's
`generation`, one more at every take-over): a request that outlived its lease no longer
holds the key, so its completion or release changes nothing (fencing), and the key stays
with the request that took it over.

A key is kept for `RETENTION` (24 h) after its first request: then it is forgotten (a
request with it is a new request) and its row purged, by every API process at most every
`PURGE_EVERY` (`purge_expired`)."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid

from litestar import Response

from api.problems import Conflict, DomainError, InvalidInput
from models.clock import utcnow
from models.db.core import scoped_select
from models.db.tables import IdempotencyRecord

HEADER = "idempotency-key"
# How long a first request holds its key: longer than the longest a request waits (a new
# target's catalogue pricing, api/deps.py CATALOGUE_DEADLINE: 90 s).
LEASE = dt.timedelta(seconds=120)
# How long a key is kept (its replay, its 422 for another body); then forgotten and purged.
RETENTION = dt.timedelta(hours=24)
PURGE_EVERY = dt.timedelta(minutes=10)
_next_purge: dt.datetime | None = None
# Rows of creation keys (TransitionKey's TRANSITION rows are not forgotten: they name the
# update a retry must not repeat).
_CREATION = ("IN_FLIGHT", "DONE")


def check_key(key: str) -> None:
    if not 1 <= len(key) <= 200 or not key.isprintable():
        raise InvalidInput.of_field("Idempotency-Key", "must be 1 to 200 printable characters")


class KeyReused(DomainError):
    status, slug, title = 422, "idempotency-key-reused", "Idempotency-Key reused with another body"


class Idempotency:
    """`begin()` claims the key (or returns the replay); `complete()` stores the response;
    `release()` frees the key after a failure so the client can retry. Both act only while
    this request still holds the claim (`claim`: the row's generation it took)."""

    def __init__(self, tenant_id: str, key: str | None, canonical_body: bytes) -> None:
        if key is not None:
            check_key(key)
        self.key = key
        self.tenant = uuid.UUID(tenant_id)
        self.digest = hashlib.sha256(canonical_body).hexdigest()
        self.claim: int | None = None
        self._where = (IdempotencyRecord.tenant_id == self.tenant) & (IdempotencyRecord.key == key)

    async def begin(self) -> Response | None:
        if self.key is None:
            return None
        now = utcnow()
        await _purge_now_and_then(now)
        if await self._insert(now):
            return None
        record = await scoped_select(IdempotencyRecord, self.tenant).where(IdempotencyRecord.key == self.key).first()
        if record is not None and await self._forget_if_expired(record, now):
            if await self._insert(now):
                return None
            record = await scoped_select(IdempotencyRecord, self.tenant).where(IdempotencyRecord.key == self.key).first()
        if record is not None and record["request_sha256"] != self.digest:
            raise KeyReused("this Idempotency-Key was used with a different request body")
        if record is None or record["status"] != "DONE":
            if record is not None and await self._take_over(now):
                return None
            raise Conflict(
                "the first request with this Idempotency-Key is still in flight", headers={"Retry-After": "1"}
            )
        return Response(
            content=record["response_body"].encode(),
            status_code=record["response_status"],
            media_type="application/json",
            headers={"Idempotent-Replayed": "true"},
        )

    async def _insert(self, now: dt.datetime) -> bool:
        """The first claim of the key; False if it has a row (the unique (tenant, key)
        settles concurrent first requests)."""
        first = await IdempotencyRecord.insert(
            IdempotencyRecord(
                tenant_id=self.tenant, key=self.key, request_sha256=self.digest, status="IN_FLIGHT", created_at=now,
                lease_until=now + LEASE, generation=0,
            )
        ).on_conflict(action="DO NOTHING").returning(IdempotencyRecord.id)
        if first:
            self.claim = 0
        return bool(first)

    async def _forget_if_expired(self, record: dict, now: dt.datetime) -> bool:
        """Delete the key's row if it is past `RETENTION` (and not a request still under its
        lease); True if it was."""
        if record["status"] not in _CREATION or record["created_at"] >= now - RETENTION:
            return False
        gone = await IdempotencyRecord.delete().where((IdempotencyRecord.id == record["id"]) & _expired(now)).returning(
            IdempotencyRecord.id
        )
        return bool(gone)

    async def _take_over(self, now: dt.datetime) -> bool:
        """Claim a key whose first request's lease ran out (its process died); one of several
        retries at once wins (a conditional update). The claim's number goes up by one: the
        request it was taken from no longer holds it."""
        lapsed = IdempotencyRecord.lease_until.is_null() | (IdempotencyRecord.lease_until < now)
        taken = await IdempotencyRecord.update(
            {IdempotencyRecord.lease_until: now + LEASE, IdempotencyRecord.generation: IdempotencyRecord.generation + 1}
        ).where(self._where & (IdempotencyRecord.status == "IN_FLIGHT") & lapsed).returning(IdempotencyRecord.generation)
        if taken:
            self.claim = taken[0]["generation"]
        return bool(taken)

    def _held(self):
        """This request's claim, still its own."""
        return self._where & (IdempotencyRecord.status == "IN_FLIGHT") & (IdempotencyRecord.generation == self.claim)

    async def complete(self, status: int, body: bytes) -> None:
        if self.key is not None and self.claim is not None:
            await IdempotencyRecord.update(
                {
                    IdempotencyRecord.status: "DONE",
                    IdempotencyRecord.response_status: status,
                    IdempotencyRecord.response_body: body.decode(),
                }
            ).where(self._held())

    async def release(self) -> None:
        if self.key is not None and self.claim is not None:
            await IdempotencyRecord.delete().where(self._held())


def _expired(now: dt.datetime):
    """Creation keys first used more than `RETENTION` ago, not under a live lease."""
    return (
        IdempotencyRecord.status.is_in(list(_CREATION))
        & (IdempotencyRecord.created_at < now - RETENTION)
        & (IdempotencyRecord.lease_until.is_null() | (IdempotencyRecord.lease_until < now))
    )


async def purge_expired(now: dt.datetime | None = None) -> int:
    """Delete every tenant's expired creation keys; how many."""
    gone = await IdempotencyRecord.delete().where(_expired(now or utcnow())).returning(IdempotencyRecord.id)
    return len(gone)


async def _purge_now_and_then(now: dt.datetime) -> None:
    """`purge_expired` at most every `PURGE_EVERY` in this process (on a keyed request's way:
    one statement over the expired rows; a failure is the request's, as its own would be)."""
    global _next_purge
    if _next_purge is not None and now < _next_purge:
        return
    _next_purge = now + PURGE_EVERY
    await purge_expired(now)


class TransitionKey:
    """The Workflow Update id of a keyed transition (PATCH/DELETE of quotes and policies).

    `<operation>:<resource>:<key>:<generation>`: a retry with the same key reuses the update
    id, so Temporal answers it with the first call's outcome, also after a timeout (503)
    while the first update went on. A write that failed for good (WriteFailed: nothing was
    written) is the one outcome a retry should not get again: `failed()` moves the key to
    the next generation, so the next retry is a new update."""

    def __init__(self, tenant_id: str, operation: str, resource_id: uuid.UUID, key: str | None) -> None:
        if key is not None:
            check_key(key)
        self.key = None if key is None else f"{operation}:{resource_id}:{key}"
        self.tenant = uuid.UUID(tenant_id)
        self.generation = 0

    async def update_id(self) -> str | None:
        if self.key is None:
            return None
        record = await scoped_select(IdempotencyRecord, self.tenant, IdempotencyRecord.generation).where(
            IdempotencyRecord.key == self.key
        ).first()
        self.generation = record["generation"] if record else 0
        return f"{self.key}:{self.generation}"

    async def failed(self) -> None:
        """The update failed without writing: the key's next use is a new update."""
        if self.key is None:
            return
        where = (IdempotencyRecord.tenant_id == self.tenant) & (IdempotencyRecord.key == self.key)
        moved = await IdempotencyRecord.update({IdempotencyRecord.generation: self.generation + 1}).where(
            where & (IdempotencyRecord.generation == self.generation)
        ).returning(IdempotencyRecord.id)
        if moved or await IdempotencyRecord.exists().where(where):
            return
        # A concurrent retry may have recorded it first.
        await IdempotencyRecord.insert(
            IdempotencyRecord(
                tenant_id=self.tenant, key=self.key, request_sha256="", status="TRANSITION",
                generation=self.generation + 1, created_at=utcnow(),
            )
        ).on_conflict(action="DO NOTHING")
