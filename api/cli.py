"""The service's ``judge`` verbs: ``serve`` (the HTTP API) and ``worker`` (batch jobs from
Redis); listed in :data:`judge.cli.verbs.VERBS`.

Example:
    $ judge serve --port 8080          # loopback only unless JUDGE_SERVE_API_KEYS is set
    $ REDIS_URL=redis://... judge worker
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from api.core.settings import ServiceSettings
    from judge.config import JudgeSettings


def register_serve(sub: argparse._SubParsersAction) -> None:
    """Add the ``serve`` verb."""
    p = sub.add_parser(
        "serve",
        help="run the HTTP service (embedded Redis unless REDIS_URL)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--host",
        default=argparse.SUPPRESS,
        help="bind address (default: JUDGE_SERVE_HOST, else 127.0.0.1)",
    )
    p.add_argument(
        "--port",
        type=int,
        default=argparse.SUPPRESS,
        help="port (default: JUDGE_SERVE_PORT, else 8080)",
    )
    p.add_argument(
        "--workers", type=int, default=1, help="HTTP worker processes (they share one Redis)"
    )
    p.add_argument(
        "--workers-inline",
        type=int,
        default=argparse.SUPPRESS,
        help="batch workers to run inside this process (0 = none; run `judge worker` "
        "elsewhere; default: JUDGE_SERVE_INLINE_WORKERS, else 1)",
    )
    _may_lose_data_flag(p)
    p.set_defaults(handler=serve)


def _may_lose_data_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redis-may-lose-data",
        action="store_true",
        default=argparse.SUPPRESS,
        help="accept an external Redis with neither an append-only file nor snapshots: "
        "every campaign, vote and batch is lost when it restarts (default: "
        "JUDGE_SERVE_REDIS_MAY_LOSE_DATA, else refuse such a Redis)",
    )


def register_worker(sub: argparse._SubParsersAction) -> None:
    """Add the ``worker`` verb."""
    w = sub.add_parser("worker", help="run a batch worker (needs the service's REDIS_URL)")
    _may_lose_data_flag(w)
    w.set_defaults(handler=worker)


def serve_settings(args: argparse.Namespace) -> ServiceSettings:
    """The service settings of ``judge serve``: flags beat the environment; inline batch
    workers are the flag's count, else ``JUDGE_SERVE_INLINE_WORKERS``, else 1 (an app built
    elsewhere, without ``judge serve``, runs none unless the variable asks).

    Example:
        >>> serve_settings(argparse.Namespace(port=9000)).inline_workers  # nothing set: one
        1
        >>> serve_settings(argparse.Namespace(workers_inline=0)).inline_workers
        0
    """
    from api.core.settings import ServiceSettings

    flags = {
        "host": "host",
        "port": "port",
        "workers_inline": "inline_workers",
        "redis_may_lose_data": "redis_may_lose_data",
    }
    given = {field: getattr(args, flag) for flag, field in flags.items() if hasattr(args, flag)}
    settings = ServiceSettings(**given)
    if "inline_workers" not in settings.model_fields_set:  # neither the flag nor the variable
        return settings.model_copy(update={"inline_workers": 1})
    return settings


def judge_lines(engine: JudgeSettings, settings: ServiceSettings) -> list[str]:
    """What ``judge serve`` says at start about who answers: the judge (model, panel, or the
    local backend and its estimator; for ``mock/judge``, that its scores are made up) and what
    requests may ask for (the local backend's rule, :mod:`api.judging.policy`).

    Example:
        >>> from api.core.settings import ServiceSettings
        >>> from judge.config import JudgeSettings
        >>> judge_lines(JudgeSettings(model="openai/gpt-4o"), ServiceSettings())[0]
        'judge: the judge model openai/gpt-4o answers every request'
    """
    from judge.judged_by import MADE_UP, judged_by, judged_by_text

    info = judged_by(engine)
    lines = [f"judge: {judged_by_text(info)} answers every request"]
    if info["made_up"]:
        lines.append(f"judge: warning: {MADE_UP}")
    if info["backend"] == "local":
        lines.append("judge: requests asking for backend 'llm' get 409 no_judge_model "
                     "(set JUDGE_MODEL to serve a judge model)")  # fmt: skip
    elif settings.allow_local_backend:
        lines.append("judge: requests may also ask for the local backend "
                     "(JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true)")  # fmt: skip
    else:
        lines.append("judge: requests get the model, not the local backend "
                     "(JUDGE_SERVE_ALLOW_LOCAL_BACKEND=true lets them ask for it)")  # fmt: skip
    return lines


def start_problem(engine: JudgeSettings, settings: ServiceSettings) -> str | None:
    """Why ``judge serve`` refuses to start, else None: an open public bind without keys
    (:meth:`ServiceSettings.check_bind`), or the llm backend without a model (every request
    would fail).

    Example:
        >>> from api.core.settings import ServiceSettings
        >>> from judge.config import JudgeSettings
        >>> start_problem(JudgeSettings(backend="llm"), ServiceSettings())  # doctest: +ELLIPSIS
        'JUDGE_BACKEND=llm needs a judge model: set JUDGE_MODEL ...'
    """
    if engine.resolved_backend() == "llm" and not engine.models():
        return ("JUDGE_BACKEND=llm needs a judge model: set JUDGE_MODEL (or JUDGE_PANEL), or "
                "unset JUDGE_BACKEND to serve the local backend")  # fmt: skip
    return settings.check_bind()


def _redis_busy(settings: ServiceSettings) -> str | None:
    """Another ``judge serve`` runs the embedded Redis of this data folder (one line)."""
    if settings.redis_url:
        return None
    from api.core.redis_embedded import busy

    return busy(settings.data_dir / "redis")


def serve(args: argparse.Namespace) -> int:
    """Start uvicorn with the app; refuses an open public bind without keys."""
    import uvicorn

    from api.app import create_app
    from api.configuration import ServiceProcessSettings
    from api.core.logs import log_config

    process = ServiceProcessSettings()  # every section now: a bad variable is named
    settings = serve_settings(args)
    problem = start_problem(process.engine, settings) or _redis_busy(settings)
    if problem:
        print(f"judge serve: {problem}", file=sys.stderr)
        return 2
    for line in judge_lines(process.engine, settings):
        print(f"judge serve: {line}", file=sys.stderr)
    for line in settings.weak_keys():  # on loopback only (elsewhere check_bind refused)
        print(
            f"judge serve: warning: {line}; reachable from this machine only, but make "
            "strong keys before binding anything else",
            file=sys.stderr,
        )
    if not settings.auth_required and settings.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            "judge serve: no JUDGE_SERVE_API_KEYS set and JUDGE_SERVE_ALLOW_OPEN_PUBLIC=true: "
            f"open to anyone who can reach {settings.host}:{settings.port}",
            file=sys.stderr,
        )
    if (
        not settings.auth_required
        and settings.check_bind() is None
        and settings.host in ("127.0.0.1", "localhost", "::1")
    ):
        print(
            f"judge serve: no JUDGE_SERVE_API_KEYS set: open to anyone who can reach "
            f"{settings.host}:{settings.port} (loopback only)",
            file=sys.stderr,
        )
    problem = external_redis_problem(settings)
    if problem:
        print(f"judge serve: {problem}", file=sys.stderr)
        return 2
    if args.workers > 1:
        return _serve_processes(settings, args.workers)
    app = create_app(settings)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_config=log_config("info"),
        **server_options(settings),
    )
    return 0


#: the event loop and HTTP parser of every service process: uvloop's libuv loop and the
#: httptools (llhttp) parser, both C; asyncio's own loop and the pure-Python h11 parser
#: cost more CPU on every request and every model call (docs/throughput.md has the figures)
SERVER_LOOP, SERVER_HTTP = "uvloop", "httptools"


class ServerOptions(TypedDict, total=False):
    """The uvicorn keyword arguments :func:`server_options` gives."""

    loop: str
    http: str
    proxy_headers: bool
    forwarded_allow_ips: str


def server_options(settings: ServiceSettings) -> ServerOptions:
    """Every uvicorn option of ``judge serve`` that is not an address: the loop, the HTTP
    parser and the proxy options.

    Example:
        >>> from api.core.settings import ServiceSettings
        >>> server_options(ServiceSettings())
        {'loop': 'uvloop', 'http': 'httptools', 'proxy_headers': False}
    """
    return {"loop": SERVER_LOOP, "http": SERVER_HTTP, **proxy_options(settings)}


def proxy_options(settings: ServiceSettings) -> ServerOptions:
    """uvicorn's proxy options: ``X-Forwarded-For``/``-Proto`` are believed only from the
    addresses of ``JUDGE_SERVE_TRUSTED_PROXIES``; without it they are ignored (uvicorn would
    otherwise trust them from 127.0.0.1, letting any local client pick its address).

    Example:
        >>> from api.core.settings import ServiceSettings
        >>> proxy_options(ServiceSettings())
        {'proxy_headers': False}
        >>> proxy_options(ServiceSettings(trusted_proxies="10.0.0.2"))
        {'proxy_headers': True, 'forwarded_allow_ips': '10.0.0.2'}
    """
    if not settings.trusted_proxies:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": ",".join(settings.trusted_proxies)}


def _serve_processes(settings: ServiceSettings, workers: int) -> int:
    """Several HTTP processes: one embedded Redis started here, shared through REDIS_URL."""
    import os

    import uvicorn

    from api.core.logs import log_config
    from api.core.prometheus import use_multiprocess_dir
    from api.core.redis_embedded import EmbeddedRedis
    from api.core.redis_persistence import ALLOW_VARIABLE

    use_multiprocess_dir(settings.data_dir)  # /metrics sums every worker process
    embedded = None
    if not settings.redis_url:
        embedded = EmbeddedRedis(settings.data_dir / "redis")
        os.environ["REDIS_URL"] = embedded.start()
    # the processes uvicorn starts build their ServiceSettings from the environment: hand them
    # the --workers-inline choice (and the private REDIS_URL above) there
    os.environ["JUDGE_SERVE_INLINE_WORKERS"] = str(settings.inline_workers)
    if settings.redis_may_lose_data:  # the flag reaches the processes as its variable
        os.environ[ALLOW_VARIABLE] = "true"
    try:
        uvicorn.run(
            "api.app:create_app",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=workers,
            log_config=log_config("warning"),
            **server_options(settings),
        )
    finally:
        if embedded:
            embedded.stop()
    return 0


def external_redis_problem(settings: ServiceSettings) -> str | None:
    """Why the external Redis of ``settings`` cannot be used, or None (no external Redis,
    or one that keeps its data, or ``redis_may_lose_data``): unreachable, or volatile
    (:mod:`api.core.redis_persistence`)."""
    if not settings.redis_url:
        return None
    import redis

    from api.core.redis_persistence import VolatileRedis, check, redact

    try:
        check(settings.redis_url, settings.redis_may_lose_data)
    except VolatileRedis as exc:
        return str(exc)
    except redis.RedisError as exc:
        return (
            f"cannot reach the Redis at {redact(settings.redis_url)} ({type(exc).__name__}: "
            f"{exc}); is it running, and does REDIS_URL carry its password?"
        )
    return None


def worker(args: argparse.Namespace) -> int:
    """Run an arq worker until interrupted."""
    from api.configuration import ServiceProcessSettings
    from api.core.settings import ServiceSettings
    from api.jobs.worker import NO_REDIS, run_worker

    ServiceProcessSettings()  # every section now: a bad variable is named (judge.cli.main)
    if getattr(args, "redis_may_lose_data", False):
        settings = ServiceSettings(redis_may_lose_data=True)
    else:
        settings = ServiceSettings()
    if not settings.redis_url:
        print(NO_REDIS, file=sys.stderr)
        return 2
    problem = external_redis_problem(settings)
    if problem:
        print(f"judge worker: {problem}", file=sys.stderr)
        return 2
    return run_worker()
