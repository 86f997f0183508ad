"""Temporal workflows: deterministic orchestration only (no I/O; activities do the work)."""
