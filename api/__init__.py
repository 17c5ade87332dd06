"""The HTTP service (FastAPI) around the engine, by subsystem.

- :mod:`api.app` — the app factory with the explicit router list;
- :mod:`api.core` — settings, dependencies, errors, limits, policy, Prometheus metrics,
  readiness, the embedded Redis and the one place the engine is built;
- :mod:`api.routes` — the synchronous judging routes (score, compare, skills, memories, health);
- :mod:`api.batches` — batch jobs on Redis and the worker that runs them;
- :mod:`api.probes`, :mod:`api.studies` — those workflows served over HTTP;
- :mod:`api.ui` — the server-rendered web pages;
- :mod:`api.cli` — the ``judge serve`` and ``judge worker`` verbs.
"""
