"""JSON log lines, one per event, the same in every process (API, workers, CLI).

Each line carries what a person searches by, from context bound where it becomes known:
the process, `request_id`, `tenant_id`, `client_id` and the ids in the request's path (the
API, api/observability.py), `workflow_id`, `run_id`, `workflow_type`, `activity_type`,
`attempt`, `task_queue` and the domain ids of an activity's input (the workers,
workflows/observability.py). Records of the standard library's loggers (temporalio,
uvicorn, our own `logging.getLogger(...)` calls) go through the same processors, so every
line is the same JSON.

Secrets never reach a line: values under a secret-looking key are replaced, and bearer
tokens, JWTs, API keys (`pk_...`) and webhook secrets (`whsec_...`) are masked wherever
they appear in a string (`redact`). Personal data is not logged: nothing logs request or
response bodies, headers or a partner's contact fields.

LOG_FORMAT: `json` (one JSON object a line), `console` (a readable rendering for a
person), `auto` (the default: console on a terminal, JSON otherwise). LOG_LEVEL: INFO.
"""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

import msgspec
import structlog
from opentelemetry import trace

REDACTED = "[redacted]"
# Keys whose values are never written, whatever they hold (lower case, substrings).
_SECRET_KEY = re.compile(r"secret|password|passwd|token|authorization|api_?key|cookie|credential|private_key|signature")
# Keys that contain such a word but hold no secret.
_NOT_SECRET_KEYS = frozenset({"token_type", "tokens", "token_ttl_seconds"})
# Secrets by their shape, wherever they appear in a string value.
_SECRET_VALUES = (
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+"), "Bearer " + REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"), REDACTED),  # a JWT
    (re.compile(r"\bwhsec_[A-Za-z0-9+/=]{8,}"), "whsec_" + REDACTED),
    (re.compile(r"\b(pk|staff)_[A-Za-z0-9_-]{16,}"), r"\1_" + REDACTED),
    (re.compile(r"(?i)\b(client_secret|secret|password|api_key|apikey|token|access_token|key)=[^&\s\"']+"), r"\1=" + REDACTED),
)


# One search that finds none of the shapes above in most strings (then nothing else runs).
_MAYBE_SECRET = re.compile(r"(?i)bearer|eyJ|whsec_|pk_|staff_|=")
_SAFE_KEYS = frozenset({"timestamp", "level", "logger", "process", "method", "route", "status", "duration_ms",
                        "request_id", "tenant_id", "client_id", "trace_id", "span_id"})


def _mask(value: str) -> str:
    if not _MAYBE_SECRET.search(value):
        return value
    for pattern, replacement in _SECRET_VALUES:
        if pattern.search(value):
            value = pattern.sub(replacement, value)
    return value


def _clean(key: str, value: Any) -> Any:
    if key not in _NOT_SECRET_KEYS and _SECRET_KEY.search(key.lower()):
        return REDACTED
    if isinstance(value, str):
        return _mask(value)
    if isinstance(value, dict):
        return {k: _clean(str(k), v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(key, v) for v in value]
    return value


def redact(_logger: Any, _method: str, event: dict) -> dict:
    """The processor that keeps secrets out of every line (the last before rendering)."""
    return {key: value if key in _SAFE_KEYS else _clean(key, value) for key, value in event.items()}


# What temporalio's workflow and activity loggers put on a record (`extra`), by our names.
_TEMPORAL_FIELDS = {
    "temporal_workflow": {"workflow_id": "workflow_id", "run_id": "run_id", "workflow_type": "workflow_type",
                          "task_queue": "task_queue", "attempt": "workflow_attempt"},
    "temporal_activity": {"workflow_id": "workflow_id", "workflow_run_id": "run_id", "activity_type": "activity_type",
                          "activity_id": "activity_id", "attempt": "attempt", "task_queue": "task_queue"},
}


def temporal_fields(_logger: Any, _method: str, event: dict) -> dict:
    """Flattens temporalio's `temporal_workflow` / `temporal_activity` extras into the ids
    ops search by (workflow_id, run_id, activity_type, attempt)."""
    for extra, names in _TEMPORAL_FIELDS.items():
        info = event.pop(extra, None)
        if isinstance(info, dict):
            for theirs, ours in names.items():
                if theirs in info and ours not in event:
                    event[ours] = info[theirs]
    return event


def _json(event: dict, **_: Any) -> str:
    return msgspec.json.encode(event, enc_hook=str).decode()


_process = "parametric"


def _add_process(_logger: Any, _method: str, event: dict) -> dict:
    event.setdefault("process", _process)
    return event


def _trace_ids(_logger: Any, _method: str, event: dict) -> dict:
    """The current span's trace and span ids (tracing on): a line leads to its trace."""
    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        event.setdefault("trace_id", format(context.trace_id, "032x"))
        event.setdefault("span_id", format(context.span_id, "016x"))
    return event


def _shared_processors() -> list:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _add_process,
        temporal_fields,
        _trace_ids,
    ]


def _renderer(fmt: str):
    if fmt == "console":
        return structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    return structlog.processors.JSONRenderer(serializer=_json)


def log_format(requested: str) -> str:
    """`json` or `console` from LOG_FORMAT (`auto`: console on a terminal)."""
    requested = (requested or "auto").lower()
    if requested == "auto":
        return "console" if sys.stderr.isatty() else "json"
    if requested not in ("json", "console"):
        raise ValueError(f"LOG_FORMAT is json, console or auto, not {requested!r}")
    return requested


def configure_logging(process: str, fmt: str = "auto", level: str = "INFO") -> None:
    """Every log line of this process as JSON (or console) on stderr, through structlog.

    `process` names the process in each line (`api`, `worker-lifecycle`, `cli`...)."""
    global _process
    _process = process
    fmt = log_format(fmt)
    handler = logging.StreamHandler(sys.stderr)  # synchronous: the request's context is still bound
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.ExtraAdder(), *_shared_processors()],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                redact,
                _renderer(fmt),
            ],
        )
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # WeasyPrint logs every layout step of every PDF at INFO; its warnings still show.
    logging.getLogger("weasyprint").setLevel(logging.WARNING)
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    # httpx logs every request's URL at INFO (webhook receivers' URLs among them).
    logging.getLogger("httpx").setLevel(logging.WARNING)
    structlog.configure(
        processors=[*_shared_processors(), structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        context_class=dict,
        cache_logger_on_first_use=True,
    )


def get_logger(name: str) -> Any:
    """A structlog logger (`log.info("quote priced", quote_id=...)`)."""
    return structlog.stdlib.get_logger(name)


bind = structlog.contextvars.bind_contextvars
bound = structlog.contextvars.bound_contextvars
clear = structlog.contextvars.clear_contextvars
