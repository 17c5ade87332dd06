"""Every shell example of ``docs/security.md`` runs as written (ports swapped for free ones):
blocks ending in ``&`` start a server (``judge serve`` or ``redis-server``) in the
background, the others are run with bash and their output compared with the ``text``
block that follows them."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.core.redis_embedded import redis_binary
from tests.api.conftest import REPO, free_port

DOC = REPO / "docs" / "security.md"
BLOCK = re.compile(r"```(sh|text)\n(.*?)```", re.S)
PORTS = ("8080", "8081", "8082", "6390")


def examples() -> list[tuple[str, str | None]]:
    """(shell block, the expected output after it or None)."""
    blocks = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    out: list[tuple[str, str | None]] = []
    for i, (kind, body) in enumerate(blocks):
        if kind == "sh":
            follows = blocks[i + 1] if i + 1 < len(blocks) else None
            out.append((body, follows[1] if follows and follows[0] == "text" else None))
    return out


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _ready(proc: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + 240
    while not _listening(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"the example's server did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_") and k != "REDIS_URL"}
    base.pop("PROMETHEUS_MULTIPROC_DIR", None)
    bins = [str(Path(sys.executable).parent), str(Path(redis_binary()).parent)]
    base.update(PATH=os.pathsep.join([*bins, base.get("PATH", "")]), PYTHONPATH=str(REPO))
    yield base


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_security_page_examples_run_as_written(tmp_path: Path, env: dict[str, str]) -> None:
    ports = {p: str(free_port()) for p in PORTS}
    started: list[subprocess.Popen] = []
    ran = 0
    try:
        for n, (block, expected) in enumerate(examples()):
            for old, new in ports.items():
                block = block.replace(old, new)
            if block.rstrip().endswith("&"):
                own = {
                    **env,
                    "JUDGE_DATA_DIR": str(tmp_path / f"data-{n}"),
                    "JUDGE_MEMORY_DIR": str(tmp_path / f"memories-{n}"),
                }
                log = tmp_path / f"server-{n}.log"
                with log.open("w") as fh:
                    proc = subprocess.Popen(
                        ["bash", "-c", block.rstrip().rstrip("&")],
                        env=own,
                        cwd=tmp_path,
                        stdout=fh,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                started.append(proc)
                port = int(re.findall(r"--port (\d+)", block)[-1])
                _ready(proc, port, log)
                continue
            done = subprocess.run(
                ["bash", "-c", block],
                env=env,
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, (block, done.stderr)
            ran += 1
            if expected is not None:
                assert done.stdout == expected, (block, done.stdout, done.stderr)
    finally:
        for proc in started:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
    assert len(started) == 4 and ran == 3
