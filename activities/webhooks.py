"""Webhook activities: dispatch the outbox into deliveries, and deliver one signed message
(Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature` v1 HMAC-SHA256
over `id.timestamp.body`, signed with the `standardwebhooks` package; during a secret's
rotation overlap, one signature per valid secret, space-separated).

Before every attempt the URL's host is resolved and each address checked
(`models/domain/webhook_urls.py`); the connection goes to a checked address, with the URL's
`Host` header and, for https, its name for SNI and the certificate check, so a name that now
resolves inside the network is never reached.

Before every attempt the payout hold is checked too: a `payout.recorded` or
`adjustment.recorded` message of a policy held since its delivery was made (after the
settlement's dispatch, or while the receiver kept failing) is not sent; the delivery waits
for the release (`models.db.webhooks.wait_for_release`), and the run that found the hold
ends without recording a failure."""

from __future__ import annotations

import datetime as dt
import json
import ssl

import httpx
from standardwebhooks import Webhook
from temporalio import activity
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.exceptions import ApplicationError, WorkflowAlreadyStartedError

from models.clock import utcnow
from models.db import webhooks as webhooks_db
from models.db.core import json_value
from models.db.webhook_secrets import SecretUnreadable
from models.domain.webhook_urls import Refused
from models.domain.webhooks import TIMEOUT_SECONDS
from models.settings import load_settings
from models.temporal.ids import webhook_delivery_round, webhook_delivery_workflow_id
from models.temporal.webhooks import WEBHOOK_DELIVERY_WORKFLOW, DeliveryOutcome, DispatchInput, FinishDeliveryInput
from models.webhook_resolution import Resolved, Unresolved, policy_of, resolve

# What a failed connection is called in a delivery's lastError: the error's class and our
# words, never text that came from the receiver.
_CONNECTION_ERRORS = {
    httpx.ConnectTimeout: "connecting timed out",
    httpx.ConnectError: "could not connect: refused, unreachable or the TLS handshake failed",
    httpx.TimeoutException: f"no answer within {TIMEOUT_SECONDS:.0f} s",
    httpx.RemoteProtocolError: "the receiver did not answer in HTTP",
    httpx.TransportError: "the connection failed",
}


def connection_error(exc: httpx.HTTPError) -> str:
    words = next((w for cls, w in _CONNECTION_ERRORS.items() if isinstance(exc, cls)), "the request failed")
    return f"{type(exc).__name__} ({words})"


# Addresses tried per attempt (the next only when connecting failed): two connect timeouts
# still fit the activity's 30 s; the attempt after resolves again.
ADDRESSES_PER_ATTEMPT = 2


async def post_pinned(resolved: Resolved, url: str, content: bytes, headers: dict[str, str],
                      verify: ssl.SSLContext | bool = True) -> int:
    """POST to the URL at its checked addresses (the next one only if connecting failed, so
    nothing is sent twice); the answer's status code. Redirects are not followed, proxies and
    .netrc are not read, the answer's body is not read."""
    target = httpx.URL(url)
    host_header = target.netloc.decode("ascii")
    names = {"sni_hostname": target.raw_host.decode("ascii")}
    failure: httpx.HTTPError | None = None
    async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS, follow_redirects=False, trust_env=False, verify=verify) as http:
        for address in resolved.addresses[:ADDRESSES_PER_ATTEMPT]:
            pinned = target.copy_with(host=str(address), port=resolved.target.port)
            try:
                async with http.stream("POST", pinned, content=content, headers={**headers, "host": host_header},
                                       extensions=names) as response:
                    return response.status_code
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                failure = exc
    assert failure is not None  # resolve() never answers an empty list
    raise failure


@activity.defn
async def dispatch_webhooks(request: DispatchInput) -> int:
    """Undispatched outbox messages → one delivery workflow per (message, endpoint).

    The deliveries commit first, then their workflows start: a pass that dies in between
    leaves them PENDING and not started, so every pass starts those too, the oldest first,
    once `orphaned_after_seconds` old (the start is idempotent: the workflow id is the
    delivery's; one running is found running, one closed is never run again). A delivery a
    payout hold stopped on its way is among those once the hold is released, started as
    the run after the hold (`held_times`). Returns the workflows started."""
    client = activity.client()
    started = 0
    while True:
        made = await webhooks_db.dispatch_pending(request.limit)
        orphaned = utcnow() - dt.timedelta(seconds=request.orphaned_after_seconds)
        runs = [(d, 0) for d in made] + await webhooks_db.unstarted_deliveries(
            request.limit, created_before=orphaned, leaving=made
        )
        if not runs:
            return started
        for delivery_id, held_times in runs:
            try:
                await client.start_workflow(
                    WEBHOOK_DELIVERY_WORKFLOW,
                    delivery_id,
                    id=webhook_delivery_workflow_id(delivery_id, held_times),
                    task_queue=request.task_queue,
                    id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                    id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                    static_summary=f"Webhook {delivery_id.split(':')[0]}",
                )
            except WorkflowAlreadyStartedError:  # it ran and closed: not sent twice
                pass
            started += 1
        await webhooks_db.mark_started(runs)
        activity.heartbeat(started)


