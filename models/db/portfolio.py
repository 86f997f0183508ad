"""The in-force book as the portfolio run reads it, its hash, and the results as computed
(table `portfolio_result`; docs/portfolio.md).

The book of a scope (every tenant: `all`; one tenant: its id) is its policies in force
(ACCEPTED or ACTIVE) and, of those, the line items whose risk period has not ended by the day
`as_of`. Its hash is sha256 over the day and the sorted `policy id:status` of those policies:
a policy bound, cancelled, expired or moved on changes it, and so does a new day (line items
leave the book as their periods end), so the API starts a new run when the book changed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
from dataclasses import dataclass

from decimal import Decimal

import msgspec

from models.clock import utcnow
from models.db.core import write_transaction
from models.db.tables import LineItem, MonitoringTarget, Policy, PortfolioPaths, PortfolioResult, Quote
from models.domain.quotes import CoverSnapshot
from models.domain.statuses import PolicyStatus
from models.domain.terms import SiteRef

IN_FORCE = (PolicyStatus.ACCEPTED, PolicyStatus.ACTIVE)
ALL = "all"
CHUNK = 500


def scope_of(tenant_id: uuid.UUID | str | None) -> str:
    return ALL if tenant_id is None else str(tenant_id)


def _in_force(tenant_id: uuid.UUID | str | None):
    query = Policy.select(Policy.id, Policy.status, Policy.quote_id, Policy.currency, Policy.tenant_id).where(
        Policy.status.is_in([str(s) for s in IN_FORCE])
    )
    if tenant_id is not None:
        query = query.where(Policy.tenant_id == (tenant_id if isinstance(tenant_id, uuid.UUID) else uuid.UUID(str(tenant_id))))
    return query


def hash_of(policies: list[dict], as_of: dt.date) -> str:
    h = hashlib.sha256(f"as-of:{as_of.isoformat()}\n".encode())
    for key in sorted(f"{p['id']}:{p['status']}" for p in policies):
        h.update(key.encode() + b"\n")
    return h.hexdigest()


async def book_hash(tenant_id: uuid.UUID | str | None, as_of: dt.date) -> str:
    """The hash of the scope's book as it is now (module docstring): one indexed select."""
    return hash_of(await _in_force(tenant_id), as_of)


class BookLine(msgspec.Struct, frozen=True):
    """An in-force line item as the portfolio reads it. Line items holding the same covers
    (the same catalogue coverages, snapshots alike) share one `covers` tuple object."""

    policy_id: uuid.UUID
    period_start: dt.date
    period_end: dt.date
    quantity: Decimal
    sum_insured_minor: int  # the cap: settlement caps the line item's payouts at it
    premium_minor: int
    covers: tuple[CoverSnapshot, ...]


@dataclass(frozen=True, repr=False)
class BookRows:
    """The scope's in-force book: its line items by monitoring target, and where each is."""

    book_hash: str
    as_of: dt.date
    currency: str
    policies: int  # in the book's currency, with a line item in the book
    other_currency_policies: int
    items: dict[str, list[BookLine]]  # monitoring target id -> the line items there (in-force, not ended)
    sites: dict[str, SiteRef]

    def __repr__(self) -> str:  # a book of 100,000 line items is no repr
        return f"BookRows({self.book_hash[:12]}, {self.policies} policies, {sum(map(len, self.items.values()))} line items)"


def _chunks(values: list) -> list[list]:
    return [values[i : i + CHUNK] for i in range(0, len(values), CHUNK)]


async def read_book(
    tenant_id: uuid.UUID | str | None, as_of: dt.date, currency: str = "INR", target_id: str | None = None
) -> BookRows:
    """The scope's book (module docstring), in the book's `currency`; a policy in another
    currency is counted, not read. `target_id`: only the line items at that monitoring target
    (a quote's capital against the book); the hash and counts are still the whole scope's."""
    policies = await _in_force(tenant_id)
    book_hash = hash_of(policies, as_of)
    mine = [p for p in policies if p["currency"] == currency]
    quote_ids = [p["quote_id"] for p in mine]
    target_of_quote: dict = {}
    for part in _chunks(quote_ids):
        query = Quote.select(Quote.id, Quote.monitoring_target_id).where(Quote.id.is_in(part))
        if target_id is not None:
            query = query.where(Quote.monitoring_target_id == target_id)
        for row in await query:
            target_of_quote[row["id"]] = row["monitoring_target_id"]
    target_of_policy = {p["id"]: target_of_quote[p["quote_id"]] for p in mine if p["quote_id"] in target_of_quote}
    items: dict[str, list[BookLine]] = {}
    decoded: dict = {}  # the covers' JSON -> one tuple of snapshots (the same coverages recur across the book)
    covers_type = list[CoverSnapshot]
    for part in _chunks(sorted(target_of_policy, key=str)):
        rows = await LineItem.select(
            LineItem.policy_id, LineItem.position, LineItem.period_start, LineItem.period_end, LineItem.quantity,
            LineItem.sum_insured_minor, LineItem.premium_minor, LineItem.covers,
        ).where(LineItem.policy_id.is_in(part) & (LineItem.period_end >= as_of))
        for row in rows:
            target = target_of_policy.get(row["policy_id"])
            raw = row["covers"]  # text on SQLite, parsed on PostgreSQL
            key = raw if isinstance(raw, str) else msgspec.json.encode(raw)
            covers = decoded.get(key)
            if covers is None:
                covers = decoded[key] = tuple(msgspec.json.decode(key, type=covers_type))
            if target is None or not covers:
                continue
            items.setdefault(target, []).append((str(row["policy_id"]), row["position"], BookLine(
                policy_id=row["policy_id"], period_start=row["period_start"], period_end=row["period_end"],
                quantity=Decimal(row["quantity"]), sum_insured_minor=int(row["sum_insured_minor"]),
                premium_minor=int(row["premium_minor"]), covers=covers,
            )))
    ordered = {t: [line for _, _, line in sorted(rows, key=lambda r: (r[0], r[1]))] for t, rows in items.items()}
    sites = {}
    for row in await MonitoringTarget.select().where(MonitoringTarget.id.is_in(sorted(ordered) or [""])):
        sites[row["id"]] = SiteRef(target_id=row["id"], target_name=row["name"], district=row["district"],
                                   state=row["state"], latitude=row["latitude"], longitude=row["longitude"])
    items = {k: v for k, v in sorted(ordered.items()) if k in sites}
    # policies with a risk period still to run (one whose periods have all ended awaits its
    # settlement: in force, not in the book's figures)
    holding = len({line.policy_id for lines in items.values() for line in lines})
    return BookRows(book_hash, as_of, currency, holding, len(policies) - len(mine), items, sites)


