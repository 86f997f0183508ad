"""What a worker process tells operations: its Temporal runtime's Prometheus endpoint, the
domain's counters beside the SDK's metrics there, and log lines that carry the ids of the
activity they come from.

- `worker_runtime`: a Temporal runtime serving Prometheus on WORKER_METRICS_PORT (0: none;
  each worker process on a host needs its own port). The SDK's own metrics (workflow and
  activity task latency, slots, poll results: `temporal_*`) and the counters below share it.
- `Observability`, a worker interceptor (activities only: workflow code and its commands are
  untouched). Around each activity, local ones included, it binds the log context
  (workflow_id, run_id, workflow_type, activity_type, attempt, task_queue and the tenant,
  quote, policy, coverage, settlement and delivery ids of the activity's input), logs one
  line when the activity completes with its duration, and counts what the activity's result
  says happened (`DomainMetrics`).

The counters (docs/runbook.md, "Metrics and alerts"), each `_total` on the endpoint:
`parametric_quotes_priced{kind}`, `parametric_policies_converted`, `parametric_policies_bound`,
`parametric_observations{source,outcome}` (accepted, unchanged, held, refused),
`parametric_settlements{state}`, `parametric_events_validated{index_code}`,
`parametric_payouts_recorded{currency}` and `parametric_payout_amount_minor{currency}`,
`parametric_webhook_deliveries{outcome}` (delivered, refused: the receiver answered other
than 2xx, error: no answer).
"""

from __future__ import annotations

import time
from typing import Any, Callable

from temporalio import activity, client
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from models.observability.logs import bind, get_logger
from models.settings import Settings
from models.temporal.ids import settlement_workflow_id

log = get_logger("parametric.activity")


def worker_runtime(settings: Settings, port: int | None = None) -> Runtime | None:
    """The runtime serving this process's Prometheus endpoint on `port` (WORKER_METRICS_PORT
    when None), or None when it is 0. A port already taken fails the process at start."""
    port = settings.worker_metrics_port if port is None else port
    if not port:
        return None
    return Runtime(
        telemetry=TelemetryConfig(
            metrics=PrometheusConfig(
                bind_address=f"{settings.metrics_host}:{port}", counters_total_suffix=True, durations_as_seconds=True
            )
        )
    )


class DomainMetrics:
    """The domain's counters, on a Temporal runtime's meter (a no-op meter without metrics)."""

    def __init__(self, meter: Any, currency: str = "INR") -> None:
        self.currency = currency
        counter = meter.create_counter
        self.quotes_priced = counter("parametric_quotes_priced", "Quotes written with their prices, by kind", "quotes")
        self.policies_converted = counter("parametric_policies_converted", "Quotes converted to policy drafts", "policies")
        self.policies_bound = counter("parametric_policies_bound", "Policy drafts activated (bound)", "policies")
        self.observations = counter(
            "parametric_observations", "Observation rows by source and outcome (accepted, unchanged, held, refused)", "rows"
        )
        self.settlements = counter("parametric_settlements", "Coverages settled, by state (SETTLED, WAITING, FLAGGED)", "coverages")
        self.events_validated = counter("parametric_events_validated", "Parametric events written by settlements", "events")
        self.payouts = counter("parametric_payouts_recorded", "Settlements' events that paid", "payouts")
        self.payout_amount = counter("parametric_payout_amount_minor", "Payouts recorded, in minor units", "minor units")
        self.deliveries = counter("parametric_webhook_deliveries", "Webhook delivery attempts by outcome", "attempts")

    # --- what each activity's result says happened ------------------------------------------

    def _quote(self, args: list, result: Any) -> None:
        if getattr(result, "applied", False):
            self.quotes_priced.add(1, {"kind": str(getattr(args[0], "kind", "TENANT"))})

    def _fast_quote(self, args: list, result: Any) -> None:
        if getattr(result, "applied", False):
            self.quotes_priced.add(1, {"kind": "FAST"})

    def _conversion(self, args: list, result: Any) -> None:
        if getattr(result, "applied", False):
            self.policies_converted.add(1)

    def _policy_status(self, args: list, result: Any) -> None:
        if getattr(result, "applied", False) and getattr(args[0], "to_status", "") == "ACCEPTED":
            self.policies_bound.add(1)

    def _ingest(self, args: list, result: Any) -> None:
        source = str(getattr(result, "provider", "provider"))
        for outcome, rows in (("accepted", result.new + result.revised), ("unchanged", result.unchanged),
                              ("held", result.held), ("refused", result.refused)):
            if rows:
                self.observations.add(rows, {"source": source, "outcome": outcome})

    def _revision(self, args: list, result: Any) -> None:
        if result.state == "APPROVED" and result.stored:
            self.observations.add(result.stored, {"source": "four-eyes", "outcome": "accepted"})
        elif result.state == "REFUSED":
            self.observations.add(1, {"source": "four-eyes", "outcome": "refused"})

    def _settlement(self, args: list, result: Any) -> None:
        for coverage in result.coverages:
            self.settlements.add(1, {"state": coverage.state})
            if coverage.events:
                self.events_validated.add(coverage.events, {"index_code": coverage.index_code})
            if coverage.paid_minor > 0:
                self.payouts.add(coverage.events or 1, {"currency": self.currency})
                self.payout_amount.add(coverage.paid_minor, {"currency": self.currency})

    def _delivery(self, args: list, result: Any) -> None:
        self.deliveries.add(1, {"outcome": "delivered" if result.delivered else "refused"})

    def recorders(self) -> dict[str, Callable[[list, Any], None]]:
        return {
            "record_quote": self._quote,
            "complete_fast_quote": self._fast_quote,
            "convert_to_policy": self._conversion,
            "set_policy_status": self._policy_status,
            "ingest_observations": self._ingest,
            "decide_observation_revision": self._revision,
            "settle_period": self._settlement,
            "deliver_webhook": self._delivery,
        }

    def failed(self, activity_type: str) -> None:
        if activity_type == "deliver_webhook":
            self.deliveries.add(1, {"outcome": "error"})


