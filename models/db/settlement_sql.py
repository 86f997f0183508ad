"""Set-based settlement writes (docs/settlement.md, "Uniform line items"): the events,
payouts and webhook messages of every line item alike, written by one INSERT ... SELECT each
instead of a row per policy from Python.

A line item is *uniform* for a settlement run when its policy was in force over the whole
period (activated by the end of the first day, not cancelled before the end of the last)
and no event was written on it yet (by any run, or an earlier attempt of this one): then
what it is paid depends only on its terms
(covers, quantity, sum insured, currency) and the period's index, so the payout rule
(`models.domain.settlement.settle_line_item`) runs once per distinct set of terms and the
database copies the result to every policy holding them. Every other line item (activated
or cancelled within the period, adjustments of a revision, a retry after this pass) is
settled policy by policy, first.

Idempotent as the per-policy path: the unique settlement key (policy, coverage, revision)
makes a retried statement write nothing twice; payouts and messages are selected from the
events of this run (`created_at` = the run's time) and have unique keys too; the messages'
ids are the ones the per-policy path gives (derived from the event id).
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from decimal import Decimal

from piccolo.engine.finder import engine_finder

from models.db.tables import LineItem, ParametricEvent
from models.domain.statuses import PolicyStatus

IN_FORCE = (PolicyStatus.ACCEPTED, PolicyStatus.ACTIVE, PolicyStatus.EXPIRED, PolicyStatus.CANCELED)
# Placeholders in a JSON text template for what differs per event (see `message_templates`).
EVENT_ID, POLICY_ID = "@@event-id@@", "@@policy-id@@"


def _postgres() -> bool:
    return engine_finder().engine_type == "postgres"


def _param(pg_type: str) -> str:
    """A parameter in a SELECT list: typed on PostgreSQL (an untyped one is text there);
    bare on SQLite, where CAST to a type name it does not know would coerce to a number."""
    return f"CAST({{}} AS {pg_type})" if _postgres() else "{}"


def _text(column: str) -> str:
    return f"CAST({column} AS TEXT)"


def _new_uuid() -> str:
    """A random (version 4) UUID per row, as each database writes a UUID column. On SQLite
    one printf of five random() draws, masked to the fields' widths: 1.4 ms less per 1,000
    rows than formatting five randomblob()s (replayed month-end statement, 8.8 -> 7.3 ms)."""
    if _postgres():
        return "gen_random_uuid()"
    return (
        "printf('%08x-%04x-4%03x-%04x-%012x', random() & 4294967295, random() & 65535, random() & 4095, "
        "(random() & 16383) | 32768, random() & 281474976710655)"
    )


def _in_force_throughout(first_moment: dt.datetime, last_moment: dt.datetime) -> tuple[str, list]:
    marks = ", ".join("{}" for _ in IN_FORCE)
    sql = (
        f"p.status IN ({marks}) AND p.activated_at IS NOT NULL AND p.activated_at <= {{}} "
        f"AND (p.status <> {{}} OR (p.canceled_at IS NOT NULL AND p.canceled_at >= {{}}))"
    )
    return sql, [*(s.value for s in IN_FORCE), first_moment, PolicyStatus.CANCELED.value, last_moment]


def uniform_condition(first_moment: dt.datetime, last_moment: dt.datetime) -> tuple[str, list]:
    """SQL over `li` (line_item) and `p` (policy): the line item is uniform: its policy in
    force all through the period and no event on it at all (an event of any run, this
    one's earlier attempt included, sends it the per-policy way, which knows what was paid)."""
    in_force, args = _in_force_throughout(first_moment, last_moment)
    return f"({in_force} AND NOT EXISTS (SELECT 1 FROM parametric_event pe0 WHERE pe0.line_item_id = li.id))", args


# `FROM line_item li CROSS JOIN policy p WHERE p.id = li.policy_id`: SQLite joins in the
# order written after CROSS JOIN, so it starts from the line items of the policies holding
# the coverages (by index) instead of from every policy in force; PostgreSQL plans it as
# the inner join it is.


def _period_holding(coverage_ids: list[uuid.UUID], start: dt.date, end: dt.date) -> tuple[str, list]:
    """SQL over `li`: a line item over [start, end] of a policy holding one of the coverages."""
    marks = ", ".join("{}" for _ in coverage_ids)
    return (
        "li.period_start = {} AND li.period_end = {} AND li.policy_id IN "
        f"(SELECT policy_id FROM policy_item WHERE coverage_id IN ({marks}))",
        [start, end, *coverage_ids],
    )


@dataclass(frozen=True, slots=True)
class UniformShape:
    """Terms shared by `count` uniform line items (`sample_id`: one of them)."""

    covers_text: str
    quantity_text: str
    sum_insured_minor: int
    currency: str
    count: int
    sample_id: uuid.UUID


def _shape_match() -> str:
    # The quantity as the database writes it as text: a NUMERIC read back through the
    # driver can differ from what it compares equal to on SQLite (15 digits of a double).
    return (
        f"{_text('li.covers')} = {{}} AND {_text('li.quantity')} = {{}} AND li.sum_insured_minor = {{}} "
        "AND li.currency = {}"
    )


def _shape_args(shape: UniformShape) -> list:
    return [shape.covers_text, shape.quantity_text, shape.sum_insured_minor, shape.currency]


async def classify(
    coverage_ids: list[uuid.UUID], start: dt.date, end: dt.date, first_moment: dt.datetime, last_moment: dt.datetime,
) -> tuple[list[UniformShape], int]:
    """The distinct terms of the uniform line items holding the coverages, with their
    counts, and how many of the line items are not uniform (the per-policy pages' work): one
    pass over the line items, so a period with none of those costs no page query."""
    holding, holding_args = _period_holding(coverage_ids, start, end)
    uniform, uniform_args = uniform_condition(first_moment, last_moment)
    rows = await LineItem.raw(
        f"SELECT u, covers_text, quantity_text, sum_insured_minor, currency, COUNT(*) AS n, MIN(id_text) AS sample_id "
        f"FROM (SELECT CASE WHEN {uniform} THEN 1 ELSE 0 END AS u, {_text('li.covers')} AS covers_text, "
        f"{_text('li.quantity')} AS quantity_text, li.sum_insured_minor AS sum_insured_minor, li.currency AS currency, "
        f"{_text('li.id')} AS id_text "
        f"FROM line_item li CROSS JOIN policy p WHERE p.id = li.policy_id AND {holding}) AS held "
        "GROUP BY u, covers_text, quantity_text, sum_insured_minor, currency",
        *uniform_args, *holding_args,
    )
    shapes = [
        UniformShape(r["covers_text"], str(r["quantity_text"]), int(r["sum_insured_minor"]), r["currency"], int(r["n"]),
                     uuid.UUID(str(r["sample_id"])))
        for r in rows if int(r["u"]) == 1
    ]
    return shapes, sum(int(r["n"]) for r in rows if int(r["u"]) != 1)


@dataclass(frozen=True, slots=True)
class EventTemplate:
    """One cover's event as every uniform line item of a shape gets it (the per-policy
    columns, ids and key, come from the database)."""

    coverage_id: uuid.UUID
    event_type: str
    index_value: Decimal
    currency: str
    payout_minor: int
    data_set: str
    revision: int
    simulated: bool
    explanation_json: str
    # (event type, payload JSON text with EVENT_ID and POLICY_ID placeholders, message id mask)
    messages: tuple[tuple[str, str, int], ...]
    stage: str = "FINAL"  # INITIAL | FINAL (issue 34)


HEX = "0123456789abcdef"


def _message_id(mask: int) -> str:
    """SQL over `pe`: the message id the per-policy path gives the event's message of this
    kind, `msg_` + the event id XOR `mask` in 32 hex digits; the masks flip bits 100-101,
    which are in the 7th hex digit, so that digit is looked up in its XOR table."""
    if mask & ~(3 << 100) or not mask:
        raise ValueError("message id masks flip bits 100-101 only")
    table = "".join(format(d ^ (mask >> 100), "x") for d in range(16))
    digits = f"replace({_text('pe.id')}, '-', '')"
    position = f"strpos('{HEX}', substr({digits}, 7, 1))" if _postgres() else f"instr('{HEX}', substr({digits}, 7, 1))"
    return f"'msg_' || substr({digits}, 1, 6) || substr('{table}', {position}, 1) || substr({digits}, 8)"


def _spliced(template: str) -> tuple[str, list]:
    """SQL text concatenation of a JSON template: its pieces as parameters, the event's and
    the policy's ids from `pe` where the placeholders are."""
    sql, args, pos = [], [], 0
    while True:
        hits = [(i, m) for i, m in ((template.find(m, pos), m) for m in (EVENT_ID, POLICY_ID)) if i >= 0]
        if not hits:
            if pos < len(template):
                sql.append(_param("text"))
                args.append(template[pos:])
            return " || ".join(sql), args
        i, marker = min(hits)
        if i > pos:
            sql.append(_param("text"))
            args.append(template[pos:i])
        sql.append(_text("pe.id" if marker == EVENT_ID else "pe.policy_id"))
        pos = i + len(marker)


async def sample_line_items(ids: list[uuid.UUID]) -> dict[uuid.UUID, dict]:
    return {r["id"]: r for r in await LineItem.select().where(LineItem.id.is_in(ids))} if ids else {}


async def write_uniform(
    shape: UniformShape, templates: list[EventTemplate], start: dt.date, end: dt.date, coverage_ids: list[uuid.UUID],
    first_moment: dt.datetime, last_moment: dt.datetime, at: dt.datetime, validated_day: dt.date,
) -> None:
    """The events of every uniform line item of `shape`, all its covers' in one statement
    (its SELECT sees the line items as they were before it; a second statement would find
    the first one's events on them). Run inside `write_transaction()`, then
    `write_run_payouts` and `write_run_messages`."""
    holding, holding_args = _period_holding(coverage_ids, start, end)
    uniform, uniform_args = uniform_condition(first_moment, last_moment)
    json_param = "CAST({} AS json)" if _postgres() else "{}"
    row = (
        f"({_param('uuid')}, {_param('text')}, {_param('text')}, {_param('numeric')}, {_param('text')}, "
        f"{_param('bigint')}, {_param('text')}, {_param('integer')}, {_param('boolean')}, {json_param}, "
        f"{_param('text')})"
    )
    covers_args = [
        a for t in templates for a in (t.coverage_id, f":{t.coverage_id}:r{t.revision}", t.event_type, t.index_value,
                                       t.currency, t.payout_minor, t.data_set, t.revision, t.simulated, t.explanation_json,
                                       t.stage)
    ]
    await ParametricEvent.raw(
        "INSERT INTO parametric_event (id, tenant_id, policy_id, coverage_id, settlement_key, event_type, validated_day, "
        "index_value, currency, payout_minor, created_at, kind, line_item_id, data_set, revision, simulated, explanation, "
        "stage) "
        f"SELECT {_new_uuid()}, li.tenant_id, li.policy_id, t.column1, {_text('li.policy_id')} || t.column2, t.column3, "
        f"{_param('date')}, t.column4, t.column5, t.column6, {_param('timestamptz')}, 'SETTLEMENT', li.id, t.column7, "
        f"t.column8, t.column9, t.column10, t.column11 "
        f"FROM line_item li CROSS JOIN policy p CROSS JOIN (VALUES {', '.join(row for _ in templates)}) AS t "
        f"WHERE p.id = li.policy_id AND {holding} AND {uniform} AND {_shape_match()} ON CONFLICT DO NOTHING",
        validated_day, at, *covers_args, *holding_args, *uniform_args, *_shape_args(shape),
    )


async def write_run_payouts(coverage_ids: list[uuid.UUID], at: dt.datetime) -> None:
    """The payout of every paying event the run at `at` wrote on the coverages. The
    per-policy pages wrote theirs with their events: the unique settlement key skips them,
    as it skips what an earlier attempt of the run wrote."""
    marks = ", ".join("{}" for _ in coverage_ids)
    await ParametricEvent.raw(
        "INSERT INTO payout (id, tenant_id, policy_id, coverage_id, event_id, settlement_key, currency, amount_minor, "
        f"created_at) SELECT {_new_uuid()}, pe.tenant_id, pe.policy_id, pe.coverage_id, pe.id, pe.settlement_key, "
        f"pe.currency, pe.payout_minor, pe.created_at FROM parametric_event pe WHERE pe.coverage_id IN ({marks}) "
        "AND pe.created_at = {} AND pe.payout_minor <> 0 ON CONFLICT DO NOTHING",
        *coverage_ids, at,
    )


async def write_run_messages(template: EventTemplate, at: dt.datetime) -> None:
    """The webhook messages of the run's first-settlement events of the template's cover
    paying its amount: what a message says is the same for all of them but the event's and
    policy's ids. A per-policy page's event alike already has these very messages (the same
    ids, derived from its event id): skipped, as what an earlier attempt wrote is."""
    where = (
        "FROM parametric_event pe WHERE pe.coverage_id = {} AND pe.created_at = {} AND pe.kind = 'SETTLEMENT' "
        "AND pe.revision = {} AND pe.payout_minor = {} AND pe.currency = {}"
    )
    where_args = [template.coverage_id, at, template.revision, template.payout_minor, template.currency]
    for event_type, payload, mask in template.messages:
        body, body_args = _spliced(payload)
        await ParametricEvent.raw(
            "INSERT INTO webhook_message (id, tenant_id, event_type, payload, created_at, dispatched_at, policy_id) "
            f"SELECT {_message_id(mask)}, pe.tenant_id, {_param('text')}, "
            f"{('CAST((' + body + ') AS json)') if _postgres() else body}, pe.created_at, NULL, pe.policy_id "
            f"{where} ON CONFLICT DO NOTHING",
            event_type, *body_args, *where_args,
        )
