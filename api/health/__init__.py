"""Liveness, readiness and metrics: ``/healthz``, ``/readyz``, ``/metrics``, and the start-up
warm-up that ``/readyz`` waits for."""
