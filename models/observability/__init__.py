"""Operating the service: JSON logs (logs.py), Prometheus metrics (metrics.py) and
OpenTelemetry traces (tracing.py), set up the same way by the API, the workers and the CLI
(README, "Logs, metrics and traces"; docs/runbook.md, "Metrics and alerts")."""