# Ids an activity's input may carry, by the name ops search logs by.
_ID_FIELDS = {
    "tenant_id": "tenant_id",
    "quote_id": "quote_id",
    "policy_id": "policy_id",
    "coverage_id": "coverage_id",
    "target_id": "monitoring_target_id",
    "monitoring_target_id": "monitoring_target_id",
    "revision_id": "revision_id",
    "delivery_id": "delivery_id",
    "message_id": "message_id",
    "endpoint_id": "endpoint_id",
}


def input_ids(activity_type: str, args: list) -> dict[str, str]:
    """The searchable ids of an activity's first argument."""
    if not args:
        return {}
    first = args[0]
    if isinstance(first, str):
        return {"delivery_id": first} if activity_type == "deliver_webhook" else {}
    ids = {ours: str(value) for theirs, ours in _ID_FIELDS.items() if (value := getattr(first, theirs, None)) is not None}
    if type(first).__name__ == "QuoteDraft":  # a quote's write carries the quote as `id`
        ids["quote_id"] = str(first.id)
    if all(hasattr(first, f) for f in ("target_id", "start", "end")) and activity_type == "settle_period":
        ids["settlement_id"] = settlement_workflow_id(first.target_id, first.start, first.end)
    return ids


class _ActivityObserver(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, metrics: DomainMetrics) -> None:
        super().__init__(next)
        self._metrics = metrics
        self._recorders = metrics.recorders()

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        info = activity.info()
        kind = info.activity_type
        args = list(input.args)
        bind(
            workflow_id=info.workflow_id, run_id=info.workflow_run_id, workflow_type=info.workflow_type,
            activity_type=kind, attempt=info.attempt, task_queue=info.task_queue, **input_ids(kind, args),
        )
        started = time.perf_counter()
        try:
            result = await self.next.execute_activity(input)
        except BaseException:
            self._metrics.failed(kind)
            raise  # temporalio logs the failed attempt itself, with this context
        recorder = self._recorders.get(kind)
        if recorder is not None:
            try:
                recorder(args, result)
            except Exception:  # noqa: BLE001 - a counter never fails the activity
                log.warning("domain metric not recorded", exc_info=True)
        log.info("activity completed", duration_ms=round((time.perf_counter() - started) * 1000, 1),
                 local=info.is_local)
        return result


class Observability(client.Interceptor, Interceptor):
    """The worker interceptor: log context, completion lines and domain counters. Given to
    the worker process's client (models/temporal/client.py connect), whose workers inherit it."""

    def __init__(self, metrics: DomainMetrics) -> None:
        self.metrics = metrics

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _ActivityObserver(next, self.metrics)
