"""Prometheus metrics of the service (text format at ``GET /metrics``).

``judge serve --workers N`` runs N processes: it points ``PROMETHEUS_MULTIPROC_DIR`` at
``<data dir>/metrics`` (:func:`use_multiprocess_dir`, before the workers start), each process
writes its samples there, and ``/metrics`` answers with the sum over all of them, whichever
process serves it.

Example:
    >>> b"judge_requests_total" in render()
    True
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from judge.llm import adaptive

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

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
QUEUE_DEPTH = Gauge(
    "judge_queue_depth",
    "batch items waiting in the queue",
    registry=REGISTRY,
    multiprocess_mode="mostrecent",
)

LLM_LIMIT = Gauge(
    "judge_llm_concurrency_limit",
    "adaptive limit on model calls in flight, per route (summed over worker processes)",
    ["route"],
    registry=REGISTRY,
    multiprocess_mode="livesum",
)
LLM_WINDOW = Gauge(
    "judge_llm_concurrency_window",
    "model calls allowed in flight now, per route: the limit, or fewer while restarting "
    "after a wait the provider named (summed over worker processes)",
    ["route"],
    registry=REGISTRY,
    multiprocess_mode="livesum",
)
LLM_THROTTLES = Counter(
    "judge_llm_throttle_events_total",
    "provider throttling signals (429, overloaded, timeout, rate-limit headers)",
    ["route", "cause"],
    registry=REGISTRY,
)


def _on_limit(limit: adaptive.AdaptiveLimit, event: str) -> None:
    """Keep the adaptive limit's gauges current; count its throttling events."""
    LLM_LIMIT.labels(route=limit.route).set(limit.limit)
    LLM_WINDOW.labels(route=limit.route).set(limit.window())
    if event != "limit":
        LLM_THROTTLES.labels(route=limit.route, cause=event).inc()


adaptive.set_observer(_on_limit)


def use_multiprocess_dir(data_dir: Path) -> Path:
    """Make ``<data_dir>/metrics`` the (empty) shared metrics folder of the processes started
    after this call (sets ``PROMETHEUS_MULTIPROC_DIR``); returns it."""
    folder = (Path(data_dir) / "metrics").resolve()
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    os.environ[MULTIPROC_ENV] = str(folder)
    return folder


def record_result(status: str, llm_calls: int, cache_hits: int) -> None:
    """Count one scored submission (a request, or a batch item) and its model usage."""
    SUBMISSIONS.labels(status=status).inc()
    PROVIDER_CALLS.inc(llm_calls)
    CACHE_HITS.inc(cache_hits)


def render() -> bytes:
    """The exposition text (summed over every worker process in multiprocess mode)."""
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)