async def store_result(
    scope: str, book_hash: str, as_of: dt.date, result: dict, workflow_id: str,
    target_paths: dict[str, bytes] | None = None, paths: int = 0,
) -> tuple[int, dt.datetime]:
    """Write a run's result as the scope's next version; a retried activity of the same run
    (same workflow id and book) finds its row and writes nothing. (version, computed at).
    `target_paths`: the run's loss per path by target (float32 bytes, `paths` each), written
    in the same transaction; the scope's older versions' paths are dropped (only the latest
    prices quotes)."""
    async with write_transaction():
        same = await PortfolioResult.select(PortfolioResult.version, PortfolioResult.computed_at).where(
            (PortfolioResult.scope == scope) & (PortfolioResult.workflow_id == workflow_id)
            & (PortfolioResult.book_hash == book_hash)
        ).first()
        if same is not None:
            return same["version"], same["computed_at"]
        last = await PortfolioResult.select(PortfolioResult.version).where(PortfolioResult.scope == scope).order_by(
            PortfolioResult.version, ascending=False).first()
        version = 1 if last is None else last["version"] + 1
        now = utcnow()
        await PortfolioResult.insert(PortfolioResult(
            id=f"{scope}:{version}", scope=scope, version=version, book_hash=book_hash, as_of=as_of,
            result=json.dumps(result, sort_keys=True), workflow_id=workflow_id, computed_at=now,
        ))
        if target_paths is not None:
            await PortfolioPaths.delete().where(PortfolioPaths.scope == scope)
            if target_paths:
                await PortfolioPaths.insert(*[
                    PortfolioPaths(id=f"{scope}:{version}:{target}", scope=scope, version=version,
                                   monitoring_target_id=target, paths=paths, losses=losses)
                    for target, losses in sorted(target_paths.items())
                ])
        return version, now


async def latest_result(scope: str) -> dict | None:
    """The scope's last result: {version, book_hash, as_of, workflow_id, computed_at, result (dict)}."""
    row = await PortfolioResult.select().where(PortfolioResult.scope == scope).order_by(
        PortfolioResult.version, ascending=False).first()
    if row is None:
        return None
    return {**row, "result": json.loads(row["result"])}


@dataclass(frozen=True)
class StoredBook:
    """The latest whole-book run as a quote's capital reads it (docs/portfolio.md)."""

    version: int
    book_hash: str
    as_of: dt.date
    simulation: dict  # the result's `simulation`: paths, batches, seed, method, modelVersion
    targets: tuple[str, ...]  # the monitoring targets it simulated: their losses per path are kept


async def stored_book(scope: str = ALL) -> StoredBook | None:
    """The scope's latest result, when it kept its losses per path; None when it has none (no
    run yet, an empty book, or a result from before paths were kept)."""
    row = await PortfolioResult.select(
        PortfolioResult.version, PortfolioResult.book_hash, PortfolioResult.as_of, PortfolioResult.result
    ).where(PortfolioResult.scope == scope).order_by(PortfolioResult.version, ascending=False).first()
    if row is None:
        return None
    kept = await PortfolioPaths.select(PortfolioPaths.monitoring_target_id).where(
        (PortfolioPaths.scope == scope) & (PortfolioPaths.version == row["version"]))
    if not kept:
        return None
    as_of = row["as_of"] if isinstance(row["as_of"], dt.date) else dt.date.fromisoformat(str(row["as_of"]))
    result = json.loads(row["result"])
    # the targets the run simulated (its result's), whose paths must all be there
    return StoredBook(row["version"], row["book_hash"], as_of, result["simulation"],
                      tuple(sorted(t["monitoringTargetId"] for t in result["byTarget"])))


async def stored_losses(version: int, scope: str = ALL) -> dict[str, bytes]:
    """The losses per path (float32 bytes) by monitoring target that version kept ({} when gone)."""
    rows = await PortfolioPaths.select(PortfolioPaths.monitoring_target_id, PortfolioPaths.losses).where(
        (PortfolioPaths.scope == scope) & (PortfolioPaths.version == version))
    return {r["monitoring_target_id"]: bytes(r["losses"]) for r in rows}
