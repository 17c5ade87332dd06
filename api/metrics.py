"""Prometheus metrics of the service (text format at ``GET /metrics``).

Example:
    >>> b"judge_requests_total" in render()
    True
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

REGISTRY = CollectorRegistry()
REQUESTS = Counter(
    "judge_requests_total", "HTTP requests", ["route", "method", "status"], registry=REGISTRY
)
LATENCY = Histogram(
    "judge_request_seconds",
    "HTTP request latency",
    ["route"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128),
    registry=REGISTRY,
)
PROVIDER_CALLS = Counter(
    "judge_provider_calls_total", "model provider round trips", registry=REGISTRY
)
CACHE_HITS = Counter("judge_cache_hits_total", "responses served from the cache", registry=REGISTRY)
SUBMISSIONS = Counter(
    "judge_submissions_total", "scored submissions", ["status"], registry=REGISTRY
)
QUEUE_DEPTH = Gauge("judge_queue_depth", "batch items waiting in the queue", registry=REGISTRY)


def record_result(status: str, llm_calls: int, cache_hits: int) -> None:
    """Count one scored submission and its model usage."""
    SUBMISSIONS.labels(status=status).inc()
    PROVIDER_CALLS.inc(llm_calls)
    CACHE_HITS.inc(cache_hits)


def render() -> bytes:
    """The exposition text."""
    return generate_latest(REGISTRY)
