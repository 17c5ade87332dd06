"""``judge serve`` (the HTTP API) and ``judge worker`` (batch jobs from Redis).

Example:
    $ judge serve --port 8080          # loopback only unless JUDGE_API_KEYS is set
    $ REDIS_URL=redis://... judge worker
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``serve`` and ``worker`` verbs."""
    p = sub.add_parser("serve", help="run the HTTP service (embedded Redis unless REDIS_URL)")
    p.add_argument("--host", help="bind address (env JUDGE_HOST, default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (env JUDGE_PORT, default 8080)")
    p.add_argument(
        "--workers-inline",
        type=int,
        default=1,
        help="batch workers to run inside this process (0 = none; run `judge worker` elsewhere)",
    )
    p.set_defaults(handler=serve)
    w = sub.add_parser("worker", help="run a batch worker (needs the service's REDIS_URL)")
    w.set_defaults(handler=worker)


def serve(args: argparse.Namespace) -> int:
    """Start uvicorn with the app; refuses an open public bind without keys."""
    import uvicorn

    from api.app import create_app
    from api.settings import ServiceSettings

    overrides = {k: v for k, v in {"host": args.host, "port": args.port}.items() if v}
    settings = ServiceSettings(**overrides)
    problem = settings.check_bind()
    if problem:
        print(f"judge serve: {problem}", file=sys.stderr)
        return 2
    if not settings.auth_required:
        print(
            f"judge serve: no JUDGE_API_KEYS set: open to anyone who can reach "
            f"{settings.host}:{settings.port} (loopback only)",
            file=sys.stderr,
        )
    app = create_app(settings)
    app.state.inline_workers = args.workers_inline
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info")
    return 0


def worker(args: argparse.Namespace) -> int:
    """Run an arq worker until interrupted."""
    try:
        from api.worker import run_worker
    except ModuleNotFoundError:  # pragma: no cover - the batch module is part of the service
        print("judge worker: batch support is not installed", file=sys.stderr)
        return 2
    return run_worker()
