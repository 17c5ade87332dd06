"""Judging over HTTP: ``POST /v1/score``, ``POST /v1/compare`` and ``GET /v1/skills``.

Modules: ``requests`` (the one validation path every route, batches and the worker share),
``run`` (judge a checked request under the service's time limit), ``policy`` (what a client
may ask per request), ``models`` (wrapped request and listing shapes), ``factory`` (the one
place the service builds its engine) and one module per route.
"""