@activity.defn
async def deliver_webhook(delivery_id: str) -> DeliveryOutcome:
    """POST the message, signed, to the endpoint; a 2xx answer delivers it. Anything else
    raises (retried with backoff by the workflow's policy). A disabled or deleted endpoint,
    or a URL that now leads somewhere refused, ends the delivery without sending. A payout
    message of a policy on hold is not sent: the delivery waits for the release, sent then
    by a run of its own (this run ends, its outcome not counted)."""
    job = await webhooks_db.delivery_job(delivery_id)
    if job is None:
        return DeliveryOutcome(delivered=False, detail="the message or the endpoint is gone")
    delivery, message, endpoint = job
    if delivery["status"] == "DELIVERED":
        return DeliveryOutcome(delivered=True, status_code=delivery["last_status_code"], detail="delivered before")
    run = _run_of(delivery_id)
    if run is None:  # run by hand: as the delivery's current run
        run = delivery["held_times"]
    if delivery["held_times"] != run:  # a hold put it back since this run began: a later run sends it
        later = webhook_delivery_workflow_id(delivery_id, delivery["held_times"])
        return DeliveryOutcome(delivered=False, detail=f"not sent by this run: a payout hold stopped it; sent by {later}")
    if await webhooks_db.wait_for_release(delivery_id, run):
        later = webhook_delivery_workflow_id(delivery_id, run + 1)
        return DeliveryOutcome(delivered=False, detail=f"{webhooks_db.HOLD_WAIT} (by {later})")
    if endpoint["status"] == webhooks_db.DELETED:
        return DeliveryOutcome(delivered=False, detail="not sent: the endpoint was deleted")
    if endpoint["status"] != "ENABLED":
        return DeliveryOutcome(delivered=False, detail=f"endpoint disabled: {endpoint['disabled_reason']}")
    url = endpoint["url"]
    try:
        resolved = await resolve(url, policy_of(load_settings()))
    except Refused as exc:  # no connection attempted, and none will be: not retried
        reason = f"not sent: {exc}"
        await webhooks_db.record_attempt(delivery_id, None, reason, delivered=False, attempted=False)
        return DeliveryOutcome(delivered=False, detail=reason)
    except Unresolved as exc:  # DNS may answer later
        await webhooks_db.record_attempt(delivery_id, None, str(exc), delivered=False)
        raise ApplicationError(f"{url}: {exc}", type="WebhookNotDelivered") from None
    now = utcnow()
    try:
        secrets = webhooks_db.signing_secrets(endpoint, now)
    except SecretUnreadable as exc:  # a key configuration to fix: retried meanwhile
        await webhooks_db.record_attempt(delivery_id, None, "not sent: the service cannot read the endpoint's secret",
                                         delivered=False, attempted=False)
        raise ApplicationError(str(exc), type="WebhookSecretUnreadable") from None
    body = json.dumps(json_value(message["payload"]), separators=(",", ":"), sort_keys=True)
    headers = {
        "content-type": "application/json",
        "webhook-id": message["id"],
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": " ".join(Webhook(s).sign(message["id"], now, body) for s in secrets),
        "user-agent": "parametric-insurance-webhooks/1",
    }
    try:
        status = await post_pinned(resolved, url, body.encode(), headers)
    except httpx.HTTPError as exc:
        error = connection_error(exc)
        await webhooks_db.record_attempt(delivery_id, None, error, delivered=False)
        raise ApplicationError(f"{url}: {error}", type="WebhookNotDelivered") from None
    if 200 <= status < 300:
        await webhooks_db.record_attempt(delivery_id, status, "", delivered=True)
        return DeliveryOutcome(delivered=True, status_code=status)
    error = f"HTTP {status}"  # the status only: what a receiver answers is not ours to keep
    await webhooks_db.record_attempt(delivery_id, status, error, delivered=False)
    raise ApplicationError(f"{url} answered {error}", type="WebhookNotDelivered")


def _run_of(delivery_id: str) -> int | None:
    """The `held_times` of the delivery run this activity works for (None: not run by a
    delivery workflow)."""
    return webhook_delivery_round(delivery_id, activity.info().workflow_id or "")


@activity.defn
async def finish_webhook_delivery(request: FinishDeliveryInput) -> bool:
    """The delivery's outcome; True if its endpoint was disabled by this failure. A run a
    payout hold stopped records nothing (the run after the release finishes it)."""
    return await webhooks_db.finish_delivery(
        request.delivery_id, request.delivered, request.reason, _run_of(request.delivery_id)
    )
