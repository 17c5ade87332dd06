"""The HTTP service (FastAPI): ``POST /v1/score``, batch jobs on Redis (DESIGN.md §2).

Filled in by the service issue; it will call :class:`judge.engine.Judge`.
"""
