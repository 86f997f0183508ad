"""What a lifecycle write reports back to its workflow."""

from __future__ import annotations

# What a lifecycle write reports: the stores return it too, so it is defined in the domain.
from models.domain.writes import TransitionOutcome as TransitionOutcome  # noqa: F401 - re-exported

# Error types the lifecycle workflows raise from their updates (the API maps them: 409, 503).
INVALID_TRANSITION = "InvalidTransition"
WRITE_FAILED = "WriteFailed"
