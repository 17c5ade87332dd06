"""The HTTP service (FastAPI) around the engine, by subsystem.

- :mod:`api.app` — the app factory with the explicit router list;
- :mod:`api.core` — what every subsystem shares: settings, dependencies, errors, body and
  rate limits, logging, observation and Prometheus metrics, Redis (embedded or external);
- :mod:`api.judging` — ``/v1/score``, ``/v1/compare``, ``/v1/skills``, the one request
  validation path and the one place the engine is built;
- :mod:`api.memories` — ``/v1/memories`` (list, read, search, add exemplars, repair);
- :mod:`api.jobs` — ``/v1/batches``, the job records on Redis and the arq worker that runs
  batch items and probes (``judge worker``);
- :mod:`api.health` — ``/healthz``, ``/readyz``, ``/metrics`` and the start-up warm-up;
- :mod:`api.probes`, :mod:`api.studies`, :mod:`api.campaigns` — those workflows served over
  HTTP, each with its routes and its pages;
- :mod:`api.ui` — the shared page machinery (templates, static files, key sign-in), the
  index, the docs page and the results viewer;
- :mod:`api.cli` — the ``judge serve`` and ``judge worker`` verbs.
"""
