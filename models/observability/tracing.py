"""OpenTelemetry traces: off unless an OTLP endpoint is configured.

With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, a process
exports its spans over OTLP/HTTP (batched, off the request's path); the OTEL_* variables of
the OpenTelemetry SDK apply (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, headers...). One
trace follows a request: the API's server span (Litestar's OpenTelemetry plugin), the
Temporal client's StartWorkflow / update spans, the workflow's RunWorkflow and the
activities' RunActivity spans (temporalio's TracingInterceptor on the client and the
workers: the context travels in the workflow's and activities' headers), and each SQL
statement as a span (`instrument_database`: Piccolo's query path, SQLite and PostgreSQL).

Without an endpoint nothing is installed: no interceptor, no middleware, no wrapped query
path, so tracing costs nothing when it is off.
"""

from __future__ import annotations

import os
import re
from typing import Any

from opentelemetry import trace

_SQL_OPERATION = re.compile(r"^\s*(\w+)", re.ASCII)
_SQL_TABLE = re.compile(r'\b(?:FROM|INTO|UPDATE|TABLE)\s+"?(\w+)"?', re.IGNORECASE | re.ASCII)


def otlp_configured() -> bool:
    return bool(os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def configure_tracing(service: str) -> bool:
    """Install a tracer provider exporting over OTLP when an endpoint is configured (once
    per process); answers whether this process traces."""
    if tracing_enabled():
        return True
    if not otlp_configured():
        return False
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    name = os.environ.get("OTEL_SERVICE_NAME") or f"parametric-{service}"
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return True


def tracing_enabled() -> bool:
    """Whether a real tracer provider is installed (by configure_tracing, or by a test
    with an in-memory exporter)."""
    provider = trace.get_tracer_provider()
    return not isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider))


def temporal_interceptors() -> list:
    """temporalio's TracingInterceptor when tracing is on (clients pass it to their
    workers), else none."""
    if not tracing_enabled():
        return []
    from temporalio.contrib.opentelemetry import TracingInterceptor

    return [TracingInterceptor()]


def _statement_span_name(sql: str) -> tuple[str, str]:
    operation = _SQL_OPERATION.match(sql)
    table = _SQL_TABLE.search(sql)
    verb = operation.group(1).upper() if operation else "SQL"
    return (f"{verb} {table.group(1)}" if table else verb), verb


def instrument_database(engine: Any) -> bool:
    """Each statement Piccolo runs on `engine` becomes a span (name `INSERT quote`, the
    statement's text with its placeholders, never its values). The engine becomes an
    instance of a subclass whose query paths open the span (Piccolo's engines have slots:
    their methods cannot be replaced on the instance). Idempotent; only when tracing is on."""
    if not tracing_enabled() or getattr(type(engine), "_parametric_traced", False):
        return False
    tracer = trace.get_tracer("parametric.db")
    system = "postgresql" if engine.engine_type == "postgres" else "sqlite"
    base = type(engine)

    def span(sql: str):
        name, verb = _statement_span_name(sql)
        attributes = {"db.system": system, "db.operation": verb, "db.statement": sql[:2000]}
        return tracer.start_as_current_span(name, kind=trace.SpanKind.CLIENT, attributes=attributes)

    async def run_querystring(self, querystring, *args, **kwargs):
        try:
            sql = querystring.compile_string(engine_type=self.engine_type)[0]
        except Exception:  # noqa: BLE001 - a span's name is never worth a failed query
            sql = "SQL"
        with span(sql):
            return await base.run_querystring(self, querystring, *args, **kwargs)

    async def run_ddl(self, ddl, *args, **kwargs):
        with span(str(ddl)):
            return await base.run_ddl(self, ddl, *args, **kwargs)

    traced = type(f"Traced{base.__name__}", (base,), {
        "__slots__": (), "_parametric_traced": True, "run_querystring": run_querystring, "run_ddl": run_ddl,
    })
    engine.__class__ = traced
    return True
