"""Baselines for bench/api.py: a bare Litestar endpoint, a bare Temporal update, and the
unavoidable work of a conversion.

- `bench._bare_http.create_app()`: a Litestar app with one trivial GET returning a small JSON, served by
  uvicorn with the API's own settings (`python -m api.cli api`: factory, 1 worker,
  log level info, no access log; uvloop and httptools when installed, uvicorn's "auto").
  It also serves `PATCH /bare-convert/{quote_id}`: the **fair baseline of a conversion**,
  the work no conversion can avoid: the same database transaction the service's
  conversion writes (`models.db.policies.convert_to_policy`, the quote ACCEPTED and its
  policy draft, line items and covers) plus one bare update-with-start round trip (a new
  `BareUpdateWorkflow`, standing for the policy's workflow that must exist: every policy,
  draft included, is findable in the Temporal UI), then the same response read
  (`api.quotes.responses.policy_out`).
- `BareUpdateWorkflow`: waits forever; its `ping` update returns at once. Its worker runs
  in its own process with the service worker's defaults (sandboxed workflow runner).

This module imports only temporalio at top level, so the workflow sandbox re-imports
nothing heavy; Litestar and uvicorn are imported where they are used.

Run by bench/api.py as
  python -c 'from bench._bare import main; main()' http   --host H --port P
  python -c 'from bench._bare import main; main()' worker --address A --task-queue Q
"""

from __future__ import annotations

import argparse
import asyncio

from temporalio import workflow


@workflow.defn
class BareUpdateWorkflow:
    def __init__(self) -> None:
        self._done = False

    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: self._done)

    @workflow.update
    async def ping(self) -> str:
        return "pong"


def _serve(host: str, port: int) -> None:
    import uvicorn

    # Same call as `parametric api` (api/cli.py), with this app.
    uvicorn.run(
        "bench._bare_http:create_app",
        factory=True,
        host=host,
        port=port,
        workers=1,
        log_level="info",
        access_log=False,
    )


async def _work(address: str, task_queue: str) -> None:
    from temporalio.client import Client
    from temporalio.worker import Worker

    client = await Client.connect(address)
    worker = Worker(client, task_queue=task_queue, workflows=[BareUpdateWorkflow])
    print(f"bare worker polling {task_queue} on {address}", flush=True)
    await worker.run()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="baselines for bench/api.py")
    sub = ap.add_subparsers(dest="what", required=True)
    http = sub.add_parser("http")
    http.add_argument("--host", default="127.0.0.1")
    http.add_argument("--port", type=int, required=True)
    worker = sub.add_parser("worker")
    worker.add_argument("--address", required=True)
    worker.add_argument("--task-queue", required=True)
    args = ap.parse_args(argv)
    if args.what == "http":
        _serve(args.host, args.port)
    else:
        try:
            asyncio.run(_work(args.address, args.task_queue))
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
