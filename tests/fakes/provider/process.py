"""Launch the fake provider in a separate process (for CPU-honest benchmarks).

The child runs ``python -m tests.fakes.provider`` with :data:`sys.executable` and announces its
address with a ``READY http://127.0.0.1:PORT/v1`` line; :func:`spawn_fake_provider` waits for it
(bounded) and returns the process and the base URL. Reconfigure or inspect the child over HTTP:
``GET /_admin/stats``, ``POST /_admin/config``, ``POST /_admin/reset``.

Example::

    proc, base_url = spawn_fake_provider(latency=0.5, fault_rate=0.1, fault_kinds=("429",))
    try:
        ...  # litellm.acompletion(model="openai/fake", api_base=base_url, api_key="x", ...)
    finally:
        stop_process(proc)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

from tests.fakes.provider.faults import FAULT_KINDS, check_kinds
from tests.fakes.provider.registry import fake_class

_REPO_ROOT = Path(__file__).resolve().parents[3]


class FakeProviderStartError(RuntimeError):
    """The fake provider process did not announce ``READY`` in time."""


def spawn_fake_provider(
    latency: float = 0.0,
    fault_rate: float = 0.0,
    fault_kinds: Iterable[str] = FAULT_KINDS,
    seed: int = 0,
    jitter: float = 0.0,
    hang_s: float = 30.0,
    port: int = 0,
    ready_timeout: float = 20.0,
    api: str = "openai",
    rate_limit: float = 0.0,
) -> tuple[subprocess.Popen[str], str]:
    """Start ``python -m tests.fakes.provider`` and return ``(process, base_url)`` once ready.

    ``api`` picks the wire format (a name of :data:`tests.fakes.provider.registry.FAKES`);
    ``rate_limit`` refuses chat calls beyond that many a second with HTTP 429.
    """
    kinds = ",".join(check_kinds(fault_kinds))
    fake_class(api)  # a typo fails here, not as a child that never says READY
    cmd = [
        sys.executable, "-m", "tests.fakes.provider", "--host", "127.0.0.1",
        "--port", str(port), "--latency", str(latency), "--jitter", str(jitter),
        "--hang-s", str(hang_s), "--fault-rate", str(fault_rate),
        "--fault-kinds", kinds, "--seed", str(seed), "--api", api,
        "--rate-limit", str(rate_limit),
    ]  # fmt: skip
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_REPO_ROOT), env.get("PYTHONPATH")) if p)
    # stderr goes to an unlinked temp file: readable on failure, never blocks a chatty child
    with tempfile.TemporaryFile(mode="w+") as errfile:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errfile, text=True, env=env)
        line = _read_ready_line(proc, ready_timeout)
        if not line.startswith("READY "):
            stop_process(proc)
            errfile.seek(0)
            raise FakeProviderStartError(
                f"fake provider did not print READY within {ready_timeout:g}s "
                f"(exit code {proc.returncode}, first line {line!r}); "
                f"stderr:\n{errfile.read()[-2000:]}"
            )
    return proc, line.removeprefix("READY ")


def _read_ready_line(proc: subprocess.Popen[str], timeout: float) -> str:
    """The child's first stdout line, or ``""`` if none arrives within ``timeout`` seconds."""
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.append(proc.stdout.readline() if proc.stdout else ""), daemon=True
    )
    reader.start()
    reader.join(timeout)
    return lines[0].strip() if lines else ""


def stop_process(proc: subprocess.Popen[str], timeout: float = 5.0) -> None:
    """Terminate a spawned provider (SIGTERM, then SIGKILL after ``timeout``) and reap it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
